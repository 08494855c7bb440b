package loadgen

import (
	"fmt"
	"net"
	"runtime"
	"sync/atomic"
	"syscall"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/wire"
	"github.com/corvid-kv/corvid/internal/netloop"
	"golang.org/x/sys/unix"
)

// The epoll client engine (--client-io epoll; the default where io_uring
// is not available, uring.go): every --threads thread is one event loop
// that drives its --clients connections, as memtier's libevent threads
// do. When replies arrive, the loop accounts them and writes the next
// requests of that connection at once; with --rate-limiting it sleeps
// in epoll_pwait2 until the earliest connection's next request is due, to
// the microsecond.
//
// Why not a goroutine per connection (--client-io goroutines, still used
// for cluster mode, --reconnect-interval, unix sockets and --tls, whose
// records only a tls.Conn can read and write): the Go
// runtime polls the network only when a P runs out of work, in whole
// milliseconds when it sleeps, so a goroutine client's rate-limited
// schedule slips by ~1 ms (useless for comparing p99s at an equal load),
// and under full load a connection whose replies have arrived waits for
// other goroutines' time slices, which is counted as the server's latency
// (docs/benchmarks.md, "Latency at equal load").
//
// Ownership: a loop goroutine owns its connections, their buffers and
// their clients from the first write to the close; the runner only waits
// for the loops to return.

// loopEligible reports whether a run can use the event-loop engines.
func loopEligible(cfg *options.Config) bool {
	return cfg.ClientIO != "goroutines" && !cfg.ClusterMode && cfg.ReconnectInterval == 0 &&
		cfg.UnixSocket == "" && !cfg.TLS.Enabled
}

// evConn is one connection of a loop.
type evConn struct {
	c      *client
	fd     int
	out    []byte // requests written only in part (EPOLLOUT pending)
	rbuf   []byte
	r, w   int
	wantTx bool  // registered for EPOLLOUT
	wake   int64 // rate limiting: when the next request is due (0: not waiting)
}

// evLoop is one client thread.
type evLoop struct {
	r      *runner
	epfd   int
	conns  []*evConn // by fd
	open   int
	events []unix.EpollEvent
	wbuf   []byte // the window being written
}

// clientLoop is one client thread: an epoll loop (evLoop) or an io_uring
// loop (urLoop, uring.go).
type clientLoop interface {
	// add hands the loop a connection's socket (before run).
	add(c *client, fd int) error
	// run drives the loop's connections until every one has finished.
	run()
	// abort closes every connection and the loop (instead of run).
	abort()
}

// driveLoops runs the clients on cfg.Threads event loops until every
// connection has finished: thread t gets clients t*Clients ... of each
// server.
func (r *runner) driveLoops(clients []*client) error {
	// Raw waits need a P per loop, besides those an embedded server's raw
	// loops keep, plus one for everything else (timers, the progress line,
	// the collector): GOMAXPROCS is raised to that for the run. A loop
	// sleeping in a raw wait costs no CPU, so on a 2-core machine 3 Ps
	// for 2 loops take nothing from the server.
	if need := r.cfg.Threads + netloop.RawLoops() + 1; runtime.GOMAXPROCS(0) < need {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(need))
	}
	loops := make([]clientLoop, r.cfg.Threads)
	for i := range loops {
		if useURing(r.cfg) {
			loops[i] = &urLoop{r: r}
			continue
		}
		l, err := newEvLoop(r)
		if err != nil {
			for _, l := range loops[:i] {
				l.abort()
			}
			return err
		}
		loops[i] = l
	}
	var firstErr error
	for i, c := range clients {
		fd, err := takeFD(c.conn)
		if err != nil {
			_ = c.conn.Close()
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		c.cur.Store(nil) // the loop owns the socket now
		if err := loops[i%r.cfg.TotalClients()/r.cfg.Clients].add(c, fd); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	if firstErr != nil {
		for _, l := range loops {
			l.abort()
		}
		return firstErr
	}
	done := make(chan struct{}, len(loops))
	for _, l := range loops {
		go func() {
			l.run()
			done <- struct{}{}
		}()
	}
	for range loops {
		<-done
	}
	return nil
}

func newEvLoop(r *runner) (*evLoop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return &evLoop{r: r, epfd: epfd, events: make([]unix.EpollEvent, 256), wbuf: make([]byte, 0, 16<<10)}, nil
}

func (l *evLoop) add(c *client, fd int) error {
	for fd >= len(l.conns) {
		l.conns = append(l.conns, make([]*evConn, max(64, len(l.conns)))...)
	}
	l.conns[fd] = &evConn{c: c, fd: fd, rbuf: make([]byte, 64<<10)}
	l.open++
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
		l.close(l.conns[fd])
		return err
	}
	return nil
}

// takeFD moves a dialled connection's socket out of Go's netpoller: a
// non-blocking duplicate the loop owns; the original is closed.
func takeFD(conn *wire.Conn) (int, error) {
	nc, err := conn.NetConn()
	if err != nil {
		return -1, err
	}
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return -1, fmt.Errorf("epoll client: %T is not a TCP connection", nc)
	}
	return netloop.TakeConn(tc)
}

// run is the loop: first windows, then wait, read, account, refill. The
// goroutine is not locked to its thread: on the 2-core machine a locked
// loop measured ~10% fewer requests per second at pipeline 1 (the runtime
// then needs a thread switch whenever it preempts the loop).
func (l *evLoop) run() {
	defer unix.Close(l.epfd)
	now := l.r.now()
	for _, ec := range l.conns {
		if ec != nil {
			l.send(ec, now)
		}
	}
	for l.open > 0 {
		if l.r.ctx.Err() != nil {
			l.r.stopping.Store(true)
			l.closeAll()
			return
		}
		n, err := l.wait(waitFor(l.r, l.conns))
		if err != nil && err != unix.EINTR {
			for _, ec := range l.conns {
				if ec != nil {
					l.fail(ec, fmt.Errorf("epoll_pwait2: %w", err))
				}
			}
			return
		}
		for i := 0; i < n; i++ {
			fd := int(l.events[i].Fd)
			if fd >= len(l.conns) || l.conns[fd] == nil {
				continue
			}
			ec := l.conns[fd]
			if ec.wantTx {
				l.drain(ec)
				continue
			}
			l.readable(ec)
		}
		sendDue(l.r, l.conns, l.send)
	}
}

// wait is epoll_pwait2: a nanosecond timeout (epoll_wait has milliseconds,
// too coarse for a schedule of thousands of requests per second), as a raw
// syscall that keeps the loop's P while it sleeps: no P hand-off and
// thread wake-up per wait, as in Corvid's own loops (internal/netloop).
func (l *evLoop) wait(timeout int64) (int, error) {
	ts := unix.NsecToTimespec(timeout)
	r, _, e := syscall.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])),
		uintptr(len(l.events)), uintptr(unsafe.Pointer(&ts)), 0, 0)
	if e == 0 {
		return int(r), nil
	}
	if e != syscall.EINTR {
		return 0, e
	}
	// Most likely the runtime's preemption request (a GC stop-the-world):
	// wait once through the scheduler so that it can proceed.
	r, _, e = syscall.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(l.epfd), uintptr(unsafe.Pointer(&l.events[0])),
		uintptr(len(l.events)), uintptr(unsafe.Pointer(&ts)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// Reads and writes go through package syscall, whose race annotations
// are the ones package net's are paired with: a test server on net.Conn
// that writes after updating its state is then seen as synchronized with
// the client that read the reply, as on the goroutine engine.

// readable reads once, accounts every complete reply, and sends what the
// window (and the schedule) allows.
func (l *evLoop) readable(ec *evConn) {
	c := ec.c
	var err error
	ec.rbuf, ec.w, err = wire.MakeRoom(ec.rbuf, ec.r, ec.w)
	ec.r = 0
	if err != nil {
		l.fail(ec, err)
		return
	}
	m, err := syscall.Read(ec.fd, ec.rbuf[ec.w:])
	switch {
	case err == unix.EAGAIN || err == unix.EINTR:
		return
	case err != nil:
		l.fail(ec, err)
		return
	case m == 0:
		l.fail(ec, fmt.Errorf("connection closed by server"))
		return
	}
	at := l.r.now()
	ec.w += m
	var done uint64
	if ec.r, done, err = c.account(ec.rbuf, ec.r, ec.w, at); err != nil {
		l.fail(ec, err)
		return
	}
	if done > 0 {
		l.send(ec, at)
	}
}

// send fills the connection's window and writes it; a connection with
// nothing in flight and nothing more to send is closed.
func (l *evLoop) send(ec *evConn, now int64) {
	if ec.wantTx {
		return // the rest of the last window is still being written
	}
	var done bool
	l.wbuf, ec.wake, done = ec.c.window(l.wbuf[:0], now)
	switch {
	case len(l.wbuf) > 0:
		l.write(ec, l.wbuf)
	case done:
		l.close(ec)
	}
}

// write sends p; what the socket does not take waits for EPOLLOUT (replies
// are not read meanwhile: the window bounds what is in flight).
func (l *evLoop) write(ec *evConn, p []byte) {
	for len(p) > 0 {
		n, err := syscall.Write(ec.fd, p)
		if err == unix.EINTR {
			continue
		}
		if err == unix.EAGAIN {
			partialWrites.Add(1)
			ec.out = append(ec.out[:0], p...)
			ec.wantTx = true
			ev := unix.EpollEvent{Events: unix.EPOLLOUT, Fd: int32(ec.fd)}
			if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, ec.fd, &ev); err != nil {
				l.fail(ec, err)
			}
			return
		}
		if err != nil {
			l.fail(ec, err)
			return
		}
		p = p[n:]
	}
}

// partialWrites counts windows the socket did not take at once (tests).
var partialWrites atomic.Int64

// drain continues a partial write once the socket is writable.
func (l *evLoop) drain(ec *evConn) {
	p := ec.out
	ec.out = ec.out[:0]
	ec.wantTx = false
	ev := unix.EpollEvent{Events: unix.EPOLLIN | unix.EPOLLRDHUP, Fd: int32(ec.fd)}
	if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_MOD, ec.fd, &ev); err != nil {
		l.fail(ec, err)
		return
	}
	l.write(ec, p)
}

func (l *evLoop) fail(ec *evConn, err error) {
	ec.c.fail(err)
	l.close(ec)
}

// close ends a connection: its samples are flushed and the fd closed.
func (l *evLoop) close(ec *evConn) {
	if ec.fd < 0 {
		return
	}
	ec.c.flushSamples()
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, ec.fd, nil)
	l.conns[ec.fd] = nil
	unix.Close(ec.fd)
	ec.fd = -1
	ec.wake = 0
	l.open--
}

func (l *evLoop) abort() {
	l.closeAll()
	unix.Close(l.epfd)
}

func (l *evLoop) closeAll() {
	for _, ec := range l.conns {
		if ec != nil {
			l.close(ec)
		}
	}
}
