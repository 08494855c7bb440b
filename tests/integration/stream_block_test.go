package integration

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// forCorvidAndValkey runs f against a fresh corvid-server and, when it is
// found, against valkey-server 8.0.1: the expectations written in a
// stream test are so checked against the reference too.
func forCorvidAndValkey(t *testing.T, f func(t *testing.T, addr string)) {
	t.Run("corvid", func(t *testing.T) { f(t, testutil.StartCorvid(t).Addr) })
	t.Run("valkey", func(t *testing.T) {
		if !testutil.HaveValkey(t) {
			t.Skip("valkey-server not found")
		}
		f(t, testutil.StartValkey(t).Addr)
	})
}

// namedClient is a client whose connection is named (CLIENT SETNAME), so
// that CLIENT LIST can tell when it is blocked.
func namedClient(t *testing.T, addr, name string) *redis.Client {
	return newClient(t, addr, 2, func(o *redis.Options) {
		o.PoolSize = 1
		o.ReadTimeout = 30 * time.Second
		o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
			return cn.ClientSetName(ctx, name).Err()
		}
	})
}

// waitClientBlocked polls CLIENT LIST until the client named name is
// blocked (flags=b) in cmd.
func waitClientBlocked(t *testing.T, admin *redis.Client, name, cmd string) {
	t.Helper()
	ctx := context.Background()
	var list string
	if !waitFor(hangTimeout, func() bool {
		list = admin.ClientList(ctx).Val()
		for _, line := range strings.Split(list, "\n") {
			if strings.Contains(line, " name="+name+" ") && strings.Contains(line, " flags=b ") && strings.Contains(line, " cmd="+cmd+" ") {
				return true
			}
		}
		return false
	}) {
		t.Fatalf("%s did not block in %s:\n%s", name, cmd, list)
	}
}

// reply is what a blocked read returned.
type reply struct {
	streams []redis.XStream
	err     error
}

func (r reply) String() string {
	if r.err != nil {
		return "error: " + r.err.Error()
	}
	var parts []string
	for _, s := range r.streams {
		var ids []string
		for _, m := range s.Messages {
			ids = append(ids, m.ID)
		}
		parts = append(parts, s.Stream+":"+strings.Join(ids, ","))
	}
	return strings.Join(parts, " ")
}

func goReadGroup(c *redis.Client, a *redis.XReadGroupArgs) <-chan reply {
	ch := make(chan reply, 1)
	go func() {
		s, err := c.XReadGroup(context.Background(), a).Result()
		ch <- reply{s, err}
	}()
	return ch
}

func goRead(c *redis.Client, a *redis.XReadArgs) <-chan reply {
	ch := make(chan reply, 1)
	go func() {
		s, err := c.XRead(context.Background(), a).Result()
		ch <- reply{s, err}
	}()
	return ch
}

func recvReply(t *testing.T, ch <-chan reply) reply {
	t.Helper()
	select {
	case r := <-ch:
		return r
	case <-time.After(hangTimeout):
		t.Fatal("no reply from a blocked stream read")
	}
	return reply{}
}

// noReplyYet checks that a blocked read has not answered: what the
// server has answered by the time a later command round-trips.
func noReplyYet(t *testing.T, admin *redis.Client, ch <-chan reply) {
	t.Helper()
	admin.Ping(context.Background())
	select {
	case r := <-ch:
		t.Fatalf("unexpected reply %s", r)
	default:
	}
}

// TestStreamBlockingConsumers: consumers of one group blocked on a key
// are served in the order they blocked, one entry each; XREAD readers of
// the same key all see every entry; the served reads happen right after
// the push, before the pusher's next command.
func TestStreamBlockingConsumers(t *testing.T) {
	forCorvidAndValkey(t, func(t *testing.T, addr string) {
		ctx := context.Background()
		admin := newClient(t, addr, 2)
		admin.XGroupCreateMkStream(ctx, "s", "g", "$")
		names := []string{"ca", "cb", "cc"}
		var chans []<-chan reply
		for _, n := range names {
			c := namedClient(t, addr, n)
			chans = append(chans, goReadGroup(c, &redis.XReadGroupArgs{Group: "g", Consumer: n, Streams: []string{"s", ">"}, Count: 1, Block: 0}))
			waitClientBlocked(t, admin, n, "xreadgroup")
		}
		var readers []<-chan reply
		for i := range 2 {
			n := fmt.Sprintf("r%d", i)
			c := namedClient(t, addr, n)
			readers = append(readers, goRead(c, &redis.XReadArgs{Streams: []string{"s", "$"}, Block: 0}))
			waitClientBlocked(t, admin, n, "xread")
		}
		// One entry per XADD: each goes to the longest-waiting consumer.
		// The pipeline's XPENDING runs after the served read took its
		// entry.
		for i, n := range names {
			id := fmt.Sprintf("%d-1", i+1)
			p := admin.Pipeline()
			p.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: id, Values: []string{"f", n}})
			pend := p.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: "s", Group: "g", Start: id, End: id, Count: 1})
			if _, err := p.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if got := recvReply(t, chans[i]).String(); got != "s:"+id {
				t.Errorf("consumer %s got %s, want s:%s", n, got, id)
			}
			if ps := pend.Val(); len(ps) != 1 || ps[0].Consumer != n {
				t.Errorf("entry %s pending for %v right after the XADD, want %s", id, ps, n)
			}
			for _, ch := range chans[i+1:] {
				noReplyYet(t, admin, ch)
			}
			if i == 0 {
				for j, ch := range readers {
					if got := recvReply(t, ch).String(); got != "s:1-1" {
						t.Errorf("reader %d got %s", j, got)
					}
				}
			}
		}
		info := admin.XInfoConsumers(ctx, "s", "g").Val()
		if len(info) != 3 {
			t.Fatalf("consumers %+v", info)
		}
		for _, c := range info {
			if c.Pending != 1 {
				t.Errorf("consumer %s has %d pending, want 1", c.Name, c.Pending)
			}
		}
	})
}

// TestStreamBlockingGroupGone: a consumer blocked in XREADGROUP is
// answered NOGROUP when its key is deleted or its group destroyed, and
// WRONGTYPE when the key is overwritten by another type; an XREAD reader
// is not woken by any of that.
func TestStreamBlockingGroupGone(t *testing.T) {
	forCorvidAndValkey(t, func(t *testing.T, addr string) {
		ctx := context.Background()
		admin := newClient(t, addr, 2)
		for _, tc := range []struct {
			name string
			do   func()
			want string
		}{
			{"DEL", func() { admin.Del(ctx, "s") }, "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"},
			{"DESTROY", func() { admin.XGroupDestroy(ctx, "s", "g") }, "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"},
			{"SET", func() { admin.Set(ctx, "s", "x", 0) }, "WRONGTYPE Operation against a key holding the wrong kind of value"},
			{"EXPIRE", func() { admin.PExpire(ctx, "s", time.Millisecond) }, "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"},
			{"RENAME", func() { admin.Rename(ctx, "s", "elsewhere") }, "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"},
			{"FLUSHALL", func() { admin.FlushAll(ctx) }, "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				admin.Del(ctx, "s", "elsewhere")
				admin.XGroupCreateMkStream(ctx, "s", "g", "$")
				c := namedClient(t, addr, "grp")
				ch := goReadGroup(c, &redis.XReadGroupArgs{Group: "g", Consumer: "c", Streams: []string{"s", ">"}, Block: 0})
				waitClientBlocked(t, admin, "grp", "xreadgroup")
				r := namedClient(t, addr, "rdr")
				rch := goRead(r, &redis.XReadArgs{Streams: []string{"s", "$"}, Block: 0})
				waitClientBlocked(t, admin, "rdr", "xread")
				tc.do()
				if got := recvReply(t, ch); got.err == nil || got.err.Error() != tc.want {
					t.Errorf("blocked XREADGROUP got %s, want error %s", got, tc.want)
				}
				noReplyYet(t, admin, rch)
				admin.Del(ctx, "s")
				admin.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "9-9", Values: []string{"f", "v"}})
				if got := recvReply(t, rch).String(); got != "s:9-9" {
					t.Errorf("XREAD reader got %s", got)
				}
			})
		}
	})
}

// TestStreamBlockingIDs: "$" stands for the last ID when the read
// blocked, "+" for the last entry whenever the read is tried again; a
// transaction's entries are all there when the read is served; a
// timeout, CLIENT UNBLOCK, and a read inside MULTI answer null (or the
// UNBLOCKED error).
func TestStreamBlockingIDs(t *testing.T) {
	forCorvidAndValkey(t, func(t *testing.T, addr string) {
		ctx := context.Background()
		admin := newClient(t, addr, 2)
		c := namedClient(t, addr, "rd")
		for _, tc := range []struct{ id, want string }{{"$", "s:1-2,1-3"}, {"+", "s:1-3"}} {
			admin.Del(ctx, "s")
			admin.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-1", Values: []string{"f", "v"}})
			admin.XDel(ctx, "s", "1-1")
			ch := goRead(c, &redis.XReadArgs{Streams: []string{"s", tc.id}, Block: 0})
			waitClientBlocked(t, admin, "rd", "xread")
			tx := admin.TxPipeline()
			tx.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-2", Values: []string{"f", "v"}})
			tx.XAdd(ctx, &redis.XAddArgs{Stream: "s", ID: "1-3", Values: []string{"f", "v"}})
			if _, err := tx.Exec(ctx); err != nil {
				t.Fatal(err)
			}
			if got := recvReply(t, ch).String(); got != tc.want {
				t.Errorf("XREAD BLOCK 0 STREAMS s %s got %s, want %s", tc.id, got, tc.want)
			}
		}
		if _, err := c.XRead(ctx, &redis.XReadArgs{Streams: []string{"s", "$"}, Block: 30 * time.Millisecond}).Result(); !errors.Is(err, redis.Nil) {
			t.Errorf("timed out XREAD: %v", err)
		}
		// CLIENT UNBLOCK, as TIMEOUT then as ERROR.
		id := c.ClientID(ctx).Val()
		for _, how := range []string{"TIMEOUT", "ERROR"} {
			ch := goRead(c, &redis.XReadArgs{Streams: []string{"s", "$"}, Block: 0})
			waitClientBlocked(t, admin, "rd", "xread")
			admin.Do(ctx, "CLIENT", "UNBLOCK", id, how)
			got := recvReply(t, ch)
			switch {
			case how == "TIMEOUT" && !errors.Is(got.err, redis.Nil):
				t.Errorf("UNBLOCK TIMEOUT: %s", got)
			case how == "ERROR" && (got.err == nil || !strings.HasPrefix(got.err.Error(), "UNBLOCKED")):
				t.Errorf("UNBLOCK ERROR: %s", got)
			}
		}
		// Inside MULTI a read cannot block: it answers at once.
		tx := c.TxPipeline()
		rd := tx.XRead(ctx, &redis.XReadArgs{Streams: []string{"s", "$"}, Block: 0})
		tx.Exec(ctx)
		if !errors.Is(rd.Err(), redis.Nil) {
			t.Errorf("XREAD BLOCK 0 inside MULTI: %v", rd.Err())
		}
	})
}

// TestStreamBlockingManyKeys: a read blocked on several keys is served by
// the first that gets an entry, once, with every stream it can serve.
func TestStreamBlockingManyKeys(t *testing.T) {
	forCorvidAndValkey(t, func(t *testing.T, addr string) {
		ctx := context.Background()
		admin := newClient(t, addr, 2)
		for _, k := range []string{"a", "b", "c"} {
			admin.XGroupCreateMkStream(ctx, k, "g", "$")
		}
		c := namedClient(t, addr, "multi")
		ch := goReadGroup(c, &redis.XReadGroupArgs{Group: "g", Consumer: "m", Streams: []string{"a", "b", "c", ">", ">", ">"}, Block: 0})
		waitClientBlocked(t, admin, "multi", "xreadgroup")
		tx := admin.TxPipeline()
		tx.XAdd(ctx, &redis.XAddArgs{Stream: "c", ID: "5-0", Values: []string{"f", "v"}})
		tx.XAdd(ctx, &redis.XAddArgs{Stream: "b", ID: "6-0", Values: []string{"f", "v"}})
		tx.Exec(ctx)
		if got := recvReply(t, ch).String(); got != "b:6-0 c:5-0" {
			t.Errorf("got %s, want b:6-0 c:5-0", got)
		}
		if n := admin.XPending(ctx, "b", "g").Val(); n.Count != 1 {
			t.Errorf("b's group has %d pending, want 1", n.Count)
		}
	})
}
