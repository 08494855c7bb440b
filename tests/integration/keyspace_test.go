package integration

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestSelectSwapdbMove moves data between databases and checks that every
// connection sees the result (SWAPDB swaps the databases for all clients).
func TestSelectSwapdbMove(t *testing.T) {
	srv := testutil.StartCorvid(t)
	a := testutil.Dial(t, srv.Addr)
	b := testutil.Dial(t, srv.Addr)

	expect(t, a, "+OK", "SET", "k", "zero")
	expect(t, a, "+OK", "SELECT", "1")
	expect(t, a, "+OK", "SET", "k", "one")
	expect(t, a, "+OK", "SET", "only1", "x")
	expect(t, a, ":2", "DBSIZE")
	expect(t, b, `"zero"`, "GET", "k") // b is still in db 0

	expect(t, a, "+OK", "SWAPDB", "0", "1")
	expect(t, b, `"one"`, "GET", "k")
	expect(t, b, `"x"`, "GET", "only1")
	expect(t, a, `"zero"`, "GET", "k") // a stays on db 1, which now holds db 0's data
	expect(t, a, ":0", "EXISTS", "only1")

	// MOVE: to a db where the key is absent (1), then one where it exists (0).
	expect(t, b, ":1", "MOVE", "only1", "2")
	expect(t, b, ":0", "EXISTS", "only1")
	expect(t, b, "+OK", "SELECT", "2")
	expect(t, b, `"x"`, "GET", "only1")
	expect(t, b, "+OK", "SELECT", "0")
	expect(t, a, ":0", "MOVE", "k", "0") // db 0 already has k
	expect(t, a, `"zero"`, "GET", "k")
	expect(t, a, "-ERR source and destination objects are the same", "MOVE", "k", "1")
	expect(t, a, "-ERR DB index is out of range", "MOVE", "k", "16")
	expect(t, a, "-ERR DB index is out of range", "SELECT", "16")
	expect(t, a, "-ERR DB index is out of range", "SWAPDB", "0", "16")

	// MOVE keeps the TTL.
	expect(t, a, "+OK", "SET", "ttl", "v", "EX", "1000")
	expect(t, a, ":1", "MOVE", "ttl", "3")
	expect(t, a, "+OK", "SELECT", "3")
	if got := a.Do("TTL", "ttl"); got != ":1000" && got != ":999" {
		t.Errorf("TTL after MOVE = %s", got)
	}

	// go-redis clients bound to a DB (SELECT on connect) see the same.
	ctx := testCtx(t, 10*time.Second)
	c2 := newClient(t, srv.Addr, 2, func(o *redis.Options) { o.DB = 2 })
	if v := c2.Get(ctx, "only1").Val(); v != "x" {
		t.Errorf("go-redis DB 2 GET only1 = %q", v)
	}
	c3 := newClient(t, srv.Addr, 3, func(o *redis.Options) { o.DB = 1 })
	if v := c3.Get(ctx, "k").Val(); v != "zero" {
		t.Errorf("go-redis RESP3 DB 1 GET k = %q", v)
	}
}

// TestScanFullIteration: a full SCAN returns every key that exists for the
// whole iteration at least once, even while other clients add and delete
// keys (forcing the dict to rehash), and never returns a key twice when the
// keyspace is quiet.
func TestScanFullIteration(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	c := newClient(t, srv.Addr, 2)
	const n = 5000
	p := c.Pipeline()
	for i := 0; i < n; i++ {
		p.Set(ctx, "scan:"+strconv.Itoa(i), "v", 0)
	}
	p.Set(ctx, "other:1", "v", 0)
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}

	scanAll := func(match string, count int64) (map[string]int, error) {
		seen := map[string]int{}
		var cursor uint64
		for calls := 0; ; calls++ {
			if calls > 100000 {
				return nil, fmt.Errorf("SCAN did not terminate")
			}
			keys, next, err := c.Scan(ctx, cursor, match, count).Result()
			if err != nil {
				return nil, err
			}
			for _, k := range keys {
				seen[k]++
			}
			cursor = next
			if cursor == 0 {
				return seen, nil
			}
		}
	}

	// Quiet keyspace: exactly once each.
	seen, err := scanAll("", 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != n+1 {
		t.Fatalf("quiet SCAN saw %d distinct keys, want %d", len(seen), n+1)
	}
	for k, cnt := range seen {
		if cnt != 1 {
			t.Errorf("quiet SCAN returned %s %d times", k, cnt)
		}
	}

	// MATCH filters server-side.
	seen, err = scanAll("other:*", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 1 || seen["other:1"] != 1 {
		t.Fatalf("SCAN MATCH other:* = %v", seen)
	}

	// Concurrent growth and shrinkage: every original key still appears.
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 1)
	w := newClient(t, srv.Addr, 2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			p := w.Pipeline()
			for j := 0; j < 50; j++ {
				p.Set(ctx, "churn:"+strconv.Itoa(i*50+j), "v", 0)
			}
			if i > 2 {
				for j := 0; j < 40; j++ {
					p.Del(ctx, "churn:"+strconv.Itoa((i-2)*50+j))
				}
			}
			if _, err := p.Exec(ctx); err != nil {
				errs <- err
				return
			}
		}
	}()
	seen, err = scanAll("", 50)
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errs:
		t.Fatal(err)
	default:
	}
	for i := 0; i < n; i++ {
		if seen["scan:"+strconv.Itoa(i)] == 0 {
			t.Fatalf("SCAN under concurrent writes missed scan:%d", i)
		}
	}

	// TYPE filter.
	keys, _, err := c.ScanType(ctx, 0, "scan:1*", 100000, "string").Result()
	if err != nil || len(keys) == 0 {
		t.Fatalf("SCAN TYPE string: %v %v", keys, err)
	}
	keys, _, err = c.ScanType(ctx, 0, "", 100000, "list").Result()
	if err != nil || len(keys) != 0 {
		t.Fatalf("SCAN TYPE list: %v %v", keys, err)
	}
}
