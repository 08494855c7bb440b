package netloop

import (
	"errors"
	"net"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
	_ "unsafe" // go:linkname

	"golang.org/x/sys/unix"

	"github.com/corvid-kv/corvid/internal/uring"
)

// Handler receives a connection's events on its loop.
type Handler interface {
	// OnReadable runs on the loop when the socket is readable or hung up.
	// It should Read once (the loop reports the socket again while data
	// remains), process, and Write the replies.
	OnReadable(c *Conn)
	// OnClose runs once, on the owner's goroutine, after the fd is closed.
	OnClose(c *Conn)
}

// Ticker is implemented by handlers that want OnTick on every tick of
// Options.Tick while attached (idle timeouts).
type Ticker interface {
	OnTick(c *Conn, now time.Time)
}

// Options configures an Engine.
type Options struct {
	Loops int           // event loops; at least 1
	Tick  time.Duration // period of OnTick calls; 0 for none
	// RawWait makes each loop sleep in epoll_wait without telling Go's
	// scheduler (a raw syscall): the loop keeps its P while it sleeps, so
	// there is no P hand-off, no sysmon retake and no thread switch per
	// wake-up. It is ignored unless GOMAXPROCS exceeds Loops, because the
	// other goroutines (accept, expiry, detached clients) need a P of
	// their own. A signal (the runtime's preemption request, e.g. for a GC
	// stop-the-world) interrupts the raw wait with EINTR, and the loop then
	// waits once through the scheduler so that the request is honoured.
	RawWait bool
	// DeferWrite makes Write on an attached connection collect the reply,
	// and the loop write every collected reply once it has handled all the
	// events of one epoll_wait: Redis's order (read and run everything
	// ready, then write). Writing at once instead wakes each client while
	// the loop still has other sockets to read, and on a busy machine the
	// woken client preempts the loop once per connection rather than once
	// per round (docs/benchmarks-archive.md, "Deferred writes").
	DeferWrite bool
	// BeforeFlush, if set, runs on each loop at the end of every round,
	// before the round's deferred writes (Valkey's beforeSleep, where the
	// AOF is written and fsynced before any reply of the round is sent).
	BeforeFlush func()
	// LockThread locks each loop goroutine to its own OS thread
	// (runtime.LockOSThread). Unlocked, a loop that sleeps in raw epoll
	// waits still leaves its thread whenever the runtime preempts it (every
	// 10 ms of apparent running, and the EINTR fallback), so its work is
	// spread over several threads, none of which the kernel sees as the
	// busy one, and the clients its writes wake preempt it far more often
	// when the server runs in a scheduling group of its own
	// (docs/benchmarks-archive.md, "Scheduling groups").
	LockThread bool
	// URing runs each loop on an io_uring instead of epoll (uring.go):
	// one receive in flight per connection, each round's sends queued,
	// one io_uring_enter per round. It implies LockThread and DeferWrite.
	// Where io_uring is missing (kernels before 6.1, sandboxes that
	// refuse it) the engine uses epoll; Engine.URing tells which.
	URing bool
}

// Engine is a set of event loops.
type Engine struct {
	loops       []*loop
	next        atomic.Uint32
	wg          sync.WaitGroup
	tick        time.Duration
	rawWait     bool
	deferWrite  bool // Options.DeferWrite
	beforeFlush func()
	lockThread  bool
	uring       bool // Options.URing, and the kernel has it
}

// loop owns an epoll instance and the connections attached to it.
type loop struct {
	e    *Engine
	epfd int
	efd  int // eventfd: the inbox has work or the engine is closing

	mu      sync.Mutex
	inbox   []*Conn // connections to attach; under mu
	wakes   []*Conn // connections woken (Conn.Wake); under mu
	closing bool    // under mu

	conns   []*Conn // indexed by fd; owned by the loop goroutine
	events  []unix.EpollEvent
	pending []*Conn // DeferWrite: connections with collected replies
	// localWakes: connections woken from this loop's own goroutine
	// (WakeOnLoop), run at the end of the round; owned by the loop.
	localWakes []*Conn
	wakeSpare  []*Conn
	againq     []*Conn // Conn.Again: handlers to run next round
	againx     []*Conn // the other half of againq's double buffer

	// io_uring backend (uring.go); owned by the loop goroutine.
	ring      *uring.Ring
	slots     []*Conn // by Conn.slot: the connection a completion names
	rxp       *rxPool // the receive buffers the kernel picks from (uring.go)
	freeSlots []int32
	files     int     // slots of the ring's registered file table (0: none)
	ready     []*Conn // received bytes left unread by their handler
	rxRetry   []*Conn // receives that found the pool empty, to try again
	readyNext []*Conn
	efdBuf    [8]byte // the inbox eventfd's pending read lands here

	// The round's wall clock (Conn.RoundMillis), read at its first use
	// in a round; owned by the loop goroutine.
	nowMs int64
	nowOK bool
}

// ErrWouldBlock is returned by Read when the socket has no data.
var ErrWouldBlock = errors.New("netloop: read would block")

// New starts an engine with opts.Loops loops.
func New(opts Options) (*Engine, error) {
	e := &Engine{tick: opts.Tick, rawWait: opts.RawWait && runtime.GOMAXPROCS(0) > max(1, opts.Loops), deferWrite: opts.DeferWrite, lockThread: opts.LockThread, beforeFlush: opts.BeforeFlush}
	if opts.URing && URingAvailable() {
		e.uring, e.lockThread, e.deferWrite = true, true, true
	}
	for range max(1, opts.Loops) {
		l, err := newLoop(e)
		if err != nil {
			e.Close()
			return nil, err
		}
		e.loops = append(e.loops, l)
	}
	if e.rawWait {
		rawLoops.Add(int32(len(e.loops)))
	}
	for _, l := range e.loops {
		e.wg.Add(1)
		go l.run()
	}
	return e, nil
}

// rawLoops counts the loops of open engines that wait with raw syscalls.
var rawLoops atomic.Int32

// RawLoops is the number of loops in this process that keep their P while
// they sleep: another component that wants raw waits of its own (the load
// generator with an embedded server) must leave Ps for them.
func RawLoops() int { return int(rawLoops.Load()) }

func newLoop(e *Engine) (*loop, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, err
	}
	efd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
	if err != nil {
		unix.Close(epfd)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: int32(efd)}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, efd, &ev); err != nil {
		unix.Close(epfd)
		unix.Close(efd)
		return nil, err
	}
	return &loop{e: e, epfd: epfd, efd: efd, events: make([]unix.EpollEvent, 256)}, nil
}

// Loops is the number of event loops.
func (e *Engine) Loops() int { return len(e.loops) }

// URing reports whether the loops run on io_uring (Options.URing).
func (e *Engine) URing() bool { return e.uring }

// RawWait reports whether the loops wait with raw syscalls (Options.RawWait
// and enough Ps).
func (e *Engine) RawWait() bool { return e.rawWait }

// Close stops the loops. Connections still attached are closed (their
// OnClose runs); the caller should have ended its connections first.
func (e *Engine) Close() {
	for _, l := range e.loops {
		l.mu.Lock()
		l.closing = true
		l.mu.Unlock()
		l.wake()
	}
	e.wg.Wait()
	if e.rawWait {
		rawLoops.Add(-int32(len(e.loops)))
	}
}

// TakeConn moves a TCP connection out of Go's netpoller and returns its
// socket as a non-blocking fd with TCP_NODELAY, ready for Register: it
// duplicates the fd and closes c. c's addresses stay readable.
func TakeConn(c *net.TCPConn) (int, error) {
	c.SetNoDelay(true)
	raw, err := c.SyscallConn()
	if err != nil {
		c.Close()
		return -1, err
	}
	fd := -1
	var derr error
	cerr := raw.Control(func(s uintptr) {
		fd, derr = unix.FcntlInt(s, unix.F_DUPFD_CLOEXEC, 0)
	})
	c.Close()
	if cerr != nil {
		return -1, cerr
	}
	if derr != nil {
		return -1, derr
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// Register wraps fd (non-blocking, owned from now on by the Conn) for h and
// assigns it a loop round-robin. The Conn is detached, owned by the caller,
// until Attach.
func (e *Engine) Register(fd int, h Handler) *Conn {
	l := e.loops[int(e.next.Add(1)-1)%len(e.loops)]
	c := &Conn{l: l, h: h, sysfd: fd, slot: -1}
	c.mu.fd = fd
	return c
}

func (l *loop) wake() {
	one := uint64(1)
	unix.Write(l.efd, (*[8]byte)(unsafe.Pointer(&one))[:])
}

// run is the loop goroutine.
func (l *loop) run() {
	defer l.e.wg.Done()
	defer l.shutdown()
	if l.e.lockThread {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
	}
	if l.e.uring {
		l.runURing()
		return
	}
	events := l.events
	// The tick is kept on the monotonic clock, read once per iteration
	// (time.Now reads the wall clock too, twice per iteration before).
	tick := int64(l.e.tick)
	var nextTick, now int64
	if tick > 0 {
		now = nanotime()
		nextTick = now + tick
	}
	for {
		timeout := -1
		if tick > 0 {
			timeout = max(0, int((nextTick-now)/int64(time.Millisecond))+1)
		}
		if len(l.againq) > 0 {
			timeout = 0 // handlers wait to run again: only poll
		}
		again := l.againq
		l.againq = l.againx[:0]
		n, err := l.wait(timeout)
		l.nowOK = false
		if err != nil && err != unix.EINTR {
			panic("netloop: epoll_wait: " + err.Error())
		}
		for i := 0; i < n; i++ {
			fd := int(events[i].Fd)
			if fd == l.efd {
				if !l.takeInbox() {
					return
				}
				continue
			}
			if fd >= len(l.conns) || l.conns[fd] == nil {
				continue
			}
			l.handle(l.conns[fd])
		}
		l.runAgain(again)
		l.againx = again[:0]
		l.endRound(tick, &now, &nextTick)
	}
}

// endRound ends a round of either backend: the tick when it is due
// (reading the clock once into *now), then the round's deferred writes,
// after the tick too, so that nothing a handler wrote waits for the next
// wake-up.
func (l *loop) endRound(tick int64, now, nextTick *int64) {
	if tick > 0 {
		if *now = nanotime(); *now >= *nextTick {
			l.tickAll(time.Now())
			*nextTick = *now + tick
		}
	}
	for {
		for len(l.localWakes) > 0 {
			// An OnWake may wake others on this loop: until none is left.
			ws := l.localWakes
			l.localWakes = l.wakeSpare[:0]
			for i, c := range ws {
				l.deliverWake(c)
				ws[i] = nil
			}
			l.wakeSpare = ws[:0]
		}
		if l.e.beforeFlush != nil {
			l.e.beforeFlush()
		}
		if len(l.pending) > 0 {
			l.flushPending()
		}
		if len(l.localWakes) == 0 {
			return
		}
		// A write took everything a WakeWhenSent waited for: its next
		// piece goes out in this round too.
	}
}

//go:linkname nanotime runtime.nanotime
func nanotime() int64

// The raw waits use epoll_pwait with a nil signal mask, which is
// epoll_wait: arm64 (Graviton, the seed study's r8g) has no epoll_wait
// system call at all.

// wait waits for events (see Options.RawWait).
func (l *loop) wait(timeout int) (int, error) {
	if l.e.rawWait {
		r, _, e := syscall.RawSyscall6(syscall.SYS_EPOLL_PWAIT, uintptr(l.epfd),
			uintptr(unsafe.Pointer(&l.events[0])), uintptr(len(l.events)), uintptr(timeout), 0, 0)
		if e == 0 {
			return int(r), nil
		}
		if e != syscall.EINTR {
			return 0, e
		}
		// Most likely a preemption request: wait through the scheduler,
		// which lets a stop-the-world proceed while this loop sleeps.
	}
	return unix.EpollWait(l.epfd, l.events, timeout)
}

// takeInbox attaches the queued connections; false means the engine is
// closing.
func (l *loop) takeInbox() bool {
	var buf [8]byte
	unix.Read(l.efd, buf[:])
	l.mu.Lock()
	in, wakes, closing := l.inbox, l.wakes, l.closing
	l.inbox, l.wakes = nil, nil
	l.mu.Unlock()
	for _, c := range in {
		l.add(c)
	}
	for _, c := range wakes {
		l.deliverWake(c)
	}
	return !closing
}

// deliverWake runs OnWake for c if it is attached (else add does, when
// it is attached again).
func (l *loop) deliverWake(c *Conn) {
	if !c.attached || c.sysfd < 0 || !c.wakePending.Load() {
		return
	}
	c.wakePending.Store(false)
	if w, ok := c.h.(Waker); ok {
		w.OnWake(c)
	}
}

// add registers c with the loop's epoll instance.
func (l *loop) add(c *Conn) {
	fd := c.sysfd
	if fd < 0 {
		c.Close() // shut down while it was being handed over
		return
	}
	if c.codecBuffered() {
		// Input its codec holds (a TLS handshake's leftover, or what a
		// detached owner opened and did not read): run the handler
		// without waiting for the socket.
		c.again = true
		if !l.e.uring { // on a ring, addURing's rearm queues it
			l.againq = append(l.againq, c)
		}
	}
	if l.e.uring {
		l.addURing(c)
	} else {
		for fd >= len(l.conns) {
			l.conns = append(l.conns, make([]*Conn, max(64, len(l.conns)))...)
		}
		l.conns[fd] = c
		c.attached = true
		ev := unix.EpollEvent{Events: c.interest(), Fd: int32(fd)}
		if err := unix.EpollCtl(l.epfd, unix.EPOLL_CTL_ADD, fd, &ev); err != nil {
			c.Close()
			return
		}
	}
	l.deliverWake(c) // woken while it was detached
}

// runAgain runs the handlers that asked for it (Conn.Again) in the
// previous round and whose output has all gone; one still writing runs
// when it drains (handle).
func (l *loop) runAgain(q []*Conn) {
	for i, c := range q {
		q[i] = nil
		if c.again && c.attached && c.sysfd >= 0 && !c.wantOut {
			l.handle(c)
		}
	}
}

// handle dispatches one ready connection.
func (l *loop) handle(c *Conn) {
	if c.wantOut {
		if err := c.drain(); err != nil {
			c.Close()
			return
		}
		if c.wantOut {
			return
		}
		if c.closeWhenFlushed {
			c.Close()
			return
		}
		if c.backlogged {
			c.drained()
		}
		c.sentWake()
		c.setInterest()
		if !c.again || c.sysfd < 0 {
			return // EPOLLIN is level-triggered: the next wait reports input
		}
	}
	c.again = false
	c.h.OnReadable(c)
	if c.detachFn != nil {
		if c.deferred {
			// The new owner writes with writeBlocking, which starts
			// with whatever flushDeferred leaves in c.out.
			c.flushDeferred()
		}
		fn := c.detachFn
		c.detachFn = nil
		l.remove(c)
		go fn()
	}
}

// flushPending writes the replies collected under DeferWrite.
func (l *loop) flushPending() {
	for i, c := range l.pending {
		l.pending[i] = nil
		if c.deferred {
			c.flushDeferred()
		}
	}
	l.pending = l.pending[:0]
}

// remove takes c out of the epoll set and the table (detach).
func (l *loop) remove(c *Conn) {
	if l.e.uring {
		l.unfix(c)
		c.attached = false
		l.giveRx(c) // unread input moves to a buffer of its own
		l.retire(c)
		return
	}
	fd := c.sysfd
	unix.EpollCtl(l.epfd, unix.EPOLL_CTL_DEL, fd, nil)
	if fd >= 0 && fd < len(l.conns) && l.conns[fd] == c {
		l.conns[fd] = nil
	}
	c.attached = false
}

func (l *loop) tickAll(now time.Time) {
	for _, c := range l.table() {
		if c == nil || !c.attached {
			continue
		}
		if t, ok := c.h.(Ticker); ok {
			t.OnTick(c, now)
		}
	}
}

// shutdown closes what is left when the engine closes.
func (l *loop) shutdown() {
	for _, c := range l.table() {
		if c != nil && c.attached {
			c.Close()
		}
	}
	l.mu.Lock()
	in := l.inbox
	l.inbox = nil
	l.mu.Unlock()
	for _, c := range in {
		c.Close()
	}
	if l.ring != nil {
		l.drainRing()
	}
	unix.Close(l.epfd)
	unix.Close(l.efd)
}

// table is the loop's connection table: by fd on epoll, by slot on a
// ring (where it also holds closed connections with operations in flight).
func (l *loop) table() []*Conn {
	if l.e.uring {
		return l.slots
	}
	return l.conns
}
