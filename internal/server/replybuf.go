package server

import (
	"sync"
	"sync/atomic"
	"time"
)

// Reply buffer resizing, as Valkey's clientsCronResizeOutputBuffer.
//
// Valkey gives each client a reply buffer of 16 KiB (PROTO_REPLY_CHUNK_BYTES)
// that its cron resizes: once a second or so it shrinks a buffer whose peak
// use (since the peak was last reset) is under half its size to that peak
// (at least 1 KiB, PROTO_REPLY_MIN_BYTES), and doubles one whose peak filled
// it (up to 16 KiB); the peak is reset every reply-buffer peak reset time
// (5 s; DEBUG REPLYBUFFER PEAK-RESET-TIME), so an idle client's buffer comes
// down to 1 KiB. CLIENT LIST shows the size as rbs and the peak as rbp,
// INFO stats counts reply_buffer_shrinks and _expands.
//
// Corvid's reply buffer is the client's resp.Writer, which grows past its
// size when a batch's replies need it (where Valkey appends reply blocks);
// the peak counts what a flush found in it, up to the size, as Valkey's
// counts what its static buffer held. rbs is the size Valkey would give
// the buffer; the writer's own buffer never grows to it (it is allocated
// as replies need it) and is cut down to it once larger. The resizing runs where the client's
// owner can touch the writer: on its event loop's tick (OnTick, once a
// second) and, on the goroutine path, before each read and, while the
// client waits for input, from the clients cron under its idle lock
// (clientsCron; no read deadline: other goroutines may be reading its
// connection, a replica's ACK reader or a blocked client's watcher, and a
// deadline would cut them). It also gives back a buffer that grew past the
// size for a large batch, and after 2 s without input the client's empty
// buffers go altogether (releaseIdle).

const (
	replyMinBytes   = 1 << 10  // PROTO_REPLY_MIN_BYTES
	replyChunkBytes = 16 << 10 // PROTO_REPLY_CHUNK_BYTES
	// replyPeakResetDefault is REPLY_BUFFER_DEFAULT_PEAK_RESET_TIME (ms).
	replyPeakResetDefault = 5000
)

// replyBufSettings are DEBUG REPLYBUFFER's knobs and the INFO counters.
type replyBufSettings struct {
	peakReset atomic.Int64 // ms; -1: never
	off       atomic.Bool  // RESIZING 0
	shrinks   atomic.Int64
	expands   atomic.Int64
	// cronOnce starts the goroutine-path clients' cron (clientsCron) at
	// the first such client.
	cronOnce sync.Once
	// inPeak is the largest query buffer a client held in each of the
	// last seconds (by Unix second mod 8), for INFO
	// client_recent_max_input_buffer, as Valkey's ClientsPeakMemInput.
	inPeak [inPeakSlots]struct{ sec, max atomic.Int64 }
}

const inPeakSlots = 8 // CLIENTS_PEAK_MEM_USAGE_SLOTS

// noteInputPeak records that a client held a query buffer of n bytes at
// nowMs.
func (s *Server) noteInputPeak(nowMs, n int64) {
	sec := nowMs / 1000
	p := &s.rbufs.inPeak[sec%inPeakSlots]
	if old := p.sec.Load(); old != sec && p.sec.CompareAndSwap(old, sec) {
		p.max.Store(0)
	}
	for {
		old := p.max.Load()
		if n <= old || p.max.CompareAndSwap(old, n) {
			return
		}
	}
}

// recentMaxInput is INFO's client_recent_max_input_buffer: the largest
// query buffer noted in the last seconds, or held now by a client with an
// incomplete command.
func (s *Server) recentMaxInput(now time.Time, clients []*Client) int64 {
	sec := now.Unix()
	m := int64(0)
	for i := range s.rbufs.inPeak {
		p := &s.rbufs.inPeak[i]
		if sec-p.sec.Load() < inPeakSlots {
			m = max(m, p.max.Load())
		}
	}
	for _, c := range clients {
		if v := c.qbufPub.Load(); v>>32 > 0 {
			m = max(m, v>>32+int64(uint32(v)))
		}
	}
	return m
}

// replyBuf is a client's reply buffer state, owned by whoever runs its
// batches; pub mirrors size<<32|peak for other clients' CLIENT LIST.
type replyBuf struct {
	size, peak int
	resetAt    int64 // ms of the last peak reset
	pub        atomic.Int64
}

func (r *replyBuf) init() {
	r.size, r.peak = replyChunkBytes, replyChunkBytes
	r.publish()
}

func (r *replyBuf) publish() { r.pub.Store(int64(r.size)<<32 | int64(r.peak)) }

// published returns rbs and rbp as another goroutine may read them.
func (r *replyBuf) published() (size, peak int) {
	v := r.pub.Load()
	return int(v >> 32), int(uint32(v))
}

// notePeak records what a flush found in the writer (n bytes).
func (c *Client) notePeak(n int) {
	r := &c.rbuf
	if n > r.peak && r.peak < r.size {
		r.peak = min(n, r.size)
		r.publish()
	}
}

// replyBufCron resizes the client's reply buffer (see above). The writer
// must be empty (between batches).
func (c *Client) replyBufCron(nowMs int64) {
	s := c.srv
	r := &c.rbuf
	if s.rbufs.off.Load() {
		return
	}
	newSize := 0
	shrinkTo, expandTo := r.size/2, r.size*2
	switch {
	case shrinkTo >= replyMinBytes && r.peak < shrinkTo:
		newSize = max(replyMinBytes, r.peak+1)
		s.rbufs.shrinks.Add(1)
	case expandTo < replyChunkBytes*2 && r.peak == r.size:
		newSize = min(replyChunkBytes, expandTo)
		s.rbufs.expands.Add(1)
	}
	if t := s.rbufs.peakReset.Load(); t >= 0 && nowMs-r.resetAt >= t {
		r.peak = 0 // the writer is empty: Valkey's bufpos
		r.resetAt = nowMs
	}
	if newSize != 0 {
		r.size = newSize
	}
	r.publish()
	// The writer's buffer only ever comes down to the size: one larger
	// (a batch's replies grew it) is replaced by one of the size. One
	// that is smaller, or none (an idle client's: releaseIdle), is left
	// as it is: the writer grows as the next replies need, so making it
	// the size here would only allocate for a client that may never
	// reply again (issue 32: the first tick gave every idle client 16
	// KiB of garbage, then 1 KiB, before releaseIdle dropped it).
	if c.w.Cap() > r.size && c.w.Len() == 0 {
		c.w.Resize(r.size)
		c.noteMem()
	}
}

// idleAfter is how long without input makes a client idle for
// releaseIdle: Valkey's clientsCronResizeQueryBuffer frees an idle
// client's query buffer after 2 s.
const idleAfter = 2000 // ms

// releaseIdle gives back what a client idle for idleAfter holds between
// requests: the query buffer of an incomplete command shrinks to its
// bytes (resp.Reader.Trim), and the empty reply buffer goes (the writer
// allocates again with the next reply; rbs keeps following Valkey's
// resizing, which is what the client gets then). Valkey keeps its reply
// buffer (rbs, 1 KiB once shrunk) for an idle client; Corvid's writer
// grows as a reply needs. The caller owns the client (its loop's tick, or
// the clients cron holding the idle lock) and notes its memory if this
// reports a change.
func (c *Client) releaseIdle(nowMs int64) bool {
	if nowMs-c.lastActive.Load() <= idleAfter {
		return false
	}
	changed := c.rd.Trim()
	if c.w.Len() == 0 && c.w.Cap() != 0 {
		c.w.Resize(0)
		changed = true
	}
	return changed
}
