package server

import (
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/tsc"
)

// execute runs one command through Valkey's processCommand checks, in the
// same order so that the same request gets the same error: lookup, arity,
// authentication, then MULTI queueing, then the call.
func (c *Client) execute(argv [][]byte) {
	s := c.srv
	if c.outbox.size.Load() != 0 {
		// Pushes queued before this command ran go before its reply, as
		// Valkey writes a message into the subscriber's buffer when it is
		// published; what a command pushes to its own client (a message
		// it published to itself, an invalidation of its own write)
		// follows its reply, as Valkey's pending push messages do.
		c.takeOutbox(pushBatch)
	}
	c.cmdMark = c.w.Len()
	cm := c.lookupCmd(argv[0])
	if cm == nil {
		if buf := c.nameBuf; string(buf) == "post" || string(buf) == "host:" {
			c.securityWarning()
			return
		}
		c.rejectUnknown(argv)
		return
	}
	if cm.subs != nil && len(argv) >= 2 {
		sub, buf := lookupSub(cm, argv[1], c.nameBuf)
		c.nameBuf = buf
		if sub == nil {
			c.reject(nil, "ERR unknown subcommand '"+trunc(cstr(argv[1]), 128)+"'. Try "+strings.ToUpper(cstr(argv[0]))+" HELP.")
			return
		}
		cm = sub
	}
	if !cm.meta.CheckArity(len(argv)) {
		c.reject(cm, "ERR wrong number of arguments for '"+cm.name+"' command")
		return
	}
	if !c.authed && cm.meta.Flags&command.FlagNoAuth == 0 && s.acl.AuthRequired() {
		c.reject(cm, "NOAUTH Authentication required.")
		return
	}
	if msg := c.protectedRefusal(cm); msg != "" {
		c.reject(cm, msg)
		return
	}
	if c.multi != nil && cm.meta.Flags&command.FlagNoMulti != 0 {
		c.reject(cm, "ERR Command not allowed inside a transaction")
		return
	}
	// ACLs, after the transaction check and before the rest, as Valkey's
	// processCommand. An unrestricted user (the default one: +@all ~* &*)
	// costs two loads and this branch.
	if u := c.user.Load(); u != nil {
		if p := u.Perms(); !p.Unrestricted() && c.aclRefused(cm, argv, p) {
			return
		}
	}
	// Cluster redirection (cluster.go), where Valkey's processCommand
	// checks it: after the ACLs, before maxmemory.
	if s.cluster != nil && c.clusterRefused(cm, argv) {
		return
	}
	if s.scripts.Busy() && cm.meta.Flags&command.FlagAllowBusy == 0 && !c.inScript {
		if s.scripts.BusyFunction() {
			c.reject(cm, busyFunctionError)
		} else {
			c.reject(cm, busyScriptError)
		}
		return
	}
	if s.ks.MaxMemory() > 0 && c.oomRefused(cm) {
		return
	}
	if s.diskDeny.Load() != diskOK && c.diskRefused(cm) {
		return
	}
	if c.monitor {
		if msg := c.monitorRefusal(cm); msg != "" {
			c.reject(cm, msg)
			return
		}
	}
	if msg := c.pubsubRefusal(cm); msg != "" {
		c.reject(cm, msg)
		return
	}
	if s.slotStats != nil && c.slotStatsOn() {
		// CLUSTER SLOT-STATS's counters (cluster_slotstats.go).
		c.executeCounted(cm, argv)
		return
	}
	c.run(cm, argv)
}

// run queues a command inside MULTI, or waits out a CLIENT PAUSE that
// holds it and calls it: execute's end, once every check passed. It
// returns false when the command did not run here: handed to a goroutine
// of its own, or checked and run again from the top after a pause.
func (c *Client) run(cm *cmd, argv [][]byte) bool {
	s := c.srv
	if c.multi != nil && !multiControl(cm.meta) {
		c.queue(cm, argv)
		return true
	}
	if s.pause.blocks(cm) && !c.scriptDeclaresNoWrites(cm, argv) {
		if c.nc != nil && !c.offLoop {
			// CLIENT PAUSE began after mustLeaveLoop looked: waiting here
			// would stall the loop's other clients, so leave the loop and
			// run this command again from the top on a goroutine of its
			// own (runBuffered sees detachArgv). Nothing ran yet.
			c.detachArgv = argv
			return false
		}
		// Waiting, the command is visible to CLIENT LIST and INFO as
		// Valkey's postponed clients are.
		c.publishState(cm)
		c.ctx.Argv = argv
		c.publishArgvMem(true)
		c.postponed.Store(true)
		s.pause.wait(c)
		c.postponed.Store(false)
		c.publishArgvMem(false)
		if !c.killed.Load() && !s.isStopping() {
			// Check again from the top, as Valkey reprocesses a paused
			// command: the server may be a replica now (FAILOVER), or
			// still paused.
			c.execute(argv)
			return false
		}
	}
	c.call(cm, argv)
	if c.cluster.asking {
		c.clusterAfterCall(cm)
	}
	return true
}

func lookupSub(cm *cmd, name []byte, scratch []byte) (*cmd, []byte) {
	scratch = foldLower(scratch, name)
	return cm.subs[string(scratch)], scratch
}

// multiControl lists the commands that run immediately inside MULTI.
func multiControl(m *command.Meta) bool {
	switch m {
	case command.Exec, command.Discard, command.Multi, command.Watch, command.Quit, command.Reset:
		return true
	}
	return false
}

// securityWarning handles "POST" and "Host:" lines: an HTTP request sent
// to the server, the signature of a cross-protocol scripting attack. As
// Valkey does, it logs and closes the connection without a reply, so the
// rest of the request is never executed.
func (c *Client) securityWarning() {
	c.srv.log.warn("Possible SECURITY ATTACK detected. It looks like somebody is sending POST or Host: commands to Valkey. This is likely due to an attacker attempting to use Cross Protocol Scripting to compromise your Valkey instance. Connection from %s aborted.", c.peerAddr())
	c.killed.Store(true)
	c.conn.Close()
}

// rejectUnknown writes Valkey's unknown-command error, quoting up to 128
// bytes of arguments.
func (c *Client) rejectUnknown(argv [][]byte) {
	var args strings.Builder
	for i := 1; i < len(argv) && args.Len() < 128; i++ {
		a := cstr(argv[i])
		a = trunc(a, 128-args.Len())
		args.WriteString("'" + a + "' ")
	}
	c.reject(nil, "ERR unknown command '"+trunc(cstr(argv[0]), 128)+"', with args beginning with: "+args.String())
}

// reject answers a command that did not run. Inside MULTI it also dooms
// the transaction, as Valkey's flagTransaction does.
func (c *Client) reject(cm *cmd, msg string) {
	if cm != nil {
		cm.stats.shard[c.ctx.Shard].rejected.Add(1)
	}
	if cm != nil && cm.meta == command.Exec {
		// execCommandAbort: a rejected EXEC discards the transaction (if
		// any) and says why, even outside MULTI.
		c.multi = nil
		c.unwatch()
		// Errors Valkey formats itself (rejectCommandFormat) carry no
		// "ERR " inside the abort text; shared ones (NOAUTH, OOM) keep
		// their code.
		msg = "EXECABORT Transaction discarded because of: " + strings.TrimPrefix(msg, "ERR ")
	} else if c.multi != nil {
		c.multi.aborted = true
	}
	c.srv.errs.count(msg)
	c.srv.stats.totalErrors.Add(1)
	c.w.Error(sanitize(msg))
	if c.tracking.Load() != nil {
		c.trackEnd(cm) // a refused command ends CLIENT CACHING's effect too
	}
}

// cstr is an argument as Valkey's %s prints it into an error: up to its
// first NUL byte (db.CString).
func cstr(b []byte) string { return string(db.CString(b)) }

func trunc(s string, n int) string {
	if n < 0 {
		n = 0
	}
	if len(s) > n {
		return s[:n]
	}
	return s
}

// sanitize replaces CR and LF, which would break the protocol, with
// spaces, as Valkey's rejectCommandFormat does. Unlike addReplyErrorFormat
// (resp.Writer.Error's rule) it trims none first: a rejected command's
// argument that ends in CR ends the error in a space.
func sanitize(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r", " ", "\n", " ").Replace(s)
	}
	return s
}

// lookupCmd resolves a command name, remembering the last one found: a
// connection mostly repeats one command (a pipeline of SETs, a benchmark,
// a worker), and comparing a few bytes is cheaper than folding the case
// and hashing into the table. On a miss, c.nameBuf holds the lower-cased
// name (execute's unknown-command path reads it).
func (c *Client) lookupCmd(name []byte) *cmd {
	if c.lastLookup != nil && string(name) == string(c.lastName) {
		return c.lastLookup
	}
	cm, buf := c.srv.table.lookup(name, c.nameBuf)
	c.nameBuf = buf
	if cm != nil {
		c.lastLookup = cm
		c.lastName = append(c.lastName[:0], name...)
	}
	return cm
}

// call executes a command that passed the checks, under the locks its key
// specs name, and records stats, slowlog and errors.
func (c *Client) call(cm *cmd, argv [][]byte) {
	s := c.srv
	ctx := &c.ctx
	ctx.Argv = argv
	c.curCmd = cm
	ctx.Dirty = 0
	ctx.Unpin()
	ctx.BeginOwn()
	if !ctx.Locked {
		// A command of its own (inside EXEC, EXEC's unit collects it):
		// data commands record what they propagate while the effects
		// stream is active (package effects).
		// callData decides with the stripes held (db.Ctx.StartProp).
		ctx.Prop = nil
		if cm.dbProc != nil {
			// Valkey does not wrap what SCAN and RANDOMKEY delete (the
			// expired keys they meet) in a transaction.
			c.unit.Alone = cm.meta.Flags&command.FlagTouchesArbitraryKeys != 0
		}
	}
	start := c.clock()
	if !ctx.Locked {
		ctx.Now = c.batchNow
	}
	mark := c.w.Len()
	if cm.dbProc == nil || cm.meta.Flags&command.FlagBlocking != 0 {
		// INFO, CLIENT LIST and the rest see every call before this one
		// counted; a blocking command may send earlier replies and wait,
		// and CLIENT LIST shows it as the client's command meanwhile (as
		// it shows DEBUG SLEEP's).
		c.flushCalls()
		c.publishState(cm)
	}
	blocking := cm.meta.Flags&command.FlagBlocking != 0
	if blocking {
		// Logged when it starts (Valkey logs a command that blocks as it
		// blocks, and not again when it is served).
		if s.monitors.list.Load() != nil {
			c.feedMonitors(cm, argv)
		}
	}
	if cm.dbProc != nil {
		c.callData(cm)
	} else {
		cm.proc(c)
	}
	if !blocking && s.monitors.list.Load() != nil {
		c.feedMonitors(cm, argv)
	}
	if s.trk.active.Load() {
		// Client-side caching (tracking.go): reads to remember, CLIENT
		// CACHING's end, broadcast batches, the table's limit.
		c.trackAfter(cm)
	}
	end := tsc.Now()
	c.lastEnd = end
	if cm.meta.Flags&command.FlagBlocking != 0 {
		c.lastEnd = 0 // it may have waited: the next command reads the clock
	}
	ns := tsc.Nanos(end - start)
	usec := ns / 1000
	s.observeCall(cm, c.ctx.Shard, ns)
	c.lastCmd = cm
	c.countCall(cm, usec)
	st := &cm.stats.shard[c.ctx.Shard]
	if c.w.Len() > mark && c.w.At(mark) == '-' {
		st.failed.Add(1)
		if c.errCounted {
			// A script replied with the error of a command it called,
			// counted when that command replied.
			c.errCounted = false
		} else {
			s.stats.totalErrors.Add(1)
			s.errs.countReply(c.w.From(mark))
		}
	}
	if ctx.Dirty > 0 {
		s.ks.AddDirty(c.ctx.Shard, int64(ctx.Dirty))
	}
	if cm.meta.Flags&command.FlagSkipSlowlog == 0 && !c.inScript {
		s.slow.maybeAdd(c, cm, argv, usec)
	}
	if c.replyMode != replyOn || c.skipNext {
		// CLIENT REPLY OFF/SKIP: drop this command's reply.
		if c.skipNext && cm.meta != command.ClientReply {
			c.skipNext = false
			c.w.Truncate(mark)
		} else if c.replyMode == replyOff && cm.meta != command.ClientReply {
			c.w.Truncate(mark)
		}
	}
}

// callCounts are a client's command statistics not yet added to the shared
// counters: consecutive calls of one command. They are added once per
// batch (publish), before any reply is written (flush), when the command
// changes, and before any command that could report them (see call),
// rather than once per call: the four locked adds per call were
// ~5% of a pipelined GET's server CPU (perf, docs/benchmarks.md). A
// reply never leaves before its call is counted.
type callCounts struct {
	cm          *cmd
	calls, usec int64
}

// countCall counts one call of cm that took usec microseconds.
func (c *Client) countCall(cm *cmd, usec int64) {
	p := &c.pending
	if p.cm != cm {
		c.flushCalls()
		p.cm = cm
	}
	p.calls++
	p.usec += usec
}

// flushCalls adds the pending counts to the shared counters.
func (c *Client) flushCalls() {
	p := &c.pending
	if p.calls == 0 {
		return
	}
	st := &p.cm.stats.shard[c.ctx.Shard]
	st.calls.Add(p.calls)
	st.usec.Add(p.usec)
	c.srv.stats.commands.Add(c.ctx.Shard, p.calls)
	c.cmds.Add(p.calls)
	p.calls, p.usec = 0, 0
}

// callAllStripes runs a LockKeys procedure whose argv the key specs
// find no key in, under every stripe.
func (c *Client) callAllStripes(cm *cmd) {
	ctx := &c.ctx
	ks := c.srv.ks
	ks.LockAll()
	defer ks.UnlockAll()
	ctx.StartProp()
	c.locks.Reset()
	c.locks.All()
	if db.Invariants {
		ctx.HoldSet(&c.locks)
		defer ctx.ReleaseHeld()
	}
	cm.dbProc(ctx)
	ctx.CommitUnit()
	ctx.ServeReady(&c.locks)
}

// callData runs a db procedure under the stripe locks it needs.
func (c *Client) callData(cm *cmd) {
	ctx := &c.ctx
	ks := c.srv.ks
	if ctx.Locked {
		cm.dbProc(ctx) // inside EXEC, which commits the unit
		ctx.FinishOwn()
		return
	}
	// Unlocks are deferred so that a panicking procedure (a bug) cannot
	// leave stripes locked for everyone else; see Client.recoverPanic.
	// Open-coded defers cost about a nanosecond.
	// The unit is committed before the stripes are released (and before
	// the clients a push serves: theirs are units of their own, after).
	switch cm.lock {
	case db.LockNone:
		// The procedure locks what it needs; SCAN and RANDOMKEY record
		// the expired keys they delete if the stream is active now.
		ctx.StartProp()
		cm.dbProc(ctx)
		ctx.CommitUnit()
	case db.LockAll:
		ks.LockAll()
		defer ks.UnlockAll()
		ctx.StartProp()
		ctx.Locked = true
		defer func() { ctx.Locked = false }()
		if db.Invariants {
			c.locks.Reset()
			c.locks.All()
			ctx.HoldSet(&c.locks)
			defer ctx.ReleaseHeld()
		}
		cm.dbProc(ctx)
		if c.tracking.Load() != nil {
			c.trackRead(cm) // under the stripes the keys were read with
		}
		ctx.CommitUnit()
		if ctx.HasReady() {
			// Serve clients blocked on keys this command made ready
			// (SWAPDB), before another client can take their data.
			c.locks.Reset()
			c.locks.All()
			ctx.ServeReady(&c.locks)
		}
	default:
		c.keyPos = cm.meta.KeyPositions(ctx.Argv, c.keyPos[:0])
		if len(c.keyPos) == 0 {
			// The key specs find no key in this argv (one they call
			// invalid, as PFMERGE with its destination only), yet the
			// procedure may name one: it runs under every stripe.
			c.callAllStripes(cm)
			return
		}
		if len(c.keyPos) == 1 {
			// The common case: one key, one stripe, no sorting.
			st := ctx.PinKey(ctx.Argv[c.keyPos[0]])
			ks.LockStripe(st)
			defer ks.UnlockStripe(st)
			ctx.StartProp()
			if db.Invariants {
				ctx.HoldStripe(st)
				defer ctx.ReleaseHeld()
			}
			cm.dbProc(ctx)
			if c.tracking.Load() != nil {
				c.trackRead(cm)
			}
			ctx.CommitUnit()
			if ctx.HasReady() {
				// A push woke blocked clients: serve them now, while
				// the key is still locked (see db/blocking.go).
				c.locks.Reset()
				c.locks.AddStripe(st)
				ctx.ServeReady(&c.locks)
			}
			return
		}
		c.locks.Reset()
		for _, p := range c.keyPos {
			c.locks.Add(ks, ctx.Argv[p])
		}
		ks.Lock(&c.locks)
		defer ks.Unlock(&c.locks)
		ctx.StartProp()
		if db.Invariants {
			ctx.HoldSet(&c.locks)
			defer ctx.ReleaseHeld()
		}
		cm.dbProc(ctx)
		if c.tracking.Load() != nil {
			c.trackRead(cm)
		}
		ctx.CommitUnit()
		ctx.ServeReady(&c.locks)
	}
}

// isStopping reports whether the server is shutting down.
func (s *Server) isStopping() bool {
	select {
	case <-s.stop:
		return true
	default:
		return false
	}
}
