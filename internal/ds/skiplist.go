package ds

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

const (
	// SkiplistMaxLevel is the most levels a node can have (ZSKIPLIST_MAXLEVEL),
	// enough for 4^32 elements at p = 1/4.
	SkiplistMaxLevel = 32
)

// Skiplist is Valkey's zskiplist: elements ordered by score, then by member
// bytewise, with a span on every forward link counting the elements it skips,
// so rank lookups are O(log n) as well as searches. Each node has a backward
// link for reverse iteration. Members are unique by (score, member), but the
// Skiplist itself does not enforce member uniqueness: ZSet does, with a Dict.
//
// Scores must not be NaN (Insert panics): NaN breaks the ordering.
type Skiplist struct {
	header *Node
	tail   *Node
	length int
	level  int // levels in use, >= 1
}

// Node is one element of a Skiplist. Its fields are read-only to callers.
type Node struct {
	member   string
	score    float64
	backward *Node
	level    []skipLevel
}

type skipLevel struct {
	forward *Node
	span    int // elements skipped by following forward, counting its target
}

// Member returns the node's member.
func (n *Node) Member() string { return n.member }

// Score returns the node's score.
func (n *Node) Score() float64 { return n.score }

// Next returns the following node in ascending order, or nil.
func (n *Node) Next() *Node { return n.level[0].forward }

// Prev returns the preceding node, or nil.
func (n *Node) Prev() *Node { return n.backward }

// NewSkiplist returns an empty Skiplist.
func NewSkiplist() *Skiplist {
	return &Skiplist{header: newNode(SkiplistMaxLevel, 0, ""), level: 1}
}

// Len returns the number of elements.
func (sl *Skiplist) Len() int { return sl.length }

// First returns the lowest element, or nil.
func (sl *Skiplist) First() *Node { return sl.header.level[0].forward }

// Last returns the highest element, or nil.
func (sl *Skiplist) Last() *Node { return sl.tail }

// nodeN is a Node with its levels in the same allocation; L is [k]skipLevel.
type nodeN[L any] struct {
	n Node
	l L
}

func allocNode[L any](level int) *Node {
	p := new(nodeN[L])
	p.n.level = unsafe.Slice((*skipLevel)(unsafe.Pointer(&p.l)), level)
	return &p.n
}

// newNode allocates a node and its levels in one allocation, with the level
// array rounded up to a power of two: 3/4 of nodes have one level.
func newNode(level int, score float64, member string) *Node {
	var n *Node
	switch {
	case level == 1:
		n = allocNode[[1]skipLevel](level)
	case level == 2:
		n = allocNode[[2]skipLevel](level)
	case level <= 4:
		n = allocNode[[4]skipLevel](level)
	case level <= 8:
		n = allocNode[[8]skipLevel](level)
	case level <= 16:
		n = allocNode[[16]skipLevel](level)
	default:
		n = allocNode[[SkiplistMaxLevel]skipLevel](level)
	}
	n.score, n.member = score, member
	return n
}

// randomLevel returns a level in [1, 32] with P(level > k) = 4^-k: each pair
// of zero bits of one random word adds a level.
func randomLevel() int {
	return min(1+bits.TrailingZeros64(rand.Uint64())/2, SkiplistMaxLevel)
}

// less reports whether (s1, m1) sorts before (s2, m2).
func less(s1 float64, m1 string, s2 float64, m2 string) bool {
	return s1 < s2 || (s1 == s2 && m1 < m2)
}

// Insert adds (score, member) and returns its node. The caller guarantees
// the member is not already present (ZSet checks its Dict first). The
// Skiplist keeps member itself, without copying.
func (sl *Skiplist) Insert(score float64, member string) *Node {
	if math.IsNaN(score) {
		panic("ds: NaN score inserted into skiplist")
	}
	var update [SkiplistMaxLevel]*Node
	var rank [SkiplistMaxLevel]int
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		// rank[i] is the rank of update[i]: where the new node's level
		// i predecessor sits.
		if i != sl.level-1 {
			rank[i] = rank[i+1]
		}
		for f := x.level[i].forward; f != nil && less(f.score, f.member, score, member); f = x.level[i].forward {
			rank[i] += x.level[i].span
			x = f
		}
		update[i] = x
	}
	level := randomLevel()
	if level > sl.level {
		for i := sl.level; i < level; i++ {
			update[i] = sl.header
			update[i].level[i].span = sl.length
		}
		sl.level = level
	}
	x = newNode(level, score, member)
	for i := 0; i < level; i++ {
		x.level[i].forward = update[i].level[i].forward
		update[i].level[i].forward = x
		// Split update[i]'s span at the new node.
		x.level[i].span = update[i].level[i].span - (rank[0] - rank[i])
		update[i].level[i].span = rank[0] - rank[i] + 1
	}
	// Links above the new node's height now jump over one more element.
	for i := level; i < sl.level; i++ {
		update[i].level[i].span++
	}
	if update[0] != sl.header {
		x.backward = update[0]
	}
	if f := x.level[0].forward; f != nil {
		f.backward = x
	} else {
		sl.tail = x
	}
	sl.length++
	return x
}

// deleteNode unlinks x given its predecessors at every level.
func (sl *Skiplist) deleteNode(x *Node, update *[SkiplistMaxLevel]*Node) {
	for i := 0; i < sl.level; i++ {
		if update[i].level[i].forward == x {
			update[i].level[i].span += x.level[i].span - 1
			update[i].level[i].forward = x.level[i].forward
		} else {
			update[i].level[i].span--
		}
	}
	if f := x.level[0].forward; f != nil {
		f.backward = x.backward
	} else {
		sl.tail = x.backward
	}
	for sl.level > 1 && sl.header.level[sl.level-1].forward == nil {
		sl.level--
	}
	sl.length--
}

// findUpdate fills update with the last node before (score, member) at
// every level and returns the node after update[0].
func (sl *Skiplist) findUpdate(score float64, member string, update *[SkiplistMaxLevel]*Node) *Node {
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && less(f.score, f.member, score, member); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	return x.level[0].forward
}

// Delete removes (score, member) and reports whether it was present.
func (sl *Skiplist) Delete(score float64, member string) bool {
	var update [SkiplistMaxLevel]*Node
	x := sl.findUpdate(score, member, &update)
	if x == nil || x.score != score || x.member != member {
		return false
	}
	sl.deleteNode(x, &update)
	return true
}

// UpdateScore moves member from score cur, where it must be, to score
// newScore and returns its node. If the node keeps its place it is updated
// in place; otherwise it is unlinked and a new node is inserted, so the
// node the caller held before is no longer valid.
func (sl *Skiplist) UpdateScore(member string, cur, newScore float64) *Node {
	if math.IsNaN(newScore) {
		panic("ds: NaN score inserted into skiplist")
	}
	var update [SkiplistMaxLevel]*Node
	x := sl.findUpdate(cur, member, &update)
	if x == nil || x.score != cur || x.member != member {
		panic("ds: UpdateScore of a member not at the given score")
	}
	// Still strictly between its neighbours: no relinking needed. Ties
	// are resolved conservatively by taking the slow path.
	if (x.backward == nil || x.backward.score < newScore) &&
		(x.level[0].forward == nil || x.level[0].forward.score > newScore) {
		x.score = newScore
		return x
	}
	sl.deleteNode(x, &update)
	return sl.Insert(newScore, x.member)
}

// Rank returns the 0-based rank of (score, member) in ascending order.
func (sl *Skiplist) Rank(score float64, member string) (int, bool) {
	rank := 0
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && (f.score < score || (f.score == score && f.member <= member)); f = x.level[i].forward {
			rank += x.level[i].span
			x = f
		}
		if x != sl.header && x.score == score && x.member == member {
			return rank - 1, true
		}
	}
	return 0, false
}

// ByRank returns the element with 0-based rank i in ascending order, or nil
// if i is out of range.
func (sl *Skiplist) ByRank(i int) *Node {
	if i < 0 || i >= sl.length {
		return nil
	}
	return sl.byRank1(i + 1)
}

// byRank1 finds the node of 1-based rank r (1 <= r <= length).
func (sl *Skiplist) byRank1(r int) *Node {
	traversed := 0
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for x.level[i].forward != nil && traversed+x.level[i].span <= r {
			traversed += x.level[i].span
			x = x.level[i].forward
		}
		if traversed == r {
			return x
		}
	}
	return nil
}
