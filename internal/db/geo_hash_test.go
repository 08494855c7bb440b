package db

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// Reference values are Valkey 8.0.1's replies (GEOADD's scores via
// ZSCORE, GEOPOS, GEOHASH, GEODIST) for the same input.

func TestGeoEncodeDecode(t *testing.T) {
	tests := []struct {
		lon, lat       float64
		score          uint64
		posLon, posLat string
		hash           string
	}{
		{13.361389, 38.115556, 3479099956230698, "13.36138933897018433", "38.11555639549629859", "sqc8b49rny0"},
		{15.087269, 37.502669, 3479447370796909, "15.08726745843887329", "37.50266842333162032", "sqdtr74hyu0"},
		{180, 85.05112878, 13510798882111488, "180", "85.0511287799999991", "bp05b5048p0"},
		{180, -85.05112878, 9007199254740992, "180", "-85.05112751263942528", "00bh0hbj200"},
		{-180, 0, 1125899906842624, "-179.99999731779098511", "0.00000126736058093", "80000000000"},
		{0, 0, 3377699720527872, "0.00000268220901489", "0.00000126736058093", "s0000000000"},
	}
	for _, tc := range tests {
		score := geoScore(tc.lon, tc.lat)
		if score != tc.score {
			t.Errorf("geoScore(%v,%v) = %d, want %d", tc.lon, tc.lat, score, tc.score)
		}
		lon, lat, ok := decodeGeohash(float64(score))
		if !ok {
			t.Fatalf("decode %d failed", score)
		}
		if got := string(appendHumanDouble(nil, lon)); got != tc.posLon {
			t.Errorf("lon of %d = %s, want %s", score, got, tc.posLon)
		}
		if got := string(appendHumanDouble(nil, lat)); got != tc.posLat {
			t.Errorf("lat of %d = %s, want %s", score, got, tc.posLat)
		}
		if got, _ := geohashString(float64(score)); got != tc.hash {
			t.Errorf("geohash of %d = %s, want %s", score, got, tc.hash)
		}
	}
}

func TestGeoDistance(t *testing.T) {
	tests := []struct {
		lon1, lat1, lon2, lat2 float64
		unit                   float64
		want                   string
	}{
		// GEODIST Palermo Catania in m and km, from their decoded positions.
		{13.36138933897018433, 38.11555639549629859, 15.08726745843887329, 37.50266842333162032, 1, "166274.1516"},
		{13.36138933897018433, 38.11555639549629859, 15.08726745843887329, 37.50266842333162032, 1000, "166.2742"},
		{0, 0, 0, 0, 1, "0.0000"},
		// GEOADD q 0 10 a 0 11 b; GEODIST q a b: the same longitude takes
		// the latitude-only shortcut.
		{0, 10, 0, 11, 1, "111226.0989"},
	}
	for _, tc := range tests {
		lon1, lat1, _ := decodeGeohash(float64(geoScore(tc.lon1, tc.lat1)))
		lon2, lat2, _ := decodeGeohash(float64(geoScore(tc.lon2, tc.lat2)))
		d := geoDistance(lon1, lat1, lon2, lat2) / tc.unit
		if got := string(appendGeoDistance(nil, d)); got != tc.want {
			t.Errorf("distance %v,%v-%v,%v = %s, want %s", tc.lon1, tc.lat1, tc.lon2, tc.lat2, got, tc.want)
		}
	}
}

func TestGeoFormats(t *testing.T) {
	dist := []struct {
		d    float64
		want string
	}{
		// llrint(d*10^4), as fixedpoint_d2string: not always printf's "%.4f"
		// (which gives 0.0001, 0.0001, 0.0003, 1.2345 and 111226.3001).
		{0, "0.0000"}, {0.00004, "0.0000"}, {0.00005, "0.0000"}, {0.00015, "0.0001"},
		{0.00025, "0.0002"}, {1.23445, "1.2344"}, {111226.30005, "111226.3000"},
		{1.5, "1.5000"}, {12345.67891, "12345.6789"}, {0.7750, "0.7750"},
	}
	for _, tc := range dist {
		if got := string(appendGeoDistance(nil, tc.d)); got != tc.want {
			t.Errorf("distance %v = %s, want %s", tc.d, got, tc.want)
		}
	}
	human := []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "0"}, {180, "180"}, {-1.5, "-1.5"},
		{1e-18, "0"}, {-1e-18, "0"}, {0.1, "0.10000000000000001"},
	}
	for _, tc := range human {
		if got := string(appendHumanDouble(nil, tc.f)); got != tc.want {
			t.Errorf("human %v = %s, want %s", tc.f, got, tc.want)
		}
	}
	cf := []struct {
		f    float64
		want string
	}{{200, "200.000000"}, {-0.5, "-0.500000"}, {math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}}
	for _, tc := range cf {
		if got := string(appendCFloat(nil, tc.f)); got != tc.want {
			t.Errorf("%%f of %v = %s, want %s", tc.f, got, tc.want)
		}
	}
}

func TestGeoInterleave(t *testing.T) {
	for _, v := range [][2]uint32{{0, 0}, {1, 0}, {0, 1}, {0x3ffffff, 0x3ffffff}, {12345, 67890}, {0xffffffff, 0}} {
		sep := deinterleave64(interleave64(v[0], v[1]))
		if uint32(sep) != v[0] || uint32(sep>>32) != v[1] {
			t.Errorf("deinterleave(interleave(%x,%x)) = %x", v[0], v[1], sep)
		}
	}
}

func TestGeoStepsByRadius(t *testing.T) {
	tests := []struct {
		r, lat float64
		want   int
	}{
		{0, 0, 26}, {1, 0, 24}, {1000, 0, 14}, {1000, 70, 13}, {1000, 85, 12}, {5000000, 0, 2}, {1e9, 0, 1}, {0.001, 0, 26},
	}
	for _, tc := range tests {
		if got := geohashEstimateStepsByRadius(tc.r, tc.lat); got != tc.want {
			t.Errorf("steps(%v,%v) = %d, want %d", tc.r, tc.lat, got, tc.want)
		}
	}
}

// TestAppendFixed17: the integer "%.17f" is strconv's (exact, half to
// even) for decoded coordinates, random doubles of every magnitude it
// takes, exact ties at the 18th decimal (k * 2^-18) and the edges of its
// range; outside the range it declines.
func TestAppendFixed17(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 16))
	var xs []float64
	for range 40000 {
		lon, lat := geoDecode(float64(rng.Uint64() >> 12))
		xs = append(xs, lon, lat)
		xs = append(xs, (2*rng.Float64()-1)*184, (2*rng.Float64()-1)*math.Pow(2, -60*rng.Float64()))
		xs = append(xs, float64(rng.IntN(1<<30)-1<<29)*math.Pow(2, -18), float64(rng.IntN(1000))*math.Pow(2, -float64(rng.IntN(70))))
	}
	xs = append(xs, 0, math.Copysign(0, -1), 184, -184, math.Nextafter(184, 0), math.Pow(2, -57), -math.Pow(2, -57),
		math.Pow(2, -58), 5e-18, 5.000000000000001e-18, 4.999999999999999e-18, -5e-18, 1.5e-17, 2.5e-17, 0.5, 1,
		math.Inf(1), math.NaN(), math.SmallestNonzeroFloat64, 1e300, 1<<53)
	for _, x := range xs {
		got, ok := appendFixed17(nil, x)
		w := strconv.AppendFloat(nil, x, 'f', 17, 64)
		l := len(w)
		for l > 0 && w[l-1] == '0' {
			l--
		}
		if l > 0 && w[l-1] == '.' {
			l--
		}
		want := string(w[:l])
		if want == "-0" {
			want = "0"
		}
		inRange := x == 0 || math.Abs(x) < 184 && math.Abs(x) >= math.Pow(2, -57)
		if ok != inRange {
			t.Fatalf("%v (%x): ok %v", x, x, ok)
		}
		if ok && string(got) != want {
			t.Fatalf("%v (%x): %q, want %q", x, x, got, want)
		}
		if string(appendHumanDouble(nil, x)) != want && !math.IsInf(x, 0) && !math.IsNaN(x) {
			t.Fatalf("appendHumanDouble(%v) = %q, want %q", x, appendHumanDouble(nil, x), want)
		}
	}
}
