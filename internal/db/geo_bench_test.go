package db

import (
	"math/rand/v2"
	"strconv"
	"syscall"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// The commands of bench/types.sh's geo and HyperLogLog cases, through the
// procedures with their stripe locked, as the dispatcher runs them:
//
//	go test ./internal/db -run XXX -bench 'Geo' -benchmem

// cpuMeter reports the process's CPU time per op (user+system, with the
// collector's), steadier than ns/op on a busy machine:
//
//	defer cpuMeter(b)()
func cpuMeter(b *testing.B) func() {
	t0 := cpuNanos()
	return func() {
		if b.N > 0 {
			b.ReportMetric(float64(cpuNanos()-t0)/float64(b.N), "cpu-ns/op")
		}
	}
}

func cpuNanos() int64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// benchGeoSet fills key with n members m:<i> at random positions in
// bench/types' search box (lon 0..10, lat 45..55), 100 per GEOADD.
func benchGeoSet(tb testing.TB, c *Ctx, key string, n int) {
	rng := rand.New(rand.NewPCG(7, 8))
	for lo := 0; lo < n; lo += 100 {
		argv := [][]byte{[]byte("GEOADD"), []byte(key)}
		for i := lo; i < min(lo+100, n); i++ {
			argv = append(argv, strconv.AppendFloat(nil, 10*rng.Float64(), 'f', -1, 64),
				strconv.AppendFloat(nil, 45+10*rng.Float64(), 'f', -1, 64),
				[]byte("m:"+strconv.Itoa(i)))
		}
		c.Argv = argv
		c.W.Reset()
		geoaddCommand(c)
		if b := c.W.Bytes(); len(b) == 0 || b[0] != ':' {
			tb.Fatalf("GEOADD: %q", b)
		}
	}
}

// benchSearchCenters are bench/types' 16 GEOSEARCH centers (searchCoords).
func benchSearchCenters() [][2][]byte {
	rng := rand.New(rand.NewPCG(2, 16))
	out := make([][2][]byte, 16)
	for i := range out {
		out[i] = [2][]byte{strconv.AppendFloat(nil, 1+8*rng.Float64(), 'f', 4, 64),
			strconv.AppendFloat(nil, 46+8*rng.Float64(), 'f', 4, 64)}
	}
	return out
}

// BenchmarkGeoSearch is bench/types' geosearch case: GEOSEARCH key
// FROMLONLAT <lon> <lat> BYRADIUS 50 km ASC COUNT 10 over 10,000 members,
// the 16 centers cycled. The sub-benchmarks vary the options.
func BenchmarkGeoSearch(b *testing.B) {
	ks := New(16)
	c := &Ctx{KS: ks, W: resp.NewWriter(1 << 16), Now: testNow}
	benchGeoSet(b, c, "geo:1", 10000)
	centers := benchSearchCenters()
	st := ks.StripeOf([]byte("geo:1"))
	for _, tc := range []struct {
		name string
		opts []string
	}{
		{"bench", []string{"BYRADIUS", "50", "km", "ASC", "COUNT", "10"}},
		{"all", []string{"BYRADIUS", "50", "km", "ASC"}},
		{"withdist", []string{"BYRADIUS", "50", "km", "ASC", "COUNT", "10", "WITHDIST", "WITHCOORD"}},
		{"box", []string{"BYBOX", "100", "100", "km", "ASC", "COUNT", "10"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			argvs := make([][][]byte, len(centers))
			for i, ctr := range centers {
				argv := [][]byte{[]byte("GEOSEARCH"), []byte("geo:1"), []byte("FROMLONLAT"), ctr[0], ctr[1]}
				for _, o := range tc.opts {
					argv = append(argv, []byte(o))
				}
				argvs[i] = argv
			}
			b.ReportAllocs()
			defer cpuMeter(b)()
			i := 0
			for b.Loop() {
				c.Argv = argvs[i%len(argvs)]
				i++
				c.W.Reset()
				ks.LockStripe(st)
				geosearchCommand(c)
				ks.UnlockStripe(st)
			}
			if b := c.W.Bytes(); len(b) == 0 || b[0] != '*' {
				panic(string(b))
			}
		})
	}
}

// BenchmarkGeoSearchKeys is the geosearch case over its 100 sets (GEO_KEYS)
// of 10,000 members, the sets and centers cycled: the data no longer fits
// the caches, as in the server.
func BenchmarkGeoSearchKeys(b *testing.B) {
	ks := New(16)
	c := &Ctx{KS: ks, W: resp.NewWriter(1 << 16), Now: testNow}
	const nkeys = 100
	keys := make([][]byte, nkeys)
	for k := range keys {
		keys[k] = []byte("geo:" + strconv.Itoa(k+1))
		benchGeoSet(b, c, string(keys[k]), 10000)
	}
	centers := benchSearchCenters()
	argv := [][]byte{[]byte("GEOSEARCH"), nil, []byte("FROMLONLAT"), nil, nil,
		[]byte("BYRADIUS"), []byte("50"), []byte("km"), []byte("ASC"), []byte("COUNT"), []byte("10")}
	b.ReportAllocs()
	defer cpuMeter(b)()
	i := 0
	for b.Loop() {
		k := keys[(i*37)%nkeys]
		argv[1] = k
		argv[3], argv[4] = centers[i%len(centers)][0], centers[i%len(centers)][1]
		i++
		c.Argv = argv
		c.W.Reset()
		st := ks.StripeOf(k)
		ks.LockStripe(st)
		geosearchCommand(c)
		ks.UnlockStripe(st)
	}
}

// BenchmarkGeoAdd is bench/types' geoadd case: GEOADD geo:<n> <lon> <lat>
// <16 random bytes> over 1,000 keys, 64 fixed positions cycled. The sets
// grow with b.N: -benchtime 500000x is about an 8-second run of the case
// (500 members a key at the end).
func BenchmarkGeoAdd(b *testing.B) {
	ks := New(16)
	c := &Ctx{KS: ks, W: resp.NewWriter(1 << 16), Now: testNow}
	rng := rand.New(rand.NewPCG(1, 64))
	var coords [64][2][]byte
	for i := range coords {
		coords[i] = [2][]byte{strconv.AppendFloat(nil, -180+360*rng.Float64(), 'f', 6, 64),
			strconv.AppendFloat(nil, -85.05112878+2*85.05112878*rng.Float64(), 'f', 6, 64)}
	}
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = []byte("geo:" + strconv.Itoa(i+1))
	}
	member := make([]byte, 16)
	argv := [][]byte{[]byte("GEOADD"), nil, nil, nil, member}
	b.ReportAllocs()
	defer cpuMeter(b)()
	i := 0
	for b.Loop() {
		k := keys[(i*7919)%len(keys)]
		argv[1] = k
		argv[2], argv[3] = coords[i%64][0], coords[i%64][1]
		uniqueMember(member, i)
		i++
		c.Argv = argv
		c.W.Reset()
		st := ks.StripeOf(k)
		ks.LockStripe(st)
		geoaddCommand(c)
		ks.UnlockStripe(st)
	}
}
