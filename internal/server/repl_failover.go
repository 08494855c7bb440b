package server

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
)

// FAILOVER: a coordinated hand-over from this primary to one of its
// replicas, as Valkey's. The primary pauses writes (its own pause
// purpose: CLIENT UNPAUSE does not end it), waits until the target (or,
// without TO, the first replica) acknowledged the whole stream, then
// becomes a replica of it with PSYNC <its replid> <offset+1> FAILOVER,
// which makes the target promote itself and continue the old primary's
// history (+CONTINUE with its new ID). With TIMEOUT the wait is bounded:
// past it the failover aborts, or with FORCE goes ahead anyway. Writes
// paused meanwhile are checked again when it ends (as replica, they get
// READONLY). Other replicas stay attached to the old primary, which now
// serves them the new primary's stream.

// Failover states, as INFO master_failover_state names them.
const (
	foNone = iota
	foWaitSync
	foInProgress
)

var foStateNames = [...]string{"no-failover", "waiting-for-sync", "failover-in-progress"}

type failoverState struct {
	mu     sync.Mutex
	state  atomic.Int32
	host   string // target; "" until one is chosen
	port   int
	force  bool
	end    time.Time // zero: no timeout
	abort  chan struct{}
	psyncF atomic.Bool // the link's next PSYNC carries FAILOVER
}

// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds]
func failoverCommand(c *Client) {
	s := c.srv
	f := &s.failover
	argv := c.ctx.Argv
	if s.cfg.ClusterEnabled() {
		c.w.Error("ERR FAILOVER not allowed in cluster mode. Use CLUSTER FAILOVER command instead.")
		return
	}
	if len(argv) == 2 && db.EqualFold(argv[1], "abort") {
		if f.state.Load() == foNone {
			c.w.Error("ERR No failover in progress.")
			return
		}
		s.abortFailover("Failover manually aborted")
		c.w.OK()
		return
	}
	var (
		timeout int64
		force   bool
		host    string
		port    int64
		hasTo   bool
	)
	for j := 1; j < len(argv); j++ {
		switch {
		case db.EqualFold(argv[j], "timeout") && j+1 < len(argv) && timeout == 0:
			n, ok := resp.ParseInt(argv[j+1])
			if !ok {
				c.w.Error("ERR value is not an integer or out of range")
				return
			}
			if n <= 0 {
				c.w.Error("ERR FAILOVER timeout must be greater than 0")
				return
			}
			timeout = n
			j++
		case db.EqualFold(argv[j], "to") && j+2 < len(argv) && !hasTo:
			n, ok := resp.ParseInt(argv[j+2])
			if !ok {
				c.w.Error("ERR value is not an integer or out of range")
				return
			}
			host, port, hasTo = string(argv[j+1]), n, true
			j += 2
		case db.EqualFold(argv[j], "force") && !force:
			force = true
		default:
			c.w.Error("ERR syntax error")
			return
		}
	}
	if f.state.Load() != foNone {
		c.w.Error("ERR FAILOVER already in progress.")
		return
	}
	if s.repl.isReplica.Load() {
		c.w.Error("ERR FAILOVER is not valid when server is a replica.")
		return
	}
	if len(s.replicasSnapshot()) == 0 {
		c.w.Error("ERR FAILOVER requires connected replicas.")
		return
	}
	if force && (timeout == 0 || !hasTo) {
		c.w.Error("ERR FAILOVER with force option requires both a timeout and target HOST and IP.")
		return
	}
	if hasTo {
		rep := s.findReplica(host, int(port))
		if rep == nil {
			c.w.Error("ERR FAILOVER target HOST and PORT is not a replica.")
			return
		}
		if rep.state.Load() != repOnline {
			c.w.Error("ERR FAILOVER target replica is not online.")
			return
		}
		s.log.notice("FAILOVER requested to %s:%d.", host, port)
	} else {
		s.log.notice("FAILOVER requested to any replica.")
	}
	f.mu.Lock()
	f.host, f.port, f.force = host, int(port), force
	f.end = time.Time{}
	if timeout > 0 {
		f.end = time.Now().Add(time.Duration(timeout) * time.Millisecond)
	}
	f.abort = make(chan struct{})
	abort := f.abort
	f.mu.Unlock()
	f.state.Store(foWaitSync)
	s.pause.pauseFailover(true)
	go s.runFailover(abort)
	c.w.OK()
}

// findReplica is the replica announced as host:port.
func (s *Server) findReplica(host string, port int) *replica {
	for _, rep := range s.replicasSnapshot() {
		if rep.ip == host && rep.port == port {
			return rep
		}
	}
	return nil
}

// runFailover waits for the target to catch up, then hands over.
func (s *Server) runFailover(abort chan struct{}) {
	f := &s.failover
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	lastAsk := time.Time{}
	for {
		select {
		case <-abort:
			return
		case <-s.stop:
			return
		case now := <-tick.C:
			f.mu.Lock()
			host, port, force, end := f.host, f.port, f.force, f.end
			f.mu.Unlock()
			if !end.IsZero() && !now.Before(end) {
				if force {
					s.log.notice("FAILOVER to %s:%d time out exceeded, failing over.", host, port)
					s.handOver(host, port)
				} else {
					s.abortFailover("Replica never caught up before timeout")
				}
				return
			}
			off := s.replOffset()
			var target *replica
			if host != "" {
				target = s.findReplica(host, port)
			} else {
				for _, rep := range s.replicasSnapshot() {
					if rep.state.Load() == repOnline && rep.ackOff.Load() == off {
						target = rep
						break
					}
				}
			}
			if target != nil && target.ackOff.Load() == off {
				s.log.notice("Failover target %s:%d is synced, failing over.", target.ip, target.port)
				s.handOver(target.ip, target.port)
				return
			}
			if now.Sub(lastAsk) >= 100*time.Millisecond {
				lastAsk = now
				s.repl.getack.Store(true)
				s.appendGetack()
			}
		}
	}
}

// handOver makes this server a replica of the target with PSYNC ...
// FAILOVER; the link ends the failover once the target answered.
func (s *Server) handOver(host string, port int) {
	f := &s.failover
	f.mu.Lock()
	f.host, f.port = host, port
	f.mu.Unlock()
	f.state.Store(foInProgress)
	f.psyncF.Store(true)
	s.startReplication(host, port, false)
}

// failoverPsyncDone is the link's report on a PSYNC ... FAILOVER: the
// target accepted it (the failover is over), or refused it (abort: the
// server is a primary again).
func (s *Server) failoverPsyncDone(ok bool) {
	f := &s.failover
	if !f.psyncF.Swap(false) || f.state.Load() != foInProgress {
		return
	}
	if ok {
		s.clearFailover()
		return
	}
	// On the link's goroutine, which abortFailover's stopReplication
	// waits for: abort from another.
	go s.abortFailover("Failover target rejected psync request")
}

// abortFailover ends a failover that did not complete; one already
// handing over turns the server back into a primary.
func (s *Server) abortFailover(why string) {
	f := &s.failover
	st := f.state.Load()
	if st == foNone {
		return
	}
	f.mu.Lock()
	host, port := f.host, f.port
	if f.abort != nil {
		close(f.abort)
		f.abort = nil
	}
	f.mu.Unlock()
	if host != "" {
		s.log.notice("FAILOVER to %s:%d aborted: %s", host, port, why)
	} else {
		s.log.notice("FAILOVER to any replica aborted: %s", why)
	}
	if st == foInProgress {
		f.psyncF.Store(false)
		s.stopReplication(false)
	}
	s.clearFailover()
}

func (s *Server) clearFailover() {
	f := &s.failover
	f.mu.Lock()
	f.host, f.port, f.force, f.end = "", 0, false, time.Time{}
	f.abort = nil
	f.mu.Unlock()
	f.state.Store(foNone)
	s.pause.pauseFailover(false)
}

// failoverStateName is INFO's master_failover_state.
func (s *Server) failoverStateName() string { return foStateNames[s.failover.state.Load()] }

// psyncFailoverTarget handles PSYNC <replid> <offset> FAILOVER on the
// target: a replica whose replid it is promotes itself first. It returns
// the error to reply, or "".
func (s *Server) psyncFailoverTarget(c *Client, id string) string {
	s.repl.mu.Lock()
	mine := s.repl.hist.ID
	s.repl.mu.Unlock()
	if id != mine {
		return "ERR PSYNC FAILOVER replid must match my replid."
	}
	if s.stopReplication(false) {
		s.log.notice("PRIMARY MODE enabled (failover request from '%s')", c.describe())
	}
	return ""
}

// waitReplicasForShutdown gives lagging replicas up to shutdown-timeout
// seconds to acknowledge the whole stream before a shutdown, writes
// paused meanwhile (Valkey's SHUTDOWN without NOW, and SIGTERM). It
// returns the function that ends the pause (a shutdown that fails goes
// on serving).
func (s *Server) waitReplicasForShutdown() (resume func()) {
	resume = func() {}
	t := s.cfg.ShutdownTimeout()
	if t <= 0 || s.repl.isReplica.Load() || len(s.replicasSnapshot()) == 0 {
		return
	}
	s.pause.pauseFailover(true)
	resume = func() { s.pause.pauseFailover(false) }
	s.log.notice("Waiting for replicas before shutting down.")
	target := s.replOffset()
	s.repl.getack.Store(true)
	s.appendGetack()
	deadline := time.Now().Add(time.Duration(t) * time.Second)
	for {
		lagging := 0
		for _, rep := range s.replicasSnapshot() {
			if rep.ackOff.Load() < target {
				lagging++
			}
		}
		if lagging == 0 {
			s.log.notice("All the replicas are in sync.")
			return
		}
		if time.Now().After(deadline) {
			for _, rep := range s.replicasSnapshot() {
				if off := rep.ackOff.Load(); off < target {
					s.log.warn("Lagging replica %s reported offset %d behind master, lag=%d, state=%s.",
						rep.name(), target-off, (time.Now().UnixMilli()-rep.ackTime.Load())/1000, repStateNames[max(rep.state.Load(), 0)])
				}
			}
			return
		}
		s.repl.mu.Lock()
		ch := s.repl.acks
		s.repl.mu.Unlock()
		select {
		case <-ch:
		case <-time.After(10 * time.Millisecond):
		}
	}
}
