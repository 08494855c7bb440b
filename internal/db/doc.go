// Package db is Corvid's keyspace: the logical databases, their values, key
// expiry, and the command procedures that operate on data.
//
// # Concurrency
//
// The keyspace is split into a fixed number of stripes by a hash of the key
// (in slot mode, for cluster mode, by the key's hash slot: see Slot mode).
// A stripe holds one mutex and, for every logical database, the shard of
// that database's keys that hash to it. A command runs on its connection's
// goroutine while holding the mutexes of every stripe its keys hash to:
//
//   - Lock order: stripes are always locked in ascending index order
//     (Keyspace.LockKeys sorts and de-duplicates), so two multi-key commands
//     can never deadlock. Whole-keyspace operations (FLUSHALL, SWAPDB, KEYS,
//     EXEC, scripts) lock every stripe, in the same ascending order.
//   - A procedure may touch only keys whose stripes its caller locked.
//     Built with -tags invariants, every key access through a Ctx is
//     checked against the stripes the dispatcher says it holds
//     (HoldStripe, HoldSet) and panics otherwise (invariants_on.go); CI
//     runs the db, server and write-path tests that way.
//   - Per-key order is the lock order, so it is linearizable; multi-key
//     commands are atomic because all their stripes are held at once.
//   - Values (Object) are owned by the keyspace and may be read or changed
//     only while their stripe is locked. Byte slices handed to a procedure
//     in argv alias the connection's read buffer: a procedure that stores an
//     argument must copy it (the helpers in object.go do). The exception
//     is an argument the reader read into a buffer of its own (a big
//     bulk; Ctx.AdoptArgs): SetString adopts that buffer as the value
//     instead of copying it, taking it from the Ctx's ArgOwner, which
//     hands each buffer over once. Nothing else may keep such an
//     argument: once adopted, its bytes are the value's, which later
//     commands change in place.
//
// No lock other than stripe mutexes is held while executing a procedure,
// except leaf mutexes (taken last, never held while taking another): the
// watch registry's, the blocked clients' registry's pending list
// (blocking.go, where a served waiter's own mutex comes before it) and the
// effects stream's.
//
// Eviction (evict.go) runs before a command takes its stripes: it holds the
// evictor's mutex and locks one stripe at a time under it, so the order is
// evictor -> one stripe -> watch registry, and no eviction ever waits for a
// stripe while holding another.
//
// # Slot mode
//
// With SetSlotStriping, called before any key is stored and never again,
// a key's stripe is SlotStripe(its hash slot), so each stripe holds a
// fixed group of SlotsPerStripe slots, and each shard counts its keys per
// slot (cluster_keys.go). Every derivation of a stripe from a key goes
// through StripeOf, stripeOf or a Ctx (PinKey, Ctx.shard, which remember
// the pinned key's slot for the command), which agree, so locking,
// lookups, loading, snapshots, watches and blocked clients all see the
// same stripe. The
// counts are exact under the stripe's lock: every insertion into and
// deletion from a shard's keys dict is followed by shard.counted, and
// FLUSHDB and SWAPDB drop or move whole shards with their counts. Outside slot
// mode shard.slots is nil and stripes come from ds.Hash.
//
// # The write path
//
// Every change reaches two points besides the data (propagate.go,
// prewrite.go): before it is made, the installed PreWriter is told (with
// the key's old value), where a snapshot in progress saves what it has
// not written; after the procedure, its effects (the commands that
// replay it, as Valkey propagates them) go to the Ctx's effects.Unit,
// which the dispatcher commits to the keyspace's effects.Stream while it
// still holds the stripes. Active expiry and eviction, which run without
// a command, commit each deletion themselves, with the key's stripe held.
// Lock order: stripes, then the stream's mutex (a leaf).
//
// # Snapshots and loading
//
// Persistence reaches the keyspace through rdbvalue.go, in package rdb's
// terms (rdb.Entry): a snapshot walks one stripe at a time (LockStripe,
// ShardLen for the RESIZEDB hints, ForEachInShard or ScanShard's chunks,
// ExportEntry) and
// serializes each key before it unlocks, because the exported Entry
// aliases the key's memory; keys it has not reached yet are saved from
// the PreWriter, which sees the same Objects under the same stripe. A
// load inserts keys with LoadEntry (one stripe lock per key, accounted,
// announced to nobody) after Expand sized the databases under LockAll.
// DUMP and RESTORE (dump.go) use the same conversions.
//
// # State per keyspace
//
// Everything two servers in one process could disagree on belongs to their
// Keyspace, never to the package: the settings procedures read
// (Settings: encoding thresholds, proto-max-bulk-len, LFU tuning, applied
// with Configure), the LRU or LFU layout of access clocks (it follows the
// keyspace's maxmemory-policy, SetEvictionPolicy), the clients blocked on
// keys, watches, memory accounting and eviction. Procedures reach all of
// it through their Ctx's KS: reading a setting is one atomic load, with no
// lookup. So keyspaces share nothing, and tests can run in parallel, each
// on its own keyspace. The package-level variables that remain never
// change after start-up: the command tables (StringCommands, ...), help
// texts and the names of the commands propagate.go emits; package ds adds
// the process-wide hash seed, which every Dict must share.
//
// # Strings
//
// A string value's buffer has the capacity Go's allocator really gave it
// (ds.AllocSize: a size class, or whole 8 KiB pages), which memory
// accounting counts. A value grows in place while that capacity allows
// (SETRANGE, SETBIT, BITFIELD, APPEND; grow in strings_range.go), else
// into a new buffer with Valkey's sdsMakeRoomFor room: twice the new
// length below 1 MiB, 1 MiB more above. An adopted argument keeps its
// buffer's spare room (so a value SET whole and grown by a byte copies
// nothing) unless that exceeds a tenth of its length and a copy would be
// smaller, as Valkey trims a big argument it keeps. CompactStrings
// (compact.go) may give any string value a new buffer with the same
// bytes and capacity, under its stripe's lock: a Str() slice is the
// value's only while the stripe stays locked.
//
// # Objects and expiry
//
// An Object is 24 bytes inside its dict entry: val, one pointer whose Go
// type the tag's kind bits name (Value, SetValue, Str, SetStr), the
// string's length and capacity, the access clock, the type, and the tag.
// A key's expiry is the value of its entry in the shard's expires dict;
// the tag's TTL bit (HasTTL) is set exactly when that entry exists. Both
// change together, only through shard.setExpire or where a key is deleted
// or replaced; readers go through shard.expireOf and Ctx.ExpireOf.
//
// A small set's or sorted set's ds.Pack is the object's val and length
// fields themselves: Value returns a pointer into the Object, SetValue
// copies a Pack in. Such a pointer is the key's value only until the
// object's value is replaced (SetValue, Create or a delete of the key),
// and a Pack built apart stops being the value once SetValue copied it.
//
// # Memory accounting
//
// Every stripe counts the heap its shards hold (mem.go). Every write must go
// through the choke points that keep the count: Create/SetString, Delete,
// SetExpire, and Touch or signalDB after changing a value in place (they
// re-measure the value). A read that changes a value's size must call
// remeasure.
package db
