package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// allCases is every case, in the order a run takes them.
var allCases = []string{"xadd", "xreadgroup", "pfadd", "pfcount", "pfcount3", "geoadd", "geosearch", "mem-stream", "mem-geo"}

// isMemory says whether name is a memory case.
func isMemory(name string) bool { return strings.HasPrefix(name, "mem-") }

// The geo cases' coordinates: GEOADD's pairs anywhere in the valid range,
// GEOSEARCH's members and centers in one box, where a 50 km circle holds
// about 90 of 10,000 members.
const (
	maxLat                     = 85.05112878
	boxLon0, boxLon1           = 0.0, 10.0
	boxLat0, boxLat1           = 45.0, 55.0
	geoaddPairs, searchCenters = 64, 16
)

// geoaddCoords are GEOADD's fixed (lon, lat) pairs, the same every run.
func geoaddCoords() [][2]string {
	rng := rand.New(rand.NewPCG(1, 64))
	out := make([][2]string, geoaddPairs)
	for i := range out {
		out[i] = [2]string{strconv.FormatFloat(-180+360*rng.Float64(), 'f', 6, 64),
			strconv.FormatFloat(-maxLat+2*maxLat*rng.Float64(), 'f', 6, 64)}
	}
	return out
}

// searchCoords are GEOSEARCH's fixed centers, inside the box, away from
// its edges.
func searchCoords() [][2]string {
	rng := rand.New(rand.NewPCG(2, 16))
	out := make([][2]string, searchCenters)
	for i := range out {
		out[i] = [2]string{strconv.FormatFloat(boxLon0+1+(boxLon1-boxLon0-2)*rng.Float64(), 'f', 4, 64),
			strconv.FormatFloat(boxLat0+1+(boxLat1-boxLat0-2)*rng.Float64(), 'f', 4, 64)}
	}
	return out
}

// hllSize is how many distinct elements pfcount's fill adds to hll:<n>:
// the even keys stay sparse, the odd ones turn dense.
func hllSize(n int) int {
	if n%2 == 0 {
		return 200
	}
	return 5000
}

// describe is the case's command line for the report.
func describe(c *config, name string) string {
	switch name {
	case "xadd":
		return fmt.Sprintf("`XADD stream:<n> * f <16 random bytes>`, %d keys (memtier)", c.keys)
	case "xreadgroup":
		return fmt.Sprintf("`XREADGROUP GROUP g c<i> COUNT 1 STREAMS stream:<n> >` then `XACK stream:<n> g <id>`, %d streams of %d entries, group g at 0; one op = one read+ack pair, latency per pair (Go loop, %d connections)",
			c.keys, c.entriesPerStream(), c.conns())
	case "pfadd":
		return fmt.Sprintf("`PFADD hll:<n> <16 random bytes>`, %d keys, empty at the start (memtier)", c.keys)
	case "pfcount":
		return fmt.Sprintf("`PFCOUNT hll:<n>`, %d HLLs: even n 200 elements (sparse), odd n 5000 (dense) (memtier)", c.keys)
	case "pfcount3":
		return "`PFCOUNT hll:<a> hll:<b> hll:<c>`, three keys at random of the same HLLs: a union (memtier)"
	case "geoadd":
		return fmt.Sprintf("`GEOADD geo:<n> <lon> <lat> <16 random bytes>`, %d keys, %d fixed (lon, lat) pairs from the whole valid range, cycled (memtier)", c.keys, geoaddPairs)
	case "geosearch":
		return fmt.Sprintf("`GEOSEARCH geo:<n> FROMLONLAT <lon> <lat> BYRADIUS 50 km ASC COUNT 10`, %d sets of %d members at random in lon %g..%g, lat %g..%g, %d fixed centers inside, cycled (memtier)",
			c.geoKeys, c.geoMembers, boxLon0, boxLon1, boxLat0, boxLat1, searchCenters)
	case "mem-stream":
		return fmt.Sprintf("`XADD mstream:<k> * f <16 random bytes>`: %d entries over %d streams", c.memElements, c.memKeys)
	case "mem-geo":
		return fmt.Sprintf("`GEOADD mgeo:<k> <lon> <lat> m:<i> ...` (100 members a command): %d members at random valid coordinates over %d sets", c.memElements, c.memKeys)
	}
	return name
}

// memtierCase is a case's own memtier arguments: key prefix and range,
// and its --command lines.
func memtierCase(c *config, name string) []string {
	keyArgs := func(prefix string, n int) []string {
		return []string{"--key-prefix", prefix, "--key-minimum", "1", "--key-maximum", strconv.Itoa(n)}
	}
	cmd := func(s string) []string { return []string{"--command", s, "--command-key-pattern", "R"} }
	var a []string
	switch name {
	case "xadd":
		a = append(keyArgs("stream:", c.keys), cmd("XADD __key__ * f __data__")...)
	case "pfadd":
		a = append(keyArgs("hll:", c.keys), cmd("PFADD __key__ __data__")...)
	case "pfcount":
		a = append(keyArgs("hll:", c.keys), cmd("PFCOUNT __key__")...)
	case "pfcount3":
		// memtier draws each __key__ of a command line on its own.
		a = append(keyArgs("hll:", c.keys), cmd("PFCOUNT __key__ __key__ __key__")...)
	case "geoadd":
		a = keyArgs("geo:", c.keys)
		for _, p := range geoaddCoords() {
			a = append(a, cmd("GEOADD __key__ "+p[0]+" "+p[1]+" __data__")...)
		}
	case "geosearch":
		a = keyArgs("geo:", c.geoKeys)
		for _, p := range searchCoords() {
			a = append(a, cmd("GEOSEARCH __key__ FROMLONLAT "+p[0]+" "+p[1]+" BYRADIUS 50 km ASC COUNT 10")...)
		}
	default:
		return nil
	}
	return a
}

// mix is splitmix64: the fills' deterministic randomness, a function of
// the element's index (so concurrent fill connections need no shared
// state and both servers get the same bytes).
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// unit is a float in [0, 1) from x.
func unit(x uint64) float64 { return float64(mix(x)>>11) / (1 << 53) }

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// appendValue appends 16 printable random characters drawn from i.
func appendValue(b []byte, i uint64) []byte {
	x, y := mix(i), mix(i^0x5555)
	for range 8 {
		b = append(b, alnum[x%62])
		x /= 62
	}
	for range 8 {
		b = append(b, alnum[y%62])
		y /= 62
	}
	return b
}

func appendHeader(b []byte, n int) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

func appendBulk[T string | []byte](b []byte, s T) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

func appendFloat(b []byte, f float64) []byte {
	var tmp [32]byte
	return appendBulk(b, strconv.AppendFloat(tmp[:0], f, 'f', 6, 64))
}

// appendXAdd appends XADD <key> * f <value of i>.
func appendXAdd(b []byte, key string, i uint64) []byte {
	b = appendHeader(b, 5)
	b = appendBulk(b, "XADD")
	b = appendBulk(b, key)
	b = appendBulk(b, "*")
	b = appendBulk(b, "f")
	b = append(b, "$16\r\n"...)
	b = appendValue(b, i)
	return append(b, '\r', '\n')
}

// appendGeoAdd appends GEOADD key with members lo..hi-1 (m:<i>) at the
// coordinates pos gives.
func appendGeoAdd(b []byte, key string, lo, hi int, pos func(i int) (lon, lat float64)) []byte {
	b = appendHeader(b, 2+3*(hi-lo))
	b = appendBulk(b, "GEOADD")
	b = appendBulk(b, key)
	var tmp [24]byte
	for i := lo; i < hi; i++ {
		lon, lat := pos(i)
		b = appendFloat(b, lon)
		b = appendFloat(b, lat)
		b = appendBulk(b, append(append(tmp[:0], "m:"...), strconv.Itoa(i)...))
	}
	return b
}

// anywhere is a random valid position, from i.
func anywhere(i int) (lon, lat float64) {
	return -180 + 360*unit(uint64(i)*2), -maxLat + 2*maxLat*unit(uint64(i)*2+1)
}

// inBox is a random position in the geosearch box, from i.
func inBox(i int) (lon, lat float64) {
	return boxLon0 + (boxLon1-boxLon0)*unit(uint64(i)*2+7), boxLat0 + (boxLat1-boxLat0)*unit(uint64(i)*2+8)
}

// pipeline sends commands 0..n-1 (gen appends command i) over conns
// connections in batches of batch; any error reply is an error.
func pipeline(ctx context.Context, s *server, conns, batch, n int, gen func(b []byte, i int) []byte) error {
	errs := make(chan error, conns)
	for w := range conns {
		go func() {
			errs <- func() error {
				cn, err := wire.Dial("tcp", s.Addr, 5*time.Second)
				if err != nil {
					return err
				}
				defer cn.Close()
				for lo := w * batch; lo < n; lo += conns * batch {
					if ctx.Err() != nil {
						return ctx.Err()
					}
					hi := min(lo+batch, n)
					for i := lo; i < hi; i++ {
						cn.Out = gen(cn.Out, i)
					}
					_ = cn.SetDeadline(time.Now().Add(120 * time.Second))
					if err := cn.Flush(); err != nil {
						return err
					}
					for range hi - lo {
						_, kind, msg, err := cn.Next()
						if err != nil {
							return err
						}
						if kind == wire.KindError {
							return fmt.Errorf("error reply: %s", msg)
						}
					}
				}
				return nil
			}()
		}()
	}
	var first error
	for range conns {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		return fmt.Errorf("%s: filling: %w", s.Name, first)
	}
	return nil
}

// fill prepares a fresh server for a throughput case; note says what it
// found (printed with the run's line).
func fill(ctx context.Context, c *config, name string, s *server) (note string, err error) {
	switch name {
	case "xreadgroup":
		if err := pipeline(ctx, s, 4, 1000, c.keys, func(b []byte, i int) []byte {
			return wire.AppendCommand(b, "XGROUP", "CREATE", "stream:"+strconv.Itoa(i+1), "g", "0", "MKSTREAM")
		}); err != nil {
			return "", err
		}
		per := c.entriesPerStream()
		if err := pipeline(ctx, s, 4, 1000, c.keys*per, func(b []byte, i int) []byte {
			return appendXAdd(b, "stream:"+strconv.Itoa(i%c.keys+1), uint64(i))
		}); err != nil {
			return "", err
		}
		n, err := s.do("XLEN", "stream:1")
		if err != nil {
			return "", err
		}
		if n.Int != int64(per) {
			return "", fmt.Errorf("%s: XLEN stream:1 is %d after adding %d entries", s.Name, n.Int, per)
		}
		return fmt.Sprintf("%d streams x %d entries", c.keys, per), nil

	case "pfcount", "pfcount3":
		// Commands of 100 elements; key n takes hllSize(n)/100 of them.
		type cmdRef struct{ key, part int }
		var cmds []cmdRef
		for n := 1; n <= c.keys; n++ {
			for p := range hllSize(n) / 100 {
				cmds = append(cmds, cmdRef{n, p})
			}
		}
		if err := pipeline(ctx, s, 4, 100, len(cmds), func(b []byte, i int) []byte {
			r := cmds[i]
			key := "hll:" + strconv.Itoa(r.key)
			b = appendHeader(b, 102)
			b = appendBulk(b, "PFADD")
			b = appendBulk(b, key)
			var tmp [40]byte
			for j := r.part * 100; j < r.part*100+100; j++ {
				e := append(append(tmp[:0], key...), ':')
				b = appendBulk(b, strconv.AppendInt(e, int64(j), 10))
			}
			return b
		}); err != nil {
			return "", err
		}
		sparse, dense, err := hllEncodings(s, c.keys)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d sparse, %d dense", sparse, dense), nil

	case "geosearch":
		per := (c.geoMembers + 99) / 100
		if err := pipeline(ctx, s, 4, 100, c.geoKeys*per, func(b []byte, i int) []byte {
			k, p := i/per, i%per
			lo, hi := p*100, min(p*100+100, c.geoMembers)
			return appendGeoAdd(b, "geo:"+strconv.Itoa(k+1), k*c.geoMembers+lo, k*c.geoMembers+hi, inBox)
		}); err != nil {
			return "", err
		}
		n, err := s.do("ZCARD", "geo:1")
		if err != nil {
			return "", err
		}
		if n.Int != int64(c.geoMembers) {
			return "", fmt.Errorf("%s: ZCARD geo:1 is %d after adding %d members", s.Name, n.Int, c.geoMembers)
		}
		// How many members a query finds (without COUNT), for the note.
		ctr := searchCoords()[0]
		v, err := s.do("GEOSEARCH", "geo:1", "FROMLONLAT", ctr[0], ctr[1], "BYRADIUS", "50", "km", "ASC")
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("%d sets x %d members; %d within 50 km of the first center in geo:1", c.geoKeys, c.geoMembers, len(v.Elems)), nil
	}
	return "", nil
}

// hllEncodings counts hll:1..n by the encoding byte of their HYLL header
// (offset 4: 0 dense, 1 sparse).
func hllEncodings(s *server, n int) (sparse, dense int, err error) {
	for k := 1; k <= n; k++ {
		v, err := s.do("GETRANGE", "hll:"+strconv.Itoa(k), "0", "4")
		if err != nil {
			return 0, 0, err
		}
		if len(v.Str) != 5 || v.Str[:4] != "HYLL" {
			return 0, 0, fmt.Errorf("%s: hll:%d does not start with HYLL: %q", s.Name, k, v.Str)
		}
		switch v.Str[4] {
		case 0:
			dense++
		case 1:
			sparse++
		default:
			return 0, 0, fmt.Errorf("%s: hll:%d has encoding byte %d", s.Name, k, v.Str[4])
		}
	}
	return sparse, dense, nil
}

// loadMemory loads a memory case's elements over one connection.
func loadMemory(ctx context.Context, c *config, name string, s *server) error {
	switch name {
	case "mem-stream":
		return pipeline(ctx, s, 1, 1000, c.memElements, func(b []byte, i int) []byte {
			return appendXAdd(b, "mstream:"+strconv.Itoa(i%c.memKeys), uint64(i)+1<<40)
		})
	case "mem-geo":
		cmds := (c.memElements + 99) / 100
		return pipeline(ctx, s, 1, 100, cmds, func(b []byte, j int) []byte {
			return appendGeoAdd(b, "mgeo:"+strconv.Itoa(j%c.memKeys), j*100, min(j*100+100, c.memElements), anywhere)
		})
	}
	return fmt.Errorf("no memory case %s", name)
}

// countMemory is how many elements a memory case's keys hold.
func countMemory(c *config, name string, s *server) (int64, error) {
	cmd, prefix := "XLEN", "mstream:"
	if name == "mem-geo" {
		cmd, prefix = "ZCARD", "mgeo:"
	}
	var total int64
	for k := range c.memKeys {
		v, err := s.do(cmd, prefix+strconv.Itoa(k))
		if err != nil {
			return 0, err
		}
		total += v.Int
	}
	return total, nil
}
