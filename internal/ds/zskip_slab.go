package ds

import "unsafe"

// A ZSkip's nodes live in slabs (slab.go). Evacuation runs only at the
// end of Add, Remove and the DeleteRange methods (settle), never in the
// middle of a walk: a *ZNode obtained before one of those calls must not
// be used after it (Member slices stay readable).

const zDead = 1 << 31 // meta flag: the node was removed

// allocNode carves a zeroed node of height levels for an mlen-byte member
// (the bytes are not copied) from the current slab.
func (z *ZSkip) allocNode(height, mlen int) *ZNode {
	need := slabAlign(zNodeBytes(height, mlen))
	// The first slab holds the members the set was sized for (the
	// capacity NewZSkip gave owners; one when unknown), each with room for
	// a level more than this node (heights average 2): most
	// skiplist-encoded sets with few members have long ones, and a set
	// converted from a listpack knows its size.
	first := need
	if hint := cap(z.owners) - len(z.owners); hint > 1 {
		first = hint * (need + zLevelSz)
	}
	n := (*ZNode)(z.slabs.carve(need, first))
	l := min(mlen, zLongLen)
	n.meta = uint32(height)<<zLenBits | uint32(l)
	if l == zLongLen {
		*(*uint64)(n.tailPtr()) = uint64(mlen)
	}
	return n
}

// nodeBytes is the slab bytes node n takes.
func (n *ZNode) nodeBytes() int { return slabAlign(zNodeBytes(n.height(), n.mlen())) }

// release marks a removed node's bytes as garbage (it is already unlinked
// from the list, the hash table and owners). The node stays readable.
func (z *ZSkip) release(n *ZNode) {
	n.meta |= zDead
	z.slabs.free(unsafe.Pointer(n), n.nodeBytes())
}

// settle evacuates the queued slabs. Callers are the mutating methods,
// at their end, when no walk is in progress.
func (z *ZSkip) settle() {
	if z.slabs.queued == 0 && z.length > 0 {
		return
	}
	z.slabs.settle(z.length == 0, func(p unsafe.Pointer) (int, bool) {
		n := (*ZNode)(p)
		return n.nodeBytes(), n.meta&zDead == 0
	}, func(p unsafe.Pointer) { z.move((*ZNode)(p)) })
}

// move copies live node x into the current slab and points every link
// to x (its predecessors' levels, its successor's backward link, its
// index slot, owners) at the copy. Order keys are unchanged,
// so the predecessors' copies of them stay right.
func (z *ZSkip) move(x *ZNode) {
	size := x.nodeBytes()
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
