// Command nullserver is the ceiling for Corvid's network path: a RESP
// server that answers every command without touching data (GET gets a
// fixed 3-byte bulk, everything else +OK). It implements the candidate
// network designs so they can be measured side by side rather than assumed
// (see bench/netpath.sh and docs/benchmarks.md, "Network path: io_uring, epoll, event loops"):
//
//	-mode goroutine  one goroutine per connection on Go's netpoller (net.Conn):
//	                 read, reply, write, then a read that returns EAGAIN and parks
//	-mode epoll      -loops event loops, each owning an epoll fd and its
//	                 connections (level-triggered, every ready fd of one
//	                 EpollWait handled in a batch); -spin D polls with a zero
//	                 timeout for up to D before blocking; -tryfirst polls once;
//	                 -raw issues read/write/zero-timeout epoll_wait as raw
//	                 syscalls (no scheduler hooks); -rawblock also the blocking
//	                 epoll_wait (the loop keeps its P while it sleeps)
//	-mode uring      one loop on an io_uring: every accept, receive and send
//	                 a queue entry, one io_uring_enter per round (uring.go);
//	                 -raw makes that enter a RawSyscall; -pollfirst queues
//	                 receives with IORING_RECVSEND_POLL_FIRST
//
// Skipping the speculative read in goroutine mode is not possible with
// Go's public API: syscall.RawConn.Read resets the poller's readiness
// before it calls the callback, so parking without reading first could
// miss a request that arrived in between and hang the connection.
//
// A gnet (github.com/panjf2000/gnet/v2) variant lives in the nested module
// ./gnet so that the main module does not depend on gnet.
//
// Usage:
//
//	go run ./bench/nullserver -port 7777 -mode epoll -loops 1 -spin 20us
//
// Invariants: in epoll mode a connection belongs to exactly one loop, and
// only that loop's goroutine touches it after the hand-off (accepted fds
// are passed under the loop's mutex and announced through an eventfd).
package main

import (
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

func main() {
	port := flag.Int("port", 7777, "TCP port on 127.0.0.1")
	mode := flag.String("mode", "goroutine", "goroutine | epoll | uring")
	loops := flag.Int("loops", runtime.GOMAXPROCS(0), "event loops (epoll mode)")
	spin := flag.Duration("spin", 0, "epoll mode: poll with a zero timeout for up to this long before blocking")
	raw := flag.Bool("raw", false, "epoll mode: non-blocking syscalls as RawSyscall")
	rawBlock := flag.Bool("rawblock", false, "epoll mode: the blocking epoll_wait as RawSyscall (the loop keeps its P)")
	tryFirst := flag.Bool("tryfirst", false, "epoll mode: one zero-timeout poll before each blocking wait")
	lock := flag.Bool("lockthread", false, "epoll mode: LockOSThread in every loop")
	slice := flag.Duration("slice", 0, "epoll mode: lock each loop to its thread and ask for this scheduling slice")
	deferWrite := flag.Bool("deferwrite", false, "epoll mode: write the replies after reading every ready socket (corvid's netloop default)")
	pollFirst := flag.Bool("pollfirst", false, "uring mode: receives wait for readability before trying (IORING_RECVSEND_POLL_FIRST)")
	fixed := flag.Bool("fixed", true, "uring mode: sockets in the ring's registered file table, as corvid-server's loops")
	flag.Parse()
	if *mode == "uring" {
		fmt.Fprintf(os.Stderr, "nullserver mode=uring raw=%v GOMAXPROCS=%d pid=%d on 127.0.0.1:%d\n", *raw, runtime.GOMAXPROCS(0), os.Getpid(), *port)
		go exitOnSignal()
		serveURing(*port, *raw, *pollFirst, *fixed)
		return
	}
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "nullserver mode=%s loops=%d spin=%v raw=%v GOMAXPROCS=%d pid=%d on %s\n",
		*mode, *loops, *spin, *raw, runtime.GOMAXPROCS(0), os.Getpid(), ln.Addr())
	go exitOnSignal()
	switch *mode {
	case "goroutine":
		serveGoroutines(ln)
	case "epoll":
		serveEpoll(ln, epollOpts{loops: max(1, *loops), spin: *spin, raw: *raw, rawBlock: *rawBlock, tryFirst: *tryFirst, lockThread: *lock, slice: *slice, deferWrite: *deferWrite})
	default:
		fmt.Fprintln(os.Stderr, "unknown mode", *mode)
		os.Exit(2)
	}
}

func exitOnSignal() {
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	<-sig
	os.Exit(0)
}

// spinDeadline is a helper so the epoll loop reads the monotonic clock only
// while it spins.
func spinDeadline(d time.Duration) time.Time { return time.Now().Add(d) }
