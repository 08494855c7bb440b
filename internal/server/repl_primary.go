package server

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/aof"
	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/repl"
	"github.com/corvid-kv/corvid/internal/resp"
	"github.com/corvid-kv/corvid/internal/snapshot"
	"github.com/corvid-kv/corvid/internal/tlsrec"
	"golang.org/x/sys/unix"
)

// Replication, the primary's side (docs/architecture.md, "Replication").
//
// The stream replicas receive is the effects stream: replSink encodes
// each committed unit (with a SELECT whenever the database changes) into
// one repl.Buffer, which is both the backlog partial resyncs are served
// from and the queue every replica's sender reads at its own pace. The
// buffer exists from the first SYNC/PSYNC on (and, on a replica, from
// its first sync: there the link goroutine appends the bytes its primary
// sent, so sub-replicas receive them unchanged and at the same offsets).
//
// A replica's connection is served by the goroutine that ran its PSYNC
// (a loop client leaves its loop for it: PSYNC and SYNC are off-loop
// commands); a second goroutine reads its REPLCONF ACKs. A full sync is a
// snapshot (package snapshot) whose point in time, every stripe held,
// fixes the offset sent in +FULLRESYNC and where the replica's reader
// starts; replicas that ask while none is starting wait for
// repl-diskless-sync-delay and share one.
//
// Locks: replState.mu is taken after the stripes (a snapshot's AtStart
// takes it with every stripe held) and the effects stream's mutex is
// never taken under it; repl.Buffer's mutex is a leaf. A replica's
// connection is written by one goroutine at a time (replica.wmu).

// Replica states, as INFO names them.
const (
	repWaitBgsave = iota // waiting for, or in, the snapshot
	repSendBulk          // the RDB is being sent
	repOnline            // streaming
)

var repStateNames = [...]string{"wait_bgsave", "send_bulk", "online"}

// replica is one connected replica (a client that sent SYNC or PSYNC).
type replica struct {
	c        *Client
	conn     net.Conn
	wmu      sync.Mutex // writes to conn
	ip       string
	port     int // REPLCONF listening-port
	state    atomic.Int32
	ackOff   atomic.Int64
	fackOff  atomic.Int64 // the offset the replica reported fsynced (FACK)
	ackTime  atomic.Int64 // unix ms of the last ACK
	acked    chan struct{}
	ackOnce  sync.Once
	rd       atomic.Pointer[repl.Reader] // set when its stream is decided
	started  atomic.Bool                 // its snapshot began: no more keepalives
	synced   chan error                  // the full sync's outcome
	done     chan struct{}               // closed when the connection ends
	doneOnce sync.Once
	diskless bool
	psync    bool // PSYNC (SYNC gets no +FULLRESYNC line)
	capaEOF  bool
	fnOnly   bool // REPLCONF rdb-filter-only: no data
	noFn     bool // ... and no functions either (an empty filter)
	psync2   bool
	since    time.Time
}

func (r *replica) close() {
	r.doneOnce.Do(func() { close(r.done) })
	r.conn.Close()
}

// write sends p to the replica under its write lock.
func (r *replica) write(p []byte) error {
	r.wmu.Lock()
	defer r.wmu.Unlock()
	r.conn.SetWriteDeadline(time.Now().Add(time.Minute))
	_, err := r.conn.Write(p)
	return err
}

// replState is the server's replication state, both roles.
type replState struct {
	mu       sync.Mutex
	hist     repl.History
	off      int64 // master_repl_offset while there is no buffer
	buf      atomic.Pointer[repl.Buffer]
	detach   func()
	replicas []*replica
	pending  []*replica // waiting for a full sync to start
	syncing  bool
	noneAt   time.Time // when the last replica left (repl-backlog-ttl)
	lastPing time.Time
	acks     chan struct{} // closed and replaced on every ACK

	// The sink's own state, under the effects stream's mutex: the
	// stream's encoder (its selected database); reselect makes the next
	// unit select its database whatever the encoder thinks.
	enc      aof.Encoder
	reselect atomic.Bool
	scratch  []byte

	getack atomic.Bool // a WAIT asked for REPLCONF GETACK

	// The replica role (repl_replica.go).
	link      *primaryLink // under mu; nil while a primary
	isReplica atomic.Bool
	// leaving is the link stopReplication took, until the server
	// accepts writes (under mu): ROLE and INFO keep reporting the
	// replica role until then, so a client that saw "master" can write.
	leaving *primaryLink

	// restoredDB: the stream's database the start-up RDB recorded, for
	// the first link (a restarted replica continues its stream there).
	restoredDB int

	fullSyncs, partialOK, partialErr atomic.Int64
	goodReplicas                     atomic.Int64
}

func (s *Server) initRepl() {
	r := &s.repl
	r.hist = repl.NewHistory()
	r.acks = make(chan struct{})
	for _, name := range []string{"replica-read-only", "replica-serve-stale-data", "min-replicas-to-write", "min-replicas-max-lag"} {
		s.cfg.OnChange(name, func(*config.Config) error { s.updateDiskDeny(); return nil })
	}
	s.cfg.OnChange("repl-backlog-size", func(c *config.Config) error {
		if b := r.buf.Load(); b != nil {
			b.SetSize(c.ReplBacklogSize())
		}
		return nil
	})
	s.cfg.OnChange("replica-ignore-maxmemory", func(c *config.Config) error {
		s.ks.SetIgnoreMaxmemory(r.isReplica.Load() && c.ReplicaIgnoreMaxmemory())
		return nil
	})
}

// replIDs are master_replid and master_replid2.
func (s *Server) replIDs() (string, string) {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	return s.repl.hist.ID, s.repl.hist.ID2
}

// replOffset is master_repl_offset.
func (s *Server) replOffset() int64 {
	if b := s.repl.buf.Load(); b != nil {
		return b.End()
	}
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	return s.repl.off
}

// ensureBuffer makes the replication buffer (the backlog) if there is
// none, attaching the effects sink on a primary. Under r.mu.
func (s *Server) ensureBuffer() *repl.Buffer {
	r := &s.repl
	if b := r.buf.Load(); b != nil {
		return b
	}
	b := repl.NewBuffer(r.off, s.cfg.ReplBacklogSize())
	r.buf.Store(b)
	if len(r.replicas) == 0 {
		r.noneAt = time.Now() // repl-backlog-ttl counts from here
	}
	r.reselect.Store(true)
	if r.detach == nil {
		r.detach = s.ks.Effects.Attach(replSink{s})
	}
	return b
}

// replSink appends committed units to the replication buffer.
type replSink struct{ s *Server }

func (k replSink) Write(u *effects.Unit) {
	r := &k.s.repl
	if r.isReplica.Load() {
		return // a replica forwards its primary's bytes instead
	}
	b := r.buf.Load()
	if b == nil {
		return
	}
	if r.reselect.Swap(false) {
		r.enc.Reset()
	}
	// The AOF's encoding: a SELECT before an op whose database is not
	// the selected one, inside MULTI when the unit is wrapped (Valkey
	// propagates MULTI with no database).
	out := r.enc.AppendUnit(r.scratch[:0], u)
	b.Append(out)
	if cap(out) > 1<<20 {
		out = nil
	}
	r.scratch = out
}

// appendStream adds a command that is not a change of the dataset (PING,
// REPLCONF GETACK, PUBLISH) to a primary's stream.
func (s *Server) appendStream(argv ...[]byte) {
	if s.repl.isReplica.Load() {
		return
	}
	if b := s.repl.buf.Load(); b != nil {
		b.AppendKick(effects.AppendCommand(nil, argv...))
	}
}

// A sender that wrote less than replCoalesce bytes waits replGap before
// its next write, so that under a stream of small commands a replica's
// connection carries ~1,000 writes a second rather than one per round.
const (
	replCoalesce = 8 << 10
	replGap      = 500 * time.Microsecond
)

// replKick wakes the replicas' senders for what was appended since they
// last woke: an event loop calls it at the end of each round, a client
// off the loops after each batch (replSink only appends), so a replica
// gets a round's commands in one write, as Valkey writes its replicas'
// output once per event-loop iteration.
func (s *Server) replKick() {
	if b := s.repl.buf.Load(); b != nil {
		b.Kick()
	}
}

// replicaConn returns a connection the replica's two goroutines can use
// at once: the client's own on the goroutine path, a duplicate of a loop
// connection's socket (detached: the loop no longer looks at it) in Go's
// poller otherwise.
func (c *Client) replicaConn() (net.Conn, error) {
	if c.nc == nil {
		return c.conn, nil
	}
	fd, err := unix.Dup(c.nc.FD())
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), "replica")
	defer f.Close()
	conn, err := net.FileConn(f)
	if err != nil {
		return nil, err
	}
	if sess, ok := c.nc.Codec().(*tlsrec.Session); ok { // TLS on the loops
		plain, raw := c.nc.CodecInput()
		return newSessConn(conn, sess, plain, raw), nil
	}
	return conn, nil
}

// SYNC, and PSYNC replicationid offset
func syncCommand(c *Client) {
	s := c.srv
	r := &s.repl
	if c.replica.Load() != nil {
		return // a replica's second SYNC is ignored, as Valkey
	}
	argv := c.ctx.Argv
	if len(argv) > 3 && db.EqualFold(argv[0], "psync") && db.EqualFold(argv[3], "failover") {
		if msg := s.psyncFailoverTarget(c, string(argv[1])); msg != "" {
			c.w.Error(msg)
			return
		}
	}
	if r.isReplica.Load() && !s.linkUp() {
		c.w.Error("NOMASTERSYNC Can't SYNC while not connected with my master")
		return
	}
	if c.w.Len() > 0 {
		c.w.Error("SYNC and PSYNC are invalid with pending output")
		return
	}
	psync := db.EqualFold(c.ctx.Argv[0], "psync")
	var wantID string
	var wantOff int64
	if psync {
		n, ok := resp.ParseInt(c.ctx.Argv[2])
		if !ok {
			c.w.Error("ERR value is not an integer or out of range")
			return
		}
		wantID, wantOff = string(c.ctx.Argv[1]), n
	}
	conn, err := c.replicaConn()
	if err != nil {
		c.closeAfter = true
		return
	}
	rc := c.replConf
	if rc == nil {
		rc = &replConf{}
	}
	rep := &replica{c: c, conn: conn, port: rc.port, ip: replicaIP(c), acked: make(chan struct{}),
		synced: make(chan error, 1), done: make(chan struct{}), capaEOF: rc.capaEOF, psync2: rc.capaPsync2, since: time.Now()}
	if a := rc.announceIP; a != "" {
		rep.ip = a
	}
	rep.psync = psync
	// Set before rep is published in r.pending: the cron reads them
	// there. A filtered transfer (rdb-filter-only functions) is always
	// diskless and a snapshot of its own: it must not replace dbfilename
	// nor be shared with replicas that want the data.
	rep.fnOnly = rc.fnOnly
	rep.noFn = rc.noFn
	rep.diskless = rep.capaEOF && (s.cfg.ReplDisklessSync() || rep.fnOnly)
	rep.ackTime.Store(time.Now().UnixMilli())
	c.replica.Store(rep)
	c.closeAfter = true
	defer func() {
		rep.close()
		if rd := rep.rd.Load(); rd != nil {
			rd.Close()
		}
		s.dropReplica(rep)
		if conn != c.conn {
			conn.Close()
		}
		s.log.notice("Connection with replica %s lost.", rep.name())
	}()
	go s.readAcks(rep)

	r.mu.Lock()
	b := s.ensureBuffer()
	r.replicas = append(r.replicas, rep)
	partial := psync && r.hist.Continues(wantID, wantOff) && b.Has(wantOff)
	id := r.hist.ID
	if partial {
		rd := b.Reader(wantOff)
		rep.rd.Store(rd)
		partial = rd != nil
	}
	if !partial {
		r.pending = append(r.pending, rep)
	}
	r.mu.Unlock()

	if partial {
		r.partialOK.Add(1)
		reply := "+CONTINUE\r\n"
		if rep.psync2 {
			reply = "+CONTINUE " + id + "\r\n"
		}
		if rep.write([]byte(reply)) != nil {
			return
		}
		rep.state.Store(repOnline)
		s.log.notice("Partial resynchronization request from %s accepted. Sending %d bytes of backlog starting from offset %d.", rep.name(), b.End()+1-wantOff, wantOff)
		s.sendStream(rep)
		return
	}
	if psync && wantID != "?" {
		r.partialErr.Add(1)
		s.log.notice("Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '%s', my replication IDs are '%s' and '%s')", wantID, r.hist.ID, r.hist.ID2)
	} else {
		s.log.notice("Replica %s asks for synchronization", rep.name())
	}
	r.fullSyncs.Add(1)
	// Keep the link alive with newlines until the snapshot starts.
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case err := <-rep.synced:
			if err != nil {
				s.log.warn("Full sync of replica %s failed: %v", rep.name(), err)
				return
			}
			if rc.rdbOnly {
				s.log.notice("Replica %s is rdb-only: closing the connection after the transfer", rep.name())
				return
			}
			if rep.diskless {
				// Valkey starts a diskless replica's stream once it
				// acknowledged the load.
				select {
				case <-rep.acked:
				case <-rep.done:
					return
				}
			}
			rep.state.Store(repOnline)
			s.log.notice("Synchronization with replica %s succeeded", rep.name())
			s.sendStream(rep)
			return
		case <-tick.C:
			// Under the write lock: once the snapshot started no newline
			// may fall inside its payload (one before +FULLRESYNC is
			// fine: replicas skip them).
			rep.wmu.Lock()
			var err error
			if !rep.started.Load() {
				_, err = rep.conn.Write([]byte("\n"))
			}
			rep.wmu.Unlock()
			if err != nil {
				return
			}
		case <-rep.done:
			return
		case <-s.stop:
			return
		}
	}
}

func replicaIP(c *Client) string {
	addr := c.peerAddr()
	if h, _, err := net.SplitHostPort(addr); err == nil {
		return h
	}
	return addr
}

func (r *replica) name() string { return net.JoinHostPort(r.ip, strconv.Itoa(r.port)) }

// sendStream writes the replica's reader to its connection until one of
// them ends.
func (s *Server) sendStream(rep *replica) {
	rd := rep.rd.Load()
	// Units committed off the clients' paths (active expiry, eviction)
	// are not followed by a kick: the ticker picks them up.
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		p := rd.Next()
		if p == nil {
			select {
			case <-rd.Ready():
				continue
			case <-tick.C:
				continue
			case <-rep.done:
				return
			case <-s.stop:
				return
			}
		}
		if rd.Closed() || rep.write(p) != nil {
			return
		}
		if len(p) < replCoalesce {
			// A small write: let more commands gather before the next
			// one (a write and the replica's read of it cost more than
			// the commands they carry; Valkey writes once per iteration).
			time.Sleep(replGap)
		}
		s.stats.netReplOutput.Add(int64(len(p)))
	}
}

// readAcks reads what a replica sends (REPLCONF ACK, FACK, GETACK
// replies are not expected) until its connection ends.
func (s *Server) readAcks(rep *replica) {
	defer rep.close()
	rd := resp.NewReader()
	for {
		_, err := rd.Fill(rep.conn)
		for {
			argv, perr := rd.Next()
			if perr != nil || argv == nil {
				if perr != nil {
					return
				}
				break
			}
			if len(argv) >= 3 && db.EqualFold(argv[0], "replconf") && db.EqualFold(argv[1], "ack") {
				if n, ok := resp.ParseInt(argv[2]); ok {
					if len(argv) >= 5 && db.EqualFold(argv[3], "fack") {
						if f, ok := resp.ParseInt(argv[4]); ok {
							rep.fackOff.Store(f)
						}
					}
					rep.ackOff.Store(n)
					rep.ackTime.Store(time.Now().UnixMilli())
					rep.ackOnce.Do(func() { close(rep.acked) })
					s.noteAck()
				}
			}
		}
		if err != nil {
			return
		}
	}
}

// noteAck wakes the WAITs.
func (s *Server) noteAck() {
	r := &s.repl
	r.mu.Lock()
	close(r.acks)
	r.acks = make(chan struct{})
	r.mu.Unlock()
}

func (s *Server) dropReplica(rep *replica) {
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, x := range r.replicas {
		if x == rep {
			r.replicas = append(r.replicas[:i], r.replicas[i+1:]...)
			break
		}
	}
	for i, x := range r.pending {
		if x == rep {
			r.pending = append(r.pending[:i], r.pending[i+1:]...)
			break
		}
	}
	if len(r.replicas) == 0 {
		r.noneAt = time.Now()
	}
}

// replicasSnapshot copies the replica list.
func (s *Server) replicasSnapshot() []*replica {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	return append([]*replica(nil), s.repl.replicas...)
}

// replCron runs ten times a second: starts full syncs, pings replicas,
// drops those that stopped acknowledging (repl-timeout) or fell too far
// behind (client-output-buffer-limit replica), frees a backlog nobody
// used for repl-backlog-ttl, and counts the good replicas
// (min-replicas-to-write).
func (s *Server) replCron() { s.every(100*time.Millisecond, s.replCronOnce) }

func (s *Server) replCronOnce(now time.Time) {
	r := &s.repl
	s.maybeStartSync(now)
	reps := s.replicasSnapshot()
	timeout := time.Duration(s.cfg.ReplTimeout()) * time.Second
	good := int64(0)
	maxLag := s.cfg.MinReplicasMaxLag()
	lim := s.cfg.ClientOutputBufferLimits()[clientTypeReplica]
	for _, rep := range reps {
		if rep.state.Load() != repOnline {
			continue
		}
		last := time.UnixMilli(rep.ackTime.Load())
		if now.Sub(last) > timeout && rep.psync2 {
			// Replicas that never ACK (SYNC of an old client) are kept.
			s.log.warn("Disconnecting timedout replica (streaming sync): %s", rep.name())
			rep.close()
			continue
		}
		if rd := rep.rd.Load(); rd != nil && lim.HardBytes > 0 && rd.Lag() > int64(lim.HardBytes) {
			s.log.warn("Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", rep.name())
			s.stats.obufLimitDisc.Add(1)
			rep.close()
			continue
		}
		if int64(now.Sub(last)/time.Second) <= maxLag {
			good++
		}
	}
	r.goodReplicas.Store(good)
	s.updateDiskDeny()
	if r.isReplica.Load() {
		return
	}
	if len(reps) > 0 {
		period := time.Duration(s.cfg.ReplPingReplicaPeriod()) * time.Second
		r.mu.Lock()
		due := now.Sub(r.lastPing) >= period
		if due {
			r.lastPing = now
		}
		r.mu.Unlock()
		if due {
			s.appendStream([]byte("PING"))
		}
	}
	if r.getack.Swap(false) {
		s.appendStream([]byte("REPLCONF"), []byte("GETACK"), []byte("*"))
	}
	// The backlog of a primary without replicas goes after
	// repl-backlog-ttl, with the history it held.
	if ttl := s.cfg.ReplBacklogTTL(); ttl > 0 && len(reps) == 0 {
		r.mu.Lock()
		if b := r.buf.Load(); b != nil && !r.noneAt.IsZero() && now.Sub(r.noneAt) > time.Duration(ttl)*time.Second {
			r.off = b.End()
			r.buf.Store(nil)
			if r.detach != nil {
				r.detach()
				r.detach = nil
			}
			r.hist.Clear()
			s.log.notice("Replication backlog freed after %d seconds without connected replicas.", ttl)
		}
		r.mu.Unlock()
	}
}

// maybeStartSync starts a full sync for the replicas waiting for one,
// once repl-diskless-sync-delay passed for a diskless one (or enough
// replicas wait) and no other snapshot runs.
func (s *Server) maybeStartSync(now time.Time) {
	r := &s.repl
	r.mu.Lock()
	if r.syncing || len(r.pending) == 0 {
		r.mu.Unlock()
		return
	}
	diskless, fnOnly := r.pending[0].diskless, r.pending[0].fnOnly
	if diskless && !fnOnly {
		delay := time.Duration(s.cfg.ReplDisklessSyncDelay()) * time.Second
		maxRep := int(s.cfg.ReplDisklessSyncMaxReplicas())
		if now.Sub(r.pending[0].since) < delay && (maxRep == 0 || len(r.pending) < maxRep) {
			r.mu.Unlock()
			return
		}
	}
	var reps, rest []*replica
	for i, rep := range r.pending {
		// A filtered transfer is a snapshot of its own.
		if i == 0 || !fnOnly && !rep.fnOnly && rep.diskless == diskless {
			reps = append(reps, rep)
		} else {
			rest = append(rest, rep)
		}
	}
	r.pending = rest
	r.syncing = true
	r.mu.Unlock()
	if !s.startFullSync(reps, diskless, fnOnly) {
		// Another snapshot runs: try again on the next tick.
		r.mu.Lock()
		r.pending = append(reps, r.pending...)
		r.syncing = false
		r.mu.Unlock()
	}
}

// startFullSync takes the snapshot for reps and sends it on a goroutine
// of its own; false if a save or rewrite runs.
func (s *Server) startFullSync(reps []*replica, diskless, fnOnly bool) bool {
	r := &s.repl
	rs := &s.rdb
	rs.begin.Lock()
	defer rs.begin.Unlock()
	if s.saveRunning() {
		return false
	}
	if running, _ := s.rewriteRunning(); running {
		return false
	}
	info := &rdb.ReplInfo{}
	opts := s.rdbOptions()
	opts.RDB.Repl = info
	opts.FunctionsOnly = fnOnly
	if fnOnly && reps[0].noFn {
		opts.Functions = nil
	}
	opts.AtStart = func() {
		// Every stripe is held: no unit is being committed.
		r.mu.Lock()
		b := s.ensureBuffer()
		off := b.End()
		for _, rep := range reps {
			rep.started.Store(true)
			rep.rd.Store(b.Reader(off + 1))
		}
		info.ID, info.Offset = r.hist.ID, off
		r.mu.Unlock()
		r.reselect.Store(true)
	}
	dirty := s.ks.Dirty()
	snap := snapshot.Begin(s.ks, opts)
	rs.mu.Lock()
	rs.dirtyAtStart = dirty
	rs.cur, rs.curBg, rs.curDone, rs.bgStart = snap, true, make(chan struct{}), time.Now()
	rs.bgRunning.Store(true)
	done := rs.curDone
	rs.mu.Unlock()
	target := "disk"
	if diskless {
		target = "replicas sockets"
	}
	s.log.notice("Starting BGSAVE for SYNC with target: %s", target)
	for _, rep := range reps {
		line := "+FULLRESYNC " + info.ID + " " + strconv.FormatInt(info.Offset, 10) + "\r\n"
		if !rep.psync {
			line = "" // SYNC has no such line
		}
		if line != "" && rep.write([]byte(line)) != nil {
			rep.close()
		}
		s.log.notice("Full resync requested by replica %s", rep.name())
	}
	go func() {
		var err error
		if diskless {
			err = s.sendDiskless(snap, reps)
			s.endReplSave(err, done)
		} else {
			err = s.finishSave(snap, done)
			if err == nil {
				err = s.sendRDBFile(reps)
			}
		}
		r.mu.Lock()
		r.syncing = false
		r.mu.Unlock()
		for _, rep := range reps {
			rep.synced <- err
		}
	}()
	return true
}

// endReplSave ends a diskless sync's snapshot (no file, no LASTSAVE).
func (s *Server) endReplSave(err error, done chan struct{}) {
	rs := &s.rdb
	rs.mu.Lock()
	rs.cur = nil
	rs.bgRunning.Store(false)
	rs.mu.Unlock()
	close(done)
	if err == nil {
		s.log.notice("Background RDB transfer terminated with success")
	} else {
		s.log.warn("Background transfer error: %v", err)
	}
}

// fanout writes to every replica still connected; it fails only when
// none is left.
type fanout struct{ reps []*replica }

func (f *fanout) Write(p []byte) (int, error) {
	alive := 0
	for _, rep := range f.reps {
		if rep.state.Load() == -1 {
			continue
		}
		if rep.write(p) != nil {
			rep.state.Store(-1)
			rep.close()
			continue
		}
		alive++
	}
	if alive == 0 {
		return 0, io.ErrClosedPipe
	}
	return len(p), nil
}

// sendDiskless writes the snapshot straight to the replicas' sockets
// between two EOF marks.
func (s *Server) sendDiskless(snap *snapshot.Snapshot, reps []*replica) error {
	mark := repl.NewMark()
	for _, rep := range reps {
		rep.state.Store(repWaitBgsave)
	}
	f := &fanout{reps: reps}
	w := bufio.NewWriterSize(f, 64<<10)
	w.WriteString("$EOF:")
	w.Write(mark)
	w.WriteString("\r\n")
	if _, err := snap.Save(w); err != nil {
		return err
	}
	w.Write(mark)
	if err := w.Flush(); err != nil {
		return err
	}
	for _, rep := range reps {
		if rep.state.Load() != -1 {
			rep.state.Store(repSendBulk)
		}
	}
	return nil
}

// sendRDBFile sends the RDB file the snapshot wrote to each replica, as
// "$<length>\r\n" and the file.
func (s *Server) sendRDBFile(reps []*replica) error {
	path := s.rdbPath()
	for _, rep := range reps {
		rep.state.Store(repSendBulk)
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		st, err := f.Stat()
		if err == nil {
			err = rep.write([]byte("$" + strconv.FormatInt(st.Size(), 10) + "\r\n"))
		}
		if err == nil {
			rep.wmu.Lock()
			rep.conn.SetWriteDeadline(time.Time{})
			_, err = io.Copy(rep.conn, f)
			rep.wmu.Unlock()
		}
		f.Close()
		if err != nil {
			rep.close()
		}
	}
	return nil
}

// replConfig returns what REPLCONF told so far, made at its first use.
func (c *Client) replConfig() *replConf {
	if c.replConf == nil {
		c.replConf = &replConf{}
	}
	return c.replConf
}

// REPLCONF option value [option value ...]
func replconfCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv)%2 == 0 {
		c.w.Error("ERR syntax error")
		return
	}
	for i := 1; i < len(argv); i += 2 {
		opt, val := strings.ToLower(string(argv[i])), argv[i+1]
		switch opt {
		case "listening-port":
			n, ok := resp.ParseInt(val)
			if !ok {
				c.w.Error("ERR value is not an integer or out of range")
				return
			}
			c.replConfig().port = int(n)
		case "ip-address":
			if len(val) >= 46 {
				c.w.Error("ERR REPLCONF ip-address provided by replica instance is too long: " + strconv.Itoa(len(val)) + " bytes")
				return
			}
			c.replConfig().announceIP = string(val)
		case "capa":
			switch strings.ToLower(string(val)) {
			case "eof":
				c.replConfig().capaEOF = true
			case "psync2":
				c.replConfig().capaPsync2 = true
			}
		case "ack", "fack":
			// Acknowledgements arrive on the replica's connection after
			// its PSYNC (readAcks); here they are not replied to.
			return
		case "getack":
			if c.srv.repl.isReplica.Load() && c.isPrimaryLink() {
				c.srv.sendAckNow()
			}
			return
		case "rdb-only":
			n, ok := resp.ParseInt(val)
			if !ok || n < 0 || n > 1 {
				c.w.Error("ERR value is not an integer or out of range")
				return
			}
			c.replConfig().rdbOnly = n == 1
		case "rdb-filter-only":
			// Include filters: no data, and the function libraries only
			// if "functions" is among them (Valkey's only filter).
			rc := c.replConfig()
			rc.fnOnly, rc.noFn = true, true
			for _, f := range strings.Fields(string(val)) {
				if !strings.EqualFold(f, "functions") {
					c.w.Error("ERR Unsupported rdb-filter-only option: " + f)
					return
				}
				rc.noFn = false
			}
		case "version", "rdb-channel", "main-ch-client-id":
			// Accepted (dual-channel and rdb-only transfers are not
			// offered: Corvid's primary answers as with them off).
		default:
			c.w.Error("ERR Unrecognized REPLCONF option: " + string(argv[i]))
			return
		}
	}
	c.w.OK()
}

// WAIT numreplicas timeout: how many replicas acknowledged everything the
// server streamed up to this call (at least the client's own writes;
// Valkey counts up to the client's last write, Corvid up to the
// stream's end when WAIT is called: the same answer once replicas are
// caught up, possibly a longer wait under other clients' writes).
func waitCommand(c *Client) {
	s := c.srv
	n, ok := c.ctx.IntArg(1)
	if !ok {
		return
	}
	deadline, ok := c.ctx.TimeoutArg(2)
	if !ok {
		return
	}
	if s.repl.isReplica.Load() {
		c.w.Error("ERR WAIT cannot be used with replica instances. Please also note that if a replica is configured to be writable (which is not the default) writes to replicas are just local and are not propagated.")
		return
	}
	target := s.replOffset()
	acked := s.ackedReplicas(target)
	if acked >= n || c.ctx.Locked {
		c.w.Int(acked)
		return
	}
	s.repl.getack.Store(true)
	s.appendGetack()
	for acked < n {
		s.repl.mu.Lock()
		ch := s.repl.acks
		s.repl.mu.Unlock()
		acked = s.ackedReplicas(target)
		if acked >= n {
			break
		}
		why := c.blockUntilOr(deadline, ch)
		if why == blockReplied {
			return
		}
		acked = s.ackedReplicas(target)
		if why != blockSignal {
			break
		}
	}
	c.w.Int(acked)
}

// appendGetack asks the replicas for an ACK now.
func (s *Server) appendGetack() {
	if s.repl.getack.Swap(false) {
		s.appendStream([]byte("REPLCONF"), []byte("GETACK"), []byte("*"))
	}
}

// ackedReplicas counts the online replicas that acknowledged off.
func (s *Server) ackedReplicas(off int64) int64 {
	n := int64(0)
	for _, rep := range s.replicasSnapshot() {
		if rep.state.Load() == repOnline && rep.ackOff.Load() >= off {
			n++
		}
	}
	return n
}

// fsyncedReplicas counts the online replicas that reported off fsynced.
func (s *Server) fsyncedReplicas(off int64) int64 {
	n := int64(0)
	for _, rep := range s.replicasSnapshot() {
		if rep.state.Load() == repOnline && rep.fackOff.Load() >= off {
			n++
		}
	}
	return n
}

// replicationInfo writes INFO's replication section.
func (s *Server) replicationInfo(w *infoWriter) {
	r := &s.repl
	w.section("Replication")
	r.mu.Lock()
	link := r.link
	if link == nil {
		link = r.leaving
	}
	r.mu.Unlock()
	if link != nil {
		link.info(w)
	} else {
		w.str("role", "master")
	}
	reps := s.replicasSnapshot()
	w.int("connected_slaves", int64(len(reps)))
	now := time.Now().UnixMilli()
	for i, rep := range reps {
		st := rep.state.Load()
		if st < 0 {
			continue
		}
		w.str("slave"+strconv.Itoa(i), fmt.Sprintf("ip=%s,port=%d,state=%s,offset=%d,lag=%d,type=replica",
			rep.ip, rep.port, repStateNames[st], rep.ackOff.Load(), (now-rep.ackTime.Load())/1000))
	}
	w.int("replicas_waiting_psync", 0)
	w.str("master_failover_state", s.failoverStateName())
	r.mu.Lock()
	h := r.hist
	r.mu.Unlock()
	w.str("master_replid", h.ID)
	w.str("master_replid2", h.ID2)
	b := r.buf.Load()
	w.int("master_repl_offset", s.replOffset())
	w.int("second_repl_offset", h.Off2)
	if b != nil {
		w.int("repl_backlog_active", 1)
		w.int("repl_backlog_size", s.cfg.ReplBacklogSize())
		w.int("repl_backlog_first_byte_offset", b.First())
		w.int("repl_backlog_histlen", b.HistLen())
	} else {
		w.int("repl_backlog_active", 0)
		w.int("repl_backlog_size", s.cfg.ReplBacklogSize())
		w.int("repl_backlog_first_byte_offset", 0)
		w.int("repl_backlog_histlen", 0)
	}
}

// ROLE
func roleCommand(c *Client) {
	s := c.srv
	s.repl.mu.Lock()
	link := s.repl.link
	if link == nil {
		link = s.repl.leaving
	}
	s.repl.mu.Unlock()
	w := c.w
	if link != nil {
		link.role(w)
		return
	}
	reps := s.replicasSnapshot()
	w.ArrayLen(3)
	w.BulkString("master")
	w.Int(s.replOffset())
	n := 0
	for _, rep := range reps {
		if rep.state.Load() == repOnline {
			n++
		}
	}
	w.ArrayLen(n)
	for _, rep := range reps {
		if rep.state.Load() != repOnline {
			continue
		}
		w.ArrayLen(3)
		w.BulkString(rep.ip)
		w.BulkString(strconv.Itoa(rep.port))
		w.BulkString(strconv.FormatInt(rep.ackOff.Load(), 10))
	}
}

// replBufferMem is the replication buffer's memory, and the part of it
// the backlog accounts for.
func (s *Server) replBufferMem() (total, backlog int64) {
	b := s.repl.buf.Load()
	if b == nil {
		return 0, 0
	}
	total = b.Mem()
	return total, min(total, s.cfg.ReplBacklogSize())
}
