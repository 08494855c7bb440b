package db

import (
	"slices"
	"sync"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/ds"
)

// Geospatial commands (GEOADD, GEOSEARCH, ...), sorted sets with
// geohash scores: Valkey 8.0.1's geo.c over the arithmetic of
// geo_hash.go. GEOADD is ZADD of the encoded positions (and propagates as
// that ZADD, as Valkey's replaceClientCommandVector makes it); the
// searches read score ranges of the sorted set; the STORE forms write a
// sorted set as ZUNIONSTORE does.
var GeoCommands = []Handler{
	{Spec: command.Geoadd, Proc: geoaddCommand},
	{Spec: command.Geodist, Proc: geodistCommand},
	{Spec: command.Geohash, Proc: geohashCommand},
	{Spec: command.Geopos, Proc: geoposCommand},
	{Spec: command.Georadius, Proc: georadiusCommand},
	{Spec: command.GeoradiusRo, Proc: georadiusRoCommand},
	{Spec: command.Georadiusbymember, Proc: georadiusbymemberCommand},
	{Spec: command.GeoradiusbymemberRo, Proc: georadiusbymemberRoCommand},
	{Spec: command.Geosearch, Proc: geosearchCommand},
	{Spec: command.Geosearchstore, Proc: geosearchstoreCommand},
}

// georadiusGeneric's flags.
const (
	geoRadiusCoords  = 1 << iota // search around coordinates
	geoRadiusMember              // search around a member
	geoRadiusNoStore             // no STORE/STOREDIST option
	geoSearch                    // GEOSEARCH's arguments
	geoSearchStore               // GEOSEARCHSTORE: STOREDIST as a flag
)

const (
	geoSortNone = iota
	geoSortAsc
	geoSortDesc
)

var argZADD = []byte("zadd")

// geoLongLatArgs is extractLongLatOrReply: argv[i] and argv[i+1] as a
// longitude and latitude within the Mercator limits.
func (c *Ctx) geoLongLatArgs(i int) (xy [2]float64, ok bool) {
	for j := 0; j < 2; j++ {
		if xy[j], ok = c.doubleArg(i+j, ErrNotFloat); !ok {
			return xy, false
		}
	}
	if xy[0] < geoLongMin || xy[0] > geoLongMax || xy[1] < geoLatMin || xy[1] > geoLatMax {
		b := []byte("ERR invalid longitude,latitude pair ")
		b = appendCFloat(b, xy[0])
		b = append(b, ',')
		b = appendCFloat(b, xy[1])
		c.W.Error(string(b))
		return xy, false
	}
	return xy, true
}

// geoUnitArg is extractUnitOrReply: meters per unit, or -1 after an error.
func (c *Ctx) geoUnitArg(i int) float64 {
	u := CString(c.Argv[i])
	switch {
	case EqualFold(u, "m"):
		return 1
	case EqualFold(u, "km"):
		return 1000
	case EqualFold(u, "ft"):
		return 0.3048
	case EqualFold(u, "mi"):
		return 1609.34
	}
	c.W.Error("ERR unsupported unit provided. please use M, KM, FT, MI")
	return -1
}

// geoDistanceArgs is extractDistanceOrReply: a radius and its unit.
func (c *Ctx) geoDistanceArgs(i int) (radius, conversion float64, ok bool) {
	if radius, ok = c.doubleArg(i, "ERR need numeric radius"); !ok {
		return
	}
	if radius < 0 {
		c.W.Error("ERR radius cannot be negative")
		return 0, 0, false
	}
	if conversion = c.geoUnitArg(i + 1); conversion < 0 {
		return 0, 0, false
	}
	return radius, conversion, true
}

// geoBoxArgs is extractBoxOrReply: a width, a height and their unit.
func (c *Ctx) geoBoxArgs(i int) (width, height, conversion float64, ok bool) {
	if width, ok = c.doubleArg(i, "ERR need numeric width"); !ok {
		return
	}
	if height, ok = c.doubleArg(i+1, "ERR need numeric height"); !ok {
		return
	}
	if height < 0 || width < 0 {
		c.W.Error("ERR height or width cannot be negative")
		return 0, 0, 0, false
	}
	if conversion = c.geoUnitArg(i + 2); conversion < 0 {
		return 0, 0, 0, false
	}
	return width, height, conversion, true
}

// GEOADD key [NX | XX] [CH] longitude latitude member [...]
func geoaddCommand(c *Ctx) {
	argv := c.Argv
	xx, nx := false, false
	longIdx := 2
	for ; longIdx < len(argv); longIdx++ {
		opt := CString(argv[longIdx])
		if EqualFold(opt, "nx") {
			nx = true
		} else if EqualFold(opt, "xx") {
			xx = true
		} else if !EqualFold(opt, "ch") {
			break
		}
	}
	if (len(argv)-longIdx)%3 != 0 || (xx && nx) {
		c.W.Error(ErrSyntax)
		return
	}
	elements := (len(argv) - longIdx) / 3
	zargv := make([][]byte, longIdx+elements*2)
	zargv[0] = argZADD
	copy(zargv[1:], argv[1:longIdx])
	for i := 0; i < elements; i++ {
		xy, ok := c.geoLongLatArgs(longIdx + i*3)
		if !ok {
			return
		}
		zargv[longIdx+i*2] = AppendInt(nil, int64(geoScore(xy[0], xy[1])))
		zargv[longIdx+1+i*2] = argv[longIdx+i*3+2]
	}
	dirty := c.Dirty
	c.Argv = zargv
	c.zaddGeneric(0)
	c.Argv = argv
	if c.Dirty > dirty {
		c.OwnAs(zargv...)
	}
}

// GEORADIUS key longitude latitude radius unit [options] [STORE | STOREDIST key]
func georadiusCommand(c *Ctx) { c.georadiusGeneric(1, geoRadiusCoords) }

// GEORADIUSBYMEMBER key member radius unit [options] [STORE | STOREDIST key]
func georadiusbymemberCommand(c *Ctx) { c.georadiusGeneric(1, geoRadiusMember) }

// GEORADIUS_RO key longitude latitude radius unit [options]
func georadiusRoCommand(c *Ctx) { c.georadiusGeneric(1, geoRadiusCoords|geoRadiusNoStore) }

// GEORADIUSBYMEMBER_RO key member radius unit [options]
func georadiusbymemberRoCommand(c *Ctx) {
	c.georadiusGeneric(1, geoRadiusMember|geoRadiusNoStore)
}

// GEOSEARCH key FROMMEMBER member | FROMLONLAT lon lat BYRADIUS r unit | BYBOX w h unit [options]
func geosearchCommand(c *Ctx) { c.georadiusGeneric(1, geoSearch) }

// GEOSEARCHSTORE dst src FROMMEMBER ... | FROMLONLAT ... BYRADIUS ... | BYBOX ... [options] [STOREDIST]
func geosearchstoreCommand(c *Ctx) { c.georadiusGeneric(2, geoSearch|geoSearchStore) }

// geoPoint is one member found by a search. Its member is not copied:
// the set is not modified while the search's points are in use.
type geoPoint struct {
	dist   float64 // from the center, in meters: fast unless exact
	score  float64
	member []byte    // a listpack's member (aliasing the set)
	node   *ds.ZNode // a skiplist's member, loaded only when named
	exact  bool
}

// name returns the member's bytes.
func (p *geoPoint) name() []byte {
	if p.node != nil {
		return p.node.Member()
	}
	return p.member
}

// exactDist makes p's distance Valkey's (geoDistance from the center):
// where it is shown, stored, or compared with a distance close to it.
func (p *geoPoint) exactDist(s *geoShape) {
	if !p.exact {
		lon, lat := geoDecode(p.score)
		p.dist = geoDistance(s.xy[0], s.xy[1], lon, lat)
		p.exact = true
	}
}

// geoCmpDist compares two points' distances as Valkey does, from the
// fast distances unless they are too close to tell apart.
func geoCmpDist(s *geoShape, a, b *geoPoint) int {
	if (!a.exact || !b.exact) && !geoClearOf(a.dist, b.dist) {
		a.exactDist(s)
		b.exactDist(s)
	}
	return cmpDist(a.dist, b.dist)
}

// geoMemberPos is longLatFromMember.
func geoMemberPos(o *Object, member []byte) (xy [2]float64, ok bool) {
	score, ok := zsetScore(o, member)
	if !ok {
		return xy, false
	}
	xy[0], xy[1], ok = decodeGeohash(score)
	return xy, ok
}

// geoMembersOfAllNeighbors is membersOfAllNeighbors: the center cell and
// its 8 neighbours, skipping zeroed ones and a cell equal to the one
// processed just before (huge radii make neighbours coincide). The
// points are appended to ga.
func geoMembersOfAllNeighbors(o *Object, n *geoRadius, shape *geoShape, limit int, ga []geoPoint) []geoPoint {
	var g geoScan
	g.init(shape)
	cells := [9]geoHashBits{n.hash, n.neighbors.north, n.neighbors.south, n.neighbors.east, n.neighbors.west,
		n.neighbors.northEast, n.neighbors.northWest, n.neighbors.southEast, n.neighbors.southWest}
	last := 0
	for i, cell := range cells {
		if cell.isZero() {
			continue
		}
		if last != 0 && cell.bits == cells[last].bits && cell.step == cells[last].step {
			continue
		}
		if len(ga) > 0 && limit > 0 && len(ga) >= limit {
			break
		}
		// scoresOfGeoHashBox: the cell's prefix, and the next one.
		min := geohashAlign52Bits(cell)
		cell.bits++
		max := geohashAlign52Bits(cell)
		ga = g.pointsInRange(o, float64(min), float64(max), ga, limit)
		last = i
	}
	return ga
}

// georadiusGeneric is Valkey's georadiusGeneric: srcKeyIndex is the
// source key's position.
func (c *Ctx) georadiusGeneric(srcKeyIndex int, flags int) {
	argv := c.Argv
	var storeKey []byte
	storeDist := false

	zobj, ok := c.lookupReadAs(argv[srcKeyIndex], TypeZSet)
	if !ok {
		return
	}

	var baseArgs int
	var shape geoShape
	switch {
	case flags&geoRadiusCoords != 0:
		baseArgs = 6
		shape.typ = geoCircular
		if shape.xy, ok = c.geoLongLatArgs(2); !ok {
			return
		}
		if shape.radius, shape.conversion, ok = c.geoDistanceArgs(baseArgs - 2); !ok {
			return
		}
	case flags&geoRadiusMember != 0 && zobj == nil:
		baseArgs = 5
	case flags&geoRadiusMember != 0:
		baseArgs = 5
		shape.typ = geoCircular
		if shape.xy, ok = geoMemberPos(zobj, argv[2]); !ok {
			c.W.Error("ERR could not decode requested zset member")
			return
		}
		if shape.radius, shape.conversion, ok = c.geoDistanceArgs(baseArgs - 2); !ok {
			return
		}
	default: // GEOSEARCH, GEOSEARCHSTORE
		baseArgs = 2
		if flags&geoSearchStore != 0 {
			baseArgs = 3
			storeKey = argv[1]
		}
	}

	withDist, withHash, withCoords := false, false, false
	fromMember, fromLoc, byRadius, byBox := false, false, false, false
	order := geoSortNone
	anyOpt := false
	var count int64
	search := flags&geoSearch != 0
	canStore := flags&geoRadiusNoStore == 0 && !search
	remaining := len(argv) - baseArgs
	for i := 0; i < remaining; i++ {
		j := baseArgs + i
		arg := CString(argv[j])
		switch {
		case EqualFold(arg, "withdist"):
			withDist = true
		case EqualFold(arg, "withhash"):
			withHash = true
		case EqualFold(arg, "withcoord"):
			withCoords = true
		case EqualFold(arg, "any"):
			anyOpt = true
		case EqualFold(arg, "asc"):
			order = geoSortAsc
		case EqualFold(arg, "desc"):
			order = geoSortDesc
		case EqualFold(arg, "count") && i+1 < remaining:
			if count, ok = c.IntArg(j + 1); !ok {
				return
			}
			if count <= 0 {
				c.W.Error("ERR COUNT must be > 0")
				return
			}
			i++
		case EqualFold(arg, "store") && i+1 < remaining && canStore:
			storeKey = argv[j+1]
			storeDist = false
			i++
		case EqualFold(arg, "storedist") && i+1 < remaining && canStore:
			storeKey = argv[j+1]
			storeDist = true
			i++
		case EqualFold(arg, "storedist") && search && flags&geoSearchStore != 0:
			storeDist = true
		case EqualFold(arg, "frommember") && i+1 < remaining && search && !fromLoc:
			if zobj == nil { // no source: parse on, reply when done
				fromMember = true
				i++
				continue
			}
			if shape.xy, ok = geoMemberPos(zobj, argv[j+1]); !ok {
				c.W.Error("ERR could not decode requested zset member")
				return
			}
			fromMember = true
			i++
		case EqualFold(arg, "fromlonlat") && i+2 < remaining && search && !fromMember:
			if shape.xy, ok = c.geoLongLatArgs(j + 1); !ok {
				return
			}
			fromLoc = true
			i += 2
		case EqualFold(arg, "byradius") && i+2 < remaining && search && !byBox:
			if shape.radius, shape.conversion, ok = c.geoDistanceArgs(j + 1); !ok {
				return
			}
			shape.typ = geoCircular
			byRadius = true
			i += 2
		case EqualFold(arg, "bybox") && i+3 < remaining && search && !byRadius:
			if shape.width, shape.height, shape.conversion, ok = c.geoBoxArgs(j + 1); !ok {
				return
			}
			shape.typ = geoRectangle
			byBox = true
			i += 3
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}

	if storeKey != nil && (withDist || withHash || withCoords) {
		if flags&geoSearchStore != 0 {
			c.W.Error("ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		} else {
			c.W.Error("ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options")
		}
		return
	}
	if search && !(fromMember || fromLoc) {
		c.W.Error("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(CString(argv[0])))
		return
	}
	if search && !(byRadius || byBox) {
		c.W.Error("ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(CString(argv[0])))
		return
	}
	if anyOpt && count == 0 {
		c.W.Error("ERR the ANY argument requires COUNT argument")
		return
	}

	if zobj == nil {
		if storeKey != nil {
			c.dropStored(storeKey)
			c.W.Int(0)
		} else {
			c.W.ArrayLen(0)
		}
		return
	}

	// COUNT without an order means the nearest ones (not with ANY).
	if count != 0 && order == geoSortNone && !anyOpt {
		order = geoSortAsc
	}

	areas := shape.areasByShape()
	limit := 0
	if anyOpt {
		limit = int(min(count, int64(^uint(0)>>1)))
	}
	buf := geoPointPool.Get().(*[]geoPoint)
	ga := geoMembersOfAllNeighbors(zobj, &areas, &shape, limit, (*buf)[:0])
	defer geoPutPoints(buf, ga)

	if len(ga) == 0 && storeKey == nil {
		c.W.ArrayLen(0)
		return
	}

	returned := len(ga)
	if count != 0 && int64(len(ga)) > count {
		returned = int(count)
	}
	if order != geoSortNone {
		cmp := geoOrder{&shape, order == geoSortDesc}
		if returned == len(ga) {
			tbuf := geoPointPool.Get().(*[]geoPoint)
			tmp := slices.Grow((*tbuf)[:0], len(ga))[:len(ga)]
			geoStableSort(ga, tmp, cmp)
			geoPutPoints(tbuf, tmp)
		} else {
			geoPartialSort(ga, cmp, 0, returned-1)
		}
	}
	ga = ga[:returned]

	if storeKey == nil {
		optionLength := 0
		if withDist {
			optionLength++
		}
		if withCoords {
			optionLength++
		}
		if withHash {
			optionLength++
		}
		c.W.ArrayLen(returned)
		var tmp [64]byte
		for i := range ga {
			gp := &ga[i]
			if withDist {
				gp.exactDist(&shape)
			}
			gp.dist /= shape.conversion
			if optionLength > 0 {
				c.W.ArrayLen(optionLength + 1)
			}
			c.W.Bulk(gp.name())
			if withDist {
				c.W.Bulk(appendGeoDistance(tmp[:0], gp.dist))
			}
			if withHash {
				c.W.Int(int64(gp.score))
			}
			if withCoords {
				lon, lat := geoDecode(gp.score)
				c.W.ArrayLen(2)
				c.replyHumanDouble(lon)
				c.replyHumanDouble(lat)
			}
		}
		return
	}

	if returned == 0 {
		c.dropStored(storeKey)
		c.W.Int(0)
		return
	}
	res := ds.NewZSkip(returned)
	maxLen := 0
	for i := range ga {
		gp := &ga[i]
		gp.exactDist(&shape)
		gp.dist /= shape.conversion
		score := gp.score
		if storeDist {
			score = gp.dist
		}
		m := gp.name()
		maxLen = max(maxLen, len(m))
		res.Add(m, score)
	}
	o := newObject(TypeZSet, res)
	zsetMaybeToPack(c.cfg(), o, maxLen)
	c.createZSet(storeKey, o.Value())
	c.touchN(storeKey, returned)
	if search {
		c.Notify(NotifyZset, "geosearchstore", storeKey)
	} else {
		c.Notify(NotifyZset, "georadiusstore", storeKey)
	}
	c.W.Int(int64(returned))
}

// geoPointPool recycles searches' point buffers (*[]geoPoint).
var geoPointPool = sync.Pool{New: func() any { return new([]geoPoint) }}

// geoPutPoints returns ga, a search's points, to the pool in buf, cleared
// (its members must not keep their sets' memory alive) and unless large.
func geoPutPoints(buf *[]geoPoint, ga []geoPoint) {
	if cap(ga) > 4096 {
		return
	}
	clear(ga)
	*buf = ga[:0]
	geoPointPool.Put(buf)
}

// geoOrder is the order of a search's reply: sort_gp_asc or
// sort_gp_desc.
type geoOrder struct {
	shape *geoShape
	desc  bool
}

func (o geoOrder) cmp(a, b *geoPoint) int {
	if o.desc {
		return -geoCmpDist(o.shape, a, b)
	}
	return geoCmpDist(o.shape, a, b)
}

// cmpDist is sort_gp_asc's comparison.
func cmpDist(a, b float64) int {
	switch {
	case a > b:
		return 1
	case a == b:
		return 0
	}
	return -1
}

// replyHumanDouble is addReplyHumanLongDouble: the human form of f as a
// bulk string in RESP2, a double in RESP3.
func (c *Ctx) replyHumanDouble(f float64) {
	var tmp [64]byte
	if c.W.Proto >= 3 {
		b := append(tmp[:0], ',')
		b = appendHumanDouble(b, f)
		c.W.Raw(append(b, '\r', '\n'))
		return
	}
	c.W.Bulk(appendHumanDouble(tmp[:0], f))
}

// GEOHASH key [member ...]
func geohashCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	c.W.ArrayLen(len(c.Argv) - 2)
	for _, m := range c.Argv[2:] {
		var score float64
		found := false
		if o != nil {
			score, found = zsetScore(o, m)
		}
		if !found {
			c.W.Null()
			continue
		}
		s, ok := geohashString(score)
		if !ok {
			c.W.Null()
			continue
		}
		c.W.BulkString(s)
	}
}

// GEOPOS key [member ...]
func geoposCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	c.W.ArrayLen(len(c.Argv) - 2)
	for _, m := range c.Argv[2:] {
		var score float64
		found := false
		if o != nil {
			score, found = zsetScore(o, m)
		}
		if !found {
			c.W.NullArray()
			continue
		}
		lon, lat, ok := decodeGeohash(score)
		if !ok {
			c.W.NullArray()
			continue
		}
		c.W.ArrayLen(2)
		c.replyHumanDouble(lon)
		c.replyHumanDouble(lat)
	}
}

// GEODIST key member1 member2 [M | KM | FT | MI]
func geodistCommand(c *Ctx) {
	toMeter := 1.0
	if len(c.Argv) == 5 {
		if toMeter = c.geoUnitArg(4); toMeter < 0 {
			return
		}
	} else if len(c.Argv) > 5 {
		c.W.Error(ErrSyntax)
		return
	}
	o := c.LookupRead(c.Argv[1])
	if o == nil {
		c.W.Null()
		return
	}
	if o.Type != TypeZSet {
		c.W.Error(ErrWrongType)
		return
	}
	s1, ok1 := zsetScore(o, c.Argv[2])
	s2, ok2 := zsetScore(o, c.Argv[3])
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	lon1, lat1, ok1 := decodeGeohash(s1)
	lon2, lat2, ok2 := decodeGeohash(s2)
	if !ok1 || !ok2 {
		c.W.Null()
		return
	}
	var tmp [64]byte
	c.W.Bulk(appendGeoDistance(tmp[:0], geoDistance(lon1, lat1, lon2, lat2)/toMeter))
}
