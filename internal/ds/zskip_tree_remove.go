package ds

import "unsafe"

// Removals from a ZSkip's tree (zskip_tree.go): one member (treeDelete),
// a leaf's stretch of a run (treeCut), and the repairs after them, which
// keep the invariants listed there: a separator follows its child's
// lowest member (fixMin), empty nodes leave the tree, nodes under a
// quarter full merge with a sibling or borrow from it, and a root of one
// child gives way to that child.

// treeDelete takes x out of the tree, merging or rebalancing nodes left
// under a quarter full.
func (z *ZSkip) treeDelete(x *ZNode) {
	q := keyOf(x)
	it := z.iterOf(x, &q)
	z.treeDeleteAt(&it)
}

// treeDeleteAt is treeDelete of the member at it (which it consumes).
func (z *ZSkip) treeDeleteAt(it *ZIter) {
	p, leaf, pos := &it.p, it.leaf, it.i
	p.add(-1)
	leaf.removeAt(pos)
	z.length--
	if pos == 0 && leaf.n > 0 {
		z.fixMin(p, p.n-1, leaf.slots()[0])
	}
	z.rebalanceLeaf(p, leaf)
}

// treeCut takes out of the tree the members from rank on, within their
// leaf, for which take returns true (it is called in order and stops at
// the first false), and reports whether take refused one (false: the leaf
// ended, and the run may go on with the member now at rank).
func (z *ZSkip) treeCut(rank int, take func(n *ZNode) bool) bool {
	var p zPath
	leaf, pos := z.descendRank(rank, &p)
	sl := leaf.slots()
	end, refused := pos, false
	for ; end < int(leaf.n); end++ {
		if !take(sl[end].node.get()) {
			refused = true
			break
		}
	}
	k := end - pos
	if k == 0 {
		return refused
	}
	copy(sl[pos:], sl[end:leaf.n])
	leaf.n -= int32(k)
	p.add(-k)
	z.length -= k
	if pos == 0 && leaf.n > 0 {
		z.fixMin(&p, p.n-1, sl[0])
	}
	z.rebalanceLeaf(&p, leaf)
	return refused
}

// fixMin records s as the new lowest member of the subtree reached from
// depth d of p: in the separator of the deepest step at or above d that
// took a child other than the first (none: it is the set's lowest).
func (z *ZSkip) fixMin(p *zPath, d int, s zSlot) {
	for ; d >= 0; d-- {
		if st := p.steps[d]; st.i > 0 {
			st.in.seps[st.i] = s
			return
		}
	}
}

// rebalanceLeaf repairs leaf (the end of p) after a removal: an empty
// leaf leaves the tree; one under a quarter full merges with a sibling
// when they fit in one leaf, else takes half of the sibling's surplus;
// the root leaf shrinks when mostly empty.
func (z *ZSkip) rebalanceLeaf(p *zPath, leaf *zLeaf) {
	if p.n == 0 {
		if leaf.cap > int32(zLeafCaps[1]) && leaf.n <= leaf.cap/4 {
			nl := z.newLeaf(zLeafCapFor(2 * int(leaf.n)))
			nl.n = int32(copy(nl.slots(), leaf.slots()[:leaf.n]))
			z.dropLeaf(leaf)
			z.root = unsafe.Pointer(nl)
		}
		return
	}
	d := p.n - 1
	in, i := p.steps[d].in, p.steps[d].i
	if leaf.n == 0 {
		z.dropLeaf(leaf)
		z.removeKid(p, d)
		return
	}
	if leaf.n >= zLeafMax/4 || in.n < 2 {
		return
	}
	l, r := i, i+1
	if r == in.n {
		l, r = i-1, i
	}
	L, R := (*zLeaf)(in.kids[l]), (*zLeaf)(in.kids[r])
	ls, rs := L.slots(), R.slots()
	if L.n+R.n <= zLeafMax {
		copy(ls[L.n:], rs[:R.n])
		L.n += R.n
		in.counts[l] += in.counts[r]
		z.dropLeaf(R)
		p.steps[d].i = r
		z.removeKid(p, d)
		return
	}
	in.shiftSlots(l, int(L.n-(L.n+R.n)/2)) // to half each
}

// removeKid removes the child taken at depth d of p (already emptied or
// merged into a sibling), then repairs the nodes above.
func (z *ZSkip) removeKid(p *zPath, d int) {
	for {
		in, i := p.steps[d].in, p.steps[d].i
		copy(in.kids[i:], in.kids[i+1:in.n])
		copy(in.counts[i:], in.counts[i+1:in.n])
		copy(in.seps[i:], in.seps[i+1:in.n])
		in.n--
		in.kids[in.n] = nil
		if in.n > 0 {
			if i == 0 { // in's lowest member is now its new first child's
				z.fixMin(p, d-1, in.seps[0])
			}
			break
		}
		z.tbytes -= zInnerBytes // emptied: remove it from its parent
		if d == 0 {
			z.root, z.depth = unsafe.Pointer(z.newLeaf(zLeafCaps[0])), 0
			return
		}
		d--
	}
	z.rebalanceInner(p, d)
}

// rebalanceInner repairs the inner node at depth d of p after it lost a
// child: a root of one child is replaced by that child; a node under a
// quarter full merges with a sibling when their children fit in one.
func (z *ZSkip) rebalanceInner(p *zPath, d int) {
	if d == 0 {
		for z.depth > 0 {
			root := (*zInner)(z.root)
			if root.n > 1 {
				break
			}
			z.root = root.kids[0]
			z.depth--
			z.tbytes -= zInnerBytes
		}
		return
	}
	parent, i := p.steps[d-1].in, p.steps[d-1].i
	if p.steps[d].in.n >= zFan/4 || parent.n < 2 {
		return
	}
	l, r := i, i+1
	if r == parent.n {
		l, r = i-1, i
	}
	L, R := (*zInner)(parent.kids[l]), (*zInner)(parent.kids[r])
	if L.n+R.n > zFan {
		return
	}
	copy(L.kids[L.n:], R.kids[:R.n])
	copy(L.counts[L.n:], R.counts[:R.n])
	copy(L.seps[L.n:], R.seps[:R.n])
	L.seps[L.n] = parent.seps[r] // R's lowest member
	L.n += R.n
	parent.counts[l] += parent.counts[r]
	clear(R.kids[:])
	z.tbytes -= zInnerBytes
	p.steps[d-1].i = r
	z.removeKid(p, d-1)
}
