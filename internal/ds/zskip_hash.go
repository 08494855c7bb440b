package ds

import "unsafe"

// The member index of a ZSkip is an oIndex over its nodes (oindex.go;
// ZNode.hash is the first word of a node, as the index requires), and
// owners is the array of every node that Scan and Random walk.

func zhash(member []byte) uint64 { return Hash(member) }

// find returns the node of member (hash h), or nil. It never changes the
// index (see oIndex.find).
func (z *ZSkip) find(h uint64, member []byte) *ZNode {
	if z.length == 0 {
		return nil
	}
	return (*ZNode)(z.idx.find(h, func(p unsafe.Pointer) bool {
		n := (*ZNode)(p)
		return n.mlen() == len(member) && n.MemberString() == string(member)
	}))
}

// link puts n into the index and owners (it must be absent).
func (z *ZSkip) link(h uint64, n *ZNode) {
	n.hash = uint32(h)
	n.oidx = uint32(len(z.owners))
	if len(z.owners) == cap(z.owners) {
		z.resizeOwners(growPtrTable(cap(z.owners)))
	}
	z.owners = append(z.owners, n)
	z.idx.link(h, unsafe.Pointer(n))
}

// unlink removes n from the index and from owners: the last owned node
// takes n's slot (see Scan). The caller must also unlink n from the
// skiplist in the same operation (see ZSkip).
func (z *ZSkip) unlink(n *ZNode) {
	z.disown(n)
	z.idx.unlink(unsafe.Pointer(n))
}

// rechain replaces x by y (a copy of x, same member and hash) in the
// index.
func (z *ZSkip) rechain(x, y *ZNode) { z.idx.replace(unsafe.Pointer(x), unsafe.Pointer(y)) }

// disown drops n from owners, moving the last node into its slot, and
// gives back owners' memory when it is mostly empty.
func (z *ZSkip) disown(n *ZNode) {
	var m *ZNode
	var shrink bool
	z.owners, m, shrink = dropOwner(z.owners, n.oidx, n)
	m.oidx = n.oidx
	if shrink {
		z.resizeOwners(cap(z.owners) / 2)
	}
}

// resizeOwners moves owners to a pointer-free array of capacity c.
func (z *ZSkip) resizeOwners(c int) { z.owners = resizePtrTable(z.owners, c) }

// Scan visits one member and returns the next cursor, 0 at the end (see
// ownerScan for the cursor and its guarantee).
func (z *ZSkip) Scan(cursor uint64, fn func(n *ZNode)) uint64 {
	i, ok := ownerScan(len(z.owners), cursor)
	if ok {
		fn(z.owners[i])
	}
	return i
}

// TableStats is the member index's Stats (DEBUG HTSTATS-KEY).
func (z *ZSkip) TableStats() (mainSlots, mainUsed, targetSlots, targetUsed int) {
	return z.idx.Stats()
}
