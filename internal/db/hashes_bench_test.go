package db

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"
)

// BenchmarkHashMemory reports the heap bytes per field of one hash of 1M
// fields ("f0000000".."f0999999") with random 128-byte values (run with
// -benchtime=1x).
func BenchmarkHashMemory(b *testing.B) {
	const n = 1_000_000
	r := rand.New(rand.NewPCG(3, 4))
	c := lhBenchCtx()
	argv := [][]byte{[]byte("hset"), []byte("bighash"), nil, nil}
	before := lhHeapInUse()
	for i := 0; i < n; i++ {
		argv[2] = fmt.Appendf(nil, "f%07d", i)
		argv[3] = lhRandValue(r, 128)
		c.lhCall(hsetCommand, argv)
	}
	argv[2], argv[3] = nil, nil
	after := lhHeapInUse()
	b.ReportMetric(float64(after-before)/n, "heapB/elem")
	b.ReportMetric(0, "ns/op")
	runtime.KeepAlive(c)
}

// BenchmarkSmallHashMemory reports the heap bytes per hash of 100k hashes
// of 10 fields ("f0".."f9") with random 16-byte values.
func BenchmarkSmallHashMemory(b *testing.B) {
	const n = 100_000
	r := rand.New(rand.NewPCG(5, 6))
	c := lhBenchCtx()
	before := lhHeapInUse()
	for i := 0; i < n; i++ {
		key := []byte("hash:" + strconv.Itoa(i))
		for f := 0; f < 10; f++ {
			c.lhCall(hsetCommand, [][]byte{[]byte("hset"), key, []byte("f" + strconv.Itoa(f)), lhRandValue(r, 16)})
		}
	}
	after := lhHeapInUse()
	b.ReportMetric(float64(after-before)/n, "heapB/hash")
	b.ReportMetric(0, "ns/op")
	runtime.KeepAlive(c)
}

// BenchmarkHSet measures HSET of a new field with a 128-byte value into
// 500 growing hashes (the seed workload's shape).
func BenchmarkHSet(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	c := lhBenchCtx()
	keys := make([][]byte, 500)
	for i := range keys {
		keys[i] = []byte("hash:" + strconv.Itoa(i))
	}
	val := lhRandValue(r, 128)
	argv := [][]byte{[]byte("hset"), nil, nil, val}
	field := make([]byte, 0, 16)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		argv[1] = keys[i%len(keys)]
		field = strconv.AppendInt(field[:0], int64(i), 10)
		argv[2] = field
		c.lhCall(hsetCommand, argv)
		i++
	}
}

// BenchmarkHGet reads a field of a big hash.
func BenchmarkHGet(b *testing.B) {
	c := lhBenchCtx()
	v := make([]byte, 128)
	for i := 0; i < 100000; i++ {
		c.lhCall(hsetCommand, [][]byte{[]byte("hset"), []byte("h"), []byte(strconv.Itoa(i)), v})
	}
	argv := [][]byte{[]byte("hget"), []byte("h"), []byte("4242")}
	b.ReportAllocs()
	for b.Loop() {
		c.lhCall(hgetCommand, argv)
	}
}
