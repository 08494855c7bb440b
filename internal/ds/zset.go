package ds

import "math"

// ZSet is a sorted set in Valkey's skiplist encoding: a Dict from member to
// score for O(1) ZSCORE/ZADD lookups, and a Skiplist for order and rank. Both
// refer to one copy of each member's bytes (the Dict key).
//
// Valkey's reply-level rules (NX/XX/GT/LT, INCR, rejecting NaN) belong to the
// caller; ZSet only keeps the two structures in step. Scores must not be NaN.
type ZSet struct {
	dict *Dict[float64]
	list *Skiplist
}

// NewZSet returns an empty ZSet sized for hint members.
func NewZSet(hint int) *ZSet {
	return &ZSet{dict: New[float64](hint), list: NewSkiplist()}
}

// Len returns the number of members.
func (z *ZSet) Len() int { return z.list.Len() }

// List returns the Skiplist for ordered reads: ranges, ranks, iteration.
// Mutating it directly would desynchronise the ZSet; use the ZSet methods.
func (z *ZSet) List() *Skiplist { return z.list }

// Dict returns the member-to-score Dict for ZSCAN, ZRANDMEMBER and the like.
// It must only be read (Scan, RandomKey, Sample, Find, Range).
func (z *ZSet) Dict() *Dict[float64] { return z.dict }

// Score returns member's score.
func (z *ZSet) Score(member []byte) (float64, bool) {
	if p := z.dict.Find(member); p != nil {
		return *p, true
	}
	return 0, false
}

// Add sets member's score, inserting it if needed. It returns whether the
// member was added and, if not, its previous score.
func (z *ZSet) Add(member []byte, score float64) (added bool, old float64) {
	if math.IsNaN(score) {
		panic("ds: NaN score added to zset")
	}
	k := bstr(member)
	e, existed := z.dict.upsert(HashString(k), k)
	if !existed {
		e.val = score
		// e.key is the Dict's own copy: the Skiplist shares it.
		z.list.Insert(score, e.key)
		return true, 0
	}
	old = e.val
	if old != score {
		z.list.UpdateScore(e.key, old, score)
		e.val = score
	}
	return false, old
}

// Remove deletes member and reports whether it was present.
func (z *ZSet) Remove(member []byte) bool {
	k := bstr(member)
	e := z.dict.unlink(HashString(k), k)
	if e == nil {
		return false
	}
	z.list.Delete(e.val, e.key)
	return true
}

// Rank returns member's 0-based rank, counted from the highest score when
// reverse is set, and its score.
func (z *ZSet) Rank(member []byte, reverse bool) (rank int, score float64, ok bool) {
	k := bstr(member)
	if z.dict.Len() == 0 {
		return 0, 0, false
	}
	h := HashString(k)
	z.dict.stepFor(h)
	e := z.dict.lookup(h, k)
	if e == nil {
		return 0, 0, false
	}
	rank, ok = z.list.Rank(e.val, e.key)
	if !ok {
		panic("ds: zset member missing from skiplist")
	}
	if reverse {
		rank = z.list.Len() - 1 - rank
	}
	return rank, e.val, true
}

// DeleteRangeByScore removes the members with scores in r (ZREMRANGEBYSCORE),
// calling fn (may be nil) for each in ascending order, and returns the count.
func (z *ZSet) DeleteRangeByScore(r ScoreRange, fn func(member string, score float64)) int {
	return z.list.DeleteRangeByScore(r, z.dropFn(fn))
}

// DeleteRangeByLex removes the members in r (ZREMRANGEBYLEX).
func (z *ZSet) DeleteRangeByLex(r LexRange, fn func(member string, score float64)) int {
	return z.list.DeleteRangeByLex(r, z.dropFn(fn))
}

// DeleteRangeByRank removes the members of 0-based ranks start..end
// inclusive (ZREMRANGEBYRANK; negative indexes must already be resolved).
func (z *ZSet) DeleteRangeByRank(start, end int, fn func(member string, score float64)) int {
	return z.list.DeleteRangeByRank(start, end, z.dropFn(fn))
}

// dropFn wraps fn so each member the Skiplist unlinks also leaves the Dict.
func (z *ZSet) dropFn(fn func(string, float64)) func(string, float64) {
	return func(member string, score float64) {
		z.dict.DeleteString(member)
		if fn != nil {
			fn(member, score)
		}
	}
}

// MemUsage estimates the heap bytes of the ZSet.
func (z *ZSet) MemUsage() int {
	// Node: member header 16, score 8, backward 8, level slice 24, and on
	// average 4/3 levels of 16 bytes, rounded to the size class.
	const perNode = 80
	return z.dict.MemUsage() + 64 + perNode*z.list.Len()
}
