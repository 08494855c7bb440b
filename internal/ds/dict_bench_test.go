package ds_test

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Benchmarks compare Dict with Go's builtin map (a swiss table since Go
// 1.24) on the keyspace's access pattern: []byte keys from the request
// buffer, values of one pointer, memtier-like key names.

type benchValue struct{ p *int }

var benchSizes = []int{1 << 10, 1 << 20}

func benchKeys(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		keys[i] = fmt.Appendf(nil, "memtier-%d", i)
	}
	// Shuffle so lookups do not follow insertion order.
	r := rand.New(rand.NewPCG(1, 2))
	r.Shuffle(n, func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	return keys
}

func filledDict(keys [][]byte) *ds.Dict[benchValue] {
	d := ds.New[benchValue](0)
	for _, k := range keys {
		d.Upsert(k)
	}
	for d.Rehash(1000) {
	}
	// Collect the previous sub-benchmark's table now rather than during
	// the measurement.
	runtime.GC()
	return d
}

func filledMap(keys [][]byte) map[string]benchValue {
	m := map[string]benchValue{}
	for _, k := range keys {
		m[string(k)] = benchValue{}
	}
	runtime.GC()
	return m
}

func BenchmarkFind(b *testing.B) {
	for _, n := range benchSizes {
		keys := benchKeys(n)
		b.Run(fmt.Sprintf("Dict/%d", n), func(b *testing.B) {
			d := filledDict(keys)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if d.Find(keys[i&(n-1)]) == nil {
					b.Fatal("miss")
				}
				i++
			}
		})
		b.Run(fmt.Sprintf("Map/%d", n), func(b *testing.B) {
			m := filledMap(keys)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, ok := m[string(keys[i&(n-1)])]; !ok {
					b.Fatal("miss")
				}
				i++
			}
		})
	}
}

func BenchmarkFindMiss(b *testing.B) {
	n := 1 << 20
	keys := benchKeys(n)
	miss := make([][]byte, 1024)
	for i := range miss {
		miss[i] = fmt.Appendf(nil, "absent-%d", i)
	}
	b.Run("Dict", func(b *testing.B) {
		d := filledDict(keys)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			d.Find(miss[i&1023])
			i++
		}
	})
	b.Run("Map", func(b *testing.B) {
		m := filledMap(keys)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			_ = m[string(miss[i&1023])]
			i++
		}
	})
}

// BenchmarkUpsertExisting overwrites values of present keys (SET on an
// existing key): no allocation.
func BenchmarkUpsertExisting(b *testing.B) {
	n := 1 << 20
	keys := benchKeys(n)
	x := 1
	b.Run("Dict", func(b *testing.B) {
		d := filledDict(keys)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			v, _ := d.Upsert(keys[i&(n-1)])
			v.p = &x
			i++
		}
	})
	b.Run("Map", func(b *testing.B) {
		m := filledMap(keys)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[i&(n-1)]
			if _, ok := m[string(k)]; ok {
				m[string(k)] = benchValue{&x} // assign needs a string key
			}
			i++
		}
	})
}

// BenchmarkInsert builds tables of 2^16 fresh keys from empty, growing as
// it goes; ns/op is per key. Map must allocate each key string, as the Dict
// copies each key.
func BenchmarkInsert(b *testing.B) {
	n := 1 << 16
	keys := benchKeys(n)
	b.Run("Dict", func(b *testing.B) {
		d := ds.New[benchValue](0)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == n {
				d = ds.New[benchValue](0)
				i = 0
			}
			d.Upsert(keys[i])
			i++
		}
	})
	b.Run("Map", func(b *testing.B) {
		m := map[string]benchValue{}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == n {
				m = map[string]benchValue{}
				i = 0
			}
			m[string(keys[i])] = benchValue{}
			i++
		}
	})
}

// BenchmarkChurn deletes and re-inserts keys at a steady size (SET/DEL
// traffic on a stable keyspace).
func BenchmarkChurn(b *testing.B) {
	n := 1 << 16
	keys := benchKeys(n)
	b.Run("Dict", func(b *testing.B) {
		d := filledDict(keys)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[i&(n-1)]
			d.Delete(k)
			d.Upsert(k)
			i++
		}
	})
	b.Run("Map", func(b *testing.B) {
		m := filledMap(keys)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[i&(n-1)]
			delete(m, string(k))
			m[string(k)] = benchValue{}
			i++
		}
	})
}

func BenchmarkDictOps(b *testing.B) {
	n := 1 << 16
	keys := benchKeys(n)
	d := filledDict(keys)
	r := rand.New(rand.NewPCG(1, 1))
	b.Run("FindHashed", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			k := keys[i&(n-1)]
			d.FindHashed(ds.Hash(k), k)
			i++
		}
	})
	b.Run("Hash", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			ds.Hash(keys[i&(n-1)])
			i++
		}
	})
	b.Run("RandomKey", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d.RandomKeyFrom(r)
		}
	})
	b.Run("Sample20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d.SampleFrom(r, 20, func(string, *benchValue) {})
		}
	})
	b.Run("ScanCall", func(b *testing.B) {
		b.ReportAllocs()
		var c uint64
		for b.Loop() {
			c = d.Scan(c, func(string, *benchValue) {})
		}
	})
	b.Run("RangePerKey", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			d.Range(func(string, *benchValue) bool { return true })
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/key")
	})
}
