package db

import (
	"strconv"
	"sync/atomic"

	"github.com/corvid-kv/corvid/internal/effects"
)

// Propagation: what a command contributes to the effects stream (package
// effects), as Valkey 8.0.1 propagates it to its AOF and replicas.
//
// By default a command that changed something (Ctx.Dirty > 0) is
// propagated as it was sent: the dispatcher appends its argv once the
// procedure has returned (FinishOwn). A procedure whose command would not
// replay to the same result gives its own op instead (OwnAs: SET ... EX
// as SET ... PXAT, EXPIRE as PEXPIREAT, SPOP as SREM ...), or none
// (NoOwnOp). Keys a command finds expired are deleted on the spot and
// propagated before it (UNLINK, or DEL with lazyfree-lazy-expire off),
// so the command and the deletion make one unit, which the stream wraps
// in MULTI/EXEC. A served blocking command's serve function gives the
// non-blocking command that did the work (LPOP, LMOVE, ZPOPMIN ...).
//
// All of it costs nothing unless the stream is active: Ctx.Prop is nil
// then and every method below returns at once.

// lazyFree holds the lazyfree-lazy-* settings that choose between UNLINK
// and DEL in the stream (Valkey 8.0 defaults them to yes).
type lazyFree struct {
	expire, eviction, serverDel atomic.Bool
}

// SetLazyFree applies lazyfree-lazy-expire, -eviction and -server-del.
func (ks *Keyspace) SetLazyFree(expire, eviction, serverDel bool) {
	ks.lazy.expire.Store(expire)
	ks.lazy.eviction.Store(eviction)
	ks.lazy.serverDel.Store(serverDel)
}

// delName is the command that propagates a deletion: UNLINK when it is
// lazy, DEL otherwise.
func delName(lazy bool) string {
	if lazy {
		return "UNLINK"
	}
	return "DEL"
}

// itoa formats n for an op (only called while propagating).
func itoa(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

var (
	argSET       = []byte("SET")
	argPXAT      = []byte("PXAT")
	argKEEPTTL   = []byte("KEEPTTL")
	argDEL       = []byte("DEL")
	argPEXPIREAT = []byte("PEXPIREAT")
	argPERSIST   = []byte("PERSIST")
	argHSET      = []byte("HSET")
	argSREM      = []byte("SREM")
	argLPOP      = []byte("LPOP")
	argRPOP      = []byte("RPOP")
	argLMOVE     = []byte("LMOVE")
	argRPOPLPUSH = []byte("RPOPLPUSH")
	argLEFT      = []byte("LEFT")
	argRIGHT     = []byte("RIGHT")
	argZPOPMIN   = []byte("ZPOPMIN")
	argZPOPMAX   = []byte("ZPOPMAX")
)

// popArg is LPOP (head) or RPOP.
func popArg(head bool) []byte {
	if head {
		return argLPOP
	}
	return argRPOP
}

// whereArg is LEFT (head) or RIGHT.
func whereArg(head bool) []byte {
	if head {
		return argLEFT
	}
	return argRIGHT
}

// ownDeletion gives a command that deleted key as its only effect the
// op that replays it: UNLINK when lazy, DEL otherwise.
func (c *Ctx) ownDeletion(key []byte, lazy bool) {
	c.OwnAs([]byte(delName(lazy)), key)
}

// Propagating reports whether this command's effects are being recorded.
func (c *Ctx) Propagating() bool { return c.Prop != nil }

// OwnAs gives the command's own op: argv in the selected database,
// instead of the command as it was sent.
func (c *Ctx) OwnAs(argv ...[]byte) {
	c.ownDone = true
	if c.Prop != nil {
		c.Prop.Add(c.DB, argv...)
	}
}

// NoOwnOp says the command is not propagated itself (a write that turned
// out to change nothing it needs to replay, or whose effects other ops
// already carry).
func (c *Ctx) NoOwnOp() { c.ownDone = true }

// Also appends an op besides the command's own, now (in stream order
// before the command itself unless the command gave its own op already).
func (c *Ctx) Also(db int, argv ...[]byte) {
	if c.Prop != nil {
		c.Prop.Add(db, argv...)
	}
}

// MustPropagate propagates the command as it was sent even if it changed
// no key (Valkey's forceCommandPropagation): FLUSHDB of an empty
// database, SWAPDB.
func (c *Ctx) MustPropagate() { c.force = true }

// StartProp points Prop at PropUnit if the effects stream is active. The
// dispatcher (and a LockNone procedure that locks stripes itself) calls
// it once the command's stripes are held, never before: a sink attached
// while every stripe is held (where a snapshot starts: CONFIG SET
// appendonly yes, a replica's sync) then misses no unit committed after
// that point, since a command that looked before the attach would
// commit nothing for a write made after it.
func (c *Ctx) StartProp() {
	if c.Prop == nil && c.KS.Effects.Active() {
		c.Prop = c.PropUnit
	}
}

// BeginOwn resets the propagation state for a new command (the
// dispatcher, before the procedure).
func (c *Ctx) BeginOwn() { c.ownDone, c.force = false, false }

// FinishOwn appends the command's own op as it was sent, unless the
// procedure gave one or changed nothing (the dispatcher, after the
// procedure, with its stripes still held).
func (c *Ctx) FinishOwn() {
	if c.Prop != nil {
		c.finishOwn()
	}
}

//go:noinline
func (c *Ctx) finishOwn() {
	if !c.ownDone && (c.Dirty > 0 || c.force) {
		c.Prop.Add(c.DB, c.Argv...)
	}
}

// CommitUnit commits the command's unit so far to the stream: the
// dispatcher does it once the procedure has returned, before it releases
// the command's stripes; a LockNone procedure that locks stripes itself
// (Block) does it before it releases them. Inside EXEC the unit is
// EXEC's, which commits it whole: nothing calls CommitUnit there.
func (c *Ctx) CommitUnit() {
	if c.Prop != nil { // inlines to this test when nothing consumes effects
		c.commitUnit()
	}
}

func (c *Ctx) commitUnit() {
	c.finishOwn()
	c.ownDone = true // the default op, if any, is in
	c.KS.Effects.Commit(c.Prop)
}

// propagateDeletion records that key (in db) was deleted because its TTL
// passed or it was evicted: in c's unit when a command met it, else as a
// unit of its own.
func (c *Ctx) propagateDeletion(db int, key []byte, lazy bool) {
	if c.Prop != nil {
		c.Prop.Add(db, []byte(delName(lazy)), key)
	}
}

// emitDeletion commits the deletion of key from db by active expiry or
// eviction as a unit of its own (Valkey propagates each alone), with the
// key's stripe held. u is the caller's scratch unit.
func (ks *Keyspace) emitDeletion(u *effects.Unit, db int, key []byte, lazy bool) {
	if !ks.Effects.Active() {
		return
	}
	u.Begin(db, 2)
	u.ArgString(delName(lazy))
	u.Arg(key)
	ks.Effects.Commit(u)
}
