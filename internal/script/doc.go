// Package script is Corvid's Lua scripting engine: Valkey 8.0.1's EVAL
// dialect (Lua 5.1 on gopher-lua, with Valkey's sandbox and libraries) and
// its script cache. It knows nothing of keys, locks or connections: the
// server runs a script through Engine.Run with a Host that executes the
// commands the script calls (redis.call) and owns atomicity, propagation
// and statistics.
//
// A run goes like this: the server looks the script up (Engine.Get for
// EVALSHA, Engine.Load for EVAL's body), takes the locks it needs, and
// calls Run with the keys, the arguments, the caller's reply writer and a
// Host. Run takes a State (an LState with the sandbox built once) from a
// pool, binds KEYS and ARGV, runs the compiled chunk, converts the value it
// returns (or the error it raises) to RESP in the caller's protocol and
// puts the State back.
//
// Invariants:
//   - A State is used by one goroutine at a time: Run takes it from the
//     pool and returns it when the script has ended. Nothing a script can
//     do outlives its run in a State that is reused: globals and the
//     library tables are read-only proxies (writes raise Valkey's
//     "Attempt to modify a readonly table"), KEYS and ARGV are rebound
//     before every run, and the RESP version
//     (redis.setresp) and replication flags (redis.set_repl) start at
//     Valkey's defaults.
//   - Compiled chunks (lua.FunctionProto) are immutable and shared by all
//     States; each State keeps its own closure of a script, keyed by the
//     Script pointer. Engine.Flush bumps a generation: a State made
//     before it is closed instead of reused (SCRIPT FLUSH gives Valkey a
//     new Lua interpreter, so what scripts did to the writable string
//     metatable is gone too).
//   - The cache and the function libraries change under Engine.mu (a
//     leaf: nothing else is locked while it is held); EVALSHA's lookups
//     read the cache's sync.Map without it. A *Script, *Library and
//     *Function are immutable once installed except for their atomic
//     Hints, which the server sets.
//   - A run can be stopped from another goroutine (Engine.Kill, SCRIPT
//     KILL): the State's context is cancelled, and gopher-lua raises an
//     error at the next instruction, again at every instruction after a
//     pcall caught it, so the script cannot go on; Run then answers with
//     Valkey's "Script killed by user" error. Busy reports whether a run
//     has gone on longer than the threshold the server set.
package script
