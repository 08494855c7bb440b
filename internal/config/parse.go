package config

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"syscall"

	"github.com/corvid-kv/corvid/internal/resp"
)

// This file ports the small C parsers Valkey's config code relies on, with
// their exact edge cases, because accepted/refused inputs are user-visible.

func isSpaceC(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// splitArgs is Valkey's sdssplitargs, which the config file and the
// inline protocol share: resp.SplitArgs, on a copy (it decodes in place).
func splitArgs(line string) (args []string, ok bool) {
	argv, ok := resp.SplitArgs(nil, []byte(line))
	if !ok {
		return nil, false
	}
	args = make([]string, len(argv))
	for i, a := range argv {
		args[i] = string(a)
	}
	return args, true
}

// splitSpaces is sdssplitlen(value, " "): CONFIG SET splits multi-arg values
// on single spaces, keeping empty words; an empty value gives no words.
func splitSpaces(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// repr is sdscatrepr: a double-quoted, escaped form that splitArgs reads back.
func repr(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case '\\', '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		default:
			if c >= 0x20 && c <= 0x7e {
				b.WriteByte(c)
			} else {
				b.WriteString(`\x`)
				b.WriteString(strconv.FormatUint(uint64(c)>>4, 16))
				b.WriteString(strconv.FormatUint(uint64(c)&15, 16))
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// yesNo is yesnotoi: 1, 0 or -1, case-insensitive.
func yesNo(s string) int {
	switch {
	case strings.EqualFold(s, "yes"):
		return 1
	case strings.EqualFold(s, "no"):
		return 0
	}
	return -1
}

// string2ll is Valkey's strict integer parser (resp.ParseInt): no spaces,
// no '+', no leading zeros, no "-0", no overflow.
func string2ll(s string) (int64, bool) { return resp.ParseInt([]byte(s)) }

// memtoull parses "<digits>[b|k|kb|m|mb|g|gb]" (units case-insensitive,
// k=1000, kb=1024). Like the C original it reads s as a C string (up to a
// NUL byte), an empty digit string is 0, digits beyond 2^64-1 saturate
// (strtoull's ULLONG_MAX, errno unchecked) and the final multiplication
// wraps instead of failing.
func memtoull(s string) (uint64, bool) {
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	if len(s) > 0 && s[0] == '-' {
		return 0, false
	}
	u := 0
	for u < len(s) && s[u] >= '0' && s[u] <= '9' {
		u++
	}
	var mul uint64
	switch unit := strings.ToLower(s[u:]); unit {
	case "", "b":
		mul = 1
	case "k":
		mul = 1000
	case "kb":
		mul = 1024
	case "m":
		mul = 1000 * 1000
	case "mb":
		mul = 1024 * 1024
	case "g":
		mul = 1000 * 1000 * 1000
	case "gb":
		mul = 1024 * 1024 * 1024
	default:
		return 0, false
	}
	if u >= 128 {
		return 0, false
	}
	var v uint64
	if u > 0 {
		var err error
		v, err = strconv.ParseUint(s[:u], 10, 64)
		if err != nil {
			v = math.MaxUint64 // out of range: saturated, as strtoull
		}
	}
	return v * mul, true
}

// strtoll mimics C strtoll(s, &end, base): leading C whitespace, optional
// sign, digits; rest is the unparsed tail (the whole input when no digit was
// read). range_ is false when the value overflowed (errno ERANGE).
func strtoll(s string, base int) (v int64, rest string, inRange bool) {
	p := 0
	for p < len(s) && isSpaceC(s[p]) {
		p++
	}
	neg := false
	if p < len(s) && (s[p] == '+' || s[p] == '-') {
		neg = s[p] == '-'
		p++
	}
	start := p
	var acc uint64
	over := false
	for p < len(s) {
		c := s[p]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'z':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'Z':
			d = int(c-'A') + 10
		default:
			d = 99
		}
		if d >= base {
			break
		}
		if acc > (math.MaxUint64-uint64(d))/uint64(base) {
			over = true
		} else {
			acc = acc*uint64(base) + uint64(d)
		}
		p++
	}
	if p == start {
		return 0, s, true
	}
	rest = s[p:]
	if neg {
		if over || acc > uint64(math.MaxInt64)+1 {
			return math.MinInt64, rest, false
		}
		return -int64(acc), rest, true
	}
	if over || acc > math.MaxInt64 {
		return math.MaxInt64, rest, false
	}
	return int64(acc), rest, true
}

// string2d is Valkey's strict float parser (no leading space, no junk, no NaN).
func string2d(s string) (float64, bool) {
	if len(s) == 0 || isSpaceC(s[0]) || isSpaceC(s[len(s)-1]) || strings.Contains(s, "_") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

// trimDouble formats like snprintf("%f") followed by trimDoubleString.
func trimDouble(f float64) string {
	s := strconv.FormatFloat(f, 'f', 6, 64)
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	return s
}

// formatMemory is rewriteConfigFormatMemory: the largest exact gb/mb/kb unit.
func formatMemory(b int64) string {
	const kb, mb, gb = 1024, 1024 * 1024, 1024 * 1024 * 1024
	switch {
	case b != 0 && b%gb == 0:
		return strconv.FormatInt(b/gb, 10) + "gb"
	case b != 0 && b%mb == 0:
		return strconv.FormatInt(b/mb, 10) + "mb"
	case b != 0 && b%kb == 0:
		return strconv.FormatInt(b/kb, 10) + "kb"
	}
	return strconv.FormatInt(b, 10)
}

// strerror renders an OS error the way glibc's strerror does ("No such file
// or directory"); Go's errno texts are the same words, lower-cased.
func strerror(err error) string {
	var errno syscall.Errno
	if errors.As(err, &errno) {
		s := errno.Error()
		if s != "" && s[0] >= 'a' && s[0] <= 'z' {
			s = string(s[0]-'a'+'A') + s[1:]
		}
		return s
	}
	return err.Error()
}

// hasGlob reports whether CONFIG GET must treat name as a pattern.
func hasGlob(s string) bool { return strings.ContainsAny(s, "[*?") }
