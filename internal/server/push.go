package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/netloop"
)

// Pushes: output a client receives from other goroutines, not in answer
// to its own commands (pub/sub messages, keyspace notifications, client
// tracking invalidations, MONITOR lines). It is written the same way on
// both network paths:
//
//   - Push (any goroutine) appends complete RESP to the client's outbox
//     under the outbox's mutex (a leaf) and wakes the client's owner; it
//     never touches the socket and never blocks on the client, so a slow
//     subscriber cannot stall a publisher.
//   - The owner, the only goroutine that writes to the socket, moves the
//     outbox into its reply buffer and writes it: on a loop, in OnWake
//     (netloop.Conn.Wake) or at the end of a batch; off the loops (the
//     goroutine path), when Push's read deadline interrupts its Read, or
//     at the end of a batch. A client blocked in a blocking command gets
//     its pushes when the command ends.
//   - Pushed bytes count in the client's pending output (omem, output
//     buffer limits of its class, maxmemory-clients) from the moment they
//     are queued.

// outbox holds pushed output until the client's owner sends it, in
// chunks of pushChunk bytes (Valkey's reply blocks): a backlog grows by
// adding chunks, never by copying what it holds, and costs at most one
// chunk's slack. Chunks come from and go back to a pool.
type outbox struct {
	mu     sync.Mutex
	chunks [][]byte // chunks[head:] hold the output, in order
	head   int
	over   bool // a push went over an output limit: the client is closing
	// softSince is when the outbox first held the soft limit's worth
	// (Unix seconds; 0: below it).
	softSince int64
	size      atomic.Int64 // bytes held, readable without the mutex
}

// pushChunk is the size of an outbox chunk.
const pushChunk = 16 << 10

// pushBatch bounds what the owner moves from the outbox to the
// connection at a time: the rest waits in the outbox (in chunks) until
// the socket has taken that much, instead of piling up in the
// connection's contiguous output buffers.
const pushBatch = 1 << 20

var chunkPool = sync.Pool{New: func() any { return new([pushChunk]byte) }}

// add appends b, splitting it over chunks. The mutex is held.
func (o *outbox) add(b []byte) {
	for len(b) > 0 {
		n := len(o.chunks)
		if n == o.head || len(o.chunks[n-1]) == pushChunk {
			o.chunks = append(o.chunks, chunkPool.Get().(*[pushChunk]byte)[:0])
			n++
		}
		last := &o.chunks[n-1]
		k := min(len(b), pushChunk-len(*last))
		*last = append(*last, b[:k]...)
		b = b[k:]
	}
}

// drop lets go of every chunk (to the collector, not the pool: a
// backlog big enough to close its client is memory to give back). The
// mutex is held.
func (o *outbox) drop() {
	o.chunks, o.head = nil, 0
	o.size.Store(0)
}

// Push queues b, one or more complete RESP values, for c and wakes c's
// owner to send it. Any goroutine.
func (c *Client) Push(b []byte) { c.pushFrom(b, nil) }

// pushFrom is Push by a command of client from (nil: not a command's):
// when from runs on the receiver's own event loop, the loop is woken
// without an eventfd round trip and the receiver's output goes out in
// the same round's writes.
func (c *Client) pushFrom(b []byte, from *Client) {
	o := &c.outbox
	o.mu.Lock()
	if o.over {
		o.mu.Unlock()
		return
	}
	if c.pushOverLimit(o.size.Load() + int64(len(b))) {
		// The owner has not taken its pushes while they went over the
		// output limits of the client's class: close the client instead
		// of queueing more (Valkey frees a client over its limit as soon
		// as output is added).
		o.over = true
		held := o.size.Load()
		o.drop()
		o.mu.Unlock()
		c.srv.releaseAfterFlush(held) // hand the backlog's pages back
		c.srv.log.warn("Client %s closed for overcoming of output buffer limits.", c.infoLine(nil, "NULL"))
		c.srv.stats.obufLimitDisc.Add(1)
		c.kill()
		return
	}
	o.add(b)
	o.size.Add(int64(len(b)))
	o.mu.Unlock()
	if c.nc != nil {
		if from != nil && from.nc != nil && !from.offLoop && from.nc.SameLoop(c.nc) {
			c.nc.WakeOnLoop()
		} else {
			c.nc.Wake()
		}
		return
	}
	// Goroutine path: interrupt the owner's Read; serve (or a blocked
	// client's watcher) clears the deadline and carries on.
	c.conn.SetReadDeadline(time.Now())
}

// takeOutbox moves up to max bytes of pushed output (whole chunks, at
// least one) into the reply buffer and reports whether there was any.
// Owner only.
func (c *Client) takeOutbox(max int) bool {
	o := &c.outbox
	if o.size.Load() == 0 {
		return false
	}
	o.mu.Lock()
	taken := 0
	for o.head < len(o.chunks) && (taken == 0 || taken+len(o.chunks[o.head]) <= max) {
		ch := o.chunks[o.head]
		c.w.Raw(ch)
		taken += len(ch)
		chunkPool.Put((*[pushChunk]byte)(ch[:pushChunk]))
		o.chunks[o.head] = nil
		o.head++
	}
	if o.head == len(o.chunks) {
		o.chunks, o.head = o.chunks[:0], 0
		if cap(o.chunks) > 1024 {
			o.chunks = nil // a burst's index is not kept
		}
	}
	o.size.Add(-int64(taken))
	o.mu.Unlock()
	return taken > 0
}

// deliverPushes sends what the outbox holds, enforcing the output limits
// of the client's class; false when the client must be closed. Owner only,
// between batches. On a loop it moves at most pushBatch bytes beyond what
// the connection has not sent yet and asks to be woken again once that is
// sent (netloop.Conn.WakeWhenSent), so a slow subscriber's backlog stays
// in the outbox's chunks; off the loops every write blocks until the
// socket took it.
func (c *Client) deliverPushes() bool {
	for c.outbox.size.Load() != 0 {
		budget := pushBatch
		if c.nc != nil && !c.offLoop {
			budget -= c.nc.OutQueued()
			if budget <= 0 {
				c.nc.WakeWhenSent()
				return true
			}
		}
		c.armOutput()
		if !c.takeOutbox(budget) {
			return true
		}
		if c.outputLimitReached() {
			return false
		}
		if !c.flush() {
			return false
		}
		c.noteMem()
		if c.nc != nil && !c.offLoop {
			if c.outbox.size.Load() != 0 {
				c.nc.WakeWhenSent()
			}
			return true
		}
	}
	return true
}

// OnWake runs on the loop when another goroutine pushed output to an
// attached client (netloop.Waker).
func (c *Client) OnWake(nc *netloop.Conn) {
	defer c.containPanic(nc)
	if !c.deliverPushes() {
		nc.Close()
	}
}

// pushOverLimit applies the output limits of c's class to an outbox of n
// bytes, as outputLimitReached does to the owner's pending output: the
// owner may be stuck writing to a slow socket and not take its pushes.
// Called with the outbox mutex held.
func (c *Client) pushOverLimit(n int64) bool {
	l := &c.srv.hot.obuf[c.obufClass()]
	if hard := l.hard.Load(); hard > 0 && n >= hard {
		return true
	}
	soft := l.soft.Load()
	if soft <= 0 || n < soft {
		c.outbox.softSince = 0
		return false
	}
	now := time.Now().Unix()
	if c.outbox.softSince == 0 {
		c.outbox.softSince = now
		return false
	}
	return now-c.outbox.softSince > l.softSecs.Load()
}
