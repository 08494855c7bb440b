package keygen

import "testing"

func TestSizes(t *testing.T) {
	r := NewRand(5)
	fixed := Sizes{Fixed: 128}
	if got := fixed.Pick(r, 3); got != 128 || fixed.Largest() != 128 {
		t.Fatalf("fixed: got %d", got)
	}

	// Range with pattern R: every size in [1024, 4096] appears and the mean
	// is near the centre (seed 003's --data-size-range=1024-4096).
	rr := Sizes{Min: 1024, Max: 4096, Pattern: 'R'}
	var sum float64
	const n = 200000
	lo, hi := 1<<30, 0
	for i := 0; i < n; i++ {
		s := rr.Pick(r, uint64(i))
		sum += float64(s)
		lo, hi = min(lo, s), max(hi, s)
	}
	if lo != 1024 || hi != 4096 {
		t.Fatalf("range R: saw [%d, %d]", lo, hi)
	}
	if mean := sum / n; mean < 2560-15 || mean > 2560+15 {
		t.Fatalf("range R: mean %.1f, want 2560±15", mean)
	}

	// Pattern S spreads sizes linearly over the key range.
	rs := Sizes{Min: 100, Max: 200, Pattern: 'S', KeyMin: 0, KeyMax: 1000}
	for _, c := range []struct {
		key  uint64
		want int
	}{{0, 100}, {500, 150}, {1000, 200}, {250, 125}, {2000, 200}} {
		if got := rs.Pick(r, c.key); got != c.want {
			t.Errorf("pattern S key %d: got %d want %d", c.key, got, c.want)
		}
	}
}

func TestSizesValidate(t *testing.T) {
	cases := []struct {
		s  Sizes
		ok bool
	}{
		{Sizes{Fixed: 32}, true},
		{Sizes{Fixed: 0}, false},
		{Sizes{Min: 1, Max: 10, Pattern: 'R'}, true},
		{Sizes{Min: 10, Max: 1, Pattern: 'R'}, false},
		{Sizes{Min: 1, Max: 10, Pattern: 'X'}, false},
	}
	for i, c := range cases {
		if err := c.s.Validate(); (err == nil) != c.ok {
			t.Errorf("case %d: err=%v", i, err)
		}
	}
}
