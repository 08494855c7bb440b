package ds

import "unsafe"

// ZIter is a position in a ZSkip's order: a leaf slot and the path to it,
// so that stepping to the next or previous member reads the leaf's slots
// in place and climbs the path only at a leaf's end (members carry no
// links to their neighbours: see ZSkip). A ZIter is a value; copying one
// copies the position.
//
// Validity: like a *ZNode, a ZIter must not be used across Add, Remove or
// a DeleteRange method of its set. Stepping past either end leaves it
// invalid; a step back from past the end returns to the last member.
type ZIter struct {
	leaf *zLeaf
	i    int // slot in leaf: -1 before the first member, leaf.n past the last
	p    zPath
}

// IterAt returns the position of 0-based rank i; an i out of range gives
// an invalid position (past the end for i >= Len, before the start for
// i < 0).
func (z *ZSkip) IterAt(i int) ZIter {
	var it ZIter
	switch {
	case i < 0:
		it.leaf, it.i = z.descendRank(0, &it.p)
		it.i = -1
	case i >= z.length:
		it.leaf, _ = z.descendRank(z.length-1, &it.p)
		it.i = int(it.leaf.n)
	default:
		it.leaf, it.i = z.descendRank(i, &it.p)
	}
	return it
}

// Valid reports whether the position holds a member.
func (it *ZIter) Valid() bool { return it.leaf != nil && it.i >= 0 && it.i < int(it.leaf.n) }

// Node returns the member at the position, which must be valid.
func (it *ZIter) Node() *ZNode { return it.leaf.slots()[it.i].node.get() }

// Score returns the score of the member at the position, which must be
// valid, from the leaf's slot: unlike Node().Score(), it does not load the
// member's node (a walk that filters by score touches only the leaves).
func (it *ZIter) Score() float64 { return it.leaf.slots()[it.i].score }

// slot returns the leaf slot at the position, which must be valid.
func (it *ZIter) slot() *zSlot { return &it.leaf.slots()[it.i] }

// Next moves to the following member.
func (it *ZIter) Next() {
	if it.leaf == nil {
		return
	}
	if it.i++; it.i < int(it.leaf.n) {
		return
	}
	for d := it.p.n - 1; d >= 0; d-- {
		st := &it.p.steps[d]
		if st.i+1 < st.in.n {
			st.i++
			it.leaf, it.i = it.p.leftmost(d+1, st.in.kids[st.i]), 0
			return
		}
	}
	it.i = int(it.leaf.n) // past the last member
}

// Prev moves to the preceding member.
func (it *ZIter) Prev() {
	if it.leaf == nil {
		return
	}
	if it.i > 0 {
		it.i = min(it.i, int(it.leaf.n)) - 1
		return
	}
	for d := it.p.n - 1; d >= 0; d-- {
		st := &it.p.steps[d]
		if st.i > 0 {
			st.i--
			it.leaf = it.p.rightmost(d+1, st.in.kids[st.i])
			it.i = int(it.leaf.n) - 1
			return
		}
	}
	it.i = -1 // before the first member
}

// leftmost descends from node (at depth d) along first children,
// recording the steps, and returns the leaf it reaches.
func (p *zPath) leftmost(d int, node unsafe.Pointer) *zLeaf {
	for ; d < p.n; d++ {
		in := (*zInner)(node)
		p.steps[d] = zStep{in, 0}
		node = in.kids[0]
	}
	return (*zLeaf)(node)
}

// rightmost is leftmost along last children.
func (p *zPath) rightmost(d int, node unsafe.Pointer) *zLeaf {
	for ; d < p.n; d++ {
		in := (*zInner)(node)
		p.steps[d] = zStep{in, in.n - 1}
		node = in.kids[in.n-1]
	}
	return (*zLeaf)(node)
}

// descendRank walks from the root to the leaf holding 0-based rank i,
// recording the path, and returns the leaf and i's slot in it. An empty
// set gives its (empty) root leaf and slot 0.
func (z *ZSkip) descendRank(i int, p *zPath) (*zLeaf, int) {
	node := z.root
	i = max(i, 0)
	for d := 0; d < z.depth; d++ {
		in := (*zInner)(node)
		j := 0
		for j < in.n-1 && i >= int(in.counts[j]) {
			i -= int(in.counts[j])
			j++
		}
		p.steps[d] = zStep{in, j}
		node = in.kids[j]
	}
	p.n = z.depth
	return (*zLeaf)(node), i
}

// iterOf returns the position of x, a member of the set (with key q).
func (z *ZSkip) iterOf(x *ZNode, q *zKey) ZIter {
	var it ZIter
	it.leaf = z.descend(q, &it.p)
	it.i = it.leaf.lower(q)
	if it.i >= int(it.leaf.n) || it.leaf.slots()[it.i].node != refOf(x) {
		panic("ds: ZSkip node not where its order says")
	}
	return it
}
