package db

import (
	"math"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
)

// A sorted set's Object.Value() is one of Valkey's two encodings:
//
//   - *ds.ZPack ("listpack"): at most zset-max-listpack-entries members of
//     at most zset-max-listpack-value bytes, in (score, member) order;
//   - *ds.ZSkip ("skiplist"): a hash table of skiplist nodes with spans,
//     each member one allocation (ds/zskip.go).
//
// A listpack converts to a skiplist when an add would cross a limit (or a
// command announces more members than fit, zsetMaybeConvert). The reverse
// only happens for freshly built results (zsetMaybeToPack), as in Valkey.

// ZADD flags in (zaddNX...) and out (zaddAdded...), as Valkey's ZADD_IN_*
// and ZADD_OUT_*.
const (
	zaddIncr = 1 << iota
	zaddNX
	zaddXX
	zaddGT
	zaddLT
)

const (
	zaddNaN = 1 << iota
	zaddAdded
	zaddUpdated
	zaddNop
)

// newZSetFor is zsetTypeCreate: a listpack if sizeHint members of at most
// maxLen bytes fit one under s's limits, else a skiplist sized for
// sizeHint.
func newZSetFor(s *settings, sizeHint, maxLen int) any {
	if s.zsetFits(sizeHint, maxLen) {
		return &ds.ZPack{}
	}
	return ds.NewZSkip(sizeHint)
}

// zsetFits reports whether n members of at most maxLen bytes fit a
// listpack (zset-max-listpack-entries, zset-max-listpack-value).
func (s *settings) zsetFits(n, maxLen int) bool {
	return int64(n) <= s.zsetEntries.Load() && int64(maxLen) <= s.zsetValue.Load()
}

// zsetMaybeConvert is zsetTypeMaybeConvert.
func zsetMaybeConvert(s *settings, o *Object, sizeHint, maxLen int) {
	if _, ok := o.Value().(*ds.ZPack); ok && !s.zsetFits(sizeHint, maxLen) {
		zsetToSkiplist(o, sizeHint)
	}
}

// zsetLen returns the number of members.
func zsetLen(o *Object) int {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		return v.Len()
	case *ds.ZSkip:
		return v.Len()
	}
	return 0
}

// zsetEncoding names the encoding for OBJECT ENCODING.
func zsetEncoding(o *Object) string {
	switch o.Value().(type) {
	case *ds.ZPack:
		return "listpack"
	case *ds.ZSkip:
		return "skiplist"
	}
	return ""
}

// packScore is the score a listpack keeps: Valkey stores integral scores
// as integers there, which turns -0 into 0.
func packScore(f float64) float64 {
	if f == 0 {
		return 0
	}
	return f
}

// zsetToSkiplist converts a listpack to a skiplist sized for capHint.
func zsetToSkiplist(o *Object, capHint int) *ds.ZSkip {
	p := o.Value().(*ds.ZPack)
	z := ds.NewZSkip(max(capHint, p.Len()))
	for off := p.First(); off >= 0; off = p.Next(off) {
		m, s, _ := p.At(off)
		z.Add(m, s)
	}
	o.SetValue(z)
	return z
}

// zsetMaybeToPack is zsetConvertToListpackIfNeeded for a freshly built
// result: back to a listpack if it is small enough.
func zsetMaybeToPack(s *settings, o *Object, maxLen int) {
	z, ok := o.Value().(*ds.ZSkip)
	if !ok || !s.zsetFits(z.Len(), maxLen) {
		return
	}
	p := &ds.ZPack{}
	for it := z.IterAt(0); it.Valid(); it.Next() {
		n := it.Node()
		p.Append(n.Member(), packScore(n.Score()))
	}
	o.SetValue(p)
}

// zsetScore returns member's score.
func zsetScore(o *Object, member []byte) (float64, bool) {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		off, s := v.Find(member)
		return s, off >= 0
	case *ds.ZSkip:
		return v.Score(member)
	}
	return 0, false
}

// zsetAdd is Valkey's zsetAdd: it adds or updates member under the flags
// and returns what happened and the resulting score.
func zsetAdd(s *settings, o *Object, score float64, member []byte, in int) (out int, newScore float64) {
	if math.IsNaN(score) {
		return zaddNaN, 0
	}
	incr, nx, xx := in&zaddIncr != 0, in&zaddNX != 0, in&zaddXX != 0
	gt, lt := in&zaddGT != 0, in&zaddLT != 0
	if p, ok := o.Value().(*ds.ZPack); ok {
		off, cur := p.Find(member)
		switch {
		case off >= 0:
			if nx {
				return zaddNop, 0
			}
			if incr {
				score += cur
				if math.IsNaN(score) {
					return zaddNaN, 0
				}
			}
			if (lt && score >= cur) || (gt && score <= cur) {
				return zaddNop, 0
			}
			if score != cur {
				p.Delete(off)
				p.Insert(member, packScore(score))
				return zaddUpdated, score
			}
			return 0, score
		case xx:
			return zaddNop, 0
		case !s.zsetFits(p.Len()+1, len(member)):
			zsetToSkiplist(o, p.Len()+1)
		default:
			p.Insert(member, packScore(score))
			return zaddAdded, score
		}
	}
	z := o.Value().(*ds.ZSkip)
	if in == 0 {
		// Plain ZADD: one lookup.
		if added, old := z.Add(member, score); added {
			return zaddAdded, score
		} else if old != score {
			return zaddUpdated, score
		}
		return 0, score
	}
	cur, exists := z.Score(member)
	switch {
	case exists:
		if nx {
			return zaddNop, 0
		}
		if incr {
			score += cur
			if math.IsNaN(score) {
				return zaddNaN, 0
			}
		}
		if (lt && score >= cur) || (gt && score <= cur) {
			return zaddNop, 0
		}
		if score != cur {
			z.Add(member, score)
			return zaddUpdated, score
		}
		return 0, score
	case xx:
		return zaddNop, 0
	}
	z.Add(member, score)
	return zaddAdded, score
}

// zsetDel removes member.
func zsetDel(o *Object, member []byte) bool {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		if off, _ := v.Find(member); off >= 0 {
			v.Delete(off)
			return true
		}
	case *ds.ZSkip:
		return v.Remove(member)
	}
	return false
}

// zsetRank returns member's 0-based rank (from the highest when reverse).
func zsetRank(o *Object, member []byte, reverse bool) (int, float64, bool) {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		r, s, ok := v.Rank(member)
		if ok && reverse {
			r = v.Len() - 1 - r
		}
		return r, s, ok
	case *ds.ZSkip:
		return v.Rank(member, reverse)
	}
	return 0, 0, false
}

// zsetCopy duplicates a sorted set in the same encoding (COPY).
func zsetCopy(o *Object) any {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		return v.Clone()
	case *ds.ZSkip:
		return v.Clone()
	}
	return nil
}

// zpos is a position in a sorted set of either encoding, for range walks.
type zpos struct {
	p   *ds.ZPack
	off int // listpack offset, -1 when past either end
	it  ds.ZIter
}

func (z *zpos) valid() bool {
	if z.p != nil {
		return z.off >= 0
	}
	return z.it.Valid()
}

// get returns the member (aliasing the set) and score.
func (z *zpos) get() ([]byte, float64) {
	if z.p != nil {
		m, s, _ := z.p.At(z.off)
		return m, s
	}
	n := z.it.Node()
	return n.Member(), n.Score()
}

func (z *zpos) score() float64 {
	if z.p != nil {
		_, s, _ := z.p.At(z.off)
		return s
	}
	return z.it.Node().Score()
}

func (z *zpos) member() string {
	if z.p != nil {
		m, _, _ := z.p.At(z.off)
		return ustr(m)
	}
	return z.it.Node().MemberString()
}

func (z *zpos) next() {
	if z.p != nil {
		z.off = z.p.Next(z.off)
	} else {
		z.it.Next()
	}
}

func (z *zpos) prev() {
	if z.p != nil {
		z.off = z.p.Prev(z.off)
	} else {
		z.it.Prev()
	}
}

// step moves forward, or backward when reverse.
func (z *zpos) step(reverse bool) {
	if reverse {
		z.prev()
	} else {
		z.next()
	}
}

// zsetAtRank returns the position of 0-based ascending rank r, which must
// be in range.
func zsetAtRank(o *Object, r int) zpos {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		return zpos{p: v, off: v.Seek(r)}
	case *ds.ZSkip:
		return zpos{it: v.IterAt(r), off: -1}
	}
	return zpos{off: -1}
}

// rangeSpec is a score or lex range as the walks below need it.
type rangeSpec interface {
	empty() bool // no member can be in it (min above max)
	gteMin(z *zpos) bool
	lteMax(z *zpos) bool
}

type scoreSpec struct{ r ds.ScoreRange }

func (s scoreSpec) empty() bool         { return s.r.Empty() }
func (s scoreSpec) gteMin(z *zpos) bool { return s.r.GteMin(z.score()) }
func (s scoreSpec) lteMax(z *zpos) bool { return s.r.LteMax(z.score()) }

type lexSpec struct{ r ds.LexRange }

func (s lexSpec) empty() bool         { return s.r.Empty() }
func (s lexSpec) gteMin(z *zpos) bool { return s.r.GteMin(z.member()) }
func (s lexSpec) lteMax(z *zpos) bool { return s.r.LteMax(z.member()) }

// packInRange is Valkey's zzlIsInRange / zzlIsInLexRange, the early
// return of every listpack range walk: nothing is in range unless the
// range is non-empty, the last entry is >= min and the first <= max. For
// scores this only saves the walk; for members of a set whose scores
// differ (where lex order is not the list's order) it decides the reply,
// and Valkey's replies are what clients see.
func packInRange(p *ds.ZPack, spec rangeSpec) bool {
	if spec.empty() || p.Len() == 0 {
		return false
	}
	last, first := zpos{p: p, off: p.Last()}, zpos{p: p, off: p.First()}
	return spec.gteMin(&last) && spec.lteMax(&first)
}

// zsetFirstIn returns the lowest position in the range (or an invalid one)
// and, for a skiplist, its rank (-1 for a listpack). The skiplist uses its
// O(log n) search; a listpack is walked.
func zsetFirstIn(o *Object, spec rangeSpec) (zpos, int) {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		if !packInRange(v, spec) {
			return zpos{off: -1}, -1
		}
		z := zpos{p: v, off: v.First()}
		for ; z.valid(); z.next() {
			if spec.gteMin(&z) {
				if !spec.lteMax(&z) {
					z.off = -1
				}
				break
			}
		}
		return z, -1
	case *ds.ZSkip:
		var it ds.ZIter
		var rank int
		switch s := spec.(type) {
		case scoreSpec:
			it, rank = v.FirstInScoreRange(s.r)
		case lexSpec:
			it, rank = v.FirstInLexRange(s.r)
		}
		return zpos{it: it, off: -1}, rank
	}
	return zpos{off: -1}, -1
}

// zsetLastIn returns the highest position in the range and its rank.
func zsetLastIn(o *Object, spec rangeSpec) (zpos, int) {
	switch v := o.Value().(type) {
	case *ds.ZPack:
		if !packInRange(v, spec) {
			return zpos{off: -1}, -1
		}
		z := zpos{p: v, off: v.Last()}
		for ; z.valid(); z.prev() {
			if spec.lteMax(&z) {
				if !spec.gteMin(&z) {
					z.off = -1
				}
				break
			}
		}
		return z, -1
	case *ds.ZSkip:
		var it ds.ZIter
		var rank int
		switch s := spec.(type) {
		case scoreSpec:
			it, rank = v.LastInScoreRange(s.r)
		case lexSpec:
			it, rank = v.LastInLexRange(s.r)
		}
		return zpos{it: it, off: -1}, rank
	}
	return zpos{off: -1}, -1
}

// zposSkip moves z by offset places (backwards when reverse) without
// checking the range, as Valkey's offset loop does. rank is z's rank for a
// skiplist, which then jumps in O(log n); a listpack walks. A negative
// offset walks off the end, as Valkey's "while (ln && offset--)" does.
func zposSkip(o *Object, z *zpos, rank int, offset int64, reverse bool) {
	if offset == 0 || !z.valid() {
		return
	}
	if offset < 0 {
		z.off, z.it = -1, ds.ZIter{}
		return
	}
	if zs, ok := o.Value().(*ds.ZSkip); ok && rank >= 0 {
		r := int64(rank) + offset
		if reverse {
			r = int64(rank) - offset
		}
		if r < 0 || r >= int64(zs.Len()) {
			z.it = ds.ZIter{} // off the end for good: steps stay there
			return
		}
		z.it = zs.IterAt(int(r))
		return
	}
	for ; offset > 0 && z.valid(); offset-- {
		z.step(reverse)
	}
}

// zsetCountIn counts the members in the range.
func zsetCountIn(o *Object, spec rangeSpec) int {
	if v, ok := o.Value().(*ds.ZSkip); ok {
		switch s := spec.(type) {
		case scoreSpec:
			return v.CountInScoreRange(s.r)
		case lexSpec:
			return v.CountInLexRange(s.r)
		}
	}
	n := 0
	for z, _ := zsetFirstIn(o, spec); z.valid() && spec.lteMax(&z); z.next() {
		n++
	}
	return n
}

// ustr views bytes as a string for read-only use during a call.
func ustr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }
