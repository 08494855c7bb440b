package server

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// bothPaths runs f against an in-process server on the goroutine path, on
// the event-loop path (one loop, so that a stalled loop would stall every
// client) and on that loop with io_uring (where available: not under the
// race detector), which must all behave the same.
func bothPaths(t *testing.T, f func(t *testing.T, s *Server, addr string)) {
	bothPathsSetup(t, nil, f)
}

// bothPathsSetup is bothPaths with setup run on each server before it
// serves (so that what setup changes happens before any connection).
func bothPathsSetup(t *testing.T, setup func(s *Server), f func(t *testing.T, s *Server, addr string)) {
	for _, p := range []struct{ name, engine string }{{"goroutine", "goroutine"}, {"netloop", "epoll"}, {"uring", "io_uring"}} {
		t.Run(p.name, func(t *testing.T) {
			s := listenServer(t, "", "--port", "0", "--bind", "127.0.0.1", "--net-engine", p.engine, "--event-loops", "1")
			if setup != nil {
				setup(s)
			}
			go s.Serve()
			t.Cleanup(s.Close)
			addr := s.Addr()
			if (p.engine != "goroutine") != (s.loops != nil) {
				t.Fatalf("net-engine %s: loops %v", p.engine, s.loops)
			}
			if p.name == "uring" && !s.loops.URing() {
				t.Skip("io_uring not available here (kernel, sandbox, or the race detector)")
			}
			f(t, s, addr)
		})
	}
}

// TestBlockingLeavesLoop: a client blocked in BLPOP does not stall the
// others; the command pipelined after BLPOP runs after it, in order; the
// client is served again afterwards.
func TestBlockingLeavesLoop(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		b := testutil.Dial(t, addr)
		a.WriteRaw("*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n*2\r\n$4\r\nECHO\r\n$5\r\nafter\r\n")
		blockedSoon(t, b, 1) // BLPOP on an empty list waits
		for i := range 3 {
			if got := b.Do("SET", "k", "v"); got != "+OK" {
				t.Fatalf("SET %d while another client blocks: %s", i, got)
			}
		}
		if got := b.Do("RPUSH", "q", "x"); got != ":1" {
			t.Fatalf("RPUSH: %s", got)
		}
		if got := a.Read(); got != `*["q", "x"]` {
			t.Fatalf("BLPOP: %s", got)
		}
		if got := a.Read(); got != `"after"` {
			t.Fatalf("pipelined after BLPOP: %s", got)
		}
		if got := a.Do("GET", "k"); got != `"v"` {
			t.Fatalf("GET after the blocking command: %s", got)
		}
	})
}

// TestPauseLeavesLoop: a write paused by CLIENT PAUSE WRITE waits without
// stalling reads of other clients. The pause lasts until the test ends it
// (UNPAUSE), so the order of the replies is the proof: the read is
// answered, and sees the old value, while the write the server has read
// waits.
func TestPauseLeavesLoop(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		w := testutil.Dial(t, addr)
		r := testutil.Dial(t, addr)
		if got := a.Do("SET", "k", "old"); got != "+OK" {
			t.Fatal(got)
		}
		if got := a.Do("CLIENT", "PAUSE", "600000", "WRITE"); got != "+OK" {
			t.Fatal(got)
		}
		set := testutil.Command("SET", "k", "new")
		base := s.stats.netInput.Load()
		w.WriteRaw(set)
		inputRead(t, s, base+int64(len(set)))
		if got := r.Do("GET", "k"); got != `"old"` {
			t.Fatalf("GET during the pause: %s", got)
		}
		if got := a.Do("CLIENT", "UNPAUSE"); got != "+OK" {
			t.Fatal(got)
		}
		if got := w.Read(); got != "+OK" {
			t.Fatalf("paused SET: %s", got)
		}
		if got := w.Do("GET", "k"); got != `"new"` {
			t.Fatal(got)
		}
	})
}

// TestPauseRaceLeavesLoop: CLIENT PAUSE starting after a write passed the
// loop's leave check (the hook opens that window deterministically) still
// makes the write wait off the loop: a read on the same (single) loop is
// answered during the pause.
func TestPauseRaceLeavesLoop(t *testing.T) {
	s, addr := startIntroServer(t, "--net-engine", "io_uring", "--event-loops", "1")
	if s.loops == nil {
		t.Fatal("no event loop")
	}
	w := testutil.Dial(t, addr)
	r := testutil.Dial(t, addr)
	if got := w.Do("SET", "k", "old"); got != "+OK" {
		t.Fatal(got)
	}
	wid := strings.TrimPrefix(w.Do("CLIENT", "ID"), ":")
	// The pause lasts until the UNPAUSE below: a stalled loop would hold
	// the GET until the test's read deadline.
	var paused atomic.Bool
	hook := func(c *Client) {
		if strconv.FormatInt(c.id, 10) == wid && !s.pause.active.Load() {
			s.pause.pause(10*time.Minute, true)
			paused.Store(true)
		}
	}
	testHookLoopCheck.Store(&hook)
	defer testHookLoopCheck.Store(nil)
	w.Send("SET", "k", "new")
	// The SET is past the check and meets the pause; the GET below is
	// sent afterwards, so the (single) loop takes it after the SET.
	waitFor(t, "the SET to reach the hook", paused.Load)
	testHookLoopCheck.Store(nil)
	if got := r.Do("GET", "k"); got != `"old"` {
		t.Fatalf("GET during the pause: %s", got)
	}
	if got := r.Do("CLIENT", "UNPAUSE"); got != "+OK" {
		t.Fatal(got)
	}
	if got := w.Read(); got != "+OK" {
		t.Fatalf("paused SET: %s", got)
	}
	if got := r.Do("GET", "k"); got != `"new"` {
		t.Fatal(got)
	}
}

// TestKillOnLoop: CLIENT KILL ends an idle client and a blocked one; both
// leave the client list.
func TestKillOnLoop(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		admin := testutil.Dial(t, addr)
		idle := testutil.Dial(t, addr)
		blocked := testutil.Dial(t, addr)
		idleID := strings.TrimPrefix(idle.Do("CLIENT", "ID"), ":")
		blockedID := strings.TrimPrefix(blocked.Do("CLIENT", "ID"), ":")
		blocked.Send("BLPOP", "nothing", "0")
		blockedSoon(t, admin, 1)
		for _, id := range []string{idleID, blockedID} {
			if got := admin.Do("CLIENT", "KILL", "ID", id); got != ":1" {
				t.Fatalf("CLIENT KILL ID %s: %s", id, got)
			}
		}
		if got := idle.ReadWithin(hangTimeout); got != "<EOF>" {
			t.Fatalf("killed idle client: %s", got)
		}
		if got := blocked.ReadWithin(hangTimeout); got != "<EOF>" {
			t.Fatalf("killed blocked client: %s", got)
		}
		waitFor(t, "the killed clients to leave the client list", func() bool { return s.nclients.Load() == 1 })
	})
}

// TestLargeRepliesDoNotStall: a client that pipelines big replies without
// reading them must not stall another client of the same loop, and gets
// all its replies in order once it reads.
func TestLargeRepliesDoNotStall(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		big := strings.Repeat("v", 4<<20)
		if got := a.Do("SET", "big", big); got != "+OK" {
			t.Fatal(got)
		}
		var req strings.Builder
		for range 8 {
			req.WriteString("*2\r\n$3\r\nGET\r\n$3\r\nbig\r\n")
		}
		req.WriteString("*2\r\n$4\r\nECHO\r\n$3\r\nend\r\n")
		base := s.stats.netInput.Load()
		a.WriteRaw(req.String())
		inputRead(t, s, base+int64(req.Len())) // its replies are on their way
		b := testutil.Dial(t, addr)
		if got := b.Do("PING"); got != "+PONG" {
			t.Fatalf("PING while another client's output is full: %s", got)
		}
		for i := range 8 {
			if got := a.Read(); len(got) != len(big)+2 {
				t.Fatalf("GET %d: %d bytes", i, len(got))
			}
		}
		if got := a.Read(); got != `"end"` {
			t.Fatal(got)
		}
	})
}

// TestQuitAndProtocolErrorOnLoop: the reply is written before the close.
func TestQuitAndProtocolErrorOnLoop(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		a.WriteRaw("PING\r\nQUIT\r\nPING\r\n")
		for _, want := range []string{"+PONG", "+OK", "<EOF>"} {
			if got := a.Read(); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		}
		b := testutil.Dial(t, addr)
		b.WriteRaw("*1\r\n$4\r\nPING\r\n*x\r\n")
		for _, want := range []string{"+PONG", "-ERR Protocol error: invalid multibulk length", "<EOF>"} {
			if got := b.Read(); got != want {
				t.Fatalf("got %s, want %s", got, want)
			}
		}
	})
}

// TestIdleTimeoutOnLoop: the timeout setting closes idle clients, but not
// a client inside MULTI.
func TestIdleTimeoutOnLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a 1 s timeout")
	}
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		m := testutil.Dial(t, addr)
		if got := a.Do("CONFIG", "SET", "timeout", "1"); got != "+OK" {
			t.Fatal(got)
		}
		if got := m.Do("MULTI"); got != "+OK" {
			t.Fatal(got)
		}
		if got := a.ReadWithin(hangTimeout); got != "<EOF>" {
			t.Fatalf("idle client: %s", got)
		}
		if got := m.Do("PING"); got != "+QUEUED" {
			t.Fatalf("client in MULTI: %s", got)
		}
	})
}

// TestIdleTimeoutSparesNewMulti: a client that connects while the timeout
// is set and enters MULTI at once is exempt from then on. The goroutine
// path used to keep the read deadline it set before the MULTI batch, and
// closed the client a timeout after it connected. An idle client that
// connects after the MULTI is the clock: once the timeout has closed it,
// it has passed for the client in MULTI too.
func TestIdleTimeoutSparesNewMulti(t *testing.T) {
	if testing.Short() {
		t.Skip("waits past a 1 s timeout")
	}
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		if got := a.Do("CONFIG", "SET", "timeout", "1"); got != "+OK" {
			t.Fatal(got)
		}
		m := testutil.Dial(t, addr)
		if got := m.Do("MULTI"); got != "+OK" {
			t.Fatal(got)
		}
		idle := testutil.Dial(t, addr)
		if got := idle.Do("PING"); got != "+PONG" {
			t.Fatal(got)
		}
		if got := idle.ReadWithin(hangTimeout); got != "<EOF>" {
			t.Fatalf("idle client: %s", got)
		}
		if got := m.Do("PING"); got != "+QUEUED" {
			t.Fatalf("client in MULTI: %s", got)
		}
	})
}

// TestCloseWithBlockedClients: Close returns while clients are blocked.
func TestCloseWithBlockedClients(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		for range 3 {
			testutil.Dial(t, addr).Send("BLPOP", "nothing", "0")
		}
		blockedSoon(t, testutil.Dial(t, addr), 3)
		done := make(chan struct{})
		go func() { s.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(hangTimeout):
			t.Fatal("Close hangs")
		}
	})
}

// TestBlockedClientInputOnLoop: while a client is blocked (on the loop
// path: detached), a disconnect is noticed so a push does not hand data
// to it, and input it pipelines meanwhile is kept and run afterwards.
func TestBlockedClientInputOnLoop(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		b := testutil.Dial(t, addr)
		gone := testutil.Dial(t, addr)
		gone.Send("BLPOP", "q", "0")
		blockedSoon(t, b, 1)
		gone.Close()
		blockedSoon(t, b, 0) // the disconnect is noticed while it waits
		if got := b.Do("RPUSH", "q", "x"); got != ":1" {
			t.Fatalf("RPUSH: %s", got)
		}
		if got := b.Do("LLEN", "q"); got != ":1" {
			t.Fatalf("LLEN after pushing to a disconnected waiter: %s", got)
		}

		a := testutil.Dial(t, addr)
		id, _ := strconv.ParseInt(strings.TrimPrefix(a.Do("CLIENT", "ID"), ":"), 10, 64)
		ac := s.clientByID(id)
		a.Send("BLPOP", "r", "0")
		blockedSoon(t, b, 1)
		echo := testutil.Command("ECHO", "later")
		a.WriteRaw(echo)
		waitFor(t, "the blocked client's input to be read", func() bool {
			bw := ac.bw // made before the client showed as blocked
			bw.mu.Lock()
			defer bw.mu.Unlock()
			return len(bw.pendingIn) >= len(echo)
		})
		if got := b.Do("RPUSH", "r", "y"); got != ":1" {
			t.Fatalf("RPUSH: %s", got)
		}
		if got := a.Read(); got != `*["r", "y"]` {
			t.Fatalf("BLPOP: %s", got)
		}
		if got := a.Read(); got != `"later"` {
			t.Fatalf("input sent while blocked: %s", got)
		}
		if got := a.Do("PING"); got != "+PONG" {
			t.Fatalf("after: %s", got)
		}
	})
}

func TestDefaultLoops(t *testing.T) {
	for _, tc := range []struct{ io, procs, want int }{
		{1, 2, 1},  // default io-threads on this project's 2-core machines
		{14, 2, 2}, // the seed's io-threads 14, capped by the cores
		{1, 16, 8}, // default on a big machine: half the cores
		{14, 16, 14},
		{32, 16, 16},
		{1, 1, 1},
	} {
		if got := defaultLoops(tc.io, tc.procs); got != tc.want {
			t.Errorf("defaultLoops(%d, %d) = %d, want %d", tc.io, tc.procs, got, tc.want)
		}
	}
}

// TestCallCountsInBatch: command statistics are added to the shared
// counters once per batch (callCounts), yet a command in the same
// pipeline that reports them (INFO, CLIENT INFO) sees every call before
// it, and another client sees them as soon as it has seen the replies.
func TestCallCountsInBatch(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		b := testutil.Dial(t, addr)
		var p strings.Builder
		for _, args := range [][]string{{"SET", "k", "v"}, {"GET", "k"}, {"GET", "k"}, {"GET", "k"}, {"INFO", "commandstats"}, {"CLIENT", "INFO"}, {"GET", "k"}} {
			p.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
			for _, a := range args {
				p.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
			}
		}
		a.WriteRaw(p.String())
		for range 4 {
			a.Read()
		}
		info := a.Read()
		if got := infoField(t, info, "cmdstat_get"); !strings.HasPrefix(got, "calls=3,") {
			t.Errorf("INFO after three GETs in the same pipeline: cmdstat_get:%s", got)
		}
		if got := infoField(t, info, "cmdstat_set"); !strings.HasPrefix(got, "calls=1,") {
			t.Errorf("INFO after one SET in the same pipeline: cmdstat_set:%s", got)
		}
		if got := a.Read(); !strings.Contains(got, ` tot-cmds=5\n`) {
			t.Errorf("CLIENT INFO after five commands: %s", got)
		}
		if got := a.Read(); got != `"v"` {
			t.Fatalf("last GET: %s", got)
		}
		if got := infoField(t, b.Do("INFO", "commandstats"), "cmdstat_get"); !strings.HasPrefix(got, "calls=4,") {
			t.Errorf("another client, after the replies: cmdstat_get:%s", got)
		}
	})
}
