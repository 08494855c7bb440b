package netloop

import (
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Conn is one connection of an Engine. See the package doc for which
// goroutine may call what.
type Conn struct {
	l *loop
	h Handler

	mu struct {
		sync.Mutex
		fd     int // -1 once closed
		closed bool
	}

	// rd is the state of blocking reads (ReadBlocking), made by the first
	// ReadBlocking or SetReadDeadline: most connections never read
	// blocking (a detached client's), and the state would cost every
	// idle Conn 40 B (issue 32). Closed before then, it is closedRead.
	rd atomic.Pointer[readState]

	// Owner-only state. sysfd mirrors mu.fd for the owner, the only
	// goroutine that closes it, so the owner reads it without locking.
	sysfd            int
	attached         bool   // in the loop's epoll set
	wantOut          bool   // registered for EPOLLOUT: pending output, input paused
	closeWhenFlushed bool   // close once pending output has drained
	deferred         bool   // in the loop's pending list with replies in pend
	out              []byte // output the socket has not taken yet
	detachFn         func() // set by Detach, run by the loop after OnReadable
	pend             []byte // DeferWrite: replies collected this round
	// q holds blocks handed over by WriteBlocks, the Conn's until sent:
	// the output order is out (epoll), then q, then pend. (Their total
	// length and capacity are summed when asked: a few blocks at most,
	// and no field for them in every idle connection.)
	q [][]byte

	// io_uring backend only (uring.go); owner-only like the above.
	slot  int32 // index in the loop's slot table; -1: none
	fixed bool  // the socket is in the ring's file table at slot
	// wakeOnSent: WakeWhenSent is waiting for the output to be sent.
	// (Beside slot and fixed, as txBusy beside rxBusy: no padding after
	// each; issue 32.)
	wakeOnSent   bool
	rx           []byte // receive buffer: rx[rxOff:rxEnd] received, unread
	rxOff, rxEnd int
	rxErr        error // end of input (or the receive's error), after rx
	rxBusy       bool  // a receive into rx is in flight
	rxFull       bool  // the last receive filled rx: grow it
	// rxRetry: how many receives in a row found the pool empty; each is
	// tried on the pool again (loop.rxRetry), up to rxRetries times,
	// before one into a buffer of its own.
	rxRetry uint8
	txBusy  bool
	tx      []byte // the send in flight: tx[txSent:] not yet taken
	txSent  int
	spare   []byte // the last send's buffer, the next pend
	paused  bool   // input paused until the send in flight is done

	// backlogged: output was held back because the socket was full
	// (EPOLLOUT on epoll, a partial send on a ring); the handler's
	// OnDrained runs once it has all gone.
	backlogged bool
	// again: the handler asked to be run once more without new input
	// (Again).
	again bool

	// wakePending: Wake was called and OnWake has not run yet (any
	// goroutine sets it; the loop clears it).
	wakePending atomic.Bool

	// codec transforms what Read and Write carry (SetCodec); owner-only,
	// like its buffers (codecBufs), which SetCodec makes: a connection
	// without a codec holds none of their fields (issue 32: an idle
	// connection's memory). They are used only where codec is set.
	codec Codec
	*codecBufs
}

// codecBufs are a codec's buffers: cin holds bytes read from the socket
// that the codec has not opened yet, plain[plainOff:] opened bytes the
// owner has not read, cerr the codec's error, returned once plain is
// empty, and sealBuf the output of Seal for writes that are not
// collected.
type codecBufs struct {
	cin      []byte
	plain    []byte
	plainOff int
	cerr     error
	sealBuf  []byte
}

// Codec transforms a connection's bytes between the socket and its
// owner: TLS records (package tlsrec) for a connection whose handshake
// ran before it was registered. Open appends to dst what the complete
// units at the start of src carry and reports how much of src it used;
// Seal appends p, encoded, to dst (with any control output of the codec's
// own, such as a TLS KeyUpdate answer, first; HasPending reports some is
// waiting). Both are called by the Conn's owner only.
type Codec interface {
	Open(dst, src []byte) ([]byte, int, error)
	Seal(dst, p []byte) []byte
	HasPending() bool
}

// SetCodec makes Read return what the codec opens from the socket's bytes
// and Write send what it seals; buffered holds bytes already read from
// the socket (a TLS handshake's leftover), opened first. Call it before
// the first Attach.
func (c *Conn) SetCodec(cd Codec, buffered []byte) {
	if c.codecBufs == nil {
		c.codecBufs = new(codecBufs)
	}
	c.codec = cd
	c.cin = append(c.cin[:0], buffered...)
}

// Codec returns the connection's codec, nil without one. Owner only.
func (c *Conn) Codec() Codec { return c.codec }

// CodecInput returns, and forgets, what the codec holds of the input:
// bytes it opened that the owner has not read, and bytes read from the
// socket it has not opened yet; for an owner that moves the connection
// off this Conn (a replica's link). Owner only.
func (c *Conn) CodecInput() (plain, raw []byte) {
	if c.codecBufs == nil {
		return nil, nil
	}
	plain = append([]byte(nil), c.plain[c.plainOff:]...)
	raw = append([]byte(nil), c.cin...)
	c.plain, c.plainOff, c.cin = c.plain[:0], 0, c.cin[:0]
	return plain, raw
}

// codecBuffered reports whether the codec holds input the owner has not
// read: opened bytes, or bytes not opened yet.
func (c *Conn) codecBuffered() bool {
	return c.codec != nil && (c.plainOff < len(c.plain) || len(c.cin) > 0)
}

// seal appends p to b as it goes to the socket.
func (c *Conn) seal(b, p []byte) []byte {
	if c.codec == nil {
		return append(b, p...)
	}
	return c.codec.Seal(b, p)
}

// Waker is implemented by handlers that get output from other goroutines
// (Conn.Wake): OnWake runs on the loop, as OnReadable, for an attached
// connection that some goroutine woke.
type Waker interface {
	OnWake(c *Conn)
}

// Wake asks the connection's loop to call the handler's OnWake soon;
// any goroutine, never blocking. Wakes coalesce until OnWake runs. A
// detached connection is woken once it is attached again (its owner
// meanwhile handles what the wake was for itself, if it can).
func (c *Conn) Wake() {
	if c.wakePending.Swap(true) {
		return
	}
	l := c.l
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		return
	}
	first := len(l.wakes) == 0
	l.wakes = append(l.wakes, c)
	l.mu.Unlock()
	if first {
		// One poke per batch of wakes: the loop takes the whole list
		// after reading the eventfd, so a list that was not empty has a
		// poke on its way already.
		l.wake()
	}
}

// SameLoop reports whether c and o belong to the same loop.
func (c *Conn) SameLoop(o *Conn) bool { return c.l == o.l }

// WakeWhenSent asks for OnWake once the output the connection holds has
// been handed to the kernel: at the end of this round if it holds none, else
// when a send completes (ring) or the socket has taken it (epoll). A
// handler that produces output a piece at a time (pushed output of a slow
// subscriber) sends the next piece then, instead of piling it all up
// here. Loop only.
func (c *Conn) WakeWhenSent() {
	c.wakeOnSent = true
	if c.OutQueued() == 0 {
		c.sentWake()
	}
}

// sentWake delivers a WakeWhenSent wake at the end of the round.
func (c *Conn) sentWake() {
	if !c.wakeOnSent {
		return
	}
	c.wakeOnSent = false
	c.WakeOnLoop()
}

// WakeOnLoop is Wake for a caller running on c's own loop goroutine (a
// handler of another connection of the same loop): OnWake runs at the
// end of the current round, before its output is written, with no
// eventfd round trip.
func (c *Conn) WakeOnLoop() {
	if c.wakePending.Swap(true) {
		return
	}
	c.l.localWakes = append(c.l.localWakes, c)
}

// Drainer is implemented by handlers that want to know when output that
// the socket could not take at once has all been written (memory
// accounting of pending output). OnDrained runs on the loop, as OnTick.
type Drainer interface {
	OnDrained(c *Conn)
}

// keptOutput is the largest reply buffer a connection keeps for its next
// round: a burst's buffer is not kept for every client. A handler that
// asked to run again (Again: its output is produced a piece at a time)
// keeps its buffers, whatever their size, until it stops asking: each
// piece reuses them instead of allocating (and faulting in) fresh ones.
const keptOutput = 64 << 10

// Trim gives back the empty output buffers a burst left (larger than
// keptOutput) and reports whether it freed any; a handler whose burst is
// over calls it before it accounts its memory. Owner only.
func (c *Conn) Trim() bool {
	freed := false
	if len(c.pend) == 0 && cap(c.pend) > keptOutput {
		c.pend, freed = nil, true
	}
	if cap(c.spare) > keptOutput {
		c.spare, freed = nil, true
	}
	if len(c.out) == 0 && cap(c.out) > keptOutput {
		c.out, freed = nil, true
	}
	if c.codec != nil {
		if len(c.cin) == 0 && cap(c.cin) > keptOutput {
			c.cin, freed = nil, true
		}
		if c.plainOff == len(c.plain) && cap(c.plain) > keptOutput {
			c.plain, c.plainOff, freed = nil, 0, true
		}
	}
	return freed
}

// TrimIdle gives back every empty output buffer, whatever its size: the
// handler calls it once the client has been idle for a while (Corvid's
// tick), so an idle connection holds none. It reports whether it freed
// any. Owner only.
func (c *Conn) TrimIdle() bool {
	freed := false
	if len(c.pend) == 0 && c.pend != nil {
		c.pend, freed = nil, true
	}
	if c.spare != nil {
		c.spare, freed = nil, true
	}
	if len(c.out) == 0 && c.out != nil {
		c.out, freed = nil, true
	}
	return freed
}

// keep reports whether an emptied output buffer is kept for reuse.
func (c *Conn) keep(b []byte) bool { return cap(b) <= keptOutput || c.again }

// Queued is the memory held for output the socket has not taken yet (the
// round's replies, a full socket's backlog; on io_uring also the send in
// flight and a receive buffer of the connection's own), for memory
// accounting. A buffer of the ring's pool is not counted: it is the
// loop's, out only until the handler has read it, as Valkey's shared
// query buffer is no client's (counted, it stayed in the client's memory
// until its next batch or its idle tick: 16 KiB each for 10,000 clients
// that had sent one PING, issue 32). Owner only.
func (c *Conn) Queued() int {
	n := cap(c.pend) + cap(c.out) + cap(c.tx)
	if c.l.rxp.id(c.rx) < 0 {
		n += cap(c.rx)
	}
	for _, b := range c.q {
		n += cap(b)
	}
	if c.codecBufs != nil {
		n += cap(c.cin) + cap(c.plain) + cap(c.sealBuf)
	}
	return n
}

// OutQueued is the number of output bytes written to the Conn that the
// kernel has not taken yet: the round's collected replies, the pending
// output of a full socket, and on io_uring the unsent part of the send in
// flight. Owner only.
func (c *Conn) OutQueued() int {
	n := len(c.pend) + len(c.out)
	for _, b := range c.q {
		n += len(b)
	}
	if c.tx != nil { // txSent is stale once the send is done (tx nil)
		n += len(c.tx) - c.txSent
	}
	return n
}

// drained ends a backlog: see Drainer.
func (c *Conn) drained() {
	c.backlogged = false
	if d, ok := c.h.(Drainer); ok && c.sysfd >= 0 {
		d.OnDrained(c)
	}
}

// RoundMillis is the wall clock in Unix milliseconds as of the loop's
// current round: read at the first call in a round, then shared by every
// handler the round runs, as Valkey's event loop caches its clock once
// per iteration. Unpipelined, a round serves many connections, and
// reading the clock per connection was ~0.7% of the server's CPU (perf
// on the seed's SADD). Attached connections only, from their handler.
func (c *Conn) RoundMillis() int64 {
	l := c.l
	if !l.nowOK {
		l.nowMs, l.nowOK = time.Now().UnixMilli(), true
	}
	return l.nowMs
}

// FD is the socket's descriptor, or -1 once closed. Any goroutine.
func (c *Conn) FD() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.fd
}

// Shutdown shuts the socket down in both directions. Any goroutine: the
// owner then sees end-of-file (or a write error) and closes the Conn.
func (c *Conn) Shutdown() {
	c.mu.Lock()
	if c.mu.fd >= 0 {
		unix.Shutdown(c.mu.fd, unix.SHUT_RDWR)
	}
	c.mu.Unlock()
}

// Read and write go through sysRead/sysWrite: raw syscalls normally
// (sysio.go), package syscall under the race detector (sysio_race.go),
// whose read and write carry the same happens-before edges as net.Conn's
// (a write by one goroutine, a read by another), so data handed over
// through a socket is seen as synchronized just as on the goroutine path.

// Read reads once without blocking: (0, ErrWouldBlock) when there is no
// data, (0, io.EOF) at end of file. Owner only. With a codec it returns
// opened bytes, and asks the loop to run the handler again (Again) when
// it keeps some that did not fit in p.
func (c *Conn) Read(p []byte) (int, error) {
	if c.codec != nil {
		return c.readCodec(p)
	}
	return c.readRaw(p)
}

// readCodec is Read through the codec.
func (c *Conn) readCodec(p []byte) (int, error) {
	for c.plainOff == len(c.plain) {
		c.plain, c.plainOff = c.plain[:0], 0
		if c.cerr != nil {
			return 0, c.cerr
		}
		if len(c.cin) > 0 {
			var used int
			var err error
			c.plain, used, err = c.codec.Open(c.plain, c.cin)
			c.cin = c.cin[:copy(c.cin, c.cin[used:])]
			if err != nil {
				c.cerr = err
			}
			if c.codec.HasPending() {
				c.Write(nil) // the codec's answer (a KeyUpdate's) goes out
			}
			if len(c.plain) > 0 || err != nil || used > 0 {
				continue
			}
		}
		if cap(c.cin)-len(c.cin) < 4096 {
			c.cin = append(c.cin, make([]byte, 16<<10)...)[:len(c.cin)]
		}
		n, err := c.readRaw(c.cin[len(c.cin):cap(c.cin)])
		if err != nil {
			return 0, err
		}
		c.cin = c.cin[:len(c.cin)+n]
	}
	n := copy(p, c.plain[c.plainOff:])
	c.plainOff += n
	// Open takes every complete unit, so what stays in cin is a partial
	// one that only the socket can complete (which the loop hears of);
	// what the loop cannot hear of is plaintext p had no room for, and an
	// error the next Read must report.
	if c.attached && (c.plainOff < len(c.plain) || c.cerr != nil) {
		c.Again()
	}
	return n, nil
}

// readRaw is Read from the socket (or the ring's receive buffer).
func (c *Conn) readRaw(p []byte) (int, error) {
	fd := c.sysfd
	if fd < 0 {
		return 0, io.ErrClosedPipe
	}
	if c.rxEnd > c.rxOff { // received through the ring, not read yet
		n := copy(p, c.rx[c.rxOff:c.rxEnd])
		if c.rxOff += n; c.rxOff == c.rxEnd {
			c.rxOff, c.rxEnd = 0, 0
		}
		return n, nil
	}
	if c.attached && c.l.e.uring {
		if c.rxErr != nil {
			return 0, c.rxErr
		}
		return 0, ErrWouldBlock // the loop receives for its connections
	}
	for {
		n, err := sysRead(fd, p)
		switch {
		case err == unix.EINTR:
			continue
		case err == unix.EAGAIN:
			return 0, ErrWouldBlock
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// Write sends p. Attached, it never blocks: what the socket does not take
// is queued and sent when the socket drains, while input is paused.
// Detached, it blocks until everything is written. It reports len(p) and
// nil unless the connection failed. Owner only.
func (c *Conn) Write(p []byte) (int, error) {
	if !c.attached {
		b := p
		if c.codec != nil {
			b = c.codec.Seal(c.sealBuf[:0], p)
			c.sealBuf = keepSeal(b)
		}
		if err := c.writeBlocking(b); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	if c.wantOut {
		if len(c.q) > 0 {
			// After the blocks still queued.
			c.pushBlock(c.seal(nil, p))
			return len(p), nil
		}
		c.out = c.seal(c.out, p)
		return len(p), nil
	}
	if c.l.e.deferWrite || len(c.q) > 0 {
		c.pend = c.seal(c.pend, p)
		if !c.deferred {
			c.deferred = true
			c.l.pending = append(c.l.pending, c)
		}
		return len(p), nil
	}
	b := p
	if c.codec != nil {
		b = c.codec.Seal(c.sealBuf[:0], p)
		c.sealBuf = keepSeal(b)
	}
	n, err := c.writeSome(b)
	if err != nil {
		return 0, err
	}
	if n < len(b) {
		c.out = append(c.out[:0], b[n:]...)
		c.wantOut, c.backlogged = true, true
		c.setInterest()
	} else {
		c.sentWake()
	}
	return len(p), nil
}

// WriteBlocks sends the blocks in order, after what was written before,
// as Write would send their concatenation, but without copying them
// while attached (a reply of many megabytes, resp.Writer's blocks): the
// Conn takes them over and keeps them until the kernel has taken them;
// the caller must not touch them again. What the socket does not take
// pauses input as with Write, and OnDrained runs once all of it has gone.
// Through a codec, or detached, it is Write of each block. Owner only.
func (c *Conn) WriteBlocks(bs [][]byte) error {
	if c.codec != nil || !c.attached {
		for _, b := range bs {
			if _, err := c.Write(b); err != nil {
				return err
			}
		}
		return nil
	}
	if len(c.pend) > 0 {
		// Collected before the blocks: it goes first.
		c.pushBlock(c.pend)
		c.pend = nil
	}
	for _, b := range bs {
		c.pushBlock(b)
	}
	c.backlogged = true // OnDrained re-notes memory once the blocks are gone
	if !c.wantOut && !c.deferred {
		c.deferred = true
		c.l.pending = append(c.l.pending, c)
	}
	return nil
}

// pushBlock queues b after q's blocks.
func (c *Conn) pushBlock(b []byte) {
	if len(b) == 0 {
		return
	}
	c.q = append(c.q, b)
}

// popBlock takes q's first block off the queue.
func (c *Conn) popBlock() []byte {
	b := c.q[0]
	c.q[0] = nil
	c.q = c.q[1:]
	if len(c.q) == 0 {
		c.q = nil
	}
	return b
}

// writeQueue writes q's blocks until the socket is full; the blocks
// written go, a block written in part keeps its rest.
func (c *Conn) writeQueue() error {
	for len(c.q) > 0 {
		b := c.q[0]
		n, err := c.writeSome(b)
		if n < len(b) {
			c.q[0] = b[n:]
			return err
		}
		c.popBlock()
		if err != nil {
			return err
		}
	}
	return nil
}

// keepSeal is what Write keeps of a sealed buffer for the next write:
// all of it, emptied, unless a burst made it large.
func keepSeal(b []byte) []byte {
	if cap(b) > keptOutput {
		return nil
	}
	return b[:0]
}

// flushDeferred writes the replies collected in pend; what the socket does
// not take moves to out (input paused until it drains). A write error
// closes the connection, as it would have when written at once.
func (c *Conn) flushDeferred() {
	if c.attached && c.l.e.uring {
		c.flushURing()
		return
	}
	c.deferred = false
	if len(c.q) > 0 {
		c.flushQueue()
		return
	}
	p := c.pend
	c.pend = c.pend[:0]
	if !c.keep(c.pend) {
		c.pend = nil
	}
	if c.sysfd < 0 || len(p) == 0 {
		return
	}
	n, err := c.writeSome(p)
	if err != nil {
		c.Close()
		return
	}
	if n < len(p) {
		c.out = append(c.out[:0], p[n:]...)
		c.wantOut, c.backlogged = true, true
		c.setInterest()
	} else {
		c.sentWake()
	}
}

// flushQueue is flushDeferred with blocks queued (WriteBlocks): the
// round's later replies go after them, and what the socket does not
// take stays in q, with input paused until it drains.
func (c *Conn) flushQueue() {
	if len(c.pend) > 0 {
		c.pushBlock(c.pend)
		c.pend = nil
	}
	if c.sysfd < 0 {
		return
	}
	if err := c.writeQueue(); err != nil {
		c.Close()
		return
	}
	if len(c.q) > 0 {
		c.wantOut, c.backlogged = true, true
		c.setInterest()
		return
	}
	if c.backlogged {
		c.drained()
	}
	c.sentWake()
}

// writeSome writes until the socket is full; EAGAIN is not an error.
func (c *Conn) writeSome(p []byte) (int, error) {
	fd := c.sysfd
	if fd < 0 {
		return 0, io.ErrClosedPipe
	}
	done := 0
	for done < len(p) {
		n, err := sysWrite(fd, p[done:])
		if n > 0 {
			done += n
		}
		switch err {
		case nil:
		case unix.EINTR:
		case unix.EAGAIN:
			return done, nil
		default:
			return done, err
		}
	}
	return done, nil
}

// drain writes pending output; wantOut stays set while some remains.
func (c *Conn) drain() error {
	n, err := c.writeSome(c.out)
	if err != nil {
		return err
	}
	rest := copy(c.out, c.out[n:])
	c.out = c.out[:rest]
	if rest == 0 && len(c.q) > 0 {
		if err := c.writeQueue(); err != nil {
			return err
		}
		if len(c.q) > 0 {
			return nil
		}
	}
	if rest == 0 {
		c.wantOut = false
		if cap(c.out) > 1<<20 && !c.again {
			c.out = nil // give back what a burst left behind
		}
	}
	return nil
}

// writeBlocking drains pending output and then writes p, waiting in
// poll(2) whenever the socket is full (detached owner).
func (c *Conn) writeBlocking(p []byte) error {
	if err := c.writeAll(c.out); err != nil {
		return err
	}
	c.out = c.out[:0]
	for len(c.q) > 0 {
		if err := c.writeAll(c.q[0]); err != nil {
			return err
		}
		c.popBlock()
	}
	if err := c.writeAll(p); err != nil {
		return err
	}
	c.wantOut = false
	return nil
}

// writeAll writes b, waiting whenever the socket is full.
func (c *Conn) writeAll(b []byte) error {
	for len(b) > 0 {
		n, err := c.writeSome(b)
		if err != nil {
			return err
		}
		b = b[n:]
		if len(b) > 0 {
			if err := c.waitWritable(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Conn) waitWritable() error {
	fd := c.sysfd
	if fd < 0 {
		return io.ErrClosedPipe
	}
	pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLOUT}}
	for {
		_, err := unix.Poll(pfd, -1)
		if err != unix.EINTR {
			return err
		}
	}
}

// readState is a Conn's blocking-read state. wakefd is an eventfd, made
// on first use, that SetReadDeadline pokes so a waiting ReadBlocking
// re-reads the deadline.
type readState struct {
	sync.Mutex
	deadline time.Time
	wakefd   int32 // valid while hasWake (int32: the struct packs)
	hasWake  bool  // false until the first ReadBlocking waits, and after Close
	closed   bool
}

// closedRead is the blocking-read state of a Conn closed before it had
// one; nothing changes it.
var closedRead = &readState{closed: true}

// readState returns c's blocking-read state, making it the first time.
// Any goroutine.
func (c *Conn) readState() *readState {
	if r := c.rd.Load(); r != nil {
		return r
	}
	r := new(readState)
	if c.rd.CompareAndSwap(nil, r) {
		return r
	}
	return c.rd.Load()
}

// ReadBlocking reads, waiting until data arrives, the peer hangs up, or
// the read deadline passes (os.ErrDeadlineExceeded). It is for a detached
// connection only: by its owner, or by a goroutine the owner lends reading
// to while it does no I/O itself (Corvid's disconnect watcher of a blocked
// client), which the owner interrupts with SetReadDeadline(time.Now()).
func (c *Conn) ReadBlocking(p []byte) (int, error) {
	rd := c.readState()
	for {
		rd.Lock()
		dl := rd.deadline
		if rd.closed {
			rd.Unlock()
			return 0, io.ErrClosedPipe
		}
		if !rd.hasWake {
			fd, err := unix.Eventfd(0, unix.EFD_NONBLOCK|unix.EFD_CLOEXEC)
			if err != nil {
				rd.Unlock()
				return 0, err
			}
			rd.wakefd, rd.hasWake = int32(fd), true
		}
		wake := int(rd.wakefd)
		rd.Unlock()
		timeout := -1
		if !dl.IsZero() {
			left := time.Until(dl)
			if left <= 0 {
				return 0, os.ErrDeadlineExceeded
			}
			timeout = int((left + time.Millisecond - 1) / time.Millisecond)
		}
		n, err := c.Read(p)
		if err != ErrWouldBlock {
			return n, err
		}
		pfd := []unix.PollFd{{Fd: int32(c.sysfd), Events: unix.POLLIN}, {Fd: int32(wake), Events: unix.POLLIN}}
		if _, err := unix.Poll(pfd, timeout); err != nil && err != unix.EINTR {
			return 0, err
		}
		if pfd[1].Revents != 0 {
			var buf [8]byte
			unix.Read(wake, buf[:])
		}
	}
}

// SetReadDeadline sets the deadline of ReadBlocking (zero: none) and wakes
// a ReadBlocking in progress so that it takes effect at once. Any
// goroutine.
func (c *Conn) SetReadDeadline(t time.Time) {
	if t.IsZero() && c.rd.Load() == nil {
		return // no deadline yet, and none wanted: nothing to make
	}
	rd := c.readState()
	if rd == closedRead {
		return
	}
	rd.Lock()
	defer rd.Unlock()
	rd.deadline = t
	if rd.hasWake {
		one := uint64(1)
		unix.Write(int(rd.wakefd), (*[8]byte)(unsafe.Pointer(&one))[:])
	}
}

// interest is the epoll event mask for the current state.
func (c *Conn) interest() uint32 {
	if c.wantOut {
		return unix.EPOLLOUT
	}
	return unix.EPOLLIN | unix.EPOLLRDHUP
}

func (c *Conn) setInterest() {
	if !c.attached {
		return
	}
	fd := c.sysfd
	ev := unix.EpollEvent{Events: c.interest(), Fd: int32(fd)}
	unix.EpollCtl(c.l.epfd, unix.EPOLL_CTL_MOD, fd, &ev)
}

// Again asks the loop to call OnReadable once more even if no new input
// arrives: once the output the connection holds has been written, or in
// the next round if the socket takes it all. A handler that stops its
// batch because its replies piled up (Corvid's output back-pressure)
// calls it, leaving the rest of its input unprocessed until the client
// has read what it was sent. Other connections' events are handled
// first. Loop only, from OnReadable.
func (c *Conn) Again() {
	if c.again {
		return
	}
	c.again = true
	if !c.l.e.uring {
		c.l.againq = append(c.l.againq, c) // uring: rearm queues it
	}
}

// Detach makes the loop, once OnReadable returns, take the connection out
// of its epoll set and run fn on a new goroutine, which then owns the
// Conn (blocking writes) until it calls Attach or Close. Loop only, from
// OnReadable.
func (c *Conn) Detach(fn func()) { c.detachFn = fn }

// Attach hands the connection to its loop, which owns it from then on.
// Called once by Register's caller, and by a detached owner to give the
// connection back (its pending output must have been written).
func (c *Conn) Attach() {
	if !c.attached && c.sysfd >= 0 && (len(c.out) > 0 || len(c.q) > 0) {
		// Output the loop left when it detached c (its collected
		// replies, blocks) that the owner did not write after: the
		// loop would not send it (a ring sends only from pend).
		c.writeBlocking(nil)
	}
	l := c.l
	l.mu.Lock()
	if l.closing {
		l.mu.Unlock()
		c.Close()
		return
	}
	l.inbox = append(l.inbox, c)
	l.mu.Unlock()
	l.wake()
}

// Close closes the socket (dropping pending output) and runs the
// handler's OnClose. Owner only; idempotent.
func (c *Conn) Close() {
	if c.rxBusy && c.sysfd >= 0 {
		// End the receive in flight; the loop retires the Conn when
		// its completion arrives. (The kernel holds the socket for the
		// operation, so closing the fd number below is safe.)
		unix.Shutdown(c.sysfd, unix.SHUT_RDWR)
	}
	if c.attached {
		c.l.remove(c)
	}
	c.mu.Lock()
	fd := c.mu.fd
	closed := c.mu.closed
	c.mu.fd, c.mu.closed = -1, true
	c.sysfd = -1
	if fd >= 0 {
		unix.Close(fd)
	}
	c.mu.Unlock()
	if !c.rd.CompareAndSwap(nil, closedRead) {
		if rd := c.rd.Load(); rd != closedRead {
			rd.Lock()
			if rd.hasWake {
				unix.Close(int(rd.wakefd))
				rd.hasWake = false
			}
			rd.closed = true
			rd.Unlock()
		}
	}
	c.out = nil
	c.pend = nil
	c.q = nil
	c.deferred = false
	c.wantOut = false
	if !closed {
		c.h.OnClose(c)
	}
}

// CloseWhenFlushed closes the connection once its pending output has been
// written (at once if there is none). Loop only.
func (c *Conn) CloseWhenFlushed() {
	if c.attached && c.l.e.uring {
		if c.deferred {
			c.flushURing()
		}
		if !c.txBusy && len(c.pend) == 0 && len(c.q) == 0 {
			c.Close()
			return
		}
		c.closeWhenFlushed = true // the loop closes it after the last send
		return
	}
	if c.deferred {
		c.flushDeferred()
	}
	if !c.wantOut {
		c.Close()
		return
	}
	c.closeWhenFlushed = true
}
