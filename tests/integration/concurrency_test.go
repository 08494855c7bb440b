package integration

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestConcurrentIncr: 8 clients x 1000 INCR on one key from many
// goroutines (so on every core) must count exactly 8000.
func TestConcurrentIncr(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx := testCtx(t, 60*time.Second)
	const clients, each = 8, 1000
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		c := newClient(t, srv.Addr, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < each; n++ {
				if err := c.Incr(ctx, "counter").Err(); err != nil {
					errs <- err
					return
				}
				// A second key on another stripe, pipelined, so the
				// multi-key path is exercised concurrently too.
				if n%10 == 0 {
					p := c.Pipeline()
					p.IncrBy(ctx, "counter2", 10)
					p.DecrBy(ctx, "counter3", 1)
					if _, err := p.Exec(ctx); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := newClient(t, srv.Addr, 2)
	vals, err := c.MGet(ctx, "counter", "counter2", "counter3").Result()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"8000", "8000", "-800"}
	for i, v := range vals {
		if v != want[i] {
			t.Errorf("key %d = %v, want %s", i, v, want[i])
		}
	}
}

// TestMSetAtomicVsMGet: every MSET writes the same value to 16 keys spread
// over many stripes; concurrent MGETs must never see a mix of two MSETs.
func TestMSetAtomicVsMGet(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	keys := make([]string, 16)
	for i := range keys {
		keys[i] = fmt.Sprintf("mk:%d", i)
	}
	const writers, rounds, readers = 3, 500, 3
	errs := make(chan error, writers+readers)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		c := newClient(t, srv.Addr, 2)
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			args := make([]interface{}, 0, 2*len(keys))
			for i := 0; i < rounds; i++ {
				v := strconv.Itoa(w*rounds + i)
				args = args[:0]
				for _, k := range keys {
					args = append(args, k, v)
				}
				if err := c.MSet(ctx, args...).Err(); err != nil {
					errs <- err
					return
				}
			}
		}(w)
	}
	stop := make(chan struct{})
	var rg sync.WaitGroup
	var reads [readers]int
	for r := 0; r < readers; r++ {
		c := newClient(t, srv.Addr, 2)
		rg.Add(1)
		go func(r int) {
			defer rg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				vals, err := c.MGet(ctx, keys...).Result()
				if err != nil {
					errs <- err
					return
				}
				reads[r]++
				for _, v := range vals[1:] {
					if v != vals[0] {
						errs <- fmt.Errorf("MGET saw a partial MSET: %v", vals)
						return
					}
				}
			}
		}(r)
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	t.Logf("MGETs checked: %v", reads)
}
