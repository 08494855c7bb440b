package server

import (
	"time"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
)

// WAITAOF (WAIT is in repl_primary.go). WAITAOF's local count is 1
// once everything the server appended before the call is fsynced: Corvid
// fsyncs at once rather than waiting for everysec's next second (the
// writes WAITAOF covers are a superset of the client's own); its replica
// count is the replicas whose REPLCONF ACK ... FACK reported the stream's
// offset at the call as fsynced. As in Valkey, asking for more blocks
// the client until its timeout (0: forever), CLIENT UNBLOCK or a
// disconnect, and inside MULTI (where nothing may block) the counts are
// replied at once. Both are BLOCKING commands, so a client runs them off
// its event loop.

// WAITAOF numlocal numreplicas timeout
func waitaofCommand(c *Client) {
	s := c.srv
	argv := c.ctx.Argv
	numlocal, ok := c.ctx.IntArg(1)
	if !ok {
		return
	}
	if numlocal < 0 || numlocal > 1 {
		c.w.Error("ERR value is out of range, value must between 0 and 1")
		return
	}
	numreplicas, ok := resp.ParseInt(argv[2])
	if !ok || numreplicas < 0 {
		c.w.Error("ERR value is out of range, must be positive")
		return
	}
	deadline, ok := c.ctx.TimeoutArg(3)
	if !ok {
		return
	}
	if numlocal > 0 && !s.aof.enabled.Load() {
		c.w.Error("ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.")
		return
	}
	if numreplicas > 0 && s.repl.isReplica.Load() {
		c.w.Error("ERR WAITAOF cannot be used with replica instances. Please also note that writes to replicas are just local and are not propagated.")
		return
	}
	target := s.replOffset()
	local := s.aofFsyncedNow()
	replicas := s.fsyncedReplicas(target)
	if replicas < numreplicas {
		s.repl.getack.Store(true)
		s.appendGetack()
	}
	for (local < numlocal || replicas < numreplicas) && !c.ctx.Locked {
		// The local fsync can only be missing while appendonly yes waits
		// for its rewrite to start: look again soon.
		until := deadline
		if local < numlocal {
			if soon := time.Now().Add(10 * time.Millisecond).UnixMilli(); until == 0 || soon < until {
				until = soon
			}
		}
		s.repl.mu.Lock()
		ch := s.repl.acks
		s.repl.mu.Unlock()
		why := c.blockUntilOr(until, ch)
		if why == blockReplied {
			return
		}
		local = s.aofFsyncedNow()
		replicas = s.fsyncedReplicas(target)
		if why == blockWoken || deadline > 0 && time.Now().UnixMilli() >= deadline {
			break
		}
	}
	c.w.ArrayLen(2)
	c.w.Int(local)
	c.w.Int(replicas)
}

// aofFsyncedNow fsyncs the AOF and reports 1 if everything appended so
// far is on disk, 0 when the AOF is off (or waits for its rewrite) or the
// fsync failed.
func (s *Server) aofFsyncedNow() int64 {
	g := s.aof.gen.Load()
	if g == nil || g.w.Fsync() != nil {
		return 0
	}
	return 1
}

// How blockUntil ended.
const (
	blockTimeout = iota // the deadline passed
	blockWoken          // CLIENT UNBLOCK (TIMEOUT), a disconnect, shutdown
	blockReplied        // CLIENT UNBLOCK ... ERROR: the error is written
	blockSignal         // the channel blockUntilOr watches was closed
)

// blockUntil parks c until deadline (unix ms; 0: none), CLIENT UNBLOCK, a
// disconnect or shutdown, the replies before it flushed and the client
// shown blocked meanwhile.
func (c *Client) blockUntil(deadline int64) int { return c.blockUntilOr(deadline, nil) }

// blockUntilOr is blockUntil that also ends (blockSignal) when ch closes.
func (c *Client) blockUntilOr(deadline int64, ch <-chan struct{}) int {
	select {
	case <-c.unblockCh(): // a CLIENT UNBLOCK that raced with an earlier wake-up
	default:
	}
	c.Flush()
	c.SetBlockDeadline(deadline > 0)
	c.SetBlocked(true)
	defer c.SetBlocked(false)
	var timer <-chan time.Time
	if deadline > 0 {
		t := time.NewTimer(time.Until(time.UnixMilli(deadline)))
		defer t.Stop()
		timer = t.C
	}
	select {
	case <-timer:
		return blockTimeout
	case <-ch:
		return blockSignal
	case u := <-c.unblockCh():
		if u == db.UnblockError {
			c.w.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")
			return blockReplied
		}
	case <-c.Disconnected():
	case <-c.srv.stop:
	case <-c.srv.leaving:
	}
	return blockWoken
}
