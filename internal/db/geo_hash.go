package db

import (
	"math"
	"math/bits"
	"strconv"
)

// The geohash arithmetic of Valkey 8.0.1 (geohash.c, geohash_helper.c):
// a point is the 52-bit interleave of its longitude and latitude cells at
// step 26, over longitudes -180..180 and latitudes -85.05112878..
// 85.05112878 (the Web Mercator limits); a sorted set member's score is
// that number. Searches cover the query's shape with the 9 cells (center
// and neighbours) of one step and scan each cell's score range. Every
// operation below follows the C code's floating-point steps, so that
// positions, distances and the members found are Valkey's to the bit.

const (
	geoStepMax = 26 // 26*2 = 52 bits
	geoLatMin  = -85.05112878
	geoLatMax  = 85.05112878
	geoLongMin = -180
	geoLongMax = 180

	geoMercatorMax    = 20037726.37
	geoEarthRadiusM   = 6372797.560856
	geoDegToRadFactor = math.Pi / 180.0
)

// geoHashBits is GeoHashBits: an interleaved hash of 2*step bits.
type geoHashBits struct {
	bits uint64
	step uint8
}

func (h geoHashBits) isZero() bool { return h.bits == 0 && h.step == 0 }

type geoRange struct{ min, max float64 }

func (r geoRange) isZero() bool { return r.max == 0 && r.min == 0 }

// geoArea is GeoHashArea: a hash's cell.
type geoArea struct {
	hash      geoHashBits
	longitude geoRange
	latitude  geoRange
}

// geoNeighbors is GeoHashNeighbors.
type geoNeighbors struct {
	north, east, west, south                   geoHashBits
	northEast, southEast, northWest, southWest geoHashBits
}

// interleave64 spreads xlo over the even bits and ylo over the odd ones.
func interleave64(xlo, ylo uint32) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F,
		0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF}
	s := [...]uint{1, 2, 4, 8, 16}
	x, y := uint64(xlo), uint64(ylo)
	for i := 4; i >= 0; i-- {
		x = (x | (x << s[i])) & b[i]
		y = (y | (y << s[i])) & b[i]
	}
	return x | (y << 1)
}

// deinterleave64 undoes interleave64: the even bits in the low half, the
// odd ones in the high half.
func deinterleave64(interleaved uint64) uint64 {
	b := [...]uint64{0x5555555555555555, 0x3333333333333333, 0x0F0F0F0F0F0F0F0F,
		0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF}
	s := [...]uint{0, 1, 2, 4, 8, 16}
	x := interleaved
	y := interleaved >> 1
	for i := 0; i < 6; i++ {
		x = (x | (x >> s[i])) & b[i]
		y = (y | (y >> s[i])) & b[i]
	}
	return x | (y << 32)
}

// geoCoordRange is geohashGetCoordRange.
func geoCoordRange() (long, lat geoRange) {
	return geoRange{geoLongMin, geoLongMax}, geoRange{geoLatMin, geoLatMax}
}

// f2u32 is C's (uint32_t) conversion of a double in range.
func f2u32(f float64) uint32 { return uint32(int64(f)) }

// geohashEncode is geohashEncode; ok false where it returns 0 (hash is
// still what the C code leaves in it).
func geohashEncode(longRange, latRange geoRange, longitude, latitude float64, step uint8) (hash geoHashBits, ok bool) {
	if step > 32 || step == 0 || latRange.isZero() || longRange.isZero() {
		return hash, false
	}
	if longitude > geoLongMax || longitude < geoLongMin || latitude > geoLatMax || latitude < geoLatMin {
		return hash, false
	}
	hash.step = step
	if latitude < latRange.min || latitude > latRange.max || longitude < longRange.min || longitude > longRange.max {
		return hash, false
	}
	latOffset := (latitude - latRange.min) / (latRange.max - latRange.min)
	longOffset := (longitude - longRange.min) / (longRange.max - longRange.min)
	latOffset *= float64(uint64(1) << step)
	longOffset *= float64(uint64(1) << step)
	hash.bits = interleave64(f2u32(latOffset), f2u32(longOffset))
	return hash, true
}

// geohashEncodeWGS84 encodes over the Mercator limits.
func geohashEncodeWGS84(longitude, latitude float64, step uint8) (geoHashBits, bool) {
	lo, la := geoCoordRange()
	return geohashEncode(lo, la, longitude, latitude, step)
}

// geohashDecode is geohashDecode.
func geohashDecode(longRange, latRange geoRange, hash geoHashBits) (area geoArea, ok bool) {
	if hash.isZero() || latRange.isZero() || longRange.isZero() {
		return area, false
	}
	area.hash = hash
	step := hash.step
	sep := deinterleave64(hash.bits)
	latScale := latRange.max - latRange.min
	longScale := longRange.max - longRange.min
	ilato := uint32(sep)
	ilono := uint32(sep >> 32)
	div := float64(uint64(1) << step)
	area.latitude.min = latRange.min + (float64(ilato)*1.0/div)*latScale
	area.latitude.max = latRange.min + (float64(ilato+1)*1.0/div)*latScale
	area.longitude.min = longRange.min + (float64(ilono)*1.0/div)*longScale
	area.longitude.max = longRange.min + (float64(ilono+1)*1.0/div)*longScale
	return area, true
}

// geohashDecodeAreaToLongLat returns the cell's center, clamped.
func geohashDecodeAreaToLongLat(area *geoArea) (lon, lat float64) {
	lon = (area.longitude.min + area.longitude.max) / 2
	lon = min(max(lon, geoLongMin), geoLongMax)
	lat = (area.latitude.min + area.latitude.max) / 2
	lat = min(max(lat, geoLatMin), geoLatMax)
	return lon, lat
}

// score2u64 is C's (uint64_t) conversion of a score, as x86-64 does it.
func score2u64(f float64) uint64 {
	if f >= 9223372036854775808.0 {
		return uint64(int64(f-9223372036854775808.0)) ^ (1 << 63)
	}
	return uint64(int64(f))
}

// decodeGeohash is geo.c's decodeGeohash: a score's position.
func decodeGeohash(score float64) (lon, lat float64, ok bool) {
	hash := geoHashBits{bits: score2u64(score), step: geoStepMax}
	lo, la := geoCoordRange()
	area, ok := geohashDecode(lo, la, hash)
	if !ok {
		return 0, 0, false
	}
	lon, lat = geohashDecodeAreaToLongLat(&area)
	return lon, lat, true
}

// geohashAlign52Bits shifts a hash to the 52-bit score scale.
func geohashAlign52Bits(h geoHashBits) uint64 {
	return h.bits << (52 - uint(h.step)*2)
}

// geoScore is the score GEOADD gives a (valid) position.
func geoScore(lon, lat float64) uint64 {
	h, _ := geohashEncodeWGS84(lon, lat, geoStepMax)
	return geohashAlign52Bits(h)
}

// geohashMoveX and geohashMoveY step h one cell east/west (north/south)
// for d > 0 (d < 0), as Valkey's geohash_move_x and geohash_move_y: the
// interleaved longitude bits are the odd ones, the latitude bits the even.
func geohashMoveX(h *geoHashBits, d int) { geohashMove(h, d, 0xaaaaaaaaaaaaaaaa) }
func geohashMoveY(h *geoHashBits, d int) { geohashMove(h, d, 0x5555555555555555) }

// geohashMove adds d's sign to the coordinate whose bits are mask,
// wrapping within h's step, and leaves the other coordinate's bits.
func geohashMove(h *geoHashBits, d int, mask uint64) {
	if d == 0 {
		return
	}
	v := h.bits & mask
	other := h.bits &^ mask
	zz := ^mask >> (64 - uint(h.step)*2)
	if d > 0 {
		v = v + (zz + 1)
	} else {
		v = v | zz
		v = v - (zz + 1)
	}
	v &= mask >> (64 - uint(h.step)*2)
	h.bits = v | other
}

// geohashNeighbors is geohashNeighbors.
func geohashNeighbors(h geoHashBits) geoNeighbors {
	move := func(dx, dy int) geoHashBits {
		n := h
		geohashMoveX(&n, dx)
		geohashMoveY(&n, dy)
		return n
	}
	return geoNeighbors{
		east: move(1, 0), west: move(-1, 0), south: move(0, -1), north: move(0, 1),
		northWest: move(-1, 1), northEast: move(1, 1), southEast: move(1, -1), southWest: move(-1, -1),
	}
}

// Search shapes (GeoShape).
const (
	geoCircular = iota + 1
	geoRectangle
)

type geoShape struct {
	typ        int
	xy         [2]float64 // center: longitude, latitude
	conversion float64    // meters per unit
	bounds     [4]float64 // min lon, min lat, max lon, max lat
	radius     float64    // circular
	height     float64    // rectangle
	width      float64
}

func degRad(ang float64) float64 { return ang * geoDegToRadFactor }
func radDeg(ang float64) float64 { return ang / geoDegToRadFactor }

// geohashEstimateStepsByRadius is geohashEstimateStepsByRadius.
func geohashEstimateStepsByRadius(rangeMeters, lat float64) int {
	if rangeMeters == 0 {
		return 26
	}
	step := 1
	for rangeMeters < geoMercatorMax {
		rangeMeters *= 2
		step++
	}
	step -= 2
	if lat > 66 || lat < -66 {
		step--
		if lat > 80 || lat < -80 {
			step--
		}
	}
	if step < 1 {
		step = 1
	}
	if step > 26 {
		step = 26
	}
	return step
}

// boundingBox is geohashBoundingBox.
func (s *geoShape) boundingBox() {
	var height, width float64
	if s.typ == geoCircular {
		height = s.conversion * s.radius
		width = s.conversion * s.radius
	} else {
		height = s.conversion * s.height / 2
		width = s.conversion * s.width / 2
	}
	longitude, latitude := s.xy[0], s.xy[1]
	latDelta := radDeg(height / geoEarthRadiusM)
	longDeltaTop := radDeg(width / geoEarthRadiusM / geoCos(degRad(latitude+latDelta)))
	longDeltaBottom := radDeg(width / geoEarthRadiusM / geoCos(degRad(latitude-latDelta)))
	if latitude < 0 {
		s.bounds[0] = longitude - longDeltaBottom
		s.bounds[2] = longitude + longDeltaBottom
	} else {
		s.bounds[0] = longitude - longDeltaTop
		s.bounds[2] = longitude + longDeltaTop
	}
	s.bounds[1] = latitude - latDelta
	s.bounds[3] = latitude + latDelta
}

// geoRadius is GeoHashRadius: the center cell and its neighbours (zeroed
// where useless).
type geoRadius struct {
	hash      geoHashBits
	area      geoArea
	neighbors geoNeighbors
}

// areasByShape is geohashCalculateAreasByShapeWGS84.
func (s *geoShape) areasByShape() geoRadius {
	s.boundingBox()
	minLon, minLat, maxLon, maxLat := s.bounds[0], s.bounds[1], s.bounds[2], s.bounds[3]
	longitude, latitude := s.xy[0], s.xy[1]
	var radiusMeters float64
	if s.typ == geoCircular {
		radiusMeters = s.radius
	} else {
		radiusMeters = math.Sqrt((s.width/2)*(s.width/2) + (s.height/2)*(s.height/2))
	}
	radiusMeters *= s.conversion

	steps := geohashEstimateStepsByRadius(radiusMeters, latitude)
	longRange, latRange := geoCoordRange()
	hash, _ := geohashEncode(longRange, latRange, longitude, latitude, uint8(steps))
	neighbors := geohashNeighbors(hash)
	area, _ := geohashDecode(longRange, latRange, hash)

	decrease := false
	{
		north, _ := geohashDecode(longRange, latRange, neighbors.north)
		south, _ := geohashDecode(longRange, latRange, neighbors.south)
		east, _ := geohashDecode(longRange, latRange, neighbors.east)
		west, _ := geohashDecode(longRange, latRange, neighbors.west)
		if north.latitude.max < maxLat {
			decrease = true
		}
		if south.latitude.min > minLat {
			decrease = true
		}
		if east.longitude.max < maxLon {
			decrease = true
		}
		if west.longitude.min > minLon {
			decrease = true
		}
	}
	if steps > 1 && decrease {
		steps--
		hash, _ = geohashEncode(longRange, latRange, longitude, latitude, uint8(steps))
		neighbors = geohashNeighbors(hash)
		area, _ = geohashDecode(longRange, latRange, hash)
	}
	if steps >= 2 {
		if area.latitude.min < minLat {
			neighbors.south, neighbors.southWest, neighbors.southEast = geoHashBits{}, geoHashBits{}, geoHashBits{}
		}
		if area.latitude.max > maxLat {
			neighbors.north, neighbors.northEast, neighbors.northWest = geoHashBits{}, geoHashBits{}, geoHashBits{}
		}
		if area.longitude.min < minLon {
			neighbors.west, neighbors.southWest, neighbors.northWest = geoHashBits{}, geoHashBits{}, geoHashBits{}
		}
		if area.longitude.max > maxLon {
			neighbors.east, neighbors.southEast, neighbors.northEast = geoHashBits{}, geoHashBits{}, geoHashBits{}
		}
	}
	return geoRadius{hash: hash, area: area, neighbors: neighbors}
}

// geoLatDistance is geohashGetLatDistance.
func geoLatDistance(lat1d, lat2d float64) float64 {
	return geoEarthRadiusM * math.Abs(degRad(lat2d)-degRad(lat1d))
}

// geoDistance is geohashGetDistance: the haversine distance in meters.
func geoDistance(lon1d, lat1d, lon2d, lat2d float64) float64 {
	lon1r := degRad(lon1d)
	lon2r := degRad(lon2d)
	v := geoSin((lon2r - lon1r) / 2)
	if v == 0.0 {
		return geoLatDistance(lat1d, lat2d)
	}
	lat1r := degRad(lat1d)
	lat2r := degRad(lat2d)
	u := geoSin((lat2r - lat1r) / 2)
	a := u*u + geoCos(lat1r)*geoCos(lat2r)*v*v
	return 2.0 * geoEarthRadiusM * geoAsin(math.Sqrt(a))
}

// geoDistanceFast is geoDistance with Go's sine, cosine and arcsine,
// which are within a few ulps of the correctly rounded ones geoDistance
// uses (and Valkey's libm returns): many times faster, with a relative
// error far below geoFastMargin while a < 0.99 (far from antipodal,
// where arcsine is well conditioned). ok is false where that bound does
// not hold.
func geoDistanceFast(lon1d, lat1d, lon2d, lat2d float64) (d float64, ok bool) {
	lon1r := degRad(lon1d)
	lon2r := degRad(lon2d)
	v := math.Sin((lon2r - lon1r) / 2)
	if v == 0.0 {
		return geoLatDistance(lat1d, lat2d), true
	}
	lat1r := degRad(lat1d)
	lat2r := degRad(lat2d)
	u := math.Sin((lat2r - lat1r) / 2)
	a := u*u + math.Cos(lat1r)*math.Cos(lat2r)*v*v
	if !(a < 0.99) {
		return 0, false
	}
	return 2.0 * geoEarthRadiusM * math.Asin(math.Sqrt(a)), true
}

// geoFastMargin is how far (relative) a fast distance must be from what
// it is compared with for the comparison to be the exact distance's:
// about a million times the fast distance's error.
const geoFastMargin = 1e-7

// geoClearOf reports whether d, a fast distance, compares with limit as
// the exact distance would.
func geoClearOf(d, limit float64) bool {
	return math.Abs(d-limit) > geoFastMargin*max(math.Abs(d), math.Abs(limit), 1)
}

// geoWithinDistance reports whether geoDistance(...) <= limit, from the
// fast distance when it is clear of the limit, and returns the distance
// it used (exact says whether that is geoDistance's).
func geoWithinDistance(lon1d, lat1d, lon2d, lat2d, limit float64) (d float64, in, exact bool) {
	if d, ok := geoDistanceFast(lon1d, lat1d, lon2d, lat2d); ok && geoClearOf(d, limit) {
		return d, d <= limit, false
	}
	d = geoDistance(lon1d, lat1d, lon2d, lat2d)
	return d, d <= limit, true
}

// geoInRectangle is geohashGetDistanceIfInRectangle: whether the point
// is in the box, and its distance from the center (fast unless exact).
func geoInRectangle(widthM, heightM, x1, y1, x2, y2 float64) (dist float64, in, exact bool) {
	if geoLatDistance(y2, y1) > heightM/2 {
		return 0, false, false
	}
	if _, in, _ := geoWithinDistance(x2, y2, x1, y2, widthM/2); !in {
		return 0, false, false
	}
	if d, ok := geoDistanceFast(x1, y1, x2, y2); ok {
		return d, true, false
	}
	return geoDistance(x1, y1, x2, y2), true, true
}

// appendGeoDistance is addReplyDoubleDistance's text (fixedpoint_d2string
// with 4 digits): d*10^4 rounded half to even (llrint), then placed.
func appendGeoDistance(dst []byte, d float64) []byte {
	if d == 0 {
		return append(dst, "0.0000"...)
	}
	sv := int64(math.RoundToEven(d * 10000.0))
	var v uint64
	if sv < 0 {
		dst = append(dst, '-')
		v = uint64(-sv)
	} else {
		v = uint64(sv)
	}
	ip := v / 10000
	fp := v % 10000
	dst = strconv.AppendUint(dst, ip, 10)
	dst = append(dst, '.', byte('0'+fp/1000), byte('0'+fp/100%10), byte('0'+fp/10%10), byte('0'+fp%10))
	return dst
}

// appendHumanDouble is ld2string's LD_STR_HUMAN of a double (as Valkey's
// addReplyHumanLongDouble shows coordinates): "%.17Lf" of the exact
// value with trailing zeros (and a bare point) dropped, "-0" as "0".
func appendHumanDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		return append(dst, "nan"...)
	}
	start := len(dst)
	if b, ok := appendFixed17(dst, f); ok {
		return b
	}
	dst = strconv.AppendFloat(dst, f, 'f', 17, 64)
	l := len(dst)
	for dst[l-1] == '0' {
		l--
	}
	if dst[l-1] == '.' {
		l--
	}
	dst = dst[:l]
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

// appendFixed17 is appendHumanDouble for a finite f of magnitude 2^-57
// to 184 (every coordinate a geohash decodes to but those within 2^-57
// of 0): f's exact value times 10^17, rounded half to even, in 128-bit
// integer arithmetic, then the trailing zeros dropped. strconv's "%.17f"
// takes its slow exact path for these (18 or more digits): ~10x the
// time. ok is false outside that range.
func appendFixed17(dst []byte, f float64) ([]byte, bool) {
	const pow17 = 100000000000000000
	fb := math.Float64bits(f)
	e := int(fb>>52&0x7ff) - 1075 // f = ±m * 2^e
	m := fb&(1<<52-1) | 1<<52
	if fb&^(1<<63) == 0 {
		return append(dst, '0'), true
	}
	if e >= 0 || e < -109 || math.Abs(f) >= 184 {
		return dst, false // also NaN, inf and subnormals
	}
	n := uint(-e) // fractional bits: m*10^17 (< 2^110) >> n is the value
	hi, lo := bits.Mul64(m, pow17)
	var q uint64
	var up bool // the part shifted out is above half, or half and q odd
	if n < 64 {
		q = hi<<(64-n) | lo>>n
		rem, half := lo&(1<<n-1), uint64(1)<<(n-1)
		up = rem > half || rem == half && q&1 == 1
	} else {
		q = hi >> (n - 64)
		remHi, remLo := hi&(1<<(n-64)-1), lo
		var halfHi, halfLo uint64
		if n == 64 {
			halfLo = 1 << 63
		} else {
			halfHi = 1 << (n - 65)
		}
		up = remHi > halfHi || remHi == halfHi && (remLo > halfLo || remLo == halfLo && q&1 == 1)
	}
	if up {
		q++
	}
	if q == 0 {
		return append(dst, '0'), true
	}
	if fb>>63 != 0 {
		dst = append(dst, '-')
	}
	dst = strconv.AppendUint(dst, q/pow17, 10)
	frac := q % pow17
	if frac == 0 {
		return dst, true
	}
	var d [17]byte
	for i := 16; i >= 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	l := 17
	for d[l-1] == '0' {
		l--
	}
	dst = append(dst, '.')
	return append(dst, d[:l]...), true
}

// appendCFloat is C's "%f" (6 decimals; inf and nan spelled as glibc does).
func appendCFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	}
	return strconv.AppendFloat(dst, f, 'f', 6, 64)
}

// geohashString is GEOHASH's 11-character standard geohash of a score:
// the decoded position re-encoded over latitudes -90..90.
func geohashString(score float64) (string, bool) {
	const alphabet = "0123456789bcdefghjkmnpqrstuvwxyz"
	lon, lat, ok := decodeGeohash(score)
	if !ok {
		return "", false
	}
	h, _ := geohashEncode(geoRange{-180, 180}, geoRange{-90, 90}, lon, lat, 26)
	var buf [11]byte
	for i := 0; i < 11; i++ {
		idx := uint64(0)
		if i != 10 {
			idx = (h.bits >> (52 - uint((i+1)*5))) & 0x1f
		}
		buf[i] = alphabet[idx]
	}
	return string(buf[:]), true
}
