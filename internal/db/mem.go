package db

import (
	"math/bits"
	"sync/atomic"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Memory accounting.
//
// The dataset's size is counted incrementally, at the choke points every
// write goes through, so that used_memory is a load rather than a walk:
//
//   - Each stripe keeps mem, the heap its shards hold: for every shard the
//     two dicts' MemUsage (bucket tables, entries with their inline keys,
//     expiry entries) plus the sum of its values' sizes. mem is guarded by
//     the stripe's mutex, so keeping it costs no atomic operation.
//   - A value's size (valueMem) is O(1): strings are their buffer's size
//     class, collections report MemUsage, which each keeps up to date as it
//     changes (a quicklist's nodeBytes, ds.StrMap.recBytes for sets and hashes,
//     ZSkip.memBytes...). The size last counted is cached in Object.mem, so
//     after a write the choke point adds valueMem(o) - o.mem.
//   - The choke points: Create/SetString (new or replaced value), Touch
//     (every write calls it after changing a value), Delete, expiry,
//     eviction, SetExpire, FLUSHDB/FLUSHALL, and storeDB (RENAME, MOVE).
//     Dict structure changes are "settled" there by comparing MemUsage with
//     the value cached in the shard.
//   - A stripe publishes its drift to the keyspace-wide atomic total (used)
//     once it exceeds publishStep, so the total costs one atomic add per
//     few KiB written, not one per command, and is off by at most
//     StripeCount*publishStep. publishStep shrinks with maxmemory (see
//     SetMaxMemory) so that the error stays under ~1.6% of the limit.
//     Eviction publishes exactly after each deletion, and DatasetBytes sums
//     the stripes under their locks for an exact figure.
//
// Object.mem is a 16-bit float (memCode) so that Object keeps its 40 bytes:
// sizes below 2048 are exact, larger ones are rounded up to 11 significant
// bits (at most 0.1% over). The same rounded value is added and later
// subtracted, so rounding never accumulates into drift.

// memCode is a size in bytes stored as 5 bits of exponent and 11 of
// mantissa: e == 0 holds m exactly, e > 0 holds m<<e with m in [1024, 2047].
type memCode uint16

const memMantBits = 11

func encodeMem(n int64) memCode {
	if n <= 0 {
		return 0
	}
	if n < 1<<memMantBits {
		return memCode(n)
	}
	e := bits.Len64(uint64(n)) - memMantBits
	m := (n + 1<<e - 1) >> e // round up
	if m == 1<<memMantBits {
		m >>= 1
		e++
	}
	if e > 31 {
		return 0xffff
	}
	return memCode(e<<memMantBits | int(m&(1<<memMantBits-1)))
}

func (c memCode) bytes() int64 {
	e := int(c >> memMantBits)
	m := int64(c & (1<<memMantBits - 1))
	if e == 0 {
		return m
	}
	// For e > 0 the stored mantissa lost its top bit (m >= 1024 always).
	return (m | 1<<(memMantBits-1)) << e
}

// valueMem returns the heap bytes of o's value, not counting its dict
// entry. It is O(1) for every type.
func valueMem(o *Object) int64 {
	if o.Type == TypeString {
		return int64(ds.AllocSize(cap(o.Str())))
	}
	switch v := o.Value().(type) {
	case *ds.Quicklist:
		return int64(v.MemUsage())
	case *ds.Listpack:
		return int64(v.MemUsage())
	case *ds.StrMap: // a hash's or a set's hashtable
		return int64(v.MemUsage())
	case *ds.IntSet:
		return int64(v.MemUsage())
	case *ds.Pack: // the buffer: the struct is the object's val, n and c
		return int64(v.MemUsage())
	case *ds.ZPack:
		return int64(v.MemUsage())
	case *ds.ZSkip:
		return int64(v.MemUsage())
	case interface{ MemUsage() int }:
		return int64(v.MemUsage())
	}
	return 0
}

// memState is the keyspace-wide part of the accounting.
type memState struct {
	used     atomic.Int64 // published dataset bytes (sum of stripes' pub)
	overhead atomic.Int64 // non-dataset bytes the server declares (base, clients)
	step     atomic.Int64 // publishStep
	// nonEmpty counts, per database, the shards whose keys (expires) dict
	// is non-empty, so eviction knows at once which databases have
	// candidates. Updated in settle, under the shard's stripe lock.
	nonEmpty []dbShape
}

type dbShape struct{ keys, expires atomic.Int32 }

const (
	maxPublishStep = 16 << 10
	minPublishStep = 512
)

func (m *memState) init(ndb int) {
	m.nonEmpty = make([]dbShape, ndb)
	m.step.Store(maxPublishStep)
}

// accountObj brings o's accounted size up to date after its value changed.
// The stripe of sh must be locked.
func (sh *shard) accountObj(o *Object) {
	n := encodeMem(valueMem(o))
	if n == o.mem {
		return
	}
	d := n.bytes() - o.mem.bytes()
	o.mem = n
	sh.val += d
	sh.st.mem += d
}

// unaccount removes a value that is being dropped (its Object.mem).
func (sh *shard) unaccount(m memCode) {
	d := m.bytes()
	sh.val -= d
	sh.st.mem -= d
}

// settle accounts for changes to the shard's dicts (keys added or removed,
// TTLs set or cleared, tables resized) and publishes the stripe's drift.
// The stripe of sh must be locked; db is the shard's database.
func (ks *Keyspace) settle(db int, sh *shard) {
	d := int64(sh.keys.MemUsage() + sh.expires.MemUsage())
	sh.st.mem += d - sh.dict
	sh.dict = d
	if hk := sh.keys.Len() > 0; hk != sh.hasKeys {
		sh.hasKeys = hk
		ks.mem.nonEmpty[db].keys.Add(delta(hk))
	}
	if he := sh.expires.Len() > 0; he != sh.hasExp {
		sh.hasExp = he
		ks.mem.nonEmpty[db].expires.Add(delta(he))
	}
	ks.publish(sh.st, false)
}

func delta(up bool) int32 {
	if up {
		return 1
	}
	return -1
}

// publish adds the stripe's unpublished drift to the keyspace total when it
// is large enough, or always when force is set. The stripe must be locked.
func (ks *Keyspace) publish(st *stripe, force bool) {
	d := st.mem - st.pub
	if d == 0 {
		return
	}
	if step := ks.mem.step.Load(); force || d >= step || d <= -step {
		ks.mem.used.Add(d)
		st.pub = st.mem
	}
}

// accountObjIn re-measures o, the live object of a key of shard sh (the
// caller knows it has not been deleted; nil sh: nothing to do).
func (ks *Keyspace) accountObjIn(sh *shard, o *Object) {
	if sh != nil {
		sh.accountObj(o)
		ks.publish(sh.st, false)
	}
}

// accountKeyIn re-measures the value of key (whose ds.Hash is h) in its
// shard sh after a write (Ctx.account). The key's stripe must be locked.
func (ks *Keyspace) accountKeyIn(sh *shard, key []byte, h uint64) {
	if sh == nil {
		return
	}
	if o := sh.keys.FindHashed(h, key); o != nil {
		sh.accountObj(o)
		ks.publish(sh.st, false)
	}
}

// remeasure is Touch's re-measure for a read that changed a value's size without
// being a write (SORT converting a listpack sorted set in place).
func (c *Ctx) remeasure(key []byte) { c.account(c.DB, key) }

// dropShard removes a whole shard from its stripe's count (FLUSHDB). The
// stripe must be locked.
func (ks *Keyspace) dropShard(sh *shard) {
	sh.st.mem -= sh.val + sh.dict
	ks.publish(sh.st, true)
}

// UsedMemory is the published dataset size plus the declared overhead:
// what the maxmemory check compares with the limit. It is one atomic load
// each, possibly StripeCount*publishStep behind the exact figure.
func (ks *Keyspace) UsedMemory() int64 {
	return ks.mem.used.Load() + ks.mem.overhead.Load()
}

// DatasetBytes returns the exact dataset size, locking the stripes one at a
// time (held: the caller holds them all already). It also publishes every
// stripe's drift, so UsedMemory is exact right after.
func (ks *Keyspace) DatasetBytes(held bool) int64 {
	var total int64
	for i := range ks.stripes {
		st := &ks.stripes[i]
		ks.lockStripe(i, held)
		ks.publish(st, true)
		total += st.mem
		ks.unlockStripe(i, held)
	}
	return total
}

// AddOverhead declares (delta > 0) or releases memory the server holds
// outside the keyspace: its start-up base and the clients' buffers. It
// counts towards UsedMemory and so towards maxmemory, as in Valkey.
func (ks *Keyspace) AddOverhead(delta int64) { ks.mem.overhead.Add(delta) }

// Overhead returns the declared non-dataset memory.
func (ks *Keyspace) Overhead() int64 { return ks.mem.overhead.Load() }

// KeyMemUsage is MEMORY USAGE: the bytes of key's dict entry (key bytes
// included), its value, and its expiry entry if it has a TTL. It does not
// touch the key or expire it (Valkey's dbFind). The key's stripe must be
// locked.
func (ks *Keyspace) KeyMemUsage(db int, key []byte) (int64, bool) {
	sh := ks.shardFor(db, key, false)
	if sh == nil {
		return 0, false
	}
	o := sh.keys.Find(key)
	if o == nil {
		return 0, false
	}
	n := valueMem(o) + int64(ds.EntryMemUsage[Object](len(key)))
	if o.HasTTL() {
		n += int64(ds.EntryMemUsage[int64](len(key)))
	}
	return n, true
}

// DBMemStats are MEMORY STATS' per-database figures.
type DBMemStats struct {
	Keys, Expires int64
	// Main and ExpiresOverhead are the dicts' own heap (bucket tables and
	// entries, short keys inline), without the values.
	Main, ExpiresOverhead int64
	// LUT is the bucket tables' share of that; Rehashing the old tables
	// of dicts being rehashed, RehashingCount how many dicts that is.
	LUT, Rehashing, RehashingCount int64
}

// MemStats returns per-database figures, locking the stripes one at a time
// unless held (the caller holds them all).
func (ks *Keyspace) MemStats(held bool) []DBMemStats {
	out := make([]DBMemStats, ks.ndb)
	for i := range ks.stripes {
		st := &ks.stripes[i]
		ks.lockStripe(i, held)
		for db, sh := range st.shards {
			if sh == nil {
				continue
			}
			m := &out[db]
			m.Keys += int64(sh.keys.Len())
			m.Expires += int64(sh.expires.Len())
			m.Main += int64(sh.keys.MemUsage())
			m.ExpiresOverhead += int64(sh.expires.MemUsage())
			tableStats(m, sh.keys)
			tableStats(m, sh.expires)
		}
		ks.unlockStripe(i, held)
	}
	return out
}

func tableStats[V any](m *DBMemStats, d *ds.Dict[V]) {
	main, target := d.Buckets()
	m.LUT += 8 * int64(main+target)
	if d.IsRehashing() {
		m.Rehashing += 8 * int64(main)
		m.RehashingCount++
	}
}
