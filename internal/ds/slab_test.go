package ds

import (
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
		bytes += allocSize(s.size()) + slabOverhead
	}
	if found != len(owned) {
		t.Fatalf("%d live records in slabs, %d owned", found, len(owned))
	}
	if bytes != a.bytes {
		t.Fatalf("arena counts %d bytes, its slabs hold %d", a.bytes, bytes)
	}
}
