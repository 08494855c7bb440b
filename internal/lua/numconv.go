package lua

import "github.com/corvid-kv/corvid/internal/lua/num"

// NumberToString is Lua 5.1's conversion of a number to a string
// ("%.14g"): tostring, .., the libraries.
func NumberToString(f float64) string { return num.NumberToString(f) }

// Str2Number is Lua 5.1's conversion of a string to a number (luaO_str2d
// on glibc's strtod).
func Str2Number(s string) (float64, bool) { return num.Str2Number(s) }
