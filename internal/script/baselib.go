package script

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	lua "github.com/corvid-kv/corvid/internal/lua"
	"github.com/corvid-kv/corvid/internal/script/lualib"
)

// Lua 5.1 functions whose gopher-lua versions answer differently: tonumber
// and string.format, rebuilt on the C semantics Valkey's Lua has (glibc's
// strtod, strtoul and printf).

// luaTonumber is Lua 5.1's luaB_tonumber.
func luaTonumber(L *lua.LState) int {
	base := 10
	if L.GetTop() >= 2 && L.Get(2) != lua.LNil {
		base = int(lualib.ToInt64(float64(L.CheckNumber(2))))
	}
	if base == 10 {
		L.CheckAny(1)
		switch v := L.Get(1).(type) {
		case lua.LNumber:
			L.Push(v)
			return 1
		case lua.LString:
			if f, ok := lualib.Str2Number(string(v)); ok {
				L.Push(lua.LNumber(f))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	s := checkString(L, 1, "tonumber")
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	if n, ok := strtoul(s, base); ok {
		L.Push(lua.LNumber(float64(n)))
	} else {
		L.Push(lua.LNil)
	}
	return 1
}

// strtoul is C's strtoul over the whole of s (leading and trailing white
// space allowed), as luaB_tonumber uses it.
func strtoul(s string, base int) (uint64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-'
		s = s[1:]
	}
	if base == 16 && len(s) > 2 && s[0] == '0' && (s[1]|0x20) == 'x' {
		s = s[2:]
	}
	var n uint64
	digits := 0
	for digits < len(s) {
		c := s[digits]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c|0x20 >= 'a' && c|0x20 <= 'z':
			d = int(c|0x20-'a') + 10
		default:
			d = 99
		}
		if d >= base {
			break
		}
		if n > (math.MaxUint64-uint64(d))/uint64(base) {
			n = math.MaxUint64 // strtoul saturates
		} else {
			n = n*uint64(base) + uint64(d)
		}
		digits++
	}
	if digits == 0 || strings.TrimRight(s[digits:], " \t\n\v\f\r") != "" {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

// checkString is luaL_checklstring: strings, and numbers as "%.14g".
func checkString(L *lua.LState, n int, fn string) string {
	switch v := L.Get(n).(type) {
	case lua.LString:
		return string(v)
	case lua.LNumber:
		return lualib.NumberToString(float64(v))
	}
	argTypeError(L, n, fn, "string")
	return ""
}

// checkNumber is luaL_checknumber: numbers, and strings that read as one.
func checkNumber(L *lua.LState, n int, fn string) float64 {
	switch v := L.Get(n).(type) {
	case lua.LNumber:
		return float64(v)
	case lua.LString:
		if f, ok := lualib.Str2Number(string(v)); ok {
			return f
		}
	}
	argTypeError(L, n, fn, "number")
	return 0
}

func argTypeError(L *lua.LState, n int, fn, want string) {
	got := "no value"
	if n <= L.GetTop() {
		got = L.Get(n).Type().String()
	}
	L.ArgError(n, want+" expected, got "+got)
}

// luaFormat is Lua 5.1's str_format.
func luaFormat(L *lua.LState) int {
	f := checkString(L, 1, "format")
	arg := 1
	var out []byte
	for i := 0; i < len(f); i++ {
		c := f[i]
		if c != '%' {
			out = append(out, c)
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			out = append(out, '%')
			continue
		}
		arg++
		// The spec: flags, width (2 digits), precision (2 digits).
		start := i
		for i < len(f) && strings.IndexByte("-+ #0", f[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		flags := f[start:i]
		w := i
		for i < len(f) && f[i] >= '0' && f[i] <= '9' {
			i++
		}
		if i-w > 2 {
			L.RaiseError("invalid format (width or precision too long)")
		}
		width, _ := strconv.Atoi(f[w:i])
		prec := -1
		if i < len(f) && f[i] == '.' {
			i++
			p := i
			for i < len(f) && f[i] >= '0' && f[i] <= '9' {
				i++
			}
			if i-p > 2 {
				L.RaiseError("invalid format (width or precision too long)")
			}
			prec, _ = strconv.Atoi(f[p:i])
		}
		if i >= len(f) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		spec := "%" + flags
		if width > 0 {
			spec += strconv.Itoa(width)
		}
		if prec >= 0 {
			spec += "." + strconv.Itoa(prec)
		}
		switch conv := f[i]; conv {
		case 'c':
			out = append(out, byte(lualib.ToInt64(checkNumber(L, arg, "format"))))
		case 'd', 'i':
			out = append(out, fmt.Sprintf(spec+"d", lualib.ToInt64(checkNumber(L, arg, "format")))...)
		case 'u':
			out = append(out, fmt.Sprintf(spec+"d", uint64(lualib.ToInt64(checkNumber(L, arg, "format"))))...)
		case 'o', 'x', 'X':
			out = append(out, fmt.Sprintf(spec+string(conv), uint64(lualib.ToInt64(checkNumber(L, arg, "format"))))...)
		case 'e', 'E', 'f':
			out = append(out, cFloat(spec+string(conv), checkNumber(L, arg, "format"))...)
		case 'g', 'G':
			v := checkNumber(L, arg, "format")
			p := prec
			if p < 0 {
				p = 6
			}
			s := lualib.FormatG(v, max(p, 1))
			if conv == 'G' {
				s = strings.ToUpper(s)
			}
			if strings.ContainsRune(flags, '+') && v >= 0 {
				s = "+" + s
			} else if strings.ContainsRune(flags, ' ') && v >= 0 {
				s = " " + s
			}
			out = pad(out, s, width, flags, !math.IsInf(v, 0) && !math.IsNaN(v))
		case 'q':
			out = appendQuoted(out, checkString(L, arg, "format"))
		case 's':
			s := checkString(L, arg, "format")
			if prec >= 0 && len(s) > prec {
				s = s[:prec]
			}
			out = pad(out, s, width, flags, false)
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	L.Push(lua.LString(out))
	return 1
}

// cFloat formats as C's printf for %e, %E and %f (Go's layout is the
// same for these) with C's spelling of the special values.
func cFloat(spec string, v float64) string {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		s := "inf"
		if math.IsNaN(v) {
			s = "nan"
			if math.Signbit(v) {
				s = "-nan"
			}
		} else if v < 0 {
			s = "-inf"
		}
		if strings.HasSuffix(spec, "E") {
			s = strings.ToUpper(s)
		}
		return s
	}
	return fmt.Sprintf(spec, v)
}

// pad right-aligns s in width (left with '-'), with zeros after the sign
// when the '0' flag applies.
func pad(out []byte, s string, width int, flags string, zeroOK bool) []byte {
	n := width - len(s)
	switch {
	case n <= 0:
		return append(out, s...)
	case strings.ContainsRune(flags, '-'):
		out = append(out, s...)
		return append(out, strings.Repeat(" ", n)...)
	case zeroOK && strings.ContainsRune(flags, '0'):
		if s != "" && (s[0] == '-' || s[0] == '+' || s[0] == ' ') {
			out = append(out, s[0])
			s = s[1:]
		}
		out = append(out, strings.Repeat("0", n)...)
		return append(out, s...)
	}
	out = append(out, strings.Repeat(" ", n)...)
	return append(out, s...)
}

// appendQuoted is Lua 5.1's addquoted (%q).
func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			out = append(out, '\\', c)
		case '\r':
			out = append(out, '\\', 'r')
		case 0:
			out = append(out, '\\', '0', '0', '0')
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// luaChar is Lua 5.1's string.char: every code must fit a byte.
func luaChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		// luaL_checkint: (int)(lua_Integer)d, the low 32 bits of C's
		// conversion (1e300 is 0)
		c := int32(lualib.ToInt64(checkNumber(L, i, "char")))
		if c < 0 || c > 255 {
			L.ArgError(i, "invalid value")
		}
		b[i-1] = byte(c)
	}
	L.Push(lua.LString(b))
	return 1
}
