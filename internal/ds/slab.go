package ds

import (
	"cmp"
	"slices"
	"sort"
	"unsafe"
)

// Slabs: where the records of ZSkip (its nodes) and StrMap live.
//
// Records are carved one after another from large pointer-free blocks
// (slabs) instead of being allocated one by one. The garbage collector
// then sees one visible pointer per slab (slabArena.slabs) rather than
// one per record: at maxmemory, where the heap is marked 1-3 times a
// second, the per-member mark was ~12% of a ZADD server's CPU, and the
// mark of each StrMap record through its owners array 9-15% of a
// pipelined HSET server's (perf, docs/benchmarks.md). Carving also skips
// malloc's size-class rounding and its per-object cost.
//
// A slab is never reused in place: a removed record's bytes stay as they
// were until its whole slab is dropped, and a dropped slab is freed by the
// collector only when nothing visible (a caller's pointer or slice into
// it) points into it any more. So a slice of a record's bytes is valid for
// as long as the caller holds it, whatever happens to the container
// afterwards.
//
// Removals leave holes. A slab whose holes reach half of what was carved
// from it is queued, and settle evacuates it: the owner copies each live
// record into the current slab and repoints its links, and the slab is
// dropped. Each move costs the owner about what an insert does, and a
// slab is evacuated only after at least half of it was removed, so a
// removal pays for at most one move on average, and a container's records
// never take more than about twice their live bytes (more typically 1.3x
// after random removals). Owners settle only at the end of a mutating
// method, never in the middle of a walk.
//
// Records are 8-byte aligned (slabAlign) and a record's size must be
// computable from its own bytes (settle walks a slab by sizes).

const (
	// Slabs double up to slabMax. Smaller slabs cost the collector more
	// (BenchmarkStrMapGC / BenchmarkZSkipGC, ns per record per full
	// collection: 8 KB 14.2 / 11.2, 16 KB 7.9 / 6.1, 32 KB 4.4 / 3.9,
	// 64 KB 2.9 / 2.8; one pointer per record: 27 / 16-30); bigger ones
	// leave more room unused in a container's last slab (a StrMap of
	// 1,000 128-byte keys: 175, 184, 186 and 227 heap bytes per key).
	slabMax = 32 << 10
	// A record bigger than slabMax/4 gets a slab of its own, so that a
	// slab's unusable tail (a record that did not fit) stays small.
	slabOwn = slabMax / 4
)

// slab is one block of records. The header is the first bytes of the
// block's own pointer-free allocation and the records follow it, so a
// slab is one heap object, which the collector marks but never scans (a
// separate header struct was a second object, with a pointer to scan,
// for every slab: a small container has one or two). A *slab in slabs is
// the visible pointer that keeps the block, and so its records, alive.
type slab struct {
	sz     int  // bytes for records, after the header
	used   int  // bytes handed out, from the start
	dead   int  // bytes of removed records among them
	queued bool // to be evacuated at the next settle
}

// slabHdr is the header's size (a multiple of 8, so records stay
// aligned).
const slabHdr = int(unsafe.Sizeof(slab{}))

func (s *slab) size() int            { return s.sz }
func (s *slab) base() unsafe.Pointer { return unsafe.Add(unsafe.Pointer(s), slabHdr) }

// allocSlab allocates a slab with room for size bytes of records.
func allocSlab(size int) *slab {
	s := (*slab)(allocNoscan(slabHdr + size))
	s.sz = size
	return s
}

// slabBytes is the heap bytes of a slab with room for size bytes.
func slabBytes(size int) int { return allocSize(slabHdr + size) }

// slabAlign rounds a record size up to the slabs' 8-byte alignment.
func slabAlign(n int) int { return (n + 7) &^ 7 }

// slabArena is the slabs of one container.
type slabArena struct {
	slabs  []*slab // sorted by address (see slabOf); keep the records alive
	cur    *slab   // the slab new records are carved from
	queued int     // slabs to evacuate at the next settle
	bytes  int     // heap bytes of the slabs, for MemUsage

	// moveSmall makes an arena that outgrows its only slab while that
	// slab is under slabMoveMax queue it for evacuation, so that its
	// records move into the new, doubled slab at the next settle and a
	// small container keeps one slab, not a chain of half-empty ones
	// (ZSkip sets it: a one-member sorted set's first slab holds one
	// node, and the second member otherwise made a second slab: ~240
	// bytes and a heap object more per two-member set, bench/keyspace at
	// 10^7 keys). The owner must settle after every carve (ZSkip does, at
	// the end of each mutating method).
	moveSmall bool
}

// slabMoveMax is the largest only slab moveSmall evacuates when it
// fills: moving costs about an insert per record, and doubling from
// below this moves ~2x that many records in all.
const slabMoveMax = 4 << 10

// memUsage is the arena's heap bytes.
func (a *slabArena) memUsage() int { return 8*cap(a.slabs) + a.bytes }

// carve returns need bytes (a multiple of 8), zeroed, from the current
// slab. first is the size the arena's first slab should have (the owner
// knows how many records it was sized for); later slabs double, up to
// slabMax, and a record too big for that gets a slab of its own.
func (a *slabArena) carve(need, first int) unsafe.Pointer {
	s := a.cur
	switch {
	case need > slabOwn:
		s = a.newSlab(need)
	case s == nil || s.used+need > s.size():
		size := max(min(first, slabMax), need)
		if s != nil {
			size = max(min(2*s.size(), slabMax), need)
		}
		old := s
		// Evacuate a small only slab into this one (moveSmall): then it
		// must hold the old slab's live records too. (While one is being
		// evacuated it is still filed, so this never queues another.)
		move := old != nil && a.moveSmall && len(a.slabs) == 1 && old.size() < slabMoveMax && !old.queued
		if move {
			size = max(size, old.used-old.dead+need)
		}
		// Sizes are Go size classes, so the allocator wastes nothing,
		// and the header shares the allocation: a full-size slab is
		// slabMax bytes with the header, not a large object just past it.
		s = a.newSlab(slabBytes(min(size, max(slabMax-slabHdr, need))) - slabHdr)
		a.cur = s
		switch {
		case move:
			old.queued = true
			a.queued++
		case old != nil:
			a.maybeQueue(old)
		}
	}
	p := unsafe.Add(s.base(), s.used)
	s.used += need
	return p
}

// newSlab allocates a slab of size bytes (a multiple of 8) and files it
// in slabs.
func (a *slabArena) newSlab(size int) *slab {
	s := allocSlab(size)
	checkPacked(unsafe.Add(s.base(), size-1)) // oIndex packs record addresses into 48 bits
	a.file(s)
	a.bytes += slabBytes(size)
	return s
}

// file inserts s into slabs, keeping them in address order.
func (a *slabArena) file(s *slab) {
	if n := len(a.slabs); n == 0 || cmpSlabs(a.slabs[n-1], s) < 0 {
		// The usual case on a growing heap. The search would read
		// every probed slab's header: with ten million small sorted
		// sets (bench/keyspace-scaling.sh, ZADD at 10^7 keys) those
		// cache misses were 3% of the server's CPU.
		a.slabs = append(a.slabs, s)
		return
	}
	i, _ := slices.BinarySearchFunc(a.slabs, s, cmpSlabs)
	a.slabs = slices.Insert(a.slabs, i, s)
}

func cmpSlabs(a, b *slab) int { return cmp.Compare(uintptr(a.base()), uintptr(b.base())) }

// slabOf returns the slab holding p: the last one that starts at or
// before it.
func (a *slabArena) slabOf(p unsafe.Pointer) *slab {
	u := uintptr(p)
	i := sort.Search(len(a.slabs), func(i int) bool { return uintptr(a.slabs[i].base()) > u }) - 1
	if i >= 0 {
		if s := a.slabs[i]; u < uintptr(s.base())+uintptr(s.size()) {
			return s
		}
	}
	panic("ds: record outside its slabs")
}

// free counts the size bytes of the record at p as garbage (the owner has
// unlinked it and marked it removed); the bytes stay readable.
func (a *slabArena) free(p unsafe.Pointer, size int) {
	s := a.slabOf(p)
	s.dead += size
	a.maybeQueue(s)
}

// maybeQueue queues s for evacuation once half of what was carved from it
// is removed (the current slab is still being filled: never).
func (a *slabArena) maybeQueue(s *slab) {
	if s != a.cur && !s.queued && 2*s.dead >= s.used {
		s.queued = true
		a.queued++
	}
}

// settle evacuates the queued slabs. empty tells that the owner holds no
// record: every slab is dropped at once. Otherwise each queued slab is
// walked: record(p) returns the size of the record at p and whether it
// is live, and move(p) copies a live one elsewhere (carving from this
// arena) and repoints every link to it; then the slab is dropped.
func (a *slabArena) settle(empty bool, record func(p unsafe.Pointer) (size int, live bool), move func(p unsafe.Pointer)) {
	if empty {
		if len(a.slabs) > 0 {
			*a = slabArena{moveSmall: a.moveSmall}
		}
		return
	}
	for a.queued > 0 {
		// Moving records may fill the current slab and queue it, so look
		// for the next queued slab afresh each time (queueing is rare:
		// once per half a slab of removals).
		var s *slab
		for _, t := range a.slabs {
			if t.queued {
				s = t
				break
			}
		}
		a.queued--
		for off := 0; off < s.used; {
			p := unsafe.Add(s.base(), off)
			size, live := record(p)
			off += size
			if live {
				move(p)
			}
		}
		a.dropSlab(s)
	}
}

// dropSlab removes s (all garbage) from slabs.
func (a *slabArena) dropSlab(s *slab) {
	i, found := slices.BinarySearchFunc(a.slabs, s, cmpSlabs)
	if !found {
		panic("ds: slab missing")
	}
	a.slabs = slices.Delete(a.slabs, i, i+1)
	a.bytes -= slabBytes(s.size())
	if a.cur == s {
		a.cur = nil
	}
}

// newPtrTable returns an array of n pointers in pointer-free memory: for
// owners arrays, whose records the slabs keep alive, so the collector
// need not read them.
func newPtrTable[T any](n int) []*T {
	return unsafe.Slice((**T)(allocNoscan(n*8)), n)
}

// resizePtrTable copies t into a new pointer-free array of capacity c.
func resizePtrTable[T any](t []*T, c int) []*T {
	o := newPtrTable[T](c)[:len(t)]
	copy(o, t)
	return o
}

// growPtrTable is the next capacity of a full owners array of capacity c:
// double while small, then by a quarter (as append grows slices), which
// keeps a large array's slack, 8 bytes a slot, near an eighth of it.
func growPtrTable(c int) int {
	if c < 256 {
		return max(4, 2*c)
	}
	return c + c/4 + 192
}
