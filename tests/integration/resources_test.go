package integration

import (
	"bytes"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// Resource tests: a client that reads slowly, asks for huge replies,
// pipelines without end, or just opens many connections must not grow the
// server's memory beyond what the configuration allows, nor keep it from
// serving everyone else. Memory is bounded by configured limits (plus a
// fixed allowance for the runtime), and "served" is a ratio to the same
// client's latency on the idle server in the same run, never a wall-clock
// threshold. The bounds are generous: they are there to catch the
// unbounded (gigabytes, stalls of seconds), not to measure.
//
// They run on a plain build (CI runs this package without -race too): the
// race detector multiplies both memory and time.

const (
	// rssAllowance is what the process may hold beyond the configured
	// bound: the runtime, the keyspace the test made, garbage between
	// collections.
	rssAllowance = 96 << 20
	// servedRatio bounds the other client's median PING round trip under
	// attack against its idle median.
	servedRatio = 100
)

// prober measures the PING round trip of one client of its own.
type prober struct {
	t    *testing.T
	c    *testutil.Raw
	mu   sync.Mutex
	lats []time.Duration
}

func newProber(t *testing.T, addr string) *prober {
	return &prober{t: t, c: testutil.Dial(t, addr)}
}

// median runs n PINGs back to back and returns their median round trip.
func (p *prober) median(n int) time.Duration {
	p.t.Helper()
	lats := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if got := p.c.Do("PING"); got != "+PONG" {
			p.t.Fatalf("PING: %s", got)
		}
		lats = append(lats, time.Since(start))
	}
	slices.Sort(lats)
	return lats[len(lats)/2]
}

// during runs attack while it samples the PING round trip and the
// server's RSS, and returns the median round trip and the peak RSS.
func during(t *testing.T, srv *testutil.Proc, addr string, attack func()) (time.Duration, int64) {
	t.Helper()
	p := newProber(t, addr)
	var peak atomic.Int64
	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !stop.Load() {
			if r := rss(t, srv.Cmd.Process.Pid); r > peak.Load() {
				peak.Store(r)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}()
	done := make(chan struct{})
	go func() {
		defer close(done)
		attack()
	}()
	var lats []time.Duration
	for {
		select {
		case <-done:
		default:
			start := time.Now()
			if got := p.c.Do("PING"); got != "+PONG" {
				t.Fatalf("PING during the attack: %s", got)
			}
			lats = append(lats, time.Since(start))
			continue
		}
		break
	}
	stop.Store(true)
	wg.Wait()
	for len(lats) < 20 { // a quick attack: probe right after it too
		start := time.Now()
		p.c.Do("PING")
		lats = append(lats, time.Since(start))
	}
	slices.Sort(lats)
	return lats[len(lats)/2], peak.Load()
}

func checkServed(t *testing.T, idle, busy time.Duration) {
	t.Helper()
	t.Logf("PING median: idle %v, under attack %v (%.1fx)", idle, busy, float64(busy)/float64(idle))
	if busy > idle*servedRatio {
		t.Errorf("other clients starved: median PING %v under attack, %v idle (bound %dx)", busy, idle, servedRatio)
	}
}

func skipRace(t *testing.T) {
	if raceBuild {
		t.Skip("resource bounds are measured on a plain build (CI runs this package without -race too)")
	}
}

// setBig stores an n-byte value at key.
func setBig(t *testing.T, addr, key string, n int) {
	c := testutil.Dial(t, addr)
	expect(t, c, "+OK", "SET", key, strings.Repeat("x", n))
	c.Close()
}

// TestSlowReaderBackPressure: a client that asks for far more output
// than it reads (one 1.1 KB request of 50 GETs of a 10 MB value, which
// once grew RSS to ~2 GB) is served at the pace it reads: the rest of its
// batch waits while its replies are unread, so RSS stays within a few
// replies with no output limit configured (Valkey's default for normal
// clients), other clients are served, and every reply arrives intact.
func TestSlowReaderBackPressure(t *testing.T) {
	skipRace(t)
	bothNetPaths(t, func(t *testing.T, start func(...string) *testutil.Proc) {
		const size, gets = 10 << 20, 50
		srv := start()
		setBig(t, srv.Addr, "big", size)
		base := rss(t, srv.Cmd.Process.Pid)
		idle := newProber(t, srv.Addr).median(200)
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		req := strings.Repeat(testutil.Command("GET", "big"), gets)
		c := testutil.Dial(t, srv.Addr)
		busy, peak := during(t, srv, srv.Addr, func() {
			conn.Write([]byte(req))
			// Wait until the server holds output for the client, then
			// a while longer: nothing may pile up meanwhile.
			if !waitFor(hangTimeout, func() bool { return omemOf(c, "get") > 0 }) {
				t.Errorf("no output held for the slow reader after %v", hangTimeout)
			}
			for range 50 {
				newProber(t, srv.Addr).median(10)
			}
		})
		checkServed(t, idle, busy)
		t.Logf("RSS: %d MB before, peak %d MB", base>>20, peak>>20)
		if peak > base+4*size+rssAllowance {
			t.Errorf("RSS peaked at %d MB (base %d MB) with a slow reader", peak>>20, base>>20)
		}
		conn.SetReadDeadline(time.Now().Add(60 * time.Second))
		want := int64(gets * (size + len("$10485760\r\n\r\n")))
		if n, err := io.CopyN(io.Discard, conn, want); n != want {
			t.Fatalf("read %d of %d bytes of replies: %v", n, want, err)
		}
	})
}

// omemOf is the omem of the client whose last command is cmd (0: none).
func omemOf(c *testutil.Raw, cmd string) int64 {
	for _, l := range clientLines(c.Do("CLIENT", "LIST")) {
		if l["cmd"] == cmd {
			n, _ := strconv.ParseInt(l["omem"], 10, 64)
			return n
		}
	}
	return 0
}

// TestOutputLimitDisconnects: client-output-buffer-limit closes a client
// whose output crosses the hard limit, with no reply sent: one reply over
// the limit (one string, or millions of elements), and Valkey's own case of a pipeline read in one go whose
// replies together cross it (tests/unit/obuf-limits.tcl). Valkey 8.0.1
// gives the same outcome for the same requests, when it is at hand. The
// log line and client_output_buffer_limit_disconnections are Valkey's.
func TestOutputLimitDisconnects(t *testing.T) {
	var pipeline strings.Builder
	for i := range 15 {
		n := strconv.Itoa(i)
		pipeline.WriteString("set " + n + " " + n + "\r\nget " + n + "\r\ndel " + n + "\r\nget bigkey\r\n")
	}
	cases := []struct {
		name, limit, value, req string
	}{
		{"one reply", "normal 4mb 0 0", strings.Repeat("x", 10<<20), testutil.Command("GET", "bigkey")},
		{"pipeline", "normal 100000 0 0", strings.Repeat("x", 10000), pipeline.String()},
		// Millions of small elements (14 MB), in the reply buffer's blocks.
		{"many elements", "normal 4mb 0 0", "x", testutil.Command("SRANDMEMBER", "s", "-2000000")},
	}
	servers := []struct {
		name  string
		start func(t *testing.T) *testutil.Proc
	}{
		{"corvid", func(t *testing.T) *testutil.Proc { return testutil.StartCorvid(t, "--net-engine", "io_uring") }},
		{"corvid-goroutines", func(t *testing.T) *testutil.Proc { return testutil.StartCorvid(t, "--net-engine", "goroutine") }},
		{"valkey", func(t *testing.T) *testutil.Proc { return testutil.StartValkey(t) }},
	}
	for _, sv := range servers {
		t.Run(sv.name, func(t *testing.T) {
			if sv.name == "valkey" {
				testutil.ValkeyServerPath(t) // skips, or fails with CORVID_REQUIRE_VALKEY, when absent
			}
			srv := sv.start(t)
			c := testutil.Dial(t, srv.Addr)
			expect(t, c, ":2", "SADD", "s", "a", "b")
			for _, tc := range cases {
				expect(t, c, "+OK", "CONFIG", "SET", "client-output-buffer-limit", tc.limit)
				expect(t, c, "+OK", "SET", "bigkey", tc.value)
				conn, err := net.Dial("tcp", srv.Addr)
				if err != nil {
					t.Fatal(err)
				}
				conn.Write([]byte(tc.req))
				conn.SetReadDeadline(time.Now().Add(20 * time.Second))
				n, err := io.Copy(io.Discard, conn)
				conn.Close()
				if err != nil || n != 0 {
					t.Errorf("%s: the client got %d bytes before the close (%v); want none", tc.name, n, err)
				}
				expect(t, c, "+PONG", "PING")
			}
			if got := infoFields(t, c, "stats")["client_output_buffer_limit_disconnections"]; got != "3" {
				t.Errorf("client_output_buffer_limit_disconnections %s, want 3", got)
			}
			if sv.name != "valkey" && !strings.Contains(srv.Output(), "closed for overcoming of output buffer limits") {
				t.Errorf("no log line for the disconnection:\n%s", tail(srv.Output(), 2000))
			}
		})
	}
}

// TestHugeReplyNotMaterialized: a single reply larger than the hard limit
// is refused before it is built: RSS does not grow by the reply's size.
func TestHugeReplyNotMaterialized(t *testing.T) {
	skipRace(t)
	srv := testutil.StartCorvid(t, "--client-output-buffer-limit", "normal 8mb 0 0", "--proto-max-bulk-len", "1gb")
	c := testutil.Dial(t, srv.Addr)
	// A 256 MB value made server-side in one allocation.
	expect(t, c, ":268435456", "SETRANGE", "huge", "268435455", "y")
	base := rss(t, srv.Cmd.Process.Pid)
	_, peak := during(t, srv, srv.Addr, func() {
		g := testutil.Dial(t, srv.Addr)
		g.Send("GET", "huge")
		if got := g.ReadWithin(20 * time.Second); got != "<EOF>" {
			t.Errorf("GET of a 256 MB value over an 8 MB limit: %.40s", got)
		}
	})
	t.Logf("RSS: %d MB before, peak %d MB", base>>20, peak>>20)
	if peak > base+64<<20 {
		t.Errorf("RSS grew from %d MB to %d MB: the reply was built", base>>20, peak>>20)
	}
}

// TestOutputCountedInMemory: replies a client has not read count in its
// omem and in mem_clients_normal while they wait, go back down once it
// reads them, and make maxmemory-clients evict the client (with no output
// limit set, Valkey's default for normal clients).
func TestOutputCountedInMemory(t *testing.T) {
	skipRace(t)
	bothNetPaths(t, func(t *testing.T, start func(...string) *testutil.Proc) {
		srv := start()
		setBig(t, srv.Addr, "big", 4<<20)
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		conn.Write([]byte(strings.Repeat(testutil.Command("GET", "big"), 16)))
		c := testutil.Dial(t, srv.Addr)
		var omem int64
		if !waitFor(hangTimeout, func() bool { omem = omemOf(c, "get"); return omem >= 1<<20 }) {
			t.Fatalf("omem %d with 64 MB of replies asked for and none read", omem)
		}
		used := infoInt(t, c, "memory", "mem_clients_normal")
		if used < omem {
			t.Errorf("mem_clients_normal %d, below the client's omem %d", used, omem)
		}
		// Read it all: the accounting follows the output down.
		conn.SetReadDeadline(time.Now().Add(20 * time.Second))
		want := int64(16 * (4<<20 + len("$4194304\r\n\r\n")))
		if n, _ := io.CopyN(io.Discard, conn, want); n != want {
			t.Fatalf("read %d bytes of replies, want %d", n, want)
		}
		if !waitFor(hangTimeout, func() bool {
			return omemOf(c, "get") == 0 && infoInt(t, c, "memory", "mem_clients_normal") < used/2
		}) {
			t.Fatalf("omem %d, mem_clients_normal %d (%d before) after the replies were read", omemOf(c, "get"), infoInt(t, c, "memory", "mem_clients_normal"), used)
		}

		// With maxmemory-clients, the same client is evicted (and only
		// it: the first one is gone, the observer exempt).
		conn.Close()
		expect(t, c, "+OK", "CLIENT", "NO-EVICT", "on")
		expect(t, c, "+OK", "CONFIG", "SET", "maxmemory-clients", "2mb")
		ev, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer ev.Close()
		ev.Write([]byte(strings.Repeat(testutil.Command("GET", "big"), 16)))
		if !waitFor(hangTimeout, func() bool { return infoFields(t, c, "stats")["evicted_clients"] == "1" }) {
			t.Fatalf("evicted_clients %s", infoFields(t, c, "stats")["evicted_clients"])
		}
	})
}

// TestHugePipelineBackPressure: a client that pipelines millions of
// commands without reading a reply is no longer read once its replies
// fill the socket, so RSS stays bounded with no limit configured; it gets
// every reply, in order, once it reads; others are served meanwhile.
func TestHugePipelineBackPressure(t *testing.T) {
	skipRace(t)
	srv := testutil.StartCorvid(t)
	base := rss(t, srv.Cmd.Process.Pid)
	idle := newProber(t, srv.Addr).median(200)
	conn, err := net.Dial("tcp", srv.Addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const chunk, chunks = 10000, 200 // 2M INCRs, 54 MB of requests
	req := []byte(strings.Repeat(testutil.Command("INCR", "n"), chunk))
	written := 0
	var rest []byte // the part of a chunk the timed-out write did not send
	busy, peak := during(t, srv, srv.Addr, func() {
		conn.SetWriteDeadline(time.Now().Add(3 * time.Second))
		for range chunks {
			if n, err := conn.Write(req); err != nil {
				rest = req[n:]
				break // the server stopped reading us: back-pressure
			}
			written++
		}
	})
	checkServed(t, idle, busy)
	t.Logf("RSS: %d MB before, peak %d MB; %d of %d chunks written before the socket filled", base>>20, peak>>20, written, chunks)
	if peak > base+rssAllowance {
		t.Errorf("RSS grew from %d MB to %d MB with no reader", base>>20, peak>>20)
	}
	if written == chunks {
		t.Errorf("the server read all 54 MB of requests without its replies being read")
	}
	// Now read: every reply, in order, and the rest of the requests go in.
	conn.SetDeadline(time.Now().Add(60 * time.Second))
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if rest != nil {
			if _, err := conn.Write(rest); err != nil {
				t.Errorf("write: %v", err)
				return
			}
			written++
		}
		for written < chunks {
			if _, err := conn.Write(req); err != nil {
				t.Errorf("write: %v", err)
				return
			}
			written++
		}
	}()
	r := newReplyCounter(conn)
	for i := 1; i <= chunk*chunks; i++ {
		if got := r.next(); got != ":"+strconv.Itoa(i) {
			t.Fatalf("reply %d: %s", i, got)
		}
	}
	wg.Wait()
}

// replyCounter reads integer replies fast.
type replyCounter struct {
	buf      []byte
	r        io.Reader
	off, end int
}

func newReplyCounter(r io.Reader) *replyCounter { return &replyCounter{buf: make([]byte, 1<<20), r: r} }

func (c *replyCounter) next() string {
	for {
		if i := bytes.IndexByte(c.buf[c.off:c.end], '\n'); i >= 0 {
			s := string(c.buf[c.off : c.off+i-1])
			c.off += i + 1
			return s
		}
		copy(c.buf, c.buf[c.off:c.end])
		c.end -= c.off
		c.off = 0
		n, err := c.r.Read(c.buf[c.end:])
		if err != nil {
			return "<" + err.Error() + ">"
		}
		c.end += n
	}
}

// TestManyIdleConnections: thousands of idle connections cost a bounded
// amount each and do not slow the others down.
func TestManyIdleConnections(t *testing.T) {
	skipRace(t)
	srv := testutil.StartCorvid(t)
	idle := newProber(t, srv.Addr).median(200)
	base := rss(t, srv.Cmd.Process.Pid)
	const n = 3000
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for range n {
		c, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	c := testutil.Dial(t, srv.Addr)
	if !waitFor(hangTimeout, func() bool { return infoFields(t, c, "clients")["connected_clients"] == strconv.Itoa(n+2) }) {
		t.Fatalf("connected_clients %s, want %d", infoFields(t, c, "clients")["connected_clients"], n+2)
	}
	// Each says one thing, so that it has buffers, then idles.
	for _, cn := range conns {
		cn.Write([]byte("PING\r\n"))
	}
	buf := make([]byte, 16)
	for _, cn := range conns {
		cn.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := io.ReadFull(cn, buf[:7]); err != nil || string(buf[:7]) != "+PONG\r\n" {
			t.Fatalf("PING on an idle connection: %q %v", buf[:7], err)
		}
	}
	busy := newProber(t, srv.Addr).median(200)
	checkServed(t, idle, busy)
	per := (rss(t, srv.Cmd.Process.Pid) - base) / n
	t.Logf("RSS per idle connection: %d bytes", per)
	if per > 64<<10 {
		t.Errorf("each idle connection costs %d bytes of RSS", per)
	}
}

// TestLargeMultibulkLinear: a command with a million arguments, arriving
// in many reads, is parsed in time linear in its size (it was re-parsed
// from its start on every read: RPUSH of 3M arguments took 40-56 s, Valkey
// 0.4 s) and does not starve other clients meanwhile. Linear means ten
// commands of 100k arguments take about as long as one of a million; the
// bound is a ratio in the same run.
func TestLargeMultibulkLinear(t *testing.T) {
	skipRace(t)
	srv := testutil.StartCorvid(t)
	idle := newProber(t, srv.Addr).median(200)
	push := func(key string, args int) []byte {
		var b strings.Builder
		b.WriteString("*" + strconv.Itoa(args+2) + "\r\n$5\r\nRPUSH\r\n$" + strconv.Itoa(len(key)) + "\r\n" + key + "\r\n")
		for i := range args {
			s := strconv.Itoa(i % 1000000)
			b.WriteString("$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n")
		}
		return []byte(b.String())
	}
	run := func(reqs [][]byte) time.Duration {
		conn, err := net.Dial("tcp", srv.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		start := time.Now()
		go func() {
			for _, r := range reqs {
				conn.Write(r)
			}
		}()
		conn.SetReadDeadline(time.Now().Add(120 * time.Second))
		rd := newReplyCounter(conn)
		for range reqs {
			if got := rd.next(); !strings.HasPrefix(got, ":") {
				t.Fatalf("RPUSH: %s", got)
			}
		}
		return time.Since(start)
	}
	var small [][]byte
	for i := range 10 {
		small = append(small, push("s"+strconv.Itoa(i), 100000))
	}
	big := [][]byte{push("big", 1000000)}
	tSmall := run(small)
	var tBig time.Duration
	busy, _ := during(t, srv, srv.Addr, func() { tBig = run(big) })
	t.Logf("10 x 100k arguments: %v; 1 x 1M arguments: %v (%.2fx)", tSmall, tBig, float64(tBig)/float64(tSmall))
	if tBig > 4*tSmall {
		t.Errorf("a 1M-argument command took %v, ten 100k-argument ones %v: parsing is not linear", tBig, tSmall)
	}
	checkServed(t, idle, busy)
}

// clientLines parses CLIENT LIST's reply into one map per client.
func clientLines(reply string) []map[string]string {
	reply = strings.Trim(reply, `"`)
	var out []map[string]string
	for _, line := range strings.Split(reply, `\n`) {
		if line == "" {
			continue
		}
		m := map[string]string{}
		for _, kv := range strings.Fields(line) {
			if k, v, ok := strings.Cut(kv, "="); ok {
				m[k] = v
			}
		}
		out = append(out, m)
	}
	return out
}
