package server

import (
	"errors"
	"io"
	"net"
	"os"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/acl"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/netloop"
	"github.com/corvid-kv/corvid/internal/pubsub"
	"github.com/corvid-kv/corvid/internal/resp"
	"github.com/corvid-kv/corvid/internal/tracking"
)

// Client is one connection. Its fields are owned by the connection's
// goroutine except those under mu (read by CLIENT LIST/INFO from other
// goroutines) and the atomics.
type Client struct {
	srv  *Server
	conn net.Conn
	id   int64
	rd   *resp.Reader
	w    *resp.Writer
	// ctx is the command context; its Shard picks this client's shard of
	// the sharded statistics (package counter, statShards), fixed for
	// the connection's life.
	ctx db.Ctx

	mu struct {
		sync.Mutex
		name       string
		libName    string
		libVer     string
		lastCmd    *cmd // its name is CLIENT LIST's cmd=
		user       string
		watchCount int32
		multiCount int32
		flags      uint8 // pubMulti, pubClose
		noEvict    bool
		noTouch    bool
	}
	// fixedAddr names a fake client's peer and local addresses (the
	// primary link's, for MONITOR); nil for a connection, whose
	// addresses are formatted from conn when asked (peerAddr, localAddr).
	fixedAddr  *[2]string
	created    int64        // unix ms
	lastActive atomic.Int64 // unix ms
	lastCmd    *cmd         // last command run; published for CLIENT LIST per batch
	batchNow   int64        // wall clock (ms) when the current batch was read
	// evictedMem (and evicted, with the flags below) are guarded by
	// Server.evictMu.
	evictedMem int64
	// lastName and lastLookup memoize the last command-name lookup
	// (lookupCmd): lastName is a copy of argv[0] as the client sent it.
	lastName   []byte
	lastLookup *cmd
	// lastEnd is the tsc.Now reading at which the previous command of
	// this batch ended (0 at the start of a batch): the next command's
	// start, so a pipelined batch reads the clock once per command.
	lastEnd int64

	// user is the ACL user the connection runs as (acl.go); nil for
	// the internal clients that may run anything (a primary's link, the
	// AOF replay), as Valkey's NULL user. Written by the owner, read by
	// CLIENT KILL and ACL DELUSER.
	user  atomic.Pointer[acl.User]
	multi *multiState
	// watch is the client's WATCH state (package db), made at its first
	// WATCH and kept; nil before. Owner only.
	watch *db.Watch

	// unit collects what the client's commands propagate (package
	// effects) while the stream is active; reused.
	unit effects.Unit
	// aofSeen is the AOF ticket this client last waited for (aof.go):
	// replies wait until the AOF is written (and with appendfsync always
	// fsynced) up to the last ticket appended before them.
	aofSeen int64

	// Scratch space reused by dispatch to stay allocation-free.
	nameBuf []byte
	keyPos  []int
	locks   db.LockSet

	// Output buffer limits (outbuf.go): outCheck is the reply-buffer
	// length after which the next command re-checks; softSince is when
	// the soft limit was first reached (Unix seconds, 0: not over it);
	// closeNow (below) drops pending output and closes at once (over a
	// limit).
	outCheck  int
	softSince int64
	// cmdMark is where the current top-level command's reply starts in
	// c.w: a command that panics loses its partial reply (notePanic).
	cmdMark int
	// omemPub mirrors omem for CLIENT LIST from other clients; written
	// by the owner whenever it notes its memory.
	omemPub atomic.Int64

	// Pushes from other goroutines (push.go).
	outbox outbox

	// subs are the client's pub/sub subscriptions (pubsub.go).
	subs pubsub.State
	// tracking is the client's CLIENT TRACKING state (tracking.go), made
	// at its first TRACKING ON and kept; read by CLIENT LIST and by
	// writers' goroutines.
	tracking atomic.Pointer[tracking.Tracker]

	// memAcct is the memory this client has declared to the keyspace's
	// used_memory (noteMem). Only the connection goroutine writes it;
	// client eviction reads it from others, hence the atomic.
	memAcct atomic.Int64

	// Per-client traffic (CLIENT LIST tot-net-in/tot-net-out/tot-cmds).
	netIn, netOut, cmds atomic.Int64
	pending             callCounts // calls not yet in the shared counters (dispatch.go)
	// unblock is the channel CLIENT UNBLOCK and kills signal (buffered
	// 1), made when a wait first needs it (unblockCh): any goroutine.
	unblock atomic.Pointer[chan int]
	rbuf    replyBuf // reply buffer resizing (replybuf.go)
	// qbufPub mirrors the query buffer's qbuf<<32|qbuf-free for CLIENT
	// LIST from other clients (noteInput).
	qbufPub atomic.Int64
	// gp is the goroutine path's state (readInput), nil on an event
	// loop.
	gp *goPath
	// argvMem is the size of the waiting command's arguments, for the
	// argv-mem field other clients' CLIENT LIST shows while it waits.
	argvMem atomic.Int64

	// Disconnect watcher, active only while blocked (see SetBlocked),
	// made at the first blocking wait and kept; nil before. The owner
	// sets the pointer before it starts the watcher goroutine.
	bw *blockWatch

	// Event-loop path (netpath.go); nc is nil on the goroutine path.
	nc         *netloop.Conn
	detachArgv [][]byte // the command that made the client leave its loop

	// Scripts (script.go): the running script's host (made at the
	// client's first script and kept; nil before; owner only); inScript
	// (below): the command being called is one of its calls.
	scriptHost *scriptHost
	curCmd     *cmd // the command call is running (set as it starts)

	// Replication (repl_primary.go): what REPLCONF told before PSYNC
	// (nil until the first REPLCONF; owner only), and the replica this
	// connection became.
	replConf *replConf
	replica  atomic.Pointer[replica]

	cluster clusterClient // ASKING, READONLY (cluster.go)

	// The 4-byte atomics and the flags, together (no padding after each:
	// an idle client's size, issue 32).
	dbIndex atomic.Int32 // mirror of ctx.DB for CLIENT LIST
	proto   atomic.Int32 // mirror of w.Proto for CLIENT LIST
	killed  atomic.Bool
	// monitoring mirrors monitor for CLIENT LIST.
	monitoring atomic.Bool
	blocked    atomic.Bool // inside a blocking command's wait
	// postponed: the command waits for a CLIENT PAUSE (Valkey's
	// BLOCKED_POSTPONE: counted in blocked_clients, flag b, no timeout).
	postponed atomic.Bool
	// timed: the blocking wait has a deadline (clients_in_timeout_table).
	timed atomic.Bool

	replyMode  uint8 // replyOn, replyOff, replySkip
	closeAfter bool  // QUIT: close after this batch's replies
	evicted    bool  // guarded by Server.evictMu
	authed     bool
	skipNext   bool
	closeNow   bool // over an output limit (outbuf.go)
	// resume: the last batch stopped for output back-pressure; the next
	// OnReadable runs the rest of the buffer before reading.
	resume      bool
	monitor     bool // in monitor mode (monitor.go)
	unix        bool // connected over the unix socket
	overTLS     bool // connected over TLS (cluster mode's ports: cluster_tls.go)
	offLoop     bool // detached from the loop, running on its own goroutine
	inScript    bool
	errCounted  bool // the script's error reply is counted already
	primaryLink bool // the fake client applying a primary's stream

	// trkMid (last: it fits the tail padding, which keeps Client in its
	// size class): this client's batch made broadcast changes and has input
	// left (setMidBatch). Only the goroutine running its commands.
	trkMid bool
}

// goPath is a goroutine-path client's: raw reads the socket without a
// buffer held while it waits (nil for TLS); idle is held by the
// connection's goroutine except while it waits for input (readInput,
// clientsCron). Set before the client is registered, then fixed.
type goPath struct {
	raw  syscall.RawConn
	idle sync.Mutex
}

// replConf is what REPLCONF told a connection before its PSYNC.
type replConf struct {
	port       int
	announceIP string
	capaEOF    bool
	capaPsync2 bool
	rdbOnly    bool // REPLCONF rdb-only 1: the RDB and nothing after
	fnOnly     bool // REPLCONF rdb-filter-only: no data in the RDB
	noFn       bool // ... and no functions (no "functions" filter)
}

// blockWatch is the disconnect watcher of a blocked client (startWatcher):
// watching and the channels are the owner's; pendingIn, under mu, is
// what the watcher goroutine read meanwhile.
type blockWatch struct {
	watching bool
	stop     atomic.Bool
	gone     chan struct{}
	done     chan struct{}
	mu       sync.Mutex
	// pendingIn is input read while blocked; the owner reads it without
	// mu once the watcher has stopped (stopWatcher waits for it).
	pendingIn []byte
}

const (
	replyOn = iota
	replyOff
	replySkip
)

func (s *Server) accept(conn net.Conn) {
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.SetNoDelay(true)
		if ka := int64(s.cfg.TCPKeepalive()); ka > 0 {
			tc.SetKeepAlive(true)
			tc.SetKeepAlivePeriod(time.Duration(ka) * time.Second)
		}
	}
	c := &Client{
		srv:     s,
		conn:    conn,
		id:      s.nextID.Add(1),
		rd:      resp.NewReader(),
		w:       resp.NewWriter(0), // allocated by the first reply
		created: time.Now().UnixMilli(),
	}
	c.w.SetBlockSize(replyBlockBytes)
	c.rbuf.init()
	_, c.unix = conn.(*net.UnixConn)
	c.overTLS = isTLSConn(conn)
	c.ctx = db.Ctx{KS: s.ks, W: c.w, Client: c, Shard: int(c.id % statShards), PropUnit: &c.unit}
	c.proto.Store(2)
	c.user.Store(s.acl.Default())
	c.authed = !s.acl.AuthRequired()
	c.mu.user = "default"
	c.lastActive.Store(c.created)

	// Refusals happen before the client is registered, with Valkey's texts.
	if msg := s.protectedModeRefusal(conn); msg != "" {
		conn.Write([]byte("-" + msg + "\r\n"))
		conn.Close()
		s.stats.rejectedConns.Add(1)
		return
	}
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		conn.Close()
		return
	}
	if int64(len(s.mu.clients)) >= int64(s.cfg.MaxClients()) {
		s.mu.Unlock()
		conn.Write([]byte("-ERR max number of clients reached\r\n"))
		conn.Close()
		s.stats.rejectedConns.Add(1)
		return
	}
	if lc, ok := conn.(*loopConn); ok && lc.nc == nil {
		// Accepted by acceptRaw for a loop: register the socket.
		c.nc = s.loops.Register(int(lc.fd), c)
		lc.nc = c.nc
	} else if tc, codec, buffered := loopSocket(conn); tc != nil && s.loops != nil {
		// Move the socket to an event loop before other goroutines can
		// see the client (c.conn changes).
		if !s.takeForLoop(c, tc) {
			s.mu.Unlock()
			return
		}
		if codec != nil {
			c.nc.SetCodec(codec, buffered)
		}
	}
	if c.nc == nil {
		// Goroutine path (readInput), set before the clients cron can
		// see the client; its goroutine starts with the idle lock held.
		c.gp = new(goPath)
		if sc, ok := conn.(syscall.Conn); ok {
			c.gp.raw, _ = sc.SyscallConn()
		}
		c.gp.idle.Lock()
	}
	s.mu.clients[c.id] = c
	s.nclients.Add(1)
	s.mu.Unlock()
	s.wg.Add(1)
	if c.nc != nil {
		c.nc.Attach()
		return
	}
	s.rbufs.cronOnce.Do(func() { go s.every(time.Second, s.clientsCron) })
	go c.serve()
}

// protectedModeRefusal returns Valkey's DENIED message when protected mode
// is on, no password is set, and the peer is not loopback.
func (s *Server) protectedModeRefusal(conn net.Conn) string {
	if !s.cfg.ProtectedMode() || !s.acl.Default().Perms().NoPass() {
		return ""
	}
	if lc, ok := conn.(*loopConn); ok {
		// No *net.TCPAddr made for the check (issue 32: nothing
		// allocated per connection that is not kept).
		if lc.remoteLoopback() {
			return ""
		}
	} else if ta, ok := conn.RemoteAddr().(*net.TCPAddr); !ok || ta.IP.IsLoopback() {
		return ""
	}
	return "DENIED Running in protected mode because protected mode is enabled and no password is set for the default user. " +
		"In this mode connections are only accepted from the loopback interface. " +
		"If you want to connect from external computers, you may adopt one of the following solutions: " +
		"1) Just disable protected mode sending the command 'CONFIG SET protected-mode no' from the loopback interface " +
		"by connecting from the same host the server is running, however MAKE SURE it's not publicly accessible " +
		"from internet if you do so. Use CONFIG REWRITE to make this change permanent. " +
		"2) Alternatively you can just disable the protected mode by editing the configuration file, and setting the protected " +
		"mode option to 'no', and then restarting the server. " +
		"3) If you started the server manually just for testing, restart it with the '--protected-mode no' option. " +
		"4) Set up an authentication password for the default user. " +
		"NOTE: You only need to do one of the above things in order for the server to start accepting connections from the outside."
}

// serve is the connection loop: read, run every complete command, write
// all replies at once.
func (c *Client) serve() {
	s := c.srv
	defer s.wg.Done()
	defer c.cleanup()
	defer c.recoverPanic()
	idleDeadline := false // a read deadline for the timeout setting is set
	var idleAt time.Time  // ... and when it falls
	pushed := false       // a push's deadline interrupted the last Read
	for {
		// The reply buffer's resizing (replybuf.go) runs here, between
		// batches, with the last batch's clock; while the client waits
		// for input the clients cron does it (clientsCron, readInput).
		c.replyBufCron(c.batchNow)
		if t := s.hot.timeoutSec.Load(); t > 0 && c.multi == nil {
			idleAt = time.Now().Add(time.Duration(t) * time.Second)
			c.conn.SetReadDeadline(idleAt)
			idleDeadline = true
		} else if idleDeadline || pushed {
			// Inside MULTI (or with timeout 0 now) the client is exempt:
			// drop the deadline set before the batch that entered MULTI
			// (or by a push, whose output is sent next). A push's
			// deadline is past: left set, every Read would fail at once.
			c.conn.SetReadDeadline(time.Time{})
			idleDeadline = false
		}
		pushed = false
		// Pushed output (push.go), after the deadline is set: a push
		// from now on (its output queued, then its deadline set)
		// interrupts the Read below instead, and the next round clears
		// its deadline.
		if !c.deliverPushes() {
			return
		}
		c.rd.MaxBulk = s.hot.maxBulk.Load()
		c.rd.MaxQuery = s.hot.maxQuery.Load()
		c.rd.Unauthenticated = !c.authed
		n, err := c.readInput()
		if n > 0 || err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
			s.stats.reads.Add(c.ctx.Shard, 1) // data, the end, or an error
		}
		if n > 0 {
			s.stats.netInput.Add(c.ctx.Shard, int64(n))
			c.netIn.Add(int64(n))
			// One wall-clock read per batch: it is the clock of every
			// command in the batch (Valkey also caches the time).
			c.batchNow = time.Now().UnixMilli()
			c.lastEnd = 0
			c.lastActive.Store(c.batchNow)
			c.armOutput()
			if !c.runBuffered() {
				c.flush()
				return
			}
			if !c.flush() || c.closeAfter {
				return
			}
			if c.w.Shrink(keptReplyBuf) {
				c.noteMem()
			}
			c.noteInput(c.rd.Release(false))
		}
		if err != nil {
			if errors.Is(err, os.ErrDeadlineExceeded) && (!idleDeadline || time.Now().Before(idleAt)) {
				// A push interrupted the Read: send it.
				pushed = true
				continue
			}
			if errors.Is(err, resp.ErrQueryBufferLimit) {
				c.queryBufferLimitReached()
			}
			return
		}
	}
}

// readInput reads the next input of a goroutine-path client. A socket
// (TCP or unix) is read through its syscall.RawConn: the read function
// runs when the netpoller finds the socket readable and reads into a
// pooled buffer (resp.Reader), so a client that waits for its next request
// holds no read buffer (before it parks, a drained reader gives its
// buffer back); Go's net.Conn.Read would hold the caller's buffer for the
// whole wait. A read deadline (the timeout setting, a push) still ends
// the wait, and another goroutine's Close (CLIENT KILL) too. While it
// waits, the client's idle lock is free, so the clients cron may resize
// its reply buffer (clientsCron). A TLS connection has no RawConn: it
// reads with Read into the reader's buffer, which it holds while it
// waits.
func (c *Client) readInput() (int, error) {
	gp := c.gp
	if gp == nil || gp.raw == nil {
		return c.rd.Fill(c.conn)
	}
	var n int
	var err error
	locked := true
	rerr := gp.raw.Read(func(fd uintptr) bool {
		if !locked {
			gp.idle.Lock()
			locked = true
		}
		n, err = c.rd.Fill(fdReader(fd))
		if err != errAgain {
			return true
		}
		// Nothing to read: the client is idle until the socket is
		// readable again.
		n, err = 0, nil
		c.noteInput(c.rd.Release(true))
		locked = false
		gp.idle.Unlock()
		return false
	})
	if !locked {
		gp.idle.Lock()
	}
	if err == nil && rerr != nil {
		err = rerr
	}
	return n, err
}

// errAgain is fdReader's EAGAIN: the socket has nothing to read now.
var errAgain = errors.New("read would block")

// fdReader reads a non-blocking descriptor once (readInput).
type fdReader uintptr

func (f fdReader) Read(p []byte) (int, error) {
	for {
		n, err := syscall.Read(int(f), p)
		switch {
		case err == syscall.EINTR:
			continue
		case err == syscall.EAGAIN:
			return 0, errAgain
		case err != nil:
			return 0, err
		case n == 0 && len(p) > 0:
			return 0, io.EOF
		}
		return n, nil
	}
}

// clientsCron runs once a second for the goroutine-path clients (the
// event loops' clients have OnTick): a client that waits for input (its
// idle lock is free: readInput) gets Valkey's reply buffer resizing
// there, and after 2 s gives its buffers back (releaseIdle), so an idle
// client gives memory back
// without a read deadline (which would cut the other goroutines that may
// read its connection: a replica's ACK reader, a blocked client's
// watcher). A client running a batch or a command holds the lock and is
// skipped until the next second.
func (s *Server) clientsCron(now time.Time) {
	ms := now.UnixMilli()
	for _, c := range s.clientsSnapshot() {
		if c.nc != nil || c.gp == nil || c.gp.raw == nil || !c.gp.idle.TryLock() {
			continue
		}
		if c.w.Len() == 0 && c.outbox.size.Load() == 0 {
			c.replyBufCron(ms)
			released := c.releaseIdle(ms)
			if released {
				c.ctx.Argv = nil // the last command's, which the reader dropped
			}
			c.noteInput(released)
		}
		c.gp.idle.Unlock()
	}
}

// noteInput publishes the client's query buffer state for CLIENT LIST
// and INFO (qbuf, qbuf-free, client_recent_max_input_buffer) after a
// batch, a release or a trim; changed: the buffer was released or
// resized, so the client's memory is noted again. Owner only.
func (c *Client) noteInput(changed bool) {
	r := c.rd
	v := int64(r.Pending())<<32 | int64(r.Free())
	if c.qbufPub.Load() != v {
		c.qbufPub.Store(v)
		// argv-mem of an incomplete command, as Valkey's argv_len_sum
		// (a blocked client's is its waiting command's: SetBlocked).
		c.argvMem.Store(int64(r.Parsed()))
	}
	if p := r.TakePeak(); p > 0 {
		c.srv.noteInputPeak(c.batchNow, int64(p))
	}
	if changed {
		c.noteMem()
	}
}

// queryBufferLimitReached logs and counts a client closed for
// client-query-buffer-limit, as Valkey's readQueryFromClient does.
func (c *Client) queryBufferLimitReached() {
	c.srv.log.warn("Closing client that reached max query buffer length: %s", c.infoLine(c, "NULL"))
	c.srv.stats.qbufLimitDisc.Add(1)
}

// runBuffered executes every complete command in the read buffer. It
// returns false when the connection must close (protocol error, kill).
func (c *Client) runBuffered() bool {
	for !c.killed.Load() {
		c.rd.Unauthenticated = !c.authed
		argv, err := c.rd.Next()
		if argv == nil && err == nil {
			c.publish()
			return true
		}
		if err != nil {
			var pe resp.ProtocolError
			switch {
			case errors.As(err, &pe):
				c.w.Error("ERR " + string(pe))
				c.srv.log.verbose("Protocol error (%s) from client: id=%d addr=%s", string(pe), c.id, c.peerAddr())
			case errors.Is(err, resp.ErrQueryBufferLimit):
				// A declared length that can never fit: closed without a
				// reply, before the data arrives.
				c.queryBufferLimitReached()
			}
			return false
		}
		if argv == nil {
			return true
		}
		if c.nc != nil && !c.offLoop && c.mustLeaveLoop(argv) {
			// Run it on a goroutine of its own (serveDetached).
			c.detachArgv = argv
			c.publish()
			return true
		}
		if h := testHookLoopCheck.Load(); h != nil {
			(*h)(c)
		}
		// A big argument read into a buffer of its own may be adopted
		// by the value it sets (db.Ctx.AdoptArgs, TakeOwned); only while
		// its own command runs.
		c.ctx.AdoptArgs = c.rd.Owned() != nil
		c.execute(argv)
		c.ctx.AdoptArgs = false
		if c.detachArgv != nil {
			c.publish() // execute chose to leave the loop (see there)
			return true
		}
		if c.bw != nil && c.bw.pendingIn != nil {
			c.takePending()
		}
		if c.closeAfter {
			c.publish()
			return true
		}
		// Output limits, memory accounting and the mid-batch flush of a
		// large batch's replies (outbuf.go): one comparison per command.
		if c.w.Len() >= c.outCheck || c.w.Overflowed() {
			if !c.outputGrew() {
				return false
			}
			if c.nc != nil && !c.offLoop && c.nc.OutQueued() >= flushAt {
				// Output back-pressure on a loop: the rest of the batch
				// waits until the client has read these replies, as a
				// blocking write makes it wait off the loop.
				c.resume = true
				c.nc.Again()
				c.publish()
				return true
			}
		}
	}
	return false
}

// TakeOwned hands over an argument of the running command that the
// reader read into a buffer of its own (db.ArgOwner).
func (c *Client) TakeOwned(v []byte) []byte { return c.rd.TakeOwned(v) }

// testHookLoopCheck, when set by a test, runs between mustLeaveLoop and
// execute: the window in which another client may start CLIENT PAUSE.
var testHookLoopCheck atomic.Pointer[func(*Client)]

// publish makes the connection's state visible to CLIENT LIST/INFO from
// other clients, once per batch rather than once per command.
func (c *Client) publish() {
	c.flushCalls()
	c.noteMem()
	if c.lastCmd != nil {
		c.publishState(c.lastCmd)
	}
}

// recoverPanic keeps a bug in one command from taking the whole server
// down (goroutine path; the loops use containPanic): see notePanic.
func (c *Client) recoverPanic() {
	if r := recover(); r != nil {
		c.notePanic(r)
		c.flush()
	}
}

// containPanic is recoverPanic for a client on an event loop (deferred by
// OnReadable and serveDetached): the loop goroutine, which serves every
// other client of the loop, survives, and this client is closed once its
// replies, the error last, are written.
func (c *Client) containPanic(nc *netloop.Conn) {
	r := recover()
	if r == nil {
		return
	}
	c.notePanic(r)
	c.detachArgv = nil
	c.flush()
	if c.offLoop {
		nc.Close() // the detached owner closes
		return
	}
	nc.CloseWhenFlushed()
}

// notePanic handles a panic in a command (a bug): the panic and its stack
// are logged, counted (INFO stats contained_panics, and
// unexpected_error_replies), and the client gets an error; the caller
// then disconnects it. The stripe locks the command held were released by
// the dispatcher's deferred unlocks (callData, EXEC) as the panic
// unwound. Valkey would abort with a crash report; a multi-threaded
// server can do better and keep serving everyone else.
func (c *Client) notePanic(r any) {
	c.srv.log.warn("PANIC while serving client id=%d addr=%s: %v\n%s", c.id, c.peerAddr(), r, debug.Stack())
	c.srv.stats.unexpectedErrs.Add(1)
	c.srv.stats.panics.Add(1)
	if c.cmdMark <= c.w.Len() {
		c.w.Truncate(c.cmdMark) // a partial reply (EXEC's array) would mislead
	}
	c.w.Error("ERR internal error (see the server log); connection closed")
}

// flush writes pending replies in one syscall, their calls counted first.
func (c *Client) flush() bool {
	c.flushCalls()
	if c.nc == nil || c.offLoop {
		c.srv.replKick() // on a loop, its round's end does (beforeFlush)
	}
	if c.w.Len() == 0 {
		return true
	}
	if c.srv.aof.on.Load() && (c.nc == nil || c.offLoop) {
		// On a loop, replies are collected and the loop waits once for
		// the round's writes before sending them (aofBeforeFlush).
		c.waitAOF()
	}
	c.notePeak(c.w.Len())
	n, err := 0, error(nil)
	if bs := c.w.Blocks(); len(bs) > 0 {
		// A large reply's full blocks (outbuf.go), handed on as they are.
		n, err = c.writeBlocks(bs)
	}
	if t := c.w.Tail(); err == nil && len(t) > 0 {
		var m int
		m, err = c.conn.Write(t)
		n += m
	}
	c.srv.stats.netOutput.Add(c.ctx.Shard, int64(n))
	c.srv.stats.writes.Add(c.ctx.Shard, 1)
	c.netOut.Add(int64(n))
	c.w.Reset()
	return err == nil
}

// writeBlocks sends the writer's full blocks: a loop connection takes
// them over until the kernel has them (netloop.Conn.WriteBlocks), the
// goroutine path writes them with writev (net.Buffers) and waits.
func (c *Client) writeBlocks(bs [][]byte) (int, error) {
	total := 0
	for _, b := range bs {
		total += len(b)
	}
	if c.nc != nil {
		if err := c.nc.WriteBlocks(bs); err != nil {
			return 0, err
		}
		return total, nil
	}
	bufs := net.Buffers(bs) // WriteTo consumes bufs (and bs: Reset follows)
	n, err := bufs.WriteTo(c.conn)
	return int(n), err
}

// kill closes the connection from another goroutine (CLIENT KILL,
// shutdown); the loop notices on its next read or write.
func (c *Client) kill() {
	if c.killed.Swap(true) {
		return
	}
	c.conn.Close()
	// After killed is set: a channel made from now on is signalled by
	// unblockCh itself.
	if ch := c.unblock.Load(); ch != nil {
		select {
		case *ch <- db.UnblockError:
		default:
		}
	}
}

// unblockCh returns the channel CLIENT UNBLOCK and kills signal, made at
// the first call. Any goroutine. A kill that came before the channel
// existed is signalled here (kill sets killed before it looks for the
// channel, and this looks at killed after publishing it, so one of the
// two sends).
func (c *Client) unblockCh() chan int {
	if p := c.unblock.Load(); p != nil {
		return *p
	}
	ch := make(chan int, 1)
	if !c.unblock.CompareAndSwap(nil, &ch) {
		return *c.unblock.Load()
	}
	if c.killed.Load() {
		select {
		case ch <- db.UnblockError:
		default:
		}
	}
	return ch
}

// peerAddr is the client's address as CLIENT LIST shows it (addr=),
// formatted on each call; "" for a fake client without one. Any
// goroutine (conn is not replaced once the client is registered).
func (c *Client) peerAddr() string {
	if c.fixedAddr != nil {
		return c.fixedAddr[0]
	}
	if c.conn == nil {
		return ""
	}
	return c.conn.RemoteAddr().String()
}

// localAddr is peerAddr's local side (laddr=).
func (c *Client) localAddr() string {
	if c.fixedAddr != nil {
		return c.fixedAddr[1]
	}
	if c.conn == nil {
		return ""
	}
	return c.conn.LocalAddr().String()
}

func (c *Client) cleanup() {
	c.flushCalls()
	c.conn.Close()
	c.releaseMem()
	c.unwatch()
	c.srv.pubsub.UnsubscribeAll(c, &c.subs)
	c.stopMonitor()
	c.trackingClose()
	s := c.srv
	s.mu.Lock()
	delete(s.mu.clients, c.id)
	s.mu.Unlock()
	s.nclients.Add(-1)
}

// Flush is used by blocking commands to send pending replies before they
// wait, as Valkey does before it parks a client.
func (c *Client) Flush() {
	c.flush()
	c.armOutput()
}

// UnblockChan returns the channel CLIENT UNBLOCK and kills signal.
func (c *Client) UnblockChan() <-chan int { return c.unblockCh() }

// SetBlocked records whether the client is waiting in a blocking command.
// While it is, a watcher goroutine reads the socket so that a disconnect is
// noticed at once (a push must not hand data to a dead client) and any
// commands the client pipelines meanwhile are kept for later, as Valkey
// buffers a blocked client's input.
func (c *Client) SetBlocked(on bool) {
	if on {
		// Made before others can see the client blocked: CLIENT
		// UNBLOCK signals the channel; tests look at the watcher.
		c.unblockCh()
		if c.bw == nil {
			c.bw = new(blockWatch)
		}
	}
	c.blocked.Store(on)
	c.publishArgvMem(on)
	if on {
		c.startWatcher()
	} else {
		c.stopWatcher()
	}
}

// SetBlockDeadline records whether the coming wait has a deadline.
func (c *Client) SetBlockDeadline(has bool) { c.timed.Store(has) }

// publishArgvMem publishes the size of the waiting command's arguments
// (on) or clears it.
func (c *Client) publishArgvMem(on bool) {
	n := 0
	if on {
		for _, a := range c.ctx.Argv {
			n += len(a)
		}
	}
	c.argvMem.Store(int64(n))
}

// Disconnected is closed when the peer goes away while the client is
// blocked (db.Ctx.Block selects on it).
func (c *Client) Disconnected() <-chan struct{} {
	if c.bw == nil {
		return nil
	}
	return c.bw.gone
}

func (c *Client) startWatcher() {
	bw := c.bw // made by SetBlocked
	if bw.watching {
		return
	}
	bw.watching = true
	gone, done := make(chan struct{}), make(chan struct{})
	bw.gone, bw.done = gone, done
	bw.stop.Store(false)
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			n, err := c.conn.Read(buf)
			if n > 0 {
				bw.mu.Lock()
				bw.pendingIn = append(bw.pendingIn, buf[:n]...)
				bw.mu.Unlock()
			}
			if err != nil {
				if bw.stop.Load() {
					return
				}
				if errors.Is(err, os.ErrDeadlineExceeded) {
					// A push's deadline (push.go): its output waits for
					// the command to end; keep watching. Look at
					// stop again after clearing the deadline:
					// stopWatcher may have set its own deadline just
					// before the clear, and this Read would then wait
					// forever (stopWatcher sets the flag first, so if
					// it is not set yet, its deadline comes after).
					c.conn.SetReadDeadline(time.Time{})
					if bw.stop.Load() {
						return
					}
					continue
				}
				close(gone)
				return
			}
		}
	}()
}

func (c *Client) stopWatcher() {
	bw := c.bw
	if bw == nil || !bw.watching {
		return
	}
	bw.watching = false
	bw.stop.Store(true)
	c.conn.SetReadDeadline(time.Now()) // interrupt the watcher's Read
	<-bw.done
	c.conn.SetReadDeadline(time.Time{})
}

// takePending moves input read while blocked into the request reader. It
// runs between commands, when no argv aliases the reader's buffer.
func (c *Client) takePending() {
	bw := c.bw
	if bw == nil {
		return
	}
	bw.mu.Lock()
	p := bw.pendingIn
	bw.pendingIn = nil
	bw.mu.Unlock()
	if len(p) > 0 {
		c.rd.Feed(p)
	}
}
