package server

import (
	"errors"
	"net"
	"net/netip"
	"runtime"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/netloop"
	"github.com/corvid-kv/corvid/internal/resp"
	"golang.org/x/sys/unix"
)

// The network path is chosen at start-up by two directives of Corvid's
// own (internal/config; CONFIG GET shows them, CONFIG SET refuses them):
//
//	net-engine io_uring   event loops on io_uring (the default; epoll where
//	                      the kernel or a sandbox refuses io_uring)
//	net-engine epoll      event loops on epoll
//	net-engine goroutine  one goroutine per connection on Go's netpoller
//	event-loops N         N loops; 0 (the default) derives the number from
//	                      io-threads and the cores (defaultLoops)
//
// io_uring is the default because it does one io_uring_enter per round
// instead of epoll_wait plus a read and a write per connection: 0.81x
// Redis's CPU per request unpipelined against epoll's 0.96x, and a lower
// p99 at equal load (docs/benchmarks.md). The goroutine path stays as the
// portable fallback (any OS Go supports, no raw syscalls) and as the
// reference the loops are tested against (CI runs the server and
// integration tests on it too); it is not tuned.
//
// What the loops always do, each kept after measuring the alternative
// (docs/benchmarks-archive.md; the knobs that chose between them are
// gone): they wait in epoll_wait as a raw syscall whenever GOMAXPROCS
// exceeds the number of loops (netloop.Options.RawWait: 10-22% less CPU
// per request than waiting through the scheduler); each is locked to its
// own OS thread (Options.LockThread: p99 0.8-1.1 ms against 1.2-3.6 ms
// unlocked under SADD load); and they write each round's replies after
// every ready client's batch has run (Options.DeferWrite: 1.13-1.30x the
// throughput of writing at once for pipelined LPUSH). Spinning before
// sleeping and a custom scheduling slice measured no better and were
// removed.
//
// On a loop, a client's batch runs inline: read once, run every complete
// command through runBuffered/execute, write the replies once. A command
// that can wait (the blocking flag: BLPOP, WAIT, ...; DEBUG; any command
// while CLIENT PAUSE would hold it) must not stall the loop's other
// clients, so the client is detached: the loop drops it from its epoll set
// and a goroutine runs that command and the rest of the batch with
// blocking writes, then gives the client back. See docs/architecture.md,
// "Network path".

// beforeFlush runs on every event loop at the end of each round, before
// the round's replies are written: the AOF's wait (aofBeforeFlush), then
// the replicas get what the round appended (replKick).
func (s *Server) beforeFlush() {
	s.aofBeforeFlush()
	s.replKick()
}

// netLoops is the number of event loops for cfg; 0 means the goroutine
// path.
func netLoops(cfg *config.Config) int {
	if cfg.NetEngine() == config.NetEngineGoroutine {
		return 0
	}
	if n := cfg.EventLoops(); n > 0 {
		return n
	}
	return defaultLoops(cfg.IOThreads(), runtime.GOMAXPROCS(0))
}

// defaultLoops maps Valkey's io-threads onto event loops. Each loop both
// does I/O and executes commands, so loops are Corvid's execution threads:
// io-threads N asks for N of them, never more than there are cores
// (GOMAXPROCS), and never fewer than half the cores, so the default
// (io-threads 1) still uses several cores on a big machine. On the 2-core
// machines where the load generator shares the box, that is one loop, which
// measured cheaper per request than two (docs/benchmarks.md, issue 6).
func defaultLoops(ioThreads, procs int) int {
	n := max(ioThreads, (procs+1)/2)
	return max(1, min(n, procs))
}

// startNetloop starts the event loops unless net-engine is goroutine
// (from Listen, so that they exist before Serve accepts).
func (s *Server) startNetloop() error {
	n := netLoops(s.cfg)
	if n == 0 {
		s.log.notice("Network path: one goroutine per connection (net-engine goroutine)")
		return nil
	}
	ring := s.cfg.NetEngine() == config.NetEngineIOURing
	e, err := netloop.New(netloop.Options{Loops: n, Tick: time.Second, RawWait: true, DeferWrite: true,
		LockThread: true, URing: ring, BeforeFlush: s.beforeFlush})
	if err != nil {
		return err
	}
	s.loops = e
	s.offLoop = offLoopCommands(s.table)
	wait := "scheduler"
	if e.RawWait() {
		wait = "raw"
	}
	poller := "epoll_wait"
	switch {
	case e.URing():
		poller = "io_uring_enter"
	case ring:
		poller = "epoll_wait (io_uring unavailable)"
	}
	s.log.notice("Network path: %d event loop(s), %s %s, locked thread", n, wait, poller)
	return nil
}

// offLoopSet names the commands that may wait, indexed by the first letter
// of their name for a cheap pre-check on every request.
type offLoopSet struct {
	first [256]bool
	cmds  map[*cmd]bool
	// scripts run off the loop when they may stall it (scriptMayStall).
	scripts map[*cmd]bool
}

func offLoopCommands(t *table) *offLoopSet {
	o := &offLoopSet{cmds: map[*cmd]bool{}, scripts: map[*cmd]bool{}}
	for _, c := range t.all() {
		switch c.meta {
		case command.Eval, command.EvalRo, command.Evalsha, command.EvalshaRo, command.Fcall, command.FcallRo:
			o.scripts[c] = true
			o.first[c.name[0]] = true
			o.first[c.name[0]&^0x20] = true
		}
		off := c.meta.Flags&command.FlagBlocking != 0 || c.meta == command.Debug || c.meta == command.Save || c.meta == command.Migrate ||
			c.meta == command.Sync || c.meta == command.Psync || c.meta == command.Failover || c.meta == command.Shutdown
		for _, sub := range c.subs {
			if sub.meta.Flags&command.FlagBlocking != 0 {
				off = true
			}
		}
		if off {
			o.cmds[c] = true
			o.first[c.name[0]] = true
			o.first[c.name[0]&^0x20] = true
		}
	}
	// Commands renamed by rename-command are called by their new names.
	for name, c := range t.byName {
		if o.cmds[c] || o.scripts[c] {
			o.first[name[0]] = true
			o.first[name[0]&^0x20] = true
		}
	}
	return o
}

// takeForLoop moves an accepted connection's socket out of Go's netpoller
// for an event loop; the caller attaches it. It reports false if the
// socket could not be taken (the connection is then closed).
func (s *Server) takeForLoop(c *Client, tc *net.TCPConn) bool {
	laddr, raddr := addrPort(tc.LocalAddr()), addrPort(tc.RemoteAddr())
	fd, err := netloop.TakeConn(tc)
	if err != nil {
		return false
	}
	c.nc = s.loops.Register(fd, c)
	lc := newLoopConn(laddr, raddr, -1)
	lc.nc = c.nc
	c.conn = lc
	return true
}

// mustLeaveLoop reports whether the next command may wait, so the client
// has to leave its loop before running it. Most requests are decided by
// their first letter and an atomic load.
func (c *Client) mustLeaveLoop(argv [][]byte) bool {
	s := c.srv
	if len(argv) == 0 || len(argv[0]) == 0 {
		return false
	}
	paused := s.pause.active.Load()
	if !paused && !s.offLoop.first[argv[0][0]] {
		return false
	}
	cm := c.lookupCmd(argv[0])
	if cm == nil || c.multi != nil && !multiControl(cm.meta) {
		return false // unknown, or queued by MULTI: does not wait
	}
	if s.offLoop.cmds[cm] {
		if cm.meta == command.Xread || cm.meta == command.Xreadgroup {
			return streamReadBlocks(argv) // only with BLOCK can it wait
		}
		return true
	}
	if s.offLoop.scripts[cm] {
		return c.scriptMayStall(cm, argv)
	}
	if !paused {
		return false
	}
	if cm.subs != nil && len(argv) >= 2 {
		if sub, buf := lookupSub(cm, argv[1], c.nameBuf); sub != nil {
			c.nameBuf = buf
			cm = sub
		}
	}
	return s.pause.blocks(cm) && !c.scriptDeclaresNoWrites(cm, argv)
}

// streamReadBlocks reports whether an XREAD or XREADGROUP has a BLOCK
// option: the options are read as the commands parse them (GROUP takes
// two arguments, COUNT and BLOCK one), up to STREAMS, after which come
// keys and IDs. An argument list they would refuse is answered on the
// loop (with its error).
func streamReadBlocks(argv [][]byte) bool {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		switch {
		case db.EqualFold(a, "streams"):
			return false
		case db.EqualFold(a, "block"):
			return true
		case db.EqualFold(a, "group"):
			i += 2
		case db.EqualFold(a, "count"):
			i++
		}
	}
	return false
}

// OnReadable runs one batch on the loop: read once, run every complete
// command, write the replies. A batch whose replies pile up past flushAt
// stops there (runBuffered) and asks the loop to run it again once they
// have been written (netloop.Conn.Again); that call runs what is already
// buffered without reading.
func (c *Client) OnReadable(nc *netloop.Conn) {
	defer c.containPanic(nc)
	s := c.srv
	n, err := 0, error(nil)
	resumed := c.resume
	if resumed {
		c.resume = false
	} else {
		c.rd.MaxBulk = s.hot.maxBulk.Load()
		c.rd.MaxQuery = s.hot.maxQuery.Load()
		c.rd.Unauthenticated = !c.authed
		n, err = c.rd.Fill(nc)
		s.stats.reads.Add(c.ctx.Shard, 1) // total_reads_processed
	}
	if n > 0 || resumed {
		s.stats.netInput.Add(c.ctx.Shard, int64(n))
		c.netIn.Add(int64(n)) // CLIENT LIST tot-net-in, counted as read
		// The round's time.Now (RoundMillis), not a wall clock derived
		// from the monotonic one: the LRU clock and expiry compare against
		// time.Now elsewhere, and two clocks that cross a second boundary
		// apart could stamp a key one LRU second "in the future", which
		// the evictor reads as idle for the whole clock period.
		c.batchNow = nc.RoundMillis()
		c.lastEnd = 0 // the first command reads the command clock
		c.lastActive.Store(c.batchNow)
		c.armOutput()
		ok := c.runBuffered()
		if c.detachArgv != nil {
			c.aofBarrier() // Detach writes what the round collected
			c.offLoop = true
			nc.Detach(c.serveDetached)
			return
		}
		if !ok {
			if c.closeNow {
				nc.Close() // over an output limit: nothing more is sent
				return
			}
			c.flush()
			c.aofBarrier() // CloseWhenFlushed writes at once
			nc.CloseWhenFlushed()
			return
		}
		if !c.flush() {
			nc.Close()
			return
		}
		if c.closeAfter {
			c.aofBarrier()
			nc.CloseWhenFlushed()
			return
		}
		if !c.resume { // a batch held back for its output keeps its buffers
			shrunk := c.w.Shrink(keptReplyBuf)
			released := c.rd.Release(false)
			c.noteInput(nc.Trim() || shrunk || released)
		}
	} else if err == netloop.ErrWouldBlock && c.rd.Release(true) {
		c.noteInput(true) // woken with nothing to read
	}
	if err != nil && err != netloop.ErrWouldBlock {
		if errors.Is(err, resp.ErrQueryBufferLimit) {
			c.queryBufferLimitReached()
		}
		nc.Close()
	}
}

// serveDetached runs on its own goroutine, which owns the connection: the
// command that made the client leave its loop, then the rest of the batch,
// with blocking writes; then it gives the client back to its loop.
func (c *Client) serveDetached() {
	defer c.containPanic(c.nc)
	argv := c.detachArgv
	c.detachArgv = nil
	ok := true
	if !c.killed.Load() {
		c.execute(argv)
		if c.bw != nil && c.bw.pendingIn != nil {
			c.takePending() // input read while it was blocked
		}
		if !c.closeAfter {
			ok = c.runBuffered()
		} else {
			c.publish()
		}
	}
	flushed := c.flush()
	if !ok || !flushed || c.closeAfter || c.killed.Load() {
		c.nc.Close()
		return
	}
	shrunk := c.w.Shrink(keptReplyBuf)
	c.noteInput(c.rd.Release(true) || shrunk)
	c.offLoop = false
	c.nc.Attach()
}

// OnDrained re-notes the client's memory once output the socket could
// not take at once has all been written (netloop.Drainer).
func (c *Client) OnDrained(*netloop.Conn) { c.noteMem() }

// OnClose releases the client once its socket is closed.
func (c *Client) OnClose(*netloop.Conn) {
	c.cleanup()
	c.srv.wg.Done()
}

// OnTick is the client's share of Valkey's clientsCron, once a second:
// the reply buffer's resizing (replybuf.go); a read buffer kept after
// the last batch is given back; after 2 s without input the client gives
// back its buffers (releaseIdle, and the loop connection's empty output
// buffers: netloop.Conn.TrimIdle); and a client idle for longer than the
// timeout setting is closed, as the goroutine path's read deadline does
// (not inside MULTI, as there).
func (c *Client) OnTick(nc *netloop.Conn, now time.Time) {
	ms := now.UnixMilli()
	idle := ms - c.lastActive.Load()
	if c.w.Len() == 0 {
		c.replyBufCron(ms)
	}
	if !c.resume && c.w.Len() == 0 {
		changed := c.rd.Release(true)
		if c.releaseIdle(ms) {
			changed = true
			nc.TrimIdle()
			c.ctx.Argv = nil // the last command's, which the reader dropped
		}
		c.noteInput(changed)
	}
	t := c.srv.hot.timeoutSec.Load()
	if t > 0 && c.multi == nil && idle > t*1000 {
		nc.Close()
	}
}

// loopConn presents a loop connection as the net.Conn the rest of the
// server knows: addresses, the fd for CLIENT LIST, Close from any goroutine
// (CLIENT KILL, shutdown), which shuts the socket down so that its owner
// closes it, and the blocking Read with a read deadline that the
// disconnect watcher of a blocked (hence detached) client uses. The loop
// itself reads through netloop.Conn directly (non-blocking).
//
// The addresses are kept as bytes (no *net.TCPAddr and IP slice per
// address held for the connection's life, and 16 B less than two
// netip.AddrPorts: issue 32, an idle client's memory); LocalAddr and
// RemoteAddr make a *net.TCPAddr when asked. An IPv4 address is kept in
// its IPv4-mapped form, which net.TCPAddr prints as IPv4; an IPv6 zone
// (a link-local peer) goes to zones, nil without one.
//
// A socket accepted by acceptRaw is a loopConn before it has a loop: nc
// is nil until accept registers fd, and until then Write and Close act
// on fd (accept's refusals: protected mode, maxclients).
type loopConn struct {
	nc           *netloop.Conn
	zones        *[2]string // local, remote; nil: neither has one
	lip, rip     [16]byte
	lport, rport uint16
	fd           int32 // the socket before nc exists (acceptRaw)
}

// newLoopConn makes the loopConn of a socket with these addresses.
func newLoopConn(laddr, raddr netip.AddrPort, fd int) *loopConn {
	l := &loopConn{lip: laddr.Addr().As16(), rip: raddr.Addr().As16(),
		lport: laddr.Port(), rport: raddr.Port(), fd: int32(fd)}
	if lz, rz := laddr.Addr().Zone(), raddr.Addr().Zone(); lz != "" || rz != "" {
		l.zones = &[2]string{lz, rz}
	}
	return l
}

// addr is one side's address (0 local, 1 remote).
func (l *loopConn) addr(side int) netip.AddrPort {
	ip, port := l.lip, l.lport
	if side == 1 {
		ip, port = l.rip, l.rport
	}
	a := netip.AddrFrom16(ip)
	if l.zones != nil && l.zones[side] != "" {
		a = a.WithZone(l.zones[side])
	}
	return netip.AddrPortFrom(a, port)
}

// remoteLoopback reports whether the peer is on the loopback interface
// (protected mode), without making a *net.TCPAddr.
func (l *loopConn) remoteLoopback() bool { return netip.AddrFrom16(l.rip).Unmap().IsLoopback() }

// addrPort is a TCP address as a value (the zero AddrPort for another
// kind, which no loop connection has).
func addrPort(a net.Addr) netip.AddrPort {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.AddrPort()
	}
	return netip.AddrPort{}
}

func (l *loopConn) Read(p []byte) (int, error) { return l.nc.ReadBlocking(p) }

func (l *loopConn) Write(p []byte) (int, error) {
	if l.nc == nil {
		return unix.Write(int(l.fd), p) // a refusal: non-blocking, best effort
	}
	return l.nc.Write(p)
}

func (l *loopConn) Close() error {
	if l.nc == nil {
		return unix.Close(int(l.fd))
	}
	l.nc.Shutdown()
	return nil
}

func (l *loopConn) LocalAddr() net.Addr  { return net.TCPAddrFromAddrPort(l.addr(0)) }
func (l *loopConn) RemoteAddr() net.Addr { return net.TCPAddrFromAddrPort(l.addr(1)) }
func (l *loopConn) SetDeadline(t time.Time) error {
	l.nc.SetReadDeadline(t)
	return nil
}
func (l *loopConn) SetReadDeadline(t time.Time) error {
	l.nc.SetReadDeadline(t)
	return nil
}
func (l *loopConn) SetWriteDeadline(time.Time) error      { return errors.ErrUnsupported }
func (l *loopConn) SyscallConn() (syscall.RawConn, error) { return loopRaw{l.nc}, nil }

// loopRaw gives CLIENT LIST the descriptor; nothing does I/O through it.
type loopRaw struct{ nc *netloop.Conn }

func (r loopRaw) Control(f func(fd uintptr)) error {
	fd := r.nc.FD()
	if fd < 0 {
		return net.ErrClosed
	}
	f(uintptr(fd))
	return nil
}
func (r loopRaw) Read(func(fd uintptr) bool) error  { return errors.ErrUnsupported }
func (r loopRaw) Write(func(fd uintptr) bool) error { return errors.ErrUnsupported }
