package server

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// pushTo returns the server-side client of the connection c.
func pushTarget(t *testing.T, s *Server, c *testutil.Raw) *Client {
	t.Helper()
	id, _ := strconv.ParseInt(strings.TrimPrefix(c.Do("CLIENT", "ID"), ":"), 10, 64)
	cl := s.clientByID(id)
	if cl == nil {
		t.Fatalf("no client %d", id)
	}
	return cl
}

// TestPush: output pushed from other goroutines (what pub/sub will send)
// reaches an idle client at once on every network path, in order, from
// many goroutines at a time; a client blocked in BLPOP gets it once the
// command ends, still connected and with the BLPOP's reply intact; a
// push over the client's output limit closes it.
func TestPush(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		sub := testutil.Dial(t, addr)
		cl := pushTarget(t, s, sub)

		cl.Push([]byte("+one\r\n"))
		cl.Push([]byte("+two\r\n"))
		for _, want := range []string{"+one", "+two"} {
			if got := sub.ReadWithin(5 * time.Second); got != want {
				t.Fatalf("idle client: got %s, want %s", got, want)
			}
		}

		// Four goroutines push 250 numbered messages each.
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 250 {
					cl.Push([]byte(":" + strconv.Itoa(g*1000+i) + "\r\n"))
				}
			}()
		}
		wg.Wait()
		next := [4]int{}
		for range 1000 {
			got := sub.ReadWithin(5 * time.Second)
			n, err := strconv.Atoi(strings.TrimPrefix(got, ":"))
			if err != nil {
				t.Fatalf("pushed message: %s", got)
			}
			g, i := n/1000, n%1000
			if next[g] != i {
				t.Fatalf("goroutine %d's message %d arrived, want %d: out of order", g, i, next[g])
			}
			next[g]++
		}

		// Blocked: the push waits for the command, which is not disturbed.
		sub.Send("BLPOP", "pushq", "0")
		other := testutil.Dial(t, addr)
		blockedSoon(t, other, 1)
		cl.Push([]byte("+during\r\n"))
		if got := other.Do("RPUSH", "pushq", "x"); got != ":1" {
			t.Fatal(got)
		}
		got := []string{sub.ReadWithin(5 * time.Second), sub.ReadWithin(5 * time.Second)}
		if !(got[0] == `*["pushq", "x"]` && got[1] == "+during" || got[0] == "+during" && got[1] == `*["pushq", "x"]`) {
			t.Fatalf("blocked client got %q", got)
		}
		if got := sub.Do("PING"); got != "+PONG" {
			t.Fatalf("after the push: %s", got)
		}

		// Over the output limit: closed, as a pub/sub client over its
		// class's limit is.
		if got := other.Do("CONFIG", "SET", "client-output-buffer-limit", "normal 64kb 0 0"); got != "+OK" {
			t.Fatal(got)
		}
		cl.Push([]byte("$200000\r\n" + strings.Repeat("p", 200000) + "\r\n"))
		if got := sub.ReadWithin(5 * time.Second); got != "<EOF>" {
			t.Fatalf("push over the limit: %.40s", got)
		}
	})
}
