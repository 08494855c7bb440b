package db

import (
	"math"
	"math/rand/v2"

	"github.com/corvid-kv/corvid/internal/ds"
)

// ZPOPMIN key [count]
func zpopminCommand(c *Ctx) { c.zpopMinMax(false) }

// ZPOPMAX key [count]
func zpopmaxCommand(c *Ctx) { c.zpopMinMax(true) }

func (c *Ctx) zpopMinMax(max bool) {
	if len(c.Argv) > 3 {
		c.W.Error(ErrSyntax)
		return
	}
	count := int64(-1) // a plain single pop
	if len(c.Argv) == 3 {
		var ok bool
		if count, ok = c.positiveArg(2, ErrNotPositive); !ok {
			return
		}
	}
	// RESP3 nests member/score pairs when a count was given.
	nested := c.W.Proto > 2 && count != -1
	c.zpopGeneric(c.Argv[1:2], max, false, count, nested, false)
}

// zpopResult is what a pop took: it is filled under the key's stripe
// (possibly by a pusher's goroutine serving a blocked client) and written
// out afterwards.
type zpopResult struct {
	key     []byte
	members [][]byte
	scores  []float64
}

// zpopFrom pops up to count members (lowest or highest) of the sorted set
// o at key, deleting the key when it empties.
func zpopFrom(c *Ctx, key []byte, o *Object, max bool, count int64) zpopResult {
	n := int(min(count, int64(zsetLen(o))))
	r := zpopResult{key: append([]byte(nil), key...), members: make([][]byte, 0, n), scores: make([]float64, 0, n)}
	for range n {
		rank := 0
		if max {
			rank = zsetLen(o) - 1
		}
		z := zsetAtRank(o, rank)
		m, s := z.get()
		r.members = append(r.members, append([]byte(nil), m...))
		r.scores = append(r.scores, s)
		zsetDeleteRank(o, rank, rank)
	}
	event := "zpopmin"
	if max {
		event = "zpopmax"
	}
	c.removedFrom(NotifyZset, event, key, zsetLen(o) == 0)
	c.touchN(key, n)
	return r
}

// writeZpop writes a pop's reply: emitKey adds the key name (BZPOP*,
// ZMPOP), nested writes each pair as its own array (RESP3 with a count,
// and ZMPOP/BZMPOP).
func (c *Ctx) writeZpop(r *zpopResult, emitKey, nested bool) {
	n := len(r.members)
	switch {
	case !nested && !emitKey:
		c.W.ArrayLen(n * 2)
	case nested && !emitKey:
		c.W.ArrayLen(n)
	case !nested && emitKey:
		c.W.ArrayLen(n*2 + 1)
		c.W.Bulk(r.key)
	default:
		c.W.ArrayLen(2)
		c.W.Bulk(r.key)
		c.W.ArrayLen(n)
	}
	for i, m := range r.members {
		if nested {
			c.W.ArrayLen(2)
		}
		c.W.Bulk(m)
		c.replyScore(r.scores[i])
	}
}

// zpopGeneric is genericZpopCommand: pop from the first existing key of
// keys (count -1: a plain single pop). nilWhenEmpty replies a null array
// rather than an empty one when no key exists.
func (c *Ctx) zpopGeneric(keys [][]byte, max, emitKey bool, count int64, nested, nilWhenEmpty bool) {
	var key []byte
	var o *Object
	for _, k := range keys {
		o = c.LookupWrite(k)
		if o == nil {
			continue
		}
		if o.Type != TypeZSet {
			c.W.Error(ErrWrongType)
			return
		}
		key = k
		break
	}
	if o == nil {
		if nilWhenEmpty {
			c.W.NullArray()
		} else {
			c.W.ArrayLen(0)
		}
		return
	}
	if count == 0 {
		c.W.ArrayLen(0)
		return
	}
	if count == -1 {
		count = 1
	}
	r := zpopFrom(c, key, o, max, count)
	if emitKey && c.Propagating() {
		// ZMPOP as ZPOPMIN/ZPOPMAX of the key it chose and what it took.
		c.OwnAs(zpopArg(max), key, itoa(int64(len(r.members))))
	}
	c.writeZpop(&r, emitKey, nested)
}

// zpopArg is ZPOPMAX (max) or ZPOPMIN.
func zpopArg(max bool) []byte {
	if max {
		return argZPOPMAX
	}
	return argZPOPMIN
}

// ZMPOP numkeys key [key ...] MIN | MAX [COUNT count]
func zmpopCommand(c *Ctx) { c.zmpopGeneric(1, false) }

// BZMPOP timeout numkeys key [key ...] MIN | MAX [COUNT count]
func bzmpopCommand(c *Ctx) { c.zmpopGeneric(2, true) }

// zmpopGeneric parses ZMPOP/BZMPOP; numkeysIdx is the numkeys position.
func (c *Ctx) zmpopGeneric(numkeysIdx int, block bool) {
	argv := c.Argv
	numkeys, ok := ParseInt(argv[numkeysIdx])
	if !ok || numkeys < 1 {
		c.W.Error("ERR numkeys should be greater than 0")
		return
	}
	// Compared with what remains, not added to an index (overflow).
	if numkeys >= int64(len(argv)-numkeysIdx-1) {
		c.W.Error(ErrSyntax)
		return
	}
	whereIdx := numkeysIdx + int(numkeys) + 1
	var max bool
	switch w := argv[whereIdx]; {
	case EqualFold(w, "MIN"):
	case EqualFold(w, "MAX"):
		max = true
	default:
		c.W.Error(ErrSyntax)
		return
	}
	count := int64(-1)
	for j := whereIdx + 1; j < len(argv); j++ {
		if count == -1 && EqualFold(argv[j], "COUNT") && j+1 < len(argv) {
			j++
			n, ok := ParseInt(argv[j])
			if !ok || n < 1 {
				c.W.Error("ERR count should be greater than 0")
				return
			}
			count = n
			continue
		}
		c.W.Error(ErrSyntax)
		return
	}
	if count == -1 {
		count = 1
	}
	keys := argv[numkeysIdx+1 : whereIdx]
	if block {
		c.bzpopGeneric(keys, max, 1, count, true, true)
		return
	}
	c.zpopGeneric(keys, max, true, count, true, true)
}

// BZPOPMIN key [key ...] timeout
func bzpopminCommand(c *Ctx) {
	c.bzpopGeneric(c.Argv[1:len(c.Argv)-1], false, len(c.Argv)-1, -1, false, false)
}

// BZPOPMAX key [key ...] timeout
func bzpopmaxCommand(c *Ctx) {
	c.bzpopGeneric(c.Argv[1:len(c.Argv)-1], true, len(c.Argv)-1, -1, false, false)
}

// bzpopGeneric is blockingGenericZpopCommand: pop from the first
// non-empty sorted set among keys, or block until one appears or the
// timeout (argv[timeoutIdx], in seconds) passes. It runs with LockNone:
// Ctx.Block locks the keys.
func (c *Ctx) bzpopGeneric(keys [][]byte, max bool, timeoutIdx int, count int64, nested, nilWhenEmpty bool) {
	timeout, ok := c.blockTimeoutArg(timeoutIdx)
	if !ok {
		return
	}
	withCount := count != -1 // BZMPOP: propagated with what it took
	if count == -1 {
		count = 1
	}
	var res zpopResult
	wrongType := false
	serve := func(sc *Ctx, key []byte) bool {
		o := sc.LookupWrite(key)
		if o == nil {
			return false
		}
		if o.Type != TypeZSet {
			// An error on the first attempt only; a waiter keeps
			// waiting when the key changes type.
			if sc.Serving() {
				return false
			}
			wrongType = true
			return true
		}
		if zsetLen(o) == 0 {
			return false
		}
		res = zpopFrom(sc, key, o, max, count)
		if withCount && sc.Propagating() {
			sc.OwnAs(zpopArg(max), key, itoa(int64(len(res.members))))
		} else {
			sc.OwnAs(zpopArg(max), key)
		}
		return true
	}
	if !c.Block(keys, timeout, serve) {
		return
	}
	if wrongType {
		c.W.Error(ErrWrongType)
		return
	}
	c.writeZpop(&res, true, nested)
}

// zrandmemberSubStrategyMul is ZRANDMEMBER_SUB_STRATEGY_MUL.
const zrandmemberSubStrategyMul = 3

// ZRANDMEMBER key [count [WITHSCORES]]
func zrandmemberCommand(c *Ctx) {
	if len(c.Argv) >= 3 {
		l, ok := c.countArg(2)
		if !ok {
			return
		}
		withScores := false
		if len(c.Argv) > 4 || (len(c.Argv) == 4 && !EqualFold(c.Argv[3], "WITHSCORES")) {
			c.W.Error(ErrSyntax)
			return
		}
		if len(c.Argv) == 4 {
			withScores = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				c.W.Error("ERR value is out of range")
				return
			}
		}
		c.zrandmemberWithCount(l, withScores)
		return
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.Null()
		return
	}
	m, _ := zsetRandom(o)
	c.W.Bulk(m)
}

// zsetRandom returns a uniformly chosen member (aliasing the set) and score.
func zsetRandom(o *Object) ([]byte, float64) {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		m, s, _ := v.At(v.Seek(rand.IntN(v.Len())))
		return m, s
	case *ds.ZSkip:
		n := v.Random()
		return n.Member(), n.Score()
	}
	return nil, 0
}

func (c *Ctx) zrandmemberWithCount(l int64, withScores bool) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.ArrayLen(0)
		return
	}
	size := int64(zsetLen(o))
	uniq := l >= 0
	count := l
	if !uniq {
		count = -l
	}
	if count == 0 {
		c.W.ArrayLen(0)
		return
	}
	emit := func(m []byte, s float64) {
		if withScores && c.W.Proto > 2 {
			c.W.ArrayLen(2)
		}
		c.W.Bulk(m)
		if withScores {
			c.replyScore(s)
		}
	}
	header := func(n int64) {
		if withScores && c.W.Proto == 2 {
			n *= 2
		}
		c.W.ArrayLen(int(n))
	}
	if !uniq || count == 1 {
		header(count)
		for range count {
			emit(zsetRandom(o))
		}
		return
	}
	header(min(count, size))
	if count >= size {
		// The whole set, highest first: Valkey iterates sorted sets from
		// the tail here.
		for z := zsetAtRank(o, int(size-1)); z.valid(); z.prev() {
			emit(z.get())
		}
		return
	}
	if p, isPack := o.Value().(*ds.ZPack); isPack {
		// Distinct members of a listpack, in listpack order.
		k, n := int(count), p.Len()
		off := p.First()
		for i := 0; i < n && k > 0; i++ {
			if rand.IntN(n-i) < k {
				m, s, _ := p.At(off)
				emit(m, s)
				k--
			}
			off = p.Next(off)
		}
		return
	}
	z := o.Value().(*ds.ZSkip)
	if count*zrandmemberSubStrategyMul > size {
		// Copy everything, drop random members, reply with the rest.
		picked := ds.New[float64](int(size))
		for it := z.IterAt(0); it.Valid(); it.Next() {
			n := it.Node()
			v, _ := picked.Upsert(n.Member())
			*v = n.Score()
		}
		for n := size; n > count; n-- {
			k, _, _ := picked.RandomKey()
			picked.DeleteString(k)
		}
		picked.Range(func(k string, s *float64) bool {
			emit(sbytes(k), *s)
			return true
		})
		return
	}
	seen := ds.New[struct{}](int(count))
	for int64(seen.Len()) < count {
		m, s := zsetRandom(o)
		if _, existed := seen.Upsert(m); !existed {
			emit(m, s)
		}
	}
}
