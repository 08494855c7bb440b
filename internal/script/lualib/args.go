package lualib

import (
	"fmt"
	"strconv"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// Argument checking with the messages of Lua 5.1's lauxlib, which the C
// libraries use: scripts see these texts.

// maxCStack is Lua 5.1's LUAI_MAXCSTACK: the most stack slots a C function
// may hold. lua_checkstack fails past it, and the libraries turn that into
// their own errors.
const maxCStack = 8000

// raise raises a Lua error as luaL_error does from a C function: the
// message, prefixed with the position of the Lua code that called the
// function ("user_script:3: "), none when a Go function such as pcall
// called it.
func raise(L *lua.LState, format string, args ...any) {
	msg := format
	if len(args) > 0 {
		msg = fmt.Sprintf(format, args...)
	}
	L.Error(lua.LString(where(L)+msg), 0)
}

// raiseBare raises a Lua error without position, as the Lua core's own
// errors inside a C function do ("table index is nil").
func raiseBare(L *lua.LState, msg string) {
	L.Error(lua.LString(msg), 0)
}

// where is luaL_where(L, 1): "chunk:line: " for the caller of the running
// Go function when that is Lua code.
func where(L *lua.LState) string {
	caller, ok := L.GetStack(1)
	if !ok {
		return ""
	}
	if _, err := L.GetInfo("Sl", caller, lua.LNil); err != nil || caller.What == "G" || caller.CurrentLine <= 0 {
		return ""
	}
	src := caller.Source
	if src != "" && (src[0] == '@' || src[0] == '=') {
		src = src[1:]
	}
	return src + ":" + strconv.Itoa(caller.CurrentLine) + ": "
}

// stackOverflow raises luaL_checkstack's error.
func stackOverflow(L *lua.LState, what string) {
	raise(L, "stack overflow (%s)", what)
}

// funcName is the name the running Go function was called by, as Lua
// 5.1's getfuncname finds it for luaL_argerror: the global, local, field
// or method name at the call site, or "?" when called from a Go function
// (pcall) or through an expression without a name.
func funcName(L *lua.LState) string {
	self, ok := L.GetStack(0)
	if !ok {
		return "?"
	}
	if caller, ok := L.GetStack(1); ok {
		if _, err := L.GetInfo("S", caller, lua.LNil); err == nil && caller.What == "G" {
			return "?"
		}
	}
	if _, err := L.GetInfo("n", self, lua.LNil); err != nil || self.Name == "" {
		return "?"
	}
	name := self.Name
	if name[0] == '<' || name[0] == '(' {
		// gopher-lua's placeholders for functions without a name.
		return "?"
	}
	return name
}

// argError is luaL_argerror.
func argError(L *lua.LState, n int, msg string) {
	raise(L, "bad argument #%d to '%s' (%s)", n, funcName(L), msg)
}

// typeError is luaL_typerror: the argument is not of the expected type.
func typeError(L *lua.LState, n int, expected string) {
	argError(L, n, fmt.Sprintf("%s expected, got %s", expected, typeName(L, n)))
}

// typeName is luaL_typename: "no value" past the last argument.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// toNumber is lua_tonumber: numbers, and strings Lua converts to numbers.
func toNumber(v lua.LValue) (float64, bool) {
	switch v := v.(type) {
	case lua.LNumber:
		return float64(v), true
	case lua.LString:
		return str2number(string(v))
	}
	return 0, false
}

// toString is lua_tolstring: strings, and numbers formatted as Lua does.
func toString(v lua.LValue) (string, bool) {
	switch v := v.(type) {
	case lua.LString:
		return string(v), true
	case lua.LNumber:
		return numberToString(float64(v)), true
	}
	return "", false
}

// checkNumber is luaL_checknumber.
func checkNumber(L *lua.LState, n int) float64 {
	f, ok := toNumber(L.Get(n))
	if !ok {
		typeError(L, n, "number")
	}
	return f
}

// checkInteger is luaL_checkinteger: the number truncated as
// lua_number2integer does.
func checkInteger(L *lua.LState, n int) int64 {
	return toInt64(checkNumber(L, n))
}

// optInteger is luaL_optinteger.
func optInteger(L *lua.LState, n int, def int64) int64 {
	if L.Get(n) == lua.LNil {
		return def
	}
	return checkInteger(L, n)
}

// checkString is luaL_checklstring.
func checkString(L *lua.LState, n int) string {
	s, ok := toString(L.Get(n))
	if !ok {
		typeError(L, n, "string")
	}
	return s
}

// checkOption is luaL_checkoption without a default: the index of the
// argument's string in options.
func checkOption(L *lua.LState, n int, options []string) int {
	s := checkString(L, n)
	for i, o := range options {
		if o == s {
			return i
		}
	}
	argError(L, n, fmt.Sprintf("invalid option '%s'", s))
	return 0
}

// libFunc is one function of a module table.
type libFunc struct {
	name string
	fn   lua.LGFunction
}

// setFuncs stores fns in t in their order (the order Valkey registers
// them in).
func setFuncs(L *lua.LState, t *lua.LTable, fns []libFunc) {
	for _, f := range fns {
		t.RawSetString(f.name, L.NewFunction(f.fn))
	}
}
