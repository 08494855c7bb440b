package server

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/repl"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Replication, the replica's side. REPLICAOF starts a primaryLink: one
// goroutine that connects, does Valkey's handshake (PING, AUTH,
// REPLCONF listening-port / ip-address / capa eof psync2, PSYNC), loads
// the RDB of a full sync (flushing the dataset first; clients get LOADING
// meanwhile) and then applies the primary's stream on a fake client
// (db.Ctx.Replica: keys do not expire when the stream meets them),
// counting the bytes it applied (slave_repl_offset) and appending them,
// unchanged, to the replica's own replication buffer for its
// sub-replicas. A second goroutine sends REPLCONF ACK every second. A
// broken link is retried every second with PSYNC of the cached history
// (replid, offset+1), so a cut connection costs a partial resync.
//
// While a replica, the server refuses writes from clients (READONLY, with
// replica-read-only yes), never expires keys itself (active expiry is
// off and a read of a logically expired key finds nothing without
// deleting it: the primary's DEL will come), and its effects sink
// forwards nothing of its own.

// Link states, as ROLE names them.
const (
	linkConnect = iota
	linkConnecting
	linkHandshake
	linkSync
	linkConnected
)

var linkStateNames = [...]string{"connect", "connecting", "handshake", "sync", "connected"}

// primaryLink is a replica's link to its primary.
type primaryLink struct {
	s     *Server
	host  string
	port  int
	state atomic.Int32
	stop  chan struct{}
	done  chan struct{}

	connMu sync.Mutex // conn, and writes to it
	conn   net.Conn

	off       atomic.Int64 // slave_repl_offset: applied
	readOff   atomic.Int64 // slave_read_repl_offset: read
	lastIO    atomic.Int64 // unix ms of the last byte from the primary
	downSince atomic.Int64 // unix s the link went down (0: never up)
	syncTotal atomic.Int64
	syncRead  atomic.Int64
	stopped   atomic.Bool
	streamDB  atomic.Int32 // the database the stream has selected (at off)

	// The primary's client in CLIENT LIST and CLIENT KILL while the link
	// streams (client_cmds.go).
	view atomic.Pointer[Client]

	// The history PSYNC offers: the replid of the data this server
	// holds (Valkey's cached primary), which it has up to off.
	cachedID string
}

func (l *primaryLink) addr() string { return net.JoinHostPort(l.host, strconv.Itoa(l.port)) }

// linkUp reports whether a replica's link is connected.
func (s *Server) linkUp() bool {
	s.repl.mu.Lock()
	l := s.repl.link
	s.repl.mu.Unlock()
	return l != nil && l.state.Load() == linkConnected
}

// isPrimaryLink reports whether c applies a primary's stream.
func (c *Client) isPrimaryLink() bool { return c.primaryLink }

// REPLICAOF host port | NO ONE (and SLAVEOF)
func replicaofCommand(c *Client) {
	s := c.srv
	argv := c.ctx.Argv
	if s.cluster != nil {
		c.w.Error("ERR REPLICAOF not allowed in cluster mode.")
		return
	}
	if db.EqualFold(argv[1], "no") && db.EqualFold(argv[2], "one") {
		if s.stopReplication(c.ctx.Locked) {
			s.log.notice("MASTER MODE enabled (user request from '%s')", c.describe())
		}
		c.w.OK()
		return
	}
	port, ok := resp.ParseInt(argv[2])
	if !ok || port < 0 || port > 65535 {
		c.w.Error("ERR Invalid master port")
		return
	}
	host := string(argv[1])
	s.repl.mu.Lock()
	if l := s.repl.link; l != nil && strings.EqualFold(l.host, host) && l.port == int(port) {
		s.repl.mu.Unlock()
		s.log.notice("REPLICAOF would result into synchronization with the primary we are already connected with. No operation performed.")
		c.w.Simple("OK Already connected to specified master")
		return
	}
	s.repl.mu.Unlock()
	s.startReplication(host, int(port), c.ctx.Locked)
	s.log.notice("REPLICAOF %s:%d enabled (user request from '%s')", host, port, c.describe())
	c.w.OK()
}

// describe is the client as Valkey's log lines name it.
func (c *Client) describe() string {
	return "id=" + strconv.FormatInt(c.id, 10) + " addr=" + c.peerAddr() + " laddr=" + c.localAddr()
}

// startReplication makes the server a replica of host:port (again).
// locked: the caller holds every stripe (REPLICAOF inside EXEC), so the
// old link is told to stop but not waited for.
func (s *Server) startReplication(host string, port int, locked bool) {
	r := &s.repl
	old := s.takeLink()
	if old != nil {
		old.halt(!locked)
	}
	r.mu.Lock()
	l := &primaryLink{s: s, host: host, port: port, stop: make(chan struct{}), done: make(chan struct{})}
	if old != nil {
		l.cachedID = old.cachedID
	} else {
		// A primary becoming a replica offers its own history: the new
		// primary may hold it (a former replica of ours, promoted).
		l.cachedID = r.hist.ID
	}
	// Whatever this server applied or wrote so far is the history it
	// offers: a former replica applied up to its link's offset, whose
	// bytes are also its buffer's.
	off := s.replOffsetLocked()
	if old != nil && r.buf.Load() == nil {
		off = old.off.Load()
	}
	l.off.Store(off)
	l.readOff.Store(off)
	l.streamDB.Store(int32(r.restoredDB))
	r.restoredDB = 0
	r.link = l
	r.isReplica.Store(true)
	reps := append([]*replica(nil), r.replicas...)
	r.mu.Unlock()
	s.ks.SetReplicaReads(true)
	s.ks.SetIgnoreMaxmemory(s.cfg.ReplicaIgnoreMaxmemory())
	s.log.replica.Store(true)
	s.cfg.SetReplicaOf(&config.Primary{Host: host, Port: port})
	s.updateDiskDeny()
	// Our replicas resync with us: they learn of the new history.
	for _, rep := range reps {
		rep.close()
	}
	go l.run()
}

// replOffsetLocked is replOffset under r.mu.
func (s *Server) replOffsetLocked() int64 {
	if b := s.repl.buf.Load(); b != nil {
		return b.End()
	}
	return s.repl.off
}

// takeLink detaches the current link from the server state.
func (s *Server) takeLink() *primaryLink {
	s.repl.mu.Lock()
	defer s.repl.mu.Unlock()
	l := s.repl.link
	s.repl.link = nil
	return l
}

// stopReplication turns a replica into a primary (REPLICAOF NO ONE): the
// link stops, the history shifts (the old ID stays valid up to this
// offset for the former siblings' partial resyncs), and the server
// accepts writes and expires keys again. false if it was a primary.
func (s *Server) stopReplication(locked bool) bool {
	r := &s.repl
	r.mu.Lock()
	l := r.link
	r.link, r.leaving = nil, l
	r.mu.Unlock()
	if l == nil {
		return false
	}
	l.halt(!locked)
	r.mu.Lock()
	end := s.replOffsetLocked()
	if b := r.buf.Load(); b == nil {
		r.off = l.off.Load()
		end = r.off
	}
	r.hist.Shift(end)
	r.isReplica.Store(false)
	r.reselect.Store(true)
	s.ensureBuffer()
	reps := append([]*replica(nil), r.replicas...)
	r.mu.Unlock()
	s.ks.SetReplicaReads(false)
	s.ks.SetIgnoreMaxmemory(false)
	s.log.replica.Store(false)
	s.cfg.SetReplicaOf(nil)
	s.updateDiskDeny()
	r.mu.Lock()
	if r.leaving == l {
		r.leaving = nil
	}
	r.mu.Unlock()
	for _, rep := range reps {
		rep.close() // they resync and learn the new ID (+CONTINUE id)
	}
	return true
}

// halt stops the link; wait: until its goroutine has ended.
func (l *primaryLink) halt(wait bool) {
	l.stopped.Store(true)
	close(l.stop)
	l.connMu.Lock()
	if l.conn != nil {
		l.conn.Close()
	}
	l.connMu.Unlock()
	if wait {
		<-l.done
	}
}

func (l *primaryLink) run() {
	defer close(l.done)
	s := l.s
	s.log.notice("Connecting to PRIMARY %s", l.addr())
	for !l.stopped.Load() {
		err := l.session()
		if l.stopped.Load() {
			break
		}
		if l.state.Load() == linkConnected || l.downSince.Load() == 0 {
			l.downSince.Store(time.Now().Unix())
		}
		l.state.Store(linkConnect)
		s.updateDiskDeny()
		if err != nil {
			s.log.warn("Replication with PRIMARY %s: %v", l.addr(), err)
		}
		select {
		case <-l.stop:
			return
		case <-s.stop:
			return
		case <-time.After(time.Second):
		}
		s.log.notice("Reconnecting to PRIMARY %s", l.addr())
	}
}

// session is one connection to the primary: handshake, sync, stream.
func (l *primaryLink) session() error {
	s := l.s
	l.state.Store(linkConnecting)
	timeout := time.Duration(s.cfg.ReplTimeout()) * time.Second
	d := net.Dialer{Timeout: timeout}
	if src := s.cfg.BindSourceAddr(); src != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(src)}
	}
	conn, err := d.Dial("tcp", l.addr())
	if err != nil {
		return fmt.Errorf("Error condition on socket for SYNC: %v", err)
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(!s.cfg.ReplDisableTCPNoDelay())
	}
	if s.cfg.TLSReplication() {
		tc, err := s.dialTLS(conn, timeout)
		if err != nil {
			conn.Close()
			return fmt.Errorf("Error condition on socket for SYNC: TLS handshake: %v", err)
		}
		conn = tc
	}
	l.connMu.Lock()
	if l.stopped.Load() {
		l.connMu.Unlock()
		conn.Close()
		return nil
	}
	l.conn = conn
	l.connMu.Unlock()
	defer func() {
		l.connMu.Lock()
		l.conn = nil
		l.connMu.Unlock()
		conn.Close()
	}()
	s.log.notice("PRIMARY <-> REPLICA sync started")
	l.state.Store(linkHandshake)
	br := bufio.NewReaderSize(conn, 64<<10)
	ask := func(argv ...string) (string, error) {
		bs := make([][]byte, len(argv))
		for i, a := range argv {
			bs[i] = []byte(a)
		}
		if err := l.send(effects.AppendCommand(nil, bs...)); err != nil {
			return "", err
		}
		conn.SetReadDeadline(time.Now().Add(timeout))
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return "", err
			}
			line = strings.TrimRight(line, "\r\n")
			if line != "" {
				return line, nil
			}
		}
	}
	line, err := ask("PING")
	if err != nil {
		return err
	}
	if line[0] == '-' && !strings.HasPrefix(line, "-NOAUTH") && !strings.HasPrefix(line, "-NOPERM") && !strings.HasPrefix(line, "-ERR operation not permitted") {
		return fmt.Errorf("Error reply to PING from primary: '%s'", line)
	}
	s.log.notice("Primary replied to PING, replication can continue...")
	if pass := s.cfg.PrimaryAuth(); pass != "" {
		args := []string{"AUTH", pass}
		if u := s.cfg.PrimaryUser(); u != "" {
			args = []string{"AUTH", u, pass}
		}
		if line, err = ask(args...); err != nil {
			return err
		}
		if line[0] == '-' {
			return fmt.Errorf("Unable to AUTH to PRIMARY: %s", line)
		}
	}
	port := int(s.cfg.ReplicaAnnouncePort())
	if port == 0 {
		port = s.listenPort()
	}
	if line, err = ask("REPLCONF", "listening-port", strconv.Itoa(port)); err != nil {
		return err
	}
	if line[0] == '-' {
		s.log.notice("(Non critical) Primary does not understand REPLCONF listening-port: %s", line)
	}
	if ip := s.cfg.ReplicaAnnounceIP(); ip != "" {
		if line, err = ask("REPLCONF", "ip-address", ip); err != nil {
			return err
		}
	}
	if line, err = ask("REPLCONF", "capa", "eof", "capa", "psync2"); err != nil {
		return err
	}
	id, off := "?", int64(-1)
	if l.cachedID != "" {
		// The history this server holds, up to what it applied.
		id, off = l.cachedID, l.off.Load()+1
		s.log.notice("Trying a partial resynchronization (request %s:%d).", id, off)
	} else {
		s.log.notice("Partial resynchronization not possible (no cached primary)")
	}
	psyncArgs := []string{"PSYNC", id, strconv.FormatInt(off, 10)}
	failover := s.failover.psyncF.Load()
	if failover {
		psyncArgs = append(psyncArgs, "FAILOVER")
	}
	if line, err = ask(psyncArgs...); err != nil {
		return err
	}
	if failover {
		s.failoverPsyncDone(strings.HasPrefix(line, "+CONTINUE") || strings.HasPrefix(line, "+FULLRESYNC"))
		if line[0] == '-' {
			return fmt.Errorf("the failover target refused PSYNC FAILOVER: %s", line)
		}
	}
	conn.SetReadDeadline(time.Time{})
	switch {
	case strings.HasPrefix(line, "+FULLRESYNC"):
		f := strings.Fields(line)
		if len(f) != 3 {
			return fmt.Errorf("bad +FULLRESYNC reply: %q", line)
		}
		newOff, err := strconv.ParseInt(f[2], 10, 64)
		if err != nil {
			return fmt.Errorf("bad +FULLRESYNC reply: %q", line)
		}
		s.log.notice("Full resync from primary: %s:%d", f[1], newOff)
		if err := l.fullSync(br, conn, f[1], newOff); err != nil {
			return err
		}
	case strings.HasPrefix(line, "+CONTINUE"):
		f := strings.Fields(line)
		s.log.notice("Successful partial resynchronization with primary.")
		if len(f) == 2 && f[1] != l.cachedID {
			s.repl.mu.Lock()
			end := s.replOffsetLocked()
			s.repl.hist = repl.History{ID: f[1], ID2: l.cachedID, Off2: end + 1}
			reps := append([]*replica(nil), s.repl.replicas...)
			s.repl.mu.Unlock()
			l.cachedID = f[1]
			s.log.notice("Primary replication ID changed to %s", f[1])
			for _, rep := range reps {
				rep.close()
			}
		}
		s.repl.mu.Lock()
		s.ensureBuffer()
		s.repl.mu.Unlock()
		s.log.notice("PRIMARY <-> REPLICA sync: Primary accepted a Partial Resynchronization.")
	case strings.HasPrefix(line, "-NOMASTERLINK"), strings.HasPrefix(line, "-LOADING"):
		return fmt.Errorf("Primary is currently unable to PSYNC but should be in the future: %s", line)
	default:
		return fmt.Errorf("Unexpected reply to PSYNC from primary: %s", line)
	}
	l.state.Store(linkConnected)
	s.updateDiskDeny() // replica-serve-stale-data no: serving again
	l.downSince.Store(0)
	l.lastIO.Store(time.Now().UnixMilli())
	l.sendAck()
	return l.stream(br, conn)
}

// listenPort is the TCP port the server accepts on.
func (s *Server) listenPort() int {
	if s.cfg.TLSReplication() {
		if p := s.tls.port.Load(); p != 0 {
			return int(p) // replicas are reached on the TLS port
		}
	}
	if _, p, err := net.SplitHostPort(s.Addr()); err == nil {
		if n, err := strconv.Atoi(p); err == nil {
			return n
		}
	}
	return s.cfg.Port()
}

// send writes to the primary.
func (l *primaryLink) send(p []byte) error {
	l.connMu.Lock()
	defer l.connMu.Unlock()
	if l.conn == nil {
		return net.ErrClosed
	}
	l.conn.SetWriteDeadline(time.Now().Add(time.Duration(l.s.cfg.ReplTimeout()) * time.Second))
	_, err := l.conn.Write(p)
	return err
}

// sendAck sends REPLCONF ACK <offset> FACK <fsynced offset>.
func (l *primaryLink) sendAck() {
	off := l.off.Load()
	fack := off
	if !l.s.aof.enabled.Load() {
		fack = 0
	}
	l.send(effects.AppendCommand(nil, []byte("REPLCONF"), []byte("ACK"), strconv.AppendInt(nil, off, 10),
		[]byte("FACK"), strconv.AppendInt(nil, fack, 10)))
}

// sendAckNow answers REPLCONF GETACK from the primary.
func (s *Server) sendAckNow() {
	s.repl.mu.Lock()
	l := s.repl.link
	s.repl.mu.Unlock()
	if l != nil {
		l.sendAck()
	}
}

// fullSync reads the RDB and loads it in place of the dataset.
func (l *primaryLink) fullSync(br *bufio.Reader, conn net.Conn, id string, off int64) error {
	s := l.s
	l.state.Store(linkSync)
	timeout := time.Duration(s.cfg.ReplTimeout()) * time.Second
	conn.SetReadDeadline(time.Now().Add(timeout))
	length, mark, err := repl.ReadPayloadHeader(br)
	if err != nil {
		return err
	}
	conn.SetReadDeadline(time.Time{})
	l.syncTotal.Store(max(length, 0))
	l.syncRead.Store(0)
	if mark != nil {
		s.log.notice("PRIMARY <-> REPLICA sync: receiving streamed RDB from primary with EOF to disk")
	} else {
		s.log.notice("PRIMARY <-> REPLICA sync: receiving %d bytes from primary to disk", length)
	}
	payload := &countingReader{r: repl.Payload(br, length, mark), n: &l.syncRead, last: &l.lastIO}
	var src io.Reader = payload
	var tmp string
	if s.cfg.ReplDisklessLoad() == 0 {
		// disabled: the whole file first, the dataset kept meanwhile.
		tmp = filepath.Join(s.cfg.Dir(), "temp-"+strconv.Itoa(os.Getpid())+"."+strconv.FormatInt(time.Now().UnixNano(), 36)+".rdb")
		f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_RDWR, 0o644)
		if err != nil {
			return err
		}
		defer os.Remove(tmp)
		defer f.Close()
		if _, err := io.Copy(f, payload); err != nil {
			return fmt.Errorf("I/O error trying to sync with PRIMARY: %v", err)
		}
		if err := f.Sync(); err != nil {
			return err
		}
		// As Valkey, the file becomes the replica's RDB (dbfilename).
		if err := os.Rename(tmp, s.rdbPath()); err != nil {
			return fmt.Errorf("Failed trying to rename the temp DB into %s in PRIMARY <-> REPLICA synchronization: %v", s.cfg.Dbfilename(), err)
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return err
		}
		src = bufio.NewReaderSize(f, 64<<10)
	}
	s.log.notice("PRIMARY <-> REPLICA sync: Flushing old data")
	s.abortSave()
	s.setLoading(true)
	defer s.setLoading(false)
	s.ks.LockAll()
	s.ks.FlushDB(-1)
	s.ks.UnlockAll()
	s.scripts.FlushFunctions()
	s.log.notice("PRIMARY <-> REPLICA sync: Loading DB in memory")
	n, _, err := s.loadRDBWith(src, true, 0, s.ks.LoadEntry)
	if err != nil {
		s.log.warn("Failed trying to load the PRIMARY synchronization DB from %s: %v", map[bool]string{true: "disk", false: "socket"}[tmp != ""], err)
		return err
	}
	if mark == nil && tmp == "" {
		io.Copy(io.Discard, payload) // the rest of a file the loader did not need
	}
	s.log.notice("PRIMARY <-> REPLICA sync: Finished with success (%d keys)", n)
	// The new history: the primary's, from off.
	r := &s.repl
	r.mu.Lock()
	r.hist = repl.History{ID: id, ID2: repl.ZeroID, Off2: -1}
	r.off = off
	old := r.buf.Load()
	r.buf.Store(nil)
	s.ensureBuffer()
	reps := append([]*replica(nil), r.replicas...)
	r.mu.Unlock()
	if old != nil {
		for _, rep := range reps {
			rep.close() // sub-replicas resync from the new history
		}
	}
	l.cachedID = id
	l.streamDB.Store(0) // the primary selects a database first
	l.off.Store(off)
	l.readOff.Store(off)
	if s.aof.enabled.Load() {
		s.aof.scheduled.Store(true) // the AOF must describe the new dataset
	}
	return nil
}

// countingReader counts the bytes of a sync's payload.
type countingReader struct {
	r    io.Reader
	n    *atomic.Int64
	last *atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	c.last.Store(time.Now().UnixMilli())
	return n, err
}

// tee keeps a copy of what the stream's reader read, so the bytes of
// each command can be forwarded unchanged.
type tee struct {
	r    io.Reader
	kept []byte
	n    int64
}

func (t *tee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	t.kept = append(t.kept, p[:n]...)
	t.n += int64(n)
	return n, err
}

// stream applies the primary's commands until the link breaks or stops.
func (l *primaryLink) stream(br *bufio.Reader, conn net.Conn) error {
	s := l.s
	fc := s.fakeClient()
	fc.primaryLink = true
	fc.ctx.Replica = true
	view := s.primaryClientView(conn)
	l.view.Store(view)
	defer l.view.Store(nil)
	// MONITOR shows the primary's commands under its address, as Valkey's.
	fc.id, fc.fixedAddr = view.id, &[2]string{view.peerAddr(), view.localAddr()}
	fc.ctx.DB = int(l.streamDB.Load())
	rd := resp.NewReader()
	rd.MaxBulk = 1 << 62
	rd.MaxQuery = 1 << 62
	t := &tee{r: br}
	var consumed int64 // bytes of t.kept's start already applied
	ackStop := make(chan struct{})
	defer close(ackStop)
	go func() {
		tk := time.NewTicker(time.Second)
		defer tk.Stop()
		for {
			select {
			case <-tk.C:
				l.sendAck()
			case <-ackStop:
				return
			}
		}
	}()
	timeout := time.Duration(s.cfg.ReplTimeout()) * time.Second
	for {
		conn.SetReadDeadline(time.Now().Add(timeout))
		_, err := rd.Fill(t)
		if err == nil || len(t.kept) > 0 {
			l.lastIO.Store(time.Now().UnixMilli())
		}
		for {
			argv, perr := rd.Next()
			if perr != nil {
				return fmt.Errorf("protocol error from PRIMARY: %v", perr)
			}
			if argv == nil {
				break
			}
			if l.stopped.Load() {
				return nil
			}
			end := t.n - int64(rd.Buffered()) // offset within what was read
			raw := t.kept[:end-consumed]
			l.readOff.Add(int64(len(raw)))
			if err := fc.replayOne(argv); err != nil {
				s.log.warn("== CRITICAL == This replica is sending an error to its primary: '%v' after processing the command '%s'", err, argv[0])
			}
			// Forwarded unless REPLICAOF NO ONE ran inside an EXEC meanwhile
			// (it cannot wait for this goroutine): then the server is a
			// primary and its own sink streamed the command's effects.
			if b := s.repl.buf.Load(); b != nil && !l.stopped.Load() {
				b.Append(raw)
			}
			l.streamDB.Store(int32(fc.ctx.DB))
			l.off.Add(int64(len(raw)))
			s.stats.netReplInput.Add(int64(len(raw)))
			t.kept = t.kept[len(raw):]
			consumed = end
		}
		s.replKick() // what this read forwarded, to the sub-replicas at once
		// Keep the unapplied tail only.
		if len(t.kept) == 0 {
			t.kept = t.kept[:0:0]
		}
		if err != nil {
			if l.stopped.Load() {
				return nil
			}
			if errors.Is(err, os.ErrDeadlineExceeded) {
				return fmt.Errorf("timeout: no data from the primary in %v", timeout)
			}
			return fmt.Errorf("connection lost: %v", err)
		}
	}
}

// info writes a replica's fields of INFO replication.
func (l *primaryLink) info(w *infoWriter) {
	s := l.s
	st := l.state.Load()
	w.str("role", "slave")
	w.str("master_host", l.host)
	w.int("master_port", int64(l.port))
	up := st == linkConnected
	w.str("master_link_status", map[bool]string{true: "up", false: "down"}[up])
	if up {
		w.int("master_last_io_seconds_ago", (time.Now().UnixMilli()-l.lastIO.Load())/1000)
	} else {
		w.int("master_last_io_seconds_ago", -1)
	}
	syncing := st == linkSync
	w.int("master_sync_in_progress", b2i(syncing))
	w.int("slave_read_repl_offset", l.readOff.Load())
	w.int("slave_repl_offset", l.off.Load())
	w.int("replicas_repl_buffer_size", 0)
	w.int("replicas_repl_buffer_peak", 0)
	if syncing {
		total, read := l.syncTotal.Load(), l.syncRead.Load()
		w.int("master_sync_total_bytes", total)
		w.int("master_sync_read_bytes", read)
		w.int("master_sync_left_bytes", max(total-read, 0))
		perc := 0.0
		if total > 0 {
			perc = float64(read) * 100 / float64(total)
		}
		w.float("master_sync_perc", perc)
		w.int("master_sync_last_io_seconds_ago", (time.Now().UnixMilli()-l.lastIO.Load())/1000)
	}
	if !up {
		since := int64(-1)
		if d := l.downSince.Load(); d > 0 {
			since = time.Now().Unix() - d
		}
		w.int("master_link_down_since_seconds", since)
	}
	w.int("slave_priority", s.cfg.ReplicaPriority())
	w.int("slave_read_only", b2i(s.cfg.ReplicaReadOnly()))
	w.int("replica_announced", b2i(s.cfg.ReplicaAnnounced()))
}

// role writes a replica's ROLE reply.
func (l *primaryLink) role(w *resp.Writer) {
	w.ArrayLen(5)
	w.BulkString("slave")
	w.BulkString(l.host)
	w.Int(int64(l.port))
	w.BulkString(linkStateNames[l.state.Load()])
	if l.state.Load() == linkConnected {
		w.Int(l.off.Load())
	} else {
		w.Int(-1)
	}
}

// replAux collects an RDB's replication AUX fields.
type replAux struct {
	id       string
	off      int64
	streamDB int
	has      int // bit 0 id, 1 offset
}

func (a *replAux) note(k, v []byte) {
	switch string(k) {
	case "repl-id":
		if len(v) == repl.MarkLen {
			a.id = string(v)
			a.has |= 1
		}
	case "repl-offset":
		if n, err := strconv.ParseInt(string(v), 10, 64); err == nil && n >= 0 {
			a.off = n
			a.has |= 2
		}
	case "repl-stream-db":
		if n, err := strconv.Atoi(string(v)); err == nil && n >= 0 {
			a.streamDB = n
		}
	}
}

// fillReplInfo fills a save's replication AUX fields at its point in
// time (every stripe held): the history and offset the file holds, and
// the database the stream has selected there.
func (s *Server) fillReplInfo(info *rdb.ReplInfo) {
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	info.ID = r.hist.ID
	info.Offset = s.replOffsetLocked()
	info.StreamDB = 0
	if l := r.link; l != nil {
		if l.cachedID != "" {
			info.ID = l.cachedID
		}
		info.Offset = l.off.Load()
		info.StreamDB = int(l.streamDB.Load())
	} else if db, ok := r.enc.Selected(); ok && !r.reselect.Load() {
		info.StreamDB = db
	}
}

// restoreReplInfo takes the history the start-up RDB recorded, as Valkey
// does after loading: a primary keeps serving partial resyncs of it (its
// backlog starts at the file's offset), a replica continues it from its
// primary.
func (s *Server) restoreReplInfo() {
	a := s.rdb.replAux
	if a.has != 3 {
		return
	}
	r := &s.repl
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hist = repl.History{ID: a.id, ID2: repl.ZeroID, Off2: -1}
	r.off = a.off
	r.restoredDB = a.streamDB
	if s.cfg.ReplicaOf() == nil {
		s.ensureBuffer()
	}
	s.log.notice("Restored the replication ID %s and offset %d from the RDB file", a.id, a.off)
}

// replDataAge is how old a replica's data may be, in milliseconds, as
// Valkey's clusterHandleReplicaFailover reckons it: since the last byte
// from the primary while the link is up, else since the link went down
// (since the epoch when it never came up); 0 for a primary.
func (s *Server) replDataAge() int64 {
	s.repl.mu.Lock()
	l := s.repl.link
	s.repl.mu.Unlock()
	if l == nil {
		return 0
	}
	now := time.Now().UnixMilli()
	if l.state.Load() == linkConnected {
		return now - l.lastIO.Load()
	}
	return now - l.downSince.Load()*1000
}
