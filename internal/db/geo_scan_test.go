package db

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGeoDecode: geoDecode is decodeGeohash to the bit, for geo scores
// and for any other score a sorted set may hold.
func TestGeoDecode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	scores := []float64{0, 1, 1 << 52, 1<<52 - 1, -1, -1e300, 1e300, 0.5, math.MaxFloat64, 1 << 63, 1 << 64,
		float64(geoScore(180, 85.05112878)), float64(geoScore(-180, -85.05112878)), float64(geoScore(0, 0))}
	for range 200000 {
		scores = append(scores, float64(rng.Uint64()>>12))
	}
	for range 2000 {
		scores = append(scores, rng.NormFloat64()*1e18, rng.Float64()*(1<<52))
	}
	for _, sc := range scores {
		lon, lat := geoDecode(sc)
		wlon, wlat, ok := decodeGeohash(sc)
		if !ok || math.Float64bits(lon) != math.Float64bits(wlon) || math.Float64bits(lat) != math.Float64bits(wlat) {
			t.Fatalf("geoDecode(%v) = %v,%v; decodeGeohash %v,%v,%v", sc, lon, lat, wlon, wlat, ok)
		}
	}
}

// TestGeoSeries: the short series are sine, cosine and asin(sqrt(a)) to
// a few ulps over their ranges.
func TestGeoSeries(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 100000 {
		x := (2*rng.Float64() - 1) * geoSeriesMax
		if i := rng.IntN(4); i == 0 {
			x *= 1e-6
		}
		if s, w := geoSinSmall(x), math.Sin(x); math.Abs(s-w) > 4e-16*math.Abs(w) {
			t.Fatalf("geoSinSmall(%v) = %v, sin %v", x, s, w)
		}
		if c, w := geoCosSmall(x), math.Cos(x); math.Abs(c-w) > 4e-16 {
			t.Fatalf("geoCosSmall(%v) = %v, cos %v", x, c, w)
		}
		a := x * x * 4 // 0..1
		if z, w := geoAsinSqrt(a), math.Asin(math.Sqrt(a)); math.Abs(z-w) > 4e-16*w {
			t.Fatalf("geoAsinSqrt(%v) = %v, asin(sqrt) %v", a, z, w)
		}
	}
}

// geoDestination is the point at distance d (meters) and bearing b
// (radians) from (lon, lat), on the sphere, clamped into the valid range.
func geoDestination(lon, lat, d, b float64) (float64, float64) {
	p1, l1 := degRad(lat), degRad(lon)
	dr := d / geoEarthRadiusM
	p2 := math.Asin(math.Sin(p1)*math.Cos(dr) + math.Cos(p1)*math.Sin(dr)*math.Cos(b))
	l2 := l1 + math.Atan2(math.Sin(b)*math.Sin(dr)*math.Cos(p1), math.Cos(dr)-math.Sin(p1)*math.Sin(p2))
	lon2 := math.Remainder(radDeg(l2), 360)
	return min(max(lon2, geoLongMin), geoLongMax), min(max(radDeg(p2), geoLatMin), geoLatMax)
}

// TestGeoScanTest: a search's test of a candidate decides as Valkey's
// arithmetic does (the correctly rounded distances against the limits),
// and the distance it keeps is within 1e-9 of the exact one, for centers
// anywhere (poles, antimeridian), radii and boxes from a meter to beyond
// the quick test's range, and candidates at random, in the cells' span,
// and within a hair of the limit.
func TestGeoScanTest(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	quick, total := 0, 0
	for iter := range 3000 {
		var s geoShape
		s.xy = [2]float64{-180 + 360*rng.Float64(), -85 + 170*rng.Float64()}
		if iter%10 == 0 {
			s.xy[1] = math.Copysign(80+5*rng.Float64(), s.xy[1])
		}
		lim := math.Pow(10, 7*rng.Float64()) // 1 m .. 10,000 km
		s.conversion = []float64{1, 1000, 0.3048, 1609.34}[rng.IntN(4)]
		circle := iter%2 == 0
		var halfW, halfH float64
		if circle {
			s.typ = geoCircular
			s.radius = lim / s.conversion
		} else {
			s.typ = geoRectangle
			s.width = 2 * lim / s.conversion
			s.height = s.width * math.Pow(10, 2*rng.Float64()-1)
			halfW, halfH = s.width*s.conversion/2, s.height*s.conversion/2
		}
		var g geoScan
		g.init(&s)
		for j := range 40 {
			var lon, lat float64
			switch j % 4 {
			case 0: // anywhere
				lon, lat = -180+360*rng.Float64(), -85+170*rng.Float64()
			case 1: // around the shape
				lon, lat = geoDestination(s.xy[0], s.xy[1], 3*lim*rng.Float64(), 2*math.Pi*rng.Float64())
			default: // on its edge, give or take a few ulps of a cell
				d := lim * (1 + 1e-9*rng.NormFloat64())
				b := 2 * math.Pi * rng.Float64()
				if !circle {
					b = math.Pi / 2 * float64(rng.IntN(4))
					d = []float64{halfH, halfW}[int(b/(math.Pi/2)+0.5)%2] * (1 + 1e-9*rng.NormFloat64())
				}
				lon, lat = geoDestination(s.xy[0], s.xy[1], d, b)
			}
			// Snap to a member's position, as a candidate's.
			score := float64(geoScore(lon, lat))
			lon, lat = geoDecode(score)
			exactD := geoDistance(s.xy[0], s.xy[1], lon, lat)
			var want bool
			if circle {
				want = exactD <= lim
			} else {
				want = geoLatDistance(lat, s.xy[1]) <= halfH && geoDistance(lon, lat, s.xy[0], lat) <= halfW
			}
			if g.quickOK {
				if _, _, ok := g.quick(lon, lat); ok {
					quick++
				}
			}
			total++
			dist, exact, in := g.test(score)
			if in != want {
				t.Fatalf("shape %+v, point %v,%v (exact distance %v): in %v, want %v", s, lon, lat, exactD, in, want)
			}
			if !in {
				continue
			}
			if exact && dist != exactD || math.Abs(dist-exactD) > 1e-9*max(exactD, 1) {
				t.Fatalf("shape %+v, point %v,%v: distance %v (exact %v), want %v", s, lon, lat, dist, exact, exactD)
			}
		}
	}
	if quick < total/3 {
		t.Fatalf("the quick test decided %d of %d candidates", quick, total)
	}
}

// TestGeoScanTestAtLimit: candidates whose exact distance is the limit,
// or an ulp or a hair either side of it, are decided as Valkey's
// arithmetic decides them (the quick test leaves them to the exact one).
func TestGeoScanTestAtLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 3000 {
		ctr := [2]float64{-180 + 360*rng.Float64(), -85 + 170*rng.Float64()}
		d := math.Pow(10, 6*rng.Float64())
		lon, lat := geoDestination(ctr[0], ctr[1], d, 2*math.Pi*rng.Float64())
		score := float64(geoScore(lon, lat))
		lon, lat = geoDecode(score)
		exactD := geoDistance(ctr[0], ctr[1], lon, lat)
		exactW := geoDistance(lon, lat, ctr[0], lat)
		for _, f := range []float64{-1e-7, -1e-12, 0, 1e-12, 1e-7} {
			for _, ulps := range []int{-1, 0, 1} {
				lim := exactD * (1 + f)
				w := exactW * (1 + f)
				for range ulps * ulps {
					lim = math.Nextafter(lim, float64(ulps)*math.Inf(1))
					w = math.Nextafter(w, float64(ulps)*math.Inf(1))
				}
				s := geoShape{typ: geoCircular, xy: ctr, conversion: 1, radius: lim}
				var g geoScan
				g.init(&s)
				if _, _, in := g.test(score); in != (exactD <= lim) {
					t.Fatalf("circle %+v, point %v,%v at %v: in %v", s, lon, lat, exactD, in)
				}
				s = geoShape{typ: geoRectangle, xy: ctr, conversion: 1, width: 2 * w, height: 4 * exactD}
				g = geoScan{}
				g.init(&s)
				want := geoLatDistance(lat, ctr[1]) <= 2*exactD && exactW <= w
				if _, _, in := g.test(score); in != want {
					t.Fatalf("box %+v, point %v,%v at %v: in %v", s, lon, lat, exactW, in)
				}
			}
		}
	}
}
