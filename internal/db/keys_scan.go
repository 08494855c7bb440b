package db

import (
	"math"
	"strconv"

	"github.com/corvid-kv/corvid/internal/ds"
)

// KEYS pattern
//
// Runs with every stripe locked, so the reply is one consistent snapshot.
// Expired keys are skipped but not deleted, as in Valkey.
func keysCommand(c *Ctx) {
	pat := c.Argv[1]
	all := len(pat) == 1 && pat[0] == '*'
	ps := string(pat)
	var keys []string
	c.KS.Keys(c.DB, c.Now, func(k string, _ *Object) {
		if all || ds.MatchString(ps, k, false) {
			keys = append(keys, k)
		}
	})
	c.W.BulkStrings(keys)
}

// scanDefaultCount is SCAN's COUNT when none is given.
const scanDefaultCount = 10

// SCAN cursor [MATCH pattern] [COUNT count] [TYPE type]
//
// Runs without the dispatcher's locks: Keyspace.Scan locks one stripe at a
// time. The filters run under that stripe's lock; the collected key strings
// are immutable, so the reply is written after the lock is dropped.
// Expired keys that pass the filters are deleted, as in Valkey 8.0.
func scanCommand(c *Ctx) {
	cursor, ok := c.scanCursor(1)
	if !ok {
		return
	}
	args, ok := c.parseScanArgs(2, scanKeys)
	if !ok {
		return
	}
	count := args.count
	if count > math.MaxInt32 {
		count = math.MaxInt32 // only bounds the work per call
	}

	// The filters come first: an expired key SCAN would have returned
	// is deleted (Valkey's expireIfNeeded on the keys it collected).
	var keys []string
	want := func(k string, o *Object) bool {
		return (!args.useType || o.Type == args.typ) && args.matchString(k)
	}
	next := c.KS.scan(c.DB, cursor, int(count), c.Now, c.Locked, want, c.reapExpired, func(k string, _ *Object) {
		keys = append(keys, k)
	})

	var buf [20]byte
	c.W.ArrayLen(2)
	c.W.Bulk(strconv.AppendUint(buf[:0], next, 10))
	c.W.BulkStrings(keys)
}

// typeByName maps a TYPE argument to a value type, case-insensitively,
// as Valkey's strcasecmp of the C string: up to a NUL ("string\0x" is
// "string").
func typeByName(b []byte) (Type, bool) {
	b = CString(b)
	for i, n := range typeNames {
		if EqualFold(b, n) {
			return Type(i), true
		}
	}
	return 0, false
}

// parseScanCursor parses a cursor as Valkey 8's string2ull: a canonical
// non-negative integer, or failing that whatever strtoull accepts in full
// (leading white space, a sign, leading zeros), without overflow. So "-1"
// and "" are invalid while "+1", "01" and " 1" are 1.
//
// Like string2ull, it reads the argument as a C string: up to a NUL
// ("1\0x" is 1).
//
// Redis 7.0 used strtoul directly: it accepted "" and "-1" and rejected a
// leading space.
func parseScanCursor(b []byte) (uint64, bool) {
	b = CString(b)
	if n, ok := ParseInt(b); ok {
		return uint64(n), n >= 0
	}
	i := 0
	for i < len(b) && isCSpace(b[i]) {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false // no digits: strtoull consumes nothing
	}
	var v uint64
	for ; i < len(b); i++ {
		d := b[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(d-'0'))/10 {
			return 0, false // ERANGE
		}
		v = v*10 + uint64(d-'0')
	}
	if neg {
		v = -v // strtoull negates in unsigned arithmetic
	}
	return v, true
}

// isCSpace is C's isspace in the "C" locale.
func isCSpace(c byte) bool {
	return c == ' ' || (c >= '\t' && c <= '\r')
}
