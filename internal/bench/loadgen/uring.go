package loadgen

import (
	"errors"
	"fmt"
	"runtime"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/wire"
	"github.com/corvid-kv/corvid/internal/netloop"
	"github.com/corvid-kv/corvid/internal/uring"
	"golang.org/x/sys/unix"
)

// The io_uring client engine (--client-io uring, the default where the
// kernel allows). The epoll engine pays,
// per unpipelined request, one write, one read and a share of one
// epoll_pwait2; on 2 cores the load generator then needs about as much CPU
// per request as the server it measures, and a faster server is held back
// by its client. Here every connection keeps one receive in flight, the
// requests a round of completions allows are queued as sends, and one
// io_uring_enter per round submits them all and waits for the next
// completions: the design of corvid-server's own io_uring loops
// (internal/netloop/uring.go). Its CPU per request is measured in
// docs/benchmarks-archive.md ("The load generator on io_uring").
//
// Ownership: the loop's goroutine is locked to its thread (the ring is
// SINGLE_ISSUER) and owns the ring, its connections and their buffers. A
// connection's rbuf[w:] belongs to the kernel while rxBusy, its tx while
// txBusy; a connection being closed is shut down and keeps its slot until
// both operations have completed, so no buffer is reused or dropped while
// the kernel may still write or read it.

// Completion kinds (uring.UserData; the index is the connection's slot).
const (
	urRx uint32 = 1
	urTx uint32 = 2
)

// useURing reports whether the event loops run on io_uring: asked for
// (--client-io uring, or no --client-io) and available here (the kernel,
// the sandbox and the build: under the race detector the loops use epoll,
// whose reads carry race annotations; see internal/netloop's
// sysio_race.go).
func useURing(cfg *options.Config) bool {
	return (cfg.ClientIO == "uring" || cfg.ClientIO == "") && netloop.URingAvailable()
}

// urConn is one connection of an io_uring loop.
type urConn struct {
	c              *client
	fd             int
	slot           uint32
	rbuf           []byte
	r, w           int
	tx             []byte // the window being sent
	txOff          int    // how much of tx the socket has taken
	rxBusy, txBusy bool
	closing        bool
	wake           int64 // rate limiting: when the next request is due (0: not waiting)
}

// urLoop is one client thread on io_uring.
type urLoop struct {
	r     *runner
	ring  *uring.Ring
	conns []*urConn // by slot; nil once closed
	open  int
}

func (l *urLoop) add(c *client, fd int) error {
	l.conns = append(l.conns, &urConn{c: c, fd: fd, slot: uint32(len(l.conns)),
		rbuf: make([]byte, 64<<10), tx: make([]byte, 0, 4<<10)})
	l.open++
	return nil
}

func (l *urLoop) abort() {
	for _, uc := range l.conns {
		if uc != nil {
			uc.c.flushSamples()
			unix.Close(uc.fd)
		}
	}
	l.conns = nil
	l.open = 0
}

// ringSize is the smallest power of two with room for a receive and a
// send per connection.
func ringSize(conns int) uint32 {
	n := uint32(64)
	for n < uint32(2*conns+2) {
		n *= 2
	}
	return n
}

// run is the loop: first windows, then submit and wait, account, refill.
func (l *urLoop) run() {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ring, err := uring.New(ringSize(len(l.conns)))
	if err != nil {
		l.failAll(fmt.Errorf("io_uring: %w", err))
		return
	}
	// A raw wait keeps the loop's P while it sleeps (driveLoops made room).
	ring.Raw = true
	l.ring = ring
	defer ring.Close()
	now := l.r.now()
	for _, uc := range l.conns {
		l.recv(uc)
		l.send(uc, now)
	}
	complete := l.complete // one closure for the whole run
	stopping := false
	for l.open > 0 {
		if !stopping && l.r.ctx.Err() != nil {
			stopping = true
			l.r.stopping.Store(true)
			for _, uc := range l.conns {
				if uc != nil {
					l.close(uc)
				}
			}
			continue
		}
		want, timeout := uint32(1), waitFor(l.r, l.conns)
		if timeout == 0 {
			want = 0 // a request is due: only submit and reap
		}
		if err := ring.Enter(want, time.Duration(timeout)); err != nil {
			// Nothing more can be submitted or reaped: the sockets go,
			// then the ring (the kernel cancels what is in flight).
			l.failAll(fmt.Errorf("io_uring_enter: %w", err))
			return
		}
		ring.Completions(complete)
		sendDue(l.r, l.conns, l.send)
	}
}

// complete handles one completion.
func (l *urLoop) complete(userData uint64, res int32) {
	kind, slot := uring.SplitUserData(userData)
	uc := l.conns[slot]
	if kind == urTx {
		uc.txBusy = false
		switch {
		case uc.closing:
			l.finish(uc)
		case res == -int32(syscall.EINTR) || res == -int32(syscall.EAGAIN):
			l.sendRest(uc)
		case res < 0:
			l.fail(uc, syscall.Errno(-res))
		default:
			if uc.txOff += int(res); uc.txOff < len(uc.tx) {
				partialWrites.Add(1)
				l.sendRest(uc)
			}
		}
		return
	}
	uc.rxBusy = false
	switch {
	case uc.closing:
		l.finish(uc)
		return
	case res == -int32(syscall.EINTR) || res == -int32(syscall.EAGAIN):
		l.recv(uc)
		return
	case res < 0:
		l.fail(uc, syscall.Errno(-res))
		return
	case res == 0:
		l.fail(uc, errors.New("connection closed by server"))
		return
	}
	at := l.r.now()
	uc.w += int(res)
	var done uint64
	var err error
	if uc.r, done, err = uc.c.account(uc.rbuf, uc.r, uc.w, at); err != nil {
		l.fail(uc, err)
		return
	}
	if err := l.recv(uc); err != nil {
		l.fail(uc, err)
		return
	}
	if done > 0 {
		l.send(uc, at)
	}
}

// recv queues the connection's next receive, compacting or growing its
// buffer first.
func (l *urLoop) recv(uc *urConn) error {
	var err error
	uc.rbuf, uc.w, err = wire.MakeRoom(uc.rbuf, uc.r, uc.w)
	uc.r = 0
	if err != nil {
		return err
	}
	// Poll first: the receive is queued with (or right after) the request
	// whose reply it waits for, which cannot have arrived yet, so an
	// immediate attempt would only fail (docs/benchmarks.md, session 11).
	l.ring.Recv(uring.Fd(uc.fd), uc.rbuf[uc.w:], true, uring.UserData(urRx, uc.slot))
	uc.rxBusy = true
	return nil
}

// send fills the connection's window and queues it; a connection with
// nothing in flight and nothing more to send is closed.
func (l *urLoop) send(uc *urConn, now int64) {
	if uc.txBusy || uc.closing {
		return // the last window is still being sent: its replies refill
	}
	var done bool
	uc.tx, uc.wake, done = uc.c.window(uc.tx[:0], now)
	switch {
	case len(uc.tx) > 0:
		uc.txOff = 0
		l.sendRest(uc)
	case done:
		l.close(uc)
	}
}

// sendRest queues what the socket has not taken of the window.
func (l *urLoop) sendRest(uc *urConn) {
	l.ring.Send(uring.Fd(uc.fd), uc.tx[uc.txOff:], uring.UserData(urTx, uc.slot))
	uc.txBusy = true
}

func (l *urLoop) fail(uc *urConn, err error) {
	uc.c.fail(err)
	l.close(uc)
}

// failAll fails every connection still open and closes its socket, in
// flight or not: for when the ring is unusable (and about to be closed).
func (l *urLoop) failAll(err error) {
	for _, uc := range l.conns {
		if uc != nil {
			uc.c.fail(err)
			uc.rxBusy, uc.txBusy = false, false
			uc.closing = true
			l.finish(uc)
		}
	}
}

// close ends a connection: its samples are flushed, and the socket is shut
// down so that what is in flight completes at once; finish closes it then.
func (l *urLoop) close(uc *urConn) {
	if uc.closing {
		return
	}
	uc.closing = true
	uc.wake = 0
	uc.c.flushSamples()
	if uc.rxBusy || uc.txBusy {
		unix.Shutdown(uc.fd, unix.SHUT_RDWR)
	}
	l.finish(uc)
}

// finish closes the socket of a closing connection once nothing of it is
// in flight.
func (l *urLoop) finish(uc *urConn) {
	if uc.rxBusy || uc.txBusy || uc.fd < 0 {
		return
	}
	unix.Close(uc.fd)
	uc.fd = -1
	l.conns[uc.slot] = nil
	l.open--
}
