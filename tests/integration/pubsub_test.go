package integration

import (
	"bufio"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// rawSession sends each command of script on its own connection's turn:
// conn i of script step {i, cmd}. After the last step every connection
// gets a PING with a unique marker, and everything each connection
// received up to that marker's reply is returned, so pushes that arrive
// between replies are kept in the order they came.
type rawStep struct {
	conn int
	args []string
}

func runSession(t *testing.T, addr string, nconn int, steps []rawStep) []string {
	t.Helper()
	conns := make([]net.Conn, nconn)
	readers := make([]*bufio.Reader, nconn)
	outs := make([]strings.Builder, nconn)
	for i := range conns {
		c, r := testutil.DialConn(t, addr)
		conns[i], readers[i] = c, r
	}
	// Each step waits for the reply (or replies) it causes on its own
	// connection: a marker PING after it, so that steps on different
	// connections happen in the script's order.
	closed := make([]bool, nconn)
	inMulti := make([]bool, nconn)
	for n, st := range steps {
		marker := fmt.Sprintf("m%d", n)
		c := conns[st.conn]
		if closed[st.conn] {
			t.Fatalf("step %d on a closed connection", n)
		}
		name := strings.ToUpper(st.args[0])
		if inMulti[st.conn] || name == "MULTI" {
			// A marker would be queued: read the one reply instead.
			c.Write([]byte(testutil.Command(st.args...)))
			var b strings.Builder
			c.SetReadDeadline(time.Now().Add(10 * time.Second))
			if err := testutil.CopyReply(readers[st.conn], &b); err != nil {
				t.Fatal(err)
			}
			outs[st.conn].WriteString(b.String())
			switch name {
			case "MULTI":
				inMulti[st.conn] = b.String() == "+OK\r\n"
			case "EXEC", "DISCARD", "RESET":
				inMulti[st.conn] = false
			}
			continue
		}
		if _, err := c.Write([]byte(testutil.Command(st.args...) + testutil.Command("PING", marker))); err != nil {
			t.Fatal(err)
		}
		closed[st.conn] = !readUntilMarker(t, c, readers[st.conn], &outs[st.conn], marker)
	}
	for i, c := range conns {
		if !closed[i] {
			c.Write([]byte(testutil.Command("PING", "end")))
			readUntilMarker(t, c, readers[i], &outs[i], "end")
		}
	}
	res := make([]string, nconn)
	for i := range outs {
		res[i] = outs[i].String()
	}
	return res
}

// readUntilMarker appends what c receives to out until the reply of
// PING marker (whichever form it takes), which it leaves out; false if
// the connection was closed first.
func readUntilMarker(t *testing.T, c net.Conn, r *bufio.Reader, out *strings.Builder, marker string) bool {
	t.Helper()
	forms := []string{
		"$" + strconv.Itoa(len(marker)) + "\r\n" + marker + "\r\n",
		"*2\r\n$4\r\npong\r\n$" + strconv.Itoa(len(marker)) + "\r\n" + marker + "\r\n",
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		var b strings.Builder
		if err := testutil.CopyReply(r, &b); err != nil {
			out.WriteString("<EOF>")
			return false
		}
		s := b.String()
		if s == forms[0] || s == forms[1] {
			return true
		}
		out.WriteString(s)
	}
}

var helloID = regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`)

// TestPubSubDifferential runs pub/sub scripts on Corvid and Valkey 8.0.1
// and compares every byte each connection received.
func TestPubSubDifferential(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	cv := testutil.StartCorvid(t)
	vk := testutil.StartValkey(t)
	s := func(conn int, args ...string) rawStep { return rawStep{conn, args} }
	scripts := map[string]struct {
		nconn int
		steps []rawStep
	}{
		"resp2-context": {2, []rawStep{
			s(0, "SUBSCRIBE", "a", "b", "a"), s(0, "PING"), s(0, "PING", "x"), s(0, "GET", "k"),
			s(0, "CLIENT", "ID"), s(0, "MULTI"), s(0, "PSUBSCRIBE", "a*", "b?"),
			s(1, "PUBLISH", "a", "m1"), s(1, "PUBLISH", "abc", "m2"), s(1, "PUBLISH", "bz", ""),
			s(1, "PUBSUB", "NUMSUB", "a", "b", "c"), s(1, "PUBSUB", "NUMPAT"), s(1, "PUBSUB", "CHANNELS", "b"),
			s(1, "PUBSUB", "CHANNELS", "x", "y"), s(1, "PUBSUB", "NOPE"),
			s(0, "UNSUBSCRIBE", "a", "zz"), s(0, "PUNSUBSCRIBE", "b?"), s(0, "PUNSUBSCRIBE"), s(0, "UNSUBSCRIBE"),
			s(0, "UNSUBSCRIBE"), s(0, "PUNSUBSCRIBE", "q"), s(0, "SUNSUBSCRIBE"), s(0, "GET", "k"),
		}},
		"resp3-interleaved": {2, []rawStep{
			s(0, "HELLO", "3"), s(0, "SUBSCRIBE", "c"), s(0, "SET", "k", "v"), s(0, "GET", "k"),
			s(1, "PUBLISH", "c", "hello"), s(0, "PUBLISH", "c", "self"), s(0, "GET", "k"),
			s(0, "SSUBSCRIBE", "sc"), s(1, "SPUBLISH", "sc", "shard"), s(1, "PUBLISH", "sc", "not-shard"),
			s(1, "PUBSUB", "SHARDNUMSUB", "sc", "c"), s(1, "PUBSUB", "SHARDCHANNELS"),
			s(0, "SUNSUBSCRIBE"), s(0, "UNSUBSCRIBE"), s(0, "UNSUBSCRIBE"), s(0, "PING"),
		}},
		"multi-reset": {2, []rawStep{
			s(0, "MULTI"), s(0, "SUBSCRIBE", "a"), s(0, "SSUBSCRIBE", "s"), s(0, "EXEC"),
			s(1, "PUBLISH", "a", "x"), s(0, "RESET"), s(1, "PUBLISH", "a", "y"), s(0, "PING"),
			s(0, "MULTI"), s(0, "UNSUBSCRIBE"), s(0, "EXEC"),
			s(0, "PSUBSCRIBE", "*"), s(0, "QUIT"),
		}},
		"resp3-pattern-self": {1, []rawStep{
			s(0, "HELLO", "3"), s(0, "PSUBSCRIBE", "n*"), s(0, "PUBLISH", "news", "1"),
			s(0, "PUBLISH", "news", "2"), s(0, "PUNSUBSCRIBE", "n*"), s(0, "PUBLISH", "news", "3"),
		}},
	}
	for name, sc := range scripts {
		t.Run(name, func(t *testing.T) {
			got := runSession(t, cv.Addr, sc.nconn, sc.steps)
			want := runSession(t, vk.Addr, sc.nconn, sc.steps)
			for i := range got {
				g := helloID.ReplaceAllString(got[i], "")
				w := helloID.ReplaceAllString(want[i], "")
				g = strings.ReplaceAll(g, "corvid", "valkey")
				if g != w {
					t.Errorf("connection %d:\ncorvid: %q\nvalkey: %q", i, g, w)
				}
			}
		})
	}
}

// TestPubSubGoRedis drives pub/sub with go-redis' PubSub over RESP2 and
// RESP3, with publishers and subscribers on separate connections (and so
// on different event loops).
func TestPubSubGoRedis(t *testing.T) {
	srv := testutil.StartCorvid(t)
	for _, proto := range []int{2, 3} {
		t.Run(fmt.Sprintf("resp%d", proto), func(t *testing.T) {
			ctx := testCtx(t, time.Minute)
			sub := newClient(t, srv.Addr, proto)
			pub := newClient(t, srv.Addr, proto)
			ps := sub.Subscribe(ctx, "orders")
			defer ps.Close()
			if _, err := ps.Receive(ctx); err != nil { // the confirmation
				t.Fatal(err)
			}
			if err := ps.PSubscribe(ctx, "ord*"); err != nil {
				t.Fatal(err)
			}
			if _, err := ps.Receive(ctx); err != nil {
				t.Fatal(err)
			}
			n, err := pub.Publish(ctx, "orders", "o1").Result()
			if err != nil || n != 2 {
				t.Fatalf("PUBLISH: %d %v, want 2", n, err)
			}
			seen := map[string]bool{}
			for len(seen) < 2 {
				m, err := ps.ReceiveMessage(ctx)
				if err != nil {
					t.Fatal(err)
				}
				if m.Channel != "orders" || m.Payload != "o1" {
					t.Fatalf("message %+v", m)
				}
				seen[m.Pattern] = true
			}
			if !seen[""] || !seen["ord*"] {
				t.Fatalf("want a message and a pmessage, got %v", seen)
			}
			if got, _ := pub.PubSubNumSub(ctx, "orders").Result(); got["orders"] != 1 {
				t.Fatalf("NUMSUB %v", got)
			}
			if got, _ := pub.PubSubNumPat(ctx).Result(); got != 1 {
				t.Fatalf("NUMPAT %d", got)
			}
			info, _ := pub.Info(ctx, "stats", "clients").Result()
			for _, want := range []string{"pubsub_channels:1", "pubsub_patterns:1", "pubsub_clients:1"} {
				if !strings.Contains(info, want+"\r\n") {
					t.Errorf("INFO lacks %s", want)
				}
			}
			list, _ := pub.ClientList(ctx).Result()
			if !regexp.MustCompile(`flags=P db=0 sub=1 psub=1 ssub=0`).MatchString(list) {
				t.Errorf("CLIENT LIST:\n%s", list)
			}
			// Sharded pub/sub.
			ss := sub.SSubscribe(ctx, "shard1")
			defer ss.Close()
			if _, err := ss.Receive(ctx); err != nil {
				t.Fatal(err)
			}
			if n, _ := pub.SPublish(ctx, "shard1", "s1").Result(); n != 1 {
				t.Fatalf("SPUBLISH receivers %d", n)
			}
			m, err := ss.ReceiveMessage(ctx)
			if err != nil || m.Channel != "shard1" || m.Payload != "s1" {
				t.Fatalf("smessage %+v %v", m, err)
			}
			ps.Close()
			ss.Close()
			if !waitFor(hangTimeout, func() bool {
				n, _ := pub.PubSubNumPat(ctx).Result()
				ch, _ := pub.PubSubChannels(ctx, "*").Result()
				return n == 0 && len(ch) == 0
			}) {
				t.Fatal("subscriptions outlived their connections")
			}
		})
	}
}

// TestPubSubFanout: 1,000 subscribers on one channel and two publishers;
// every subscriber gets every message, each publisher's in order.
func TestPubSubFanout(t *testing.T) {
	srv := testutil.StartCorvid(t, "--maxclients", "2000")
	const nsub, nmsg = 1000, 50
	type sub struct {
		c net.Conn
		r *bufio.Reader
	}
	subs := make([]sub, nsub)
	for i := range subs {
		c, r := testutil.DialConn(t, srv.Addr)
		c.Write([]byte(testutil.Command("SUBSCRIBE", "fan")))
		subs[i] = sub{c, r}
	}
	for i := range subs {
		var b strings.Builder
		subs[i].c.SetReadDeadline(time.Now().Add(hangTimeout))
		if err := testutil.CopyReply(subs[i].r, &b); err != nil || !strings.Contains(b.String(), "subscribe") {
			t.Fatalf("subscriber %d: %q %v", i, b.String(), err)
		}
	}
	var wg sync.WaitGroup
	for p := 0; p < 2; p++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw := testutil.Dial(t, srv.Addr)
			for i := 0; i < nmsg; i++ {
				if got := raw.Do("PUBLISH", "fan", fmt.Sprintf("%d:%d", p, i)); got != ":"+strconv.Itoa(nsub) {
					t.Errorf("PUBLISH: %s", got)
					return
				}
			}
		}()
	}
	errs := make(chan error, nsub)
	for i := range subs {
		go func() {
			next := [2]int{}
			s := subs[i]
			s.c.SetReadDeadline(time.Now().Add(hangTimeout))
			for n := 0; n < 2*nmsg; n++ {
				var b strings.Builder
				if err := testutil.CopyReply(s.r, &b); err != nil {
					errs <- fmt.Errorf("subscriber %d after %d messages: %v", i, n, err)
					return
				}
				m := b.String()
				k := strings.LastIndex(m[:len(m)-2], "\n")
				var p, seq int
				fmt.Sscanf(m[k+1:], "%d:%d", &p, &seq)
				if seq != next[p] {
					errs <- fmt.Errorf("subscriber %d: publisher %d message %d, want %d", i, p, seq, next[p])
					return
				}
				next[p]++
			}
			errs <- nil
		}()
	}
	wg.Wait()
	for range subs {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

// TestPubSubSlowSubscriber: a subscriber that never reads is closed by
// client-output-buffer-limit pubsub; the publisher and other subscribers
// go on, and the server's memory does not follow the backlog.
func TestPubSubSlowSubscriber(t *testing.T) {
	for _, limit := range []string{"pubsub 256kb 0 0", "pubsub 0 128kb 1"} {
		t.Run(limit, func(t *testing.T) {
			srv := testutil.StartCorvid(t, "--client-output-buffer-limit", limit)
			ctx := testCtx(t, 2*time.Minute)
			pub := newClient(t, srv.Addr, 2)
			good := newClient(t, srv.Addr, 2)
			ps := good.Subscribe(ctx, "c")
			defer ps.Close()
			if _, err := ps.Receive(ctx); err != nil {
				t.Fatal(err)
			}
			d := &net.Dialer{}
			slow, err := d.DialContext(ctx, "tcp", srv.Addr)
			if err != nil {
				t.Fatal(err)
			}
			defer slow.Close()
			slow.(*net.TCPConn).SetReadBuffer(4096)
			slow.Write([]byte(testutil.Command("SUBSCRIBE", "c")))
			if !waitFor(hangTimeout, func() bool {
				n, _ := pub.PubSubNumSub(ctx, "c").Result()
				return n["c"] == 2
			}) {
				t.Fatal("slow subscriber never subscribed")
			}
			payload := strings.Repeat("x", 8192)
			received := 0
			go func() {
				for {
					if _, err := ps.ReceiveMessage(ctx); err != nil {
						return
					}
					received++
				}
			}()
			dropped := waitFor(hangTimeout, func() bool {
				for i := 0; i < 50; i++ {
					pub.Publish(ctx, "c", payload)
				}
				n, _ := pub.PubSubNumSub(ctx, "c").Result()
				return n["c"] == 1
			})
			if !dropped {
				t.Fatal("the slow subscriber was never disconnected")
			}
			info, _ := pub.Info(ctx, "stats").Result()
			if !strings.Contains(info, "client_output_buffer_limit_disconnections:1\r\n") {
				t.Errorf("INFO stats: %s", info)
			}
			if n, _ := pub.Publish(ctx, "c", "after").Result(); n != 1 {
				t.Errorf("PUBLISH after the drop: %d receivers", n)
			}
			if !strings.Contains(srv.Output(), "closed for overcoming of output buffer limits") {
				t.Errorf("no log line for the disconnection")
			}
		})
	}
}

// TestMonitorDifferential compares MONITOR's lines (time and client
// address masked) with Valkey 8.0.1's for the same commands, including
// MULTI/EXEC, a blocked command, redacted credentials, administrative
// commands that are never shown and rejected ones.
func TestMonitorDifferential(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	run := func(addr string) []string {
		mon := testutil.Dial(t, addr)
		if got := mon.Do("MONITOR"); got != "+OK" {
			t.Fatalf("MONITOR: %s", got)
		}
		blocked := testutil.Dial(t, addr)
		c := testutil.Dial(t, addr)
		blocked.Send("BLPOP", "bl", "0")
		// Wait until the BLPOP is parked.
		waitFor(hangTimeout, func() bool { return strings.Contains(c.Do("CLIENT", "LIST"), "cmd=blpop") })
		cmds := [][]string{
			{"RPUSH", "bl", "x"}, {"SET", "k", "v \"q\"\x01\n\\"}, {"MULTI"}, {"INCR", "n"}, {"GET", "k"}, {"EXEC"},
			{"AUTH", "secret"}, {"AUTH", "u", "p"}, {"HELLO", "3", "AUTH", "default", "pw"}, {"HELLO", "2"},
			{"CONFIG", "GET", "maxmemory"}, {"GET"}, {"NOSUCH"}, {"SELECT", "3"}, {"SET", "a", "b"},
			{"MIGRATE", "127.0.0.1", "1", "k", "0", "100", "AUTH2", "u", "pw"}, {"DEBUG", "SLEEP", "0"},
			{"PUBLISH", "ch", "m"}, {"SUBSCRIBE", "c"}, {"PING"},
		}
		for _, cmd := range cmds {
			c.Do(cmd...)
		}
		c.Do("PING", "last")
		blocked.Read()
		var lines []string
		mask := regexp.MustCompile(`^\+\d+\.\d{6} \[(\d+) 127\.0\.0\.1:\d+\] `)
		for {
			l := mon.Read()
			if !mask.MatchString(l) {
				t.Fatalf("MONITOR line %q", l)
			}
			lines = append(lines, mask.ReplaceAllString(l, "[$1] "))
			if strings.Contains(l, `"last"`) {
				break
			}
		}
		// A monitor may not touch the keyspace; RESET leaves monitor mode.
		lines = append(lines, mon.Do("GET", "k"), mon.Do("RESET"), mon.Do("GET", "k"))
		return lines
	}
	cv := testutil.StartCorvid(t)
	vk := testutil.StartValkey(t)
	sameLines(t, "MONITOR", run(cv.Addr), run(vk.Addr))
}
