package ds_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

func BenchmarkZSet(b *testing.B) {
	n := 1 << 16
	members := make([][]byte, n)
	for i := range members {
		members[i] = fmt.Appendf(nil, "member:%d", i)
	}
	r := rand.New(rand.NewPCG(1, 2))
	z := ds.NewZSet(0)
	for _, m := range members {
		z.Add(m, float64(r.IntN(1000000)))
	}
	b.Run("AddUpdate", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			z.Add(members[i&(n-1)], float64(i%1000000))
			i++
		}
	})
	b.Run("Rank", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			z.Rank(members[i&(n-1)], false)
			i++
		}
	})
	b.Run("ByRank", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			z.List().ByRank(i & (n - 1))
			i++
		}
	})
	b.Run("FirstInScoreRange", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			z.List().FirstInScoreRange(ds.ScoreRange{Min: float64(i % 1000000), Max: 1e9})
			i++
		}
	})
	b.Run("InsertDelete", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			m := members[i&(n-1)]
			z.Remove(m)
			z.Add(m, float64(i))
			i++
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	cases := []struct{ name, pattern, s string }{
		{"prefix", "user:*", "user:1000:profile"},
		{"middle", "user:*:profile", "user:1000:profile"},
		{"class", "h[ae]llo?world*", "hallo_world_and_more"},
		{"miss", "*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},
	}
	for _, c := range cases {
		p, s := []byte(c.pattern), []byte(c.s)
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ds.Match(p, s, false)
			}
		})
	}
}
