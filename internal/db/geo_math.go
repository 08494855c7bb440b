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

// ddSinSeries and ddCosSeries are the Taylor series of sin and cos of r,
// |r| <= pi/4 (about), summed until the terms are below 1e-34: they make
// ddTrigTab (and are the tests' reference).
func ddSinSeries(r dd) dd {
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

func ddCosSeries(r dd) dd {
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

// ddTrigStep is the step of ddTrigTab: a reduced argument r is j/128 + t
// with |t| <= 1/256, where the series need 5 terms past the first.
const ddTrigStep = 128

// ddTrigTab holds sin(j/128) and cos(j/128) for j = 0..101 (pi/4 is
// 100.5/128), from the full series.
var ddTrigTab = func() (t [102][2]dd) {
	for j := range t {
		x := dd{float64(j) / ddTrigStep, 0}
		t[j] = [2]dd{ddSinSeries(x), ddCosSeries(x)}
	}
	return t
}()

// Taylor coefficients: (-1)^k/(2k+1)! and (-1)^k/(2k)!, k = 1..5.
var ddSinCoef, ddCosCoef = func() (s, c [5]dd) {
	f := 1.0 // n!, exact up to 11!
	for n := 1; n <= 11; n++ {
		f *= float64(n)
		k := n / 2
		if k == 0 {
			continue
		}
		v := ddRecip(dd{f, 0})
		if k%2 == 1 {
			v = ddNeg(v)
		}
		if n%2 == 1 {
			s[k-1] = v
		} else {
			c[k-1] = v
		}
	}
	return s, c
}()

// ddRecip is 1/a in double-double (a > 0), by one Newton step from the
// double reciprocal.
func ddRecip(a dd) dd {
	q := 1 / a.hi
	// r = 1 - a*q, then q + q*r.
	r := ddAdd(dd{1, 0}, ddNeg(ddMul(a, dd{q, 0})))
	return ddAdd(dd{q, 0}, ddMul(dd{q, 0}, r))
}

// ddSinCosSmall returns sin t and cos t for |t| <= 1/256 (about): the
// series to t^11 and t^10 in Horner form, whose first omitted terms are
// below 1e-37 of the result. Their terms from t^7 and t^6 on are under
// 1e-18 of it and are summed in float64 (an error below 1e-33); the
// first ones in double-double.
func ddSinCosSmall(t dd) (sin, cos dd) {
	t2 := ddMul(t, t)
	x := t2.hi
	ps := ddSinCoef[2].hi + x*(ddSinCoef[3].hi+x*ddSinCoef[4].hi)
	pc := ddCosCoef[2].hi + x*(ddCosCoef[3].hi+x*ddCosCoef[4].hi)
	qs := ddAdd(ddSinCoef[1], ddMul(t2, dd{ps, 0}))
	qc := ddAdd(ddCosCoef[1], ddMul(t2, dd{pc, 0}))
	qs = ddAdd(ddSinCoef[0], ddMul(t2, qs))
	qc = ddAdd(ddCosCoef[0], ddMul(t2, qc))
	sin = ddAdd(t, ddMul(ddMul(t, t2), qs))
	cos = ddAdd(dd{1, 0}, ddMul(t2, qc))
	return sin, cos
}

// ddSinReduced and ddCosReduced are sin and cos of r, |r| <= pi/4
// (about): r = j/128 + t, sin r = sin(j/128) cos t + cos(j/128) sin t
// and cos r = cos(j/128) cos t - sin(j/128) sin t from the table and
// the short series (a quarter of the full series' time).
func ddSinReduced(r dd) dd {
	j := math.Round(r.hi * ddTrigStep)
	neg := j < 0
	if neg {
		r, j = ddNeg(r), -j
	}
	t := ddAdd(r, dd{-j / ddTrigStep, 0})
	st, ct := ddSinCosSmall(t)
	e := &ddTrigTab[int(j)]
	s := ddAdd(ddMul(e[0], ct), ddMul(e[1], st))
	if neg {
		s = ddNeg(s)
	}
	return s
}

func ddCosReduced(r dd) dd {
	j := math.Round(r.hi * ddTrigStep)
	if j < 0 {
		r, j = ddNeg(r), -j
	}
	t := ddAdd(r, dd{-j / ddTrigStep, 0})
	st, ct := ddSinCosSmall(t)
	e := &ddTrigTab[int(j)]
	return ddAdd(ddMul(e[1], ct), ddNeg(ddMul(e[0], st)))
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
