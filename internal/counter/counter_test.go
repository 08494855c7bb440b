package counter

import (
	"sync"
	"testing"
	"unsafe"
)

func TestShardedSumsShards(t *testing.T) {
	var c Sharded
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 1000; i++ {
				c.Add(g, 2)
			}
		}(g)
	}
	wg.Wait()
	if got := c.Load(); got != 16*1000*2 {
		t.Fatalf("Load = %d, want %d", got, 32000)
	}
	c.Add(-1, 5) // any int names a shard
	if got := c.Load(); got != 32005 {
		t.Fatalf("Load = %d after a negative shard", got)
	}
	c.Store(7)
	if got := c.Load(); got != 7 {
		t.Fatalf("Load after Store(7) = %d", got)
	}
}

func TestShardsAreCacheLines(t *testing.T) {
	var c Sharded
	if got := unsafe.Sizeof(c.s[0]); got != 64 {
		t.Fatalf("shard size %d, want 64", got)
	}
}

func BenchmarkShardedAddParallel(b *testing.B) {
	var c Sharded
	var next int64
	var mu sync.Mutex
	b.RunParallel(func(pb *testing.PB) {
		mu.Lock()
		shard := int(next)
		next++
		mu.Unlock()
		for pb.Next() {
			c.Add(shard, 1)
		}
	})
}
