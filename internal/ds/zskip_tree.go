package ds

import (
	"strings"
	"unsafe"
)

// The order of a ZSkip: a B+tree whose inner nodes count the members under
// each child (for ranks) and whose leaves hold, for every member in order,
// its order key (score and the member's first 8 bytes) and its node.
//
// Why a tree and not the skiplist's upper levels: an insert into a sorted
// set of n members steps onto ~1.44 log2(n) skiplist nodes (p = 1/2), each
// a separate allocation and at the seed's sizes a likely cache miss; here
// it binary-searches one inner node (hot: an inner node covers ~5,000
// members) and one leaf (3 KB, contiguous), and compares members only
// when scores and 8-byte prefixes tie. BenchmarkZSkipSeedZADD and
// docs/benchmarks.md have the figures.
//
// Invariants (checkTree verifies them):
//   - every leaf but an empty root holds at least one member; leaves are in
//     order and their slots sorted by (score, member);
//   - an inner node has at least one child (the root at least two);
//     counts[i] is the number of members under kids[i]; seps[i], for
//     i >= 1, is exactly the lowest member under kids[i] (its score, key
//     and node), kept so through removals (fixMin), moves (relocate) and
//     score changes (rescore); seps[0] means nothing;
//   - all leaves are at depth z.depth; leaves below the root have zLeafMax
//     slots, the root leaf one of zLeafCaps (it grows and shrinks).
//
// Members have no links to their neighbours (a skiplist's level-0
// forward and backward pointers): walks step through the leaves' slots
// with a ZIter (zskip_iter.go), which saves 16 bytes a member and the two
// neighbours' cache lines an insert or removal would write.
//
// Memory: leaves are pointer-free (allocNoscan) and their node references
// hidden, like every link to a node (see ZSkip); inner nodes are ordinary
// objects whose kids pointers keep the leaves and inner nodes below them
// alive. kids comes first in zInner so the collector scans 512 bytes of
// an inner node and stops.

const (
	zLeafHdr = int(unsafe.Sizeof(zLeaf{}))
	zSlotSz  = int(unsafe.Sizeof(zSlot{}))
	// zLeafMax is a full leaf's slot count: 8 + 127*24 = 3,056 bytes, in
	// the 3,072-byte size class. Against 63-slot leaves, half the objects
	// for the collector to mark (BenchmarkZSkipGC 2.1-5.5 ns per member
	// against 4.2-11 in alternating runs) and 2% less memory per member,
	// for the same insert time (BenchmarkZSkipSeedZADD).
	zLeafMax = 127
	// zFan is an inner node's child count.
	zFan = 64
	// zMaxDepth bounds the inner levels: a new level needs a full root
	// (zFan children) of halves of full nodes, so depth d holds at least
	// ~32^(d-1) leaves; 2^32 members fit in 7.
	zMaxDepth = 10
)

// zLeafCaps are the slot counts a root leaf is made with: each fills a
// size class (8 + 24c bytes: 64, 128, 256, 512, 1,024, 1,536, 3,072), so
// a one-member set pays 64 bytes for its tree.
var zLeafCaps = [...]int{2, 5, 10, 21, 42, 63, zLeafMax}

// zLeafCapFor is the smallest leaf capacity holding n members.
func zLeafCapFor(n int) int {
	for _, c := range zLeafCaps {
		if c >= n {
			return c
		}
	}
	return zLeafMax
}

// zRef is a hidden *ZNode: a uintptr, so that the memory holding it is
// pointer-free (see ZSkip for what keeps the node alive). It is read
// through memory rather than converted, as the race detector's pointer
// checks require.
type zRef uintptr

func refOf(n *ZNode) zRef { return zRef(unsafe.Pointer(n)) }

func (r *zRef) get() *ZNode { return *(**ZNode)(unsafe.Pointer(r)) }

// zSlot is one member in a leaf, or a separator in an inner node.
type zSlot struct {
	score float64
	key   uint64 // memberKey(member)
	node  zRef
}

// zLeaf is a leaf's header; cap slots follow it in the same allocation.
type zLeaf struct {
	n, cap int32
}

func newZLeaf(c int) *zLeaf {
	l := (*zLeaf)(allocNoscan(zLeafHdr + c*zSlotSz))
	l.cap = int32(c)
	return l
}

func zLeafBytes(c int) int { return allocSize(zLeafHdr + c*zSlotSz) }

// slots returns every allocated slot (the first n are in use).
func (l *zLeaf) slots() []zSlot {
	return unsafe.Slice((*zSlot)(unsafe.Add(unsafe.Pointer(l), zLeafHdr)), l.cap)
}

func (l *zLeaf) insertAt(pos int, s zSlot) {
	sl := l.slots()
	copy(sl[pos+1:l.n+1], sl[pos:l.n])
	sl[pos] = s
	l.n++
}

func (l *zLeaf) removeAt(pos int) {
	sl := l.slots()
	copy(sl[pos:], sl[pos+1:l.n])
	l.n--
}

// zInner is an inner node.
type zInner struct {
	kids   [zFan]unsafe.Pointer // *zInner, or *zLeaf one level above the leaves
	n      int                  // children in use
	counts [zFan]uint32
	seps   [zFan]zSlot
}

var zInnerBytes = allocSize(int(unsafe.Sizeof(zInner{})))

// zKey is an order key being searched for.
type zKey struct {
	score  float64
	key    uint64
	member string
}

func keyOf(n *ZNode) zKey {
	m := n.MemberString()
	return zKey{n.score, memberKey(m), m}
}

// cmp orders q against slot s: by score, then the 8-byte key, and only
// when both tie by the members' bytes (a load of s's node).
func (q *zKey) cmp(s *zSlot) int {
	if q.score != s.score {
		if q.score < s.score {
			return -1
		}
		return 1
	}
	if q.key != s.key {
		if q.key < s.key {
			return -1
		}
		return 1
	}
	return strings.Compare(q.member, s.node.get().MemberString())
}

// child returns the child of in whose range holds q: the last i with
// i == 0 or seps[i] <= q.
func (in *zInner) child(q *zKey) int {
	lo, hi := 1, in.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if q.cmp(&in.seps[m]) < 0 {
			hi = m
		} else {
			lo = m + 1
		}
	}
	return lo - 1
}

// lower returns the first slot of l not below q.
func (l *zLeaf) lower(q *zKey) int {
	sl := l.slots()[:l.n]
	lo, hi := 0, len(sl)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if q.cmp(&sl[m]) > 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// zStep is one inner node on a path from the root and the child taken.
type zStep struct {
	in *zInner
	i  int
}

// zPath is a root-to-leaf path: steps[d] is the inner node at depth d.
type zPath struct {
	steps [zMaxDepth]zStep
	n     int
}

// descend walks from the root to q's leaf, recording the path. It writes
// nothing, so reads (rankOf) share it with the mutations.
func (z *ZSkip) descend(q *zKey, p *zPath) *zLeaf {
	node := z.root
	for d := 0; d < z.depth; d++ {
		in := (*zInner)(node)
		i := in.child(q)
		p.steps[d] = zStep{in, i}
		node = in.kids[i]
	}
	p.n = z.depth
	return (*zLeaf)(node)
}

// add adds delta to the count of every child p took: the members the leaf
// at its end gained or lost.
func (p *zPath) add(delta int) {
	for _, st := range p.steps[:p.n] {
		st.in.counts[st.i] = uint32(int(st.in.counts[st.i]) + delta)
	}
}

// treeInsert puts n (absent from the tree; its score and member set) in
// order.
func (z *ZSkip) treeInsert(n *ZNode) {
	q := keyOf(n)
	var p zPath
	leaf := z.descend(&q, &p)
	p.add(1)
	pos := leaf.lower(&q)
	sl := leaf.slots()
	z.length++
	s := zSlot{q.score, q.key, refOf(n)}
	switch {
	case leaf.n < leaf.cap:
		leaf.insertAt(pos, s)
	case leaf.cap < zLeafMax: // the root leaf of a small set grows
		nl := z.newLeaf(zLeafCapFor(int(leaf.cap) + 1))
		copy(nl.slots(), sl[:leaf.n])
		nl.n = leaf.n
		nl.insertAt(pos, s)
		z.dropLeaf(leaf)
		z.root = unsafe.Pointer(nl)
	default:
		if !z.spillRight(&p, leaf, pos, s) && !z.spillLeft(&p, leaf, pos, s) {
			z.splitLeaf(&p, leaf, pos, s)
		}
	}
}

// spillRight adds s at pos to the full leaf by moving its last slots to
// the start of its right sibling, if it has one with room: half of that
// room, so that a run of inserts into one leaf moves slots once per
// several inserts. It reports whether it did. spillLeft is its mirror
// image; a full leaf splits only when neither sibling has room.
//
// Without them sets that grow near their end (memtier's members, which
// grow over time; timestamps arriving slightly out of order) leave a
// trail of half-full leaves: an insert a little before the end splits the
// full last leaf in halves, and the left half is never filled again
// (TestZSkipTreeFill: the seed's sets kept leaves 54% full on average,
// 96% with spilling and splitLeaf's split at the insert).
func (z *ZSkip) spillRight(p *zPath, leaf *zLeaf, pos int, s zSlot) bool {
	if p.n == 0 {
		return false
	}
	in, i := p.steps[p.n-1].in, p.steps[p.n-1].i
	if i+1 >= in.n {
		return false
	}
	r := (*zLeaf)(in.kids[i+1])
	m := int(r.cap-r.n) / 2
	if m == 0 {
		return false
	}
	in.shiftSlots(i, m)
	if pos <= int(leaf.n) {
		leaf.insertAt(pos, s)
	} else {
		// Past the leaf's new end: s follows r's first slot, so r's
		// separator stays; the path counted s in leaf.
		r.insertAt(pos-int(leaf.n), s)
		in.counts[i]--
		in.counts[i+1]++
	}
	return true
}

// spillLeft is spillRight towards the left sibling: it moves the leaf's
// first slots to the sibling's end.
func (z *ZSkip) spillLeft(p *zPath, leaf *zLeaf, pos int, s zSlot) bool {
	if p.n == 0 {
		return false
	}
	in, i := p.steps[p.n-1].in, p.steps[p.n-1].i
	if i == 0 {
		return false
	}
	l := (*zLeaf)(in.kids[i-1])
	m := int(l.cap-l.n) / 2
	if m == 0 {
		return false
	}
	in.shiftSlots(i-1, -m)
	if pos <= m {
		// Among the moved slots or right after them: l's lowest slot
		// stays; the path counted s in leaf.
		l.insertAt(int(l.n)-m+pos, s)
		in.counts[i-1]++
		in.counts[i]--
	} else {
		leaf.insertAt(pos-m, s) // after leaf's new first slot
	}
	return true
}

// shiftSlots moves k slots between the adjacent leaves kids[l] and
// kids[l+1] of in: k > 0 moves the left leaf's last k slots to the front
// of the right one, k < 0 the right leaf's first -k slots to the end of
// the left one. It adjusts both counts by k (a caller may have counted a
// slot it is about to insert) and the right leaf's separator, which is in
// in since that leaf is child l+1 >= 1. Spills and rebalancing share it.
func (in *zInner) shiftSlots(l, k int) {
	L, R := (*zLeaf)(in.kids[l]), (*zLeaf)(in.kids[l+1])
	ls, rs := L.slots(), R.slots()
	if k > 0 {
		copy(rs[k:], rs[:R.n])
		copy(rs, ls[int(L.n)-k:L.n])
	} else {
		copy(ls[L.n:], rs[:-k])
		copy(rs, rs[-k:R.n])
	}
	L.n -= int32(k)
	R.n += int32(k)
	in.counts[l] = uint32(int(in.counts[l]) - k)
	in.counts[l+1] = uint32(int(in.counts[l+1]) + k)
	in.seps[l+1] = rs[0]
}

// splitLeaf adds s at pos to the full leaf by moving part of it to a new
// right sibling. An insert at either end of the leaf (ascending or
// descending runs of members: Clone, time-ordered scores, an RDB file,
// which lists a sorted set highest first) leaves the old slots together,
// and one in the leaf's first or last eighth splits it there, so that
// such runs fill leaves (with spillRight's help when they arrive a little
// out of order); otherwise the leaf splits in halves.
func (z *ZSkip) splitLeaf(p *zPath, leaf *zLeaf, pos int, s zSlot) {
	n := int(leaf.n)
	k := n / 2 // slots staying in leaf
	if pos <= n/8 || pos >= n-n/8 {
		k = pos
	}
	r := z.newLeaf(zLeafMax)
	copy(r.slots(), leaf.slots()[k:n])
	r.n, leaf.n = int32(n-k), int32(k)
	if pos < k || k == 0 {
		leaf.insertAt(pos, s)
	} else {
		r.insertAt(pos-k, s)
	}
	z.addChild(p, p.n-1, unsafe.Pointer(r), r.slots()[0], uint32(leaf.n), uint32(r.n))
}

// addChild inserts right after the child taken at depth d (the node just
// split; its count becomes cl, right's cr), splitting full inner nodes up
// the path; at d < 0 the split node was the root and a new root is made.
func (z *ZSkip) addChild(p *zPath, d int, right unsafe.Pointer, sep zSlot, cl, cr uint32) {
	for ; d >= 0; d-- {
		in, i := p.steps[d].in, p.steps[d].i
		if in.n < zFan {
			copy(in.kids[i+2:in.n+1], in.kids[i+1:in.n])
			copy(in.counts[i+2:in.n+1], in.counts[i+1:in.n])
			copy(in.seps[i+2:in.n+1], in.seps[i+1:in.n])
			in.kids[i+1], in.counts[i+1], in.seps[i+1] = right, cr, sep
			in.counts[i] = cl
			in.n++
			return
		}
		// Full: lay out the zFan+1 children, then split them in two.
		var kids [zFan + 1]unsafe.Pointer
		var counts [zFan + 1]uint32
		var seps [zFan + 1]zSlot
		copy(kids[:], in.kids[:i+1])
		copy(counts[:], in.counts[:i+1])
		copy(seps[:], in.seps[:i+1])
		kids[i+1], counts[i+1], seps[i+1] = right, cr, sep
		counts[i] = cl
		copy(kids[i+2:], in.kids[i+1:])
		copy(counts[i+2:], in.counts[i+1:])
		copy(seps[i+2:], in.seps[i+1:])
		const h = (zFan + 1) / 2
		r := z.newInner()
		clear(in.kids[:])
		in.n = copy(in.kids[:], kids[:h])
		copy(in.counts[:], counts[:h])
		copy(in.seps[:], seps[:h])
		r.n = copy(r.kids[:], kids[h:])
		copy(r.counts[:], counts[h:])
		copy(r.seps[:], seps[h:])
		right, sep = unsafe.Pointer(r), seps[h]
		cl, cr = sum32(in.counts[:in.n]), sum32(r.counts[:r.n])
	}
	root := z.newInner()
	root.kids[0], root.kids[1] = z.root, right
	root.counts[0], root.counts[1] = cl, cr
	root.seps[1] = sep
	root.n = 2
	z.root = unsafe.Pointer(root)
	if z.depth++; z.depth > zMaxDepth {
		panic("ds: ZSkip tree too deep")
	}
}

func sum32(c []uint32) uint32 {
	var s uint32
	for _, v := range c {
		s += v
	}
	return s
}

// refs calls fn with every reference the tree holds to the member at it:
// the separators on its path that name it, and its slot.
func (it *ZIter) refs(fn func(s *zSlot)) {
	rx := it.slot().node
	for _, st := range it.p.steps[:it.p.n] {
		if st.i > 0 && st.in.seps[st.i].node == rx {
			fn(&st.in.seps[st.i])
		}
	}
	fn(it.slot())
}

// relocate points the tree's references to x at y, its copy.
func (z *ZSkip) relocate(x, y *ZNode) {
	q, ry := keyOf(x), refOf(y)
	it := z.iterOf(x, &q)
	it.refs(func(s *zSlot) { s.node = ry })
}

// rescore gives x the new score in place when that keeps its place in
// the order, strictly between its neighbours' scores (Valkey's
// zslUpdateScore asks the same), and reports whether it did; when it did
// not, it is the caller's to move x, from it, x's position. The
// neighbours' scores are read from their slots.
func (z *ZSkip) rescore(x *ZNode, score float64, it *ZIter) bool {
	q := keyOf(x)
	*it = z.iterOf(x, &q)
	prev, next := *it, *it
	prev.Prev()
	next.Next()
	if prev.Valid() && prev.slot().score >= score || next.Valid() && next.slot().score <= score {
		return false
	}
	it.refs(func(s *zSlot) { s.score = score })
	x.score = score
	return true
}

// rankOf returns the 0-based rank of n (in the set).
func (z *ZSkip) rankOf(n *ZNode) int {
	q := keyOf(n)
	var p zPath
	leaf := z.descend(&q, &p)
	rank := leaf.lower(&q)
	for _, st := range p.steps[:p.n] {
		rank += int(sum32(st.in.counts[:st.i]))
	}
	return rank
}

// partition returns how many members satisfy before, which must hold for
// a prefix of the order, and the position of the first member that does
// not (past the end if all do).
func (z *ZSkip) partition(before func(s *zSlot) bool) (int, ZIter) {
	var it ZIter
	rank, node := 0, z.root
	for d := 0; d < z.depth; d++ {
		in := (*zInner)(node)
		i := countBefore(in.seps[1:in.n], before) // seps[0] means nothing
		rank += int(sum32(in.counts[:i]))
		it.p.steps[d] = zStep{in, i}
		node = in.kids[i]
	}
	it.p.n = z.depth
	it.leaf = (*zLeaf)(node)
	it.i = countBefore(it.leaf.slots()[:it.leaf.n], before)
	rank += it.i
	if it.i == int(it.leaf.n) {
		// All of this leaf are before: the next leaf's first, if any.
		it.i--
		it.Next()
	}
	return rank, it
}

// countBefore returns how many of sl, from the start, satisfy before
// (true for a prefix of sl).
func countBefore(sl []zSlot, before func(s *zSlot) bool) int {
	lo, hi := 0, len(sl)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if before(&sl[m]) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (z *ZSkip) newLeaf(c int) *zLeaf {
	z.tbytes += zLeafBytes(c)
	return newZLeaf(c)
}

func (z *ZSkip) dropLeaf(l *zLeaf) { z.tbytes -= zLeafBytes(int(l.cap)) }

func (z *ZSkip) newInner() *zInner {
	z.tbytes += zInnerBytes
	return new(zInner)
}

// treeBytes is the heap bytes of the tree.
func (z *ZSkip) treeBytes() int { return z.tbytes }
