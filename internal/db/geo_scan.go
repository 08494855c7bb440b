package db

import (
	"math"

	"github.com/corvid-kv/corvid/internal/ds"
)

// A search's walk over its cells (geoGetPointsInRange): every member whose
// score lies in a cell's range is a candidate, decoded and tested against
// the shape, and most candidates (four in five in a typical radius search,
// whose 9 cells cover several times the circle) are outside it. So the
// walk costs per candidate, and is built to decide most of them cheaply:
//
//   - a skiplist's candidates are read from the tree's leaves (score only,
//     ds.ZIter.Score); a member's node is loaded only for those replied or
//     stored (geoPoint.name), where Valkey loads every candidate's node;
//   - the position is decoded with the C code's arithmetic (geoDecode,
//     decodeGeohash without the generic ranges);
//   - the shape test compares the haversine's a = sin²(Δφ/2) +
//     cos φ1 cos φ2 sin²(Δλ/2) with a's values at the limit plus and minus
//     a margin (geoScan.quick), with the sines of the small differences and
//     cos φ2 = cos(φ1 + Δφ) from short series, no arcsine for the ones out
//     and no call into math's sine and cosine. Only a member within the
//     margin of the limit, or too far from the center for the series, goes
//     through the full test (geoShape.withinPos), which decides it as
//     Valkey's correctly rounded arithmetic does.
//
// The replies are Valkey's to the byte: the members in, their order (the
// cells' score order, each a contiguous range), and every distance shown
// or stored (geoPoint.exactDist) are unchanged by the shortcuts.

// geoSeriesMax bounds the arguments of geoSinSmall and geoCosSmall:
// their truncation errors there (0.5^15/15!, 0.5^16/16!) are below 1e-16.
const geoSeriesMax = 0.5

// geoSinSmall is sin(x) for |x| <= geoSeriesMax, to a few ulps: its
// Taylor series to x^13.
func geoSinSmall(x float64) float64 {
	const (
		s3  = -1.0 / 6
		s5  = 1.0 / 120
		s7  = -1.0 / 5040
		s9  = 1.0 / 362880
		s11 = -1.0 / 39916800
		s13 = 1.0 / 6227020800
	)
	x2 := x * x
	return x + x*x2*(s3+x2*(s5+x2*(s7+x2*(s9+x2*(s11+x2*s13)))))
}

// geoCosSmall is cos(x) for |x| <= geoSeriesMax, to a few ulps: its
// Taylor series to x^14.
func geoCosSmall(x float64) float64 {
	const (
		c2  = -1.0 / 2
		c4  = 1.0 / 24
		c6  = -1.0 / 720
		c8  = 1.0 / 40320
		c10 = -1.0 / 3628800
		c12 = 1.0 / 479001600
		c14 = -1.0 / 87178291200
	)
	x2 := x * x
	return 1 + x2*(c2+x2*(c4+x2*(c6+x2*(c8+x2*(c10+x2*(c12+x2*c14))))))
}

// geoAsinSqrt is asin(sqrt(a)) for 0 <= a <= 1, to a few ulps: the
// arcsine's series for a below 0.01 (its truncation error there, about
// 0.014 a^7, is below 1e-16), math.Asin above.
func geoAsinSqrt(a float64) float64 {
	z := math.Sqrt(a)
	if !(a < 0.01) {
		return math.Asin(z)
	}
	const (
		c3  = 1.0 / 6
		c5  = 3.0 / 40
		c7  = 15.0 / 336
		c9  = 105.0 / 3456
		c11 = 945.0 / 42240
		c13 = 10395.0 / 599040
	)
	return z + z*a*(c3+a*(c5+a*(c7+a*(c9+a*(c11+a*c13)))))
}

// Constants of geoDecode: the ranges as the C code's variables hold them.
var (
	geoLongMinF  = float64(geoLongMin)
	geoLatMinF   = float64(geoLatMin)
	geoLongScale = float64(geoLongMax) - geoLongMinF
	geoLatScale  = float64(geoLatMax) - geoLatMinF
)

// geoDecode is decodeGeohash(score) (which cannot fail: a 26-step hash is
// never zero), with deinterleave64 unrolled and the ranges constant: the
// same operations in the same order, so the same positions to the bit.
func geoDecode(score float64) (lon, lat float64) {
	h := score2u64(score)
	x, y := h, h>>1
	x &= 0x5555555555555555
	y &= 0x5555555555555555
	x = (x | x>>1) & 0x3333333333333333
	y = (y | y>>1) & 0x3333333333333333
	x = (x | x>>2) & 0x0F0F0F0F0F0F0F0F
	y = (y | y>>2) & 0x0F0F0F0F0F0F0F0F
	x = (x | x>>4) & 0x00FF00FF00FF00FF
	y = (y | y>>4) & 0x00FF00FF00FF00FF
	x = (x | x>>8) & 0x0000FFFF0000FFFF
	y = (y | y>>8) & 0x0000FFFF0000FFFF
	x = (x | x>>16) & 0x00000000FFFFFFFF
	y = (y | y>>16) & 0x00000000FFFFFFFF
	ilato, ilono := uint32(x), uint32(y)
	const div = float64(uint64(1) << geoStepMax)
	latMin := geoLatMinF + (float64(ilato)*1.0/div)*geoLatScale
	latMax := geoLatMinF + (float64(ilato+1)*1.0/div)*geoLatScale
	lonMin := geoLongMinF + (float64(ilono)*1.0/div)*geoLongScale
	lonMax := geoLongMinF + (float64(ilono+1)*1.0/div)*geoLongScale
	lon = min(max((lonMin+lonMax)/2, geoLongMin), geoLongMax)
	lat = min(max((latMin+latMax)/2, geoLatMin), geoLatMax)
	return lon, lat
}

// geoScan is a search's test of candidates: the shape and the constants
// of its quick test.
type geoScan struct {
	shape   *geoShape
	quickOK bool // the quick test applies (see init)
	circle  bool
	// The center in radians, its latitude's sine and cosine.
	lon1r, lat1r, sinLat1, cosLat1 float64
	// a (the circle's, the box's half width's) below aIn is inside the
	// limit, above aOut outside; in between, withinPos decides.
	aIn, aOut float64
	// A position is outside when |y| (half the latitude difference in
	// radians; the circle only) is above yOut, or |x| (half the
	// longitude difference) above xOut: a is then above aOut whatever
	// the other difference.
	yOut, xOut float64
	halfH      float64 // a box's half height in meters
}

// init prepares the test of shape. The quick test applies to limits
// (the radius, a box's half width) under about 6,370 km, where a stays
// below sin²(0.5) and the margin holds: a's error (a few ulps from the
// series and products) is far below the margin's 1e-7 of the limit.
func (g *geoScan) init(s *geoShape) {
	g.shape = s
	var lim float64
	if s.typ == geoCircular {
		g.circle = true
		lim = s.radius * s.conversion
	} else {
		lim = s.width * s.conversion / 2
		g.halfH = s.height * s.conversion / 2
	}
	margin := geoFastMargin * max(lim, 1)
	hi := (lim + margin) / (2 * geoEarthRadiusM)
	if !(hi < geoSeriesMax) {
		return
	}
	t := math.Sin(hi)
	g.aOut = t * t
	g.aIn = -1
	if lo := lim - margin; lo > 0 {
		t = math.Sin(lo / (2 * geoEarthRadiusM))
		g.aIn = t * t
	}
	g.lon1r, g.lat1r = degRad(s.xy[0]), degRad(s.xy[1])
	g.sinLat1, g.cosLat1 = math.Sin(g.lat1r), math.Cos(g.lat1r)
	g.quickOK = true

	// The bounds on x and y, each with a relative slack of 1e-9 over
	// the rounding of its own computation (the margin in aOut covers
	// the rounding of x and y themselves). a >= sin² y (circle), and
	// a >= cos φ1 cos φ2 sin² x where cos φ2 is at least its minimum
	// over the latitudes a position inside can have.
	const slack = 1e-9
	var dLat float64 // the most a position inside differs in latitude
	if g.circle {
		g.yOut = math.Asin(math.Sqrt(g.aOut)) * (1 + slack)
		dLat = 2 * g.yOut
	} else {
		g.yOut = math.Inf(1)
		dLat = g.halfH / geoEarthRadiusM * (1 + slack)
	}
	g.xOut = math.Inf(1)
	far := max(math.Abs(g.lat1r-dLat), math.Abs(g.lat1r+dLat))
	if far < math.Pi/2 {
		cos2 := math.Cos(far) * (1 - slack)
		if g.circle {
			cos2 *= g.cosLat1 * (1 - slack)
		} else {
			cos2 *= cos2 // the box's a is cos² φ2 sin² x
		}
		if r := g.aOut / cos2; r < 1 {
			g.xOut = math.Asin(math.Sqrt(r)) * (1 + slack)
		}
	}
}

// test is geoWithinShape for a candidate's score: whether its position is
// inside, and its distance from the center (fast unless exact).
func (g *geoScan) test(score float64) (dist float64, exact, in bool) {
	lon, lat := geoDecode(score)
	if g.quickOK {
		if d, in, ok := g.quick(lon, lat); ok {
			return d, false, in
		}
	}
	return g.shape.withinPos(lon, lat)
}

// quick decides a position with the series (see geoScan); ok is false
// where it cannot.
func (g *geoScan) quick(lon, lat float64) (dist float64, in, ok bool) {
	x := (degRad(lon) - g.lon1r) / 2
	y := (degRad(lat) - g.lat1r) / 2
	// The bounds hold where sin² is increasing: |y| is below 85 degrees,
	// |x| up to 180.
	ax, ay := math.Abs(x), math.Abs(y)
	if ay > g.yOut || ax > g.xOut && ax <= math.Pi/2 {
		return 0, false, true
	}
	if !(ax <= geoSeriesMax && ay <= geoSeriesMax) {
		return 0, false, false
	}
	v := geoSinSmall(x)
	u := geoSinSmall(y)
	// cos φ2 = cos(φ1 + 2y) = cos φ1 (1 - 2 sin² y) - sin φ1 (2 sin y cos y).
	cosLat2 := g.cosLat1*(1-2*u*u) - g.sinLat1*(2*u*geoCosSmall(y))
	v2 := v * v
	if !g.circle {
		// geoInRectangle: the latitude distance exactly as Valkey's, then
		// the distance along the point's parallel to the center's
		// meridian, whose a is cos² φ2 sin²(Δλ/2).
		if geoLatDistance(lat, g.shape.xy[1]) > g.halfH {
			return 0, false, true
		}
		aw := cosLat2 * cosLat2 * v2
		if aw > g.aOut {
			return 0, false, true
		}
		if !(aw < g.aIn) {
			return 0, false, false
		}
	}
	a := u*u + g.cosLat1*cosLat2*v2
	if g.circle {
		if a > g.aOut {
			return 0, false, true
		}
		if !(a < g.aIn) {
			return 0, false, false
		}
	}
	return 2.0 * geoEarthRadiusM * geoAsinSqrt(a), true, true
}

// withinPos is geoWithinShape for a decoded position, with the fast
// distances and Valkey's exact ones near the limits (geoWithinDistance).
func (s *geoShape) withinPos(lon, lat float64) (dist float64, exact, ok bool) {
	if s.typ == geoCircular {
		dist, ok, exact = geoWithinDistance(s.xy[0], s.xy[1], lon, lat, s.radius*s.conversion)
		return
	}
	dist, ok, exact = geoInRectangle(s.width*s.conversion, s.height*s.conversion, s.xy[0], s.xy[1], lon, lat)
	return
}

// pointsInRange is geoGetPointsInRange: the members with scores in
// [min, max) that lie in the shape, appended to ga until it holds limit
// points (0: no limit).
func (g *geoScan) pointsInRange(o *Object, min, max float64, ga []geoPoint, limit int) []geoPoint {
	switch v := o.Value().(type) {
	case *ds.ZSkip:
		it, _ := v.FirstInScoreRange(ds.ScoreRange{Min: min, Max: max, MaxEx: true})
		for ; it.Valid(); it.Next() {
			score := it.Score()
			if !(score < max) {
				break
			}
			if dist, exact, in := g.test(score); in {
				ga = append(ga, geoPoint{dist: dist, exact: exact, score: score, node: it.Node()})
			}
			if len(ga) > 0 && limit > 0 && len(ga) >= limit {
				break
			}
		}
	case *ds.ZPack:
		for off := v.First(); off >= 0; off = v.Next(off) {
			m, score, _ := v.At(off)
			if score < min {
				continue
			}
			if !(score < max) {
				break
			}
			if dist, exact, in := g.test(score); in {
				ga = append(ga, geoPoint{dist: dist, exact: exact, score: score, member: m})
			}
			if len(ga) > 0 && limit > 0 && len(ga) >= limit {
				break
			}
		}
	}
	return ga
}
