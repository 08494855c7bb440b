package ds

import (
	"math"
	"math/bits"
	"math/rand/v2"
)

// The skiplist of a ZSkip: Skiplist's algorithms (spans for ranks, a
// backward link at level 0) over ZNode's inline levels, and the member
// commands built on it and the hash table.

// zRandomLevel returns a node height in [1, 32] with P(height > k) = 2^-k.
// Valkey uses 1/4; with 1/2 a walk takes about a third fewer forward steps
// (each a likely cache miss: (1-p)/p * log(n)/log(1/p) is 1.44 ln n for
// p = 1/2 against 2.16 ln n for 1/4) for 2 levels per node on average
// instead of 1.33. BenchmarkZSkipSeedZADD: 13-14% faster inserts, +16
// bytes per 128-byte member (docs/benchmarks.md). Heights are not
// observable through any command.
func zRandomLevel() int {
	return min(1+bits.TrailingZeros64(rand.Uint64()), SkiplistMaxLevel)
}

// insertNode links n (whose height and score are set) into the skiplist.
func (z *ZSkip) insertNode(n *ZNode) {
	var update [SkiplistMaxLevel]*ZNode
	var rank [SkiplistMaxLevel]int
	score, member := n.score, n.MemberString()
	key := memberKey(member)
	if n.height() > z.header.height() {
		z.growHeader(n.height()) // before the walk records the header in update
	}
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		if i < z.level-1 {
			rank[i] = rank[i+1]
		}
		for {
			l := x.lvl(i)
			f := l.forward
			if f == nil || !l.forwardBefore(score, key, member) {
				break
			}
			rank[i] += int(l.span)
			x = f
		}
		update[i] = x
	}
	h := n.height()
	if h > z.level {
		for i := z.level; i < h; i++ {
			rank[i] = 0
			update[i] = z.header
			z.header.lvl(i).span = uint32(z.length)
		}
		z.level = h
	}
	for i := 0; i < h; i++ {
		ul, nl := update[i].lvl(i), n.lvl(i)
		nl.forward, nl.fscore, nl.fkey = ul.forward, ul.fscore, ul.fkey
		ul.setForward(n, key)
		nl.span = ul.span - uint32(rank[0]-rank[i])
		ul.span = uint32(rank[0] - rank[i] + 1)
	}
	for i := h; i < z.level; i++ {
		update[i].lvl(i).span++
	}
	if update[0] != z.header {
		n.backward = update[0]
	} else {
		n.backward = nil
	}
	if f := n.lv[0].forward; f != nil {
		f.backward = n
	} else {
		z.tail = n
	}
	z.length++
}

// findUpdate fills update with the last node before n at every level.
func (z *ZSkip) findUpdate(n *ZNode, update *[SkiplistMaxLevel]*ZNode) {
	score, member := n.score, n.MemberString()
	key := memberKey(member)
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			f := l.forward
			if f == nil || f == n || !l.forwardBefore(score, key, member) {
				break
			}
			x = f
		}
		update[i] = x
	}
}

// deleteNode unlinks x from the skiplist given its predecessors.
func (z *ZSkip) deleteNode(x *ZNode, update *[SkiplistMaxLevel]*ZNode) {
	for i := 0; i < z.level; i++ {
		ul := update[i].lvl(i)
		if ul.forward == x {
			xl := x.lvl(i)
			ul.span += xl.span - 1
			ul.forward, ul.fscore, ul.fkey = xl.forward, xl.fscore, xl.fkey
		} else {
			ul.span--
		}
	}
	if f := x.lv[0].forward; f != nil {
		f.backward = x.backward
	} else {
		z.tail = x.backward
	}
	for z.level > 1 && z.header.lvl(z.level-1).forward == nil {
		z.level--
	}
	z.length--
}

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
		n = z.newNode(zRandomLevel(), score, member)
		z.link(h, n)
		z.insertNode(n)
		z.settle()
		return true, 0
	}
	old = n.score
	if old == score {
		return false, old
	}
	var update [SkiplistMaxLevel]*ZNode
	z.findUpdate(n, &update)
	// Still strictly between its neighbours: no relinking, but the
	// predecessors' copies of its score change.
	if (n.backward == nil || n.backward.score < score) &&
		(n.lv[0].forward == nil || n.lv[0].forward.score > score) {
		n.score = score
		for i := 0; i < n.height(); i++ {
			update[i].lvl(i).fscore = score
		}
		return false, old
	}
	z.deleteNode(n, &update)
	n.score = score
	z.insertNode(n) // the node is reused: no allocation, same height
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
	var update [SkiplistMaxLevel]*ZNode
	z.findUpdate(n, &update)
	z.deleteNode(n, &update)
	z.release(n)
	z.settle()
	return true
}

// rankOf returns the 1-based rank of n (in the list).
func (z *ZSkip) rankOf(n *ZNode) int {
	score, member := n.score, n.MemberString()
	key := memberKey(member)
	rank := 0
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			f := l.forward
			if f == nil || (f != n && !l.forwardBefore(score, key, member)) {
				break
			}
			rank += int(l.span)
			x = f
			if x == n {
				return rank
			}
		}
	}
	return 0
}

// Rank returns member's 0-based rank (from the highest when reverse) and
// score.
func (z *ZSkip) Rank(member []byte, reverse bool) (int, float64, bool) {
	n := z.find(zhash(member), member)
	if n == nil {
		return 0, 0, false
	}
	r := z.rankOf(n) - 1
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
	r := i + 1
	traversed := 0
	x := z.header
	for l := z.level - 1; l >= 0; l-- {
		for {
			lv := x.lvl(l)
			if lv.forward == nil || traversed+int(lv.span) > r {
				break
			}
			traversed += int(lv.span)
			x = lv.forward
		}
		if traversed == r {
			return x
		}
	}
	return nil
}

// Random returns a uniformly chosen node (nil when empty), in O(1).
func (z *ZSkip) Random() *ZNode {
	if z.length == 0 {
		return nil
	}
	return z.owners[rand.IntN(len(z.owners))]
}

// zspec is a score or member range for the walks.
type zspec interface {
	empty() bool
	gteMin(n *ZNode) bool
	lteMax(n *ZNode) bool
}

type zScoreSpec ScoreRange

func (r zScoreSpec) empty() bool          { return ScoreRange(r).Empty() }
func (r zScoreSpec) gteMin(n *ZNode) bool { return ScoreRange(r).GteMin(n.score) }
func (r zScoreSpec) lteMax(n *ZNode) bool { return ScoreRange(r).LteMax(n.score) }

type zLexSpec LexRange

func (r zLexSpec) empty() bool          { return LexRange(r).Empty() }
func (r zLexSpec) gteMin(n *ZNode) bool { return LexRange(r).GteMin(n.MemberString()) }
func (r zLexSpec) lteMax(n *ZNode) bool { return LexRange(r).LteMax(n.MemberString()) }

func (z *ZSkip) inRange(r zspec) bool {
	if r.empty() || z.tail == nil || !r.gteMin(z.tail) {
		return false
	}
	return r.lteMax(z.header.lv[0].forward)
}

func (z *ZSkip) firstIn(r zspec) (*ZNode, int) {
	if !z.inRange(r) {
		return nil, -1
	}
	x, rank := z.header, 0
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			if l.forward == nil || r.gteMin(l.forward) {
				break
			}
			rank += int(l.span)
			x = l.forward
		}
	}
	x = x.lv[0].forward
	if x == nil || !r.lteMax(x) {
		return nil, -1
	}
	return x, rank
}

func (z *ZSkip) lastIn(r zspec) (*ZNode, int) {
	if !z.inRange(r) {
		return nil, -1
	}
	x, rank := z.header, 0
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			if l.forward == nil || !r.lteMax(l.forward) {
				break
			}
			rank += int(l.span)
			x = l.forward
		}
	}
	if x == z.header || !r.gteMin(x) {
		return nil, -1
	}
	return x, rank - 1
}

// FirstInScoreRange returns the lowest node in r and its 0-based rank, or
// (nil, -1).
func (z *ZSkip) FirstInScoreRange(r ScoreRange) (*ZNode, int) { return z.firstIn(zScoreSpec(r)) }

// LastInScoreRange returns the highest node in r and its rank.
func (z *ZSkip) LastInScoreRange(r ScoreRange) (*ZNode, int) { return z.lastIn(zScoreSpec(r)) }

// FirstInLexRange is FirstInScoreRange for a member range.
func (z *ZSkip) FirstInLexRange(r LexRange) (*ZNode, int) { return z.firstIn(zLexSpec(r)) }

// LastInLexRange is LastInScoreRange for a member range.
func (z *ZSkip) LastInLexRange(r LexRange) (*ZNode, int) { return z.lastIn(zLexSpec(r)) }

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

// dropRun removes the nodes from the level-0 successor of update[0] while
// keep(node, index) is true, and returns how many it removed.
func (z *ZSkip) dropRun(update *[SkiplistMaxLevel]*ZNode, keep func(n *ZNode, i int) bool) int {
	removed := 0
	z.idx.pause++ // no resize while unlinking a run
	for x := update[0].lv[0].forward; x != nil && keep(x, removed); {
		next := x.lv[0].forward
		z.deleteNode(x, update)
		z.unlink(x)
		z.release(x)
		removed++
		x = next
	}
	z.idx.pause--
	z.idx.shrinkIfNeeded()
	z.settle()
	return removed
}

func (z *ZSkip) deleteIn(r zspec) int {
	var update [SkiplistMaxLevel]*ZNode
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			if l.forward == nil || r.gteMin(l.forward) {
				break
			}
			x = l.forward
		}
		update[i] = x
	}
	return z.dropRun(&update, func(n *ZNode, _ int) bool { return r.lteMax(n) })
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
	var update [SkiplistMaxLevel]*ZNode
	traversed := 0
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			if l.forward == nil || traversed+int(l.span) > start {
				break
			}
			traversed += int(l.span)
			x = l.forward
		}
		update[i] = x
	}
	n := end - start + 1
	return z.dropRun(&update, func(_ *ZNode, i int) bool { return i < n })
}

// Clone returns an independent copy.
func (z *ZSkip) Clone() *ZSkip {
	c := NewZSkip(z.length)
	// Highest first: every insert then stops at the header.
	for n := z.tail; n != nil; n = n.backward {
		c.Add(n.Member(), n.score)
	}
	return c
}
