package server

import (
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/acl"
	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
	"github.com/corvid-kv/corvid/internal/script"
)

// Scripts (EVAL and friends) run on package script's engine; this file
// gives them atomicity, the commands they call and their replies.
//
// Atomicity. A script holds, from the moment it first needs one until it
// ends, every stripe it touches (two-phase locking), so no other command
// sees part of its writes and it sees no other command's: the stripes of
// its KEYS are taken before it starts, in the order every multi-stripe
// command takes them. A command the script calls on a key outside them
// takes that key's stripe with TryLock, since waiting while holding
// others could deadlock with a command that holds it and waits for one of
// ours. If the stripe is busy and the script has written nothing yet, the
// run is abandoned (its reply dropped) and run again under every stripe;
// if it has written, it retries for a bounded time and then fails with an
// error, keeping what it wrote as any failing script does. Commands that
// need the whole keyspace (FLUSHALL, KEYS, SCAN, SELECT...) escalate the
// same way to every stripe. Which scripts are marked to run under every
// stripe from then on: see take.
// Scripts inside EXEC run under EXEC's stripes.

// scriptHost is a running script's view of its client (script.Host).
type scriptHost struct {
	c     *Client
	ro    bool // EVAL_RO, EVALSHA_RO or a no-writes script
	flags script.Flags
	hints *script.Hints
	run   *script.Run // the run (its set_repl flags)
	locks db.LockSet  // the stripes held
	held  bool        // the caller holds every stripe already (EXEC)
	wrote atomic.Bool
	// restart: the run met a busy undeclared stripe before writing; it
	// is abandoned and run again under every stripe.
	restart bool
	w       *resp.Writer // the called commands' replies
	start   time.Time    // when the run began: TIME inside it
	// slot is the hash slot the run's keys are in so far (cluster mode:
	// the EVAL's declared keys', then the first key a call used; -1
	// for none).
	slot int
}

// busyScriptError answers other clients while a script runs past
// busy-reply-threshold.
const busyScriptError = "BUSY Valkey is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."

// busyFunctionError is busyScriptError while a function (FCALL) runs.
const busyFunctionError = "BUSY Valkey is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."

// unkillableError answers SCRIPT KILL and FUNCTION KILL when the running
// script has written.
const unkillableError = "UNKILLABLE Sorry the script already executed write commands against the dataset. You can either wait the script termination or kill the server in a hard way using the SHUTDOWN NOSAVE command."

// escalateWait bounds how long a script that has written waits for an
// undeclared stripe before failing.
const escalateWait = time.Second

func (h *scriptHost) Wrote() bool { return h.wrote.Load() }

func (h *scriptHost) Known(argv [][]byte) bool {
	c := h.c
	cm := c.lookupCmd(argv[0])
	if cm != nil && cm.subs != nil && len(argv) >= 2 {
		cm, c.nameBuf = lookupSub(cm, argv[1], c.nameBuf)
	}
	return cm != nil
}

// Allowed checks argv against the calling user's ACLs (acl_check_cmd);
// argv names a known command (Known).
func (h *scriptHost) Allowed(argv [][]byte) bool {
	u := h.c.user.Load()
	if u == nil {
		return true
	}
	p := u.Perms()
	if p.Unrestricted() {
		return true
	}
	m := acl.Resolve(argv)
	if m == nil {
		return false
	}
	r, _ := p.Check(m, argv)
	return r == acl.OK
}

func (h *scriptHost) Log(level int, msg string) {
	s := h.c.srv
	switch level {
	case script.LogWarning:
		s.log.warn("%s", msg)
	case script.LogNotice:
		s.log.notice("%s", msg)
	default:
		s.log.verbose("%s", msg)
	}
}

// Call runs one command for the script (Valkey's scriptCall).
func (h *scriptHost) Call(argv [][]byte, proto int) ([]byte, bool) {
	c := h.c
	h.w.Reset()
	h.w.Proto = proto
	cm := c.lookupCmd(argv[0])
	if cm != nil && cm.subs != nil && len(argv) >= 2 {
		sub, buf := lookupSub(cm, argv[1], c.nameBuf)
		c.nameBuf = buf
		cm = sub
	}
	switch {
	case cm == nil:
		return h.err("ERR Unknown command called from script")
	case !cm.meta.CheckArity(len(argv)):
		return h.reject(cm, "ERR Wrong number of args calling command from script")
	case cm.meta.Flags&command.FlagNoScript != 0 && !c.srv.scriptDenyOff.Load():
		return h.reject(cm, "ERR This Redis command is not allowed from script")
	}
	if u := c.user.Load(); u != nil {
		// The calling user's ACLs (Valkey's scriptVerifyACL).
		if p := u.Perms(); !p.Unrestricted() {
			if reason, pos := p.Check(cm.meta, argv); reason != acl.OK {
				c.logDenial(reason, acl.Lua, cm, argv, pos, u.Name())
				return h.reject(cm, "ERR ACL failure in script: "+acl.Message(reason, u.Name(), cm.meta, argv[pos], false))
			}
		}
	}
	write := cm.meta.Flags&command.FlagWrite != 0
	if h.ro && cm.meta.Flags&command.FlagMayReplicate != 0 {
		return h.reject(cm, "ERR Write commands are not allowed from read-only scripts.")
	}
	if write {
		if h.ro {
			return h.reject(cm, "ERR Write commands are not allowed from read-only scripts.")
		}
		if h.flags&script.FlagShebang != 0 || !h.wrote.Load() {
			if c.srv.ks.MaxMemory() > 0 && cm.meta.Flags&command.FlagDenyOOM != 0 &&
				h.flags&script.FlagAllowOOM == 0 && c.srv.ks.PerformEvictions() == db.EvictFail {
				return h.reject(cm, oomError)
			}
		}
	}
	if c.srv.cluster != nil {
		// EVAL without a #!lua line may cross slots (Valkey's
		// compatibility mode), as may allow-cross-slot-keys.
		crossOK := h.flags&script.FlagAllowCrossSlot != 0 || h.flags&script.FlagShebang == 0
		if msg := c.scriptClusterCheck(cm, argv, &h.slot, crossOK); msg != "" {
			return h.reject(cm, "ERR "+msg)
		}
	}
	if !h.locks.IsAll() && !h.acquire(cm, argv) {
		if h.restart {
			return nil, false // abandoned: run again under every stripe
		}
		return h.err("ERR the script wrote, then met a key outside its KEYS that another command held too long")
	}
	if write || cm.meta.Flags&command.FlagMayReplicate != 0 || cm.meta == command.Publish || cm.meta == command.Spublish {
		h.wrote.Store(true)
	}
	saved, mode, skip := c.w, c.replyMode, c.skipNext
	c.w, c.ctx.W, c.replyMode, c.skipNext = h.w, h.w, replyOn, false
	prop := c.ctx.Prop
	if h.run.Repl == script.ReplNone {
		// redis.set_repl(redis.REPL_NONE): what the script does now is
		// not propagated (AOF, replicas). Corvid has one stream for
		// both, so REPL_AOF or REPL_REPLICA alone propagate to both.
		c.ctx.Prop = nil
	}
	c.inScript = true
	c.call(cm, argv)
	c.inScript = false
	c.ctx.Prop = prop
	c.w, c.ctx.W, c.replyMode, c.skipNext = saved, saved, mode, skip
	return h.w.Bytes(), true
}

// reject refuses a command the script called, counting it in the
// command's rejected_calls as Valkey does.
func (h *scriptHost) reject(cm *cmd, msg string) ([]byte, bool) {
	cm.stats.shard[h.c.ctx.Shard].rejected.Add(1)
	return h.err(msg)
}

func (h *scriptHost) err(msg string) ([]byte, bool) {
	h.w.Error(msg)
	return h.w.Bytes(), false
}

// acquire makes sure the stripes cm needs are held, escalating as the
// file comment says. It returns false when the run must be abandoned.
func (h *scriptHost) acquire(cm *cmd, argv [][]byte) bool {
	c := h.c
	ks := c.srv.ks
	if cm.lock != db.LockKeys || (cm.proc != nil && !scriptSafeProc(cm)) {
		h.hints.Undeclared.Store(true)
		for i := 0; i < db.StripeCount; i++ {
			if !h.locks.Has(i) && !h.take(i) {
				return false
			}
		}
		h.locks.Reset()
		h.locks.All()
		return true
	}
	c.keyPos = cm.meta.KeyPositions(argv, c.keyPos[:0])
	for _, p := range c.keyPos {
		st := ks.StripeOf(argv[p])
		if h.locks.Has(st) {
			continue
		}
		if !h.take(st) {
			return false
		}
	}
	return true
}

// take locks stripe st for the rest of the run without waiting for it
// while others are held (see the file comment).
//
// The script is marked to run under every stripe from then on when the
// stripe was busy (a rerun, or a wait) or when it had written already
// (a later run could have to wait while holding others); a script that
// takes free undeclared stripes before it writes keeps running on its
// declared ones.
func (h *scriptHost) take(st int) bool {
	ks := h.c.srv.ks
	if ks.TryLockStripe(st) {
		if h.wrote.Load() {
			h.hints.Undeclared.Store(true)
		}
		h.addHeld(st)
		return true
	}
	h.hints.Undeclared.Store(true)
	if !h.wrote.Load() {
		h.restart = true
		return false
	}
	deadline := time.Now().Add(escalateWait)
	for !ks.TryLockStripe(st) {
		if time.Now().After(deadline) {
			h.restart = false
			return false
		}
		runtime.Gosched()
	}
	h.addHeld(st)
	return true
}

func (h *scriptHost) addHeld(st int) {
	h.locks.AddStripe(st)
	if db.Invariants {
		h.c.ctx.ReleaseHeld()
		h.c.ctx.HoldSet(&h.locks)
	}
}

// scriptSafeProc reports whether a server command (one without a db
// procedure) touches no key, so a script may call it holding only its
// own stripes.
func scriptSafeProc(cm *cmd) bool {
	switch cm.meta.Group {
	case "pubsub", "connection":
		return cm.meta != command.Select && cm.meta != command.Reset
	}
	switch cm.meta {
	case command.Time, command.Lastsave, command.Info:
		return true
	}
	return false
}

// evalCommand is EVAL, EVAL_RO, EVALSHA and EVALSHA_RO.
func evalCommand(c *Client) {
	argv := c.ctx.Argv
	meta := c.curCmd.meta
	bySHA := meta == command.Evalsha || meta == command.EvalshaRo
	ro := meta == command.EvalRo || meta == command.EvalshaRo
	if bySHA && len(argv[1]) != 40 {
		// No SHA1 has another length: Valkey answers before anything
		// else is checked.
		c.w.Error("NOSCRIPT No matching script.")
		return
	}
	numkeys, ok := c.scriptNumkeys(argv, "ERR value is not an integer or out of range")
	if !ok {
		return
	}
	if c.srv.monitors.list.Load() != nil {
		// Before the commands it calls, as Valkey feeds EVAL itself.
		c.feedMonitorsAlways(c.curCmd, argv)
	}
	eng := c.srv.scripts
	var sc *script.Script
	if bySHA {
		if sc = eng.Get(argv[1]); sc == nil {
			c.w.Error("NOSCRIPT No matching script.")
			return
		}
	} else {
		var msg string
		if sc, msg = eng.Load(argv[1]); sc == nil {
			c.w.Error(msg)
			return
		}
	}
	ro, ok = c.scriptFlagsAllow(sc.Flags, ro)
	if !ok {
		return
	}
	c.runScript(script.Run{Script: sc, Keys: argv[3 : 3+numkeys], Args: argv[3+numkeys:]}, &sc.Hints, sc.Flags, ro)
}

// scriptNumkeys reads EVAL's and FCALL's numkeys, answering its errors;
// notInt is the error for a numkeys that is not an integer (EVAL's and
// FCALL's differ).
func (c *Client) scriptNumkeys(argv [][]byte, notInt string) (int, bool) {
	numkeys, err := strconv.ParseInt(string(argv[2]), 10, 64)
	if a := argv[2]; err != nil || len(a) > 1 && (a[0] == '+' || a[0] == '0' || a[0] == '-' && a[1] == '0') {
		c.w.Error(notInt)
		return 0, false
	}
	if numkeys > int64(len(argv)-3) {
		c.w.Error("ERR Number of keys can't be greater than number of args")
		return 0, false
	}
	if numkeys < 0 {
		c.w.Error("ERR Number of keys can't be negative")
		return 0, false
	}
	return int(numkeys), true
}

// scriptFlagsAllow applies a script's or function's declared flags before
// it runs; ro comes back set when the script declared no-writes.
func (c *Client) scriptFlagsAllow(flags script.Flags, ro bool) (bool, bool) {
	if flags&script.FlagShebang == 0 {
		return ro, true
	}
	if flags&script.FlagNoCluster != 0 && c.srv.cluster != nil {
		c.w.Error("ERR Can not run script on cluster, 'no-cluster' flag is set.")
		return ro, false
	}
	if ro && flags&script.FlagNoWrites == 0 {
		c.w.Error("ERR Can not execute a script with write flag using *_ro command.")
		return ro, false
	}
	if flags&script.FlagNoWrites != 0 {
		ro = true
	}
	if !ro && flags&script.FlagAllowOOM == 0 && c.srv.ks.MaxMemory() > 0 && c.srv.ks.PerformEvictions() == db.EvictFail {
		c.w.Error(oomError)
		return ro, false
	}
	return ro, true
}

// scriptTarget finds what EVAL, EVALSHA or FCALL (or their _RO forms)
// in argv would run, before they run: its hints and declared flags; nil
// when there is none (an unknown SHA1 or function, a body that does not
// compile). EVAL's body is compiled into the cache here.
func (c *Client) scriptTarget(cm *cmd, argv [][]byte) (*script.Hints, script.Flags) {
	if len(argv) < 2 {
		return nil, 0
	}
	switch cm.meta {
	case command.Eval, command.EvalRo:
		if sc, _ := c.srv.scripts.Load(argv[1]); sc != nil {
			return &sc.Hints, sc.Flags
		}
	case command.Evalsha, command.EvalshaRo:
		if sc := c.srv.scripts.Get(argv[1]); sc != nil {
			return &sc.Hints, sc.Flags
		}
	case command.Fcall, command.FcallRo:
		if fn := c.srv.scripts.Function(string(argv[1])); fn != nil {
			return &fn.Hints, fn.Flags
		}
	}
	return nil, 0
}

// scriptDeclaresNoWrites reports whether argv runs a script or function
// that declared no-writes (a shebang's flags, register_function's): like
// a read-only command, CLIENT PAUSE WRITE does not hold it back (Valkey
// takes a declaring script's command flags from its declaration). The
// _RO forms are read-only commands already.
func (c *Client) scriptDeclaresNoWrites(cm *cmd, argv [][]byte) bool {
	switch cm.meta {
	case command.Eval, command.Evalsha, command.Fcall:
	default:
		return false
	}
	h, flags := c.scriptTarget(cm, argv)
	return h != nil && flags&script.FlagShebang != 0 && flags&script.FlagNoWrites != 0
}

// scriptMayStall reports whether a script or function may run long
// enough to stall its event loop's other clients (and a SCRIPT KILL sent
// by one of them): one that loops, until a run of it ended quickly. One
// that runs long the first time it is quick stalls its loop for that run;
// it is marked slow and leaves the loop from then on.
func (c *Client) scriptMayStall(cm *cmd, argv [][]byte) bool {
	h, _ := c.scriptTarget(cm, argv)
	return h != nil && h.MayLoop && !h.Quick.Load()
}

// runScript runs a script or function with its stripes held and writes
// its reply.
func (c *Client) runScript(run script.Run, hints *script.Hints, flags script.Flags, ro bool) {
	keys := run.Keys
	s := c.srv
	ks := s.ks
	ctx := &c.ctx
	// The commands a script calls have argv of their own, which may share
	// bytes with the script's arguments: none may adopt a buffer.
	ctx.AdoptArgs = false
	if c.scriptHost == nil {
		c.scriptHost = new(scriptHost)
	}
	h := c.scriptHost
	w := h.w
	if w == nil {
		w = resp.NewWriter(512)
	} else {
		w.Shrink(keptReplyBuf)
	}
	*h = scriptHost{c: c, ro: ro, hints: hints, flags: flags, w: w, slot: c.cluster.slot}
	h.held = ctx.Locked
	all := h.held || hints.Undeclared.Load()
	savedDB := ctx.DB
	run.Host, run.W, run.Argv = h, c.w, c.ctx.Argv
	h.run = &run
	for {
		h.locks.Reset()
		if all {
			h.locks.All()
		} else {
			for _, k := range keys {
				h.locks.Add(ks, k)
			}
		}
		if !h.held {
			ks.Lock(&h.locks)
			if db.Invariants {
				ctx.HoldSet(&h.locks)
			}
		}
		// The script's clock (TIME, expiry) is read with its stripes
		// held: runs on the same keys see it advance in their order.
		if h.held {
			h.start = time.UnixMilli(ctx.Now) // EXEC's clock
		} else {
			h.start = time.Now()
			ctx.Now = h.start.UnixMilli()
		}
		ctx.Locked = true
		ctx.Prop = nil
		if !h.held && ks.Effects.Active() {
			ctx.Prop = &c.unit
		}
		mark := c.w.Len()
		h.restart = false
		func() {
			defer func() {
				if !h.held {
					if ctx.Prop != nil {
						ks.Effects.Commit(ctx.Prop)
						ctx.Prop = nil
					}
					if !h.restart {
						ctx.ServeReady(&h.locks)
					}
					if db.Invariants {
						ctx.ReleaseHeld()
					}
					ctx.Locked = false
					ks.Unlock(&h.locks)
				}
				ctx.DB = savedDB
			}()
			s.scripts.Run(&run)
		}()
		if !h.restart {
			c.errCounted = run.ErrorCounted
			return
		}
		c.w.Truncate(mark)
		all = true
		h.wrote.Store(false)
	}
}

// SCRIPT LOAD script
func scriptLoadCommand(c *Client) {
	sc, msg := c.srv.scripts.Load(c.ctx.Argv[2])
	if sc == nil {
		c.w.Error(msg)
		return
	}
	c.w.BulkString(sc.SHA)
}

// SCRIPT EXISTS sha [sha ...]
func scriptExistsCommand(c *Client) {
	shas := c.ctx.Argv[2:]
	c.w.ArrayLen(len(shas))
	for _, sha := range shas {
		if c.srv.scripts.Get(sha) != nil {
			c.w.Int(1)
		} else {
			c.w.Int(0)
		}
	}
}

// SCRIPT FLUSH [ASYNC|SYNC]
func scriptFlushCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 3 {
		c.w.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
		return
	}
	if len(argv) == 3 {
		if a := strings.ToLower(string(argv[2])); a != "sync" && a != "async" {
			c.w.Error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")
			return
		}
	}
	c.srv.scripts.Flush()
	c.w.OK()
}

// SCRIPT KILL
func scriptKillCommand(c *Client) { c.killScripts(false) }

// killScripts is SCRIPT KILL (functions false) and FUNCTION KILL.
func (c *Client) killScripts(functions bool) {
	running, unkillable := c.srv.scripts.Kill(functions)
	switch {
	case !running:
		c.w.Error("NOTBUSY No scripts in execution right now.")
	case unkillable:
		c.w.Error(unkillableError)
	default:
		c.w.OK()
	}
}

// SCRIPT SHOW sha
func scriptShowCommand(c *Client) {
	sc := c.srv.scripts.Get(c.ctx.Argv[2])
	if sc == nil {
		c.w.Error("NOSCRIPT No matching script.")
		return
	}
	c.w.BulkString(sc.Body)
}

// SCRIPT DEBUG YES|SYNC|NO: Corvid has no Lua debugger.
func scriptDebugCommand(c *Client) {
	if c.cmdMark > 0 || c.nc != nil && c.nc.OutQueued() > 0 {
		c.w.Error("ERR SCRIPT DEBUG must be called outside a pipeline")
		return
	}
	switch strings.ToLower(string(c.ctx.Argv[2])) {
	case "no":
		c.w.OK()
	case "yes", "sync":
		c.w.Error("ERR SCRIPT DEBUG is not supported by this server")
	default:
		c.w.Error("ERR Use SCRIPT DEBUG YES/SYNC/NO")
	}
}

var scriptHelp = []string{
	"DEBUG (YES|SYNC|NO)",
	"    Corvid has no Lua debugger: only NO is accepted.",
	"EXISTS <sha1> [<sha1> ...]",
	"    For each SHA1, 1 if the script cache holds it, else 0.",
	"FLUSH [ASYNC|SYNC]",
	"    Empty the script cache.",
	"KILL",
	"    Stop the running script, unless it has written.",
	"LOAD <script>",
	"    Compile a script into the cache and return its SHA1; it does not run.",
	"SHOW <sha1>",
	"    Return the body of a cached script.",
}

// SCRIPT HELP
func scriptHelpCommand(c *Client) { c.writeHelp("SCRIPT", scriptHelp) }
