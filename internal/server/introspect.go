package server

import (
	"crypto/rand"
	"encoding/hex"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/ds"
)

// serverExtras is the state behind the introspection commands: INFO's
// sampled rates and memory peak, the latency monitor and per-command latency
// histograms, the replication ids, LASTSAVE and DEBUG knobs.
//
// Ownership: every field is either immutable after newServerExtras or safe
// for concurrent use (atomics, or guarded by its own mutex). None of these
// mutexes is held while a keyspace stripe is taken, and none is taken while
// another lock is held except the stripes (they are leaves).
type serverExtras struct {
	ops, netIn, netOut rateSampler

	lat latencyMonitor
	// hists points at every command's histogram slot (cmd.hist); the key
	// set is fixed when the extras are built, so reads need no lock.
	hists map[*cmd]*histSlot

	peakMem atomic.Int64
	startup atomic.Int64 // used_memory_startup

	// releasing is set while releaseAfterFlush's goroutine runs;
	// releases counts the releases asked for, releasedUpTo is the value
	// releases had when the last FreeOSMemory started (for tests: a
	// release asked for while one runs is not lost).
	releasing    atomic.Bool
	releases     atomic.Int64
	releasedUpTo atomic.Int64
	lastRelease  atomic.Int64 // unix nanoseconds of the last release asked for
	idleReleases atomic.Int64 // releases asked for at the end of a burst (shrink.go)
	shrinkMark   atomic.Int64 // noteShrink's mark, for tests

	// Compaction (shrink.go): fragmented is set by a release that found
	// the heap's spans fragmented, compactAsked by the tick that asks
	// for a compacting release; values moved (INFO's active_defrag_hits
	// and active_defrag_key_hits) and the time spent, in microseconds
	// (total_active_defrag_time, in ms).
	fragmented   atomic.Bool
	compactAsked atomic.Bool
	defragHits   atomic.Int64
	defragTime   atomic.Int64

	lastSave atomic.Int64 // unix seconds, LASTSAVE

}

// histSlot is a command's latency histogram, one per stats shard (see
// statShards), each allocated on first use.
type histSlot struct {
	p [statShards]atomic.Pointer[latencyHist]
}

// record adds a call of ns nanoseconds to shard i.
func (s *histSlot) record(i int, ns int64) {
	h := s.p[i].Load()
	if h == nil {
		s.p[i].CompareAndSwap(nil, newLatencyHist())
		h = s.p[i].Load()
	}
	h.record(ns)
}

// merged returns the sum of the shards, or nil when none was used.
func (s *histSlot) merged() *latencyHist {
	var out *latencyHist
	for i := range s.p {
		h := s.p[i].Load()
		if h == nil {
			continue
		}
		if out == nil {
			out = newLatencyHist()
		}
		for j := range h.counts {
			if n := h.counts[j].Load(); n != 0 {
				out.counts[j].Add(n)
			}
		}
	}
	return out
}

func (s *Server) ext() *serverExtras { return s.extras }

func newServerExtras(s *Server) *serverExtras {
	e := &serverExtras{hists: make(map[*cmd]*histSlot)}
	for _, c := range s.table.cmds {
		e.hists[c] = &c.hist
		for _, sub := range c.subs {
			e.hists[sub] = &sub.hist
		}
	}
	e.lastSave.Store(s.start.Unix())
	e.lat.init()
	e.startupMem()
	return e
}

const zeroReplID = "0000000000000000000000000000000000000000"

func randomHex40() string {
	var b [20]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// startIntrospection starts the background sampler behind INFO's
// instantaneous_* fields. Serve calls it once; it stops with the server.
func (s *Server) startIntrospection() {
	e := s.ext()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(100 * time.Millisecond) // Valkey samples every 100 ms
		defer t.Stop()
		var shrink shrinkState
		for {
			select {
			case <-s.stop:
				return
			case now := <-t.C:
				if s.cronPaused.Load() {
					continue
				}
				ms := now.UnixMilli()
				e.ops.sample(s.stats.commands.Load(), ms)
				e.netIn.sample(s.stats.netInput.Load(), ms)
				e.netOut.sample(s.stats.netOutput.Load(), ms)
				used := s.usedMemory()
				e.notePeak(used)
				s.noteShrink(&shrink, used, now)
				tuneGoMemoryLimit()
				tuneGCPercent()
			}
		}
	}()
}

// observeCall records a finished command in the latency histograms
// (latency-tracking) and the latency monitor (latency-monitor-threshold),
// as Valkey's call() does.
//
// ns is the command's duration in nanoseconds.
func (s *Server) observeCall(cm *cmd, shard int, ns int64) {
	e := s.ext()
	if s.cfg.LatencyTracking() {
		cm.hist.record(shard, ns)
	}
	if th := s.cfg.LatencyMonitorThreshold(); th > 0 {
		if ms := ns / 1e6; ms >= th {
			event := "command"
			if cm.meta.Flags&command.FlagFast != 0 {
				event = "fast-command"
			}
			e.lat.add(event, ms)
		}
	}
}

// QuicklistPackedThreshold is DEBUG QUICKLIST-PACKED-THRESHOLD's value in
// bytes (default 1 GB), for the list encoding.
func (s *Server) QuicklistPackedThreshold() int64 { return ds.QuicklistPackedThreshold() }

// rateSampler is Valkey's instantaneous metric: a ring of the last 16
// per-second rates, each computed over one 100 ms sampling period.
type rateSampler struct {
	mu                   sync.Mutex
	samples              [16]int64
	idx                  int
	lastValue, lastMilli int64
}

func (r *rateSampler) sample(value, nowMs int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lastMilli > 0 {
		base := nowMs - r.lastMilli
		var avg int64
		if base > 0 {
			avg = (value - r.lastValue) * 1000 / base
		}
		r.samples[r.idx] = avg
		r.idx = (r.idx + 1) % len(r.samples)
	}
	r.lastMilli, r.lastValue = nowMs, value
}

// rate is the mean of the samples, per second.
func (r *rateSampler) rate() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sum int64
	for _, v := range r.samples {
		sum += v
	}
	return sum / int64(len(r.samples))
}

func (r *rateSampler) reset() {
	r.mu.Lock()
	r.samples = [16]int64{}
	r.idx, r.lastValue, r.lastMilli = 0, 0, 0
	r.mu.Unlock()
}

func (e *serverExtras) notePeak(used int64) {
	for {
		p := e.peakMem.Load()
		if used <= p || e.peakMem.CompareAndSwap(p, used) {
			return
		}
	}
}

// writeHelp writes a HELP reply in the layout of Valkey's addReplyHelp: a
// header naming the command, the body lines, and the HELP entry, each a
// status string. The body text is Corvid's own.
func (c *Client) writeHelp(cmdName string, lines []string) {
	w := c.w
	w.ArrayLen(len(lines) + 3)
	w.Simple(cmdName + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		w.Simple(l)
	}
	w.Simple("HELP")
	w.Simple("    Print this help.")
}

// subcommandSyntaxError is Valkey's addReplySubcommandSyntaxError, for a
// known subcommand used with the wrong arguments.
func (c *Client) subcommandSyntaxError() {
	argv := c.ctx.Argv
	c.w.Error("ERR unknown subcommand or wrong number of arguments for '" + trunc(cstr(argv[1]), 128) +
		"'. Try " + upperASCII(cstr(argv[0])) + " HELP.")
}

func upperASCII(s string) string {
	b := []byte(s)
	for i, ch := range b {
		if 'a' <= ch && ch <= 'z' {
			b[i] = ch - 32
		}
	}
	return string(b)
}

// keysHeld reports whether the running command already holds every stripe
// (inside EXEC); server procedures must then not lock stripes themselves.
// A nil client (the metrics endpoint renders INFO without one) holds none.
func (c *Client) keysHeld() bool { return c != nil && c.ctx.Locked }

// lockKey locks the stripe of key unless every stripe is held already and
// returns the matching unlock.
func (c *Client) lockKey(key []byte) func() {
	if c.ctx.Locked {
		return func() {}
	}
	ks := c.srv.ks
	st := ks.StripeOf(key)
	ks.LockStripe(st)
	return func() { ks.UnlockStripe(st) }
}

// withKey runs fn with key's stripe locked (see lockKey); the unlock is
// deferred, so a panic in fn (a bug) cannot leave the stripe locked.
func (c *Client) withKey(key []byte, fn func()) {
	unlock := c.lockKey(key)
	defer unlock()
	fn()
}

// withAllKeys runs fn with every stripe locked (see lockAllKeys); the
// unlock is deferred as in withKey.
func (c *Client) withAllKeys(fn func()) {
	unlock := c.lockAllKeys()
	defer unlock()
	fn()
}

// lockAllKeys locks every stripe unless they are held already; while it
// is in force ctx.Locked is set so nested helpers do not lock again.
func (c *Client) lockAllKeys() func() {
	if c.ctx.Locked {
		return func() {}
	}
	ks := c.srv.ks
	ks.LockAll()
	c.ctx.Locked = true
	return func() {
		c.ctx.Locked = false
		ks.UnlockAll()
	}
}
