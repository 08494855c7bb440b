package integration

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// Client-side caching (CLIENT TRACKING): caches of real client libraries
// (rueidis over RESP3, go-redis over RESP2 with REDIRECT) invalidated by
// writes on other connections (so on other event loops), expiry, eviction
// and flushes; broadcast mode, OPTIN/OPTOUT/NOLOOP and
// tracking-table-max-keys on the wire; and scripts whose every byte is
// compared with Valkey 8.0.1's.

// trackingLoops spreads connections over several event loops (connections
// are given to the loops in turn), so invalidations cross loops.
var trackingLoops = []string{"--event-loops", "4"}

// writers returns n single-connection go-redis clients, each its own
// connection, for writes from connections other than the reader's.
func writers(t *testing.T, addr string, n int) []*redis.Client {
	t.Helper()
	ws := make([]*redis.Client, n)
	for i := range ws {
		ws[i] = newClient(t, addr, 2, func(o *redis.Options) { o.PoolSize = 1 })
	}
	return ws
}

// invalidations collects rueidis' OnInvalidations calls: keys, and
// "<flush>" for a flush.
type invalidations struct {
	mu   sync.Mutex
	seen []string
}

func (v *invalidations) on(ms []rueidis.RedisMessage) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if ms == nil {
		v.seen = append(v.seen, "<flush>")
		return
	}
	for _, m := range ms {
		s, _ := m.ToString()
		v.seen = append(v.seen, s)
	}
}

func (v *invalidations) has(k string) bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return slices.Contains(v.seen, k)
}

func newRueidis(t *testing.T, addr string, opt rueidis.ClientOption) rueidis.Client {
	t.Helper()
	opt.InitAddress = []string{addr}
	opt.DisableRetry = true
	opt.Dialer.Timeout = 5 * time.Second
	c, err := rueidis.NewClient(opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// cachedGet is rueidis' cached GET: the value ("<nil>" for none) and
// whether it came from the local cache.
func cachedGet(ctx context.Context, t *testing.T, c rueidis.Client, k string) (string, bool) {
	t.Helper()
	r := c.DoCache(ctx, c.B().Get().Key(k).Cache(), time.Minute)
	v, err := r.ToString()
	if rueidis.IsRedisNil(err) {
		return "<nil>", r.IsCacheHit()
	}
	if err != nil {
		t.Fatalf("DoCache GET %s: %v", k, err)
	}
	return v, r.IsCacheHit()
}

// mustCache reads k twice through rueidis and checks the second read was
// served from the local cache with want.
func mustCache(ctx context.Context, t *testing.T, c rueidis.Client, k, want string) {
	t.Helper()
	if v, _ := cachedGet(ctx, t, c, k); v != want {
		t.Fatalf("GET %s = %q, want %q", k, v, want)
	}
	if v, hit := cachedGet(ctx, t, c, k); v != want || !hit {
		t.Fatalf("second GET %s = %q (cache hit %v), want %q from the cache", k, v, hit, want)
	}
}

// awaitValue waits until rueidis' cached GET of k gives want: the cache
// was invalidated.
func awaitValue(ctx context.Context, t *testing.T, c rueidis.Client, k, want string) {
	t.Helper()
	var v string
	if !waitFor(hangTimeout, func() bool { v, _ = cachedGet(ctx, t, c, k); return v == want }) {
		t.Fatalf("GET %s stays %q (stale cache), want %q", k, v, want)
	}
}

// TestTrackingRueidis: rueidis' client-side cache (RESP3, OPTIN: CLIENT
// CACHING YES, MULTI, PTTL, GET, EXEC) is invalidated by writes from
// connections on other event loops, by expiry, by eviction and by
// FLUSHALL.
func TestTrackingRueidis(t *testing.T) {
	srv := testutil.StartCorvid(t, trackingLoops...)
	ctx := testCtx(t, 2*time.Minute)
	var inv invalidations
	c := newRueidis(t, srv.Addr, rueidis.ClientOption{OnInvalidations: inv.on})
	ws := writers(t, srv.Addr, 6)

	t.Run("writes", func(t *testing.T) {
		for i, w := range ws {
			k := "user:" + strconv.Itoa(i)
			w.Set(ctx, k, "v0", 0)
			mustCache(ctx, t, c, k, "v0")
			// The write comes from another connection (and loop).
			w2 := ws[(i+1)%len(ws)]
			if err := w2.Set(ctx, k, "v1", 0).Err(); err != nil {
				t.Fatal(err)
			}
			awaitValue(ctx, t, c, k, "v1")
			mustCache(ctx, t, c, k, "v1")
			// Deleting and other commands that change the key count too.
			w.Append(ctx, k, "+")
			awaitValue(ctx, t, c, k, "v1+")
			w2.Del(ctx, k)
			awaitValue(ctx, t, c, k, "<nil>")
		}
	})

	t.Run("expiry", func(t *testing.T) {
		ws[0].Set(ctx, "ttl", "soon", time.Second)
		mustCache(ctx, t, c, "ttl", "soon")
		// Nothing writes the key again: only its expiry (active, on the
		// server's own time) can invalidate it.
		if !waitFor(hangTimeout, func() bool { return inv.has("ttl") }) {
			t.Fatal("no invalidation for an expired key")
		}
		awaitValue(ctx, t, c, "ttl", "<nil>")
	})

	t.Run("eviction", func(t *testing.T) {
		w := ws[1]
		w.Set(ctx, "old", "x", 0)
		mustCache(ctx, t, c, "old", "x")
		used := trackInfo(t, w, "memory", "used_memory")
		w.ConfigSet(ctx, "maxmemory-policy", "allkeys-random")
		w.ConfigSet(ctx, "maxmemory", strconv.FormatInt(used+4<<20, 10))
		t.Cleanup(func() { w.ConfigSet(context.Background(), "maxmemory", "0") })
		val := strings.Repeat("x", 1000)
		for i := 0; w.Exists(ctx, "old").Val() == 1; i++ {
			if i == 200_000 {
				t.Fatal("the key was never evicted")
			}
			pipe := w.Pipeline()
			for j := range 100 {
				pipe.Set(ctx, fmt.Sprintf("fill:%d:%d", i, j), val, 0)
			}
			if _, err := pipe.Exec(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if !waitFor(hangTimeout, func() bool { return inv.has("old") }) {
			t.Fatal("no invalidation for an evicted key")
		}
		awaitValue(ctx, t, c, "old", "<nil>")
		w.ConfigSet(ctx, "maxmemory", "0")
	})

	t.Run("flushall", func(t *testing.T) {
		ws[2].Set(ctx, "f", "1", 0)
		mustCache(ctx, t, c, "f", "1")
		ws[3].FlushAll(ctx)
		if !waitFor(hangTimeout, func() bool { return inv.has("<flush>") }) {
			t.Fatal("no null invalidation for FLUSHALL")
		}
		awaitValue(ctx, t, c, "f", "<nil>")
	})

	// rueidis may open more than one connection; each tracks.
	if n := trackInfo(t, ws[0], "clients", "tracking_clients"); n < 1 {
		t.Errorf("tracking_clients %d", n)
	}
}

// TestTrackingNoStaleCache races writers on several loops against a
// tracking reader (RESP3, default mode, plain GETs: no MULTI around them)
// that keeps a cache as a client library does: a reply fills it, an
// invalidation empties it. Once the writers stop and the reader's
// connection has caught up, every cached value must be the server's. A
// read whose key changed between the read and its remembering (a write
// slipping in after the read's lock is released) would stay stale.
func TestTrackingNoStaleCache(t *testing.T) {
	srv := testutil.StartCorvid(t, trackingLoops...)
	ctx := testCtx(t, 2*time.Minute)
	ws := writers(t, srv.Addr, 6)
	const nkeys = 8
	key := func(i int) string { return "race:" + strconv.Itoa(i) }
	conn, rd := testutil.DialConn(t, srv.Addr)
	conn.SetDeadline(time.Now().Add(time.Minute))
	send := func(args ...string) { conn.Write([]byte(testutil.Command(args...))) }
	read := func() string {
		var b strings.Builder
		if err := testutil.CopyReply(rd, &b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	send("HELLO", "3")
	read()
	send("CLIENT", "TRACKING", "ON")
	read()
	cache := map[string]string{}
	push := regexp.MustCompile(`^>2\r\n\$10\r\ninvalidate\r\n\*1\r\n\$\d+\r\n(\S+)\r\n$`)
	// reply reads up to the next reply, applying invalidations on the way.
	reply := func() string {
		for {
			s := read()
			if !strings.HasPrefix(s, ">") {
				return s
			}
			m := push.FindStringSubmatch(s)
			if m == nil {
				t.Fatalf("unexpected push %q", s)
			}
			delete(cache, m[1])
		}
	}
	var stop atomic.Bool
	var wg sync.WaitGroup
	for g, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := 0; !stop.Load(); n++ {
				w.Set(ctx, key(rand.IntN(nkeys)), fmt.Sprintf("%d-%d", g, n), 0)
			}
		}()
	}
	for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
		// A pipeline of reads, as a busy client sends them.
		var ks []string
		for range 16 {
			k := key(rand.IntN(nkeys))
			ks = append(ks, k)
			send("GET", k)
		}
		for _, k := range ks {
			if v := reply(); strings.HasPrefix(v, "$") {
				cache[k] = v
			}
		}
	}
	stop.Store(true)
	wg.Wait()
	// Invalidations already sent are before this reply.
	send("PING", "caught-up")
	reply()
	for k, v := range cache {
		want, err := ws[0].Get(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if enc := "$" + strconv.Itoa(len(want)) + "\r\n" + want + "\r\n"; v != enc {
			t.Errorf("%s: cached %q, server has %q (an invalidation was lost)", k, v, want)
		}
	}
}

// TestTrackingGoRedisRedirect: a RESP2 connection tracks with REDIRECT to
// a go-redis PubSub subscribed to __redis__:invalidate, which gets the
// invalidations as pub/sub messages (an array of keys as payload).
func TestTrackingGoRedisRedirect(t *testing.T) {
	srv := testutil.StartCorvid(t, trackingLoops...)
	ctx := testCtx(t, 2*time.Minute)
	var subID atomic.Int64
	sub := newClient(t, srv.Addr, 2, func(o *redis.Options) {
		o.PoolSize = 1
		o.OnConnect = func(ctx context.Context, cn *redis.Conn) error {
			id, err := cn.ClientID(ctx).Result()
			subID.Store(id)
			return err
		}
	})
	ps := sub.Subscribe(ctx, "__redis__:invalidate")
	defer ps.Close()
	if _, err := ps.Receive(ctx); err != nil { // the confirmation
		t.Fatal(err)
	}
	reader := newClient(t, srv.Addr, 2).Conn()
	defer reader.Close()
	if err := reader.Do(ctx, "CLIENT", "TRACKING", "ON", "REDIRECT", subID.Load()).Err(); err != nil {
		t.Fatal(err)
	}
	if got, _ := reader.Do(ctx, "CLIENT", "GETREDIR").Int64(); got != subID.Load() {
		t.Fatalf("GETREDIR %d, want %d", got, subID.Load())
	}
	ws := writers(t, srv.Addr, 4)

	expectKeys := func(t *testing.T, want ...string) {
		t.Helper()
		msg, err := ps.ReceiveTimeout(ctx, hangTimeout)
		if err != nil {
			t.Fatal(err)
		}
		m, ok := msg.(*redis.Message)
		if !ok || m.Channel != "__redis__:invalidate" || !slices.Equal(m.PayloadSlice, want) {
			t.Fatalf("got %#v, want an invalidation of %q", msg, want)
		}
	}
	read := func(k string) {
		if err := reader.Get(ctx, k).Err(); err != nil && err != redis.Nil {
			t.Fatal(err)
		}
	}

	t.Run("writes", func(t *testing.T) {
		for i, w := range ws {
			k := "k" + strconv.Itoa(i)
			read(k)
			w.Set(ctx, k, "1", 0)
			expectKeys(t, k)
			// Told once: no second message until it is read again.
			w.Set(ctx, k, "2", 0)
			read(k)
			w.Incr(ctx, "other")
			ws[(i+1)%len(ws)].Set(ctx, k, "3", 0)
			expectKeys(t, k)
		}
	})
	t.Run("expiry", func(t *testing.T) {
		ws[0].Set(ctx, "e", "1", 500*time.Millisecond)
		read("e")
		expectKeys(t, "e") // active expiry, no command involved
	})
	t.Run("lazy-expiry", func(t *testing.T) {
		ws[0].Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "0")
		defer ws[0].Do(ctx, "DEBUG", "SET-ACTIVE-EXPIRE", "1")
		ws[0].Set(ctx, "lz", "1", 400*time.Millisecond)
		read("lz")
		time.Sleep(800 * time.Millisecond)
		ws[1].Get(ctx, "lz") // finds it expired and deletes it
		expectKeys(t, "lz")
	})
	t.Run("eviction", func(t *testing.T) {
		w := ws[2]
		w.Set(ctx, "ev", "1", 0)
		read("ev")
		w.ConfigSet(ctx, "maxmemory-policy", "allkeys-random")
		// Below what is used: the next write evicts every key it can.
		w.ConfigSet(ctx, "maxmemory", "1")
		w.Set(ctx, "trigger", "x", 0)
		w.ConfigSet(ctx, "maxmemory", "0")
		if n := w.Exists(ctx, "ev").Val(); n != 0 {
			t.Fatal("ev was not evicted")
		}
		expectKeys(t, "ev")
	})
	t.Run("flushall", func(t *testing.T) {
		read("f")
		ws[3].FlushAll(ctx)
		// A flush is one message with a null payload ("every key"),
		// which go-redis does not model: it reports the payload type.
		_, err := ps.ReceiveTimeout(ctx, hangTimeout)
		if err == nil || !strings.Contains(err.Error(), "unsupported pubsub message payload: <nil>") {
			t.Fatalf("got %v, want go-redis' refusal of the null payload", err)
		}
	})
	t.Run("broken-redirect", func(t *testing.T) {
		read("b")
		ps.Close()
		sub.Close()
		if !waitFor(hangTimeout, func() bool {
			ws[0].Set(ctx, "b", "1", 0)
			read("b")
			info, _ := reader.Do(ctx, "CLIENT", "INFO").Text()
			return strings.Contains(info, " flags=tR ")
		}) {
			info, _ := reader.Do(ctx, "CLIENT", "INFO").Text()
			t.Fatalf("no R flag: %s", info)
		}
	})
}

// TestTrackingBroadcast: BCAST with prefixes, through rueidis (its cache
// in BCAST mode) and on the wire.
func TestTrackingBroadcast(t *testing.T) {
	srv := testutil.StartCorvid(t, trackingLoops...)
	ctx := testCtx(t, time.Minute)
	var inv invalidations
	c := newRueidis(t, srv.Addr, rueidis.ClientOption{
		OnInvalidations:       inv.on,
		ClientTrackingOptions: []string{"BCAST", "PREFIX", "user:", "PREFIX", "cart:"},
	})
	ws := writers(t, srv.Addr, 4)
	ws[0].Set(ctx, "user:1", "a", 0)
	mustCache(ctx, t, c, "user:1", "a")
	ws[1].Set(ctx, "user:1", "b", 0)
	awaitValue(ctx, t, c, "user:1", "b")
	// Keys nobody read are broadcast too; keys under no prefix are not.
	ws[2].Set(ctx, "other", "x", 0)
	ws[2].Set(ctx, "cart:9", "x", 0)
	if !waitFor(hangTimeout, func() bool { return inv.has("cart:9") }) {
		t.Fatal("no broadcast for cart:9")
	}
	if inv.has("other") {
		t.Error("broadcast for a key under no prefix")
	}

	// On the wire: one array per prefix, keys in order, per command.
	r := testutil.Dial(t, srv.Addr)
	r.Do("HELLO", "3")
	expect(t, r, "+OK", "CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "b", "PREFIX", "a")
	w := testutil.Dial(t, srv.Addr)
	expect(t, w, "+OK", "MSET", "b2", "1", "a2", "1", "c1", "1", "a1", "1")
	if got := r.ReadExact(); got != ">2\r\n$10\r\ninvalidate\r\n*2\r\n$2\r\na1\r\n$2\r\na2\r\n" {
		t.Errorf("prefix a: %q", got)
	}
	if got := r.ReadExact(); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\nb2\r\n" {
		t.Errorf("prefix b: %q", got)
	}
	expect(t, r, `%["flags", ~["on", "bcast"], "redirect", :0, "prefixes", *["a", "b"]]`, "CLIENT", "TRACKINGINFO")
	if got := trackInfo(t, ws[0], "stats", "tracking_total_prefixes"); got != 4 {
		t.Errorf("tracking_total_prefixes %d, want 4", got)
	}
}

// TestTrackingModes: OPTIN, OPTOUT, NOLOOP and RESET on the wire.
func TestTrackingModes(t *testing.T) {
	srv := testutil.StartCorvid(t, trackingLoops...)
	w := testutil.Dial(t, srv.Addr)
	r := testutil.Dial(t, srv.Addr)
	r.Do("HELLO", "3")
	inv := func(k string) string { return `>["invalidate", *["` + k + `"]]` }
	quiet := func() {
		t.Helper()
		// A marker round trip: no push may come before it.
		if got := r.Do("PING", "quiet"); got != `"quiet"` {
			t.Fatalf("unexpected push: %s", got)
		}
	}

	// OPTIN: only what is read right after CLIENT CACHING YES (CLIENT
	// commands and MULTI in between keep it; anything else ends it).
	expect(t, r, "+OK", "CLIENT", "TRACKING", "ON", "OPTIN")
	r.Do("GET", "in1")
	expect(t, r, "+OK", "CLIENT", "CACHING", "YES")
	r.Do("CLIENT", "ID")
	r.Do("GET", "in2")
	r.Do("GET", "in3")
	expect(t, r, "+OK", "CLIENT", "CACHING", "YES")
	r.Do("NOSUCHCOMMAND")
	r.Do("GET", "in4")
	expect(t, r, "+OK", "CLIENT", "CACHING", "YES")
	r.Do("MULTI")
	r.Do("GET", "in5")
	r.Do("GET", "in6")
	r.Do("EXEC")
	r.Do("GET", "in7")
	for _, k := range []string{"in1", "in2", "in3", "in4", "in5", "in6", "in7"} {
		w.Do("SET", k, "x")
	}
	for _, k := range []string{"in2", "in5", "in6"} {
		if got := r.Read(); got != inv(k) {
			t.Errorf("OPTIN: got %s, want %s", got, inv(k))
		}
	}
	quiet()

	// OPTOUT: everything but what is read right after CACHING NO.
	expect(t, r, "+OK", "CLIENT", "TRACKING", "OFF")
	expect(t, r, "+OK", "CLIENT", "TRACKING", "ON", "OPTOUT")
	r.Do("GET", "out1")
	expect(t, r, "+OK", "CLIENT", "CACHING", "NO")
	r.Do("GET", "out2")
	r.Do("GET", "out3")
	for _, k := range []string{"out1", "out2", "out3"} {
		w.Do("SET", k, "x")
	}
	for _, k := range []string{"out1", "out3"} {
		if got := r.Read(); got != inv(k) {
			t.Errorf("OPTOUT: got %s, want %s", got, inv(k))
		}
	}
	quiet()

	// NOLOOP: not for the client's own writes; its own write still
	// forgets the key. Without NOLOOP its own write's invalidation
	// follows the write's reply.
	expect(t, r, "+OK", "CLIENT", "TRACKING", "ON", "NOLOOP")
	r.Do("GET", "n")
	expect(t, r, "+OK", "SET", "n", "1")
	w.Do("SET", "n", "2")
	quiet()
	r.Do("GET", "n")
	w.Do("SET", "n", "3")
	if got := r.Read(); got != inv("n") {
		t.Errorf("NOLOOP, another client's write: %s", got)
	}
	expect(t, r, "+OK", "CLIENT", "TRACKING", "ON")
	r.Do("GET", "n")
	if got := r.DoExact("SET", "n", "4"); got != "+OK\r\n" {
		t.Errorf("own write: %q", got)
	}
	if got := r.Read(); got != inv("n") {
		t.Errorf("own write's invalidation: %s", got)
	}

	// RESET turns tracking off.
	expect(t, r, "+RESET", "RESET")
	expect(t, r, "*[\"flags\", *[\"off\"], \"redirect\", :-1, \"prefixes\", *[]]", "CLIENT", "TRACKINGINFO")
	if got := trackInfo(t, newClient(t, srv.Addr, 2), "clients", "tracking_clients"); got != 0 {
		t.Errorf("tracking_clients %d after RESET", got)
	}
}

// TestTrackingTableMaxKeys: over tracking-table-max-keys, random tracked
// keys are forgotten and their clients told.
func TestTrackingTableMaxKeys(t *testing.T) {
	srv := testutil.StartCorvid(t, trackingLoops...)
	ctx := testCtx(t, time.Minute)
	admin := newClient(t, srv.Addr, 2)
	r := testutil.Dial(t, srv.Addr)
	r.Do("HELLO", "3")
	expect(t, r, "+OK", "CLIENT", "TRACKING", "ON")
	admin.ConfigSet(ctx, "tracking-table-max-keys", "5")
	r.Send("MGET", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10")
	if got := r.Read(); !strings.HasPrefix(got, "*[(nil)") {
		t.Fatalf("MGET: %s", got)
	}
	seen := map[string]bool{}
	for range 5 {
		got := r.Read()
		m := regexp.MustCompile(`^>\["invalidate", \*\["(k\d+)"\]\]$`).FindStringSubmatch(got)
		if m == nil || seen[m[1]] {
			t.Fatalf("want 5 invalidations of distinct keys, got %s", got)
		}
		seen[m[1]] = true
	}
	if got := r.Do("PING", "x"); got != `"x"` {
		t.Fatalf("more than 5: %s", got)
	}
	if n := trackInfo(t, admin, "stats", "tracking_total_keys"); n != 5 {
		t.Errorf("tracking_total_keys %d, want 5", n)
	}
	// Lowering the limit trims the table at once (after CONFIG SET).
	admin.ConfigSet(ctx, "tracking-table-max-keys", "2")
	for range 3 {
		if got := r.Read(); !strings.HasPrefix(got, `>["invalidate"`) {
			t.Fatalf("trim: %s", got)
		}
	}
	if n := trackInfo(t, admin, "stats", "tracking_total_items"); n != 2 {
		t.Errorf("tracking_total_items %d, want 2", n)
	}
	// The survivors are still tracked.
	var left []string
	for k := range 10 {
		if !seen["k"+strconv.Itoa(k+1)] {
			left = append(left, "k"+strconv.Itoa(k+1))
		}
	}
	admin.ConfigSet(ctx, "tracking-table-max-keys", "0")
	for _, k := range left {
		admin.Set(ctx, k, "x", 0)
	}
	n := 0
	for r.ReadWithin(200*time.Millisecond) != "<TIMEOUT>" {
		n++
	}
	if n != 2 {
		t.Errorf("%d invalidations for the surviving keys, want 2", n)
	}
}

// trackInfo reads one integer field of an INFO section.
func trackInfo(t *testing.T, c *redis.Client, section, field string) int64 {
	t.Helper()
	info, err := c.Info(context.Background(), section).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(l, field+":"); ok {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return 0
}

// tStep is one step of a differential tracking script.
type tStep struct {
	conn int
	args []string
	// how: "" sends the command and a marker PING and records all the
	// connection received before the marker's reply; "one" sends it and
	// reads up to its reply (pushes before it included) without a PING,
	// which would end CLIENT CACHING's effect; "sleep" waits args[0] ms;
	// "sync" sends a marker PING to every connection; "info" records the
	// tracking fields of INFO; "flags" the flags and redir of CLIENT INFO;
	// "gone" waits until connection args[0] has left the server's client
	// list (a closed socket is seen before the server is done with it);
	// "pipe" sends the commands of args (separated by "|") and the marker
	// PING in one write, so the server reads them as one batch.
	how string
}

// runTracking runs a script on addr and returns what each connection
// received, with client ids written as {idN}.
func runTracking(t *testing.T, addr string, nconn int, steps []tStep) []string {
	t.Helper()
	conns := make([]net.Conn, nconn)
	rds := make([]*bufio.Reader, nconn)
	outs := make([]strings.Builder, nconn)
	ids := make([]string, nconn)
	closed := make([]bool, nconn)
	inMulti := make([]bool, nconn)
	for i := range conns {
		conns[i], rds[i] = testutil.DialConn(t, addr)
		conns[i].SetDeadline(time.Time{})
		// The ids, and a clean server for each script (untracked: the
		// replies are read and dropped).
		setup := [][]string{{"CLIENT", "ID"}}
		if i == 0 {
			setup = append(setup, []string{"FLUSHALL"}, []string{"CONFIG", "SET", "tracking-table-max-keys", "0"},
				[]string{"DEBUG", "SET-ACTIVE-EXPIRE", "1"})
		}
		for j, args := range setup {
			conns[i].Write([]byte(testutil.Command(args...)))
			var b strings.Builder
			conns[i].SetReadDeadline(time.Now().Add(10 * time.Second))
			if err := testutil.CopyReply(rds[i], &b); err != nil {
				t.Fatal(err)
			}
			if j == 0 {
				ids[i] = strings.TrimSuffix(strings.TrimPrefix(b.String(), ":"), "\r\n")
			}
		}
	}
	subst := func(args []string) []string {
		out := slices.Clone(args)
		for j, a := range out {
			for i, id := range ids {
				a = strings.ReplaceAll(a, fmt.Sprintf("{id%d}", i), id)
			}
			out[j] = a
		}
		return out
	}
	sync := func(i int, marker string) {
		if closed[i] {
			return
		}
		conns[i].Write([]byte(testutil.Command("PING", marker)))
		closed[i] = !readUntilMarker(t, conns[i], rds[i], &outs[i], marker)
	}
	for n, st := range steps {
		marker := fmt.Sprintf("m%d", n)
		switch st.how {
		case "sleep":
			ms, _ := strconv.Atoi(st.args[0])
			time.Sleep(time.Duration(ms) * time.Millisecond)
			continue
		case "sync":
			for i := range conns {
				sync(i, marker)
			}
			continue
		}
		c, r, out := conns[st.conn], rds[st.conn], &outs[st.conn]
		if closed[st.conn] {
			t.Fatalf("step %d on a closed connection", n)
		}
		how := st.how
		if how == "" && (inMulti[st.conn] || strings.EqualFold(st.args[0], "MULTI")) {
			name := strings.ToUpper(st.args[0])
			// A marker PING would be queued.
			how = "one"
			switch name {
			case "MULTI":
				inMulti[st.conn] = true
			case "EXEC", "DISCARD", "RESET":
				inMulti[st.conn] = false
			}
		}
		switch how {
		case "":
			c.Write([]byte(testutil.Command(subst(st.args)...) + testutil.Command("PING", marker)))
			if len(st.args) == 2 && strings.EqualFold(st.args[1], "getredir") {
				// Its reply is a client id: written as {idN}.
				var seg strings.Builder
				closed[st.conn] = !readUntilMarker(t, c, r, &seg, marker)
				s := seg.String()
				for i, id := range ids {
					s = strings.ReplaceAll(s, ":"+id+"\r\n", fmt.Sprintf(":{id%d}\r\n", i))
				}
				out.WriteString(s)
				break
			}
			closed[st.conn] = !readUntilMarker(t, c, r, out, marker)
		case "pipe":
			var b strings.Builder
			cmd := []string{}
			for _, a := range append(subst(st.args), "|") {
				if a != "|" {
					cmd = append(cmd, a)
					continue
				}
				b.WriteString(testutil.Command(cmd...))
				cmd = cmd[:0]
			}
			c.Write([]byte(b.String() + testutil.Command("PING", marker)))
			closed[st.conn] = !readUntilMarker(t, c, r, out, marker)
		case "gone":
			gone := subst([]string{"{id" + st.args[0] + "}"})[0]
			if !waitFor(hangTimeout, func() bool {
				c.Write([]byte(testutil.Command("CLIENT", "LIST", "ID", gone)))
				var b strings.Builder
				c.SetReadDeadline(time.Now().Add(10 * time.Second))
				if err := testutil.CopyReply(r, &b); err != nil {
					t.Fatal(err)
				}
				return !strings.Contains(b.String(), "id="+gone+" ")
			}) {
				t.Fatalf("step %d: client %s still listed", n, gone)
			}
		case "one":
			c.Write([]byte(testutil.Command(subst(st.args)...)))
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			for {
				var b strings.Builder
				if err := testutil.CopyReply(r, &b); err != nil {
					t.Fatalf("step %d: %v", n, err)
				}
				out.WriteString(b.String())
				if !strings.HasPrefix(b.String(), ">") {
					break
				}
			}
		case "info", "flags":
			args := []string{"INFO", "everything"}
			if st.how == "flags" {
				args = []string{"CLIENT", "INFO"}
			}
			c.Write([]byte(testutil.Command(args...)))
			var b strings.Builder
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			for {
				b.Reset()
				if err := testutil.CopyReply(r, &b); err != nil {
					t.Fatal(err)
				}
				if !strings.HasPrefix(b.String(), ">") {
					break
				}
				out.WriteString(b.String())
			}
			for _, f := range regexp.MustCompile(`(tracking_[a-z_]+:\d+|flags=\S+|redir=-?\d+)`).FindAllString(b.String(), -1) {
				out.WriteString(f + "\n")
			}
		default:
			t.Fatalf("step %d: how %q", n, st.how)
		}
	}
	for i := range conns {
		sync(i, "end")
	}
	res := make([]string, nconn)
	for i := range outs {
		s := outs[i].String()
		for j, id := range ids {
			ph := fmt.Sprintf("{id%d}", j)
			s = strings.ReplaceAll(s, "redir="+id+"\n", "redir="+ph+"\n")
			s = strings.ReplaceAll(s, "tracking-redir-broken\r\n:"+id+"\r\n", "tracking-redir-broken\r\n:"+ph+"\r\n")
			s = strings.ReplaceAll(s, "$8\r\nredirect\r\n:"+id+"\r\n", "$8\r\nredirect\r\n:"+ph+"\r\n")
		}
		res[i] = helloID.ReplaceAllString(s, "")
	}
	return res
}

// TestTrackingDifferential runs tracking scripts on Corvid and Valkey
// 8.0.1 and compares every byte each connection received: the CLIENT
// TRACKING family's replies and errors, and the invalidations.
func TestTrackingDifferential(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	args := []string{"--enable-debug-command", "yes"}
	cv := testutil.StartCorvid(t, append(slices.Clone(trackingLoops), args...)...)
	vk := testutil.StartValkey(t, args...)
	s := func(conn int, args ...string) tStep { return tStep{conn: conn, args: args} }
	one := func(conn int, args ...string) tStep { return tStep{conn: conn, args: args, how: "one"} }
	sleep := func(ms int) tStep { return tStep{args: []string{strconv.Itoa(ms)}, how: "sleep"} }
	syncAll := tStep{how: "sync"}
	info := func(conn int) tStep { return tStep{conn: conn, how: "info"} }
	pipe := func(conn int, args ...string) tStep { return tStep{conn: conn, args: args, how: "pipe"} }
	gone := func(observer, conn int) tStep {
		return tStep{conn: observer, args: []string{strconv.Itoa(conn)}, how: "gone"}
	}
	flags := func(conn int) tStep { return tStep{conn: conn, how: "flags"} }
	tr := func(args ...string) []string { return append([]string{"CLIENT", "TRACKING"}, args...) }

	scripts := []struct {
		name  string
		nconn int
		steps []tStep
	}{
		{"errors", 2, []tStep{
			s(0, "HELLO", "3"),
			s(0, tr("on", "REDIRECT", "999999")...), s(0, tr("on", "REDIRECT", "abc")...),
			s(0, tr("on", "REDIRECT", "0")...), s(0, tr("on", "REDIRECT", "-1")...),
			s(0, tr("on", "REDIRECT", "{id1}", "REDIRECT", "{id1}")...),
			s(0, tr("on", "PREFIX", "a")...), s(0, tr("on", "BCAST", "PREFIX", "a", "PREFIX", "ab")...),
			s(0, tr("on", "BCAST", "OPTIN")...), s(0, tr("on", "BCAST", "OPTOUT")...),
			s(0, tr("on", "OPTIN", "OPTOUT")...), s(0, tr("maybe")...), s(0, tr("on", "foo")...),
			s(0, tr("on", "PREFIX")...), s(0, tr("on", "REDIRECT")...), s(0, tr("maybe", "REDIRECT", "999999")...),
			s(0, tr("off", "PREFIX", "p")...), s(0, tr()...), s(0, "CLIENT", "CACHING", "yes"),
			s(0, "CLIENT", "CACHING", "maybe"), s(0, "CLIENT", "CACHING"), s(0, "CLIENT", "GETREDIR"),
			s(0, "CLIENT", "TRACKINGINFO"), flags(0),
			s(0, tr("on", "BCAST")...), s(0, "CLIENT", "TRACKINGINFO"), s(0, tr("on")...),
			s(0, tr("on", "BCAST", "PREFIX", "a")...), s(0, tr("off")...),
			s(0, tr("on", "BCAST", "PREFIX", "a", "PREFIX", "b", "NOLOOP")...),
			s(0, tr("on", "BCAST", "PREFIX", "bb")...), s(0, tr("on", "BCAST", "PREFIX", "c", "PREFIX", "c")...),
			s(0, tr("on", "BCAST", "PREFIX", "d")...), s(0, tr("on", "BCAST")...),
			s(0, "CLIENT", "TRACKINGINFO"), flags(0), info(1), s(0, tr("off")...),
			// Valkey 8.0.1 reports an overlap among the given prefixes
			// (but the first) and enables tracking anyway: error, then OK.
			s(0, tr("on", "BCAST", "PREFIX", "x", "PREFIX", "a", "PREFIX", "ab")...),
			s(0, "CLIENT", "TRACKINGINFO"), s(0, tr("off")...),
			s(0, tr("on", "OPTIN", "NOLOOP", "REDIRECT", "{id1}")...), s(0, tr("on", "OPTOUT")...),
			s(0, "CLIENT", "CACHING", "no"), s(0, "CLIENT", "CACHING", "yes"), s(0, "CLIENT", "CACHING", "maybe"),
			s(0, "CLIENT", "TRACKINGINFO"), s(0, "CLIENT", "GETREDIR"), flags(0),
			s(0, tr("on")...), s(0, "CLIENT", "TRACKINGINFO"), s(0, "CLIENT", "CACHING", "yes"),
			s(0, tr("off")...), s(0, tr("on", "OPTOUT")...), s(0, "CLIENT", "CACHING", "no"),
			s(0, "CLIENT", "TRACKINGINFO"), s(0, tr("off")...), s(0, "CLIENT", "TRACKINGINFO"),
			// RESP2 shapes.
			s(1, tr("on", "OPTIN")...), s(1, "CLIENT", "CACHING", "yes"), s(1, "CLIENT", "TRACKINGINFO"),
			s(1, "RESET"), s(1, "CLIENT", "TRACKINGINFO"), s(1, "CLIENT", "GETREDIR"),
		}},
		{"default-mode", 2, []tStep{
			s(0, "HELLO", "3"), s(0, tr("on")...), s(0, "GET", "k"), s(0, "MGET", "k", "k2"),
			s(1, "SET", "k", "1"), s(1, "MSET", "k", "1", "k2", "2"), s(0, "GET", "k"),
			s(0, "SET", "k", "2"), s(0, "GET", "k"), s(0, "MULTI"), s(0, "SET", "k", "3"), s(0, "GET", "k"),
			s(0, "EXEC"), s(0, "HGET", "k", "f"), s(0, "EXISTS", "e1", "e2"), s(0, "STRLEN", "s1"),
			s(0, "TYPE", "t1"), s(0, "TTL", "t2"), s(0, "OBJECT", "ENCODING", "k"), s(0, "SORT_RO", "sr"),
			s(0, "MEMORY", "USAGE", "m1"), info(1),
			s(1, "MSET", "e1", "1", "e2", "2", "s1", "x", "t1", "y"), s(1, "EXPIRE", "k", "100"),
			s(1, "RPUSH", "sr", "3", "1"), s(1, "SET", "m1", "x"), s(1, "INCR", "nobody"),
			s(1, "LPUSH", "k", "1"), s(1, "SET", "t2", "1"), info(1),
			s(0, "GET", "a"), s(0, "GET", "b"), s(1, "FLUSHALL"), info(1), s(0, "GET", "a"),
			s(0, "FLUSHDB"), s(0, "GET", "a"), s(0, "SELECT", "1"), s(1, "SET", "a", "1"), s(0, "GET", "c"),
			s(1, "SWAPDB", "0", "1"), s(1, "SET", "c", "1"),
			s(0, tr("off")...), info(1), s(0, tr("on")...), s(1, "SET", "a", "1"),
			s(0, "GET", "a"), s(0, tr("off")...), s(1, "SET", "a", "2"), info(1),
			s(0, tr("on", "NOLOOP")...), s(0, "GET", "n"), s(0, "SET", "n", "1"), s(1, "SET", "n", "2"),
			s(0, "GET", "n"), s(1, "SET", "n", "3"), s(0, "GET", "n"), s(0, "MULTI"), s(0, "SET", "n", "4"),
			s(0, "EXEC"), info(1), s(0, "QUIT"), gone(1, 0), info(1),
		}},
		// 0: a RESP2 tracking client; 1, 5: writers; 2: a RESP2 subscriber
		// of __redis__:invalidate; 3: a RESP3 client; 4: a RESP2 client,
		// later subscribed to another channel.
		{"redirect", 6, []tStep{
			s(2, "SUBSCRIBE", "__redis__:invalidate"), s(3, "HELLO", "3"),
			s(0, tr("on", "REDIRECT", "{id2}")...), s(0, "CLIENT", "GETREDIR"), s(0, "GET", "x"),
			s(1, "SET", "x", "1"), flags(0), s(1, "FLUSHALL"),
			s(0, tr("on", "REDIRECT", "{id3}")...), s(0, "GET", "y"), s(1, "SET", "y", "1"), s(1, "FLUSHALL"),
			s(0, "HELLO", "3"), s(0, "GET", "y"), s(1, "SET", "y", "2"), s(1, "FLUSHDB"), s(0, "HELLO", "2"),
			s(0, tr("on", "REDIRECT", "{id4}")...), s(0, "GET", "z"), s(1, "SET", "z", "1"),
			s(4, "SUBSCRIBE", "other"), s(0, "GET", "z"), s(1, "SET", "z", "2"),
			s(0, tr("on", "REDIRECT", "{id0}")...), s(0, "GET", "self"), s(1, "SET", "self", "1"),
			// The target leaves: RESP3 tracking clients hear of it at
			// every invalidation; RESP2 ones only get the flag.
			s(1, "HELLO", "3"), s(1, tr("on", "REDIRECT", "{id3}")...), s(1, "MGET", "p", "q"),
			s(0, tr("on", "REDIRECT", "{id4}")...), s(0, "GET", "p"),
			s(3, "QUIT"), gone(5, 3), s(5, "MSET", "p", "1", "q", "2"), syncAll,
			flags(0), flags(1), s(1, "CLIENT", "TRACKINGINFO"), s(5, "FLUSHALL"), syncAll,
			s(0, "GET", "r"), s(4, "QUIT"), gone(5, 4), s(5, "SET", "r", "1"), syncAll, flags(0),
			s(0, "CLIENT", "TRACKINGINFO"), s(0, "CLIENT", "GETREDIR"),
			s(1, tr("on")...), s(1, "CLIENT", "TRACKINGINFO"), flags(1),
		}},
		{"bcast", 3, []tStep{
			s(0, "HELLO", "3"), s(0, tr("on", "BCAST", "PREFIX", "a", "PREFIX", "b", "NOLOOP")...),
			s(2, "HELLO", "3"), s(2, tr("on", "BCAST")...), info(1),
			s(1, "SET", "a1", "1"), s(1, "MSET", "b2", "1", "a2", "1", "c1", "1", "a1", "x"),
			s(0, "SET", "a3", "1"), s(0, "MSET", "a4", "1", "b5", "1"), s(2, "SET", "a6", "1"),
			s(1, "DEL", "a1", "zz"), s(1, "MULTI"), s(1, "SET", "x", "1"), s(1, "SET", "y", "1"),
			s(1, "DEL", "x"), s(1, "SET", "b9", "1"), s(1, "EXEC"), s(1, "SET", "", "e"),
			s(1, "LPUSH", "a1", "1"), s(1, "INCR", "b1"), s(0, "GET", "a1"), info(1),
			// A pipeline read at once is one batch: one array per prefix,
			// after the replies of the whole batch (the writer's own too).
			pipe(1, "SET", "a12", "1", "|", "SET", "a11", "1", "|", "SET", "b11", "1", "|", "MSET", "a13", "1", "a10", "1"),
			pipe(2, "SET", "a15", "1", "|", "SET", "a14", "1"), syncAll,
			s(0, tr("on", "BCAST")...), s(0, "CLIENT", "TRACKINGINFO"), s(1, "SET", "a7", "1"),
			s(1, "FLUSHALL"), s(1, "SET", "a8", "1", "PX", "50"), sleep(400), syncAll, flags(0),
			s(0, tr("off")...), info(1), s(2, tr("off")...), info(1),
		}},
		{"optin-optout", 2, []tStep{
			s(0, "HELLO", "3"), s(0, tr("on", "OPTIN")...), one(0, "GET", "k1"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "GET", "k2"), one(0, "GET", "k3"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "CLIENT", "GETNAME"), one(0, "GET", "k4"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "NOSUCH"), one(0, "GET", "k5"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "GET"), one(0, "GET", "k6"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "PING"), one(0, "GET", "k7"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "CLIENT", "TRACKINGINFO"), one(0, "GET", "k8"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "MULTI"), one(0, "GET", "k9"), one(0, "PTTL", "k10"),
			one(0, "EXEC"), one(0, "GET", "k11"),
			one(0, "MULTI"), one(0, "CLIENT", "CACHING", "yes"), one(0, "GET", "k12"), one(0, "EXEC"),
			one(0, "GET", "k13"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "MULTI"), one(0, "NOSUCH"), one(0, "GET", "k14"),
			one(0, "EXEC"), one(0, "GET", "k15"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "CLIENT"), one(0, "GET", "k16"),
			one(0, "CLIENT", "CACHING", "yes"), one(0, "CLIENT", "NOSUCH"), one(0, "GET", "k17"),
			info(1),
			s(1, "MSET", "k1", "1", "k2", "1", "k3", "1", "k4", "1", "k5", "1", "k6", "1", "k7", "1",
				"k8", "1", "k9", "1", "k10", "1", "k11", "1", "k12", "1", "k13", "1", "k14", "1",
				"k15", "1", "k16", "1", "k17", "1"),
			s(0, tr("off")...), s(0, tr("on", "OPTOUT")...), one(0, "GET", "o1"),
			one(0, "CLIENT", "CACHING", "no"), one(0, "GET", "o2"), one(0, "GET", "o3"),
			s(1, "MSET", "o1", "1", "o2", "1", "o3", "1"),
		}},
		{"expiry", 2, []tStep{
			// TTLs leave a loaded machine (CI, -race) time for the
			// GET that follows each SET to find the key.
			s(0, "HELLO", "3"), s(0, tr("on")...), s(1, "SET", "e", "1", "PX", "400"), s(0, "GET", "e"),
			sleep(1500), syncAll,
			s(1, "DEBUG", "SET-ACTIVE-EXPIRE", "0"), s(1, "SET", "l", "1", "PX", "400"), s(0, "GET", "l"),
			sleep(800), s(1, "GET", "l"),
			s(1, "SET", "m", "1", "PX", "400"), s(0, "GET", "m"), sleep(800), s(0, "GET", "m"), s(0, "GET", "m"),
			s(1, "SET", "m", "1"), s(1, "DEBUG", "SET-ACTIVE-EXPIRE", "1"), info(1),
		}},
		{"max-keys", 2, []tStep{
			s(1, "CONFIG", "SET", "tracking-table-max-keys", "3"), s(0, "HELLO", "3"), s(0, tr("on")...),
			s(0, "MGET", "a", "b", "c"), info(1), s(0, "GET", "d"), syncAll, info(1),
			s(1, "CONFIG", "SET", "tracking-table-max-keys", "1"), syncAll, info(1),
			s(1, "CONFIG", "SET", "tracking-table-max-keys", "0"), s(0, "MGET", "e", "f", "g", "h"), info(1),
		}},
	}
	// Which keys tracking-table-max-keys evicts is random: compare their
	// number.
	randomKey := regexp.MustCompile(`>2\r\n\$10\r\ninvalidate\r\n\*1\r\n\$1\r\n[a-h]\r\n`)
	for _, sc := range scripts {
		t.Run(sc.name, func(t *testing.T) {
			// The previous script's tracking clients are gone first: a
			// closed connection is cleaned up after its close is seen.
			for _, addr := range []string{cv.Addr, vk.Addr} {
				c := testutil.Dial(t, addr)
				if !waitFor(hangTimeout, func() bool { return infoFields(t, c, "clients")["tracking_clients"] == "0" }) {
					t.Fatalf("%s: tracking clients left from the previous script", addr)
				}
				c.Close()
			}
			got := runTracking(t, cv.Addr, sc.nconn, sc.steps)
			want := runTracking(t, vk.Addr, sc.nconn, sc.steps)
			for i := range got {
				g, w := got[i], want[i]
				g = strings.ReplaceAll(g, "corvid", "valkey")
				if sc.name == "max-keys" {
					g = randomKey.ReplaceAllString(g, "<invalidate one key>")
					w = randomKey.ReplaceAllString(w, "<invalidate one key>")
				}
				if g != w {
					t.Errorf("connection %d:\ncorvid: %q\nvalkey: %q", i, g, w)
				}
			}
		})
	}
}
