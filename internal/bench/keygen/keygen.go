package keygen

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Pattern is one of memtier's key patterns: 'R', 'S', 'G', 'P' or 'Z'.
type Pattern byte

// The key patterns memtier knows.
const (
	Random     Pattern = 'R'
	Sequential Pattern = 'S'
	Gaussian   Pattern = 'G'
	Parallel   Pattern = 'P'
	Zipf       Pattern = 'Z'
)

// ParsePattern accepts exactly one of R, S, G, P, Z.
func ParsePattern(s string) (Pattern, error) {
	if len(s) == 1 {
		switch p := Pattern(s[0]); p {
		case Random, Sequential, Gaussian, Parallel, Zipf:
			return p, nil
		}
	}
	return 0, fmt.Errorf("key pattern must be one of S/R/G/P/Z, got %q", s)
}

// Spec describes a key space and how to walk it. Zero Stddev/Median mean
// memtier's defaults (range/6 and the centre); ZipfExp 0 means 1.
type Spec struct {
	Min, Max uint64
	Pattern  Pattern
	Stddev   float64
	Median   float64
	ZipfExp  float64
	// Client and Clients place this generator's slice for pattern P:
	// client Client (0-based) of Clients in total.
	Client, Clients int
}

// Gen draws key indices. It owns its random source; see the package doc for
// the ownership rule.
type Gen struct {
	rng     *rand.Rand
	spec    Spec
	next    uint64 // sequential cursor (S and P)
	lo, hi  uint64 // effective range (P narrows it)
	stddev  float64
	median  float64
	zipf    *zipfSampler
	spareOK bool
	spare   float64
}

// NewRand returns the generator's random source for a seed; exposed so the
// value-size and command-choice code can share one source per client.
func NewRand(seed uint64) *rand.Rand {
	// The second PCG word is fixed: seeds differ in the first one only,
	// mirroring memtier's single integer seed.
	return rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
}

// New validates spec and returns a generator drawing from rng.
func New(spec Spec, rng *rand.Rand) (*Gen, error) {
	if spec.Max < spec.Min {
		return nil, fmt.Errorf("key-maximum (%d) is below key-minimum (%d)", spec.Max, spec.Min)
	}
	g := &Gen{rng: rng, spec: spec, lo: spec.Min, hi: spec.Max}
	switch spec.Pattern {
	case Random, Sequential:
	case Gaussian:
		n := float64(spec.Max - spec.Min)
		g.stddev, g.median = spec.Stddev, spec.Median
		if g.stddev == 0 {
			g.stddev = n / 6
		}
		if g.median == 0 {
			g.median = float64(spec.Min) + n/2
		}
		if g.median < float64(spec.Min) || g.median > float64(spec.Max) {
			return nil, fmt.Errorf("key-median %.0f is outside the key range [%d, %d]", g.median, spec.Min, spec.Max)
		}
	case Parallel:
		if spec.Clients <= 0 || spec.Client < 0 || spec.Client >= spec.Clients {
			return nil, fmt.Errorf("parallel key pattern needs a client index in [0, clients)")
		}
		g.lo, g.hi = ParallelRange(spec.Min, spec.Max, spec.Client, spec.Clients)
	case Zipf:
		s := spec.ZipfExp
		if s == 0 {
			s = 1
		}
		if s <= 0 || s >= 5 {
			return nil, fmt.Errorf("key-zipf-exp must be within interval (0, 5)")
		}
		g.zipf = newZipf(spec.Max-spec.Min+1, s)
	default:
		return nil, fmt.Errorf("unknown key pattern %q", spec.Pattern)
	}
	g.next = g.lo
	return g, nil
}

// ParallelRange is the slice of [min, max] that client i of n owns under
// pattern P: memtier splits the range into n equal parts of
// (max-min)/n + 1 keys, the last part being cut at max.
func ParallelRange(min, max uint64, i, n int) (lo, hi uint64) {
	part := (max-min)/uint64(n) + 1
	lo = min + part*uint64(i)
	hi = lo + part - 1
	if hi > max {
		hi = max
	}
	if lo > max { // more clients than keys: the tail clients share the last key
		lo = max
	}
	return lo, hi
}

// Range reports the effective [lo, hi] this generator draws from.
func (g *Gen) Range() (lo, hi uint64) { return g.lo, g.hi }

// Next returns the next key index.
func (g *Gen) Next() uint64 {
	switch g.spec.Pattern {
	case Random:
		return g.lo + g.rng.Uint64N(g.hi-g.lo+1)
	case Gaussian:
		return g.gaussian()
	case Zipf:
		return g.spec.Min + g.zipf.sample(g.rng) - 1
	default: // Sequential, Parallel
		k := g.next
		if g.next >= g.hi {
			g.next = g.lo
		} else {
			g.next++
		}
		return k
	}
}

// gaussian draws with the Marsaglia polar method (as memtier does) and
// rejects draws outside [min, max+1), truncating to an integer index.
func (g *Gen) gaussian() uint64 {
	min, max := float64(g.spec.Min), float64(g.spec.Max)
	if g.spec.Min == g.spec.Max {
		return g.spec.Min
	}
	for {
		v := g.normal()*g.stddev + g.median
		if v >= min && v < max+1 {
			return uint64(v)
		}
	}
}

func (g *Gen) normal() float64 {
	if g.spareOK {
		g.spareOK = false
		return g.spare
	}
	for {
		u := g.rng.Float64()*2 - 1
		v := g.rng.Float64()*2 - 1
		s := u*u + v*v
		if s >= 1 || s == 0 {
			continue
		}
		f := math.Sqrt(-2 * math.Log(s) / s)
		g.spare, g.spareOK = v*f, true
		return u * f
	}
}
