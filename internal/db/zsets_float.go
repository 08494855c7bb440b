package db

import (
	"math"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Scores are doubles parsed the way Valkey 8.0 parses them (C strtod) and
// printed the way it prints them (d2string: integers in +-2^62 as integers,
// anything else in fpconv_dtoa's shortest form).

// strtod emulates glibc's strtod on s: it returns the value and how many
// bytes it consumed (0 when nothing parses). rangeErr reports what strtod
// signals with ERANGE and HUGE_VAL or zero: an overflow to infinity or an
// underflow to zero.
func strtod(s []byte) (v float64, n int, rangeErr bool) {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	rest := s[i:]
	sign := 1.0
	if neg {
		sign = -1
	}
	// inf, infinity, nan, nan(chars): case-insensitive.
	if hasFoldPrefix(rest, "inf") {
		if hasFoldPrefix(rest, "infinity") {
			return math.Inf(int(sign)), i + 8, false
		}
		return math.Inf(int(sign)), i + 3, false
	}
	if hasFoldPrefix(rest, "nan") {
		j := i + 3
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (isAlnum(s[k]) || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				j = k + 1
			}
		}
		return math.NaN(), j, false
	}
	if len(rest) >= 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') {
		if v, m, re, ok := strtodHex(rest[2:]); ok {
			return sign * v, i + 2 + m, re
		}
		// "0x" without hex digits parses as 0, stopping at the x.
		return sign * 0, i + 1, false
	}
	// Decimal: digits [. digits] [e [sign] digits], at least one digit.
	j := i
	digits, nonzero := 0, false
	for j < len(s) && isDigit(s[j]) {
		nonzero = nonzero || s[j] != '0'
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			nonzero = nonzero || s[j] != '0'
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j = exponentEnd(s, j)
	}
	f, err := strconv.ParseFloat(string(s[start:j]), 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, 0, false
	}
	if math.IsInf(f, 0) {
		return f, j, true
	}
	if f == 0 && nonzero {
		return f, j, true // underflow to zero
	}
	return f, j, false
}

// exponentEnd returns where the exponent whose marker ('e' or 'p') is at
// s[j] ends: an optional sign and at least one digit. Without a digit the
// marker is not part of the number (strtod stops before it), and j is
// returned.
func exponentEnd(s []byte, j int) int {
	k := j + 1
	if k < len(s) && (s[k] == '+' || s[k] == '-') {
		k++
	}
	if k >= len(s) || !isDigit(s[k]) {
		return j
	}
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	return k
}

// strtodHex parses the part of a hex float after "0x".
func strtodHex(s []byte) (v float64, n int, rangeErr, ok bool) {
	j, digits := 0, 0
	for j < len(s) && isHex(s[j]) {
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isHex(s[j]) {
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false, false
	}
	mant := string(s[:j])
	exp := "p0"
	if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
		if k := exponentEnd(s, j); k > j {
			exp = "p" + string(s[j+1:k])
			j = k
		}
	}
	f, err := strconv.ParseFloat("0x"+mant+exp, 64)
	if err != nil && !math.IsInf(f, 0) {
		return 0, 0, false, false
	}
	nonzero := strings.Trim(mant, "0.") != ""
	return f, j, math.IsInf(f, 0) || (f == 0 && nonzero), true
}

func hasFoldPrefix(b []byte, word string) bool {
	return len(b) >= len(word) && EqualFold(b[:len(word)], word)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isHex(c byte) bool {
	return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'f')
}
func isAlnum(c byte) bool { return isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z') }

// parseDouble is getDoubleFromObject: the whole argument must be a number,
// with no leading space, no overflow or underflow to zero, and not NaN.
func parseDouble(b []byte) (float64, bool) {
	if len(b) == 0 || isCSpace(b[0]) {
		return 0, false
	}
	if v, ok := parseSmallInt(b); ok {
		return v, true
	}
	v, n, re := strtod(b)
	if n != len(b) || re || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// parseSmallInt is parseDouble's fast path for the usual score, a plain
// integer ("-"? digits: a counter, a time in seconds, memtier's key
// number): up to 15 digits, below 2^53, so the float64 conversion is exact
// and equals strtod's (including -0 for "-0"). Anything else is left to
// strtod.
func parseSmallInt(b []byte) (float64, bool) {
	d := b
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 15 {
		return 0, false
	}
	var n uint64
	for _, c := range d {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + uint64(c-'0')
	}
	v := float64(n)
	if len(d) < len(b) {
		v = -v
	}
	return v, true
}

// doubleArg parses argv[i] with parseDouble, replying msg on failure.
func (c *Ctx) doubleArg(i int, msg string) (float64, bool) {
	v, ok := parseDouble(c.Argv[i])
	if !ok {
		c.W.Error(msg)
	}
	return v, ok
}

// parseRangeBound parses one end of a score range as zslParseRange: an
// optional '(' for an exclusive bound, then strtod up to the end of the
// argument (or a NUL byte, where the C string ends). Infinities, overflow
// and even an empty number (0) are accepted; NaN is not.
func parseRangeBound(b []byte) (v float64, ex, ok bool) {
	if len(b) > 0 && b[0] == '(' {
		ex = true
		b = b[1:]
	}
	v, n, _ := strtod(b)
	if n < len(b) && b[n] != 0 {
		return 0, false, false
	}
	if math.IsNaN(v) {
		return 0, false, false
	}
	return v, ex, true
}

// errMinMaxFloat is the reply to a malformed score range.
const errMinMaxFloat = "ERR min or max is not a float"

// errMinMaxLex is the reply to a malformed lex range.
const errMinMaxLex = "ERR min or max not valid string range item"

// parseScoreRange parses min and max into a ds.ScoreRange.
func parseScoreRange(min, max []byte) (ds.ScoreRange, bool) {
	var r ds.ScoreRange
	var ok bool
	if r.Min, r.MinEx, ok = parseRangeBound(min); !ok {
		return r, false
	}
	if r.Max, r.MaxEx, ok = parseRangeBound(max); !ok {
		return r, false
	}
	return r, true
}

// appendScore formats f as Valkey 8's d2string; see resp.AppendDouble.
func appendScore(dst []byte, f float64) []byte { return resp.AppendDouble(dst, f) }

// replyScore writes a double reply: a bulk string in RESP2, ',' in RESP3.
func (c *Ctx) replyScore(f float64) { writeScore(c.W, f) }

// writeScore is replyScore for any writer.
func writeScore(w *resp.Writer, f float64) {
	var tmp [48]byte
	if w.Proto >= 3 {
		b := append(tmp[:0], ',')
		b = appendScore(b, f)
		w.Raw(append(b, '\r', '\n'))
		return
	}
	w.Bulk(appendScore(tmp[:0], f))
}
