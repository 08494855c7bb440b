package rdb

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestPowersTen(t *testing.T) {
	// Entries of fpconv's powers.h table.
	for i, want := range map[int]fp{
		0: {18054884314459144840, -1220},
		1: {13451937075301367670, -1193},
	} {
		if powersTen[i] != want {
			t.Errorf("powersTen[%d] = %v, want %v", i, powersTen[i], want)
		}
	}
	// 10^4 (index 44) is exact: 10000 << 50.
	if powersTen[44] != (fp{10000 << 50, -50}) {
		t.Errorf("powersTen[44] = %v", powersTen[44])
	}
	if powersTen[86] != (fp{12648080533535911531, 1066}) {
		t.Errorf("powersTen[86] = %v", powersTen[86])
	}
}

// TestScoreRoundTrip: every score text reads back as the same double.
func TestScoreRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200000 {
		f := math.Float64frombits(r.Uint64())
		if math.IsNaN(f) {
			continue
		}
		s := string(appendScore(nil, f))
		g, err := strconv.ParseFloat(s, 64)
		if err != nil || g != f {
			t.Fatalf("%b: %q reads as %v (%v)", f, s, g, err)
		}
		if len(s) > 25 { // sign, 17 digits and 7 zeros at most
			t.Fatalf("%b: %q too long", f, s)
		}
	}
}
