package server

import (
	"sync/atomic"
	"time"
	_ "unsafe" // for go:linkname

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/tsc"
)

// hotConfig caches the config values read on every request, so the
// connection loop does not go through the config table's lookup each time.
// applyConfig refreshes it after start-up and after every CONFIG SET.
type hotConfig struct {
	timeoutSec    atomic.Int64
	maxBulk       atomic.Int64
	maxQuery      atomic.Int64
	slowlogUsec   atomic.Int64
	slowlogMaxLen atomic.Int64
	// maxMemClients is maxmemory-clients in bytes (a percentage resolved
	// against maxmemory); 0 disables client eviction.
	maxMemClients atomic.Int64
}

func (h *hotConfig) load(cfg *config.Config) {
	h.timeoutSec.Store(cfg.Int("timeout"))
	h.maxBulk.Store(cfg.ProtoMaxBulkLen())
	h.maxQuery.Store(cfg.ClientQueryBufferLimit())
	h.slowlogUsec.Store(cfg.Int("slowlog-log-slower-than"))
	h.slowlogMaxLen.Store(cfg.Int("slowlog-max-len"))
	v, pct := cfg.MaxmemoryClients()
	if pct {
		v = int64(float64(cfg.MaxMemory()) * float64(v) / 100)
	}
	h.maxMemClients.Store(v)
}

// nanotime is the runtime's monotonic clock. time.Now reads both the wall
// and the monotonic clock; a batch needs the wall clock in milliseconds
// only, derived from one monotonic reading (wallMs). Commands are timed
// with package tsc's cheaper counter.
//
//go:linkname nanotime runtime.nanotime
func nanotime() int64

// clock is the start time of the next command in tsc ticks: the end of
// the previous command of the same batch, or a fresh reading.
func (c *Client) clock() int64 {
	if c.lastEnd != 0 {
		return c.lastEnd
	}
	return tsc.Now()
}

// wallOffset is the Unix time in nanoseconds minus nanotime(), refreshed
// every 100 ms by the introspection sampler (refreshWall). A batch on the
// event loops needs the wall clock in milliseconds (expiry, idle times);
// deriving it from one monotonic reading costs one vDSO call instead of
// time.Now's two. A step of the system clock shows up at the next
// refresh, within 100 ms; Valkey's cached mstime is refreshed once per
// event-loop iteration, which on a busy server is the same order.
var wallOffset atomic.Int64

func init() { refreshWall() }

func refreshWall() { wallOffset.Store(time.Now().UnixNano() - nanotime()) }

// wallMs is the Unix time in milliseconds at monotonic instant mono.
func wallMs(mono int64) int64 { return (mono + wallOffset.Load()) / 1e6 }
