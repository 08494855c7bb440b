package keygen

import (
	"math"
	"math/rand/v2"
)

// zipfSampler draws ranks 1..n with P(k) proportional to k^-s by
// rejection-inversion (Hörmann & Derflinger, 1996). Unlike math/rand's Zipf
// it works for every s > 0, including memtier's default s = 1 and the s < 1
// values YCSB-style runs use, in O(1) time and memory per draw.
type zipfSampler struct {
	n          float64
	s          float64
	hX1        float64 // H(1.5) - 1
	hN         float64 // H(n + 0.5)
	squeezeLim float64
}

func newZipf(n uint64, s float64) *zipfSampler {
	z := &zipfSampler{n: float64(n), s: s}
	z.hX1 = z.hIntegral(1.5) - 1
	z.hN = z.hIntegral(z.n + 0.5)
	z.squeezeLim = 2 - z.hIntegralInverse(z.hIntegral(2.5)-z.h(2))
	return z
}

func (z *zipfSampler) sample(r *rand.Rand) uint64 {
	for {
		u := z.hN + r.Float64()*(z.hX1-z.hN)
		x := z.hIntegralInverse(u)
		k := math.Floor(x + 0.5)
		if k < 1 {
			k = 1
		} else if k > z.n {
			k = z.n
		}
		if k-x <= z.squeezeLim || u >= z.hIntegral(k+0.5)-z.h(k) {
			return uint64(k)
		}
	}
}

// h is the unnormalised density x^-s.
func (z *zipfSampler) h(x float64) float64 { return math.Exp(-z.s * math.Log(x)) }

// hIntegral is an antiderivative of h: (x^(1-s) - 1) / (1-s), continuous at s = 1.
func (z *zipfSampler) hIntegral(x float64) float64 {
	lx := math.Log(x)
	return helper2((1-z.s)*lx) * lx
}

func (z *zipfSampler) hIntegralInverse(x float64) float64 {
	t := x * (1 - z.s)
	if t < -1 {
		t = -1 // rounding guard: log1p(-1) is -Inf
	}
	return math.Exp(helper1(t) * x)
}

// helper1 is log1p(x)/x, with its series near 0.
func helper1(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Log1p(x) / x
	}
	return 1 - x*(0.5-x*(1.0/3-0.25*x))
}

// helper2 is expm1(x)/x, with its series near 0.
func helper2(x float64) float64 {
	if math.Abs(x) > 1e-8 {
		return math.Expm1(x) / x
	}
	return 1 + x*0.5*(1+x*(1.0/3)*(1+0.25*x))
}
