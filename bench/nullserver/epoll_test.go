package main

import (
	"net"
	"runtime"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestRawBlockLetsGCRun: a loop asleep in a raw epoll_wait keeps its P; a
// GC must still be able to stop it (the preemption signal's EINTR makes
// the loop wait once through the scheduler), and the loop must keep
// serving afterwards. Retrying the raw wait on EINTR hung the GC, and with
// it the accept goroutine, after a few runs of seed-side-by-side.
func TestRawBlockLetsGCRun(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("a raw-blocking loop needs a second P")
	}
	addr := startEpoll(t, epollOpts{loops: 1, rawBlock: true})
	c, r := testutil.DialConn(t, addr)
	ping := func() {
		t.Helper()
		c.Write([]byte("*1\r\n$4\r\nPING\r\n"))
		if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
			t.Fatalf("PING: %q, %v", line, err)
		}
	}
	ping()
	time.Sleep(20 * time.Millisecond) // the loop is asleep in the kernel
	done := make(chan struct{})
	go func() {
		for range 10 {
			runtime.GC()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("GC could not stop the raw-blocking loop")
	}
	ping()
}

// TestDeferWrite: with replies written after every ready socket was read,
// pipelined requests from several connections are all answered, in order.
func TestDeferWrite(t *testing.T) {
	addr := startEpoll(t, epollOpts{loops: 1, raw: true, deferWrite: true})
	for range 3 {
		c, r := testutil.DialConn(t, addr)
		for round := range 3 {
			c.Write([]byte("*1\r\n$4\r\nPING\r\n*1\r\n$4\r\nPING\r\n"))
			for i := range 2 {
				if line, err := r.ReadString('\n'); err != nil || line != "+OK\r\n" {
					t.Fatalf("round %d reply %d: %q, %v", round, i, line, err)
				}
			}
		}
	}
}

// startEpoll serves the null server's epoll mode on a loopback port until
// the test ends and returns its address.
func startEpoll(t *testing.T, o epollOpts) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go serveEpoll(ln, o)
	return ln.Addr().String()
}
