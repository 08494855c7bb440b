package netloop

import (
	"io"
	"sync"
	"syscall"
	"time"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/uring"
)

// The io_uring backend (Options.URing). Instead of epoll_wait, then one
// read and one write per ready connection, a loop keeps one receive in
// flight per attached connection and queues each round's sends; a single
// io_uring_enter per round submits them all and waits for the next
// completions. Measured on the seed's unpipelined load (bench/netpath.sh;
// docs/benchmarks.md, "Network path: io_uring, epoll, event loops") the
// null server spent ~0.65x the CPU per request of its epoll loop (at
// pipeline 16 the two are equal), and corvid-server 0.85-0.89x.
//
// The Handler API is unchanged: a completed receive lands in the Conn's rx
// buffer, OnReadable's Read copies from it (ErrWouldBlock once it is
// empty), and the loop queues the next receive after OnReadable returns,
// so no receive is in flight while a handler runs. Writes are always
// deferred to the end of the round (Options.DeferWrite's order).
//
// Ownership of buffers: rx belongs to the kernel while rxBusy, tx while
// txBusy; the Conn keeps both reachable until their completions, and the
// loop keeps the Conn in its slot table until then, even after Close
// (retire frees the slot). Detaching waits for a send in flight, so a
// detached owner never races the kernel for the socket's output; no
// receive is in flight when a handler asks to detach.
//
// Back-pressure: a send completes within the round's io_uring_enter
// whenever the socket takes it; one still in flight afterwards means the
// socket is full, and the connection's input is paused (no receive
// queued) until it completes, as EPOLLOUT does on the epoll path.

// fixedFilesMax bounds a ring's registered file table (8 bytes a slot in
// the kernel); a variable for tests.
var fixedFilesMax = 1 << 15

const (
	ringEntries = 1024
	// A receive is always in flight for every attached connection. It
	// names no buffer: the kernel takes one of the loop's pool (rxPool)
	// when data arrives, and the loop gives it back once the handler has
	// read it, so a connection waiting for its next request holds no
	// receive buffer (an idle client costs what Valkey's does: issue 32).
	// A connection whose receive filled a pool buffer (a pipeline, a large
	// value) receives into a buffer of its own instead, starting at twice
	// the pool's size and doubling, up to rxMax, each time a receive fills
	// it, until a receive does not fill it; so does one that found the
	// pool empty (ENOBUFS) rxRetries times in a row (each time it tries
	// the pool again after the round: complete), starting at rxMin, and
	// every connection where the kernel refuses provided buffers.
	rxMin     = 4 << 10
	rxMax     = 64 << 10
	rxRetries = 8
	// The pool: rxPoolBufs buffers of rxPoolBuf bytes per loop, the most a
	// handler reads at once (resp.DefaultReadChunk). A buffer is out from
	// its receive's completion until the handler has read it, normally
	// within the round.
	rxPoolBufs        = 128
	rxPoolBuf         = 16 << 10
	rxGroup    uint16 = 1

	// Completion kinds (uring.UserData).
	kindInbox   uint32 = 0
	kindRx      uint32 = 1
	kindTx      uint32 = 2
	kindProvide uint32 = 3
)

// rxPool is a loop's receive buffers, provided to the kernel as group
// rxGroup (IORING_OP_PROVIDE_BUFFERS). Loop only.
type rxPool struct {
	mem []byte // rxPoolBufs buffers of rxPoolBuf bytes
	off bool   // the kernel refused them: connections receive into their own
}

// newRxPool provides the loop's pool to its ring.
func (l *loop) newRxPool() {
	p := &rxPool{mem: make([]byte, rxPoolBufs*rxPoolBuf)}
	l.rxp = p
	l.ring.ProvideBuffers(p.mem, rxPoolBuf, rxPoolBufs, rxGroup, 0, ud(kindProvide, 0))
}

// id returns the pool buffer b is, or -1 if b is not one.
func (p *rxPool) id(b []byte) int {
	if p == nil || cap(b) == 0 {
		return -1
	}
	off := uintptr(unsafe.Pointer(unsafe.SliceData(b))) - uintptr(unsafe.Pointer(unsafe.SliceData(p.mem)))
	if off >= uintptr(len(p.mem)) {
		return -1
	}
	return int(off / rxPoolBuf)
}

// giveRx gives the pool buffer c.rx back to the kernel, first moving
// bytes the handler has not read yet into a buffer of c's own (a
// connection leaving the loop). It reports whether c.rx was one.
func (l *loop) giveRx(c *Conn) bool {
	id := l.rxp.id(c.rx)
	if id < 0 {
		return false
	}
	var rest []byte
	if c.rxEnd > c.rxOff {
		rest = append(rest, c.rx[c.rxOff:c.rxEnd]...)
	}
	c.rx, c.rxOff, c.rxEnd = rest, 0, len(rest)
	l.ring.ProvideBuffers(l.rxp.mem[id*rxPoolBuf:(id+1)*rxPoolBuf], rxPoolBuf, 1, rxGroup, id, ud(kindProvide, 0))
	return true
}

// URingAvailable reports whether this kernel (and sandbox: container
// seccomp profiles often refuse io_uring) and build (not under the race
// detector) can run the io_uring backend. The probe runs once.
func URingAvailable() bool { return uringProbe() }

var uringProbe = sync.OnceValue(func() bool {
	if !uringBuild {
		return false
	}
	r, err := uring.New(ringEntries) // the size the loops will ask for
	if err != nil {
		return false
	}
	r.Close()
	return true
})

func ud(kind uint32, slot int32) uint64 { return uring.UserData(kind, uint32(slot)) }

// runURing is run's io_uring counterpart (the loop's thread is locked).
func (l *loop) runURing() {
	r, err := uring.New(ringEntries)
	if err != nil {
		panic("netloop: io_uring: " + err.Error())
	}
	r.Raw = l.e.rawWait
	l.ring = r
	if n := fixedFiles(); r.RegisterFiles(n) == nil {
		l.files = n
	}
	l.newRxPool()
	l.ring.Read(l.efd, l.efdBuf[:], ud(kindInbox, 0))
	// The tick is kept on the monotonic clock, read once per round, as
	// run does.
	tick := int64(l.e.tick)
	var nextTick, now int64
	if tick > 0 {
		now = nanotime()
		nextTick = now + tick
	}
	for {
		want, timeout := uint32(1), time.Duration(0)
		// Handlers that asked to run again (Conn.Again) run in the next
		// round, after this one's sends: captured before the
		// completions, which may queue more for the round after.
		again := l.againq
		l.againq = l.againx[:0]
		if len(l.ready) > 0 || len(again) > 0 {
			want = 0
		} else if tick > 0 {
			timeout = time.Duration(max(1000, nextTick-now))
		}
		if err := r.Enter(want, timeout); err != nil {
			panic("netloop: io_uring_enter: " + err.Error())
		}
		l.nowOK = false
		open := true
		r.CompletionsFlags(func(userData uint64, res int32, flags uint32) {
			if !l.complete(userData, res, flags) {
				open = false
			}
		})
		if !open {
			return
		}
		// Connections with received bytes their handler has not read
		// yet (its buffer was smaller), or attached with some.
		ready := l.ready
		l.ready = l.readyNext[:0]
		for i, c := range ready {
			ready[i] = nil
			switch {
			case !c.attached:
			case c.txBusy:
				c.paused = true // complete runs it once the send is done
			default:
				l.onData(c)
			}
		}
		l.readyNext = ready[:0]
		for i, c := range again {
			again[i] = nil
			switch {
			case !c.attached || !c.again:
			case c.txBusy:
				c.paused = true // complete rearms it once the send is done
			default:
				l.onData(c)
			}
		}
		l.againx = again[:0]
		// Receives that found the pool empty, on the pool again (after
		// this round's handlers, which gave their buffers back).
		for i, c := range l.rxRetry {
			l.rxRetry[i] = nil
			switch {
			case !c.attached || c.sysfd < 0 || c.rxBusy || c.closeWhenFlushed || c.detachFn != nil:
				// Closed, detached (Attach arms a receive), or receiving.
			case c.txBusy:
				c.paused = true // complete rearms it once the send is done
			default:
				l.rearm(c)
			}
		}
		l.rxRetry = l.rxRetry[:0]
		l.endRound(tick, &now, &nextTick)
	}
}

// complete handles one completion; false means the engine is closing.
func (l *loop) complete(userData uint64, res int32, flags uint32) bool {
	kind, slot := uring.SplitUserData(userData)
	switch kind {
	case kindInbox:
		if !l.takeInbox() {
			return false
		}
		l.ring.Read(l.efd, l.efdBuf[:], ud(kindInbox, 0))
		return true
	case kindProvide:
		if res < 0 {
			l.rxp.off = true // receives that find no buffer go private
		}
		return true
	}
	c := l.slots[slot]
	switch kind {
	case kindRx:
		c.rxBusy = false
		if flags&uring.CQEBuffer != 0 {
			id := int(flags >> uring.CQEBufferShift)
			c.rx = l.rxp.mem[id*rxPoolBuf : (id+1)*rxPoolBuf : (id+1)*rxPoolBuf]
		}
		if c.sysfd < 0 {
			l.giveRx(c)
			l.retire(c)
			return true
		}
		switch {
		case res > 0:
			c.rxOff, c.rxEnd = 0, int(res)
			c.rxFull = int(res) == len(c.rx)
			c.rxRetry = 0
		case res == -int32(syscall.ENOBUFS):
			// The pool is out (more connections' input at once than it
			// has buffers; the kernel takes the buffer as it issues the
			// receive, data or not). The receive is tried on the pool
			// again at the end of the round, once the handlers have
			// given theirs back: a connection whose request was read
			// already then waits for its next one holding no buffer.
			// (Receiving into its own at once left a few hundred of
			// 10,000 connections opened together idle with 4 KiB each,
			// for good: issue 32; trying again once still left ~250.)
			// One that finds the pool empty rxRetries times in a row
			// receives into its own.
			if c.rxRetry < rxRetries {
				c.rxRetry++
				l.rxRetry = append(l.rxRetry, c)
				return true
			}
			c.rxRetry = 0
			c.rxFull = true
			l.rearm(c)
			return true
		case res == 0:
			c.rxErr = io.EOF
		default:
			c.rxErr = syscall.Errno(-res)
		}
		l.onData(c)
	case kindTx:
		c.txBusy = false
		if c.sysfd < 0 {
			c.tx = nil
			l.retire(c)
			return true
		}
		if res < 0 {
			c.tx = nil
			c.Close()
			return true
		}
		if c.txSent += int(res); c.txSent < len(c.tx) {
			c.backlogged = true // the socket is full: a partial send
			l.queueSend(c)
			return true
		}
		if len(c.q) > 0 && cap(c.tx) <= sendGather {
			c.spare = c.tx[:0] // the next gathered send's buffer
		} else if c.keep(c.tx) {
			if len(c.pend) == 0 && cap(c.pend) < cap(c.tx) {
				// A burst's piece (Again): the next one goes straight
				// into this buffer instead of a fresh one.
				c.pend, c.spare = c.tx[:0], c.pend[:0]
			} else {
				c.spare = c.tx[:0]
			}
		} else if len(c.pend) == 0 && !c.keep(c.pend) {
			c.pend = nil // a burst is over: give its buffer back
		}
		c.tx = nil
		if c.backlogged && len(c.pend) == 0 && len(c.q) == 0 && !c.closeWhenFlushed {
			c.drained()
		}
		c.sentWake()
		switch {
		case len(c.pend) > 0 || len(c.q) > 0:
			l.startSend(c)
		case c.closeWhenFlushed:
			c.Close()
		case c.detachFn != nil:
			l.detach(c)
		case c.paused:
			c.paused = false
			l.rearm(c)
		}
	}
	return true
}

// onData runs the handler for received bytes (or the end of input) and
// decides what the connection waits for next.
func (l *loop) onData(c *Conn) {
	c.again = false
	c.h.OnReadable(c)
	switch {
	case c.sysfd < 0:
		l.retire(c)
	case c.detachFn != nil:
		if !c.txBusy {
			l.detach(c)
		} // else complete detaches it once the send in flight is done
	case c.closeWhenFlushed:
		// No more input; complete closes it after the last send.
	default:
		l.rearm(c)
	}
}

// rearm queues the next receive, or the handler again if it left bytes
// unread; while a send is in flight the input stays paused.
func (l *loop) rearm(c *Conn) {
	switch {
	case c.txBusy:
		c.paused = true
	case c.again:
		l.againq = append(l.againq, c)
	case c.rxEnd > c.rxOff:
		l.ready = append(l.ready, c)
	case c.rxErr != nil:
		c.Close() // the handler ignored the end of its input
	default:
		last := len(c.rx)
		l.giveRx(c)
		if l.rxp != nil && !l.rxp.off && !c.rxFull {
			c.rx = nil // a buffer of its own that the last receive did not fill
			c.rxBusy = true
			l.ring.RecvSelect(c.file(), rxPoolBuf, rxGroup, ud(kindRx, c.slot))
			return
		}
		switch {
		case c.rx == nil:
			c.rx = make([]byte, min(rxMax, max(rxMin, 2*last)))
		case c.rxFull && len(c.rx) < rxMax:
			c.rx = make([]byte, 2*len(c.rx))
		}
		c.rxFull = false
		c.rxBusy = true
		// Not poll-first (uring.Ring.Recv): though the client has
		// usually not sent its next request yet, skipping the first
		// attempt measured no cheaper here (4.89 against 4.88 us per
		// request; the null server 4.25 against 4.56; docs/benchmarks.md).
		l.ring.Recv(c.file(), c.rx, false, ud(kindRx, c.slot))
	}
}

// startSend hands the collected replies to the kernel.
func (l *loop) startSend(c *Conn) {
	if len(c.q) > 0 {
		// Blocks (WriteBlocks), the round's later replies (pend) after
		// them: a large block goes in a send of its own, as it is;
		// smaller ones are gathered into one send of up to sendGather
		// bytes (a buffer kept while blocks remain), so a batch of a few
		// blocks is not one ring round per block.
		if len(c.pend) > 0 {
			c.pushBlock(c.pend)
			c.pend = nil
		}
		if len(c.q) == 1 || len(c.q[0])+len(c.q[1]) > sendGather {
			c.tx = c.popBlock()
		} else {
			n := 0
			for _, x := range c.q {
				if n+len(x) > sendGather {
					break
				}
				n += len(x)
			}
			b := c.spare[:0]
			if cap(b) < n {
				b = make([]byte, 0, n)
			}
			c.spare = nil
			for len(b) < n {
				b = append(b, c.popBlock()...)
			}
			c.tx = b
		}
		c.txSent = 0
		l.queueSend(c)
		return
	}
	next := c.spare
	if !c.keep(next) {
		next = nil
	}
	c.tx, c.txSent, c.spare = c.pend, 0, nil
	c.pend = next
	l.queueSend(c)
}

// sendGather bounds a send that gathers blocks (startSend).
const sendGather = 1 << 20

func (l *loop) queueSend(c *Conn) {
	c.txBusy = true
	l.ring.Send(c.file(), c.tx[c.txSent:], ud(kindTx, c.slot))
}

// flushURing is flushDeferred on a ring: the round's replies go out with
// the next io_uring_enter, or after the send in flight.
func (c *Conn) flushURing() {
	c.deferred = false
	if c.sysfd < 0 || c.txBusy || len(c.pend) == 0 && len(c.q) == 0 {
		return
	}
	c.l.startSend(c)
}

// detach hands c to the goroutine Detach named (no operation in flight):
// the replies not yet sent become the new owner's pending output.
func (l *loop) detach(c *Conn) {
	if len(c.q) > 0 {
		c.pushBlock(c.pend) // after the blocks; writeBlocking sends q
		c.pend = nil
	} else {
		c.out = append(c.out, c.pend...)
		c.pend = c.pend[:0]
	}
	c.deferred = false
	fn := c.detachFn
	c.detachFn = nil
	l.remove(c)
	go fn()
}

// addURing attaches c: a slot for its completions, then its first receive
// (or its handler, if bytes read before it left are still unread).
func (l *loop) addURing(c *Conn) {
	if l.rxp.id(c.rx) >= 0 {
		panic("netloop: a connection attached with a pool buffer")
	}
	if n := len(l.freeSlots); n > 0 {
		c.slot, l.freeSlots = l.freeSlots[n-1], l.freeSlots[:n-1]
		l.slots[c.slot] = c
	} else {
		c.slot = int32(len(l.slots))
		l.slots = append(l.slots, c)
	}
	c.attached = true
	c.paused = false
	c.fixed = int(c.slot) < l.files && l.ring.UpdateFile(int(c.slot), c.sysfd) == nil
	l.rearm(c)
}

// unfix empties c's slot of the ring's file table, which holds a
// reference to the socket of its own: a closed descriptor's socket stays
// open (the peer sees no end) until its slot is emptied. Operations in
// flight keep the file until they complete; ones queued but not yet
// submitted fail with EBADF, as on a closed descriptor.
func (l *loop) unfix(c *Conn) {
	if c.fixed {
		l.ring.UpdateFile(int(c.slot), -1)
		c.fixed = false
	}
}

// file names c's socket in its receives and sends: its slot of the
// ring's file table when it has one, which spares the kernel a lookup
// of the descriptor and a reference taken and dropped on every operation
// (fget and fput, 1.3% of the server's CPU in an unpipelined GET
// profile; docs/benchmarks.md).
func (c *Conn) file() uring.File {
	if c.fixed {
		return uring.Fixed(int(c.slot))
	}
	return uring.Fd(c.sysfd)
}

// fixedFiles is the size of each ring's registered file table: one slot
// per connection slot, up to the descriptor limit the kernel enforces for
// the table (RLIMIT_NOFILE) and at most fixedFilesMax; connections in
// slots beyond it use their descriptors.
func fixedFiles() int {
	var lim syscall.Rlimit
	n := fixedFilesMax
	if syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim) == nil && lim.Cur < uint64(n) {
		n = int(lim.Cur)
	}
	return n
}

// retire frees c's slot once nothing of it is in flight (after Close or
// detach).
func (l *loop) retire(c *Conn) {
	if c.slot < 0 || c.rxBusy || c.txBusy || l.slots[c.slot] != c {
		return
	}
	l.slots[c.slot] = nil
	l.freeSlots = append(l.freeSlots, c.slot)
	c.slot = -1
}

// drainRing waits (briefly) for the completions of operations still in
// flight when the engine closes, so the kernel is done with their buffers
// before the ring goes; shutdown has shut every socket down.
func (l *loop) drainRing() {
	busy := func() bool {
		for _, c := range l.slots {
			if c != nil && (c.rxBusy || c.txBusy) {
				return true
			}
		}
		return false
	}
	for i := 0; i < 100 && busy(); i++ {
		l.ring.Enter(1, 10*time.Millisecond)
		l.ring.Completions(func(userData uint64, res int32) {
			if kind, slot := uring.SplitUserData(userData); kind != kindInbox {
				c := l.slots[slot]
				if kind == kindRx {
					c.rxBusy = false
				} else {
					c.txBusy = false
				}
			}
		})
	}
	l.ring.Close()
}
