package ds_test

import (
	"math/rand/v2"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// zsetLike is what both sorted set implementations offer for the insert
// benchmark.
type zsetLike interface {
	Add(member []byte, score float64) (bool, float64)
}

// benchInsert adds b.N new 128-byte members with random scores: the
// seed workload's ZADD into an ever-growing key.
func benchInsert(b *testing.B, z zsetLike) {
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

// BenchmarkZSetVsZSkipInsert compares ZSet (Dict + Skiplist) with ZSkip
// (one node per member) on inserts.
func BenchmarkZSetVsZSkipInsert(b *testing.B) {
	b.Run("ZSet", func(b *testing.B) { benchInsert(b, ds.NewZSet(0)) })
	b.Run("ZSkip", func(b *testing.B) { benchInsert(b, ds.NewZSkip(0)) })
}
