package db

import (
	"slices"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/counter"
	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/keyslot"
)

// StripeCount is the number of lock stripes. It is a power of two well above
// the core count so that unrelated keys rarely share a mutex, and small
// enough that locking all stripes (FLUSHALL, EXEC) costs a few microseconds.
const StripeCount = 256

// Keyspace holds every logical database.
type Keyspace struct {
	ndb     int
	stripes [StripeCount]stripe
	// slotStripes: cluster mode, where a key's stripe is chosen by its
	// hash slot (SlotStripe) and every shard counts its keys per slot
	// (cluster_keys.go). Set by SetSlotStriping before any key is stored
	// and before any other goroutine uses the keyspace; never changed
	// after, so it is read without synchronisation.
	slotStripes bool
	// clusterMode: MOVE and SWAPDB are refused, as in a Valkey cluster
	// node (SetClusterMode; set once, before the keyspace is shared).
	clusterMode bool

	// replicaReads: the server is a replica, so a client's lookup of a
	// logically expired key finds nothing without deleting it (the
	// primary's DEL will); the replica's stream (Ctx.Replica) sees it.
	replicaReads atomic.Bool
	// ignoreMaxmem: a replica with replica-ignore-maxmemory yes neither
	// evicts nor refuses: its primary's stream decides what it holds.
	ignoreMaxmem atomic.Bool

	// Version counts whole-keyspace changes (FLUSHALL, SWAPDB) for WATCH.
	watch watchRegistry

	// dirty counts changes since the last save, as Valkey's server.dirty.
	// Every write adds to it, from every loop: sharded like the hit
	// counters, so that the loops do not pass its cache line back and
	// forth.
	dirty counter.Sharded
	// expiredKeys, expiredStale... are INFO stats.
	Stats Stats

	// Hooks lets the server observe what it must react to outside the
	// dataset (memory to give back after a flush).
	Hooks Hooks
	// Effects is the stream the write path commits to (package effects,
	// propagate.go); set once by the server before it serves, nil in
	// keyspaces nothing consumes.
	Effects *effects.Stream
	lazy    lazyFree
	// preWrite is told of each change before it is made (prewrite.go).
	preWrite preWriteSlot

	// Memory accounting and eviction (mem.go, evict.go).
	mem memState
	ev  evictor

	// cfg holds the configuration procedures read (settings.go).
	cfg settings
	// blocks holds the clients blocked on keys (blocking.go).
	blocks blockRegistry
	// dump holds rdbcompression for DUMP and snapshots (rdbvalue.go).
	dump dumpSettings
	// notify holds the keyspace-event and key-change observer (notify.go).
	notify notifyState
}

// Stats are keyspace counters reported by INFO.
type Stats struct {
	ExpiredKeys     atomic.Int64
	EvictedKeys     atomic.Int64
	KeyspaceHits    counter.Sharded // every read: sharded by Ctx.Shard
	KeyspaceMisses  counter.Sharded
	ExpireCycleTime atomic.Int64 // microseconds spent in active expiry
	// EvictionExceeded is the total time (microseconds) used memory spent
	// above maxmemory, not counting the current stretch (see
	// Keyspace.EvictionExceededTime).
	EvictionExceeded atomic.Int64
}

// Hooks are callbacks into the server, all optional.
type Hooks struct {
	// Flushed is called (with every stripe locked: it must not block)
	// after FLUSHDB or FLUSHALL dropped datasets holding freed bytes of
	// accounted memory, so the server can hand the memory back to the
	// operating system once the collector has freed it.
	Flushed func(freed int64)
}

type stripe struct {
	mu     sync.Mutex
	shards []*shard // indexed by db; nil until first written
	// mem is the heap this stripe's shards hold (all databases) and pub
	// the part of it already added to the keyspace total; see mem.go.
	// Both are guarded by mu.
	mem, pub int64
	_        [24]byte // keep neighbouring mutexes on separate cache lines
}

// shard is the part of one database whose keys hash to one stripe.
type shard struct {
	keys    *ds.Dict[Object]
	expires *ds.Dict[int64] // keys with a TTL and their expiry (expire.go), sampled by active expiry
	st      *stripe         // the stripe holding the shard (SWAPDB keeps it)
	// val is the sum of the accounted value sizes (Object.mem) of keys,
	// dict the two dicts' MemUsage when last settled; their sum is this
	// shard's part of st.mem. hasKeys/hasExp record whether the dicts
	// were non-empty then (for the per-database counts in memState).
	val, dict       int64
	hasKeys, hasExp bool
	// slots counts keys per hash slot in slot mode (nil otherwise):
	// slots[slot/StripeCount] for the slots whose SlotStripe is this
	// stripe, kept by counted after every insertion into or deletion
	// from keys (cluster_keys.go).
	slots *[SlotsPerStripe]int32
}

// New returns an empty keyspace with n databases.
func New(n int) *Keyspace {
	ks := &Keyspace{ndb: n}
	for i := range ks.stripes {
		ks.stripes[i].shards = make([]*shard, n)
	}
	ks.watch.init()
	ks.mem.init(n)
	ks.ev.init()
	ks.blocks.init()
	ks.Configure(DefaultSettings())
	return ks
}

// Databases is the number of logical databases.
func (ks *Keyspace) Databases() int { return ks.ndb }

// StripeOf returns the stripe index of a key.
// It is derived from ds.Hash, the hash every Dict uses, so that a command
// hashes its key once for the lock and the dict lookups (see Ctx.PinKey);
// in slot mode (SetSlotStriping) from the key's hash slot instead.
func (ks *Keyspace) StripeOf(key []byte) int {
	if ks.slotStripes {
		return slotStripeOf(key)
	}
	return stripeOfHash(ds.Hash(key))
}

// stripeOf is StripeOf for a key whose ds.Hash h is known: outside slot
// mode it costs no more than stripeOfHash but this one branch (it is
// inlined: the slot computation stays out of line).
func (ks *Keyspace) stripeOf(key []byte, h uint64) int {
	if ks.slotStripes {
		return slotStripeOf(key)
	}
	return stripeOfHash(h)
}

// slotStripeOf is the stripe of key in slot mode.
//
//go:noinline
func slotStripeOf(key []byte) int { return SlotStripe(keyslot.Of(key)) }

// sbytes views a string as bytes without copying, for passing dict keys
// and stored fields to code that takes []byte (hashing, reply writers,
// comparisons). The result must never be written.
func sbytes(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// stripeOfHash is ds.Stripe(h, StripeCount): with StripeCount 2^8, the
// top 8 bits of h (TestStripeOfHash), written so that the callers that
// must stay inlinable (stripeOf) can.
func stripeOfHash(h uint64) int { return int(h >> (64 - stripeBits)) }

var _ [StripeCount - 1<<stripeBits]struct{} // StripeCount is 1<<stripeBits (admin.go)

// LockSet is a sorted, de-duplicated list of stripe indexes.
type LockSet struct {
	idx [8]uint16
	n   int
	all bool
	ext []uint16
}

// Add adds the stripe of key.
func (l *LockSet) Add(ks *Keyspace, key []byte) {
	s := uint16(ks.StripeOf(key))
	list := l.list()
	for _, v := range list {
		if v == s {
			return
		}
	}
	if l.n < len(l.idx) && l.ext == nil {
		l.idx[l.n] = s
		l.n++
		return
	}
	if l.ext == nil {
		l.ext = append(make([]uint16, 0, 16), l.idx[:l.n]...)
	}
	l.ext = append(l.ext, s)
}

// All marks the set as covering the whole keyspace.
func (l *LockSet) All() { l.all = true }

// Reset empties the set for reuse.
func (l *LockSet) Reset() { l.n, l.all, l.ext = 0, false, l.ext[:0:0] }

// Empty reports whether the set names no stripe.
func (l *LockSet) Empty() bool { return !l.all && l.n == 0 && len(l.ext) == 0 }

func (l *LockSet) list() []uint16 {
	if l.ext != nil {
		return l.ext
	}
	return l.idx[:l.n]
}

// Lock takes every stripe in the set in ascending order.
func (ks *Keyspace) Lock(l *LockSet) {
	if l.all {
		ks.LockAll()
		return
	}
	list := l.list()
	if len(list) == 1 {
		ks.stripes[list[0]].mu.Lock()
		return
	}
	slices.Sort(list)
	for _, s := range list {
		ks.stripes[s].mu.Lock()
	}
}

// Unlock releases what Lock took.
func (ks *Keyspace) Unlock(l *LockSet) {
	if l.all {
		ks.UnlockAll()
		return
	}
	for _, s := range l.list() {
		ks.stripes[s].mu.Unlock()
	}
}

// LockAll takes every stripe in ascending order.
func (ks *Keyspace) LockAll() {
	for i := range ks.stripes {
		ks.stripes[i].mu.Lock()
	}
}

// UnlockAll releases every stripe.
func (ks *Keyspace) UnlockAll() {
	for i := range ks.stripes {
		ks.stripes[i].mu.Unlock()
	}
}

// LockStripe and UnlockStripe lock one stripe, for incremental whole-keyspace
// walks (SCAN, DBSIZE, active expiry) that need not be atomic.
func (ks *Keyspace) LockStripe(i int)   { ks.stripes[i].mu.Lock() }
func (ks *Keyspace) UnlockStripe(i int) { ks.stripes[i].mu.Unlock() }

// shardFor returns key's shard in db, creating it when create is set.
// The key's stripe must be locked.
func (ks *Keyspace) shardFor(db int, key []byte, create bool) *shard {
	return ks.shardAt(db, ks.StripeOf(key), create)
}

func (ks *Keyspace) shardAt(db, stripe int, create bool) *shard {
	st := &ks.stripes[stripe]
	sh := st.shards[db]
	if sh == nil && create {
		sh = ks.newShard(db, st)
	}
	return sh
}

// newShard creates db's shard in st, which is locked.
func (ks *Keyspace) newShard(db int, st *stripe) *shard {
	sh := &shard{keys: ds.New[Object](0), expires: ds.New[int64](0), st: st}
	if ks.slotStripes {
		sh.slots = new([SlotsPerStripe]int32)
	}
	st.shards[db] = sh
	return sh
}

// Dirty returns the number of changes since the counter was last reset.
func (ks *Keyspace) Dirty() int64 { return ks.dirty.Load() }

// AddDirty records n changes, in shard shard of the counter (a Ctx's
// Shard; any int will do).
func (ks *Keyspace) AddDirty(shard int, n int64) { ks.dirty.Add(shard, n) }

// TryLockStripe locks stripe i if it is free, without waiting: a script
// that meets a key outside its declared stripes takes that stripe this
// way, since waiting while holding others could deadlock.
func (ks *Keyspace) TryLockStripe(i int) bool { return ks.stripes[i].mu.TryLock() }

// Has reports whether the set covers stripe s.
func (l *LockSet) Has(s int) bool {
	if l.all {
		return true
	}
	for _, v := range l.list() {
		if int(v) == s {
			return true
		}
	}
	return false
}

// IsAll reports whether the set covers the whole keyspace.
func (l *LockSet) IsAll() bool { return l.all }

// SetReplicaReads switches replica lookups on (the server became a
// replica) or off (a primary again): see Keyspace.replicaReads.
func (ks *Keyspace) SetReplicaReads(on bool) { ks.replicaReads.Store(on) }

// SetIgnoreMaxmemory turns maxmemory's eviction off (a replica with
// replica-ignore-maxmemory yes) or back on.
func (ks *Keyspace) SetIgnoreMaxmemory(on bool) { ks.ignoreMaxmem.Store(on) }
