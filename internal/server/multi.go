package server

import (
	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
)

// multiState is a client's open transaction. Queued argv are copies: the
// read buffer they came from is reused before EXEC.
type multiState struct {
	cmds    []queued
	aborted bool // a queued command was rejected: EXEC fails
	// flags and invFlags are the OR of the queued commands' flags and of
	// their complements (Valkey's mstate.cmd_flags and cmd_inv_flags):
	// EXEC is refused as its commands would be (maxmemory, MISCONF,
	// LOADING).
	flags, invFlags command.Flag
}

// execFlags returns, for an EXEC of c's transaction, what its queued
// commands have (any: the OR of their flags) and lack (the OR of their
// complements); zero for any other command.
func (c *Client) execFlags(cm *cmd) (any, lacking command.Flag) {
	if cm.meta != command.Exec || c.multi == nil {
		return 0, 0
	}
	return c.multi.flags, c.multi.invFlags
}

type queued struct {
	cm   *cmd
	argv [][]byte
}

func (c *Client) queue(cm *cmd, argv [][]byte) {
	cp := make([][]byte, len(argv))
	for i, a := range argv {
		cp[i] = append([]byte(nil), a...)
	}
	c.multi.cmds = append(c.multi.cmds, queued{cm, cp})
	c.multi.flags |= cm.meta.Flags
	c.multi.invFlags |= ^cm.meta.Flags
	c.w.Simple("QUEUED")
}

// MULTI
func multiCommand(c *Client) {
	if c.multi != nil {
		c.w.Error("ERR MULTI calls can not be nested")
		return
	}
	c.multi = &multiState{}
	c.w.OK()
}

// DISCARD
func discardCommand(c *Client) {
	if c.multi == nil {
		c.w.Error("ERR DISCARD without MULTI")
		return
	}
	c.multi = nil
	c.unwatch()
	c.w.OK()
}

// watchState returns the client's WATCH state, made at its first WATCH.
func (c *Client) watchState() *db.Watch {
	if c.watch == nil {
		c.watch = new(db.Watch)
	}
	return c.watch
}

// unwatch forgets every watched key (UNWATCH). Owner only.
func (c *Client) unwatch() {
	if c.watch != nil {
		c.srv.ks.Unwatch(c.watch)
	}
}

// watchDirty reports whether a watched key changed since WATCH.
func (c *Client) watchDirty() bool { return c.watch != nil && c.watch.Dirty.Load() }

// watchCount is the number of keys the client watches. Owner only.
func (c *Client) watchCount() int {
	if c.watch == nil {
		return 0
	}
	return c.watch.Watching()
}

// WATCH key [key ...]
func watchCommand(c *Client) {
	if c.multi != nil {
		c.w.Error("ERR WATCH inside MULTI is not allowed")
		return
	}
	for _, k := range c.ctx.Argv[1:] {
		c.srv.ks.WatchKey(c.watchState(), c.ctx.DB, k)
	}
	c.w.OK()
}

// UNWATCH
func unwatchCommand(c *Client) {
	c.unwatch()
	c.w.OK()
}

// EXEC runs the queued commands atomically: it locks every stripe the
// queued commands name (all stripes if any of them needs the whole
// keyspace), so no other client can observe or interleave with the
// transaction, then runs them in order with one cached clock.
func execCommand(c *Client) {
	if c.multi == nil {
		c.w.Error("ERR EXEC without MULTI")
		return
	}
	m := c.multi
	c.multi = nil
	ks := c.srv.ks
	if m.aborted {
		c.unwatch()
		c.w.Error("EXECABORT Transaction discarded because of previous errors.")
		return
	}
	if c.watchDirty() {
		c.unwatch()
		c.w.NullArray()
		return
	}
	var locks db.LockSet
	if c.watch != nil {
		ks.LockWatched(c.watch, &locks) // to see whether they expired
	}
	for _, q := range m.cmds {
		if q.cm.lock != db.LockKeys || q.cm.proc != nil {
			locks.All()
			break
		}
		for _, p := range q.cm.meta.KeyPositions(q.argv, nil) {
			locks.Add(ks, q.argv[p])
		}
	}
	// Lock everything the transaction may touch, then re-check WATCH: a
	// write that slipped in between the check above and the lock would
	// otherwise be missed.
	// The unlock is deferred: a queued command that panics (a bug) must
	// not leave the stripes locked for every other client (see
	// Client.containPanic).
	// A client that holds every stripe already (DEBUG LOADAOF's replay)
	// runs the transaction under them.
	held := c.ctx.Locked
	if held {
		locks.Reset()
		locks.All()
	} else {
		ks.Lock(&locks)
		defer ks.Unlock(&locks)
		if db.Invariants {
			c.ctx.HoldSet(&locks)
			defer c.ctx.ReleaseHeld()
		}
	}
	ctx := &c.ctx
	ctx.SetNow()
	// A watched key that expired since WATCH fails the EXEC as a change
	// would (Valkey's isWatchedKeyExpired), even before anything deletes it.
	if c.watchDirty() || c.watch != nil && ks.WatchedExpired(c.watch, ctx.Now) {
		c.unwatch()
		c.w.NullArray()
		return
	}
	c.unwatch()
	ctx.Locked = true
	defer func() { ctx.Locked = held }()
	// The transaction is one unit of the effects stream, committed with
	// its stripes held (wrapped in MULTI/EXEC when it has several ops).
	ctx.Prop = nil
	if ks.Effects.Active() {
		ctx.Prop = &c.unit
	}
	c.w.ArrayLen(len(m.cmds))
	u := c.user.Load()
	for _, q := range m.cmds {
		if u != nil {
			// The rules may have changed since the command was queued.
			if p := u.Perms(); !p.Unrestricted() && c.execDenied(q.cm, q.argv, p) {
				continue
			}
		}
		c.call(q.cm, q.argv)
	}
	if ctx.Prop != nil {
		ks.Effects.Commit(ctx.Prop)
		ctx.Prop = nil
	}
	// Blocked clients are served once, after the whole transaction, with
	// what it left in the keys (Valkey's handleClientsBlockedOnKeys).
	ctx.ServeReady(&locks)
}
