package db

import (
	"math"

	"github.com/corvid-kv/corvid/internal/command"
)

// KeyCommands are the generic keyspace procedures: the key-level commands
// here, expiry in keys_expire.go, OBJECT in keys_object.go and KEYS/SCAN in
// keys_scan.go.
var KeyCommands = []Handler{
	{Spec: command.Del, Proc: delCommand},
	{Spec: command.Unlink, Proc: unlinkCommand},
	{Spec: command.Exists, Proc: existsCommand},
	{Spec: command.Type, Proc: typeCommand},
	{Spec: command.Touch, Proc: touchCommand},
	{Spec: command.Rename, Proc: renameCommand},
	{Spec: command.Renamenx, Proc: renamenxCommand},
	{Spec: command.Move, Proc: moveCommand},
	{Spec: command.Copy, Proc: copyCommand},
	{Spec: command.Dump, Proc: dumpCommand},
	{Spec: command.Restore, Proc: restoreCommand},
	{Spec: command.RestoreAsking, Proc: restoreCommand},
	{Spec: command.Randomkey, Proc: randomkeyCommand, Lock: LockNone},
	{Spec: command.Dbsize, Proc: dbsizeCommand, Lock: LockNone},
	{Spec: command.Swapdb, Proc: swapdbCommand, Lock: LockAll},
	{Spec: command.Flushdb, Proc: flushdbCommand, Lock: LockAll},
	{Spec: command.Flushall, Proc: flushallCommand, Lock: LockAll},

	{Spec: command.Expire, Proc: expireCommand},
	{Spec: command.Pexpire, Proc: pexpireCommand},
	{Spec: command.Expireat, Proc: expireatCommand},
	{Spec: command.Pexpireat, Proc: pexpireatCommand},
	{Spec: command.Persist, Proc: persistCommand},
	{Spec: command.Ttl, Proc: ttlCommand},
	{Spec: command.Pttl, Proc: pttlCommand},
	{Spec: command.Expiretime, Proc: expiretimeCommand},
	{Spec: command.Pexpiretime, Proc: pexpiretimeCommand},

	{Spec: command.ObjectEncoding, Proc: objectEncodingCommand},
	{Spec: command.ObjectFreq, Proc: objectFreqCommand},
	{Spec: command.ObjectIdletime, Proc: objectIdletimeCommand},
	{Spec: command.ObjectRefcount, Proc: objectRefcountCommand},
	{Spec: command.ObjectHelp, Proc: objectHelpCommand, Lock: LockNone},

	{Spec: command.Keys, Proc: keysCommand, Lock: LockAll},
	{Spec: command.Scan, Proc: scanCommand, Lock: LockNone},
}

// copyValue deep-copies a collection value (list, set, zset, hash, stream) for
// COPY; it returns nil for a type it does not handle, and COPY then
// replies an error instead of sharing the value. Strings are copied by
// COPY itself.
func copyValue(o *Object) any {
	switch o.Type {
	case TypeList:
		return listCopy(o)
	case TypeHash:
		return hashCopy(o)
	case TypeSet:
		return setCopy(o)
	case TypeZSet:
		return zsetCopy(o)
	case TypeStream:
		return streamCopy(o)
	}
	return nil
}

// peekRead is Valkey's lookupKeyReadWithFlags(LOOKUP_NOTOUCH): a read that
// counts keyspace hits and misses, and announces a miss, but leaves the
// access clock alone (EXISTS, TYPE and TTL must not make a key look
// recently used).
func (c *Ctx) peekRead(key []byte) *Object {
	o := c.peekQuiet(key)
	if o == nil {
		c.Notify(NotifyKeyMiss, "keymiss", key)
	}
	return o
}

// peekQuiet is peekRead without the miss announced (LOOKUP_NONOTIFY:
// OBJECT's lookups).
func (c *Ctx) peekQuiet(key []byte) *Object {
	o := c.LookupDB(c.DB, key)
	if o == nil {
		c.KS.Stats.KeyspaceMisses.Add(c.Shard, 1)
	} else {
		c.KS.Stats.KeyspaceHits.Add(c.Shard, 1)
	}
	return o
}

// signalDB invalidates WATCHes on a key without counting a change. Commands
// that modify two keys but are one change in Valkey's dirty counter (RENAME,
// MOVE) Touch one key and signal the other. Like Touch it re-measures the
// key's value (mem.go).
func (c *Ctx) signalDB(db int, key []byte) {
	c.KS.keyChanged(db, key, c.Client)
	c.account(db, key)
}

// storeDB puts v under key in database db, replacing any existing key,
// with expiry exp (0: none) and v's access clock (RENAME and MOVE move the
// value, they do not create a new one). The key's stripe must be locked.
func (c *Ctx) storeDB(db int, key []byte, v Object, exp int64) *Object {
	n := c.CreateDB(db, key, v.Type)
	v.setHasTTL(false)
	*n = v
	// The copy carries the old key's accounted size, which was subtracted
	// when that key went: count the value afresh here (mem.go).
	n.mem = 0
	c.account(db, key)
	if exp != 0 {
		c.SetExpireDB(db, key, n, exp)
	}
	c.keyAdded(db, key, n.Type)
	return n
}

// keyAdded tells blocked clients that a key which can be waited on (list,
// zset, stream) appeared, as Valkey's dbAdd does through signalKeyAsReady.
func (c *Ctx) keyAdded(db int, key []byte, t Type) {
	if t == TypeList || t == TypeZSet || t == TypeStream {
		// A key that gained elements wakes clients blocked on it (served
		// by the dispatcher after this command, see blocking.go).
		c.SignalReadyDB(db, key)
	}
}

// dbIndexArg parses a database index as Valkey's getIntFromObjectOrReply
// followed by selectDb: not an integer, outside int32, or not an existing
// database each get their own error.
func (c *Ctx) dbIndexArg(i int) (int, bool) {
	n, msg := ParseDBIndex(c.Argv[i], c.KS.Databases())
	if msg != "" {
		c.W.Error(msg)
		return 0, false
	}
	return n, true
}

// ParseDBIndex parses a database number (SELECT, MOVE, COPY DB, SWAPDB)
// as Valkey's getIntFromObjectOrReply then its range check do, and
// returns Valkey's error text for each way it can fail ("" when valid).
func ParseDBIndex(b []byte, databases int) (int, string) {
	n, ok := ParseInt(b)
	switch {
	case !ok:
		return 0, ErrNotInt
	case n < math.MinInt32 || n > math.MaxInt32:
		return 0, "ERR value is out of range, value must between -2147483648 and 2147483647"
	case n < 0 || n >= int64(databases):
		return 0, ErrDBIndex
	}
	return int(n), ""
}

// DEL key [key ...]
func delCommand(c *Ctx) { c.delGeneric() }

// UNLINK key [key ...]
//
// Values are freed by the garbage collector either way, so UNLINK is DEL.
func unlinkCommand(c *Ctx) { c.delGeneric() }

func (c *Ctx) delGeneric() {
	var n int64
	for _, k := range c.Argv[1:] {
		if c.Delete(k) {
			c.Touch(k)
			c.Notify(NotifyGeneric, "del", k)
			n++
		}
	}
	c.W.Int(n)
}

// EXISTS key [key ...]
func existsCommand(c *Ctx) {
	var n int64
	for _, k := range c.Argv[1:] {
		if c.peekRead(k) != nil {
			n++ // a key named twice counts twice, as in Valkey
		}
	}
	c.W.Int(n)
}

// TYPE key
func typeCommand(c *Ctx) {
	o := c.peekRead(c.Argv[1])
	if o == nil {
		c.W.Simple("none")
		return
	}
	c.W.Simple(o.Type.String())
}

// TOUCH key [key ...]
func touchCommand(c *Ctx) {
	// TOUCH updates the access clock even under CLIENT NO-TOUCH: touching
	// is its whole point (Valkey exempts touchCommand the same way).
	saved := c.NoTouch
	c.NoTouch = false
	var n int64
	for _, k := range c.Argv[1:] {
		if c.LookupRead(k) != nil {
			n++
		}
	}
	c.NoTouch = saved
	c.W.Int(n)
}

// RENAME key newkey
func renameCommand(c *Ctx) { c.renameGeneric(false) }

// RENAMENX key newkey
func renamenxCommand(c *Ctx) { c.renameGeneric(true) }

func (c *Ctx) renameGeneric(nx bool) {
	src, dst := c.Argv[1], c.Argv[2]
	o := c.LookupWrite(src)
	if o == nil {
		c.W.Error(ErrNoSuchKey)
		return
	}
	if string(src) == string(dst) {
		// Renaming a key onto itself changes nothing.
		if nx {
			c.W.Int(0)
		} else {
			c.W.OK()
		}
		return
	}
	// Looked up even without NX so that an expired destination is
	// collected first, as Valkey's lookupKeyWrite does.
	if c.LookupWrite(dst) != nil {
		if nx {
			c.W.Int(0)
			return
		}
		// Deleted first, so the destination is a new key ("new").
		c.Delete(dst)
	}
	v := *o // the value moves with its TTL and access clock
	exp := c.ExpireOf(src, o)
	c.Delete(src)
	c.storeDB(c.DB, dst, v, exp)
	c.Touch(src)
	c.signalDB(c.DB, dst)
	c.Notify(NotifyGeneric, "rename_from", src)
	c.Notify(NotifyGeneric, "rename_to", dst)
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

// MOVE key db
func moveCommand(c *Ctx) {
	if c.KS.clusterMode {
		c.W.Error("ERR MOVE is not allowed in cluster mode")
		return
	}
	key := c.Argv[1]
	dst, ok := c.dbIndexArg(2)
	if !ok {
		return
	}
	if dst == c.DB {
		c.W.Error(ErrSameObject)
		return
	}
	o := c.LookupWrite(key)
	if o == nil {
		c.W.Int(0)
		return
	}
	// The key hashes to the same stripe in every database, so the caller's
	// lock covers the destination too.
	if c.LookupDB(dst, key) != nil {
		c.W.Int(0)
		return
	}
	v := *o
	exp := c.ExpireOf(key, o)
	c.Delete(key)
	c.storeDB(dst, key, v, exp)
	c.Touch(key)
	c.signalDB(dst, key)
	c.Notify(NotifyGeneric, "move_from", key)
	c.NotifyDB(NotifyGeneric, "move_to", key, dst)
	c.W.Int(1)
}

// COPY source destination [DB destination-db] [REPLACE]
func copyCommand(c *Ctx) {
	src, dstKey := c.Argv[1], c.Argv[2]
	dst, replace := c.DB, false
	for j := 3; j < len(c.Argv); j++ {
		switch a := c.Argv[j]; {
		case EqualFold(a, "REPLACE"):
			replace = true
		case EqualFold(a, "DB") && j+1 < len(c.Argv):
			var ok bool
			if dst, ok = c.dbIndexArg(j + 1); !ok {
				return
			}
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if dst == c.DB && string(src) == string(dstKey) {
		c.W.Error(ErrSameObject)
		return
	}
	o := c.LookupRead(src)
	if o == nil {
		c.W.Int(0)
		return
	}
	exists := c.LookupDB(dst, dstKey) != nil
	if exists && !replace {
		c.W.Int(0)
		return
	}
	var val any
	var str []byte
	if o.Type == TypeString {
		str = append(make([]byte, 0, len(o.Str())), o.Str()...)
	} else {
		if val = copyValue(o); val == nil {
			c.W.Error("ERR unknown type object")
			return
		}
	}
	exp := c.ExpireOf(src, o)
	if exists {
		// REPLACE deletes the old key first: the copy is a new key.
		c.DeleteDB(dst, dstKey)
	}
	// CreateDB gives the copy a fresh access clock, as dupStringObject and
	// the collection dup functions do in Valkey.
	n := c.CreateDB(dst, dstKey, o.Type)
	if o.Type == TypeString {
		n.SetStr(str)
	} else {
		n.SetValue(val)
	}
	n.SetForm(o.Form()) // dupStringObject keeps the encoding (raw stays raw)
	if exp != 0 {
		c.SetExpireDB(dst, dstKey, n, exp)
	}
	c.keyAdded(dst, dstKey, n.Type)
	c.TouchDB(dst, dstKey)
	c.NotifyDB(NotifyGeneric, "copy_to", dstKey, dst)
	c.W.Int(1)
}

// RANDOMKEY
func randomkeyCommand(c *Ctx) {
	k, ok := c.KS.RandomKey(c.DB, c.Now, c.Locked, c.reapExpired)
	if !ok {
		c.W.Null()
		return
	}
	c.W.BulkString(k)
}

// DBSIZE
func dbsizeCommand(c *Ctx) { c.W.Int(int64(c.KS.DBSize(c.DB, c.Locked))) }

// SWAPDB index1 index2
func swapdbCommand(c *Ctx) {
	if c.KS.clusterMode {
		c.W.Error("ERR SWAPDB is not allowed in cluster mode")
		return
	}
	a, ok := c.swapdbIndex(1, "ERR invalid first DB index")
	if !ok {
		return
	}
	b, ok := c.swapdbIndex(2, "ERR invalid second DB index")
	if !ok {
		return
	}
	if a < 0 || a >= c.KS.Databases() || b < 0 || b >= c.KS.Databases() {
		c.W.Error(ErrDBIndex)
		return
	}
	c.MustPropagate()
	if a == b {
		// Valkey counts the no-op swap as a change but invalidates nothing.
		c.KS.AddDirty(c.Shard, 1)
	} else {
		c.KS.SwapDB(a, b)
		// Clients blocked on keys of either database may now find data.
		c.SignalDBReady(a)
		c.SignalDBReady(b)
	}
	c.W.OK()
}

// swapdbIndex parses an int32 with SWAPDB's own error text, which replaces
// both the not-an-integer and the out-of-int-range messages.
func (c *Ctx) swapdbIndex(i int, msg string) (int, bool) {
	n, ok := ParseInt(c.Argv[i])
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		c.W.Error(msg)
		return 0, false
	}
	return int(n), true
}

// FLUSHDB [ASYNC | SYNC]
func flushdbCommand(c *Ctx) {
	if !c.flushMode() {
		return
	}
	c.KS.FlushDB(c.DB)
	c.MustPropagate() // even an empty database's: the replica may not be
	c.W.OK()
}

// FLUSHALL [ASYNC | SYNC]
func flushallCommand(c *Ctx) {
	if !c.flushMode() {
		return
	}
	c.KS.FlushDB(-1)
	c.MustPropagate()
	c.W.OK()
}

// flushMode checks the optional SYNC/ASYNC word. Both flush at once: the
// dropped shards are freed by the garbage collector, off this goroutine, so
// SYNC costs no more than ASYNC.
func (c *Ctx) flushMode() bool {
	if len(c.Argv) == 1 || (len(c.Argv) == 2 && (EqualFold(c.Argv[1], "SYNC") || EqualFold(c.Argv[1], "ASYNC"))) {
		return true
	}
	c.W.Error(ErrSyntax)
	return false
}

// TimeoutArg parses a millisecond timeout as Valkey's
// getTimeoutFromObjectOrReply with UNIT_MILLISECONDS and returns the
// absolute deadline in unix ms (0: none), or writes the error.
func (c *Ctx) TimeoutArg(i int) (int64, bool) {
	t, ok := ParseInt(c.Argv[i])
	if !ok {
		c.W.Error("ERR timeout is not an integer or out of range")
		return 0, false
	}
	if t < 0 {
		c.W.Error("ERR timeout is negative")
		return 0, false
	}
	if t > 0 {
		// Valkey 8 checks the overflow of now+timeout; Redis 7.0 did not
		// and accepted WAIT 0 9223372036854775807.
		if t > math.MaxInt64-c.Now {
			c.W.Error("ERR timeout is out of range")
			return 0, false
		}
		t += c.Now
	}
	return t, true
}
