package server

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// errorStats counts error replies by their first word (errorstat_ERR etc.).
type errorStats struct {
	mu     sync.Mutex
	counts map[string]int64
}

func (e *errorStats) init() { e.counts = make(map[string]int64) }

func (e *errorStats) count(msg string) {
	// Valkey's afterErrorReply: the code ends at a space within the
	// first 32 bytes of "-CODE msg"; without one the error counts as ERR.
	code := "ERR"
	if i := strings.IndexByte(msg[:min(len(msg), 31)], ' '); i >= 0 {
		code = msg[:i]
	}
	e.mu.Lock()
	if len(e.counts) < 128 || e.counts[code] > 0 {
		e.counts[code]++
	}
	e.mu.Unlock()
}

// countReply counts an already written "-CODE msg\r\n" reply.
func (e *errorStats) countReply(b []byte) {
	end := 1
	for end < len(b) && b[end] != '\r' {
		end++
	}
	e.count(string(b[1:end]))
}

func (e *errorStats) snapshot() map[string]int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make(map[string]int64, len(e.counts))
	for k, v := range e.counts {
		out[k] = v
	}
	return out
}

func (e *errorStats) reset() {
	e.mu.Lock()
	e.counts = make(map[string]int64)
	e.mu.Unlock()
}

// pauseState implements CLIENT PAUSE: until the deadline, commands of the
// paused class wait before they run.
type pauseState struct {
	active   atomic.Bool // fast path: false unless a pause was requested
	mu       sync.Mutex
	until    time.Time
	writeOnl bool
	cond     chan struct{} // closed on unpause
	// failover counts the server's own pauses of writes (a FAILOVER, a
	// SHUTDOWN waiting for its replicas), apart from CLIENT PAUSE
	// (Valkey's pause purposes: CLIENT UNPAUSE does not end them); foDone
	// is closed when the last ends.
	failover int
	foDone   chan struct{}
}

func (p *pauseState) blocks(cm *cmd) bool {
	if !p.active.Load() {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failover > 0 && cm.meta.Flags&writeLike != 0 {
		return true
	}
	if p.until.IsZero() || time.Now().After(p.until) {
		return false
	}
	if !p.writeOnl {
		return true
	}
	return cm.meta.Flags&writeLike != 0
}

func (p *pauseState) wait(c *Client) {
	p.mu.Lock()
	until, ch, fo := p.until, p.cond, p.foDone
	if p.failover == 0 {
		fo = nil
	}
	p.mu.Unlock()
	c.flush()
	var timer <-chan time.Time
	if !until.IsZero() && (fo == nil || time.Now().Before(until)) {
		t := time.NewTimer(time.Until(until))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-timer:
	case <-ch:
	case <-fo:
	case <-c.unblockCh():
	}
	c.batchNow = time.Now().UnixMilli()
	c.lastEnd = 0
}

func (p *pauseState) pause(d time.Duration, writeOnly bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	until := time.Now().Add(d)
	p.active.Store(true)
	if p.until.IsZero() || time.Now().After(p.until) {
		p.cond = make(chan struct{})
		p.until = until
		p.writeOnl = writeOnly
		return
	}
	if until.After(p.until) {
		p.until = until
	}
	// ALL wins over WRITE while both are in force, as in Valkey.
	p.writeOnl = p.writeOnl && writeOnly
}

func (p *pauseState) unpause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cond != nil {
		close(p.cond)
		p.cond = nil
	}
	p.until = time.Time{}
	p.active.Store(p.failover > 0)
}

// pauseFailover starts (on) or ends one of the server's own pauses of
// writes; they nest.
func (p *pauseState) pauseFailover(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if on {
		if p.failover == 0 {
			p.foDone = make(chan struct{})
		}
		p.failover++
		p.active.Store(true)
		return
	}
	if p.failover == 0 {
		return
	}
	p.failover--
	if p.failover == 0 {
		close(p.foDone)
		p.active.Store(!p.until.IsZero())
	}
}
