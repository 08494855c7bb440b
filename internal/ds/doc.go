// Package ds holds Corvid's hand-written data structures: the Dict hash table
// behind the keyspace, StrMap (the hashtable encoding of sets and hashes)
// and ZSkip (sorted sets) over the open-addressed oIndex, IntSet, listpacks
// and the quicklist (with its LZF-compressed interior nodes), Valkey's
// glob matcher, and the LZF compressor and CRC64 checksum of RDB files
// and DUMP payloads. Nothing here does I/O, and nothing here holds state
// shared between its values except the process-wide hash seed (hash.go),
// DEBUG QUICKLIST-PACKED-THRESHOLD, and a pool of LZF hash tables.
//
// # Locking
//
// There is no internal locking. Every method, including the read-looking
// ones, must run under the caller's exclusive lock (the keyspace stripe
// mutex). Dict.Find, FindString, Upsert, Delete, RandomKey and Sample each
// perform one step of incremental rehashing, so they mutate the table: a
// shared (read) lock is not enough for them. Dict.Peek is the one lookup that
// never writes, for callers that want to use an RWMutex read lock.
//
// # Ownership and pointer validity
//
//   - Dict copies a key on insert; the []byte passed to any method is only
//     read during the call and may be reused afterwards.
//   - The key strings handed out by Range, Scan, Sample and RandomKey are
//     immutable and may be kept. Keeping one keeps its entry's memory alive
//     (short keys are stored inside the entry allocation).
//   - A *V returned by Find/Upsert/Range/Scan/Sample/RandomKey points into the
//     entry and stays valid until that key is deleted (Delete, Clear), however
//     the table is resized or rehashed meanwhile: entries never move in memory.
//     After deletion the pointer must not be used; Delete zeroes the value so
//     that a stale pointer does not keep it alive.
//   - ZSkip (the skiplist encoding the keyspace uses, ordered by a B+tree)
//     carves its nodes from pointer-free slabs and keeps its index slots,
//     owners array and tree leaves in pointer-free memory: the links to
//     nodes are hidden from the garbage collector, and the slabs keep the
//     nodes alive. Slab memory is
//     never reused, so a Member slice the caller holds stays readable after
//     its member is removed; but a *ZNode or a ZIter (a position in the
//     order) must not be used across Add, Remove or a DeleteRange method,
//     which may move nodes to another slab and reshape the tree. See ZSkip
//     and zskip_slab.go for the invariants.
//   - A Quicklist's element slices alias its nodes' buffers, or for a
//     compressed node a copy decompressed for the read, and are valid
//     until the next change to the list. A listpack-encoded list holds
//     its one node inside the Quicklist, so its value is that struct and
//     the node's buffer; the quicklist encoding's nodes and settings live
//     in a state the list allocates when it converts and drops when it
//     shrinks back (see Quicklist).
//   - StrMap's key and value slices alias its pointer-free records, which
//     are never reused: they stay readable after a Delete, but a Set that
//     fits the record's size class rewrites the value in place (see
//     StrMap).
//
// # Iteration
//
// Mutation while iterating is not allowed, with two exceptions: a Range, Scan
// or Sample callback may change *v, look keys up with Find/Peek, and delete the
// key it was called with. Rehashing and automatic resizing are paused while a
// callback runs, so such lookups and that delete are safe. Inserting or
// deleting other keys from a callback leaves the iteration unspecified (keys
// may be missed or repeated; memory safety is kept).
//
// # Scan guarantee
//
// Dict.Scan uses Valkey's reverse-binary cursor: starting from cursor 0 and
// feeding each returned cursor back until 0 comes back, every key that is
// present for the whole iteration is passed to the callback at least once,
// even when the table grows, shrinks or rehashes between calls. A key may be
// reported more than once, and keys added or deleted during the iteration may
// or may not be reported. The cursor is only meaningful for the Dict that
// produced it. ZSkip.Scan and StrMap.Scan give the same guarantee with a
// cursor over their owners arrays (see ZSkip.Scan).
//
// # Hashing and lock stripes
//
// Keys are hashed with hash/maphash under one process-wide seed, so Hash(key)
// can be computed once, used to choose a lock stripe with Stripe, and passed
// to the *Hashed methods of whichever Dict the stripe owns. Bucket indexes use
// the low bits of the hash and Stripe uses the high 32 bits, so a stripe's
// keys still spread over all of its buckets.
//
// # Memory usage
//
// Every collection type reports MemUsage in O(1), kept up to date as it
// changes, with sizes rounded by allocSize to Go's real size classes; the
// keyspace's used_memory is built on it. A Dict does not count memory its
// values point to.
package ds
