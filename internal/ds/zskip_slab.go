package ds

import (
	"encoding/binary"
	"unsafe"
)

// A ZSkip's nodes live in slabs (slab.go). Evacuation runs only at the
// end of Add, Remove and the DeleteRange methods (settle), never in the
// middle of a walk: a *ZNode obtained before one of those calls must not
// be used after it (Member slices stay readable).

const zDead = 1 << 31 // meta flag: the node was removed

// allocNode carves a zeroed node for an mlen-byte member (the bytes are
// not copied) from the current slab.
func (z *ZSkip) allocNode(mlen int) *ZNode {
	need := slabAlign(zNodeBytes(mlen))
	// The first slab holds the members the set was sized for (the
	// capacity NewZSkip gave owners; one when unknown): most
	// skiplist-encoded sets with few members have long ones, and a set
	// converted from a listpack knows its size.
	first := need
	if hint := cap(z.owners) - len(z.owners); hint > 1 {
		first = hint * need
	}
	n := (*ZNode)(z.slabs.carve(need, first))
	l := min(mlen, zLongLen)
	n.meta = uint32(l)
	if l == zLongLen {
		binary.LittleEndian.PutUint64(unsafe.Slice((*byte)(n.tailPtr()), 8), uint64(mlen))
	}
	return n
}

// nodeBytes is the slab bytes node n takes.
func (n *ZNode) nodeBytes() int { return slabAlign(zNodeBytes(n.mlen())) }

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
// to x (the tree's slot and separators, its index slot, owners) at the
// copy.
func (z *ZSkip) move(x *ZNode) {
	size := x.nodeBytes()
	y := z.allocNode(x.mlen())
	copy(unsafe.Slice((*byte)(unsafe.Pointer(y)), size), unsafe.Slice((*byte)(unsafe.Pointer(x)), size))
	z.relocate(x, y)
	z.rechain(x, y)
	z.owners[x.oidx] = y
	x.meta |= zDead
}
