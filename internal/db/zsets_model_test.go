package db

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// zmodel is a sorted set as a sorted slice: the reference the range
// commands are checked against.
type zmodel []zent

type zent struct {
	m string
	s float64
}

func zcmp(a, b zent) int {
	if c := cmp.Compare(a.s, b.s); c != 0 {
		return c
	}
	return cmp.Compare(a.m, b.m)
}

func (z *zmodel) set(m string, s float64) {
	*z = slices.DeleteFunc(*z, func(e zent) bool { return e.m == m })
	i, _ := slices.BinarySearchFunc(*z, zent{m, s}, zcmp)
	*z = slices.Insert(*z, i, zent{m, s})
}

func (z *zmodel) del(m string) {
	*z = slices.DeleteFunc(*z, func(e zent) bool { return e.m == m })
}

// reply builds the expected RESP2 reply for a list of entries.
func zreply(es []zent, withScores bool) string {
	var items []string
	for _, e := range es {
		items = append(items, rBulk(e.m))
		if withScores {
			items = append(items, rBulk(string(appendScore(nil, e.s))))
		}
	}
	return rArr(items...)
}

type zbound struct {
	v  float64
	ex bool
}

func (b zbound) String() string {
	s := strconv.FormatFloat(b.v, 'g', -1, 64)
	if math.IsInf(b.v, 1) {
		s = "+inf"
	} else if math.IsInf(b.v, -1) {
		s = "-inf"
	}
	if b.ex {
		return "(" + s
	}
	return s
}

func inScore(e zent, min, max zbound) bool {
	lo := e.s > min.v || (!min.ex && e.s == min.v)
	hi := e.s < max.v || (!max.ex && e.s == max.v)
	return lo && hi
}

// TestZSetModel applies random writes to a sorted set and checks every
// range read against the model, in both encodings and across the
// listpack-to-skiplist conversion.
func TestZSetModel(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		r := rand.New(rand.NewPCG(42, 43))
		var model zmodel
		scores := []float64{math.Inf(-1), -2.5, -1, 0, 0, 1, 1, 2, 3.25, 7, math.Inf(1)}
		randBound := func() zbound {
			return zbound{scores[r.IntN(len(scores))], r.IntN(3) == 0}
		}
		check := func(cmd []string, want string) {
			t.Helper()
			if got := h.do(cmd...); got != want {
				t.Fatalf("%v (model %v):\n got %q\nwant %q", cmd, model, got, want)
			}
		}
		for step := range 3000 {
			m := fmt.Sprintf("m%03d", r.IntN(300))
			switch op := r.IntN(20); {
			case op < 10:
				s := scores[r.IntN(len(scores))]
				h.do("ZADD", "z", strconv.FormatFloat(s, 'g', -1, 64), m)
				model.set(m, s)
			case op < 12:
				h.do("ZREM", "z", m)
				model.del(m)
			case op < 13 && len(model) > 0:
				lo, hi := randBound(), randBound()
				h.do("ZREMRANGEBYSCORE", "z", lo.String(), hi.String())
				model = slices.DeleteFunc(model, func(e zent) bool { return inScore(e, lo, hi) })
			case op < 14 && len(model) > 0:
				a, b := r.IntN(len(model)), r.IntN(len(model))
				h.do("ZREMRANGEBYRANK", "z", strconv.Itoa(a), strconv.Itoa(b))
				if a <= b {
					model = slices.Delete(model, a, b+1)
				}
			}
			n := len(model)
			// ZRANGE by rank, both directions, with negative indexes.
			start, stop := r.IntN(2*n+3)-n-1, r.IntN(2*n+3)-n-1
			want := func(rev bool) []zent {
				s, e := start, stop
				if s < 0 {
					s += n
				}
				if e < 0 {
					e += n
				}
				s = max(s, 0)
				if s > e || s >= n {
					return nil
				}
				e = min(e, n-1)
				src := slices.Clone(model)
				if rev {
					slices.Reverse(src)
				}
				return src[s : e+1]
			}
			check([]string{"ZRANGE", "z", strconv.Itoa(start), strconv.Itoa(stop), "WITHSCORES"}, zreply(want(false), true))
			check([]string{"ZREVRANGE", "z", strconv.Itoa(start), strconv.Itoa(stop)}, zreply(want(true), false))
			// BYSCORE with LIMIT, both directions.
			lo, hi := randBound(), randBound()
			var in []zent
			for _, e := range model {
				if inScore(e, lo, hi) {
					in = append(in, e)
				}
			}
			check([]string{"ZCOUNT", "z", lo.String(), hi.String()}, rInt(int64(len(in))))
			off, cnt := r.IntN(5)-1, r.IntN(6)-1
			pick := func(es []zent) []zent {
				if off < 0 || (off > 0 && off >= n) {
					return nil
				}
				es = es[min(off, len(es)):]
				if cnt >= 0 && cnt < len(es) {
					es = es[:cnt]
				}
				return es
			}
			check([]string{"ZRANGEBYSCORE", "z", lo.String(), hi.String(), "WITHSCORES", "LIMIT", strconv.Itoa(off), strconv.Itoa(cnt)}, zreply(pick(in), true))
			rin := slices.Clone(in)
			slices.Reverse(rin)
			check([]string{"ZRANGE", "z", hi.String(), lo.String(), "BYSCORE", "REV", "LIMIT", strconv.Itoa(off), strconv.Itoa(cnt)}, zreply(pick(rin), false))
			// Ranks.
			if i := slices.IndexFunc(model, func(e zent) bool { return e.m == m }); i >= 0 {
				check([]string{"ZRANK", "z", m}, rInt(int64(i)))
				check([]string{"ZREVRANK", "z", m}, rInt(int64(n-1-i)))
			} else {
				check([]string{"ZRANK", "z", m}, rNull)
			}
			check([]string{"ZCARD", "z"}, rInt(int64(n)))
			if step%500 == 499 {
				h.do("DEL", "z")
				model = nil
			}
		}
	})
}

// TestZSetLexModel checks BYLEX ranges on a set whose scores are all 0.
func TestZSetLexModel(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		r := rand.New(rand.NewPCG(5, 6))
		var model zmodel
		randBound := func() (string, string, bool) {
			switch r.IntN(8) {
			case 0:
				return "-", "", false
			case 1:
				return "+", "", false
			}
			v := fmt.Sprintf("%c", 'a'+r.IntN(12))
			if r.IntN(2) == 0 {
				v += fmt.Sprintf("%c", 'a'+r.IntN(12))
			}
			if r.IntN(2) == 0 {
				return "(" + v, v, true
			}
			return "[" + v, v, false
		}
		gte := func(m, arg, v string, ex bool) bool {
			switch arg {
			case "-":
				return true
			case "+":
				return false
			}
			return m > v || (!ex && m == v)
		}
		lte := func(m, arg, v string, ex bool) bool {
			switch arg {
			case "-":
				return false
			case "+":
				return true
			}
			return m < v || (!ex && m == v)
		}
		for range 2000 {
			m := fmt.Sprintf("%c%c", 'a'+r.IntN(12), 'a'+r.IntN(12))
			if r.IntN(3) > 0 {
				h.do("ZADD", "z", "0", m)
				model.set(m, 0)
			} else {
				h.do("ZREM", "z", m)
				model.del(m)
			}
			minArg, minV, minEx := randBound()
			maxArg, maxV, maxEx := randBound()
			var in []zent
			for _, e := range model {
				if gte(e.m, minArg, minV, minEx) && lte(e.m, maxArg, maxV, maxEx) {
					in = append(in, e)
				}
			}
			if got := h.do("ZLEXCOUNT", "z", minArg, maxArg); got != rInt(int64(len(in))) {
				t.Fatalf("ZLEXCOUNT %s %s: %q, want %d", minArg, maxArg, got, len(in))
			}
			if got, want := h.do("ZRANGEBYLEX", "z", minArg, maxArg), zreply(in, false); got != want {
				t.Fatalf("ZRANGEBYLEX %s %s:\n got %q\nwant %q", minArg, maxArg, got, want)
			}
			rin := slices.Clone(in)
			slices.Reverse(rin)
			if len(rin) > 1 {
				rin = rin[1:]
			} else {
				rin = nil
			}
			if got, want := h.do("ZREVRANGEBYLEX", "z", maxArg, minArg, "LIMIT", "1", "-1"), zreply(rin, false); got != want {
				t.Fatalf("ZREVRANGEBYLEX %s %s LIMIT 1 -1:\n got %q\nwant %q", maxArg, minArg, got, want)
			}
		}
	})
}
