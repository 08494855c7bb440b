package main

// -mode uring: one loop on an io_uring instead of epoll plus read/write.
// It asks whether "fewer syscalls and wake-ups per request" (issue 6) is
// worth a new network path: a request costs the epoll loop one read, one
// write and a share of one epoll_wait; here every accept, receive and
// send of every connection is a queue entry, and the loop makes ONE
// io_uring_enter per round (submit what the last round produced, wait for
// at least one completion). The ring (internal/uring) is set up with SINGLE_ISSUER and
// DEFER_TASKRUN, so completions are reaped only inside that enter, on the
// loop's own thread.
//
// Invariants: the loop goroutine is locked to the thread that created the
// ring (SINGLE_ISSUER requires it) and is the only one that touches the
// ring and the connections. A buffer handed to the kernel (a receive's
// input tail, a send's output) is not touched until its completion
// arrives; connections keep them alive (Go's collector does not move heap
// objects). Each connection has at most one receive and one send in
// flight.

import (
	"fmt"
	"os"
	"runtime"
	"strconv"

	"golang.org/x/sys/unix"

	"github.com/corvid-kv/corvid/internal/uring"
)

// Completion kinds (uring.UserData).
const (
	kindAccept uint32 = 0
	kindRx     uint32 = 1
	kindTx     uint32 = 2
)

type uconn struct {
	fd      int
	b       *connBuf
	sending []byte // handed to the kernel; b.out collects the next replies
	spare   []byte // the last send's buffer, to be the next b.out
	sent    int
	rxBusy  bool // a receive is in flight
	closed  bool
	fixed   bool // in the ring's file table at its index
}

type uloop struct {
	r         *uring.Ring
	pollFirst bool // receives wait for readability before trying
	lfd       int
	conns     []*uconn // by index, which the user data carries
	free      []int
	files     int // slots of the registered file table (0: none)
}

func userData(kind uint32, idx int) uint64 { return uring.UserData(kind, uint32(idx)) }

// serveURing serves on port with one io_uring loop.
func serveURing(port int, raw, pollFirst, fixed bool) {
	runtime.LockOSThread()
	r, err := uring.New(1024)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	lfd, err := listenBlocking(port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r.Raw = raw
	l := &uloop{r: r, lfd: lfd, pollFirst: pollFirst}
	// As corvid-server's loops (internal/netloop): connections use their
	// slots of a registered file table, sparing a descriptor lookup per
	// operation.
	if fixed && r.RegisterFiles(4096) == nil {
		l.files = 4096
	}
	l.r.Accept(l.lfd, userData(kindAccept, 0))
	for {
		if err := l.r.Enter(1, 0); err != nil {
			panic(err)
		}
		l.r.Completions(l.complete)
	}
}

// listenBlocking opens a listening socket by hand: a net.Listener's fd
// belongs to Go's netpoller, and the ring waits for connections itself.
func listenBlocking(port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1)
	sa := &unix.SockaddrInet4{Port: port, Addr: [4]byte{127, 0, 0, 1}}
	if err := unix.Bind(fd, sa); err != nil {
		return -1, fmt.Errorf("bind 127.0.0.1:%s: %w", strconv.Itoa(port), err)
	}
	return fd, unix.Listen(fd, 1024)
}

func (l *uloop) recv(i int) {
	c := l.conns[i]
	l.r.Recv(l.file(i), c.b.in[c.b.have:], l.pollFirst, userData(kindRx, i))
	c.rxBusy = true
}

func (l *uloop) send(i int) {
	c := l.conns[i]
	l.r.Send(l.file(i), c.sending[c.sent:], userData(kindTx, i))
}

func (l *uloop) file(i int) uring.File {
	if l.conns[i].fixed {
		return uring.Fixed(i)
	}
	return uring.Fd(l.conns[i].fd)
}

// complete handles one completion, queueing what follows.
func (l *uloop) complete(ud uint64, res int32) {
	kind, idx := uring.SplitUserData(ud)
	i := int(idx)
	switch kind {
	case kindAccept:
		l.r.Accept(l.lfd, userData(kindAccept, 0))
		if res >= 0 {
			l.adopt(int(res))
		}
	case kindRx:
		l.received(i, int(res))
	case kindTx:
		l.sentDone(i, int(res))
	}
}

func (l *uloop) adopt(fd int) {
	unix.SetsockoptInt(fd, unix.IPPROTO_TCP, unix.TCP_NODELAY, 1)
	c := &uconn{fd: fd, b: newConnBuf()}
	i := len(l.conns)
	if n := len(l.free); n > 0 {
		i, l.free = l.free[n-1], l.free[:n-1]
		l.conns[i] = c
	} else {
		l.conns = append(l.conns, c)
	}
	c.fixed = i < l.files && l.r.UpdateFile(i, fd) == nil
	l.recv(i)
}

func (l *uloop) received(i, res int) {
	c := l.conns[i]
	c.rxBusy = false
	if res <= 0 || c.closed {
		l.close(i)
		return
	}
	c.b.have += res
	c.b.consume()
	l.recv(i)
	if c.sending == nil && len(c.b.out) > 0 {
		l.startSend(c, i)
	}
}

// startSend hands b.out to the kernel and gives b.out the spare buffer
// (the previous send's, which is done).
func (l *uloop) startSend(c *uconn, i int) {
	next := c.spare
	if next == nil {
		next = make([]byte, 0, cap(c.b.out))
	}
	c.sending, c.sent, c.spare = c.b.out, 0, nil
	c.b.out = next[:0]
	l.send(i)
}

func (l *uloop) sentDone(i, res int) {
	c := l.conns[i]
	if res < 0 || c.closed {
		c.sending = nil
		l.close(i)
		return
	}
	if c.sent += res; c.sent < len(c.sending) {
		l.send(i)
		return
	}
	c.spare, c.sending = c.sending, nil
	if len(c.b.out) > 0 {
		l.startSend(c, i)
	}
}

// close shuts the connection down and closes its fd once nothing of it
// is in flight (the shutdown makes what is in flight complete, and its
// completion calls close again).
func (l *uloop) close(i int) {
	c := l.conns[i]
	if !c.closed {
		c.closed = true
		unix.Shutdown(c.fd, unix.SHUT_RDWR)
	}
	if c.rxBusy || c.sending != nil {
		return
	}
	if c.fixed {
		l.r.UpdateFile(i, -1) // the table's reference to the socket
	}
	unix.Close(c.fd)
	l.conns[i] = nil
	l.free = append(l.free, i)
}
