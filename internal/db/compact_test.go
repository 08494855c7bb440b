package db

import (
	"bytes"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"strconv"
	"testing"
)

// TestCompactStrings: every string value moves to a new buffer with the
// same bytes, length and capacity; other types, short values below the
// bound and the memory count stay as they were.
func TestCompactStrings(t *testing.T) {
	h := newMemHarness(t)
	h.do("SET", "small", "ab")
	h.do("SET", "big", string(bytes.Repeat([]byte("x"), 300)))
	h.do("APPEND", "grown", "abc")
	h.do("APPEND", "grown", string(bytes.Repeat([]byte("y"), 100)))
	h.do("RPUSH", "list", "a", "b")
	h.do("SET", "ttl", "value", "PX", "100000")
	before := map[string][]byte{}
	h.ks.LockAll()
	for _, k := range []string{"small", "big", "grown", "ttl"} {
		before[k] = h.c.LookupDB(0, []byte(k)).Str()
	}
	h.ks.UnlockAll()
	cs := h.ks.CompactStrings(3)
	if cs.Keys != 3 {
		t.Errorf("moved %d values, want 3 (all strings of 3 bytes or more)", cs.Keys)
	}
	h.ks.LockAll()
	for k, old := range before {
		got := h.c.LookupDB(0, []byte(k)).Str()
		moved := &got[0] != &old[0]
		if !bytes.Equal(got, old) || cap(got) != cap(old) || moved != (len(old) >= 3) {
			t.Errorf("%s: %q cap %d moved %v, was %q cap %d", k, got, cap(got), moved, old, cap(old))
		}
	}
	h.ks.UnlockAll()
	if got := h.do("PTTL", "ttl"); got == ":-1\r\n" || got == ":-2\r\n" {
		t.Errorf("PTTL after compaction: %q", got)
	}
	h.checkMem("CompactStrings")
}

// TestCompactStringsFreesSpans: after 90% of many 1,000-byte values are
// deleted at random, most spans keep a survivor; moving the survivors
// frees them. Measured on the heap's unused span memory, which the
// release that follows would return to the operating system.
func TestCompactStringsFreesSpans(t *testing.T) {
	if testing.Short() {
		t.Skip("allocates 40 MB")
	}
	h := newMemHarness(t)
	const n = 40000
	val := string(bytes.Repeat([]byte("v"), 1000))
	for i := range n {
		h.do("SET", "k"+strconv.Itoa(i), val)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := range n {
		if r.IntN(10) != 0 {
			h.do("DEL", "k"+strconv.Itoa(i))
		}
	}
	unused := func() uint64 {
		runtime.GC()
		s := []metrics.Sample{{Name: "/memory/classes/heap/unused:bytes"}}
		metrics.Read(s)
		return s[0].Value.Uint64()
	}
	before := unused()
	cs := h.ks.CompactStrings(0)
	after := unused()
	if cs.Keys < n/20 || after > before/3 {
		t.Fatalf("moved %d values; unused span memory %d -> %d bytes, want a third or less", cs.Keys, before, after)
	}
	t.Logf("moved %d values; unused span memory %d -> %d bytes", cs.Keys, before, after)
}
