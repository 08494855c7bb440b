package server

import (
	"sync/atomic"

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
	// obuf is client-output-buffer-limit per client class (outbuf.go).
	obuf obufLimits
}

func (h *hotConfig) load(cfg *config.Config) {
	h.timeoutSec.Store(int64(cfg.Timeout()))
	h.maxBulk.Store(cfg.ProtoMaxBulkLen())
	h.maxQuery.Store(cfg.ClientQueryBufferLimit())
	h.slowlogUsec.Store(cfg.SlowlogLogSlowerThan())
	h.slowlogMaxLen.Store(cfg.SlowlogMaxLen())
	v, pct := cfg.MaxmemoryClients()
	if pct {
		v = int64(float64(cfg.MaxMemory()) * float64(v) / 100)
	}
	h.maxMemClients.Store(v)
	h.obuf.load(cfg.ClientOutputBufferLimits())
}

// clock is the start time of the next command in tsc ticks: the end of
// the previous command of the same batch, or a fresh reading.
func (c *Client) clock() int64 {
	if c.lastEnd != 0 {
		return c.lastEnd
	}
	return tsc.Now()
}
