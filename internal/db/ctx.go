package db

import (
	"time"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/keyslot"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Ctx is what a command procedure sees: its arguments, the reply writer,
// the selected database and the keyspace. The connection owns one Ctx and
// reuses it for every command.
type Ctx struct {
	Argv [][]byte
	W    *resp.Writer
	KS   *Keyspace
	DB   int
	// Now is the command's clock in Unix milliseconds, fixed for the whole
	// command (and a whole EXEC or script) as Valkey's cached mstime.
	Now int64
	// Dirty counts the changes this command made; the dispatcher uses it
	// for stats, WATCH invalidation and propagation.
	Dirty int
	// Client is the connection, for commands that need more than the above
	// (blocking pops register on it). It is an interface to keep db free of
	// the server package.
	Client any
	// Shard is the connection's shard of sharded statistics (package
	// counter).
	Shard int
	// Prop collects what the command propagates (propagate.go, package
	// effects): PropUnit while the effects stream is active, nil
	// otherwise; StartProp decides, with the command's stripes held.
	Prop *effects.Unit
	// PropUnit is the connection's scratch unit (the dispatcher's).
	PropUnit *effects.Unit
	// The flags, together (no padding after each: a Ctx per connection).
	// NoTouch leaves LRU/LFU untouched on reads (CLIENT NO-TOUCH).
	NoTouch bool
	// Replica is set while applying a primary's stream: keys never expire
	// lazily then (the primary sends DELs).
	Replica bool
	// Locked is set when every stripe is already held (inside EXEC or a
	// script): LockNone procedures must then not lock stripes themselves
	// and blocking commands must not block.
	Locked bool
	// ownDone: the procedure gave its own op or said it has none
	// (OwnAs, NoOwnOp); FinishOwn then adds nothing.
	ownDone bool
	// force: propagate the command even though it changed no key
	// (MustPropagate).
	force bool
	// AdoptArgs is set by the dispatcher while a command read from a
	// connection runs whose Argv has arguments in buffers of their own
	// (resp.Reader.Owned), which Client hands over (ArgOwner): a stored
	// string may adopt one instead of copying it (SetString does).
	AdoptArgs bool
	// held: the stripes the command holds (-tags invariants only).
	held heldStripes

	// pinned/pinHash memoize the ds.Hash of one key argument for the
	// duration of one command, so that the stripe lock, the lookup, the
	// write and the memory accounting of a single-key command hash the key
	// once. The memo matches by slice identity (same backing array, same
	// length): argv is immutable while its command runs, and the
	// dispatcher clears the memo before every command, so a later buffer
	// reusing the address cannot match a stale hash.
	pinned  []byte
	pinHash uint64
	// pinObj is the pinned key's object as this command found or created
	// it (in database pinDB), so that Touch re-measures it without a
	// second dict lookup. Any delete through the Ctx clears it; nothing
	// else removes a key while its stripe is locked by the command.
	pinObj *Object
	pinDB  int
	// pinSlot is the pinned key's hash slot, in slot mode only (see
	// cluster_keys.go), so that its stripe and slot count are found
	// without another CRC16.
	pinSlot int
}

// PinKey hashes key (an argv element that stays unchanged until Unpin),
// remembers the hash for the command's lookups and returns the key's stripe.
func (c *Ctx) PinKey(key []byte) int {
	h := ds.Hash(key)
	c.pinned, c.pinHash, c.pinObj = key, h, nil
	if c.KS.slotStripes {
		return c.pinSlotOf(key)
	}
	return stripeOfHash(h)
}

// pinSlotOf memoizes the slot of the key being pinned and returns its
// stripe (slot mode).
//
//go:noinline
func (c *Ctx) pinSlotOf(key []byte) int {
	c.pinSlot = keyslot.Of(key)
	return SlotStripe(c.pinSlot)
}

// slotOf returns key's hash slot, from the memo when key is the pinned
// slice (slot mode only).
//
//go:noinline
func (c *Ctx) slotOf(key []byte) int {
	if c.isPinned(key) {
		return c.pinSlot
	}
	return keyslot.Of(key)
}

// shard returns key's shard in db (h is its ds.Hash), creating it when
// create is set: Keyspace.shardAt with the stripe derived here, one call
// on the command path whatever the mode. The key's stripe is locked.
func (c *Ctx) shard(db int, key []byte, h uint64, create bool) *shard {
	ks := c.KS
	var i int
	if ks.slotStripes {
		i = SlotStripe(c.slotOf(key))
	} else {
		i = stripeOfHash(h)
	}
	st := &ks.stripes[i]
	sh := st.shards[db]
	if sh == nil && create {
		sh = ks.newShard(db, st)
	}
	return sh
}

// counted is shard.counted for a key of this command (its slot from the
// memo when pinned).
func (c *Ctx) counted(sh *shard, key []byte, n int32) {
	if sh.slots != nil {
		c.countSlot(sh, key, n)
	}
}

//go:noinline
func (c *Ctx) countSlot(sh *shard, key []byte, n int32) {
	sh.slots[slotIndex(c.slotOf(key))] += n
}

// Unpin forgets the key pinned by PinKey.
func (c *Ctx) Unpin() { c.pinned, c.pinObj = nil, nil }

// isPinned reports whether key is the pinned argv slice itself.
func (c *Ctx) isPinned(key []byte) bool {
	return len(key) == len(c.pinned) && len(key) > 0 && unsafe.SliceData(key) == unsafe.SliceData(c.pinned)
}

// hash returns ds.Hash(key), from the memo when key is the pinned slice.
// Every key a procedure touches goes through here: with -tags
// invariants it is checked against the stripes the command holds.
func (c *Ctx) hash(key []byte) uint64 {
	if Invariants {
		c.mustHold(key)
	}
	if c.isPinned(key) {
		return c.pinHash
	}
	return ds.Hash(key)
}

// remember records o as the pinned key's object in db (see pinObj).
func (c *Ctx) remember(db int, key []byte, o *Object) {
	if c.isPinned(key) {
		c.pinObj, c.pinDB = o, db
	}
}

// account re-measures key's value in db after a write (Touch).
func (c *Ctx) account(db int, key []byte) {
	if c.pinObj != nil && c.pinDB == db && c.isPinned(key) {
		c.KS.accountObjIn(c.shard(db, key, c.pinHash, false), c.pinObj)
		return
	}
	h := c.hash(key)
	c.KS.accountKeyIn(c.shard(db, key, h, false), key, h)
}

// Arg returns argv[i] as a string (allocates; use for option words only).
func (c *Ctx) Arg(i int) string { return string(c.Argv[i]) }

// Touch marks a key as modified: it counts a change, invalidates WATCHes
// on it and re-measures its value for memory accounting (mem.go), so every
// write must call it after changing a value in place.
func (c *Ctx) Touch(key []byte) {
	c.Dirty++
	c.KS.keyChanged(c.DB, key, c.Client)
	c.account(c.DB, key)
}

// TouchDB marks a key in another database as modified.
func (c *Ctx) TouchDB(db int, key []byte) {
	c.Dirty++
	c.KS.keyChanged(db, key, c.Client)
	c.account(db, key)
}

// SetNow refreshes the cached clock.
func (c *Ctx) SetNow() { c.Now = time.Now().UnixMilli() }

// Lookup finds a live key for reading and updates its access clock.
// Expired keys are deleted on the spot and reported missing.
func (c *Ctx) Lookup(key []byte) *Object {
	o := c.lookup(c.DB, key)
	if o != nil && !c.NoTouch {
		o.LRU = c.KS.accessClock(o.LRU, c.Now)
	}
	return o
}

// LookupRead is Lookup plus keyspace hit/miss stats (GET-like reads),
// and a miss announces "keymiss" (after "expired" when the key had just
// expired), as Valkey's lookupKeyRead does.
func (c *Ctx) LookupRead(key []byte) *Object {
	o := c.Lookup(key)
	if o == nil {
		c.KS.Stats.KeyspaceMisses.Add(c.Shard, 1)
		c.Notify(NotifyKeyMiss, "keymiss", key)
	} else {
		c.KS.Stats.KeyspaceHits.Add(c.Shard, 1)
	}
	return o
}

// LookupWrite finds a live key that is about to be modified (a
// PreWriter is told, before the caller changes it).
func (c *Ctx) LookupWrite(key []byte) *Object {
	o := c.lookup(c.DB, key)
	if o != nil {
		c.KS.beforeWrite(c.DB, key, o)
		o.LRU = c.KS.accessClock(o.LRU, c.Now)
	}
	return o
}

// LookupDB finds a live key in another database without touching it.
func (c *Ctx) LookupDB(db int, key []byte) *Object { return c.lookup(db, key) }

// FindDB finds key in database db as stored, expired or not, without
// expiring, touching or announcing anything (Valkey's dbFind: DEBUG
// OBJECT reports a logically expired key that is still there).
func (c *Ctx) FindDB(db int, key []byte) *Object {
	h := c.hash(key)
	sh := c.shard(db, key, h, false)
	if sh == nil {
		return nil
	}
	return sh.keys.FindHashed(h, key)
}

func (c *Ctx) lookup(db int, key []byte) *Object {
	h := c.hash(key)
	sh := c.shard(db, key, h, false)
	if sh == nil {
		return nil
	}
	o := sh.keys.FindHashed(h, key)
	if o == nil {
		return nil
	}
	if sh.expiredAt(h, key, o, c.Now) && !c.Replica {
		if c.KS.replicaReads.Load() {
			// A replica's client: the key is gone for it, but only the
			// primary's DEL removes it.
			return nil
		}
		c.pinObj = nil
		c.expire(db, sh, key)
		return nil
	}
	c.remember(db, key, o)
	return o
}

// Create inserts a new key of type t, replacing any existing value (and
// dropping its TTL). It returns the new object for the caller to fill.
// A key that did not exist is announced as "new" (Valkey's dbAdd; an
// overwrite is not), after "expired" when the old key had expired.
func (c *Ctx) Create(key []byte, t Type) *Object {
	return c.CreateDB(c.DB, key, t)
}

// CreateDB is Create in database db.
func (c *Ctx) CreateDB(db int, key []byte, t Type) *Object {
	h := c.hash(key)
	sh := c.shard(db, key, h, true)
	c.KS.beforeWriteFind(db, sh, h, key)
	o, existed := sh.keys.UpsertHashed(h, key)
	if existed && sh.expiredAt(h, key, o, c.Now) && !c.Replica {
		o, existed = c.reinsertExpired(db, sh, h, key)
	}
	if existed {
		sh.unaccount(o.mem)
		sh.setExpire(h, key, o, 0)
		c.KS.keyGone(db, key)
	} else {
		c.counted(sh, key, 1)
	}
	*o = Object{Type: t, LRU: c.KS.newClock(c.Now)}
	c.KS.settle(db, sh)
	c.remember(db, key, o)
	if !existed {
		c.NotifyDB(NotifyNew, "new", key, db)
	}
	return o
}

// reinsertExpired handles a write that found key expired where it
// inserts (Valkey's setKey and dbAdd callers look the key up for writing
// first): the key expires as that lookup would have made it, announced
// and propagated, and is inserted afresh. Rare: most writers looked the
// key up already. The caller counts the key inserted (shard.counted).
func (c *Ctx) reinsertExpired(db int, sh *shard, h uint64, key []byte) (*Object, bool) {
	c.pinObj = nil
	c.expire(db, sh, key)
	return sh.keys.UpsertHashed(h, key)
}

// SetString stores a string value, keeping the existing TTL when keepTTL is
// set. The value is copied, unless it is an argument in a buffer of its
// own (AdoptArgs), which the value adopts: a big SET holds its bytes
// once, as Valkey's. A copy reuses the old buffer when it fits, so
// overwriting a key does not allocate. A new key is announced as Create
// does.
func (c *Ctx) SetString(key, val []byte, keepTTL bool) *Object {
	h := c.hash(key)
	sh := c.shard(c.DB, key, h, true)
	c.KS.beforeWriteFind(c.DB, sh, h, key)
	o, existed := sh.keys.UpsertHashed(h, key)
	if existed && sh.expiredAt(h, key, o, c.Now) && !c.Replica {
		o, existed = c.reinsertExpired(c.DB, sh, h, key)
	}
	reshaped := !existed
	if existed {
		if o.HasTTL() && (!keepTTL || sh.expiredAt(h, key, o, c.Now)) {
			sh.setExpire(h, key, o, 0)
			reshaped = true
		}
		if o.Type != TypeString {
			o.SetValue(nil)
			o.SetStr(nil)
			o.Type = TypeString
			c.KS.keyGone(c.DB, key)
		}
	} else {
		*o = Object{Type: TypeString}
		c.counted(sh, key, 1)
	}
	o.LRU = c.KS.newClock(c.Now)
	o.SetForm(StrPlain)
	if b := c.takeOwned(val); b != nil {
		o.adoptStr(b)
	} else {
		o.setBytes(val)
	}
	c.remember(c.DB, key, o)
	sh.accountObj(o)
	if reshaped {
		c.KS.settle(c.DB, sh)
	} else {
		c.KS.publish(sh.st, false)
	}
	if !existed {
		c.Notify(NotifyNew, "new", key)
	}
	return o
}

// ArgOwner is what a Ctx's Client implements to hand over the arguments
// of its command that are in buffers of their own (AdoptArgs).
type ArgOwner interface {
	// TakeOwned returns the buffer holding v (the same bytes, not a
	// copy) with its whole capacity when v is such an argument, and
	// forgets it, so that nothing adopts it twice; nil otherwise
	// (resp.Reader.TakeOwned).
	TakeOwned(v []byte) []byte
}

// takeOwned returns the buffer of its own that holds v, for the value to
// adopt, or nil (ArgOwner).
func (c *Ctx) takeOwned(v []byte) []byte {
	if !c.AdoptArgs {
		return nil
	}
	if o, ok := c.Client.(ArgOwner); ok {
		return o.TakeOwned(v)
	}
	return nil
}

// Delete removes a key from the selected database, reporting whether it
// existed (expired keys count as missing).
func (c *Ctx) Delete(key []byte) bool { return c.DeleteDB(c.DB, key) }

// DeleteDB removes a key from database db.
func (c *Ctx) DeleteDB(db int, key []byte) bool { return c.deleteDB(db, key, true) }

// dropKey removes key from the selected database whether or not its time
// has passed, as Valkey's dbDelete: where a command deletes a key it has
// not looked up (the destination of an empty SINTERSTORE, BITOP, ...,
// RESTORE REPLACE), an expired key counts as existing and its deletion
// is a "del", not an expiry.
func (c *Ctx) dropKey(key []byte) bool { return c.deleteDB(c.DB, key, false) }

func (c *Ctx) deleteDB(db int, key []byte, expireFirst bool) bool {
	c.pinObj = nil // whatever it deletes
	h := c.hash(key)
	sh := c.shard(db, key, h, false)
	if sh == nil {
		return false
	}
	o := sh.keys.FindHashed(h, key)
	if o == nil {
		return false
	}
	if expireFirst && sh.expiredAt(h, key, o, c.Now) && !c.Replica {
		c.expire(db, sh, key)
		return false
	}
	c.KS.beforeWrite(db, key, o)
	sh.setExpire(h, key, o, 0)
	if v, ok := sh.keys.DeleteHashed(h, key); ok {
		sh.unaccount(v.mem)
		c.counted(sh, key, -1)
	}
	c.KS.settle(db, sh)
	c.KS.keyGone(db, key)
	return true
}

// ExpireOf returns the expiry (Unix ms; 0 for none) of key, whose object
// in the selected database is o.
func (c *Ctx) ExpireOf(key []byte, o *Object) int64 { return c.ExpireOfDB(c.DB, key, o) }

// ExpireOfDB is ExpireOf in database db.
func (c *Ctx) ExpireOfDB(db int, key []byte, o *Object) int64 {
	if !o.HasTTL() {
		return 0
	}
	h := c.hash(key)
	sh := c.shard(db, key, h, false)
	if sh == nil {
		return 0
	}
	return sh.expireOf(h, key, o)
}

// SetExpire sets (ms > 0) or clears (ms == 0) the TTL of an existing key.
func (c *Ctx) SetExpire(key []byte, o *Object, ms int64) {
	c.SetExpireDB(c.DB, key, o, ms)
}

// SetExpireDB is SetExpire in database db.
func (c *Ctx) SetExpireDB(db int, key []byte, o *Object, ms int64) {
	h := c.hash(key)
	sh := c.shard(db, key, h, true)
	c.KS.beforeWrite(db, key, o)
	sh.setExpire(h, key, o, ms)
	c.KS.settle(db, sh)
}
