package loadgen

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// live is a client's progress counters, read by the progress printer.
type live struct {
	ops, bytes, latNs atomic.Uint64
	_                 [40]byte // keep neighbours off this cache line
}

// pending is one request in flight.
type pending struct {
	cmd    int32
	row    int32
	keyIdx uint64
	size   int32 // request bytes
	sent   int64 // ns since the run's base time: flush time, or intended time when rate limited
	node   int32 // cluster: index of the connection it went to
	redirs int32 // cluster: MOVED/ASK hops followed so far
	dlen   int32 // cluster: data length, to rebuild a redirected request
}

// client is one connection's worth of load (one per goroutine).
type client struct {
	r        *runner
	srv      int
	gen      *gen
	rec      *recorder
	live     *live
	counters []stats.Counters
	samples  []sample
	ring     []pending
	head, n  int
	sentReq  uint64 // requests sent (for -n and --rate-limiting's schedule)
	sinceRe  int    // requests since the last (re)connect
	conn     *wire.Conn
	cur      atomic.Pointer[wire.Conn] // conn, for the shutdown watcher
	cluster  *clusterState
	firstErr string
	err      error
}

func (c *client) now() int64 { return c.r.now() }

func (c *client) push(p pending) {
	c.ring[(c.head+c.n)%len(c.ring)] = p
	c.n++
}

func (c *client) pop() pending {
	p := c.ring[c.head]
	c.head = (c.head + 1) % len(c.ring)
	c.n--
	return p
}

// batch sums the completions of one read for the live counters.
type batch struct{ ops, bytes, lat uint64 }

// add counts request p, whose nb-byte reply was read at at.
func (b *batch) add(p pending, nb int, at int64) {
	b.ops++
	b.bytes += uint64(int(p.size) + nb)
	b.lat += uint64(max(at-p.sent, 0))
}

// complete accounts the reply to the oldest request in flight, read at at.
func (c *client) complete(b *batch, nb int, kind wire.Kind, msg []byte, at int64) {
	p := c.pop()
	c.record(p, nb, kind, msg, at)
	b.add(p, nb, at)
}

// account completes the requests whose replies are whole in buf[r:w],
// read at at, and returns the new read position and how many completed.
// RESP3 pushes (CLIENT TRACKING invalidations under --tracking) are not
// replies and are passed over. A reply, or part of one, left over with
// nothing in flight is a protocol error.
func (c *client) account(buf []byte, r, w int, at int64) (int, uint64, error) {
	var b batch
	for r < w {
		nb, kind, msg, err := wire.Scan(buf[r:w])
		if err != nil {
			return r, 0, err
		}
		if nb == 0 {
			break
		}
		if buf[r] == '>' {
			r += nb
			continue
		}
		if c.n == 0 {
			break
		}
		r += nb
		c.complete(&b, nb, kind, msg, at)
	}
	done := b.ops
	c.publish(&b)
	if c.n == 0 && r < w && buf[r] != '>' {
		return r, done, fmt.Errorf("%w: reply without a request", wire.ErrProtocol)
	}
	return r, done, nil
}

// publish adds a batch to the live counters and empties it.
func (c *client) publish(b *batch) {
	c.live.ops.Add(b.ops)
	c.live.bytes.Add(b.bytes)
	c.live.latNs.Add(b.lat)
	*b = batch{}
}

// sleepUntil waits, rate limited and idle, until the schedule allows the
// next request, and returns the time then; cancellation stops the run.
func (c *client) sleepUntil(ctx context.Context, due, nowNs int64) int64 {
	if !sleepCtx(ctx, time.Duration(due-nowNs)) {
		c.r.stopping.Store(true)
	}
	return c.now()
}

// record accounts one completed request.
func (c *client) record(p pending, replyBytes int, kind wire.Kind, msg []byte, at int64) {
	ctr := &c.counters[p.row]
	ctr.Ops++
	ctr.Bytes += uint64(int(p.size) + replyBytes)
	switch kind {
	case wire.KindNil:
		ctr.Misses++
	case wire.KindOK:
		ctr.Hits++
	case wire.KindError, wire.KindMoved, wire.KindAsk:
		ctr.Errors++
		if kind == wire.KindMoved {
			ctr.Moved++
		} else if kind == wire.KindAsk {
			ctr.Ask++
		}
		if c.firstErr == "" {
			c.firstErr = string(msg)
		}
	}
	lat := at - p.sent
	if lat < 0 {
		lat = 0
	}
	c.samples = append(c.samples, sample{row: p.row, ns: lat})
	if len(c.samples) == cap(c.samples) {
		c.flushSamples()
	}
}

func (c *client) flushSamples() {
	if len(c.samples) == 0 {
		return
	}
	c.rec.mu.Lock()
	for _, s := range c.samples {
		_ = c.rec.hists[s.row].RecordValue(max(s.ns, 1))
	}
	c.rec.mu.Unlock()
	c.samples = c.samples[:0]
}

// canSend reports whether another request may be issued now, and when the
// schedule allows the next one if rate limited (0 when not limited).
func (c *client) canSend(nowNs int64) (ok bool, due int64) {
	cfg := c.r.cfg
	if c.r.stopping.Load() {
		return false, 0
	}
	if cfg.Requests > 0 && c.sentReq >= cfg.Requests {
		return false, 0
	}
	if c.r.deadline > 0 && nowNs >= c.r.deadline {
		c.r.stopping.Store(true)
		return false, 0
	}
	if cfg.ReconnectInterval > 0 && c.sinceRe >= cfg.ReconnectInterval {
		return false, 0
	}
	if c.r.interval > 0 {
		due = c.r.start + int64(c.sentReq)*c.r.interval
		if due > nowNs {
			return false, due
		}
	}
	return true, due
}

func (c *client) finished() bool {
	cfg := c.r.cfg
	return c.r.stopping.Load() || (cfg.Requests > 0 && c.sentReq >= cfg.Requests)
}

// fillWindow appends requests to out until pipeline are in flight or
// canSend refuses; due is the schedule's next time when rate limiting is
// what refused (0 otherwise).
func (c *client) fillWindow(out []byte, pipeline int, nowNs int64) ([]byte, int64) {
	for c.n < pipeline {
		ok, due := c.canSend(nowNs)
		if !ok {
			return out, due
		}
		cmd, keyIdx, key, data := c.gen.next()
		before := len(out)
		out = c.r.w.cmds[cmd].tmpl.Append(out, key, data)
		c.push(pending{cmd: int32(cmd), row: int32(c.r.w.cmds[cmd].row), keyIdx: keyIdx,
			size: int32(len(out) - before), sent: due})
		c.sentReq++
		c.sinceRe++
	}
	return out, 0
}

// window appends to buf the requests the pipeline window and the schedule
// allow now, stamped, for an event loop to send. due is when the schedule
// allows the next one if that is what stopped it (0 otherwise); finished
// means the connection is done: nothing in flight and nothing more to send.
func (c *client) window(buf []byte, now int64) (out []byte, due int64, finished bool) {
	from := c.n
	out, due = c.fillWindow(buf, c.r.cfg.Pipeline, now)
	if c.n > from {
		c.stampSent(from)
	}
	return out, due, c.n == 0 && due == 0
}

// stampSent sets the send time of the requests from position from of the
// window on: now, as they are about to be written, unless rate limiting
// already gave each its intended time (fillWindow).
func (c *client) stampSent(from int) {
	if c.r.interval != 0 {
		return
	}
	t := c.now()
	for i := from; i < c.n; i++ {
		c.ring[(c.head+i)%len(c.ring)].sent = t
	}
}

// runStandalone is the non-cluster loop: fill the pipeline window, write the
// batch in one syscall, then consume every reply that has arrived.
func (c *client) runStandalone(ctx context.Context) {
	pipeline := c.r.cfg.Pipeline
	var b batch
	for {
		nowNs := c.now()
		batchStart := c.n
		for {
			var due int64
			c.conn.Out, due = c.fillWindow(c.conn.Out, pipeline, nowNs)
			if due > 0 && c.n == 0 {
				nowNs = c.sleepUntil(ctx, due, nowNs)
				continue
			}
			break
		}
		if c.n > batchStart {
			c.stampSent(batchStart)
			if err := c.conn.Flush(); err != nil {
				c.fail(err)
				return
			}
		}
		if c.n == 0 {
			if c.r.cfg.ReconnectInterval > 0 && c.sinceRe >= c.r.cfg.ReconnectInterval && !c.finished() {
				if err := c.reconnect(); err != nil {
					c.fail(err)
					return
				}
				continue
			}
			if c.finished() {
				break
			}
			continue
		}
		// Read at least one reply, then everything already buffered.
		for first := true; c.n > 0 && (first || c.conn.Buffered()); first = false {
			nb, kind, msg, err := c.conn.Next()
			if err != nil {
				c.fail(err)
				return
			}
			c.complete(&b, nb, kind, msg, int64(c.conn.LastRead.Sub(c.r.base)))
		}
		c.publish(&b)
	}
	c.flushSamples()
}

func (c *client) reconnect() error {
	_ = c.conn.Close()
	conn, err := c.r.dial(c.r.addrs[c.srv])
	if err != nil {
		return err
	}
	c.conn = conn
	c.cur.Store(conn)
	c.sinceRe = 0
	return nil
}

func (c *client) fail(err error) {
	c.flushSamples()
	if c.r.stopping.Load() || c.r.ctx.Err() != nil {
		return // closed at shutdown: not an error
	}
	c.err = fmt.Errorf("%s: %w", c.r.addrs[c.srv], err)
}

func sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
