package keygen

import (
	"math"
	"testing"
)

// chiSquare returns the statistic for observed counts against expected ones.
func chiSquare(obs []int, exp []float64) float64 {
	var x float64
	for i := range obs {
		d := float64(obs[i]) - exp[i]
		x += d * d / exp[i]
	}
	return x
}

func mustGen(t *testing.T, spec Spec, seed uint64) *Gen {
	t.Helper()
	g, err := New(spec, NewRand(seed))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// Uniform R: chi-square over 100 keys with 200k draws. df=99: the 99.9th
// percentile is about 148.2, so a biased generator fails.
func TestRandomIsUniform(t *testing.T) {
	g := mustGen(t, Spec{Min: 1, Max: 100, Pattern: Random}, 42)
	const n = 200000
	obs := make([]int, 100)
	for i := 0; i < n; i++ {
		k := g.Next()
		if k < 1 || k > 100 {
			t.Fatalf("key %d out of range", k)
		}
		obs[k-1]++
	}
	exp := make([]float64, 100)
	for i := range exp {
		exp[i] = n / 100.0
	}
	if x := chiSquare(obs, exp); x > 148.2 {
		t.Fatalf("chi-square %.1f > 148.2: not uniform", x)
	}
}

func TestRandomRejectsBias(t *testing.T) {
	// The test statistic above must be able to fail: a generator that
	// favours the lower half gives a huge chi-square.
	obs := make([]int, 100)
	exp := make([]float64, 100)
	for i := range obs {
		exp[i] = 2000
		if i < 50 {
			obs[i] = 2200
		} else {
			obs[i] = 1800
		}
	}
	if x := chiSquare(obs, exp); x < 148.2 {
		t.Fatalf("biased counts passed: %.1f", x)
	}
}

func TestSequentialWraps(t *testing.T) {
	g := mustGen(t, Spec{Min: 5, Max: 8, Pattern: Sequential}, 1)
	want := []uint64{5, 6, 7, 8, 5, 6, 7, 8, 5}
	for i, w := range want {
		if got := g.Next(); got != w {
			t.Fatalf("draw %d: got %d want %d", i, got, w)
		}
	}
}

func moments(xs []float64) (mean, sd float64) {
	for _, x := range xs {
		mean += x
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		sd += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(sd / float64(len(xs)))
}

func TestGaussian(t *testing.T) {
	cases := []struct {
		name           string
		spec           Spec
		wantMean, want float64 // expected mean and sd of the drawn indices
		meanTol, sdTol float64
	}{
		// Defaults: median = centre, stddev = range/6. Truncation at ±3σ
		// shrinks the sd by about 1.3%; truncating to an integer moves the
		// mean down by 0.5.
		{"defaults", Spec{Min: 0, Max: 60000, Pattern: Gaussian}, 29999.5, 10000 * 0.987, 150, 200},
		{"explicit", Spec{Min: 1, Max: 100000, Pattern: Gaussian, Median: 20000, Stddev: 1000}, 19999.5, 1000, 20, 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := mustGen(t, c.spec, 7)
			xs := make([]float64, 100000)
			for i := range xs {
				k := g.Next()
				if k < c.spec.Min || k > c.spec.Max {
					t.Fatalf("key %d out of range", k)
				}
				xs[i] = float64(k)
			}
			m, sd := moments(xs)
			if math.Abs(m-c.wantMean) > c.meanTol {
				t.Errorf("mean %.1f, want %.1f±%.0f", m, c.wantMean, c.meanTol)
			}
			if math.Abs(sd-c.want) > c.sdTol {
				t.Errorf("sd %.1f, want %.1f±%.0f", sd, c.want, c.sdTol)
			}
			// About 68.3% within one sd of the median for an untruncated normal.
			med := c.spec.Median
			if med == 0 {
				med = float64(c.spec.Min+c.spec.Max) / 2
			}
			sdev := c.spec.Stddev
			if sdev == 0 {
				sdev = float64(c.spec.Max-c.spec.Min) / 6
			}
			in := 0
			for _, x := range xs {
				if math.Abs(x-med) <= sdev {
					in++
				}
			}
			frac := float64(in) / float64(len(xs))
			if frac < 0.67 || frac > 0.70 {
				t.Errorf("fraction within 1 sd = %.3f, want ~0.683", frac)
			}
		})
	}
}

func TestGaussianMedianOutsideRange(t *testing.T) {
	if _, err := New(Spec{Min: 1, Max: 10, Pattern: Gaussian, Median: 50}, NewRand(1)); err == nil {
		t.Fatal("median outside the range accepted")
	}
}

func TestParallelSplitsTheRange(t *testing.T) {
	const clients = 7
	seen := map[uint64]int{}
	var prevHi uint64
	for c := 0; c < clients; c++ {
		g := mustGen(t, Spec{Min: 1, Max: 100, Pattern: Parallel, Client: c, Clients: clients}, 1)
		lo, hi := g.Range()
		if c > 0 && lo != prevHi+1 {
			t.Fatalf("client %d starts at %d, previous ended at %d", c, lo, prevHi)
		}
		prevHi = hi
		// sequential within its slice, wrapping
		for i := uint64(0); i < (hi-lo+1)*2; i++ {
			k := g.Next()
			if want := lo + i%(hi-lo+1); k != want {
				t.Fatalf("client %d draw %d: got %d want %d", c, i, k, want)
			}
			if i <= hi-lo {
				seen[k]++
			}
		}
	}
	for k := uint64(1); k <= 100; k++ {
		if seen[k] != 1 {
			t.Fatalf("key %d owned by %d clients", k, seen[k])
		}
	}
}

func TestParseParallelNeedsClients(t *testing.T) {
	if _, err := New(Spec{Min: 1, Max: 10, Pattern: Parallel}, NewRand(1)); err == nil {
		t.Fatal("P without client count accepted")
	}
}

// Zipf: compare the frequencies of the 30 hottest ranks (and the rest as one
// bin) with k^-s / H(n,s) by chi-square. df=30: the 99.9th percentile is 59.7.
func TestZipf(t *testing.T) {
	for _, s := range []float64{0.5, 0.99, 1, 1.5, 2.5} {
		const n, draws, top = 1000, 200000, 30
		g := mustGen(t, Spec{Min: 10, Max: 10 + n - 1, Pattern: Zipf, ZipfExp: s}, 3)
		obs := make([]int, top+1)
		for i := 0; i < draws; i++ {
			k := g.Next()
			if k < 10 || k > 10+n-1 {
				t.Fatalf("s=%v: key %d out of range", s, k)
			}
			r := int(k - 10)
			if r >= top {
				r = top
			}
			obs[r]++
		}
		var hsum float64
		for k := 1; k <= n; k++ {
			hsum += math.Pow(float64(k), -s)
		}
		exp := make([]float64, top+1)
		var rest float64 = draws
		for k := 1; k <= top; k++ {
			exp[k-1] = draws * math.Pow(float64(k), -s) / hsum
			rest -= exp[k-1]
		}
		exp[top] = rest
		if x := chiSquare(obs, exp); x > 59.7 {
			t.Errorf("s=%v: chi-square %.1f > 59.7", s, x)
		}
	}
}

func TestZipfExponentBounds(t *testing.T) {
	for _, s := range []float64{-1, 5, 7} {
		if _, err := New(Spec{Min: 1, Max: 10, Pattern: Zipf, ZipfExp: s}, NewRand(1)); err == nil {
			t.Errorf("s=%v accepted", s)
		}
	}
}

func TestSeedsReproduce(t *testing.T) {
	a := mustGen(t, Spec{Min: 0, Max: 1 << 40, Pattern: Random}, 9)
	b := mustGen(t, Spec{Min: 0, Max: 1 << 40, Pattern: Random}, 9)
	c := mustGen(t, Spec{Min: 0, Max: 1 << 40, Pattern: Random}, 10)
	same := true
	for i := 0; i < 100; i++ {
		x, y, z := a.Next(), b.Next(), c.Next()
		if x != y {
			t.Fatal("same seed, different sequence")
		}
		if x != z {
			same = false
		}
	}
	if same {
		t.Fatal("different seeds gave the same sequence")
	}
}

func TestNextDoesNotAllocate(t *testing.T) {
	for _, p := range []Pattern{Random, Sequential, Gaussian, Zipf} {
		g := mustGen(t, Spec{Min: 1, Max: 1000, Pattern: p}, 1)
		if n := testing.AllocsPerRun(1000, func() { g.Next() }); n != 0 {
			t.Errorf("pattern %c: %v allocs per draw", p, n)
		}
	}
}
