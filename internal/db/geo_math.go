package db

import "math"

// Valkey's haversine calls glibc's sin, cos and asin, whose results are
// (with rare exceptions) the correctly rounded values; Go's math.Sin,
// Cos and Asin can be an ulp or more away, which shows in STOREDIST's
// full-precision scores and can move a point across a radius. These
// versions evaluate in double-double arithmetic (about 100 bits) and
// round once, so they give the correctly rounded result, as glibc does.

// dd is an unevaluated sum hi+lo with |lo| <= ulp(hi)/2.
type dd struct{ hi, lo float64 }

func twoSum(a, b float64) dd {
	s := a + b
	bb := s - a
	return dd{s, (a - (s - bb)) + (b - bb)}
}

func quickTwoSum(a, b float64) dd {
	s := a + b
	return dd{s, b - (s - a)}
}

func twoProd(a, b float64) dd {
	p := a * b
	return dd{p, math.FMA(a, b, -p)}
}

func ddAdd(a, b dd) dd {
	s := twoSum(a.hi, b.hi)
	t := twoSum(a.lo, b.lo)
	s.lo += t.hi
	s = quickTwoSum(s.hi, s.lo)
	s.lo += t.lo
	return quickTwoSum(s.hi, s.lo)
}

func ddNeg(a dd) dd { return dd{-a.hi, -a.lo} }

func ddMul(a, b dd) dd {
	p := twoProd(a.hi, b.hi)
	p.lo += a.hi*b.lo + a.lo*b.hi
	return quickTwoSum(p.hi, p.lo)
}

// ddDivF divides by a small float64.
func ddDivF(a dd, b float64) dd {
	q1 := a.hi / b
	p := twoProd(q1, b)
	r := twoSum(a.hi, -p.hi)
	r.lo -= p.lo
	r.lo += a.lo
	q2 := (r.hi + r.lo) / b
	return quickTwoSum(q1, q2)
}

// pi/2 in three parts.
var ddPio2 = [3]float64{1.5707963267948966, 6.123233995736766e-17, -1.4973849048591698e-33}

// ddSinReduced and ddCosReduced are the Taylor series of sin and cos
// of r, |r| <= pi/4 (about).
func ddSinReduced(r dd) dd {
	r2 := ddMul(r, r)
	term, s := r, r
	for n := 1.0; n < 60; n += 2 {
		term = ddDivF(ddMul(ddNeg(term), r2), (n+1)*(n+2))
		if math.Abs(term.hi) < 1e-34*math.Abs(s.hi) {
			break
		}
		s = ddAdd(s, term)
	}
	return s
}

func ddCosReduced(r dd) dd {
	r2 := ddMul(r, r)
	term, c := dd{1, 0}, dd{1, 0}
	for n := 0.0; n < 60; n += 2 {
		term = ddDivF(ddMul(ddNeg(term), r2), (n+1)*(n+2))
		if math.Abs(term.hi) < 1e-34 {
			break
		}
		c = ddAdd(c, term)
	}
	return c
}

// ddReduce returns x - k*pi/2 and k mod 4.
func ddReduce(x dd) (dd, int64) {
	k := math.Round(x.hi / ddPio2[0])
	r := x
	if k != 0 {
		r = ddAdd(r, twoProd(-k, ddPio2[0]))
		r = ddAdd(r, twoProd(-k, ddPio2[1]))
		r = ddAdd(r, dd{-k * ddPio2[2], 0})
	}
	return r, int64(k) & 3
}

// ddSin is sin(x) in double-double.
func ddSin(x dd) dd {
	r, q := ddReduce(x)
	switch q {
	case 0:
		return ddSinReduced(r)
	case 1:
		return ddCosReduced(r)
	case 2:
		return ddNeg(ddSinReduced(r))
	}
	return ddNeg(ddCosReduced(r))
}

// ddCos is cos(x) in double-double.
func ddCos(x dd) dd {
	r, q := ddReduce(x)
	switch q {
	case 0:
		return ddCosReduced(r)
	case 1:
		return ddNeg(ddSinReduced(r))
	case 2:
		return ddNeg(ddCosReduced(r))
	}
	return ddSinReduced(r)
}

// geoSin is sin(x) correctly rounded (within the range of arguments the
// geo code uses: a few radians).
func geoSin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e5 {
		return math.Sin(x)
	}
	s := ddSin(dd{x, 0})
	return s.hi + s.lo
}

// geoCos is cos(x) correctly rounded.
func geoCos(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) || math.Abs(x) > 1e5 {
		return math.Cos(x)
	}
	c := ddCos(dd{x, 0})
	return c.hi + c.lo
}

// geoAsin is asin(x) correctly rounded: math.Asin refined by Newton's
// method on sin(y) = x in double-double.
func geoAsin(x float64) float64 {
	if x == 0 || math.IsNaN(x) || math.Abs(x) >= 1 {
		return math.Asin(x)
	}
	// math.Asin is within a few ulps: one step squares that error.
	y0 := math.Asin(x)
	d := ddAdd(ddSin(dd{y0, 0}), dd{-x, 0})
	y := ddAdd(dd{y0, 0}, dd{-(d.hi + d.lo) / math.Cos(y0), 0})
	return y.hi + y.lo
}
