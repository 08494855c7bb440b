package ds

import (
	"cmp"
	"slices"
	"sort"
	"unsafe"
)

// Slabs: where a ZSkip's nodes live.
//
// Nodes are carved one after another from large pointer-free blocks
// (slabs) instead of being allocated one by one. The garbage collector
// then sees one visible pointer per slab (ZSkip.slabs) rather than one per
// member: at maxmemory, where the heap is marked 1-3 times a second, the
// per-member mark was ~12% of a ZADD server's CPU (perf, docs/benchmarks.md).
// Carving also skips malloc's size-class rounding and its per-object cost.
//
// A slab is never reused in place: a removed node's bytes stay as they were
// until its whole slab is dropped, and a dropped slab is freed by the
// collector only when nothing visible (a caller's *ZNode or Member slice)
// points into it any more. So a Member slice is valid for as long as the
// caller holds it, whatever happens to the set afterwards.
//
// Removals leave holes. A slab whose holes reach half of what was carved
// from it is evacuated: its live nodes are copied to
// the current slab and relinked (evacuate), and the slab is dropped. Each
// move costs a skiplist walk like an insert, and a slab is evacuated only
// after at least half of it was removed, so a removal pays for at most one
// move on average, and the nodes of a set never take more than about twice
// their live bytes (more typically 1.3x after random removals).
// Evacuation runs only at the end of Add, Remove and the DeleteRange
// methods (settle), never in the middle of a walk: a *ZNode obtained
// before one of those calls must not be used after it (Member slices
// stay readable).

const (
	zSlabMax = 64 << 10 // slabs double up to this size
	// A node bigger than zSlabMax/4 gets a slab of its own, so that a
	// slab's unusable tail (a node that did not fit) stays small.
	zOwnSlab = zSlabMax / 4

	zDead       = 1 << 31 // meta flag: the node was removed
	zHeightBits = 0x3f    // meta >> zLenBits, without the flag
)

// zSlab is one block of nodes.
type zSlab struct {
	mem    []uint64 // the block; this visible slice keeps its nodes alive
	used   int      // bytes handed out, from the start
	dead   int      // bytes of removed nodes among them
	queued bool     // to be evacuated at the next settle
}

func (s *zSlab) size() int            { return len(s.mem) * 8 }
func (s *zSlab) base() unsafe.Pointer { return unsafe.Pointer(unsafe.SliceData(s.mem)) }

// zAlign rounds a node size up to the slabs' 8-byte alignment.
func zAlign(n int) int { return (n + 7) &^ 7 }

// allocNode carves a zeroed node of height levels for an mlen-byte member
// (the bytes are not copied) from the current slab.
func (z *ZSkip) allocNode(height, mlen int) *ZNode {
	need := zAlign(zNodeBytes(height, mlen))
	s := z.cur
	switch {
	case need > zOwnSlab:
		s = z.newSlab(need)
	case s == nil || s.used+need > s.size():
		// The first slab holds the members the set was sized for (the
		// capacity NewZSkip gave owners; one when unknown), each with room
		// for a level more than this node (heights average 2): most
		// skiplist-encoded sets with few members have long ones, and a set
		// converted from a listpack knows its size. Then each slab is
		// twice the last, up to zSlabMax. Sizes are Go size classes, so
		// the allocator wastes nothing.
		size := need
		if s != nil {
			size = max(min(2*s.size(), zSlabMax), need)
		} else if hint := cap(z.owners) - len(z.owners); hint > 1 {
			size = min(hint*(need+zLevelSz), zSlabMax)
		}
		old := s
		s = z.newSlab(allocSize(size))
		z.cur = s
		if old != nil {
			z.maybeQueue(old)
		}
	}
	n := (*ZNode)(unsafe.Add(s.base(), s.used))
	s.used += need
	l := min(mlen, zLongLen)
	n.meta = uint32(height)<<zLenBits | uint32(l)
	if l == zLongLen {
		*(*uint64)(n.tailPtr()) = uint64(mlen)
	}
	return n
}

// newSlab allocates a slab of size bytes (a multiple of 8) and files it
// in slabs, which is sorted by address (see slabOf).
func (z *ZSkip) newSlab(size int) *zSlab {
	s := &zSlab{mem: make([]uint64, size/8)}
	checkPacked(unsafe.Add(s.base(), size-1)) // the index packs node addresses into 48 bits
	i, _ := slices.BinarySearchFunc(z.slabs, s, cmpSlabs)
	z.slabs = slices.Insert(z.slabs, i, s)
	z.slabBytes += allocSize(size) + zSlabOverhead
	return s
}

// zSlabOverhead is a slab's zSlab (its slot in slabs is counted by
// MemUsage from cap(slabs)).
const zSlabOverhead = 48

func cmpSlabs(a, b *zSlab) int { return cmp.Compare(uintptr(a.base()), uintptr(b.base())) }

// slabOf returns the slab holding n: the last one that starts at or
// before it.
func (z *ZSkip) slabOf(n *ZNode) *zSlab {
	p := uintptr(unsafe.Pointer(n))
	i := sort.Search(len(z.slabs), func(i int) bool { return uintptr(z.slabs[i].base()) > p }) - 1
	if i >= 0 {
		if s := z.slabs[i]; p < uintptr(s.base())+uintptr(s.size()) {
			return s
		}
	}
	panic("ds: ZSkip node outside its slabs")
}

// release marks a removed node's bytes as garbage (it is already unlinked
// from the list, the hash table and owners). The node stays readable.
func (z *ZSkip) release(n *ZNode) {
	s := z.slabOf(n)
	n.meta |= zDead
	s.dead += zAlign(zNodeBytes(n.height(), n.mlen()))
	z.maybeQueue(s)
}

// maybeQueue queues s for evacuation once half of what was carved from it
// is removed (the current slab is still being filled: never).
func (z *ZSkip) maybeQueue(s *zSlab) {
	if s != z.cur && !s.queued && 2*s.dead >= s.used {
		s.queued = true
		z.queued++
	}
}

// settle evacuates the queued slabs. Callers are the mutating methods,
// at their end, when no walk is in progress.
func (z *ZSkip) settle() {
	if z.length == 0 && len(z.slabs) > 0 {
		// Every node is garbage: drop them all, and start small again.
		z.slabs, z.cur, z.queued, z.slabBytes = nil, nil, 0, 0
		return
	}
	for z.queued > 0 {
		// Moving nodes may fill the current slab and queue it, so look
		// for the next queued slab afresh each time (queueing is rare:
		// once per half a slab of removals).
		var s *zSlab
		for _, t := range z.slabs {
			if t.queued {
				s = t
				break
			}
		}
		z.queued--
		for off := 0; off < s.used; {
			n := (*ZNode)(unsafe.Add(s.base(), off))
			off += zAlign(zNodeBytes(n.height(), n.mlen()))
			if n.meta&zDead == 0 {
				z.move(n)
			}
		}
		z.dropSlab(s)
	}
}

// dropSlab removes s (all garbage) from slabs.
func (z *ZSkip) dropSlab(s *zSlab) {
	i, found := slices.BinarySearchFunc(z.slabs, s, cmpSlabs)
	if !found {
		panic("ds: ZSkip slab missing")
	}
	z.slabs = slices.Delete(z.slabs, i, i+1)
	z.slabBytes -= allocSize(s.size()) + zSlabOverhead
	if z.cur == s {
		z.cur = nil
	}
}

// move copies live node x into the current slab and points every link
// to x (its predecessors' levels, its successor's backward link, its
// index slot, owners) at the copy. Order keys are unchanged,
// so the predecessors' copies of them stay right.
func (z *ZSkip) move(x *ZNode) {
	size := zAlign(zNodeBytes(x.height(), x.mlen()))
	y := z.allocNode(x.height(), x.mlen())
	copy(unsafe.Slice((*byte)(unsafe.Pointer(y)), size), unsafe.Slice((*byte)(unsafe.Pointer(x)), size))
	var update [SkiplistMaxLevel]*ZNode
	z.levelPreds(x, &update)
	for i := 0; i < x.height(); i++ {
		l := update[i].lvl(i)
		if l.forward != x {
			panic("ds: ZSkip node not where its order says")
		}
		l.forward = y
	}
	if f := y.lv[0].forward; f != nil {
		f.backward = y
	} else {
		z.tail = y
	}
	z.rechain(x, y)
	z.owners[x.oidx] = y
	x.meta |= zDead
}

// zBackSteps bounds levelPreds' walk back before it walks from the header.
const zBackSteps = 12

// levelPreds fills update[:x.height()] with x's predecessor at each of its
// levels. Most nodes are short (P(height > k) = 2^-k) and the nearest
// taller node is a few steps behind at level 0 (2^(h-1) expected for
// height h), so walking back from x usually beats walking down from the
// header (~1.44 log2 n steps, each a likely cache miss); a long walk back
// gives up and does that. Spans are not needed: a move keeps every rank.
func (z *ZSkip) levelPreds(x *ZNode, update *[SkiplistMaxLevel]*ZNode) {
	p, steps := x.backward, 0
	for i := 0; i < x.height(); i++ {
		for p != nil && p.height() <= i {
			if steps++; steps > zBackSteps {
				z.findUpdate(x, update)
				return
			}
			p = p.backward
		}
		if p == nil {
			update[i] = z.header
		} else {
			update[i] = p
		}
	}
}
