package ds

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// checkArena verifies a container's slabs (slab.go): sorted by address;
// every owned record inside one; each slab's records (record gives a
// record's size and liveness) tile its used bytes, the live ones are
// exactly the owned ones and the dead bytes add up; none is left queued,
// and no slab but the current one is half removed; the byte count for
// MemUsage matches.
func checkArena(t *testing.T, a *slabArena, owned map[unsafe.Pointer]bool, record func(p unsafe.Pointer) (int, bool)) {
	t.Helper()
	for p := range owned {
		a.slabOf(p) // panics if outside every slab
	}
	found, bytes := 0, 0
	for i, s := range a.slabs {
		if i > 0 && cmpSlabs(a.slabs[i-1], s) >= 0 {
			t.Fatalf("slabs out of address order at %d", i)
		}
		if s.queued {
			t.Fatalf("slab %d still queued after settle", i)
		}
		if s != a.cur && 2*s.dead >= s.used {
			t.Fatalf("slab %d: %d of %d bytes dead and not evacuated", i, s.dead, s.used)
		}
		dead, off := 0, 0
		for off < s.used {
			p := unsafe.Add(s.base(), off)
			size, live := record(p)
			switch {
			case !live:
				dead += size
			case !owned[p]:
				t.Fatalf("slab %d: live record at %d is not owned", i, off)
			default:
				found++
			}
			off += size
		}
		if off != s.used || dead != s.dead {
			t.Fatalf("slab %d: records tile %d of %d bytes, %d dead of %d counted", i, off, s.used, dead, s.dead)
		}
		bytes += slabBytes(s.size())
	}
	if found != len(owned) {
		t.Fatalf("%d live records in slabs, %d owned", found, len(owned))
	}
	if bytes != a.bytes {
		t.Fatalf("arena counts %d bytes, its slabs hold %d", a.bytes, bytes)
	}
}

// slabContainer is a ZSkip or StrMap under testSlabsEvacuate.
type slabContainer struct {
	arena  *slabArena
	add    func(key string)
	remove func(key string) bool
	live   func() int         // the bytes of the live records
	check  func(t *testing.T) // the container's own full check
	empty  func() bool
}

// testSlabsEvacuate adds 20,000 keys of 9 to ~130 bytes, then removes 90%
// of them in random order: the slabs shrink to near the live bytes
// (half-removed slabs are evacuated: records move and their links
// follow), the container stays intact through a collection, and removing
// the rest drops every slab.
func testSlabsEvacuate(t *testing.T, c slabContainer, seed uint64) {
	r := rand.New(rand.NewPCG(seed, seed+1))
	const n = 20_000
	keys := make([]string, n)
	for i := range keys {
		keys[i] = fmt.Sprintf("%08d-%s", i, strings.Repeat("v", r.IntN(120)))
		c.add(keys[i])
	}
	full := c.arena.bytes
	if l := c.live(); full > l*11/10 {
		t.Fatalf("slabs %d bytes for %d live after inserts only", full, l)
	}
	r.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	for _, k := range keys[:n*9/10] {
		if !c.remove(k) {
			t.Fatalf("removing %q found nothing", k)
		}
	}
	runtime.GC()
	c.check(t)
	if l := c.live(); c.arena.bytes > 2*l+slabMax {
		t.Fatalf("after removing 90%%: slabs %d bytes for %d live (were %d)", c.arena.bytes, l, full)
	}
	t.Logf("slabs %d -> %d bytes, live %d", full, c.arena.bytes, c.live())
	for _, k := range keys[n*9/10:] {
		c.remove(k)
	}
	if !c.empty() || len(c.arena.slabs) != 0 || c.arena.bytes != 0 {
		t.Fatalf("emptied: %d slabs, %d bytes", len(c.arena.slabs), c.arena.bytes)
	}
}

// TestSlabFileOrder: slabs are filed in address order whatever order the
// allocator hands them out in (the append fast path and the search).
func TestSlabFileOrder(t *testing.T) {
	pool := make([]*slab, 9)
	for i := range pool {
		pool[i] = allocSlab(32)
	}
	slices.SortFunc(pool, cmpSlabs)
	for _, order := range [][]int{
		{0, 1, 2, 3, 4, 5, 6, 7, 8}, // ascending: every one appended
		{8, 7, 6, 5, 4, 3, 2, 1, 0}, // descending: every one searched
		{4, 0, 8, 2, 6, 1, 7, 3, 5},
		{0, 8, 1, 7, 2, 6, 3, 5, 4},
	} {
		var a slabArena
		for _, i := range order {
			a.file(pool[i])
		}
		if !slices.Equal(a.slabs, pool) {
			t.Errorf("order %v: slabs not in address order", order)
		}
		for _, s := range pool {
			if got := a.slabOf(unsafe.Add(s.base(), 8)); got != s {
				t.Errorf("order %v: slabOf found the wrong slab", order)
			}
		}
	}
}
