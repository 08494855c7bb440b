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
package lualib
