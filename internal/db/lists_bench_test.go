package db

import (
	"math/rand/v2"
	"runtime"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// benchCtx is a Ctx on a fresh keyspace for driving procedures directly,
// with the one-stripe locking of the dispatcher's fast path.
func lhBenchCtx() *Ctx {
	return &Ctx{KS: New(16), W: resp.NewWriter(1 << 16), Now: testNow}
}

// call runs proc on argv under the stripe of argv[1].
func (c *Ctx) lhCall(proc Proc, argv [][]byte) {
	c.Argv = argv
	st := c.KS.StripeOf(argv[1])
	c.KS.LockStripe(st)
	proc(c)
	c.KS.UnlockStripe(st)
	c.W.Reset()
}

func lhRandValue(r *rand.Rand, n int) []byte {
	v := make([]byte, n)
	for i := range v {
		v[i] = byte('a' + r.IntN(26))
	}
	return v
}

// heapInUse returns the live heap after a full collection.
func lhHeapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkListMemory reports the heap bytes per element of one list of
// 1M random 128-byte values built with LPUSH (b.N is ignored: run with
// -benchtime=1x).
func BenchmarkListMemory(b *testing.B) {
	const n = 1_000_000
	r := rand.New(rand.NewPCG(1, 2))
	vals := make([][]byte, 1000)
	for i := range vals {
		vals[i] = lhRandValue(r, 128)
	}
	c := lhBenchCtx()
	argv := [][]byte{[]byte("lpush"), []byte("biglist"), nil}
	before := lhHeapInUse()
	for i := 0; i < n; i++ {
		argv[2] = vals[i%len(vals)]
		c.lhCall(lpushCommand, argv)
	}
	after := lhHeapInUse()
	b.ReportMetric(float64(after-before)/n, "heapB/elem")
	b.ReportMetric(0, "ns/op")
	runtime.KeepAlive(c)
}

// BenchmarkLPush measures LPUSH of a 128-byte value onto existing lists
// (500 keys, as the seed workload).
func BenchmarkLPush(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	c := lhBenchCtx()
	keys := make([][]byte, 500)
	for i := range keys {
		keys[i] = []byte("list:" + strconv.Itoa(i))
		c.lhCall(lpushCommand, [][]byte{[]byte("lpush"), keys[i], []byte("x")})
	}
	argv := [][]byte{[]byte("lpush"), nil, lhRandValue(r, 128)}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		argv[1] = keys[i%len(keys)]
		c.lhCall(lpushCommand, argv)
		i++
	}
}

// TestLPushAllocs: pushing onto an existing list allocates nothing beyond
// the amortised node buffers (one 8 KiB node per ~62 values).
func TestLPushAllocs(t *testing.T) {
	c := lhBenchCtx()
	v := make([]byte, 128)
	argv := [][]byte{[]byte("lpush"), []byte("l"), v}
	for i := 0; i < 1000; i++ {
		c.lhCall(lpushCommand, argv)
	}
	allocs := testing.AllocsPerRun(6200, func() { c.lhCall(lpushCommand, argv) })
	// 6200 pushes need 100 new nodes: a node and its buffer each.
	if allocs > 0.05 {
		t.Fatalf("%.3f allocations per LPUSH", allocs)
	}
}

// BenchmarkLRange100 reads the first 100 elements of a big list.
func BenchmarkLRange100(b *testing.B) {
	c := lhBenchCtx()
	v := make([]byte, 128)
	for i := 0; i < 100000; i++ {
		c.lhCall(rpushCommand, [][]byte{[]byte("rpush"), []byte("l"), v})
	}
	argv := [][]byte{[]byte("lrange"), []byte("l"), []byte("0"), []byte("99")}
	b.ReportAllocs()
	for b.Loop() {
		c.lhCall(lrangeCommand, argv)
	}
}
