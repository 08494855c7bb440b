package db

import (
	"math"
	"slices"
	"strings"

	"github.com/corvid-kv/corvid/internal/ds"
)

// ZUNION/ZINTER/ZDIFF, their STORE forms and ZINTERCARD: Valkey's
// zunionInterDiffGenericCommand. Inputs may be sorted sets or sets (whose
// members score 1). The result is built in a skiplist and, when stored,
// converted to a listpack if it is small enough.

const (
	opUnion = iota
	opInter
	opDiff
)

// zsetStoreEvents are the events of Z*STORE, by operation.
var zsetStoreEvents = [...]string{
	opUnion: "zunionstore",
	opInter: "zinterstore",
	opDiff:  "zdiffstore",
}

const (
	aggrSum = iota
	aggrMin
	aggrMax
)

// ZUNION numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
func zunionCommand(c *Ctx) { c.zsetOpGeneric(nil, 1, opUnion, false) }

// ZINTER numkeys key [key ...] [WEIGHTS weight ...] [AGGREGATE SUM|MIN|MAX] [WITHSCORES]
func zinterCommand(c *Ctx) { c.zsetOpGeneric(nil, 1, opInter, false) }

// ZDIFF numkeys key [key ...] [WITHSCORES]
func zdiffCommand(c *Ctx) { c.zsetOpGeneric(nil, 1, opDiff, false) }

// ZUNIONSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...]
func zunionstoreCommand(c *Ctx) { c.zsetOpGeneric(c.Argv[1], 2, opUnion, false) }

// ZINTERSTORE destination numkeys key [key ...] [WEIGHTS ...] [AGGREGATE ...]
func zinterstoreCommand(c *Ctx) { c.zsetOpGeneric(c.Argv[1], 2, opInter, false) }

// ZDIFFSTORE destination numkeys key [key ...]
func zdiffstoreCommand(c *Ctx) { c.zsetOpGeneric(c.Argv[1], 2, opDiff, false) }

// ZINTERCARD numkeys key [key ...] [LIMIT limit]
func zintercardCommand(c *Ctx) { c.zsetOpGeneric(nil, 1, opInter, true) }

// zsrc is one input: a sorted set, a set or nil (missing key).
type zsrc struct {
	o      *Object
	weight float64
}

func (s *zsrc) len() int {
	switch {
	case s.o == nil:
		return 0
	case s.o.Type == TypeSet:
		return setLen(s.o)
	}
	return zsetLen(s.o)
}

// each calls fn for every member, sorted sets from the highest score down
// (Valkey's zuiNext order), sets in their own order with score 1. fn must
// not keep the slice.
func (s *zsrc) each(fn func(m []byte, score float64) bool) {
	switch {
	case s.o == nil:
	case s.o.Type == TypeSet:
		setRange(s.o, func(m []byte) bool { return fn(m, 1) })
	default:
		n := zsetLen(s.o)
		if n == 0 {
			return
		}
		for z := zsetAtRank(s.o, n-1); z.valid(); z.prev() {
			if !fn(z.get()) {
				return
			}
		}
	}
}

// find returns member's score in the input (1 for a set member).
func (s *zsrc) find(m []byte) (float64, bool) {
	switch {
	case s.o == nil:
		return 0, false
	case s.o.Type == TypeSet:
		return 1, setHas(s.o, m)
	}
	return zsetScore(s.o, m)
}

// aggregate is zunionInterAggregate.
func aggregate(target *float64, val float64, how int) {
	switch how {
	case aggrSum:
		*target += val
		// inf + -inf: the convention is 0.
		if math.IsNaN(*target) {
			*target = 0
		}
	case aggrMin:
		if val < *target {
			*target = val
		}
	case aggrMax:
		if val > *target {
			*target = val
		}
	}
}

func (c *Ctx) zsetOpGeneric(dst []byte, numkeysIdx int, op int, cardOnly bool) {
	argv := c.Argv
	setnum, ok := c.IntArg(numkeysIdx)
	if !ok {
		return
	}
	if setnum < 1 {
		c.W.Error("ERR at least 1 input key is needed for '" + strings.ToLower(string(argv[0])) + "' command")
		return
	}
	if setnum > int64(len(argv)-(numkeysIdx+1)) {
		c.W.Error(ErrSyntax)
		return
	}
	src := make([]zsrc, setnum)
	j := numkeysIdx + 1
	for i := range src {
		o := c.LookupRead(argv[j])
		if o != nil && o.Type != TypeZSet && o.Type != TypeSet {
			c.W.Error(ErrWrongType)
			return
		}
		src[i] = zsrc{o: o, weight: 1}
		j++
	}
	how := aggrSum
	withScores := false
	var limit int64
	for remaining := len(argv) - j; remaining > 0; remaining = len(argv) - j {
		a := argv[j]
		switch {
		case op != opDiff && !cardOnly && remaining >= int(setnum)+1 && EqualFold(a, "WEIGHTS"):
			j++
			for i := range src {
				w, ok := c.doubleArg(j, "ERR weight value is not a float")
				if !ok {
					return
				}
				src[i].weight = w
				j++
			}
		case op != opDiff && !cardOnly && remaining >= 2 && EqualFold(a, "AGGREGATE"):
			switch b := argv[j+1]; {
			case EqualFold(b, "SUM"):
				how = aggrSum
			case EqualFold(b, "MIN"):
				how = aggrMin
			case EqualFold(b, "MAX"):
				how = aggrMax
			default:
				c.W.Error(ErrSyntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && EqualFold(a, "WITHSCORES"):
			withScores = true
			j++
		case cardOnly && remaining >= 2 && EqualFold(a, "LIMIT"):
			if limit, ok = c.positiveArg(j+1, "ERR LIMIT can't be negative"); !ok {
				return
			}
			j += 2
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if op != opDiff {
		// Smallest first (a stable sort, like glibc's qsort).
		slices.SortStableFunc(src, func(a, b zsrc) int { return a.len() - b.len() })
	}

	var res *ds.ZSkip
	if !cardOnly {
		res = ds.NewZSkip(0)
	}
	var card int64
	switch op {
	case opInter:
		if src[0].len() == 0 {
			break
		}
		src[0].each(func(m []byte, s0 float64) bool {
			score := src[0].weight * s0
			if math.IsNaN(score) {
				score = 0
			}
			for i := 1; i < len(src); i++ {
				if src[i].o == src[0].o {
					aggregate(&score, s0*src[i].weight, how)
					continue
				}
				v, ok := src[i].find(m)
				if !ok {
					return true
				}
				aggregate(&score, v*src[i].weight, how)
			}
			if cardOnly {
				card++
				return limit == 0 || card < limit
			}
			res.Add(m, score)
			return true
		})
	case opUnion:
		for i := range src {
			src[i].each(func(m []byte, s float64) bool {
				score := src[i].weight * s
				if math.IsNaN(score) {
					score = 0
				}
				if cur, ok := res.Score(m); ok {
					old := cur
					aggregate(&cur, score, how)
					if cur == old && math.Signbit(cur) != math.Signbit(old) {
						// -0 and 0: Add keeps an equal score (ZADD's
						// rule), but Valkey's accumulator holds the
						// sum's own bits (-0 + 0 is 0).
						res.Remove(m)
					}
					res.Add(m, cur)
				} else {
					res.Add(m, score)
				}
				return true
			})
		}
	case opDiff:
		zdiffInto(res, src)
	}

	switch {
	case cardOnly:
		c.W.Int(card)
	case dst != nil:
		if res.Len() == 0 {
			c.dropStored(dst)
			c.W.Int(0)
			return
		}
		o := newObject(TypeZSet, res)
		maxLen := 0
		for it := res.IterAt(0); it.Valid(); it.Next() {
			n := it.Node()
			maxLen = max(maxLen, len(n.Member()))
		}
		zsetMaybeToPack(c.cfg(), o, maxLen)
		c.createZSet(dst, o.Value())
		c.Touch(dst)
		c.Notify(NotifyZset, zsetStoreEvents[op], dst)
		c.W.Int(int64(res.Len()))
	default:
		n := res.Len()
		if withScores && c.W.Proto == 2 {
			c.W.ArrayLen(2 * n)
		} else {
			c.W.ArrayLen(n)
		}
		for it := res.IterAt(0); it.Valid(); it.Next() {
			e := it.Node()
			if withScores && c.W.Proto > 2 {
				c.W.ArrayLen(2)
			}
			c.W.Bulk(e.Member())
			if withScores {
				c.replyScore(e.Score())
			}
		}
	}
}

// zdiffInto puts src[0] minus the other inputs into res. Both of Valkey's
// algorithms give the same members and scores, so one is enough here.
func zdiffInto(res *ds.ZSkip, src []zsrc) {
	if src[0].len() == 0 {
		return
	}
	for i := 1; i < len(src); i++ {
		if src[i].o == src[0].o {
			return // a set minus itself
		}
	}
	src[0].each(func(m []byte, s float64) bool {
		for i := 1; i < len(src); i++ {
			if _, ok := src[i].find(m); ok {
				return true
			}
		}
		res.Add(m, s)
		return true
	})
}
