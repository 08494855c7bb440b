package ds_test

import (
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// BenchmarkZSkipInsert adds b.N new 128-byte members with random scores:
// the seed workload's ZADD into an ever-growing key.
func BenchmarkZSkipInsert(b *testing.B) {
	z := ds.NewZSkip(0)
	r := rand.New(rand.NewPCG(9, 9))
	m := make([]byte, 128)
	for i := range m {
		m[i] = 'a' + byte(i%26)
	}
	b.ReportAllocs()
	i := uint64(0)
	for b.Loop() {
		for j := range 8 {
			m[j] = byte(i >> (8 * j))
		}
		z.Add(m, float64(r.IntN(1<<30)))
		i++
	}
}

// BenchmarkZSkipSeedZADD is the seed study's ZADD: 500 sorted sets, each
// member a new random 128-byte string whose score is the set's number (so
// every set orders its members by bytes alone), sets picked at random, so
// each insert searches a tree that is not in the CPU cache. The sets start
// with 1000 members each.
func BenchmarkZSkipSeedZADD(b *testing.B) {
	const sets, prefill = 500, 1000
	r := rand.New(rand.NewPCG(1, 2))
	m := make([]byte, 128)
	zs := fillContainers(sets, prefill, func() *ds.ZSkip { return ds.NewZSkip(0) }, func(z *ds.ZSkip, i int) {
		fillRandom(r, m)
		z.Add(m, float64(i))
	})
	b.ReportAllocs()
	for b.Loop() {
		k := r.IntN(sets)
		fillRandom(r, m)
		zs[k].Add(m, float64(k))
	}
}

// BenchmarkZSkipSeedZADDLockstep is BenchmarkZSkipSeedZADD with members
// made as memtier makes its values (and corvid-bench, which copies it):
// every client starts from the same random buffer and increments one byte
// per request, moving along it, so the members of a set share long
// prefixes and the tree's 8-byte keys tie often (each tie loads the other
// member). 50 clients take turns, as the seed's 2 x 25 connections do.
func BenchmarkZSkipSeedZADDLockstep(b *testing.B) {
	const sets, prefill = 500, 1000
	r := rand.New(rand.NewPCG(1, 2))
	next := ds.LockstepMembers(r, 50)
	zs := fillContainers(sets, prefill, func() *ds.ZSkip { return ds.NewZSkip(0) }, func(z *ds.ZSkip, i int) {
		z.Add(next(), float64(i))
	})
	b.ReportAllocs()
	for b.Loop() {
		k := r.IntN(sets)
		zs[k].Add(next(), float64(k))
	}
}

// fillContainers makes n containers with newC and calls add each times
// on each (with the container's number).
func fillContainers[C any](n, each int, newC func() C, add func(c C, i int)) []C {
	cs := make([]C, n)
	for i := range cs {
		cs[i] = newC()
		for range each {
			add(cs[i], i)
		}
	}
	return cs
}

// fillRandom fills each of bufs with random bytes.
func fillRandom(r *rand.Rand, bufs ...[]byte) {
	for _, p := range bufs {
		for i := range p {
			p[i] = byte(r.Uint32())
		}
	}
}

// BenchmarkZSkipGC is one full garbage collection over 500 sorted sets of
// 2000 random 128-byte members each (1M members, the seed ZADD keyspace at
// about 250 MB): the collector's marking cost for skiplist-encoded sorted
// sets, which decides ZADD's throughput once the heap sits at maxmemory
// (the runtime limit makes the collector run whenever the heap reaches
// it). ns/op is per collection; ns/member divides by the member count.
func BenchmarkZSkipGC(b *testing.B) {
	const sets, members = 500, 2000
	r := rand.New(rand.NewPCG(3, 4))
	m := make([]byte, 128)
	zs := fillContainers(sets, members, func() *ds.ZSkip { return ds.NewZSkip(0) }, func(z *ds.ZSkip, i int) {
		fillRandom(r, m)
		z.Add(m, float64(i))
	})
	benchFullGC(b, zs, sets*members, "ns/member")
}

// BenchmarkSmallZSkipGC is one full collection over 500k two-member
// sorted sets of 128-byte members (skiplist-encoded: longer than
// zset-max-listpack-value), the keyspace-scaling ZADD at many keys, where
// each set's objects, not its members, are what the collector visits.
// ns/set divides by the sets.
func BenchmarkSmallZSkipGC(b *testing.B) {
	const sets = 500_000
	r := rand.New(rand.NewPCG(7, 8))
	m := make([]byte, 128)
	zs := fillContainers(sets, 2, func() *ds.ZSkip { return ds.NewZSkip(1) }, func(z *ds.ZSkip, i int) {
		fillRandom(r, m)
		z.Add(m, float64(i))
	})
	benchFullGC(b, zs, sets, "ns/set")
}

// benchFullGC times full collections of a heap holding keep, and reports
// the time per collection divided by units as the metric unit too.
func benchFullGC(b *testing.B, keep any, units int, unit string) {
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		runtime.GC()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(units), unit)
	runtime.KeepAlive(keep)
}

// BenchmarkZSkipChurn is a sorted set of 100k random 64-byte members at a
// steady size: each op removes a random member and adds a new one, so
// slabs keep filling with holes and being evacuated (zskip_slab.go). ns/op
// is one remove plus one add, evacuation moves included.
func BenchmarkZSkipChurn(b *testing.B) {
	const size = 100_000
	r := rand.New(rand.NewPCG(5, 6))
	z := ds.NewZSkip(0)
	members := make([][]byte, size)
	newMember := func() []byte {
		m := make([]byte, 64)
		for j := range m {
			m[j] = byte(r.Uint32())
		}
		return m
	}
	for i := range members {
		members[i] = newMember()
		z.Add(members[i], float64(r.IntN(1000)))
	}
	b.ReportAllocs()
	for b.Loop() {
		i := r.IntN(size)
		z.Remove(members[i])
		members[i] = newMember()
		z.Add(members[i], float64(r.IntN(1000)))
	}
	b.ReportMetric(float64(z.MemUsage())/size, "B/member")
}

// BenchmarkZSkipDeleteRange removes whole runs (ZREMRANGEBYRANK of the
// lowest 10,000 of 100,000 members, then of a middle range), the walk
// that the tree does as one descent per member.
func BenchmarkZSkipDeleteRange(b *testing.B) {
	const n, run = 100_000, 10_000
	r := rand.New(rand.NewPCG(3, 3))
	z := ds.NewZSkip(0)
	fillZSkip(r, z, n)
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		fillZSkip(r, z, n)
		b.StartTimer()
		z.DeleteRangeByRank(0, run/2-1)
		z.DeleteRangeByRank(n/2, n/2+run/2-1)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*run), "ns/member")
}

// BenchmarkZSkipWalk walks 100,000 members in order, forward then back,
// as ZRANGE and ZREVRANGE of a whole set do: a ZIter reads each leaf's
// slots in place and climbs its path once per leaf (the skiplist design
// followed a link into each next node).
func BenchmarkZSkipWalk(b *testing.B) {
	const n = 100_000
	z := ds.NewZSkip(0)
	fillZSkip(rand.New(rand.NewPCG(5, 5)), z, n)
	var sum float64
	for b.Loop() {
		for it := z.IterAt(0); it.Valid(); it.Next() {
			sum += it.Node().Score()
		}
		for it := z.IterAt(n - 1); it.Valid(); it.Prev() {
			sum -= it.Node().Score()
		}
	}
	if sum != 0 {
		b.Fatal("the walks disagree")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*2*n), "ns/member")
}

// fillZSkip adds random 64-byte members with scores in [0, 1000) until z
// has n.
func fillZSkip(r *rand.Rand, z *ds.ZSkip, n int) {
	m := make([]byte, 64)
	for z.Len() < n {
		fillRandom(r, m)
		z.Add(m, float64(r.IntN(1000)))
	}
}
