package main

import (
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/uring"
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
	before := epollFDs(t)
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
	asleepOn(t, before) // the loop is asleep in the kernel
	done := make(chan struct{})
	go func() {
		for range 10 {
			runtime.GC()
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(hangTimeout):
		t.Fatal("GC could not stop the raw-blocking loop")
	}
	ping()
}

// hangTimeout bounds the waits of these tests for a server to start, a
// loop to sleep or a GC to finish: only a hang reaches it. The machines
// that run the tests are small and noisy.
const hangTimeout = 30 * time.Second

// epollFDs lists this process's epoll descriptors (links of /proc/self/fd
// to "anon_inode:[eventpoll]"), after the runtime's own network poller
// has been created.
func epollFDs(t *testing.T) map[string]bool {
	t.Helper()
	if ln, err := net.Listen("tcp", "127.0.0.1:0"); err == nil {
		ln.Close()
	}
	fds := map[string]bool{}
	ents, _ := os.ReadDir("/proc/self/fd")
	for _, e := range ents {
		if l, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name())); l == "anon_inode:[eventpoll]" {
			fds[e.Name()] = true
		}
	}
	return fds
}

// asleepOn waits until a thread of this process sleeps in a system call
// on an epoll descriptor that is not in before (a new loop's), as
// /proc/self/task/*/syscall shows it: the call's number, then its first
// argument. Where /proc does not show system calls it does not wait.
func asleepOn(t *testing.T, before map[string]bool) {
	t.Helper()
	if _, err := os.ReadFile("/proc/self/syscall"); err != nil {
		t.Logf("cannot see system calls (%v): not waiting for the loop to sleep", err)
		return
	}
	asleep := func() bool {
		loops := map[string]bool{}
		for fd := range epollFDs(t) {
			if n, err := strconv.Atoi(fd); err == nil && !before[fd] {
				loops["0x"+strconv.FormatInt(int64(n), 16)] = true
			}
		}
		tasks, _ := filepath.Glob("/proc/self/task/*/syscall")
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			if fields := strings.Fields(string(b)); len(fields) >= 2 && loops[fields[1]] {
				return true
			}
		}
		return false
	}
	for deadline := time.Now().Add(hangTimeout); !asleep(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no loop asleep on a new epoll descriptor after %v", hangTimeout)
		}
	}
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

// TestURing: the io_uring mode answers pipelined requests from several
// connections in order, and a GC can stop its loop while it sleeps in a
// raw io_uring_enter.
func TestURing(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("a raw-blocking loop needs a second P")
	}
	r, err := uring.New(8)
	if err != nil {
		t.Skip("io_uring not available here")
	}
	r.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close() // serveURing makes its own (blocking) listener on the port
	// With fixed files, as corvid-server: a closed connection's slot must
	// be emptied (the first dial below closes at once).
	go serveURing(port, true, true, true)
	addr := ln.Addr().String()
	var conns []net.Conn
	for deadline := time.Now().Add(hangTimeout); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			conns = append(conns, c)
			break
		}
	}
	if len(conns) == 0 {
		t.Fatal("the io_uring null server did not start")
	}
	conns[0].Close()
	for range 3 {
		c, rd := testutil.DialConn(t, addr)
		for round := range 3 {
			c.Write([]byte("*1\r\n$4\r\nPING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n"))
			for i, want := range []string{"+OK\r\n", "$3\r\n", "bar\r\n"} {
				if line, err := rd.ReadString('\n'); err != nil || line != want {
					t.Fatalf("round %d line %d: %q, %v", round, i, line, err)
				}
			}
		}
		done := make(chan struct{})
		go func() {
			runtime.GC()
			close(done)
		}()
		select {
		case <-done:
		case <-time.After(hangTimeout):
			t.Fatal("GC could not stop the raw-waiting loop")
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
