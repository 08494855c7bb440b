package db

import "github.com/corvid-kv/corvid/internal/ds"

// scanKind says which SCAN-family command is parsing its options: it
// decides which of TYPE, NOVALUES and NOSCORES are accepted.
type scanKind uint8

const (
	scanKeys scanKind = iota // SCAN: TYPE
	scanHash                 // HSCAN: NOVALUES
	scanSet                  // SSCAN: no extra option
	scanZSet                 // ZSCAN: NOSCORES
)

// scanArgs are the parsed options of a SCAN-family command. pat aliases
// c.Argv, so it is valid only while the command runs.
type scanArgs struct {
	count    int64  // COUNT, >= 1; scanDefaultCount when not given
	pat      []byte // MATCH pattern, used only when usePat
	usePat   bool   // false for no MATCH and for MATCH "*"
	typ      Type   // TYPE filter (SCAN), used only when useType
	useType  bool
	noValues bool // HSCAN NOVALUES
	noScores bool // ZSCAN NOSCORES
}

// match reports whether an element passes the MATCH filter.
func (a *scanArgs) match(b []byte) bool {
	return !a.usePat || ds.Match(a.pat, b, false)
}

// matchString is match for a string element; it does not copy s.
func (a *scanArgs) matchString(s string) bool {
	return !a.usePat || ds.Match(a.pat, sbytes(s), false)
}

// scanCursor parses argv[i] as a SCAN cursor (see parseScanCursor) or
// writes Valkey's error reply.
func (c *Ctx) scanCursor(i int) (uint64, bool) {
	cursor, ok := parseScanCursor(c.Argv[i])
	if !ok {
		c.W.Error("ERR invalid cursor")
	}
	return cursor, ok
}

// parseScanArgs parses the options from argv[first] on, as Valkey's
// scanGenericCommand: left to right, stopping at the first bad option with
// its error reply written (then ok is false). COUNT, MATCH and TYPE take a
// value and are a syntax error without one; NOVALUES and NOSCORES are known
// to every kind but accepted only by HSCAN and ZSCAN respectively, and TYPE
// only by SCAN. Callers check the cursor (and, for a key's scan, the key)
// before calling this, which is why a bad option on a missing key is not
// reported.
func (c *Ctx) parseScanArgs(first int, kind scanKind) (scanArgs, bool) {
	a := scanArgs{count: scanDefaultCount}
	argv := c.Argv
	for i := first; i < len(argv); {
		opt, more := argv[i], len(argv)-i >= 2
		switch {
		case EqualFold(opt, "COUNT") && more:
			n, ok := c.IntArg(i + 1)
			if !ok {
				return a, false
			}
			if n < 1 {
				c.W.Error(ErrSyntax)
				return a, false
			}
			a.count = n
			i += 2
		case EqualFold(opt, "MATCH") && more:
			p := argv[i+1]
			// "*" matches everything: the same as no pattern.
			a.usePat = !(len(p) == 1 && p[0] == '*')
			a.pat = p
			i += 2
		case EqualFold(opt, "TYPE") && more && kind == scanKeys:
			t, ok := typeByName(argv[i+1])
			if !ok {
				// Valkey 8 rejects an unknown type; Redis 7.0 scanned and
				// returned nothing.
				c.W.Error("ERR unknown type name '" + string(CString(argv[i+1])) + "'")
				return a, false
			}
			a.typ, a.useType = t, true
			i += 2
		case EqualFold(opt, "NOVALUES"):
			// Valkey 8 knows these HSCAN/ZSCAN words and says so when they
			// are misplaced; Redis 7.0 replied a syntax error.
			if kind != scanHash {
				c.W.Error("ERR NOVALUES option can only be used in HSCAN")
				return a, false
			}
			a.noValues = true
			i++
		case EqualFold(opt, "NOSCORES"):
			if kind != scanZSet {
				c.W.Error("ERR NOSCORES option can only be used in ZSCAN")
				return a, false
			}
			a.noScores = true
			i++
		default:
			c.W.Error(ErrSyntax)
			return a, false
		}
	}
	return a, true
}
