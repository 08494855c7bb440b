package migrate_test

import (
	"bufio"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/migrate"
)

// target is a fake MIGRATE target on loopback: it parses the commands it
// receives, records them, and answers through handle. By default it
// answers as a Valkey with requirepass "pw", 16 databases, and the keys
// in busy already present.
type target struct {
	t    *testing.T
	ln   net.Listener
	port string

	mu     sync.Mutex
	handle func(conn int, cmd []string) string // "" no reply; "CLOSE" closes
	conns  int
	cmds   []string // "conn: CMD args", payloads shown as P
	busy   map[string]bool
	eof    chan int // connections the peer closed
	wg     sync.WaitGroup
	socks  []net.Conn
}

const (
	closeConn = "CLOSE"
	wrongPass = "-WRONGPASS invalid username-password pair or user is disabled."
)

func newTarget(t *testing.T) *target {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tg := &target{t: t, ln: ln, port: strconv.Itoa(ln.Addr().(*net.TCPAddr).Port),
		busy: map[string]bool{"busy": true}, eof: make(chan int, 1000)}
	tg.handle = tg.valkey
	tg.wg.Add(1)
	go tg.accept()
	t.Cleanup(func() {
		ln.Close()
		tg.mu.Lock()
		for _, s := range tg.socks {
			s.Close()
		}
		tg.mu.Unlock()
		tg.wg.Wait()
	})
	return tg
}

func (tg *target) accept() {
	defer tg.wg.Done()
	for {
		nc, err := tg.ln.Accept()
		if err != nil {
			return
		}
		tg.mu.Lock()
		tg.conns++
		id := tg.conns
		tg.socks = append(tg.socks, nc)
		tg.mu.Unlock()
		tg.wg.Add(1)
		go tg.serve(id, nc)
	}
}

func (tg *target) serve(id int, nc net.Conn) {
	defer tg.wg.Done()
	defer nc.Close()
	r := bufio.NewReader(nc)
	for {
		cmd, err := readCommand(r)
		if err != nil {
			tg.eof <- id
			return
		}
		shown := slices.Clone(cmd)
		if strings.EqualFold(cmd[0], "RESTORE") && len(shown) > 3 {
			shown[3] = "P"
		}
		tg.mu.Lock()
		tg.cmds = append(tg.cmds, strconv.Itoa(id)+": "+strings.Join(shown, " "))
		handle := tg.handle
		tg.mu.Unlock()
		switch rep := handle(id, cmd); rep {
		case "":
		case closeConn:
			return
		default:
			nc.Write([]byte(rep + "\r\n"))
		}
	}
}

// valkey answers as Valkey would (requirepass pw, keys in busy exist).
func (tg *target) valkey(_ int, cmd []string) string {
	switch strings.ToUpper(cmd[0]) {
	case "AUTH":
		if cmd[len(cmd)-1] == "pw" && (len(cmd) == 2 || cmd[1] == "default" || cmd[1] == "u") {
			return "+OK"
		}
		return wrongPass
	case "SELECT":
		if n, err := strconv.Atoi(cmd[1]); err != nil || n < 0 || n > 15 {
			return "-ERR DB index is out of range"
		}
		return "+OK"
	case "RESTORE":
		tg.mu.Lock()
		defer tg.mu.Unlock()
		if tg.busy[cmd[1]] && len(cmd) < 5 {
			return "-BUSYKEY Target key name already exists."
		}
		tg.busy[cmd[1]] = true
		return "+OK"
	}
	return "-ERR unknown command"
}

func readCommand(r *bufio.Reader) ([]string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return nil, err
	}
	n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
	out := make([]string, n)
	for i := range out {
		l, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		m, _ := strconv.Atoi(strings.TrimSpace(l[1:]))
		b := make([]byte, m+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		out[i] = string(b[:m])
	}
	return out, nil
}

func (tg *target) setHandle(h func(conn int, cmd []string) string) {
	tg.mu.Lock()
	tg.handle = h
	tg.mu.Unlock()
}

// take returns the commands recorded since the last call.
func (tg *target) take() []string {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	out := tg.cmds
	tg.cmds = nil
	return out
}

func (tg *target) connCount() int {
	tg.mu.Lock()
	defer tg.mu.Unlock()
	return tg.conns
}

// waitEOF waits until the migrating side has closed connection id.
func (tg *target) waitEOF(id int) {
	tg.t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case got := <-tg.eof:
			if got == id {
				return
			}
		case <-deadline:
			tg.t.Fatalf("connection %d never closed", id)
		}
	}
}

func (tg *target) args(db int64, opts ...string) *migrate.Args {
	a := &migrate.Args{Host: []byte("127.0.0.1"), Port: []byte(tg.port), DB: db, Timeout: 5 * time.Second}
	for i := 0; i < len(opts); i++ {
		switch opts[i] {
		case "REPLACE":
			a.Replace = true
		case "AUTH":
			a.Auth, a.Password = true, []byte(opts[i+1])
			i++
		case "AUTH2":
			a.Auth, a.Auth2, a.Username, a.Password = true, true, []byte(opts[i+1]), []byte(opts[i+2])
			i += 2
		}
	}
	return a
}

func items(keys ...string) []migrate.Item {
	var out []migrate.Item
	for i, k := range keys {
		out = append(out, migrate.Item{Key: []byte(k), TTL: int64(i) * 1000, Payload: []byte("payload\r\n" + k)})
	}
	return out
}

func check(t *testing.T, what string, got migrate.Result, restored []bool, err string) {
	t.Helper()
	if !slices.Equal(got.Restored, restored) || got.Err != err {
		t.Errorf("%s: %v %q, want %v %q", what, got.Restored, got.Err, restored, err)
	}
}

func expectCmds(t *testing.T, tg *target, what string, want ...string) {
	t.Helper()
	if got := tg.take(); !slices.Equal(got, want) {
		t.Errorf("%s: the target received\n%s\nwant\n%s", what, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestExchange: what MIGRATE sends and how it reads the replies: AUTH
// every time it is asked, SELECT only when the connection's database
// changes or is unknown after an error, RESTORE with the TTL and
// REPLACE, on one cached connection.
func TestExchange(t *testing.T) {
	tg := newTarget(t)
	c := migrate.NewCache(migrate.Options{})
	defer c.Close()
	const target = "ERR Target instance replied with error: "

	check(t, "first", c.Migrate(tg.args(3, "AUTH", "pw", "REPLACE"), items("a", "b")), []bool{true, true}, "")
	expectCmds(t, tg, "first", "1: AUTH pw", "1: SELECT 3", "1: RESTORE a 0 P REPLACE", "1: RESTORE b 1000 P REPLACE")
	check(t, "same db", c.Migrate(tg.args(3, "AUTH2", "u", "pw"), items("c")), []bool{true}, "")
	expectCmds(t, tg, "same db", "1: AUTH u pw", "1: RESTORE c 0 P")
	check(t, "no auth", c.Migrate(tg.args(3), items("d")), []bool{true}, "")
	expectCmds(t, tg, "no auth", "1: RESTORE d 0 P")
	check(t, "other db", c.Migrate(tg.args(4), items("e")), []bool{true}, "")
	expectCmds(t, tg, "other db", "1: SELECT 4", "1: RESTORE e 0 P")

	// The target's first error is the reply; keys it acknowledged are
	// restored all the same.
	check(t, "busy", c.Migrate(tg.args(4), items("f", "busy", "a")), []bool{true, false, false},
		target+"BUSYKEY Target key name already exists.")
	expectCmds(t, tg, "busy", "1: RESTORE f 0 P", "1: RESTORE busy 1000 P", "1: RESTORE a 2000 P")
	// After an error the database is unknown: SELECT again.
	check(t, "after error", c.Migrate(tg.args(4, "REPLACE"), items("busy")), []bool{true}, "")
	expectCmds(t, tg, "after error", "1: SELECT 4", "1: RESTORE busy 0 P REPLACE")

	// A failed AUTH or SELECT fails every key (the RESTOREs ran anyway).
	check(t, "wrong password", c.Migrate(tg.args(4, "AUTH", "nope"), items("g", "h")), []bool{false, false},
		target+wrongPass[1:])
	expectCmds(t, tg, "wrong password", "1: AUTH nope", "1: RESTORE g 0 P", "1: RESTORE h 1000 P")
	check(t, "bad db", c.Migrate(tg.args(99), items("i")), []bool{false}, target+"ERR DB index is out of range")
	expectCmds(t, tg, "bad db", "1: SELECT 99", "1: RESTORE i 0 P")
	// Valkey's quirk, kept: "unknown" is -1, so database -1 is taken for
	// selected and its SELECT is not sent.
	check(t, "database -1", c.Migrate(tg.args(-1, "AUTH", "x"), items("j")), []bool{false}, target+wrongPass[1:])
	expectCmds(t, tg, "database -1", "1: AUTH x", "1: RESTORE j 0 P")
	check(t, "no items", c.Migrate(tg.args(2), nil), []bool{}, "")
	expectCmds(t, tg, "no items", "1: SELECT 2")

	if n, l := tg.connCount(), c.Len(); n != 1 || l != 1 {
		t.Errorf("%d connections, %d cached; want 1 and 1", n, l)
	}
}

// TestRetry: a connection that fails before any RESTORE's reply (the
// target closed it meanwhile) is replaced and the exchange tried once
// more; a second failure is an IOERR; a failure after some replies is not
// retried, and what was acknowledged stays restored.
func TestRetry(t *testing.T) {
	tg := newTarget(t)
	c := migrate.NewCache(migrate.Options{})
	defer c.Close()
	check(t, "first", c.Migrate(tg.args(0), items("a")), []bool{true}, "")
	tg.mu.Lock()
	tg.socks[0].Close() // the target drops the idle connection
	tg.mu.Unlock()
	tg.waitEOF(1)
	check(t, "on a dead connection", c.Migrate(tg.args(0), items("b")), []bool{true}, "")
	if n := tg.connCount(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
	tg.take()

	var closing atomic.Bool
	closing.Store(true)
	tg.setHandle(func(conn int, cmd []string) string {
		if closing.Load() {
			return closeConn
		}
		return tg.valkey(conn, cmd)
	})
	check(t, "target closes", c.Migrate(tg.args(0), items("c")), []bool{false}, "IOERR error or timeout reading to target instance")
	if n, l := tg.connCount(), c.Len(); n != 3 || l != 0 {
		t.Errorf("%d connections, %d cached; want 3 (one retry), 0", n, l)
	}
	expectCmds(t, tg, "target closes", "2: RESTORE c 0 P", "3: SELECT 0")

	// OK for the first key, then the connection ends: no retry.
	closing.Store(false)
	tg.setHandle(func(conn int, cmd []string) string {
		if cmd[0] == "RESTORE" && cmd[1] == "e" {
			return closeConn
		}
		return tg.valkey(conn, cmd)
	})
	check(t, "closed midway", c.Migrate(tg.args(0), items("d", "e", "f")), []bool{true, false, false},
		"IOERR error or timeout reading to target instance")
	if n, l := tg.connCount(), c.Len(); n != 4 || l != 0 {
		t.Errorf("%d connections, %d cached; want 4 (no retry), 0", n, l)
	}
}

// TestTimeout: a silent target is an IOERR after the timeout, and a
// timeout is not retried.
func TestTimeout(t *testing.T) {
	tg := newTarget(t)
	tg.setHandle(func(int, []string) string { return "" })
	c := migrate.NewCache(migrate.Options{})
	defer c.Close()
	a := tg.args(0)
	a.Timeout = 50 * time.Millisecond
	check(t, "silent", c.Migrate(a, items("a")), []bool{false}, "IOERR error or timeout reading to target instance")
	if n, l := tg.connCount(), c.Len(); n != 1 || l != 0 {
		t.Errorf("%d connections, %d cached; want 1, 0", n, l)
	}
	tg.waitEOF(1)
}

// TestUnreachable: a refused connection is reported as a failed write
// (Valkey's non-blocking connect is never checked), an address that
// cannot be resolved as a failed connection.
func TestUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	c := migrate.NewCache(migrate.Options{})
	defer c.Close()
	a := &migrate.Args{Host: []byte("127.0.0.1"), Port: []byte(port), Timeout: time.Second}
	check(t, "refused", c.Migrate(a, items("a")), []bool{false}, "IOERR error or timeout writing to target instance")
	a.Host = []byte("")
	check(t, "no host", c.Migrate(a, items("a")), []bool{false}, "IOERR error or timeout connecting to the client")
	if c.Len() != 0 {
		t.Errorf("%d cached", c.Len())
	}
}

// TestPortArgument: the port is read as Valkey's atoi; every spelling is
// an entry of its own in the cache.
func TestPortArgument(t *testing.T) {
	tg := newTarget(t)
	c := migrate.NewCache(migrate.Options{})
	defer c.Close()
	p, _ := strconv.Atoi(tg.port)
	for i, port := range []string{tg.port, tg.port + "x", " " + tg.port, strconv.Itoa(p + 65536)} {
		a := tg.args(0)
		a.Port = []byte(port)
		check(t, port, c.Migrate(a, items("k"+strconv.Itoa(i))), []bool{true}, "")
	}
	if n, l := tg.connCount(), c.Len(); n != 4 || l != 4 {
		t.Errorf("%d connections, %d cached; want 4, 4", n, l)
	}
}

// TestIdle: a cached connection unused for more than ten seconds is
// closed by the sweeper (the clock is the test's).
func TestIdle(t *testing.T) {
	tg := newTarget(t)
	var now atomic.Int64
	now.Store(time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	clock := func() time.Time { return time.Unix(0, now.Load()) }
	c := migrate.NewCache(migrate.Options{Now: clock, Tick: time.Hour})
	defer c.Close()
	check(t, "first", c.Migrate(tg.args(0), items("a")), []bool{true}, "")
	now.Add(int64(migrate.IdleTTL))
	if n := c.CloseIdle(); n != 0 || c.Len() != 1 {
		t.Fatalf("closed %d at exactly the TTL, %d left", n, c.Len())
	}
	check(t, "reused", c.Migrate(tg.args(0), items("b")), []bool{true}, "")
	now.Add(int64(migrate.IdleTTL + time.Second))
	if n := c.CloseIdle(); n != 1 || c.Len() != 0 {
		t.Fatalf("closed %d past the TTL, %d left", n, c.Len())
	}
	tg.waitEOF(1)
	if n := tg.connCount(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}

	// The sweeper does it on its own.
	c2 := migrate.NewCache(migrate.Options{Now: clock, Tick: time.Millisecond})
	defer c2.Close()
	check(t, "second cache", c2.Migrate(tg.args(0), items("c")), []bool{true}, "")
	now.Add(int64(migrate.IdleTTL + time.Second))
	tg.waitEOF(2)
	if c2.Len() != 0 {
		t.Errorf("%d cached after the sweep", c2.Len())
	}
}

// TestMaxSockets: at most 64 names are cached; a new one closes another.
func TestMaxSockets(t *testing.T) {
	tg := newTarget(t)
	c := migrate.NewCache(migrate.Options{})
	defer c.Close()
	for i := range migrate.MaxSockets + 1 {
		a := tg.args(0, "REPLACE")
		a.Port = []byte(tg.port + "/" + strconv.Itoa(i)) // same port, another name
		check(t, string(a.Port), c.Migrate(a, items("k")), []bool{true}, "")
	}
	if n, l := tg.connCount(), c.Len(); n != migrate.MaxSockets+1 || l != migrate.MaxSockets {
		t.Errorf("%d connections, %d cached; want %d, %d", n, l, migrate.MaxSockets+1, migrate.MaxSockets)
	}
	select {
	case <-tg.eof:
	case <-time.After(30 * time.Second):
		t.Fatal("no connection was closed")
	}
}

// TestConcurrent: a MIGRATE that finds its name's connection busy uses a
// connection of its own, which is closed afterwards (the name keeps one).
func TestConcurrent(t *testing.T) {
	tg := newTarget(t)
	arrived, release := make(chan struct{}), make(chan struct{})
	tg.setHandle(func(conn int, cmd []string) string {
		if conn == 1 && cmd[0] == "RESTORE" {
			close(arrived)
			<-release
		}
		return tg.valkey(conn, cmd)
	})
	c := migrate.NewCache(migrate.Options{})
	defer c.Close()
	done := make(chan migrate.Result)
	go func() { done <- c.Migrate(tg.args(0), items("a")) }()
	<-arrived // the first holds the cached connection
	check(t, "second", c.Migrate(tg.args(0), items("b")), []bool{true}, "")
	close(release)
	check(t, "first", <-done, []bool{true}, "")
	if n, l := tg.connCount(), c.Len(); n != 2 || l != 1 {
		t.Errorf("%d connections, %d cached; want 2, 1", n, l)
	}
	tg.waitEOF(2)
}

// TestClose: Close closes the cached connections; a Migrate after it
// fails as an unreachable target.
func TestClose(t *testing.T) {
	tg := newTarget(t)
	c := migrate.NewCache(migrate.Options{})
	check(t, "first", c.Migrate(tg.args(0), items("a")), []bool{true}, "")
	c.Close()
	tg.waitEOF(1)
	check(t, "after close", c.Migrate(tg.args(0), items("b")), []bool{false}, "IOERR error or timeout connecting to the client")
	c.Close()
}
