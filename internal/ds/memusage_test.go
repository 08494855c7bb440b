package ds

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

// TestAllocSizeMatchesRuntime checks allocSize against what the runtime
// really charges for pointer-free objects of each size.
func TestAllocSizeMatchesRuntime(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	for _, n := range []int{1, 8, 9, 17, 25, 33, 49, 100, 255, 256, 257, 300, 513, 1000, 1024, 1025, 1200, 4000, 8192, 9000, 20000, 32768, 32769, 40000, 100000, 140000} {
		// The least of a few trials: other goroutines (the test runner)
		// may allocate meanwhile, never free.
		got := 1 << 30
		for trial := 0; trial < 3; trial++ {
			const k = 256
			keep := make([][]byte, k)
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			for i := range keep {
				keep[i] = make([]byte, n)
			}
			runtime.ReadMemStats(&ms1)
			runtime.KeepAlive(keep)
			got = min(got, int(ms1.HeapAlloc-ms0.HeapAlloc)/k)
		}
		// Tiny (<16 B) objects share blocks; everything else is exact.
		if d := got - allocSize(n); d < -16 || d > 16 {
			t.Errorf("%d bytes: runtime charges %d, allocSize says %d", n, got, allocSize(n))
		}
	}
}

// TestQuicklistMemUsageIncremental runs random list operations and checks
// that the O(1) MemUsage always equals a recount over the nodes, without
// and with compressed nodes.
func TestQuicklistMemUsageIncremental(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, cfg := range []ListConfig{{-2, 0}, {-1, 0}, {4, 0}, {128, 0}, {-2, 1}, {4, 2}, {-1, 3}} {
		fill := cfg.Fill
		q := NewQuicklist()
		val := func() []byte {
			n := r.IntN(40)
			if r.IntN(50) == 0 {
				n = 5000 + r.IntN(10000) // plain nodes
			}
			return bytes.Repeat([]byte{byte('a' + r.IntN(3))}, n)
		}
		for step := 0; step < 4000; step++ {
			switch op := r.IntN(10); {
			case op < 3:
				v := val()
				q.PrepareGrow(cfg, len(v), 1)
				q.PushHead(v)
			case op < 6:
				v := val()
				q.PrepareGrow(cfg, len(v), 1)
				q.PushTail(v)
			case op == 6 && q.Len() > 0:
				q.PopHead(nil)
			case op == 7 && q.Len() > 0:
				q.DelRange(r.IntN(q.Len()), r.IntN(5))
			case op == 8 && q.Len() > 0:
				v := val()
				q.PrepareGrow(cfg, len(v), 1)
				if !q.Insert(bytes.Repeat([]byte{'a'}, r.IntN(3)), v, r.IntN(2) == 0) {
					q.Replace(r.IntN(q.Len()), v)
				}
			case op == 9 && q.Len() > 0:
				q.Remove([]byte("b"), r.IntN(3), r.IntN(2) == 0)
				q.TryShrink(fill)
			}
			got := q.MemUsage()
			q.recount()
			if want := q.MemUsage(); got != want {
				t.Fatalf("%+v step %d: MemUsage %d, recount %d", cfg, step, got, want)
			}
		}
		if c := q.Clone(); c.MemUsage() > q.MemUsage()+64 {
			t.Fatalf("clone %d > original %d", c.MemUsage(), q.MemUsage())
		}
	}
}

// TestQuicklistLayout pins the sizes the list accounting is built on: a
// listpack-encoded list is a Quicklist (its node inline: a qlNode) and
// the node's buffer; the quicklist encoding adds a qlState, the ring and
// a qlNode per node.
func TestQuicklistLayout(t *testing.T) {
	for _, c := range []struct {
		name       string
		size, want uintptr
		class      int
	}{
		{"Quicklist", unsafe.Sizeof(Quicklist{}), 32, quicklistMem},
		{"qlState", unsafe.Sizeof(qlState{}), 64, qlStateMem},
		{"qlNode", unsafe.Sizeof(qlNode{}), 32, 32},
	} {
		if c.size != c.want || allocSize(int(c.size)) != c.class {
			t.Errorf("%s is %d bytes (%d with its size class), want %d (%d)", c.name, c.size, allocSize(int(c.size)), c.want, c.class)
		}
	}
}

// heapEach returns the heap bytes the runtime charges per object built by
// build (k of them), the least of a few trials.
func heapEach(k int, build func() any) int {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	got := 1 << 30
	for trial := 0; trial < 3; trial++ {
		keep := make([]any, k)
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		for i := range keep {
			keep[i] = build()
		}
		runtime.ReadMemStats(&ms1)
		runtime.KeepAlive(keep)
		got = min(got, int(ms1.HeapAlloc-ms0.HeapAlloc)/k)
	}
	return got
}

// TestSmallQuicklistMemUsage: a listpack-encoded list is the 32-byte
// struct and its node's buffer, and MemUsage is what the runtime really
// allocates for it.
func TestSmallQuicklistMemUsage(t *testing.T) {
	v := bytes.Repeat([]byte("x"), 16)
	q := NewQuicklist()
	if q.MemUsage() != quicklistMem {
		t.Errorf("empty list: MemUsage %d, want %d", q.MemUsage(), quicklistMem)
	}
	for i := 1; i <= 10; i++ {
		q.PrepareGrow(ListConfig{Fill: -2}, len(v), 1)
		q.PushTail(v)
		if !q.IsListpack() || q.NodeCount() != 1 {
			t.Fatalf("%d elements: listpack %v, %d nodes", i, q.IsListpack(), q.NodeCount())
		}
		if want := quicklistMem + int(q.one.bcap); q.MemUsage() != want {
			t.Errorf("%d elements: MemUsage %d, want %d", i, q.MemUsage(), want)
		}
	}
	if q.one.bcap != int32(allocSize(10*(1+16+1))) {
		t.Errorf("ten 16-byte elements in a %d-byte buffer", q.one.bcap)
	}
	for q.Len() > 0 {
		q.PopHead(nil)
	}
	if q.one != (qlNode{}) || q.MemUsage() != quicklistMem {
		t.Errorf("emptied list: node %+v, MemUsage %d", q.one, q.MemUsage())
	}

	// The real allocation of a one-element list (LPUSH of a new key).
	var last *Quicklist
	one := func() any {
		q := NewQuicklist()
		q.PrepareGrow(ListConfig{Fill: -2}, len(v), 1)
		q.PushHead(v)
		last = q
		return q
	}
	got := heapEach(4096, one)
	t.Logf("one-element list: %d bytes", got)
	if want := last.MemUsage(); got != want || want != quicklistMem+24 {
		t.Errorf("one-element list: the runtime charges %d, MemUsage says %d (want %d)", got, want, quicklistMem+24)
	}
	// And of a ten-element one (Clone: tight buffers).
	got = heapEach(1024, func() any { last = q.Clone(); return last })
	if want := last.MemUsage(); got != want {
		t.Errorf("ten-element list clone: the runtime charges %d, MemUsage says %d", got, want)
	}
}

// TestQuicklistMemUsageReal: a quicklist-encoded list, with and without
// compressed nodes, holds what its MemUsage says (measured on clones,
// whose buffers are tight and whose ring has no slack).
func TestQuicklistMemUsageReal(t *testing.T) {
	for _, depth := range []int{0, 1} {
		q := NewQuicklist()
		cfg := ListConfig{Fill: -2, Compress: depth}
		for i := range 600 {
			v := bytes.Repeat([]byte{byte('a' + i%3)}, 20+i%50)
			q.PrepareGrow(cfg, len(v), 1)
			q.PushTail(v)
		}
		if q.IsListpack() || q.NodeCount() < 4 || depth > 0 && q.CompressedNodes() == 0 {
			t.Fatalf("depth %d: listpack %v, %d nodes, %d compressed", depth, q.IsListpack(), q.NodeCount(), q.CompressedNodes())
		}
		var last *Quicklist
		got := heapEach(64, func() any { last = q.Clone(); return last })
		t.Logf("depth %d: %d nodes, %d bytes", depth, q.NodeCount(), got)
		if want := last.MemUsage(); got != want {
			t.Errorf("depth %d: the runtime charges %d for a clone, MemUsage says %d", depth, got, want)
		}
	}
}

// TestDictEntryMemMatchesRuntime checks entrySize, which MEMORY USAGE and
// used_memory count for every key, against the heap the runtime really
// hands out for entries with keys of each length class, inline and long.
func TestDictEntryMemMatchesRuntime(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// objLike has the size and pointers of package db's Object.
	type objLike struct {
		a int64
		v any
		b [2]uint64
	}
	for _, n := range []int{0, 1, 7, 8, 15, 16, 23, 24, 31, 32, 47, 48, 63, 64, 95, 96, 127, 128, 200, 1000} {
		got := 1 << 30
		for trial := 0; trial < 3; trial++ {
			const k = 512
			d := New[objLike](k)
			keys := make([][]byte, k)
			for i := range keys {
				keys[i] = bytes.Repeat([]byte{'k'}, n)
				if n >= 4 {
					copy(keys[i], fmt.Sprintf("%04d", i%10000))
				}
			}
			var ms0, ms1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&ms0)
			for _, key := range keys {
				d.Upsert(key)
			}
			runtime.ReadMemStats(&ms1)
			runtime.KeepAlive(d)
			got = min(got, int(ms1.HeapAlloc-ms0.HeapAlloc)/d.Len())
		}
		if want := entrySize[objLike](n); got < want-8 || got > want+8 {
			t.Errorf("%d-byte key: the runtime charges %d bytes an entry, entrySize says %d", n, got, want)
		}
	}
	for n, want := range map[int]int{15: 24, 16: 32} {
		if got := entrySize[struct{}](n); got != want {
			t.Errorf("Dict[struct{}] entry with a %d-byte key: %d bytes, want %d", n, got, want)
		}
	}
}
