package server

import (
	"math"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
)

// Output buffers: what bounds a client's pending replies.
//
// A client's pending output is the replies of its current batch (c.w,
// its buffer and full blocks, not yet handed to the connection) plus, on
// an event loop, what the connection holds that the kernel has not taken
// (netloop.Conn.OutQueued: the round's collected replies, blocks handed
// over, a full socket's backlog, a send in flight). On the goroutine path a flush blocks until the socket takes
// everything, so only c.w is pending there.
//
// Valkey's omem (getClientOutputBufferMemoryUsage) counts the reply list
// and not the 16 KiB static buffer in front of it; Corvid's counts the
// pending bytes beyond the first replyBufSize, which is the same figure
// for the same replies. client-output-buffer-limit applies to it as in
// Valkey's checkClientOutputBufferLimits: at or above the hard limit the
// client is closed at once; at or above the soft limit for longer than
// its seconds, too; the time is checked whenever output is added. Unlike
// Valkey, a reply that would cross the hard limit is never built: the
// writer refuses the payload (resp.Writer.SetLimit) and the client is
// closed, so one GET of a huge value costs nothing beyond the limit.
// Output is dropped, not sent, once a client is closed for its limit,
// as Valkey skips writing to clients it will free.
//
// Checks run where output grows: after each command of a batch, when
// c.w has passed c.outCheck (one comparison per command; outCheck is at
// most flushAt beyond the last check), and inside the writer for string
// payloads. Memory accounting (noteMem) is refreshed at the same points,
// so used_memory and maxmemory-clients see a reply buffer as it grows,
// not once per batch; and when a backlog drains (OnDrained).

// replyBlockBytes is the block size of a client's writer
// (resp.Writer.SetBlockSize): a reply buffer that would grow past it
// goes on in blocks of this size instead, which flush hands to the
// connection without copying (netloop.Conn.WriteBlocks; writev on the
// goroutine path). A reply of millions of elements is so held once, in
// blocks, as Valkey's reply list of 16 KiB blocks, instead of in a
// buffer that doubles (old copies left to the garbage collector) and is
// then copied into the connection's output buffer. Replies that fit in
// the buffer (every pipelined GET and SET) never see a block.
const replyBlockBytes = 64 << 10

// replyBufSize is the reply buffer every connection starts with (Valkey's
// PROTO_REPLY_CHUNK_BYTES static buffer): output within it is not omem.
const replyBufSize = 16 << 10

// keptReplyBuf is the largest reply buffer a client keeps once a batch
// is over: a batch that needed more gives it back (Writer.Shrink). A
// batch held back for its output (back-pressure) keeps it until it ends,
// so each piece does not allocate and fault in a fresh buffer.
const keptReplyBuf = 4 << 20

// flushAt is how much output a batch collects before it is handed to the
// connection (and the step at which memory is re-noted while it grows).
const flushAt = 1 << 20

// obufLimits caches client-output-buffer-limit per client class
// (config.ClientNormal, ClientReplica, ClientPubSub) for the request path.
type obufLimits [3]struct {
	hard, soft, softSecs atomic.Int64
}

func (o *obufLimits) load(l [3]config.OutputBufferLimit) {
	for i := range o {
		o[i].hard.Store(clampLimit(l[i].HardBytes))
		o[i].soft.Store(clampLimit(l[i].SoftBytes))
		o[i].softSecs.Store(l[i].SoftSeconds)
	}
}

func clampLimit(v uint64) int64 {
	if v > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(v)
}

// obufClass is the client-output-buffer-limit class of c.
func (c *Client) obufClass() int {
	switch c.clientType() {
	case clientTypeReplica:
		return config.ClientReplica
	case clientTypePubsub:
		return config.ClientPubSub
	}
	return config.ClientNormal // primaries count as normal, as in Valkey
}

// pendingOutput is the output not yet taken by the kernel. Owner only.
func (c *Client) pendingOutput() int {
	n := c.w.Len() + int(c.outbox.size.Load())
	if c.nc != nil {
		n += c.nc.OutQueued()
	}
	return n
}

// omem is CLIENT LIST's omem for the client's owner: pending output
// beyond the reply buffer.
func (c *Client) omem() int64 { return max(0, int64(c.pendingOutput())-replyBufSize) }

// armOutput sets where the next output check happens and the writer's
// limit, from the output already pending. It runs at the start of every
// batch and after every check.
func (c *Client) armOutput() {
	queued := 0
	if c.nc != nil {
		queued = c.nc.OutQueued()
	}
	n := c.w.Len()
	next := n + flushAt
	l := &c.srv.hot.obuf[c.obufClass()]
	if hard := l.hard.Load(); hard > 0 {
		// The writer may hold up to hard+replyBufSize-queued bytes:
		// the limit counts what is queued in the connection as well.
		c.w.SetLimit(int(max(0, hard+replyBufSize-int64(queued))))
	} else {
		c.w.SetLimit(-1)
	}
	if soft := l.soft.Load(); soft > 0 {
		at := int(max(0, soft+replyBufSize-int64(queued)))
		next = min(next, max(at, n+1))
		if c.softSince != 0 {
			next = n + 1 // over the soft limit: check after every command
		}
	}
	c.outCheck = next
}

// outputGrew runs after a command that took c.w past c.outCheck (or made
// the writer refuse a payload): it enforces the output buffer limits,
// hands a large batch's replies to the connection, re-notes the client's
// memory and re-arms. It returns false when the client must be closed.
func (c *Client) outputGrew() bool {
	if c.outputLimitReached() {
		return false
	}
	// Before a flush that may block (off a loop), so that CLIENT LIST
	// and used_memory show the replies that wait for the client.
	c.publish()
	if c.w.Len() >= flushAt {
		if !c.flush() {
			return false
		}
		c.noteMem()
	}
	c.armOutput()
	return true
}

// outputLimitReached is Valkey's closeClientOnOutputBufferLimitReached:
// it reports whether c went over its class's hard limit, or stayed over
// its soft limit for longer than allowed, and if so logs it, counts it
// (client_output_buffer_limit_disconnections) and drops c's output.
func (c *Client) outputLimitReached() bool {
	l := &c.srv.hot.obuf[c.obufClass()]
	used := c.omem()
	over := c.w.Overflowed()
	if hard := l.hard.Load(); hard > 0 && used >= hard {
		over = true
	}
	if soft := l.soft.Load(); soft > 0 && used >= soft {
		now := time.Now().Unix()
		if c.softSince == 0 {
			c.softSince = now
		} else if now-c.softSince > l.softSecs.Load() {
			over = true
		}
	} else {
		c.softSince = 0
	}
	if !over {
		return false
	}
	c.srv.log.warn("Client %s closed for overcoming of output buffer limits.", c.infoLine(c, "NULL"))
	c.srv.stats.obufLimitDisc.Add(1)
	c.dropOutput()
	return true
}

// dropOutput discards every pending reply of a client about to be
// closed: nothing more is sent to it.
func (c *Client) dropOutput() {
	c.w.Reset()
	c.closeNow = true
}
