package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// Server-level tests of the blocking list commands: several real
// connections, on both network paths.

// blockedSoon waits until n clients are blocked (INFO blocked_clients).
func blockedSoon(t *testing.T, c *testutil.Raw, n int) {
	t.Helper()
	want := "blocked_clients:" + strconv.Itoa(n) + `\r\n`
	waitFor(t, want, func() bool { return strings.Contains(c.Do("INFO", "clients"), want) })
}

// TestBlockingFIFOAcrossConnections: clients blocked on a key are served
// in the order they blocked, each with its own element.
func TestBlockingFIFOAcrossConnections(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		p := testutil.Dial(t, addr)
		var cs []*testutil.Raw
		for i := range 3 {
			c := testutil.Dial(t, addr)
			c.Send("BLPOP", "q", "0")
			blockedSoon(t, p, i+1)
			cs = append(cs, c)
		}
		if got := p.Do("RPUSH", "q", "a", "b", "c"); got != ":3" {
			t.Fatalf("RPUSH: %s", got)
		}
		for i, want := range []string{"a", "b", "c"} {
			if got := cs[i].Read(); got != `*["q", "`+want+`"]` {
				t.Errorf("client %d: %s", i, got)
			}
		}
		blockedSoon(t, p, 0)
	})
}

// TestBlockingPushThenPopPipelined: a pipelined RPUSH + LPOP from another
// client leaves the element to the blocked client, as in Valkey.
func TestBlockingPushThenPopPipelined(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		b := testutil.Dial(t, addr)
		a.Send("BRPOP", "q", "0")
		blockedSoon(t, b, 1)
		b.WriteRaw("*3\r\n$5\r\nRPUSH\r\n$1\r\nq\r\n$1\r\nx\r\n*2\r\n$4\r\nLPOP\r\n$1\r\nq\r\n")
		if got := b.Read(); got != ":1" {
			t.Fatalf("RPUSH: %s", got)
		}
		if got := b.Read(); got != "(nil)" {
			t.Fatalf("LPOP right after the push: %s", got)
		}
		if got := a.Read(); got != `*["q", "x"]` {
			t.Fatalf("BRPOP: %s", got)
		}
	})
}

// TestBlockingTimeoutAndUnblock: timeouts, CLIENT UNBLOCK both ways, and
// the RESP3 null.
func TestBlockingTimeoutAndUnblock(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		b := testutil.Dial(t, addr)
		start := time.Now()
		if got := a.Do("BLPOP", "q", "0.1"); got != "(nil-array)" {
			t.Fatalf("BLPOP timeout: %s", got)
		}
		// A lower bound only (with a margin for the server's millisecond
		// clock): how much later it answers depends on the machine.
		if d := time.Since(start); d < 90*time.Millisecond {
			t.Fatalf("timed out after %v, before its 0.1 s timeout", d)
		}
		id := strings.TrimPrefix(a.Do("CLIENT", "ID"), ":")
		a.Send("BLMOVE", "q", "d", "LEFT", "RIGHT", "0")
		blockedSoon(t, b, 1)
		if got := b.Do("CLIENT", "UNBLOCK", id); got != ":1" {
			t.Fatalf("CLIENT UNBLOCK: %s", got)
		}
		if got := a.Read(); got != "(nil-array)" {
			t.Fatalf("unblocked (timeout): %s", got)
		}
		a.Send("BLMPOP", "0", "2", "q", "r", "LEFT")
		blockedSoon(t, b, 1)
		if got := b.Do("CLIENT", "UNBLOCK", id, "ERROR"); got != ":1" {
			t.Fatalf("CLIENT UNBLOCK ERROR: %s", got)
		}
		if got := a.Read(); got != "-UNBLOCKED client unblocked via CLIENT UNBLOCK" {
			t.Fatalf("unblocked (error): %s", got)
		}
		blockedSoon(t, b, 0)
		// Nobody waits any more: a push stays in the list.
		b.Do("RPUSH", "q", "kept")
		if got := b.Do("LLEN", "q"); got != ":1" {
			t.Fatalf("LLEN: %s", got)
		}
		a.Do("HELLO", "3")
		if got := a.Do("BRPOP", "nokey", "0.01"); got != "(nil)" {
			t.Fatalf("RESP3 timeout: %s", got)
		}
	})
}

// TestBlockingMultiExec: inside MULTI nothing blocks, and a transaction
// serves blocked clients once, after it ends.
func TestBlockingMultiExec(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		b := testutil.Dial(t, addr)
		b.Do("MULTI")
		b.Do("BLPOP", "none", "0")
		b.Do("BRPOPLPUSH", "none", "x", "0")
		if got := b.Do("EXEC"); got != `*[(nil-array), (nil)]` {
			t.Fatalf("EXEC: %s", got)
		}
		a.Send("BLPOP", "q", "0")
		blockedSoon(t, b, 1)
		b.Do("MULTI")
		b.Do("RPUSH", "q", "x")
		b.Do("LPOP", "q")
		if got := b.Do("EXEC"); got != `*[:1, "x"]` {
			t.Fatalf("EXEC push+pop: %s", got)
		}
		b.Do("MULTI")
		b.Do("RPUSH", "q", "y", "z")
		b.Do("LLEN", "q")
		if got := b.Do("EXEC"); got != `*[:2, :2]` {
			t.Fatalf("EXEC push: %s", got)
		}
		if got := a.Read(); got != `*["q", "y"]` {
			t.Fatalf("BLPOP after EXEC: %s", got)
		}
		if got := b.Do("LRANGE", "q", "0", "-1"); got != `*["z"]` {
			t.Fatalf("left: %s", got)
		}
	})
}

// TestBlockingMoveAndDisconnect: BLMOVE is served by a push and feeds the
// waiters of its destination; a client that disconnects while blocked is
// forgotten and takes nothing.
func TestBlockingMoveAndDisconnect(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		a := testutil.Dial(t, addr)
		c := testutil.Dial(t, addr)
		p := testutil.Dial(t, addr)
		a.Send("BLMOVE", "src", "dst", "RIGHT", "LEFT", "0")
		blockedSoon(t, p, 1)
		c.Send("BLPOP", "dst", "0")
		blockedSoon(t, p, 2)
		p.Do("RPUSH", "src", "1", "2")
		if got := a.Read(); got != `"2"` {
			t.Fatalf("BLMOVE: %s", got)
		}
		if got := c.Read(); got != `*["dst", "2"]` {
			t.Fatalf("BLPOP dst: %s", got)
		}
		// Disconnect detection needs the connection to report a close
		// while its goroutine is parked (db's optional Disconnected()).
		if _, ok := any(&Client{}).(interface{ Disconnected() <-chan struct{} }); !ok {
			t.Skip("server.Client does not implement Disconnected() yet")
		}
		gone := testutil.Dial(t, addr)
		gone.Send("BLPOP", "later", "0")
		blockedSoon(t, p, 1)
		gone.Close()
		// The server notices the disconnect while the client is parked
		// (Disconnected), and the element pushed afterwards stays in the
		// list.
		blockedSoon(t, p, 0)
		p.Do("RPUSH", "later", "v")
		if got := p.Do("LRANGE", "later", "0", "-1"); got != `*["v"]` {
			t.Fatalf("a disconnected client took the element: %s", got)
		}
	})
}
