package lualib

import (
	"math"
	"strings"

	"github.com/corvid-kv/corvid/internal/lua/num"
)

// Number conversions as Valkey's Lua performs them: glibc's printf and
// strtod (package lua/num, which the Lua VM converts numbers with too), and the
// conversions an x86-64 C compiler emits for casts from double to integer
// types.

func formatG(f float64, prec int) string           { return num.FormatG(f, prec) }
func appendG(b []byte, f float64, prec int) []byte { return num.AppendG(b, f, prec) }
func numberToString(f float64) string              { return num.NumberToString(f) }
func strtod(s string, i int) (float64, int)        { return num.Strtod(s, i) }
func str2number(s string) (float64, bool)          { return num.Str2Number(s) }

// The conversions of double to integer types as x86-64 executes them:
// cvttsd2si gives the "integer indefinite" value (the type's minimum) for
// NaN and for anything out of range.

// toInt32 is C's (int)d.
func toInt32(d float64) int32 {
	if d > -2147483649 && d < 2147483648 {
		return int32(d)
	}
	return math.MinInt32
}

// toInt64 is C's (int64_t)d, and Lua 5.1's lua_number2integer.
func toInt64(d float64) int64 {
	if d >= -9223372036854775808 && d < 9223372036854775808 {
		return int64(d)
	}
	return math.MinInt64
}

// toUint64 is C's (uint64_t)d as gcc compiles it: values below 2^63 (and
// NaN, which compares unordered) convert as signed, larger ones as signed
// after subtracting 2^63, with the top bit flipped back.
func toUint64(d float64) uint64 {
	if !(d >= 9223372036854775808) {
		return uint64(toInt64(d))
	}
	return uint64(toInt64(d-9223372036854775808)) ^ 1<<63
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'f' }
func isAlnum(c byte) bool { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
