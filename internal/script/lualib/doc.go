// Package lualib implements, in Go on gopher-lua, the Lua libraries Valkey
// 8.0.1 loads into its scripting sandbox besides Lua 5.1's own: cjson
// (lua_cjson 2.1.0), cmsgpack (lua-cmsgpack 0.4.0), bit (LuaBitOp 1.0.2)
// and struct (Roberto Ierusalimschy's struct with Valkey's fixes). Open
// registers all four as globals of an LState, as Valkey's scripting engine
// does.
//
// Scripts compare the strings these libraries produce, so their outputs and
// error texts are protocol: they follow Valkey's C libraries byte for byte,
// including the behaviour that comes from C and x86-64 rather than from the
// libraries' intent (the conversion of out-of-range doubles to integers,
// shift counts taken modulo 64, a NUL byte ending a JSON text or a struct
// format). Where a result depends on the order in which Lua 5.1's next()
// visits a table (cjson objects, cmsgpack maps) the order is computed by
// replaying the table's keys into a model of Lua 5.1's hash table
// (order.go), since gopher-lua's own order is insertion order.
//
// Errors are raised as Lua errors carrying exactly the message Valkey's Lua
// produces: luaL_error from a C function adds no position, and argument
// errors read "bad argument #N to 'name' (...)" with the name the caller
// used for the function.
//
// Invariants:
//   - No state is shared between LStates: each Open builds its own module
//     tables, cjson configuration and cjson.null sentinel, captured by the
//     closures it registers. Nothing in the package is a mutable global, so
//     one LState per goroutine is safe (an LState itself is not safe for
//     concurrent use, as gopher-lua documents).
//   - cjson.null is one *lua.LUserData per Open, shared by cjson.new()
//     instances of that LState, so cjson.null == cjson.new().null as with
//     Valkey's NULL lightuserdata.
//   - The libraries never panic with a Go error on any input: every failure
//     is a Lua error raised through the LState (the fuzz targets check
//     cjson.decode and cmsgpack.unpack).
//   - Lua's C stack limit (LUAI_MAXCSTACK, 8000 slots) is modelled where
//     the C libraries hit it (deep cjson nesting, many cmsgpack or struct
//     results), so the same inputs fail with the same "stack overflow"
//     texts.
//
// Where the outputs can differ from Valkey's (each for want of information
// gopher-lua does not keep):
//   - The order of next() is replayed from the keys alone, as if the
//     table grew key by key. A table constructor presizes Lua's hash part,
//     so a constructor whose string keys collide can come out in another
//     order (117 of 400 random constructors of 2 to 10 keys did; replaying
//     them presized is exact for those and wrong as often for tables
//     built key by key, so the engine would have to record which tables
//     a constructor made, and its size hint, to be exact for both); positive integer keys are replayed as if a
//     hole-free run 1..n came first and the rest after the other keys
//     (gopher-lua files them apart, losing when they were set); and a key
//     set to nil leaves a dead node in Lua's table that can move later keys
//     (cmsgpack.unpack sets one for every map pair whose value is nil).
//     Keys of other types (tables, functions) hash by address in Lua, so
//     no order is promised for them there either.
//   - getmetatable(cjson.null) is the sentinel's metatable, not nil.
//   - An argument error of a function called as a method reads "bad
//     argument #n to 'f'", not Lua's "calling 'f' on bad self": gopher-lua
//     does not report how a function was called.
package lualib
