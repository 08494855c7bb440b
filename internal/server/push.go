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

// outbox holds pushed output until the client's owner sends it.
type outbox struct {
	mu   sync.Mutex
	buf  []byte
	over bool // a push went over an output limit: the client is closing
	// softSince is when the outbox first held the soft limit's worth
	// (Unix seconds; 0: below it).
	softSince int64
	size      atomic.Int64 // len(buf), readable without the mutex
}

// Push queues b, one or more complete RESP values, for c and wakes c's
// owner to send it. Any goroutine.
func (c *Client) Push(b []byte) {
	c.outbox.mu.Lock()
	if c.outbox.over {
		c.outbox.mu.Unlock()
		return
	}
	if c.pushOverLimit(int64(len(c.outbox.buf) + len(b))) {
		// The owner has not taken its pushes while they went over the
		// output limits of the client's class: close the client instead
		// of queueing more (Valkey frees a client over its limit as soon
		// as output is added).
		c.outbox.over = true
		c.outbox.buf = nil
		c.outbox.size.Store(0)
		c.outbox.mu.Unlock()
		c.srv.log.warn("Client %s closed for overcoming of output buffer limits.", c.infoLine(nil, "NULL"))
		c.srv.stats.obufLimitDisc.Add(1)
		c.kill()
		return
	}
	c.outbox.buf = append(c.outbox.buf, b...)
	c.outbox.size.Store(int64(len(c.outbox.buf)))
	c.outbox.mu.Unlock()
	if c.nc != nil {
		c.nc.Wake()
		return
	}
	// Goroutine path: interrupt the owner's Read; serve (or a blocked
	// client's watcher) sees the flag and carries on.
	c.wakeRead.Store(true)
	c.conn.SetReadDeadline(time.Now())
}

// takeOutbox moves pushed output into the reply buffer and reports
// whether there was any. Owner only.
func (c *Client) takeOutbox() bool {
	if c.outbox.size.Load() == 0 {
		return false
	}
	c.outbox.mu.Lock()
	c.w.Raw(c.outbox.buf)
	if cap(c.outbox.buf) > keptReplyBuf {
		c.outbox.buf = nil
	} else {
		c.outbox.buf = c.outbox.buf[:0]
	}
	c.outbox.size.Store(0)
	c.outbox.mu.Unlock()
	return true
}

// deliverPushes sends what the outbox holds, enforcing the output limits
// of the client's class; false when the client must be closed. Owner only,
// between batches.
func (c *Client) deliverPushes() bool {
	if c.outbox.size.Load() == 0 {
		return true
	}
	c.armOutput()
	if !c.takeOutbox() {
		return true
	}
	if c.outputLimitReached() {
		return false
	}
	if !c.flush() {
		return false
	}
	c.noteMem()
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
