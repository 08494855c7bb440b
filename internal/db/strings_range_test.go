package db

import (
	"math/rand/v2"
	"strings"
	"testing"
)

const rEmpty = "$0\r\n\r\n"

func TestRangeGetrange(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	h.run([]step{
		st(rOK, "SET", "s", "Hello World"),
		st(rBulk("Hello"), "GETRANGE", "s", "0", "4"),
		st(rBulk("Hello World"), "GETRANGE", "s", "0", "-1"),
		st(rBulk("World"), "GETRANGE", "s", "-5", "-1"),
		st(rBulk("World"), "GETRANGE", "s", "6", "100"),
		st(rEmpty, "GETRANGE", "s", "5", "3"),
		// Negative ends clamp to 0 rather than emptying the range.
		st(rBulk("H"), "GETRANGE", "s", "0", "-100"),
		st(rBulk("H"), "GETRANGE", "s", "-100", "-50"),
		// Both negative and crossed: empty.
		st(rEmpty, "GETRANGE", "s", "-1", "-5"),
		st(rEmpty, "GETRANGE", "s", "100", "200"),
		st(rBulk("d"), "GETRANGE", "s", "-1", "-1"),
		st(rBulk("Hello World"), "GETRANGE", "s", "-9223372036854775808", "9223372036854775807"),
		st(rEmpty, "GETRANGE", "missing", "0", "-1"),
		st(rErr(ErrNotInt), "GETRANGE", "s", "a", "1"),
		st(rErr(ErrNotInt), "GETRANGE", "s", "0", "1.5"),
		st(rErr(ErrNotInt), "GETRANGE", "missing", "0", "x"),
		st(rErr(ErrWrongType), "GETRANGE", "lst", "0", "1"),
		st(rErr(ErrNotInt), "GETRANGE", "lst", "x", "1"), // arguments first
		st(rBulk("Hello"), "SUBSTR", "s", "0", "4"),
		st(rOK, "SET", "n", "12345"),
		st(rBulk("234"), "GETRANGE", "n", "1", "3"),
		st(rOK, "SET", "e", ""),
		st(rEmpty, "GETRANGE", "e", "0", "-1"),
	})
}

func TestRangeSetrange(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	h.run([]step{
		// Writing nothing to a missing key does not create it, whatever
		// the offset.
		st(rInt(0), "SETRANGE", "m", "0", ""),
		st(rInt(0), "SETRANGE", "m", "99999999999", ""),
		st(rInt(0), "EXISTS", "m"),
		st(rInt(7), "SETRANGE", "m", "5", "ab"),
		st(rBulk("\x00\x00\x00\x00\x00ab"), "GET", "m"),
		st(rOK, "SET", "s", "Hello World"),
		st(rInt(11), "SETRANGE", "s", "6", "Redis"),
		st(rBulk("Hello Redis"), "GET", "s"),
		st(rInt(11), "SETRANGE", "s", "0", ""),
		st(rInt(13), "SETRANGE", "s", "11", "!!"),
		st(rBulk("Hello Redis!!"), "GET", "s"),
		st(rInt(15), "SETRANGE", "s", "14", "?"),
		st(rBulk("Hello Redis!!\x00?"), "GET", "s"),
		st(rErr(errOffsetRange), "SETRANGE", "s", "-1", "x"),
		st(rErr(ErrNotInt), "SETRANGE", "s", "abc", "x"),
		st(rErr(ErrStringTooLong), "SETRANGE", "s", "536870911", "xy"),
		st(rErr(ErrStringTooLong), "SETRANGE", "s", "9223372036854775807", "x"),
		st(rErr(ErrStringTooLong), "SETRANGE", "nokey", "536870912", "x"),
		st(rInt(0), "EXISTS", "nokey"),
		st(rErr(ErrWrongType), "SETRANGE", "lst", "0", "x"),
		st(rErr(ErrWrongType), "SETRANGE", "lst", "0", ""),
		st(rErr(errOffsetRange), "SETRANGE", "lst", "-1", "x"),
		st(rOK, "SET", "n", "123"),
		st(rInt(3), "SETRANGE", "n", "1", "9"),
		st(rInt(194), "INCR", "n"),
	})
	// SETRANGE keeps the key's TTL.
	h.do("SET", "ttl", "abc", "PX", "100000")
	want := h.expireOf(0, "ttl")
	h.do("SETRANGE", "ttl", "1", "z")
	if got := h.expireOf(0, "ttl"); got != want || got == 0 {
		t.Errorf("SETRANGE changed expire %d -> %d", want, got)
	}
	if h.do("SETRANGE", "ttl", "0", ""); h.c.Dirty != 0 {
		t.Errorf("empty SETRANGE counted as a write")
	}
	if h.do("SETRANGE", "ttl", "0", "a"); h.c.Dirty != 1 {
		t.Errorf("SETRANGE dirty = %d, want 1", h.c.Dirty)
	}
}

func TestRangeSetrangeProtoMaxBulkLen(t *testing.T) {
	h := newKeyHarness(t)
	configure(h.ks, func(s *Settings) { s.ProtoMaxBulkLen = 1 << 20 })
	h.run([]step{
		st(rInt(1<<20), "SETRANGE", "k", "1048575", "x"),
		st(rErr(ErrStringTooLong), "SETRANGE", "k", "1048575", "xy"),
		st(rErr(ErrStringTooLong), "SETRANGE", "k", "1048576", "x"),
	})
}

func lcsIdx2(matches ...string) string {
	return "*4\r\n" + rBulk("matches") + rArr(matches...)
}

func TestLCS(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	pair := func(a0, a1, b0, b1 int64, extra ...string) string {
		items := []string{rArr(rInt(a0), rInt(a1)), rArr(rInt(b0), rInt(b1))}
		return rArr(append(items, extra...)...)
	}
	h.run([]step{
		st(rOK, "MSET", "key1", "ohmytext", "key2", "mynewtext"),
		st(rBulk("mytext"), "LCS", "key1", "key2"),
		st(rInt(6), "LCS", "key1", "key2", "LEN"),
		st(rInt(6), "LCS", "key1", "key2", "len"),
		st(lcsIdx2(pair(4, 7, 5, 8), pair(2, 3, 0, 1))+rBulk("len")+rInt(6),
			"LCS", "key1", "key2", "IDX"),
		st(lcsIdx2(pair(4, 7, 5, 8))+rBulk("len")+rInt(6),
			"LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4"),
		st(lcsIdx2(pair(4, 7, 5, 8, rInt(4)), pair(2, 3, 0, 1, rInt(2)))+rBulk("len")+rInt(6),
			"LCS", "key1", "key2", "IDX", "WITHMATCHLEN"),
		st(lcsIdx2(pair(4, 7, 5, 8, rInt(4)), pair(2, 3, 0, 1, rInt(2)))+rBulk("len")+rInt(6),
			"LCS", "key1", "key2", "IDX", "MINMATCHLEN", "-5", "WITHMATCHLEN"),
		// MINMATCHLEN without IDX is accepted and has no effect.
		st(rBulk("mytext"), "LCS", "key1", "key2", "MINMATCHLEN", "10"),
		st(rErr(errLCSLenIdx), "LCS", "key1", "key2", "LEN", "IDX"),
		st(rErr(ErrSyntax), "LCS", "key1", "key2", "FOO"),
		st(rErr(ErrSyntax), "LCS", "key1", "key2", "MINMATCHLEN"),
		st(rErr(ErrNotInt), "LCS", "key1", "key2", "MINMATCHLEN", "x"),
		st(rErr(errLCSType), "LCS", "key1", "lst"),
		st(rErr(errLCSType), "LCS", "lst", "nokey", "FOO"), // type first
		st(rEmpty, "LCS", "nokey", "key2"),
		st(rInt(0), "LCS", "nokey", "nokey2", "LEN"),
		st(lcsIdx2()+rBulk("len")+rInt(0), "LCS", "key1", "nokey", "IDX"),
		st(rOK, "MSET", "x", "abc", "y", "abc"),
		st(lcsIdx2(pair(0, 2, 0, 2))+rBulk("len")+rInt(3), "LCS", "x", "y", "IDX"),
	})
	// RESP3: a map.
	h.c.W.Proto = 3
	want := "%2\r\n" + rBulk("matches") + rArr(pair(4, 7, 5, 8), pair(2, 3, 0, 1)) + rBulk("len") + rInt(6)
	if got := h.do("LCS", "key1", "key2", "IDX"); got != want {
		t.Errorf("RESP3 LCS IDX: got %q, want %q", got, want)
	}
}

func TestLCSMemoryLimit(t *testing.T) {
	h := newKeyHarness(t)
	big := strings.Repeat("a", 1000)
	h.do("MSET", "a", big, "b", big)
	configure(h.ks, func(s *Settings) { s.ProtoMaxBulkLen = 1001*1001*4 - 1 })
	if got := h.do("LCS", "a", "b", "LEN"); got != rErr(errLCSMemory) {
		t.Errorf("got %q", got)
	}
	configure(h.ks, func(s *Settings) { s.ProtoMaxBulkLen = 1001 * 1001 * 4 })
	if got := h.do("LCS", "a", "b", "LEN"); got != rInt(1000) {
		t.Errorf("got %q", got)
	}
}

// TestLCSLenMatchesTrace checks the two-row length computation against the
// full table on random inputs.
func TestLCSLenMatchesTrace(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gen := func() []byte {
		b := make([]byte, r.IntN(40))
		for i := range b {
			b[i] = "abcd"[r.IntN(4)]
		}
		return b
	}
	for range 500 {
		a, b := gen(), gen()
		s, m := lcsTrace(a, b, true, 0)
		if n := lcsLength(a, b); int(n) != len(s) {
			t.Fatalf("%q %q: len %d, trace %q", a, b, n, s)
		}
		// Every reported range must match, and their total is the LCS.
		total := 0
		for _, x := range m {
			if string(a[x.a0:x.a1+1]) != string(b[x.b0:x.b1+1]) {
				t.Fatalf("%q %q: bad range %+v", a, b, x)
			}
			total += int(x.a1 - x.a0 + 1)
		}
		if total != len(s) {
			t.Fatalf("%q %q: ranges cover %d of %d", a, b, total, len(s))
		}
	}
}
