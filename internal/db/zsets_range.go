package db

import (
	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Range kinds and directions of zrangeGeneric, as Valkey's zrange_type and
// zrange_direction; "auto" means the options may still choose.
const (
	zrangeAuto = iota
	zrangeRank
	zrangeScore
	zrangeLex
)

const (
	dirAuto = iota
	dirForward
	dirReverse
)

// ZRANGE key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]
func zrangeCommand(c *Ctx) { c.zrangeGeneric(1, false, zrangeAuto, dirAuto) }

// ZRANGESTORE dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]
func zrangestoreCommand(c *Ctx) { c.zrangeGeneric(2, true, zrangeAuto, dirAuto) }

// ZREVRANGE key start stop [WITHSCORES]
func zrevrangeCommand(c *Ctx) { c.zrangeGeneric(1, false, zrangeRank, dirReverse) }

// ZRANGEBYSCORE key min max [WITHSCORES] [LIMIT offset count]
func zrangebyscoreCommand(c *Ctx) { c.zrangeGeneric(1, false, zrangeScore, dirForward) }

// ZREVRANGEBYSCORE key max min [WITHSCORES] [LIMIT offset count]
func zrevrangebyscoreCommand(c *Ctx) { c.zrangeGeneric(1, false, zrangeScore, dirReverse) }

// ZRANGEBYLEX key min max [LIMIT offset count]
func zrangebylexCommand(c *Ctx) { c.zrangeGeneric(1, false, zrangeLex, dirForward) }

// ZREVRANGEBYLEX key max min [LIMIT offset count]
func zrevrangebylexCommand(c *Ctx) { c.zrangeGeneric(1, false, zrangeLex, dirReverse) }

// zrangeSink receives a range: either the client's reply or, for
// ZRANGESTORE, a new sorted set (Valkey's zrange_result_handler).
type zrangeSink struct {
	c          *Ctx
	dst        []byte // ZRANGESTORE destination; nil for a reply
	res        *Object
	withScores bool
	out        *resp.Writer // c.W, or a buffer while the count is unknown
	deferred   bool
	n          int
}

// begin starts the result; n < 0 means the length is not known yet.
func (s *zrangeSink) begin(n int) {
	if s.dst != nil {
		s.res = newObject(TypeZSet, newZSetFor(s.c.cfg(), max(n, 0), 0))
		return
	}
	if n > 0 {
		s.header(n)
		s.out = s.c.W
		return
	}
	s.deferred = true
	s.out = resp.NewWriter(256)
	s.out.Proto = s.c.W.Proto
}

// header writes the array length: pairs are flattened in RESP2 and nested
// in RESP3.
func (s *zrangeSink) header(n int) {
	if s.withScores && s.c.W.Proto == 2 {
		n *= 2
	}
	s.c.W.ArrayLen(n)
}

func (s *zrangeSink) emit(m []byte, score float64) {
	s.n++
	if s.dst != nil {
		zsetAdd(s.c.cfg(), s.res, score, m, 0)
		return
	}
	if s.withScores && s.out.Proto >= 3 {
		s.out.ArrayLen(2)
	}
	s.out.Bulk(m)
	if s.withScores {
		writeScore(s.out, score)
	}
}

func (s *zrangeSink) finish() {
	c := s.c
	if s.dst != nil {
		if s.n > 0 {
			c.createZSet(s.dst, s.res.Value())
			c.Touch(s.dst)
			c.Notify(NotifyZset, "zrangestore", s.dst)
			c.W.Int(int64(s.n))
			return
		}
		c.dropStored(s.dst)
		c.W.Int(0)
		return
	}
	if s.deferred {
		s.header(s.n)
		c.W.Raw(s.out.Bytes())
	}
}

// zrangeGeneric is Valkey's zrangeGenericCommand: argStart is the index of
// the source key.
func (c *Ctx) zrangeGeneric(argStart int, store bool, rtype, dir int) {
	argv := c.Argv
	key := argv[argStart]
	minIdx, maxIdx := argStart+1, argStart+2
	withScores := false
	var offset, limit int64 = 0, -1
	for j := argStart + 3; j < len(argv); j++ {
		left := len(argv) - j - 1
		a := argv[j]
		switch {
		case !store && EqualFold(a, "WITHSCORES"):
			withScores = true
		case EqualFold(a, "LIMIT") && left >= 2:
			var ok bool
			if offset, ok = c.IntArg(j + 1); !ok {
				return
			}
			if limit, ok = c.IntArg(j + 2); !ok {
				return
			}
			j += 2
		case dir == dirAuto && EqualFold(a, "REV"):
			dir = dirReverse
		case rtype == zrangeAuto && EqualFold(a, "BYLEX"):
			rtype = zrangeLex
		case rtype == zrangeAuto && EqualFold(a, "BYSCORE"):
			rtype = zrangeScore
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if dir == dirAuto {
		dir = dirForward
	}
	if rtype == zrangeAuto {
		rtype = zrangeRank
	}
	if limit != -1 && rtype == zrangeRank {
		c.W.Error("ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX")
		return
	}
	if withScores && rtype == zrangeLex {
		c.W.Error("ERR syntax error, WITHSCORES not supported in combination with BYLEX")
		return
	}
	reverse := dir == dirReverse
	if reverse && rtype != zrangeRank {
		minIdx, maxIdx = maxIdx, minIdx
	}
	start, end, spec, ok := c.rangeArgs(rtype, minIdx, maxIdx)
	if !ok {
		return
	}
	sink := &zrangeSink{c: c, withScores: withScores || store}
	if store {
		sink.dst = argv[1]
	}
	o := c.LookupRead(key)
	if o == nil {
		if store {
			sink.begin(-1)
			sink.finish()
		} else {
			c.W.ArrayLen(0)
		}
		return
	}
	if o.Type != TypeZSet {
		c.W.Error(ErrWrongType)
		return
	}
	if rtype == zrangeRank {
		zrangeByRank(sink, o, start, end, reverse)
		return
	}
	zrangeBySpec(sink, o, spec, offset, limit, reverse)
}

// rangeArgs parses the bounds of a ZRANGE-family range from argv[minIdx]
// and argv[maxIdx]: two ranks (start, end) for zrangeRank, else a score or
// lex range (spec). Malformed bounds write Valkey's error (ok false).
func (c *Ctx) rangeArgs(rtype, minIdx, maxIdx int) (start, end int64, spec rangeSpec, ok bool) {
	switch rtype {
	case zrangeRank:
		if start, ok = c.IntArg(minIdx); !ok {
			return
		}
		end, ok = c.IntArg(maxIdx)
		return
	case zrangeScore:
		var r ds.ScoreRange
		if r, ok = parseScoreRange(c.Argv[minIdx], c.Argv[maxIdx]); !ok {
			c.W.Error(errMinMaxFloat)
			return
		}
		return 0, 0, scoreSpec{r}, true
	}
	r, ok := ds.ParseLexRange(c.Argv[minIdx], c.Argv[maxIdx])
	if !ok {
		c.W.Error(errMinMaxLex)
		return
	}
	return 0, 0, lexSpec{r}, true
}

// zrangeByRank emits ranks start..end (negative from the end).
func zrangeByRank(s *zrangeSink, o *Object, start, end int64, reverse bool) {
	llen := zsetLen(o)
	from, n := rankRange(start, end, int64(llen))
	s.begin(n)
	if n == 0 {
		s.finish()
		return
	}
	r := from
	if reverse {
		r = llen - 1 - from
	}
	z := zsetAtRank(o, r)
	for ; n > 0 && z.valid(); n-- {
		m, sc := z.get()
		s.emit(m, sc)
		z.step(reverse)
	}
	s.finish()
}

// zrangeBySpec emits the members in a score or lex range, skipping offset
// and stopping after limit (negative: no limit).
func zrangeBySpec(s *zrangeSink, o *Object, spec rangeSpec, offset, limit int64, reverse bool) {
	s.begin(-1)
	if offset > 0 && offset >= int64(zsetLen(o)) {
		s.finish()
		return
	}
	var z zpos
	var rank int
	if reverse {
		z, rank = zsetLastIn(o, spec)
	} else {
		z, rank = zsetFirstIn(o, spec)
	}
	zposSkip(o, &z, rank, offset, reverse)
	for ; z.valid() && limit != 0; limit-- {
		if reverse && !spec.gteMin(&z) || !reverse && !spec.lteMax(&z) {
			break
		}
		m, sc := z.get()
		s.emit(m, sc)
		z.step(reverse)
	}
	s.finish()
}

// ZREMRANGEBYRANK key start stop
func zremrangebyrankCommand(c *Ctx) { c.zremrangeGeneric(zrangeRank) }

// ZREMRANGEBYSCORE key min max
func zremrangebyscoreCommand(c *Ctx) { c.zremrangeGeneric(zrangeScore) }

// ZREMRANGEBYLEX key min max
func zremrangebylexCommand(c *Ctx) { c.zremrangeGeneric(zrangeLex) }

// zremrangeEvents are the events of ZREMRANGEBY*, by range type.
var zremrangeEvents = [...]string{
	zrangeRank:  "zremrangebyrank",
	zrangeScore: "zremrangebyscore",
	zrangeLex:   "zremrangebylex",
}

func (c *Ctx) zremrangeGeneric(rtype int) {
	key := c.Argv[1]
	start, end, spec, ok := c.rangeArgs(rtype, 2, 3)
	if !ok {
		return
	}
	o, ok := c.lookupWriteAs(key, TypeZSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	var deleted int
	if rtype == zrangeRank {
		from, n := rankRange(start, end, int64(zsetLen(o)))
		if n == 0 {
			c.W.Int(0)
			return
		}
		deleted = zsetDeleteRank(o, from, from+n-1)
	} else {
		deleted = zsetDeleteIn(o, spec)
	}
	if deleted > 0 {
		c.removedFrom(NotifyZset, zremrangeEvents[rtype], key, zsetLen(o) == 0)
	}
	c.touchN(key, deleted)
	c.W.Int(int64(deleted))
}

// zsetDeleteRank removes ranks start..end (valid, inclusive).
func zsetDeleteRank(o *Object, start, end int) int {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		v.DeleteRange(v.Seek(start), end-start+1)
		return end - start + 1
	case *ds.ZSkip:
		return v.DeleteRangeByRank(start, end)
	}
	return 0
}

// zsetDeleteIn removes the members in a score or lex range.
func zsetDeleteIn(o *Object, spec rangeSpec) int {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		z, _ := zsetFirstIn(o, spec)
		if !z.valid() {
			return 0
		}
		n := 0
		for e := z; e.valid() && spec.lteMax(&e); e.next() {
			n++
		}
		v.DeleteRange(z.off, n)
		return n
	case *ds.ZSkip:
		switch s := spec.(type) {
		case scoreSpec:
			return v.DeleteRangeByScore(s.r)
		case lexSpec:
			return v.DeleteRangeByLex(s.r)
		}
	}
	return 0
}
