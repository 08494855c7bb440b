// Package num converts numbers to and from strings as the Lua 5.1 Valkey
// embeds does: glibc's printf ("%.14g", LUA_NUMBER_FMT) and strtod
// (luaO_str2d). gopher-lua formats numbers with Go's shortest form and
// parses them with strconv.ParseInt/ParseFloat, which read and print
// other strings. Package lua, its parser and Corvid's Lua libraries share
// these.
package num

import (
	"math"
	"strconv"
	"strings"
)

// FormatG formats f as C's printf("%.<prec>g") does with glibc: the shortest
// of %e and %f for prec significant digits, trailing zeros removed, "inf",
// "-inf", "nan" and "-nan" for the special values.
func FormatG(f float64, prec int) string {
	return string(AppendG(nil, f, prec))
}

// AppendG appends FormatG(f, prec) to b.
func AppendG(b []byte, f float64, prec int) []byte {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(b, "-nan"...)
		}
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	if prec == 0 {
		prec = 1
	}
	// The exponent C's %g decides on is the one of the %e conversion at
	// the same precision, after rounding.
	var tmp [64]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', prec-1, 64)
	epos := len(e) - 1
	for e[epos] != 'e' {
		epos--
	}
	exp, _ := strconv.Atoi(string(e[epos+1:]))
	if exp < -4 || exp >= prec {
		mant := trimZeros(e[:epos])
		b = append(b, mant...)
		b = append(b, 'e')
		if exp < 0 {
			b = append(b, '-')
			exp = -exp
		} else {
			b = append(b, '+')
		}
		if exp < 10 {
			b = append(b, '0')
		}
		return strconv.AppendInt(b, int64(exp), 10)
	}
	fixed := strconv.AppendFloat(tmp[:0], f, 'f', prec-1-exp, 64)
	return append(b, trimZeros(fixed)...)
}

// trimZeros drops the trailing zeros of a decimal fraction, and its point
// when nothing is left after it.
func trimZeros(s []byte) []byte {
	dot := -1
	for i, c := range s {
		if c == '.' {
			dot = i
			break
		}
	}
	if dot < 0 {
		return s
	}
	end := len(s)
	for end > dot+1 && s[end-1] == '0' {
		end--
	}
	if end == dot+1 {
		end = dot
	}
	return s[:end]
}

// NumberToString is Lua 5.1's number-to-string conversion (LUA_NUMBER_FMT
// "%.14g" with glibc): tostring, .. and every library that reads a number
// argument as a string. An integer of at most 14 digits takes a short cut.
func NumberToString(f float64) string {
	if f > -1e14 && f < 1e14 && f == math.Trunc(f) && (f != 0 || !math.Signbit(f)) {
		return strconv.FormatInt(int64(f), 10)
	}
	return FormatG(f, 14)
}

// Strtod parses the longest prefix of s[i:] that glibc's strtod accepts
// (after optional leading white space): a decimal or hexadecimal number,
// "inf", "infinity", "nan" or "nan(chars)", with an optional sign. It
// returns the value and the index just past the prefix; end == i when
// nothing was converted. A NUL byte ends the input, as in C.
func Strtod(s string, i int) (val float64, end int) {
	start := i
	at := func(j int) byte {
		if j < len(s) {
			return s[j]
		}
		return 0
	}
	for isCSpace(at(i)) {
		i++
	}
	neg := false
	if c := at(i); c == '+' || c == '-' {
		neg = c == '-'
		i++
	}
	sign := func(v float64) float64 {
		if neg {
			return -v
		}
		return v
	}
	switch {
	case hasPrefixFold(s[min(i, len(s)):], "inf"):
		j := i + 3
		if hasPrefixFold(s[j:], "inity") {
			j += 5
		}
		return sign(math.Inf(1)), j
	case hasPrefixFold(s[min(i, len(s)):], "nan"):
		j := i + 3
		bits := uint64(0x7ff8000000000000)
		if at(j) == '(' {
			k := j + 1
			for isAlnum(at(k)) || at(k) == '_' {
				k++
			}
			if at(k) == ')' {
				// glibc reads the characters as the mantissa's payload
				// when they form a number.
				if p, err := strconv.ParseUint(s[j+1:k], 0, 64); err == nil {
					bits |= p & (1<<51 - 1)
				}
				j = k + 1
			}
		}
		v := math.Float64frombits(bits)
		if neg {
			v = math.Float64frombits(bits | 1<<63)
		}
		return v, j
	case at(i) == '0' && (at(i+1)|0x20) == 'x' && (isHex(at(i+2)) || at(i+2) == '.' && isHex(at(i+3))):
		return hexStrtod(s, i+2, neg)
	}
	// Decimal: digits [. digits] [e [sign] digits], at least one digit in
	// the mantissa.
	j := i
	digits := 0
	for isDigit(at(j)) {
		j++
		digits++
	}
	if at(j) == '.' {
		j++
		for isDigit(at(j)) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, start
	}
	if c := at(j); c == 'e' || c == 'E' {
		k := j + 1
		if c := at(k); c == '+' || c == '-' {
			k++
		}
		if isDigit(at(k)) {
			for isDigit(at(k)) {
				k++
			}
			j = k
		}
	}
	v, _ := strconv.ParseFloat(s[i:j], 64)
	return sign(v), j
}

// hexStrtod converts the hexadecimal float whose digits start at s[i].
func hexStrtod(s string, i int, neg bool) (float64, int) {
	at := func(j int) byte {
		if j < len(s) {
			return s[j]
		}
		return 0
	}
	j := i
	for isHex(at(j)) {
		j++
	}
	mant := s[i:j]
	if at(j) == '.' {
		k := j + 1
		for isHex(at(k)) {
			k++
		}
		mant = s[i:k]
		j = k
	}
	exp := "p0"
	if c := at(j); c == 'p' || c == 'P' {
		k := j + 1
		if c := at(k); c == '+' || c == '-' {
			k++
		}
		if isDigit(at(k)) {
			for isDigit(at(k)) {
				k++
			}
			exp = "p" + s[j+1:k]
			j = k
		}
	}
	if strings.HasPrefix(mant, ".") {
		mant = "0" + mant
	}
	v, _ := strconv.ParseFloat("0x"+mant+exp, 64)
	if neg {
		v = -v
	}
	return v, j
}

// Str2Number is Lua 5.1's conversion of a string to a number (luaO_str2d
// on glibc): strtod, then only white space may follow. Conversion stops at
// a NUL byte, as the C string it works on ends there.
func Str2Number(s string) (float64, bool) {
	if k := strings.IndexByte(s, 0); k >= 0 {
		s = s[:k]
	}
	v, end := Strtod(s, 0)
	if end == 0 {
		return 0, false
	}
	// strtod stopped at an 'x': Lua retries with strtoul base 16, which
	// (glibc's strtod takes hex already, so this is "0x" with no digits)
	// also reads just the "0" and stops at the 'x': not a number.
	for end < len(s) && isCSpace(s[end]) {
		end++
	}
	return v, end == len(s)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool   { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'f' }
func isAlnum(c byte) bool { return isDigit(c) || (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// isCSpace is C's isspace in the C locale.
func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

func hasPrefixFold(s, prefix string) bool {
	return len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix)
}
