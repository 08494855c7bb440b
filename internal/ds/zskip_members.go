package ds

import (
	"math"
	"math/rand/v2"
)

// The member commands of a ZSkip, built on its tree (zskip_tree.go) and
// its hash table (zskip_hash.go).

// Score returns member's score.
func (z *ZSkip) Score(member []byte) (float64, bool) {
	if n := z.find(zhash(member), member); n != nil {
		return n.score, true
	}
	return 0, false
}

// Find returns member's node, or nil.
func (z *ZSkip) Find(member []byte) *ZNode { return z.find(zhash(member), member) }

// Add sets member's score, inserting it if needed (the bytes are copied).
// It returns whether the member was added and, if not, its old score.
func (z *ZSkip) Add(member []byte, score float64) (added bool, old float64) {
	if math.IsNaN(score) {
		panic("ds: NaN score added to ZSkip")
	}
	h := zhash(member)
	n := z.find(h, member)
	if n == nil {
		n = z.newNode(score, member)
		z.link(h, n)
		z.treeInsert(n)
		z.settle()
		return true, 0
	}
	old = n.score
	if old == score {
		return false, old
	}
	// Still strictly between its neighbours: it keeps its place, and only
	// the copies of its score change.
	var at ZIter
	if z.rescore(n, score, &at) {
		return false, old
	}
	z.treeDeleteAt(&at)
	n.score = score
	z.treeInsert(n) // the node is reused: no allocation, no slab to settle
	return false, old
}

// Remove deletes member and reports whether it was present.
func (z *ZSkip) Remove(member []byte) bool {
	h := zhash(member)
	n := z.find(h, member)
	if n == nil {
		return false
	}
	z.unlink(n)
	z.treeDelete(n)
	z.release(n)
	z.settle()
	return true
}

// Rank returns member's 0-based rank (from the highest when reverse) and
// score.
func (z *ZSkip) Rank(member []byte, reverse bool) (int, float64, bool) {
	n := z.find(zhash(member), member)
	if n == nil {
		return 0, 0, false
	}
	r := z.rankOf(n)
	if reverse {
		r = z.length - 1 - r
	}
	return r, n.score, true
}

// ByRank returns the node of 0-based rank i, or nil.
func (z *ZSkip) ByRank(i int) *ZNode {
	if i < 0 || i >= z.length {
		return nil
	}
	var p zPath
	leaf, j := z.descendRank(i, &p)
	return leaf.slots()[j].node.get()
}

// Random returns a uniformly chosen node (nil when empty), in O(1).
func (z *ZSkip) Random() *ZNode {
	if z.length == 0 {
		return nil
	}
	return z.owners[rand.IntN(len(z.owners))]
}

// zspec is a score or member range for the walks. The slot forms decide
// on a leaf slot or separator (a score range from the slot alone).
type zspec interface {
	empty() bool
	gteMin(n *ZNode) bool
	lteMax(n *ZNode) bool
	slotGteMin(s *zSlot) bool
	slotLteMax(s *zSlot) bool
}

type zScoreSpec ScoreRange

func (r zScoreSpec) empty() bool              { return ScoreRange(r).Empty() }
func (r zScoreSpec) gteMin(n *ZNode) bool     { return ScoreRange(r).GteMin(n.score) }
func (r zScoreSpec) lteMax(n *ZNode) bool     { return ScoreRange(r).LteMax(n.score) }
func (r zScoreSpec) slotGteMin(s *zSlot) bool { return ScoreRange(r).GteMin(s.score) }
func (r zScoreSpec) slotLteMax(s *zSlot) bool { return ScoreRange(r).LteMax(s.score) }

type zLexSpec LexRange

func (r zLexSpec) empty() bool              { return LexRange(r).Empty() }
func (r zLexSpec) gteMin(n *ZNode) bool     { return LexRange(r).GteMin(n.MemberString()) }
func (r zLexSpec) lteMax(n *ZNode) bool     { return LexRange(r).LteMax(n.MemberString()) }
func (r zLexSpec) slotGteMin(s *zSlot) bool { return r.gteMin(s.node.get()) }
func (r zLexSpec) slotLteMax(s *zSlot) bool { return r.lteMax(s.node.get()) }

func (z *ZSkip) firstIn(r zspec) (ZIter, int) {
	if r.empty() || z.length == 0 {
		return ZIter{}, -1
	}
	rank, it := z.partition(func(s *zSlot) bool { return !r.slotGteMin(s) })
	if !it.Valid() || !r.lteMax(it.Node()) {
		return ZIter{}, -1
	}
	return it, rank
}

func (z *ZSkip) lastIn(r zspec) (ZIter, int) {
	if r.empty() || z.length == 0 {
		return ZIter{}, -1
	}
	rank, it := z.partition(r.slotLteMax)
	if rank == 0 {
		return ZIter{}, -1
	}
	it.Prev()
	if !r.gteMin(it.Node()) {
		return ZIter{}, -1
	}
	return it, rank - 1
}

// FirstInScoreRange returns the position of the lowest member in r and
// its 0-based rank, or an invalid position and -1.
func (z *ZSkip) FirstInScoreRange(r ScoreRange) (ZIter, int) { return z.firstIn(zScoreSpec(r)) }

// LastInScoreRange returns the position of the highest member in r and
// its rank.
func (z *ZSkip) LastInScoreRange(r ScoreRange) (ZIter, int) { return z.lastIn(zScoreSpec(r)) }

// FirstInLexRange is FirstInScoreRange for a member range.
func (z *ZSkip) FirstInLexRange(r LexRange) (ZIter, int) { return z.firstIn(zLexSpec(r)) }

// LastInLexRange is LastInScoreRange for a member range.
func (z *ZSkip) LastInLexRange(r LexRange) (ZIter, int) { return z.lastIn(zLexSpec(r)) }

func (z *ZSkip) countIn(r zspec) int {
	_, first := z.firstIn(r)
	if first < 0 {
		return 0
	}
	_, last := z.lastIn(r)
	return last - first + 1
}

// CountInScoreRange counts the members in r in O(log n).
func (z *ZSkip) CountInScoreRange(r ScoreRange) int { return z.countIn(zScoreSpec(r)) }

// CountInLexRange counts the members in r in O(log n).
func (z *ZSkip) CountInLexRange(r LexRange) int { return z.countIn(zLexSpec(r)) }

// dropRun removes the run of members from 0-based rank on while
// keep(node, index) is true, and returns how many it removed. It takes
// whole stretches of a leaf at a time (treeCut): one descent per leaf, not
// per member. A negative rank removes nothing.
func (z *ZSkip) dropRun(rank int, keep func(n *ZNode, i int) bool) int {
	removed := 0
	z.idx.pause++ // no resize while unlinking a run
	for rank >= 0 && rank < z.length {
		refused := z.treeCut(rank, func(n *ZNode) bool {
			if !keep(n, removed) {
				return false
			}
			z.unlink(n)
			z.release(n) // its bytes stay readable until settle
			removed++
			return true
		})
		if refused {
			break
		}
	}
	z.idx.pause--
	z.idx.shrinkIfNeeded()
	z.settle()
	return removed
}

func (z *ZSkip) deleteIn(r zspec) int {
	_, rank := z.firstIn(r)
	return z.dropRun(rank, func(n *ZNode, _ int) bool { return r.lteMax(n) })
}

// DeleteRangeByScore removes the members in r and returns how many.
func (z *ZSkip) DeleteRangeByScore(r ScoreRange) int { return z.deleteIn(zScoreSpec(r)) }

// DeleteRangeByLex removes the members in r and returns how many.
func (z *ZSkip) DeleteRangeByLex(r LexRange) int { return z.deleteIn(zLexSpec(r)) }

// DeleteRangeByRank removes 0-based ranks start..end (clamped) and returns
// how many it removed.
func (z *ZSkip) DeleteRangeByRank(start, end int) int {
	start, end = max(start, 0), min(end, z.length-1)
	if start > end {
		return 0
	}
	n := end - start + 1
	return z.dropRun(start, func(_ *ZNode, i int) bool { return i < n })
}

// Clone returns an independent copy.
func (z *ZSkip) Clone() *ZSkip {
	c := NewZSkip(z.length)
	// In order: every insert appends to the last leaf, which splitLeaf
	// then leaves full.
	for it := z.IterAt(0); it.Valid(); it.Next() {
		n := it.Node()
		c.Add(n.Member(), n.score)
	}
	return c
}
