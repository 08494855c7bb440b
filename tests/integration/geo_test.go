package integration

import (
	"bufio"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// The geospatial commands side by side with Valkey 8.0.1: seeded random
// points (with points at the latitude limits, near the poles' edge of the
// Mercator range and on both sides of the antimeridian) in a listpack and
// a skiplist sorted set, then GEOPOS, GEOHASH, GEODIST and every
// combination of the search options of GEOSEARCH, GEORADIUS,
// GEORADIUSBYMEMBER (and their _RO forms and STORE variants), compared
// byte for byte. Where Valkey leaves the order unspecified (no ASC or
// DESC, and no COUNT without ANY) the replies are compared as sets of
// elements.

// geoPair sends each command to both servers.
type geoPair struct {
	t    *testing.T
	c, v *testutil.Raw
	n    int
}

// splitReply parses an exact array reply into its header and its
// top-level elements' exact bytes.
func splitReply(s string) (string, []string) {
	r := bufio.NewReader(strings.NewReader(s))
	line, err := r.ReadString('\n')
	if err != nil || line[0] != '*' {
		return s, nil
	}
	n, _ := strconv.Atoi(strings.TrimRight(line[1:], "\r\n"))
	elems := make([]string, 0, max(n, 0))
	for i := 0; i < n; i++ {
		var b strings.Builder
		if err := testutil.CopyReply(r, &b); err != nil {
			return s, nil
		}
		elems = append(elems, b.String())
	}
	return line, elems
}

// same sends args to both servers and compares the replies: exactly when
// ordered, else as a multiset of top-level elements. It returns
// Corvid's reply.
func (p *geoPair) same(ordered bool, args ...string) string {
	p.t.Helper()
	p.n++
	got := p.c.DoExact(args...)
	want := p.v.DoExact(args...)
	if got == want {
		return got
	}
	if !ordered {
		gh, ge := splitReply(got)
		wh, we := splitReply(want)
		slices.Sort(ge)
		slices.Sort(we)
		if gh == wh && slices.Equal(ge, we) {
			return got
		}
	}
	p.t.Errorf("%s:\n corvid: %q\n valkey: %q", strings.Join(args, " "), trimReply(got), trimReply(want))
	return got
}

// sameScores compares ZRANGE key 0 -1 WITHSCORES on both servers after
// a STOREDIST: members exactly, the distances to within 1e-11 relative
// (nearly all are equal to the bit). Corvid's sin, cos and asin are
// correctly rounded (geo_math.go); glibc's, which Valkey calls, are an
// ulp off about once in 700 calls, and asin magnifies an ulp of its
// argument near antipodal distances.
func (p *geoPair) sameScores(key string) {
	p.t.Helper()
	args := []string{"ZRANGE", key, "0", "-1", "WITHSCORES"}
	got := p.c.DoExact(args...)
	want := p.v.DoExact(args...)
	if got == want {
		return
	}
	gh, ge := splitReply(got)
	wh, we := splitReply(want)
	ok := gh == wh && len(ge) == len(we)
	scores := map[string]string{}
	for i := 0; ok && i+1 < len(we); i += 2 {
		scores[we[i]] = we[i+1]
	}
	for i := 0; ok && i+1 < len(ge); i += 2 {
		ws, found := scores[ge[i]]
		g, err1 := strconv.ParseFloat(bulkText(ge[i+1]), 64)
		w, err2 := strconv.ParseFloat(bulkText(ws), 64)
		ok = found && err1 == nil && err2 == nil && math.Abs(g-w) <= 1e-11*math.Abs(w)
	}
	if !ok {
		p.t.Errorf("%s:\n corvid: %q\n valkey: %q", strings.Join(args, " "), trimReply(got), trimReply(want))
	}
}

// bulkText is the text of an exact bulk string reply.
func bulkText(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSuffix(s[i+1:], "\r\n")
	}
	return s
}

func trimReply(s string) string {
	if len(s) > 600 {
		return s[:600] + "..."
	}
	return s
}

func fmtF(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

func TestGeoDifferential(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("differential test needs valkey-server")
	}
	srv := testutil.StartCorvid(t)
	vk := testutil.StartValkey(t)
	p := &geoPair{t: t, c: testutil.Dial(t, srv.Addr), v: testutil.Dial(t, vk.Addr)}
	rng := rand.New(rand.NewPCG(20261202, 8))

	const latLim = 85.05112878
	type pt struct {
		lon, lat float64
		name     string
	}
	edge := []pt{
		{180, latLim, "ne"}, {-180, -latLim, "sw"}, {180, -latLim, "se"}, {-180, latLim, "nw"},
		{179.9999, 0.5, "am1"}, {-179.9999, 0.4, "am2"}, {179.95, 10, "am3"}, {-179.97, 10.01, "am4"},
		{0, 85.05, "p1"}, {10, -85.04, "p2"}, {45, 84.9, "p3"}, {-120, -84.99, "p4"},
		{0, 0, "origin"}, {13.361389, 38.115556, "Palermo"}, {15.087269, 37.502669, "Catania"},
	}
	randPt := func(i int) pt {
		var lon, lat float64
		switch i % 5 {
		case 0: // anywhere
			lon, lat = rng.Float64()*360-180, rng.Float64()*2*latLim-latLim
		case 1: // around the antimeridian
			lon, lat = 180-rng.Float64()*3, rng.Float64()*20-10
			if rng.IntN(2) == 0 {
				lon = -lon
			}
		case 2: // near the poles' limits
			lon, lat = rng.Float64()*360-180, latLim-rng.Float64()*6
			if rng.IntN(2) == 0 {
				lat = -lat
			}
		default: // a cluster in Sicily
			lon, lat = 14+rng.Float64()*2-1, 37.8+rng.Float64()*2-1
		}
		return pt{lon, lat, "m" + strconv.Itoa(i)}
	}
	keys := map[string]int{"gsmall": 40, "gbig": 700}
	members := map[string][]string{}
	for key, n := range keys {
		pts := append([]pt(nil), edge...)
		for i := 0; i < n; i++ {
			pts = append(pts, randPt(i))
		}
		for i := 0; i < len(pts); i += 50 {
			args := []string{"GEOADD", key}
			for _, q := range pts[i:min(i+50, len(pts))] {
				args = append(args, fmtF(q.lon), fmtF(q.lat), q.name)
				members[key] = append(members[key], q.name)
			}
			p.same(true, args...)
		}
		p.same(true, "OBJECT", "ENCODING", key)
		p.same(true, "ZRANGE", key, "0", "-1", "WITHSCORES")
	}

	// GEOPOS, GEOHASH, GEODIST.
	for key, ms := range members {
		p.same(true, append([]string{"GEOPOS", key, "nosuch"}, ms...)...)
		p.same(true, append([]string{"GEOHASH", key, "nosuch"}, ms...)...)
		for i := 0; i < 60; i++ {
			a, b := ms[rng.IntN(len(ms))], ms[rng.IntN(len(ms))]
			p.same(true, "GEODIST", key, a, b)
			for _, u := range []string{"m", "km", "ft", "mi", "KM"} {
				p.same(true, "GEODIST", key, a, b, u)
			}
		}
		p.same(true, "GEODIST", key, ms[0], "nosuch")
	}

	// Searches: every option combination over a set of shapes.
	type shape struct {
		from []string // FROMMEMBER m | FROMLONLAT lon lat
		by   []string // BYRADIUS r u | BYBOX w h u
	}
	var shapes []shape
	radii := [][]string{{"0", "m"}, {"1", "km"}, {"50", "km"}, {"200", "km"}, {"800", "mi"}, {"3000", "km"},
		{"15000", "km"}, {"100000", "ft"}}
	boxes := [][]string{{"0", "0", "m"}, {"100", "50", "km"}, {"400", "400", "km"}, {"3000", "1000", "km"},
		{"20000", "40000", "km"}, {"500", "900", "mi"}}
	centers := [][]string{{"FROMMEMBER", "Palermo"}, {"FROMMEMBER", "am1"}, {"FROMMEMBER", "ne"},
		{"FROMMEMBER", "p3"}, {"FROMLONLAT", "14", "37.8"}, {"FROMLONLAT", "-179.999", "0"},
		{"FROMLONLAT", "180", "5"}, {"FROMLONLAT", "0", "84"}, {"FROMLONLAT", "-60", "-85.05112878"},
		{"FROMLONLAT", "100", "-30"}}
	for i := 0; i < 8; i++ {
		centers = append(centers, []string{"FROMMEMBER", "m" + strconv.Itoa(rng.IntN(40))})
		centers = append(centers, []string{"FROMLONLAT", fmtF(rng.Float64()*360 - 180), fmtF(rng.Float64()*170 - 85)})
	}
	for i, c := range centers {
		shapes = append(shapes, shape{c, append([]string{"BYRADIUS"}, radii[i%len(radii)]...)})
		shapes = append(shapes, shape{c, append([]string{"BYRADIUS"}, radii[(i+3)%len(radii)]...)})
		shapes = append(shapes, shape{c, append([]string{"BYBOX"}, boxes[i%len(boxes)]...)})
		shapes = append(shapes, shape{c, append([]string{"BYBOX"}, boxes[(i+2)%len(boxes)]...)})
	}
	withs := []string{"WITHCOORD", "WITHDIST", "WITHHASH"}
	type opts struct {
		args    []string
		ordered bool
	}
	var combos []opts
	for mask := 0; mask < 8; mask++ {
		var w []string
		for b := 0; b < 3; b++ {
			if mask&(1<<b) != 0 {
				w = append(w, withs[b])
			}
		}
		for _, sort := range []string{"", "ASC", "DESC"} {
			for _, cnt := range [][]string{nil, {"COUNT", "3"}, {"COUNT", "1", "ANY"}, {"COUNT", "25", "ANY"}, {"COUNT", "1000"}} {
				a := append([]string(nil), w...)
				if sort != "" {
					a = append(a, sort)
				}
				a = append(a, cnt...)
				ordered := sort != "" || (cnt != nil && len(cnt) == 2)
				combos = append(combos, opts{a, ordered})
			}
		}
	}
	for _, key := range []string{"gsmall", "gbig"} {
		for si, s := range shapes {
			base := append(append([]string{"GEOSEARCH", key}, s.from...), s.by...)
			for ci, o := range combos {
				if (si+ci)%3 != 0 && key == "gbig" && len(o.args) > 2 {
					continue // a third of the longer combinations on the big set
				}
				p.same(o.ordered, append(append([]string(nil), base...), o.args...)...)
			}
			// GEORADIUS and GEORADIUSBYMEMBER for the radius shapes.
			if s.by[0] != "BYRADIUS" {
				continue
			}
			var rad []string
			if s.from[0] == "FROMMEMBER" {
				rad = []string{"GEORADIUSBYMEMBER", key, s.from[1], s.by[1], s.by[2]}
			} else {
				rad = []string{"GEORADIUS", key, s.from[1], s.from[2], s.by[1], s.by[2]}
			}
			for ci, o := range combos {
				if ci%4 != si%4 {
					continue
				}
				p.same(o.ordered, append(append([]string(nil), rad...), o.args...)...)
				ro := append([]string(nil), rad...)
				ro[0] += "_RO"
				p.same(o.ordered, append(ro, o.args...)...)
			}
			// STORE and STOREDIST: the stored sets must be equal.
			for _, st := range [][]string{{"STORE", "gdst"}, {"STOREDIST", "gdst"}, {"COUNT", "5", "STORE", "gdst"},
				{"DESC", "COUNT", "2", "STOREDIST", "gdst"}, {"COUNT", "4", "ANY", "STORE", "gdst"}} {
				p.same(true, append(append([]string(nil), rad...), st...)...)
				p.sameScores("gdst")
				p.same(true, "OBJECT", "ENCODING", "gdst")
			}
		}
		for si, s := range shapes {
			if si%3 != 0 {
				continue
			}
			for _, st := range [][]string{nil, {"STOREDIST"}, {"ASC", "COUNT", "3"}, {"COUNT", "2", "ANY", "STOREDIST"}} {
				args := append(append(append([]string{"GEOSEARCHSTORE", "gdst2", key}, s.from...), s.by...), st...)
				p.same(true, args...)
				p.sameScores("gdst2")
				p.same(true, "EXISTS", "gdst2")
			}
		}
	}

	// Points at equal distances: COUNT (without ANY) below the number
	// found takes Valkey's partial quicksort, whose order among ties the
	// reply shows; all of them take its (stable) qsort.
	for _, n := range []int{9, 30, 75} {
		key := "gties" + strconv.Itoa(n)
		args := []string{"GEOADD", key}
		for i := 0; i < n; i++ {
			spot := [][2]string{{"1", "1"}, {"1.5", "1.5"}, {"0.5", "0.5"}, {"1", "1"}, {"2", "0"}}[rng.IntN(5)]
			args = append(args, spot[0], spot[1], "t"+strconv.Itoa(i))
		}
		p.same(true, args...)
		for k := 1; k <= n+1; k += 1 + k/4 {
			for _, order := range []string{"ASC", "DESC"} {
				p.same(true, "GEOSEARCH", key, "FROMLONLAT", "1", "1", "BYRADIUS", "500", "km", order, "COUNT", strconv.Itoa(k), "WITHDIST")
				p.same(true, "GEORADIUS", key, "1.2", "0.9", "500", "km", order, "COUNT", strconv.Itoa(k))
			}
			p.same(true, "GEOSEARCH", key, "FROMMEMBER", "t0", "BYBOX", "900", "900", "km", "COUNT", strconv.Itoa(k))
		}
	}

	// bench/types' geosearch case: 10,000 members in a 10-degree box, 50
	// km searches around 16 centers inside it, and its variations (radii
	// from a meter to 300 km, boxes, every reply option, DESC, ANY,
	// STOREDIST) over the same set.
	{
		key := "gbench"
		for i := 0; i < 10000; i += 200 {
			args := []string{"GEOADD", key}
			for j := i; j < i+200; j++ {
				args = append(args, fmtF(10*rng.Float64()), fmtF(45+10*rng.Float64()), "m:"+strconv.Itoa(j))
			}
			p.same(true, args...)
		}
		p.same(true, "OBJECT", "ENCODING", key)
		variants := [][]string{
			{"BYRADIUS", "50", "km", "ASC", "COUNT", "10"},
			{"BYRADIUS", "50", "km", "ASC", "COUNT", "10", "WITHDIST", "WITHCOORD", "WITHHASH"},
			{"BYRADIUS", "50", "km", "DESC", "COUNT", "10", "WITHDIST"},
			{"BYRADIUS", "50", "km", "ASC", "WITHDIST"},
			{"BYRADIUS", "50", "km", "COUNT", "10", "ANY", "WITHDIST"},
			{"BYRADIUS", "1", "m", "ASC"},
			{"BYRADIUS", "3", "km", "DESC", "WITHDIST", "WITHCOORD"},
			{"BYRADIUS", "31", "mi", "ASC", "COUNT", "100", "WITHDIST"},
			{"BYRADIUS", "300", "km", "ASC", "COUNT", "40", "WITHDIST"},
			{"BYBOX", "100", "100", "km", "ASC", "COUNT", "10", "WITHDIST"},
			{"BYBOX", "40", "120", "km", "DESC", "WITHDIST", "WITHCOORD"},
			{"BYBOX", "300", "20", "mi", "ASC", "COUNT", "25"},
		}
		for c := 0; c < 16; c++ {
			lon := strconv.FormatFloat(1+8*rng.Float64(), 'f', 4, 64)
			lat := strconv.FormatFloat(46+8*rng.Float64(), 'f', 4, 64)
			for _, v := range variants {
				p.same(true, append([]string{"GEOSEARCH", key, "FROMLONLAT", lon, lat}, v...)...)
			}
			p.same(true, "GEORADIUS", key, lon, lat, "50", "km", "ASC", "COUNT", "10", "WITHDIST")
			p.same(true, "GEOSEARCHSTORE", "gdst4", key, "FROMLONLAT", lon, lat, "BYRADIUS", "50", "km", "ASC", "COUNT", "10", "STOREDIST")
			p.sameScores("gdst4")
			p.same(true, "GEOSEARCH", key, "FROMMEMBER", "m:"+strconv.Itoa(rng.IntN(10000)), "BYRADIUS", "50", "km", "ASC", "COUNT", "10", "WITHDIST")
		}
	}

	// GEOADD's options and replies, and the ZADD it is.
	p.same(true, "GEOADD", "gadd", "1", "2", "a", "3", "4", "b")
	p.same(true, "GEOADD", "gadd", "NX", "1", "2", "a", "5", "6", "c")
	p.same(true, "GEOADD", "gadd", "XX", "CH", "1.5", "2", "a", "5", "6", "d")
	p.same(true, "GEOADD", "gadd", "CH", "1.5", "2", "a", "7", "8", "b", "9", "9", "e")
	p.same(true, "GEOADD", "gadd", "CH", "XX", "1.5", "2", "a")
	p.same(true, "GEOADD", "gadd", "ch", "nx", "0", "0", "a", "0", "0", "f")
	p.same(true, "ZRANGE", "gadd", "0", "-1", "WITHSCORES")
	p.same(true, "GEOADD", "gadd2", "XX", "1", "1", "a")
	p.same(true, "EXISTS", "gadd2")
	p.same(true, "GEOSEARCH", "gadd", "FROMMEMBER", "a", "BYRADIUS", "10000", "km", "ASC", "WITHCOORD", "WITHDIST", "WITHHASH")

	// Scores no GEOADD gives: negative, huge, infinite, fractional.
	p.same(true, "ZADD", "gweird", "-1", "a", "1e20", "b", "inf", "c", "4503599627370496", "d", "0.5", "e", "-inf", "f",
		"9007199254740993", "g", "1e300", "h")
	p.same(true, "GEOPOS", "gweird", "a", "b", "c", "d", "e", "f", "g", "h")
	p.same(true, "GEOHASH", "gweird", "a", "b", "c", "d", "e", "f", "g", "h")
	p.same(true, "GEODIST", "gweird", "a", "b")
	p.same(true, "GEODIST", "gweird", "c", "f")
	p.same(false, "GEOSEARCH", "gweird", "FROMMEMBER", "e", "BYRADIUS", "20000", "km", "WITHHASH", "WITHCOORD", "WITHDIST")
	p.same(true, "GEOSEARCH", "gweird", "FROMLONLAT", "180", "85", "BYBOX", "40000", "40000", "km", "ASC", "WITHHASH")

	// Missing keys and members.
	p.same(true, "GEOPOS", "nokey", "a", "b")
	p.same(true, "GEOHASH", "nokey", "a")
	p.same(true, "GEODIST", "nokey", "a", "b")
	p.same(true, "GEOSEARCH", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km")
	p.same(true, "GEOSEARCH", "nokey", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "WITHDIST")
	p.same(true, "SET", "gdst3", "x")
	p.same(true, "GEOSEARCHSTORE", "gdst3", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km")
	p.same(true, "EXISTS", "gdst3")
	p.same(true, "GEORADIUSBYMEMBER", "nokey", "x", "1", "km")
	p.same(true, "GEORADIUSBYMEMBER", "nokey", "x", "bad", "bad")
	p.same(true, "GEORADIUS", "nokey", "1", "1", "1", "km", "STORE", "gdst")
	p.same(true, "SET", "gdst3", "x")
	p.same(true, "GEOSEARCHSTORE", "gdst3", "gsmall", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "m")
	p.same(true, "EXISTS", "gdst3")

	// Errors.
	p.same(true, "SET", "gstr", "x")
	errs := [][]string{
		{"GEOADD", "gstr", "1", "1", "a"}, {"GEOPOS", "gstr", "a"}, {"GEOHASH", "gstr", "a"},
		{"GEODIST", "gstr", "a", "b"}, {"GEODIST", "gstr", "a", "b", "yd"}, {"GEOSEARCH", "gstr", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"},
		{"GEORADIUS", "gstr", "1", "1", "1", "km"}, {"GEORADIUSBYMEMBER", "gstr", "a", "1", "km"},
		{"GEOADD", "k", "200", "0", "a"}, {"GEOADD", "k", "0", "85.06", "a"}, {"GEOADD", "k", "0", "-90", "a"},
		{"GEOADD", "k", "inf", "0", "a"}, {"GEOADD", "k", "0", "-inf", "a"}, {"GEOADD", "k", "x", "0", "a"},
		{"GEOADD", "k", "1", "1", "a", "2"}, {"GEOADD", "k", "NX", "XX", "1", "1", "a"}, {"GEOADD", "k", "NX", "CH", "CH"},
		{"GEOADD", "k", "GT", "1", "1", "a"}, {"GEOADD", "k"}, {"GEOADD", "k", "1", "1", "a", "1", "100", "b"},
		{"GEODIST", "gsmall", "m1", "m2", "km", "x"}, {"GEODIST", "gsmall", "m1", "m2", "KMS"},
		{"GEOSEARCH", "gsmall", "FROMMEMBER", "m1", "BYRADIUS", "100", "km", "BYBOX", "1", "1", "km"},
		{"GEOSEARCH", "gsmall", "FROMMEMBER", "m1", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "km"},
		{"GEOSEARCH", "gsmall", "FROMMEMBER", "nosuch", "BYRADIUS", "1", "km"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYRADIUS", "-1", "km"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYRADIUS", "x", "km"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYRADIUS", "1", "yd"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "x", "1", "km"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "x", "km"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "-1", "1", "km"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "yd"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "x", "1", "BYBOX", "1", "1", "km"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "200", "1", "BYBOX", "1", "1", "km"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "ANY"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "COUNT", "0"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "COUNT", "-3"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "COUNT", "x"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "COUNT"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "STORE", "x"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "STOREDIST"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "COUNT", "1", "ANY", "foo"},
		{"GEOSEARCH", "gsmall", "FROMMEMBER", "m1", "WITHDIST", "WITHCOORD", "WITHHASH"},
		{"GEOSEARCH", "gsmall", "BYRADIUS", "1", "km", "WITHDIST", "WITHCOORD"},
		{"GeoSearch", "gsmall", "BYBOX", "1", "1", "km", "ASC", "DESC"},
		{"GEOSEARCH", "gsmall", "BYRADIUS", "1", "km", "FROMMEMBER"},
		{"GEOSEARCH", "gsmall", "FROMLONLAT", "1", "BYRADIUS", "1", "km"},
		{"GEOSEARCHSTORE", "d", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "WITHDIST"},
		{"GEOSEARCHSTORE", "d", "gsmall", "FROMLONLAT", "1", "1", "BYBOX", "1", "1", "km", "STORE", "x"},
		{"GEOSEARCHSTORE", "d", "nokey", "FROMMEMBER", "x", "BYRADIUS", "1", "km", "WITHHASH"},
		{"geosearchstore", "d", "gsmall", "BYRADIUS", "1", "km", "ASC", "DESC"},
		{"GEORADIUS", "gsmall", "15", "37", "200", "km", "STORE", "d", "WITHDIST"},
		{"GEORADIUS", "gsmall", "15", "37", "200", "km", "STORE"},
		{"GEORADIUS", "gsmall", "15", "37", "x", "km"},
		{"GEORADIUS", "gsmall", "15", "37", "1", "yd"},
		{"GEORADIUS", "gsmall", "15", "91", "1", "km"},
		{"GEORADIUS", "gsmall", "15", "37", "200", "km", "COUNT"},
		{"GEORADIUS", "gsmall", "15", "37", "200", "km", "FROMMEMBER", "m1"},
		{"GEORADIUS_RO", "gsmall", "15", "37", "200", "km", "STORE", "d"},
		{"GEORADIUSBYMEMBER_RO", "gsmall", "m1", "200", "km", "STOREDIST", "d"},
		{"GEORADIUSBYMEMBER", "gsmall", "nosuch", "200", "km"},
		{"GEORADIUSBYMEMBER", "gsmall", "m1", "-1", "km"},
		{"GEORADIUSBYMEMBER", "gsmall", "m1", "200", "km", "ANY"},
		{"GEORADIUS", "gsmall"}, {"GEOSEARCH", "gsmall", "FROMMEMBER", "m1"}, {"GEOPOS"}, {"GEODIST", "gsmall", "a"},
	}
	for _, e := range errs {
		p.same(true, e...)
	}

	// Keyspace events: GEOADD's are ZADD's; the STORE forms announce
	// georadiusstore or geosearchstore, or del for an empty result.
	var subs []*testutil.Raw
	for _, addr := range []string{srv.Addr, vk.Addr} {
		s := testutil.Dial(t, addr)
		s.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
		s.Do("PSUBSCRIBE", "__keyevent@0__:*")
		subs = append(subs, s)
	}
	p.same(true, "GEOADD", "gev", "1", "1", "a", "2", "2", "b")
	p.same(true, "GEOADD", "gev", "XX", "1", "1", "a")
	p.same(true, "GEOADD", "gev", "XX", "CH", "1", "1.5", "a")
	p.same(true, "GEORADIUS", "gev", "1", "1", "100", "km", "STORE", "gevd")
	p.same(true, "GEORADIUSBYMEMBER", "gev", "a", "1000", "km", "STOREDIST", "gevd")
	p.same(true, "GEOSEARCHSTORE", "gevd2", "gev", "FROMMEMBER", "b", "BYRADIUS", "1", "km")
	p.same(true, "GEOSEARCHSTORE", "gevd", "gev", "FROMLONLAT", "50", "50", "BYRADIUS", "1", "km")
	p.same(true, "GEOSEARCH", "gev", "FROMMEMBER", "b", "BYRADIUS", "1", "km")
	p.same(true, "SET", "gevend", "x")
	var events [2][]string
	for i, s := range subs {
		for len(events[i]) < 40 {
			m := s.Read()
			events[i] = append(events[i], m)
			if strings.Contains(m, "gevend") {
				break
			}
		}
		s.Close()
	}
	if len(events[0]) < 7 || !strings.Contains(strings.Join(events[0], " "), "geosearchstore") {
		t.Errorf("keyspace events: %q", events[0])
	}
	if !slices.Equal(events[0], events[1]) {
		t.Errorf("keyspace events:\n corvid: %q\n valkey: %q", events[0], events[1])
	}

	// RESP3: coordinates as doubles, nulls as _.
	for _, r := range []*testutil.Raw{p.c, p.v} {
		r.DoExact("HELLO", "3")
	}
	p.same(true, "GEOPOS", "gsmall", "Palermo", "nosuch", "ne", "sw", "am2")
	p.same(true, "GEOPOS", "nokey", "a")
	p.same(true, "GEOHASH", "gsmall", "Palermo", "nosuch")
	p.same(true, "GEODIST", "gsmall", "Palermo", "nosuch")
	p.same(true, "GEODIST", "nokey", "a", "b")
	p.same(true, "GEODIST", "gsmall", "Palermo", "Catania", "mi")
	p.same(true, "GEOSEARCH", "gbig", "FROMMEMBER", "Palermo", "BYRADIUS", "100", "km", "ASC", "WITHCOORD", "WITHDIST", "WITHHASH")
	p.same(true, "GEORADIUS", "gbig", "179.99", "0", "500", "km", "DESC", "COUNT", "7", "WITHCOORD", "WITHHASH")
	p.same(true, "GEOSEARCH", "gbig", "FROMLONLAT", "0", "0", "BYBOX", "1", "1", "m")
	t.Logf("%d commands compared", p.n)
}

// TestGeoCorvid checks what needs no peer: GEOADD stores the geohash as a
// ZSET score and a search finds it.
func TestGeoCorvid(t *testing.T) {
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, ":2", "GEOADD", "Sicily", "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania")
	expect(t, c, `"3479099956230698"`, "ZSCORE", "Sicily", "Palermo")
	expect(t, c, `"166274.1516"`, "GEODIST", "Sicily", "Palermo", "Catania")
	expect(t, c, `*["sqc8b49rny0", (nil)]`, "GEOHASH", "Sicily", "Palermo", "x")
	expect(t, c, `*[*["13.36138933897018433", "38.11555639549629859"], (nil-array)]`, "GEOPOS", "Sicily", "Palermo", "x")
	expect(t, c, `*[*["Catania", "56.4413"], *["Palermo", "190.4424"]]`, "GEORADIUS", "Sicily", "15", "37", "200", "km", "WITHDIST", "ASC")
	expect(t, c, ":1", "GEOSEARCHSTORE", "dst", "Sicily", "FROMLONLAT", "15", "37", "BYRADIUS", "100", "km", "STOREDIST")
	expect(t, c, `*["Catania"]`, "ZRANGE", "dst", "0", "-1")
	expect(t, c, "-ERR invalid longitude,latitude pair 200.000000,0.000000", "GEOADD", "Sicily", "200", "0", "x")
}
