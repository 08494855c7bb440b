package lualib

import lua "github.com/corvid-kv/corvid/internal/lua"

// Conversions the scripting engine (package script) shares with the
// libraries, so that a number reads the same in a reply, in an argument and
// in a library's output.

// NumberToString is Lua 5.1's tostring of a number ("%.14g" with glibc).
func NumberToString(f float64) string { return numberToString(f) }

// ToInt64 is C's (long long)d on x86-64: the truncation Valkey applies to
// a Lua number it replies as an integer (the type's minimum for NaN and
// out-of-range values).
func ToInt64(f float64) int64 { return toInt64(f) }

// LuaOrder returns t's non-nil pairs in the order Lua 5.1's next() visits
// them (modelled as order.go explains), for replies whose order Valkey
// takes from next(): RESP3 maps and sets returned by scripts.
func LuaOrder(t *lua.LTable) (keys, values []lua.LValue) {
	for _, e := range luaOrder(t) {
		keys = append(keys, e.key)
		values = append(values, e.val)
	}
	return keys, values
}

// Str2Number is Lua 5.1's string-to-number conversion (lua_isnumber on a
// string): strtod, then only white space.
func Str2Number(s string) (float64, bool) { return str2number(s) }

// FormatG is glibc's printf("%.<prec>g").
func FormatG(f float64, prec int) string { return formatG(f, prec) }
