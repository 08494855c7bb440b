package ds_test

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

type pair struct {
	member string
	score  float64
}

func sortedPairs(m map[string]float64) []pair {
	ps := make([]pair, 0, len(m))
	for k, v := range m {
		ps = append(ps, pair{k, v})
	}
	slices.SortFunc(ps, func(a, b pair) int {
		if c := cmp.Compare(a.score, b.score); c != 0 {
			return c
		}
		return cmp.Compare(a.member, b.member)
	})
	return ps
}

// scores are drawn from a small set so that ties (ordered by member) are
// common, and include infinities and signed zero.
var testScores = []float64{math.Inf(-1), -2.5, -1, 0, math.Copysign(0, -1), 1, 1, 2, 3.75, 1e300, math.Inf(1)}

func randomScoreRange(r *rand.Rand) ds.ScoreRange {
	return ds.ScoreRange{
		Min:   testScores[r.IntN(len(testScores))],
		Max:   testScores[r.IntN(len(testScores))],
		MinEx: r.IntN(2) == 0,
		MaxEx: r.IntN(2) == 0,
	}
}

func randomLexBound(r *rand.Rand) ds.LexBound {
	switch r.IntN(6) {
	case 0:
		return ds.LexBound{Inf: -1, Ex: true}
	case 1:
		return ds.LexBound{Inf: 1, Ex: true}
	}
	return ds.LexBound{Value: "m" + strconv.Itoa(r.IntN(60)), Ex: r.IntN(2) == 0}
}

// TestZSetModel runs seeded random operations against a ZSet and a map,
// checking order, ranks and every range query against the sorted model.
func TestZSetModel(t *testing.T) {
	for seed := range uint64(10) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 5))
			z := ds.NewZSet(0)
			model := map[string]float64{}
			for op := range 4000 {
				m := "m" + strconv.Itoa(r.IntN(60))
				switch x := r.IntN(100); {
				case x < 45:
					s := testScores[r.IntN(len(testScores))]
					old, had := model[m]
					added, prev := z.Add([]byte(m), s)
					if added == had || (had && prev != old) {
						t.Fatalf("op %d Add(%q) = %v,%v; model had=%v old=%v", op, m, added, prev, had, old)
					}
					model[m] = s
				case x < 60:
					_, had := model[m]
					if z.Remove([]byte(m)) != had {
						t.Fatalf("op %d Remove(%q)", op, m)
					}
					delete(model, m)
				case x < 75:
					checkRanges(t, z.List(), sortedPairs(model), r)
				case x < 80:
					rg := randomScoreRange(r)
					want := filterPairs(sortedPairs(model), func(p pair) bool { return rg.Contains(p.score) })
					var got []pair
					n := z.DeleteRangeByScore(rg, func(m string, s float64) { got = append(got, pair{m, s}) })
					if n != len(want) || !slices.Equal(got, want) {
						t.Fatalf("op %d DeleteRangeByScore(%+v) = %v, want %v", op, rg, got, want)
					}
					for _, p := range got {
						delete(model, p.member)
					}
				case x < 84:
					ps := sortedPairs(model)
					start, end := r.IntN(len(ps)+3)-1, r.IntN(len(ps)+3)-1
					var want []pair
					if lo, hi := max(start, 0), min(end, len(ps)-1); lo <= hi {
						want = ps[lo : hi+1]
					}
					var got []pair
					n := z.DeleteRangeByRank(start, end, func(m string, s float64) { got = append(got, pair{m, s}) })
					if n != len(want) || !slices.Equal(got, want) {
						t.Fatalf("op %d DeleteRangeByRank(%d,%d) = %v, want %v", op, start, end, got, want)
					}
					for _, p := range got {
						delete(model, p.member)
					}
				default:
					rank, score, ok := z.Rank([]byte(m), r.IntN(2) == 0)
					ps := sortedPairs(model)
					i := slices.IndexFunc(ps, func(p pair) bool { return p.member == m })
					if ok != (i >= 0) {
						t.Fatalf("op %d Rank(%q) ok=%v", op, m, ok)
					}
					if ok && score != ps[i].score {
						t.Fatalf("op %d Rank(%q) score %v", op, m, score)
					}
					if ok && rank != i && rank != len(ps)-1-i {
						t.Fatalf("op %d Rank(%q) = %d, index %d", op, m, rank, i)
					}
				}
				if op%100 == 0 {
					if err := z.Consistent(); err != nil {
						t.Fatalf("op %d: %v", op, err)
					}
					if z.Len() != len(model) {
						t.Fatalf("op %d: Len %d, model %d", op, z.Len(), len(model))
					}
				}
			}
		})
	}
}

func filterPairs(ps []pair, keep func(pair) bool) []pair {
	var out []pair
	for _, p := range ps {
		if keep(p) {
			out = append(out, p)
		}
	}
	return out
}

// checkRanges compares order, ByRank, Rank and score range queries of sl
// with the sorted model ps.
func checkRanges(t *testing.T, sl *ds.Skiplist, ps []pair, r *rand.Rand) {
	t.Helper()
	var got []pair
	for n := sl.First(); n != nil; n = n.Next() {
		got = append(got, pair{n.Member(), n.Score()})
	}
	if !slices.Equal(got, ps) {
		t.Fatalf("order %v, want %v", got, ps)
	}
	var back []pair
	for n := sl.Last(); n != nil; n = n.Prev() {
		back = append(back, pair{n.Member(), n.Score()})
	}
	slices.Reverse(back)
	if !slices.Equal(back, ps) {
		t.Fatal("backward links disagree")
	}
	for i, p := range ps {
		if n := sl.ByRank(i); n == nil || n.Member() != p.member {
			t.Fatalf("ByRank(%d) = %v, want %q", i, n, p.member)
		}
		if rk, ok := sl.Rank(p.score, p.member); !ok || rk != i {
			t.Fatalf("Rank(%q) = %d,%v want %d", p.member, rk, ok, i)
		}
	}
	if sl.ByRank(-1) != nil || sl.ByRank(len(ps)) != nil {
		t.Fatal("ByRank out of range returned a node")
	}
	if _, ok := sl.Rank(0.5, "absent"); ok {
		t.Fatal("Rank of absent element")
	}
	for range 20 {
		rg := randomScoreRange(r)
		first, last := -1, -1
		for i, p := range ps {
			if rg.Contains(p.score) {
				if first < 0 {
					first = i
				}
				last = i
			}
		}
		n, rank := sl.FirstInScoreRange(rg)
		if (n == nil) != (first < 0) || rank != first || (n != nil && n.Member() != ps[first].member) {
			t.Fatalf("FirstInScoreRange(%+v) = %v,%d want %d", rg, n, rank, first)
		}
		n, rank = sl.LastInScoreRange(rg)
		if (n == nil) != (last < 0) || rank != last || (n != nil && n.Member() != ps[last].member) {
			t.Fatalf("LastInScoreRange(%+v) = %v,%d want %d", rg, n, rank, last)
		}
		want := 0
		if first >= 0 {
			want = last - first + 1
		}
		var fwd, rev []pair
		for n := range sl.RangeByScore(rg, false) {
			fwd = append(fwd, pair{n.Member(), n.Score()})
		}
		for n := range sl.RangeByScore(rg, true) {
			rev = append(rev, pair{n.Member(), n.Score()})
		}
		slices.Reverse(rev)
		if len(fwd) != want || !slices.Equal(fwd, rev) || (want > 0 && !slices.Equal(fwd, ps[first:last+1])) {
			t.Fatalf("RangeByScore(%+v) = %v / %v", rg, fwd, rev)
		}
		if c := sl.CountInScoreRange(rg); c != want {
			t.Fatalf("CountInScoreRange(%+v) = %d want %d", rg, c, want)
		}
	}
}

// TestSkiplistLex checks lex ranges on a list where every score is equal,
// the only case ZRANGEBYLEX defines.
func TestSkiplistLex(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for round := range 300 {
		sl := ds.NewSkiplist()
		members := map[string]bool{}
		for range r.IntN(40) {
			m := "m" + strconv.Itoa(r.IntN(60))
			if !members[m] {
				members[m] = true
				sl.Insert(0, m)
			}
		}
		sorted := slices.Sorted(func(yield func(string) bool) {
			for m := range members {
				if !yield(m) {
					return
				}
			}
		})
		rg := ds.LexRange{Min: randomLexBound(r), Max: randomLexBound(r)}
		var in []string
		for _, m := range sorted {
			if rg.Contains(m) {
				in = append(in, m)
			}
		}
		n, rank := sl.FirstInLexRange(rg)
		if len(in) == 0 {
			if n != nil || rank != -1 || sl.CountInLexRange(rg) != 0 {
				t.Fatalf("round %d: %+v empty, got %v", round, rg, n)
			}
		} else {
			if n == nil || n.Member() != in[0] || rank != slices.Index(sorted, in[0]) {
				t.Fatalf("round %d: FirstInLexRange(%+v) = %v", round, rg, n)
			}
			if n, _ := sl.LastInLexRange(rg); n == nil || n.Member() != in[len(in)-1] {
				t.Fatalf("round %d: LastInLexRange(%+v) = %v", round, rg, n)
			}
			if c := sl.CountInLexRange(rg); c != len(in) {
				t.Fatalf("round %d: CountInLexRange = %d want %d", round, c, len(in))
			}
		}
		var fwd, rev []string
		for n := range sl.RangeByLex(rg, false) {
			fwd = append(fwd, n.Member())
		}
		for n := range sl.RangeByLex(rg, true) {
			rev = append(rev, n.Member())
		}
		slices.Reverse(rev)
		if !slices.Equal(fwd, in) || !slices.Equal(rev, in) {
			t.Fatalf("round %d: RangeByLex(%+v) = %v / %v, want %v", round, rg, fwd, rev, in)
		}
		var removed []string
		sl.DeleteRangeByLex(rg, func(m string, _ float64) { removed = append(removed, m) })
		if !slices.Equal(removed, in) {
			t.Fatalf("round %d: DeleteRangeByLex(%+v) = %v want %v", round, rg, removed, in)
		}
		if err := sl.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestParseLexRange(t *testing.T) {
	tests := []struct {
		min, max string
		ok       bool
		empty    bool
	}{
		{"-", "+", true, false},
		{"+", "-", true, true},
		{"-", "-", true, true},
		{"+", "+", true, true},
		{"[a", "[a", true, false},
		{"(a", "[a", true, true},
		{"[a", "(a", true, true},
		{"[b", "[a", true, true},
		{"[", "+", true, false}, // empty member, inclusive
		{"(", "(", true, true},
		{"a", "+", false, false},
		{"", "+", false, false},
		{"-x", "+", false, false},
		{"-", "+\x00junk", true, false}, // C string compare stops at NUL
		{"[a", "++", false, false},
	}
	for _, tc := range tests {
		r, ok := ds.ParseLexRange([]byte(tc.min), []byte(tc.max))
		if ok != tc.ok || (ok && r.Empty() != tc.empty) {
			t.Errorf("ParseLexRange(%q, %q) = %+v,%v; want ok=%v empty=%v", tc.min, tc.max, r, ok, tc.ok, tc.empty)
		}
	}
}

func TestSkiplistUpdateScore(t *testing.T) {
	sl := ds.NewSkiplist()
	for i := range 100 {
		sl.Insert(float64(i), "m"+strconv.Itoa(i))
	}
	// In place: stays between neighbours.
	n := sl.UpdateScore("m50", 50, 50.5)
	if n.Score() != 50.5 || n.Prev().Member() != "m49" {
		t.Fatal("in-place update")
	}
	// Move to the front and to the back.
	sl.UpdateScore("m50", 50.5, -1)
	sl.UpdateScore("m10", 10, 1000)
	if sl.First().Member() != "m50" || sl.Last().Member() != "m10" {
		t.Fatalf("moved: first %q last %q", sl.First().Member(), sl.Last().Member())
	}
	// Tie with a neighbour's score moves by member order.
	sl.UpdateScore("m20", 20, 21)
	if rk, _ := sl.Rank(21, "m20"); sl.ByRank(rk+1).Member() != "m21" {
		t.Fatal("tie order")
	}
	if err := sl.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Fatal("UpdateScore of a missing member did not panic")
		}
	}()
	sl.UpdateScore("nope", 1, 2)
}

func TestSkiplistNaN(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("NaN insert did not panic")
		}
	}()
	ds.NewSkiplist().Insert(math.NaN(), "x")
}

func TestSkiplistLevels(t *testing.T) {
	// With p = 1/4, a long list must reach several levels and stay valid
	// through deletes that lower the top level.
	sl := ds.NewSkiplist()
	for i := range 20000 {
		sl.Insert(float64(i%100), strconv.Itoa(i))
	}
	if err := sl.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if n := sl.DeleteRangeByRank(0, 19989, nil); n != 19990 {
		t.Fatalf("removed %d", n)
	}
	if err := sl.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
	if sl.Len() != 10 {
		t.Fatal(sl.Len())
	}
}
