package db

import (
	"math"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/resp"
)

// ParseInt parses b with the strictness of Valkey's string2ll: optional
// '-', no '+', no spaces, no leading zeros, and no overflow. It is
// resp.ParseInt, the one implementation the packages share.
func ParseInt(b []byte) (int64, bool) { return resp.ParseInt(b) }

// ParseFloat parses a double the way Valkey's string2ld/strtod accepts
// arguments: no surrounding spaces, "inf"/"-inf" allowed, NaN refused.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || b[0] == ' ' || b[len(b)-1] == ' ' {
		return 0, false
	}
	s := string(b)
	switch strings.ToLower(s) {
	case "inf", "+inf", "infinity", "+infinity":
		return math.Inf(1), true
	case "-inf", "-infinity":
		return math.Inf(-1), true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// strconv rejects "1e999"-style overflow with ErrRange; strtod
		// returns HUGE_VAL with ERANGE, which Valkey rejects too.
		return 0, false
	}
	if math.IsNaN(f) {
		return 0, false
	}
	// strconv accepts hex floats and underscores that strtod would not.
	if strings.ContainsAny(s, "_xXpP") {
		return 0, false
	}
	return f, true
}

// AppendInt is strconv.AppendInt, named here for readers of the procs.
func AppendInt(dst []byte, n int64) []byte { return strconv.AppendInt(dst, n, 10) }

// IntArg parses argv[i] as an integer or writes Valkey's error reply.
func (c *Ctx) IntArg(i int) (int64, bool) {
	n, ok := ParseInt(c.Argv[i])
	if !ok {
		c.W.Error(ErrNotInt)
	}
	return n, ok
}

// FloatArg parses argv[i] as a float or writes Valkey's error reply.
func (c *Ctx) FloatArg(i int) (float64, bool) {
	f, ok := ParseFloat(c.Argv[i])
	if !ok {
		c.W.Error(ErrNotFloat)
	}
	return f, ok
}

// EqualFold compares an argument with an upper- or lower-case ASCII word
// without allocating.
func EqualFold(b []byte, word string) bool {
	if len(b) != len(word) {
		return false
	}
	for i := 0; i < len(b); i++ {
		x, y := b[i], word[i]
		if x|0x20 != y|0x20 {
			return false
		}
		if x|0x20 < 'a' || x|0x20 > 'z' {
			if x != y {
				return false
			}
		}
	}
	return true
}
