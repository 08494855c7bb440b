package db

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"testing"
)

// Memory per element of a big set and a big sorted set: 1M members of 128
// random bytes, as the benchmark (bench/) does against Redis 7.0,
// which takes 200 bytes per member in a set and 253 in a sorted set
// (used_memory delta, measured with redis-server 7.0.15 on the same data).
// Run with CORVID_MEMTEST=1 go test ./internal/db -run MemPerElement -v.

const memElems = 1_000_000

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// memMembers returns n random 128-byte members (hex digits).
func memMembers(n int) [][]byte {
	r := rand.New(rand.NewPCG(1, 2))
	const hex = "0123456789abcdef"
	out := make([][]byte, n)
	for i := range out {
		b := make([]byte, 128)
		for j := range b {
			b[j] = hex[r.IntN(16)]
		}
		out[i] = b
	}
	return out
}

func TestSetZSetMemPerElement(t *testing.T) {
	if os.Getenv("CORVID_MEMTEST") == "" {
		t.Skip("set CORVID_MEMTEST=1 to measure (allocates ~1 GB)")
	}
	members := memMembers(memElems)
	cfg := defaultSettings()
	scores := make([]float64, memElems)
	for i := range scores {
		scores[i] = rand.Float64() * 1e6
	}

	perSet, enc := measureHeap(func() *Object {
		o := newObject(TypeSet, newSetFor(cfg, members[0], 1))
		for _, m := range members {
			setAdd(cfg, o, m)
		}
		return o
	})
	t.Logf("set  (%s): %.1f heap bytes per member (Redis 7.0.15: 200)", enc, perSet)
	perZ, enc := measureHeap(func() *Object {
		o := newObject(TypeZSet, newZSetFor(cfg, 1, 128))
		for i, m := range members {
			zsetAdd(cfg, o, scores[i], m, 0)
		}
		return o
	})
	t.Logf("zset (%s): %.1f heap bytes per member (Redis 7.0.15: 253)", enc, perZ)
	runtime.KeepAlive(members) // not freed while a value is measured
	fmt.Fprintf(os.Stderr, "MEM set=%.1f zset=%.1f\n", perSet, perZ)
}

// measureHeap builds a value and returns the heap it holds per element and
// its encoding. The value is unreachable once measureHeap returns.
func measureHeap(build func() *Object) (float64, string) {
	before := heapInUse()
	o := build()
	after := heapInUse()
	enc := ObjectEncoding(o)
	runtime.KeepAlive(o)
	return float64(after-before) / memElems, enc
}
