package integration

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

func TestMultiExecGoRedis(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx := testCtx(t, 20*time.Second)
	for _, proto := range []int{2, 3} {
		c := newClient(t, srv.Addr, proto)
		var incr *redis.IntCmd
		var get *redis.StringCmd
		cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
			p.Set(ctx, "tx:a", "1", 0)
			incr = p.Incr(ctx, "tx:a")
			get = p.Get(ctx, "tx:a")
			return nil
		})
		if err != nil {
			t.Fatalf("RESP%d: %v", proto, err)
		}
		if len(cmds) != 3 || incr.Val() != 2 || get.Val() != "2" {
			t.Fatalf("RESP%d: %d cmds, incr=%d get=%q", proto, len(cmds), incr.Val(), get.Val())
		}
	}
}

// TestWatchInvalidatedByOtherClient: a WATCHed key written by another
// client makes EXEC return a null array and run nothing.
func TestWatchInvalidatedByOtherClient(t *testing.T) {
	srv := testutil.StartCorvid(t)
	a := testutil.Dial(t, srv.Addr)
	b := testutil.Dial(t, srv.Addr)

	expect(t, a, "+OK", "SET", "w", "1")
	expect(t, a, "+OK", "WATCH", "w")
	expect(t, b, "+OK", "SET", "w", "2")
	expect(t, a, "+OK", "MULTI")
	expect(t, a, "+QUEUED", "SET", "w", "from-a")
	expect(t, a, "+QUEUED", "SET", "other", "from-a")
	expectExact(t, a, "*-1\r\n", "EXEC")
	expect(t, a, `"2"`, "GET", "w")
	expect(t, a, ":0", "EXISTS", "other")

	// Untouched watch: EXEC runs.
	expect(t, a, "+OK", "WATCH", "w")
	expect(t, a, "+OK", "MULTI")
	expect(t, a, "+QUEUED", "SET", "w", "from-a")
	expect(t, a, "*[+OK]", "EXEC")

	// Deleting, expiring and FLUSHALL from another client invalidate too,
	// and so does a write in another database only for that database.
	for _, touch := range [][]string{{"DEL", "w"}, {"EXPIRE", "w", "100"}, {"FLUSHALL"}} {
		expect(t, a, "+OK", "SET", "w", "x")
		expect(t, a, "+OK", "WATCH", "w")
		b.Do(touch...)
		expect(t, a, "+OK", "MULTI")
		expect(t, a, "+QUEUED", "PING")
		if got := a.DoExact("EXEC"); got != "*-1\r\n" {
			t.Errorf("after %v by another client EXEC = %q, want null array", touch, got)
		}
	}
	expect(t, a, "+OK", "WATCH", "w")
	expect(t, b, "+OK", "SELECT", "1")
	expect(t, b, "+OK", "SET", "w", "db1")
	expect(t, a, "+OK", "MULTI")
	expect(t, a, "+QUEUED", "PING")
	expect(t, a, "*[+PONG]", "EXEC")

	// RESP3: the aborted EXEC is the RESP3 null.
	expect(t, a, "+OK", "WATCH", "w")
	expect(t, b, "+OK", "SELECT", "0")
	expect(t, b, "+OK", "SET", "w", "again")
	if got := a.Do("HELLO", "3"); got[0] != '%' {
		t.Fatalf("HELLO 3: %s", got)
	}
	expect(t, a, "+OK", "MULTI")
	expectExact(t, a, "_\r\n", "EXEC")
}

// TestWatchGoRedisOptimisticLock runs go-redis's canonical check-and-set
// loop from several clients at once: every increment must land exactly once.
func TestWatchGoRedisOptimisticLock(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx := testCtx(t, 60*time.Second)
	const clients, each = 4, 100
	var wg sync.WaitGroup
	errs := make(chan error, clients)
	for i := 0; i < clients; i++ {
		c := newClient(t, srv.Addr, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; n < each; n++ {
				for attempt := 0; ; attempt++ {
					if attempt > 10000 || ctx.Err() != nil {
						errs <- errors.New("check-and-set never succeeded")
						return
					}
					err := c.Watch(ctx, func(tx *redis.Tx) error {
						v, err := tx.Get(ctx, "cas").Int()
						if err != nil && err != redis.Nil {
							return err
						}
						_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
							p.Set(ctx, "cas", strconv.Itoa(v+1), 0)
							return nil
						})
						return err
					}, "cas")
					if err == nil {
						break
					}
					if err != redis.TxFailedErr {
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
	if v, err := c.Get(ctx, "cas").Int(); err != nil || v != clients*each {
		t.Fatalf("cas = %d (%v), want %d", v, err, clients*each)
	}
}

// TestExecAbortAfterQueuedError: a command rejected while queueing (unknown
// command, wrong arity) dooms the transaction; nothing runs.
func TestExecAbortAfterQueuedError(t *testing.T) {
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, "+OK", "MULTI")
	expect(t, c, "+QUEUED", "SET", "q1", "v")
	expect(t, c, "-ERR wrong number of arguments for 'get' command", "GET")
	expect(t, c, "+QUEUED", "SET", "q2", "v")
	expect(t, c, "-ERR unknown command 'NOPE', with args beginning with: 'x' ", "NOPE", "x")
	expect(t, c, "-EXECABORT Transaction discarded because of previous errors.", "EXEC")
	expect(t, c, ":0", "EXISTS", "q1", "q2")
	// The connection left MULTI: commands run immediately again.
	expect(t, c, "+OK", "SET", "q1", "v")
	expect(t, c, "-ERR EXEC without MULTI", "EXEC")

	// go-redis surfaces the same abort.
	ctx := testCtx(t, 10*time.Second)
	gc := newClient(t, srv.Addr, 2)
	_, err := gc.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "q3", "v", 0)
		p.Do(ctx, "NOPE")
		return nil
	})
	if err == nil || !containsAny(err.Error(), "EXECABORT", "unknown command") {
		t.Fatalf("go-redis TxPipelined with a bad command: %v", err)
	}
	if n, _ := gc.Exists(ctx, "q3").Result(); n != 0 {
		t.Fatal("q3 was written by an aborted transaction")
	}
}

// TestExecIsAtomic: readers never observe half of a transaction, even with
// transactions running on other cores at the same time.
func TestExecIsAtomic(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	const writers, rounds = 2, 300
	var wg sync.WaitGroup
	errs := make(chan error, writers+2)
	stop := make(chan struct{})
	for w := 0; w < writers; w++ {
		c := newClient(t, srv.Addr, 2)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < rounds; i++ {
				_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Incr(ctx, "atom:x")
					p.Incr(ctx, "atom:y")
					p.IncrBy(ctx, "atom:z", 2)
					return nil
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var rg sync.WaitGroup
	for r := 0; r < 2; r++ {
		c := newClient(t, srv.Addr, 2)
		rg.Add(1)
		go func() {
			defer rg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				vals, err := c.MGet(ctx, "atom:x", "atom:y", "atom:z").Result()
				if err != nil {
					errs <- err
					return
				}
				x, y, z := toInt(vals[0]), toInt(vals[1]), toInt(vals[2])
				if x != y || z != 2*x {
					errs <- errors.New("partial transaction visible: x=" + strconv.Itoa(x) + " y=" + strconv.Itoa(y) + " z=" + strconv.Itoa(z))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	rg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	c := newClient(t, srv.Addr, 2)
	if v, _ := c.Get(ctx, "atom:x").Int(); v != writers*rounds {
		t.Fatalf("atom:x = %d, want %d", v, writers*rounds)
	}
}

func toInt(v interface{}) int {
	s, _ := v.(string)
	n, _ := strconv.Atoi(s)
	return n
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
