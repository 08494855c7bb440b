package db

import (
	"time"

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
	// NoTouch leaves LRU/LFU untouched on reads (CLIENT NO-TOUCH).
	NoTouch bool
	// Dirty counts the changes this command made; the dispatcher uses it
	// for stats, WATCH invalidation and propagation.
	Dirty int
	// Replica is set while applying a primary's stream: keys never expire
	// lazily then (the primary sends DELs).
	Replica bool
	// Locked is set when every stripe is already held (inside EXEC or a
	// script): LockNone procedures must then not lock stripes themselves
	// and blocking commands must not block.
	Locked bool
	// Client is the connection, for commands that need more than the above
	// (blocking pops register on it). It is an interface to keep db free of
	// the server package.
	Client any
}

// Arg returns argv[i] as a string (allocates; use for option words only).
func (c *Ctx) Arg(i int) string { return string(c.Argv[i]) }

// Touch marks a key as modified: it counts a change, invalidates WATCHes
// on it and re-measures its value for memory accounting (mem.go), so every
// write must call it after changing a value in place.
func (c *Ctx) Touch(key []byte) {
	c.Dirty++
	c.KS.watch.touch(c.DB, key)
	c.KS.accountKey(c.DB, key)
}

// TouchDB marks a key in another database as modified.
func (c *Ctx) TouchDB(db int, key []byte) {
	c.Dirty++
	c.KS.watch.touch(db, key)
	c.KS.accountKey(db, key)
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

// LookupRead is Lookup plus keyspace hit/miss stats (GET-like reads).
func (c *Ctx) LookupRead(key []byte) *Object {
	o := c.Lookup(key)
	if o == nil {
		c.KS.Stats.KeyspaceMisses.Add(1)
	} else {
		c.KS.Stats.KeyspaceHits.Add(1)
	}
	return o
}

// LookupWrite finds a live key that is about to be modified.
func (c *Ctx) LookupWrite(key []byte) *Object {
	o := c.lookup(c.DB, key)
	if o != nil {
		o.LRU = c.KS.accessClock(o.LRU, c.Now)
	}
	return o
}

// LookupDB finds a live key in another database without touching it.
func (c *Ctx) LookupDB(db int, key []byte) *Object { return c.lookup(db, key) }

func (c *Ctx) lookup(db int, key []byte) *Object {
	sh := c.KS.shardFor(db, key, false)
	if sh == nil {
		return nil
	}
	o := sh.keys.Find(key)
	if o == nil {
		return nil
	}
	if o.Expire != 0 && o.Expire <= c.Now && !c.Replica {
		c.KS.expireKey(db, sh, key)
		return nil
	}
	return o
}

// Create inserts a new key of type t, replacing any existing value (and
// dropping its TTL). It returns the new object for the caller to fill.
func (c *Ctx) Create(key []byte, t Type) *Object {
	return c.CreateDB(c.DB, key, t)
}

// CreateDB is Create in database db.
func (c *Ctx) CreateDB(db int, key []byte, t Type) *Object {
	sh := c.KS.shardFor(db, key, true)
	o, existed := sh.keys.Upsert(key)
	if existed {
		sh.unaccount(o.mem)
		if o.Expire != 0 {
			sh.expires.Delete(key)
		}
	}
	*o = Object{Type: t, LRU: c.KS.newClock(c.Now)}
	c.KS.settle(db, sh)
	return o
}

// SetString stores a string value, keeping the existing TTL when keepTTL is
// set. The value is copied. It reuses the old buffer when it fits, so
// overwriting a key does not allocate.
func (c *Ctx) SetString(key, val []byte, keepTTL bool) *Object {
	sh := c.KS.shardFor(c.DB, key, true)
	o, existed := sh.keys.Upsert(key)
	reshaped := !existed
	if existed {
		if o.Expire != 0 && (!keepTTL || o.Expire <= c.Now) {
			sh.expires.Delete(key)
			o.Expire = 0
			reshaped = true
		}
		if o.Type != TypeString {
			o.Val = nil
			o.Str = nil
			o.Type = TypeString
		}
	} else {
		*o = Object{Type: TypeString}
	}
	o.LRU = c.KS.newClock(c.Now)
	o.Raw = false
	o.setBytes(val)
	sh.accountObj(o)
	if reshaped {
		c.KS.settle(c.DB, sh)
	} else {
		c.KS.publish(sh.st, false)
	}
	return o
}

// Delete removes a key from the selected database, reporting whether it
// existed (expired keys count as missing).
func (c *Ctx) Delete(key []byte) bool { return c.DeleteDB(c.DB, key) }

// DeleteDB removes a key from database db.
func (c *Ctx) DeleteDB(db int, key []byte) bool {
	sh := c.KS.shardFor(db, key, false)
	if sh == nil {
		return false
	}
	o := sh.keys.Find(key)
	if o == nil {
		return false
	}
	if o.Expire != 0 {
		if o.Expire <= c.Now && !c.Replica {
			c.KS.expireKey(db, sh, key)
			return false
		}
		sh.expires.Delete(key)
	}
	if v, ok := sh.keys.Delete(key); ok {
		sh.unaccount(v.mem)
	}
	c.KS.settle(db, sh)
	return true
}

// SetExpire sets (ms > 0) or clears (ms == 0) the TTL of an existing key.
func (c *Ctx) SetExpire(key []byte, o *Object, ms int64) {
	c.SetExpireDB(c.DB, key, o, ms)
}

// SetExpireDB is SetExpire in database db.
func (c *Ctx) SetExpireDB(db int, key []byte, o *Object, ms int64) {
	sh := c.KS.shardFor(db, key, true)
	switch {
	case ms != 0 && o.Expire == 0:
		sh.expires.Upsert(key)
	case ms == 0 && o.Expire != 0:
		sh.expires.Delete(key)
	}
	o.Expire = ms
	c.KS.settle(db, sh)
}
