package lualib

import (
	lua "github.com/corvid-kv/corvid/internal/lua"
)

// libState is what the libraries opened in one LState share: the cjson.null
// sentinel, which every cjson instance of the LState returns and accepts.
type libState struct {
	null *lua.LUserData
}

// Open registers cjson, cmsgpack, bit and struct as globals of L, each
// with state of its own to L (see the package invariants). It is meant to
// run once per LState, after the base libraries. L's registry should be
// allowed to grow past Lua's 8000-slot C stack limit (lua.Options
// RegistryMaxSize), or calls returning thousands of values (cmsgpack.unpack,
// struct.unpack) fail with gopher-lua's "registry overflow" before they
// reach Valkey's limit and error text.
func Open(L *lua.LState) {
	lib := &libState{null: newNull(L)}
	L.SetGlobal("cjson", lib.newCJSON(L))
	L.SetGlobal("cmsgpack", newCmsgpack(L))
	L.SetGlobal("bit", newBit(L))
	L.SetGlobal("struct", newStruct(L))
}

// newNull makes the cjson.null sentinel. Valkey's is a NULL light
// userdata: type "userdata", printed "userdata: (nil)". gopher-lua has no
// light userdata, so this is a full userdata whose metatable does the
// printing; getmetatable(cjson.null) shows that table where Valkey shows
// nil.
func newNull(L *lua.LState) *lua.LUserData {
	ud := L.NewUserData()
	mt := L.NewTable()
	mt.RawSetString("__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("userdata: (nil)"))
		return 1
	}))
	ud.Metatable = mt
	return ud
}
