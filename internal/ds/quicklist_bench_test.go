package ds

import (
	"bytes"
	"math/rand/v2"
	"strconv"
	"testing"
)

// benchList returns a quicklist of n 128-byte values built with RPUSH
// under fill -2 and compress depth depth, and the value. The values are
// a run of one letter, so interior nodes compress.
func benchList(n, depth int) (*Quicklist, []byte) {
	q := NewQuicklist()
	v := bytes.Repeat([]byte{'v'}, 128)
	cfg := ListConfig{Fill: -2, Compress: depth}
	for range n {
		q.PrepareGrow(cfg, len(v), 1)
		q.PushTail(v)
	}
	return q, v
}

// The end benchmarks run with compress depth 0 (the default: the hot
// paths must cost what they did before compression existed) and 1 (a
// node is compressed each time an end adds one, about every 60 pushes).
var benchDepths = []int{0, 1}

func BenchmarkQuicklistPushTail(b *testing.B) {
	for _, d := range benchDepths {
		b.Run("depth"+strconv.Itoa(d), func(b *testing.B) {
			q, v := benchList(0, d)
			cfg := ListConfig{Fill: -2, Compress: d}
			b.ReportAllocs()
			for b.Loop() {
				q.PrepareGrow(cfg, len(v), 1)
				q.PushTail(v)
			}
		})
	}
}

// BenchmarkQuicklistPushPop alternates LPUSH+RPOP on a 10,000-element
// list (a queue): nodes are created at the head and dropped at the tail.
func BenchmarkQuicklistPushPop(b *testing.B) {
	for _, d := range benchDepths {
		b.Run("depth"+strconv.Itoa(d), func(b *testing.B) {
			q, v := benchList(10000, d)
			cfg := ListConfig{Fill: -2, Compress: d}
			var dst []byte
			b.ReportAllocs()
			for b.Loop() {
				q.PrepareGrow(cfg, len(v), 1)
				q.PushHead(v)
				dst = q.PopTail(dst[:0])
			}
		})
	}
}

// BenchmarkQuicklistPopHead pops from the head of a list refilled off
// the clock.
func BenchmarkQuicklistPopHead(b *testing.B) {
	for _, d := range benchDepths {
		b.Run("depth"+strconv.Itoa(d), func(b *testing.B) {
			q, _ := benchList(100000, d)
			var dst []byte
			b.ReportAllocs()
			for b.Loop() {
				if q.Len() == 0 {
					b.StopTimer()
					q, _ = benchList(100000, d)
					b.StartTimer()
				}
				dst = q.PopHead(dst[:0])
			}
		})
	}
}

// BenchmarkQuicklistIndexMiddle reads the middle element of a
// 100,000-element list (LINDEX): with depth 1 its node is compressed and
// each read decompresses it.
func BenchmarkQuicklistIndexMiddle(b *testing.B) {
	for _, d := range benchDepths {
		b.Run("depth"+strconv.Itoa(d), func(b *testing.B) {
			q, _ := benchList(100000, d)
			b.ReportAllocs()
			for b.Loop() {
				q.Index(50000)
			}
		})
	}
}

// wordNode returns a full 8 KiB node of 100-byte values made of words
// (as bench/list-compress.sh's), which LZF shrinks about 2x.
func wordNode() *qlNode {
	words := []string{"user", "session", "event", "click", "view", "order", "cart", "item",
		"price", "total", "status", "ok", "error", "retry", "region", "eu", "us", "device"}
	r := rand.New(rand.NewPCG(1, 2))
	n := newQLNode()
	for i := 0; qlAllowInsert(n, -2, 100); i++ {
		v := []byte(strconv.Itoa(i) + ":")
		for len(v) < 100 {
			v = append(v, words[r.IntN(len(words))]...)
			v = append(v, ' ')
		}
		n.pushBack(v[:100], 0)
	}
	return n
}

// BenchmarkQuicklistNodeCompress is the cost of compressing one full node
// (what a push pays each time a node moves past the depth) and of
// decompressing it (a read of an interior node, or a pop bringing it
// within the depth).
func BenchmarkQuicklistNodeCompress(b *testing.B) {
	raw := wordNode()
	b.Run("compress", func(b *testing.B) {
		b.SetBytes(int64(raw.used()))
		b.ReportAllocs()
		var c qlNode
		for b.Loop() {
			c = *raw
			if !c.compress() {
				b.Fatal("node did not compress")
			}
		}
		b.ReportMetric(float64(raw.used())/float64(c.used()), "x")
	})
	c := *raw
	c.compress()
	b.Run("decompress", func(b *testing.B) {
		b.SetBytes(int64(raw.used()))
		b.ReportAllocs()
		for b.Loop() {
			c.inflated()
		}
	})
}

// qlSink keeps benchmark results alive.
var qlSink *Quicklist

// BenchmarkQuicklistNewOne builds one-element lists of a 16-byte value
// (LPUSH to a new key): the Quicklist and its node's buffer.
func BenchmarkQuicklistNewOne(b *testing.B) {
	v := bytes.Repeat([]byte{'v'}, 16)
	cfg := ListConfig{Fill: -2}
	b.ReportAllocs()
	for b.Loop() {
		q := NewQuicklist()
		q.PrepareGrow(cfg, len(v), 1)
		q.PushHead(v)
		qlSink = q
	}
}
