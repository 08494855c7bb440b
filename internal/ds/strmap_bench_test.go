package ds_test

import (
	"math/rand/v2"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// BenchmarkStrMapSeedHSET is the seed study's HSET: 500 hashes, each new
// field a random 128-byte string with a random 128-byte value, hashes
// picked at random. The hashes start with 1000 fields each.
func BenchmarkStrMapSeedHSET(b *testing.B) {
	const maps, prefill = 500, 1000
	r := rand.New(rand.NewPCG(1, 2))
	f, v := make([]byte, 128), make([]byte, 128)
	ms := fillContainers(maps, prefill, func() *ds.StrMap { return ds.NewStrMap(0) }, func(m *ds.StrMap, _ int) {
		fillRandom(r, f, v)
		m.Set(f, v)
	})
	b.ReportAllocs()
	for b.Loop() {
		fillRandom(r, f, v)
		ms[r.IntN(maps)].Set(f, v)
	}
}

// BenchmarkStrMapGC is one full garbage collection over 500 hashes of 2000
// random 128-byte fields with 128-byte values (1M fields, about 300 MB):
// the collector's marking cost for hashtable-encoded hashes and sets,
// which decides HSET's and SADD's throughput once the heap is large. ns/op
// is per collection; ns/field divides by the field count.
func BenchmarkStrMapGC(b *testing.B) {
	const maps, fields = 500, 2000
	r := rand.New(rand.NewPCG(3, 4))
	f := make([]byte, 128)
	ms := fillContainers(maps, fields, func() *ds.StrMap { return ds.NewStrMap(0) }, func(m *ds.StrMap, _ int) {
		fillRandom(r, f)
		m.Set(f, f)
	})
	benchFullGC(b, ms, maps*fields, "ns/field")
}

// BenchmarkStrMapGrow adds random 128-byte keys to one set until it holds
// 1M, then starts another: the cost of an insert including the index's
// incremental resizes, whose moves load records in hash order (cache
// misses once the set outgrows the CPU caches).
func BenchmarkStrMapGrow(b *testing.B) {
	const limit = 1 << 20
	r := rand.New(rand.NewPCG(5, 6))
	k := make([]byte, 128)
	m := ds.NewStrMap(0)
	b.ReportAllocs()
	for b.Loop() {
		if m.Len() == limit {
			m = ds.NewStrMap(0)
		}
		fillRandom(r, k)
		m.Add(k)
	}
}
