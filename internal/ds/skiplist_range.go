package ds

import (
	"iter"
	"strings"
)

// ScoreRange is a score interval as ZRANGEBYSCORE takes it; MinEx/MaxEx make
// a bound exclusive ("(1.5"). Use math.Inf for "-inf"/"+inf".
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// GteMin reports whether v is not below the range's minimum.
func (r ScoreRange) GteMin(v float64) bool {
	if r.MinEx {
		return v > r.Min
	}
	return v >= r.Min
}

// LteMax reports whether v is not above the range's maximum.
func (r ScoreRange) LteMax(v float64) bool {
	if r.MaxEx {
		return v < r.Max
	}
	return v <= r.Max
}

// Contains reports whether v is in the range.
func (r ScoreRange) Contains(v float64) bool { return r.GteMin(v) && r.LteMax(v) }

// Empty reports whether no score can be in the range.
func (r ScoreRange) Empty() bool {
	return r.Min > r.Max || (r.Min == r.Max && (r.MinEx || r.MaxEx))
}

// LexBound is one end of a ZRANGEBYLEX range: "-" (Inf < 0), "+" (Inf > 0),
// or a member, inclusive ("[a") or exclusive ("(a").
type LexBound struct {
	Value string
	Ex    bool
	Inf   int8 // -1 for "-", +1 for "+", 0 for a member bound
}

// LexRange is a member interval for ZRANGEBYLEX and friends. It is only
// meaningful when all elements have the same score.
type LexRange struct {
	Min, Max LexBound
}

// ParseLexBound parses "-", "+", "[member" or "(member". Like Valkey it
// tests "-" and "+" the C way: a NUL byte after them ends the argument.
func ParseLexBound(b []byte) (LexBound, bool) {
	if len(b) == 0 {
		return LexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return LexBound{}, false
		}
		if b[0] == '+' {
			return LexBound{Inf: 1, Ex: true}, true
		}
		return LexBound{Inf: -1, Ex: true}, true
	case '(':
		return LexBound{Value: string(b[1:]), Ex: true}, true
	case '[':
		return LexBound{Value: string(b[1:])}, true
	}
	return LexBound{}, false
}

// ParseLexRange parses the min and max arguments of ZRANGEBYLEX; ok is false
// if either is malformed (Valkey replies "min or max not valid string range
// item").
func ParseLexRange(min, max []byte) (r LexRange, ok bool) {
	if r.Min, ok = ParseLexBound(min); !ok {
		return r, false
	}
	r.Max, ok = ParseLexBound(max)
	return r, ok
}

// cmpLex compares a member (or bound) a with bound b, treating "-" as below
// and "+" as above every member, as Valkey's sdscmplex.
func cmpLex(a, b LexBound) int {
	switch {
	case a.Inf != 0 && a.Inf == b.Inf:
		return 0
	case a.Inf < 0 || b.Inf > 0:
		return -1
	case a.Inf > 0 || b.Inf < 0:
		return 1
	}
	return strings.Compare(a.Value, b.Value)
}

// GteMin reports whether member is not below the range's minimum.
func (r LexRange) GteMin(member string) bool {
	c := cmpLex(LexBound{Value: member}, r.Min)
	if r.Min.Ex {
		return c > 0
	}
	return c >= 0
}

// LteMax reports whether member is not above the range's maximum.
func (r LexRange) LteMax(member string) bool {
	c := cmpLex(LexBound{Value: member}, r.Max)
	if r.Max.Ex {
		return c < 0
	}
	return c <= 0
}

// Contains reports whether member is in the range.
func (r LexRange) Contains(member string) bool { return r.GteMin(member) && r.LteMax(member) }

// Empty reports whether no member can be in the range.
func (r LexRange) Empty() bool {
	c := cmpLex(r.Min, r.Max)
	return c > 0 || (c == 0 && (r.Min.Ex || r.Max.Ex))
}

// rangeSpec abstracts ScoreRange and LexRange for the range walks.
type rangeSpec interface {
	empty() bool
	gteMin(n *Node) bool
	lteMax(n *Node) bool
}

type scoreSpec ScoreRange

func (r scoreSpec) empty() bool         { return ScoreRange(r).Empty() }
func (r scoreSpec) gteMin(n *Node) bool { return ScoreRange(r).GteMin(n.score) }
func (r scoreSpec) lteMax(n *Node) bool { return ScoreRange(r).LteMax(n.score) }

type lexSpec LexRange

func (r lexSpec) empty() bool         { return LexRange(r).Empty() }
func (r lexSpec) gteMin(n *Node) bool { return LexRange(r).GteMin(n.member) }
func (r lexSpec) lteMax(n *Node) bool { return LexRange(r).LteMax(n.member) }

// inRange reports whether some element may fall in r (zslIsInRange).
func inRange[R rangeSpec](sl *Skiplist, r R) bool {
	if r.empty() || sl.tail == nil || !r.gteMin(sl.tail) {
		return false
	}
	return r.lteMax(sl.header.level[0].forward)
}

// firstIn returns the first node in r and its 0-based rank.
func firstIn[R rangeSpec](sl *Skiplist, r R) (*Node, int) {
	if !inRange(sl, r) {
		return nil, -1
	}
	x, rank := sl.header, 0
	for i := sl.level - 1; i >= 0; i-- {
		// Go forward while out of range.
		for f := x.level[i].forward; f != nil && !r.gteMin(f); f = x.level[i].forward {
			rank += x.level[i].span
			x = f
		}
	}
	// inRange guarantees a last element >= min, so this is not nil.
	x = x.level[0].forward
	if !r.lteMax(x) {
		return nil, -1
	}
	return x, rank
}

// lastIn returns the last node in r and its 0-based rank.
func lastIn[R rangeSpec](sl *Skiplist, r R) (*Node, int) {
	if !inRange(sl, r) {
		return nil, -1
	}
	x, rank := sl.header, 0
	for i := sl.level - 1; i >= 0; i-- {
		// Go forward while in range.
		for f := x.level[i].forward; f != nil && r.lteMax(f); f = x.level[i].forward {
			rank += x.level[i].span
			x = f
		}
	}
	// inRange guarantees a first element <= max, so x is not the header.
	if !r.gteMin(x) {
		return nil, -1
	}
	return x, rank - 1
}

// FirstInScoreRange returns the lowest element in r and its 0-based rank,
// or (nil, -1). Iterate with Node.Next while r.LteMax(n.Score()).
func (sl *Skiplist) FirstInScoreRange(r ScoreRange) (*Node, int) {
	return firstIn(sl, scoreSpec(r))
}

// LastInScoreRange returns the highest element in r and its 0-based rank,
// or (nil, -1). Iterate with Node.Prev while r.GteMin(n.Score()).
func (sl *Skiplist) LastInScoreRange(r ScoreRange) (*Node, int) {
	return lastIn(sl, scoreSpec(r))
}

// CountInScoreRange returns how many elements are in r, in O(log n).
func (sl *Skiplist) CountInScoreRange(r ScoreRange) int {
	return countIn(sl, scoreSpec(r))
}

// FirstInLexRange is FirstInScoreRange for a member range.
func (sl *Skiplist) FirstInLexRange(r LexRange) (*Node, int) {
	return firstIn(sl, lexSpec(r))
}

// LastInLexRange is LastInScoreRange for a member range.
func (sl *Skiplist) LastInLexRange(r LexRange) (*Node, int) {
	return lastIn(sl, lexSpec(r))
}

// CountInLexRange returns how many elements are in r, in O(log n).
func (sl *Skiplist) CountInLexRange(r LexRange) int {
	return countIn(sl, lexSpec(r))
}

// RangeByScore iterates the elements in r, ascending or, with reverse,
// descending. The Skiplist must not be modified during the iteration.
func (sl *Skiplist) RangeByScore(r ScoreRange, reverse bool) iter.Seq[*Node] {
	return rangeIn(sl, scoreSpec(r), reverse)
}

// RangeByLex is RangeByScore for a member range.
func (sl *Skiplist) RangeByLex(r LexRange, reverse bool) iter.Seq[*Node] {
	return rangeIn(sl, lexSpec(r), reverse)
}

func rangeIn[R rangeSpec](sl *Skiplist, r R, reverse bool) iter.Seq[*Node] {
	return func(yield func(*Node) bool) {
		if reverse {
			for n, _ := lastIn(sl, r); n != nil && r.gteMin(n); n = n.backward {
				if !yield(n) {
					return
				}
			}
			return
		}
		for n, _ := firstIn(sl, r); n != nil && r.lteMax(n); n = n.level[0].forward {
			if !yield(n) {
				return
			}
		}
	}
}

func countIn[R rangeSpec](sl *Skiplist, r R) int {
	_, first := firstIn(sl, r)
	if first < 0 {
		return 0
	}
	_, last := lastIn(sl, r)
	return last - first + 1
}

// deleteIn removes every element in r, calling fn (if not nil) for each,
// lowest first, after it is unlinked. It returns the count removed.
func deleteIn[R rangeSpec](sl *Skiplist, r R, fn func(member string, score float64)) int {
	var update [SkiplistMaxLevel]*Node
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && !r.gteMin(f); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	removed := 0
	// The predecessors in update stay valid: each deleted node is the
	// level-0 successor of update[0], and nodes after it only get closer.
	for x = x.level[0].forward; x != nil && r.lteMax(x); {
		next := x.level[0].forward
		sl.deleteNode(x, &update)
		if fn != nil {
			fn(x.member, x.score)
		}
		removed++
		x = next
	}
	return removed
}

// DeleteRangeByScore removes the elements in r, calling fn (may be nil) with
// each removed element in ascending order, and returns how many it removed.
// fn must not modify the Skiplist.
func (sl *Skiplist) DeleteRangeByScore(r ScoreRange, fn func(member string, score float64)) int {
	return deleteIn(sl, scoreSpec(r), fn)
}

// DeleteRangeByLex is DeleteRangeByScore for a member range.
func (sl *Skiplist) DeleteRangeByLex(r LexRange, fn func(member string, score float64)) int {
	return deleteIn(sl, lexSpec(r), fn)
}

// DeleteRangeByRank removes the elements of 0-based ranks start..end
// inclusive (clamped to the list), calling fn (may be nil) for each in
// ascending order, and returns how many it removed.
func (sl *Skiplist) DeleteRangeByRank(start, end int, fn func(member string, score float64)) int {
	start = max(start, 0)
	end = min(end, sl.length-1)
	if start > end {
		return 0
	}
	// Work in Valkey's 1-based ranks.
	start++
	end++
	var update [SkiplistMaxLevel]*Node
	traversed := 0
	x := sl.header
	for i := sl.level - 1; i >= 0; i-- {
		for x.level[i].forward != nil && traversed+x.level[i].span < start {
			traversed += x.level[i].span
			x = x.level[i].forward
		}
		update[i] = x
	}
	traversed++
	removed := 0
	for x = x.level[0].forward; x != nil && traversed <= end; traversed++ {
		next := x.level[0].forward
		sl.deleteNode(x, &update)
		if fn != nil {
			fn(x.member, x.score)
		}
		removed++
		x = next
	}
	return removed
}
