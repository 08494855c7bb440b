package server

import (
	"errors"
	"net"
	"os"
	"runtime"
	"strconv"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/netloop"
	"github.com/corvid-kv/corvid/internal/resp"
)

// The event-loop network path (package netloop) is the default; the
// environment variable CORVID_NETLOOP overrides the number of loops:
//
//	unset, ""       loops from io-threads (see defaultLoops)
//	"0", "off"      one goroutine per connection on Go's netpoller
//	N (N >= 1)      N event loops
//	"auto"          GOMAXPROCS event loops
//
// CORVID_NETLOOP_WAIT=sched makes the loops wait in epoll_wait through Go's
// scheduler instead of with a raw syscall (netloop.Options.RawWait, the
// default whenever GOMAXPROCS exceeds the number of loops).
//
// CORVID_NETLOOP_LOCK=0 leaves the loops' goroutines free to move between
// OS threads (by default each is locked to its own; see netloop.Options.
// LockThread). CORVID_NETLOOP_SLICE=100us also asks the kernel for that
// scheduling slice for each loop's thread (Options.Slice; off by default).
//
// CORVID_NETLOOP_DEFER=0 makes the loops write each client's replies as
// soon as its batch has run, instead of after every ready client's batch
// (netloop.Options.DeferWrite, the default: 1.13-1.30x the throughput of
// writing at once for pipelined LPUSH, docs/benchmarks.md).
//
// The loops run on io_uring where the kernel allows it (netloop.Options.
// URing: one io_uring_enter per round instead of epoll_wait plus a read
// and a write per connection; 0.81x Redis's CPU per request unpipelined
// against epoll's 0.96x, and a lower p99 at equal load, docs/benchmarks.md
// "io_uring"); CORVID_NETLOOP_URING=0 keeps them on epoll.
//
// On a loop, a client's batch runs inline: read once, run every complete
// command through runBuffered/execute, write the replies once. A command
// that can wait (the blocking flag: BLPOP, WAIT, ...; DEBUG; any command
// while CLIENT PAUSE would hold it) must not stall the loop's other
// clients, so the client is detached: the loop drops it from its epoll set
// and a goroutine runs that command and the rest of the batch with
// blocking writes, then gives the client back. See docs/architecture.md,
// "Network path".

// Locking each loop to one thread keeps the kernel from preempting the loop
// each time one of its writes wakes a client on the same core: with the
// server in its own scheduling group, as a service is, P1 SET went from
// 110-120k ops/s to 129-132k (Redis 132-135k) on this 2-core machine; with
// server and clients in one group it changes nothing measurable
// (docs/benchmarks.md, "Scheduling groups"). A 100 us slice on top measured
// no better (119-131k against 123-133k with 50 connections, 99-107k against
// 90-102k with 4), so it is only a knob.

// loopSlice reads CORVID_NETLOOP_SLICE: unset, "0" or "off", no slice;
// else a duration.
func loopSlice(v string) time.Duration {
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0
	}
	return d
}

// netloopLoops reads CORVID_NETLOOP: 0 means the goroutine path.
func netloopLoops(ioThreads int) int {
	v := os.Getenv("CORVID_NETLOOP")
	switch v {
	case "":
		return defaultLoops(ioThreads, runtime.GOMAXPROCS(0))
	case "0", "off", "no":
		return 0
	case "auto":
		return runtime.GOMAXPROCS(0)
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
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

// startNetloop starts the event loops when CORVID_NETLOOP asks for them
// (from Listen, so that they exist before Serve accepts).
func (s *Server) startNetloop() error {
	n := netloopLoops(s.cfg.IOThreads())
	if n == 0 {
		return nil
	}
	raw := os.Getenv("CORVID_NETLOOP_WAIT") != "sched"
	spin, _ := time.ParseDuration(os.Getenv("CORVID_NETLOOP_SPIN"))
	deferWrite := os.Getenv("CORVID_NETLOOP_DEFER") != "0"
	slice := loopSlice(os.Getenv("CORVID_NETLOOP_SLICE"))
	lock := os.Getenv("CORVID_NETLOOP_LOCK") != "0"
	ring := os.Getenv("CORVID_NETLOOP_URING") != "0"
	e, err := netloop.New(netloop.Options{Loops: n, Tick: time.Second, RawWait: raw, Spin: spin, DeferWrite: deferWrite,
		LockThread: lock, Slice: slice, URing: ring})
	if err != nil {
		return err
	}
	s.loops = e
	s.offLoop = offLoopCommands(s.table)
	wait := "scheduler"
	if e.RawWait() {
		wait = "raw"
	}
	thread := "locked thread"
	if !lock && slice == 0 {
		thread = "unlocked"
	} else if slice > 0 {
		thread = "locked thread, slice " + slice.String()
	}
	poller := "epoll_wait"
	switch {
	case e.URing():
		poller, thread = "io_uring_enter", "locked thread"
	case ring:
		poller = "epoll_wait (io_uring unavailable)"
	}
	s.log.notice("Network path: %d event loop(s), %s %s, %s", n, wait, poller, thread)
	return nil
}

// offLoopSet names the commands that may wait, indexed by the first letter
// of their name for a cheap pre-check on every request.
type offLoopSet struct {
	first [256]bool
	cmds  map[*cmd]bool
}

func offLoopCommands(t *table) *offLoopSet {
	o := &offLoopSet{cmds: map[*cmd]bool{}}
	for _, c := range t.all() {
		off := c.meta.Flags&command.FlagBlocking != 0 || c.name == "debug"
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
	return o
}

// takeForLoop moves an accepted connection's socket out of Go's netpoller
// for an event loop; the caller attaches it. It reports false if the
// socket could not be taken (the connection is then closed).
func (s *Server) takeForLoop(c *Client, tc *net.TCPConn) bool {
	laddr, raddr := tc.LocalAddr(), tc.RemoteAddr()
	fd, err := netloop.TakeConn(tc)
	if err != nil {
		return false
	}
	c.nc = s.loops.Register(fd, c)
	c.conn = &loopConn{nc: c.nc, laddr: laddr, raddr: raddr}
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
	if cm == nil || c.multi != nil && !multiControl(cm.name) {
		return false // unknown, or queued by MULTI: does not wait
	}
	if s.offLoop.cmds[cm] {
		return true
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
	return s.pause.blocks(cm)
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
	}
	if n > 0 || resumed {
		s.stats.netInput.Add(c.shard, int64(n))
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
			nc.CloseWhenFlushed()
			return
		}
		if !c.flush() {
			nc.Close()
			return
		}
		if c.closeAfter {
			nc.CloseWhenFlushed()
			return
		}
		if !c.resume { // a batch held back for its output keeps its buffers
			shrunk := c.w.Shrink(keptReplyBuf)
			if nc.Trim() || shrunk {
				c.noteMem()
			}
		}
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
		if c.pendingIn != nil {
			c.takePending() // input read while it was blocked
		}
		if !c.closeAfter {
			ok = c.runBuffered()
		} else {
			c.publish()
		}
	}
	flushed := c.flush()
	if c.w.Shrink(keptReplyBuf) {
		c.noteMem()
	}
	if !ok || !flushed || c.closeAfter || c.killed.Load() {
		c.nc.Close()
		return
	}
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

// OnTick closes a client idle for longer than the timeout setting, as the
// goroutine path's read deadline does (not inside MULTI, as there).
func (c *Client) OnTick(nc *netloop.Conn, now time.Time) {
	t := c.srv.hot.timeoutSec.Load()
	if t > 0 && c.multi == nil && now.UnixMilli()-c.lastActive.Load() > t*1000 {
		nc.Close()
	}
}

// loopConn presents a loop connection as the net.Conn the rest of the
// server knows: addresses, the fd for CLIENT LIST, Close from any goroutine
// (CLIENT KILL, shutdown), which shuts the socket down so that its owner
// closes it, and the blocking Read with a read deadline that the
// disconnect watcher of a blocked (hence detached) client uses. The loop
// itself reads through netloop.Conn directly (non-blocking).
type loopConn struct {
	nc           *netloop.Conn
	laddr, raddr net.Addr
}

func (l *loopConn) Read(p []byte) (int, error)  { return l.nc.ReadBlocking(p) }
func (l *loopConn) Write(p []byte) (int, error) { return l.nc.Write(p) }
func (l *loopConn) Close() error                { l.nc.Shutdown(); return nil }
func (l *loopConn) LocalAddr() net.Addr         { return l.laddr }
func (l *loopConn) RemoteAddr() net.Addr        { return l.raddr }
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
