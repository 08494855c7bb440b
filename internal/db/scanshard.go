package db

import "fmt"

// Walking the keyspace one stripe at a time, for a snapshot that must not
// hold more than one stripe, or any stripe for long (package snapshot).

// ScanShard visits the keys of database db that hash to stripe, from
// cursor on, until about count keys were visited, and returns the next
// cursor (0: the shard is done). The caller holds the stripe, and may
// release it between calls: as with SCAN, a key present for the whole walk
// is visited at least once, and may be visited twice if the shard's table
// was resized in between. Keys past their expiry are visited too (an RDB
// file keeps them; the loader drops them).
func (ks *Keyspace) ScanShard(db, stripe int, cursor uint64, count int, fn func(key string, o *Object)) uint64 {
	ks.checkHeld(stripe)
	sh := ks.stripes[stripe].shards[db]
	if sh == nil || sh.keys.Len() == 0 {
		return 0
	}
	visited := 0
	for {
		cursor = sh.keys.Scan(cursor, func(k string, o *Object) {
			visited++
			fn(k, o)
		})
		if cursor == 0 || visited >= count {
			return cursor
		}
	}
}

// KeyCountsHeld is KeyCounts for a caller that holds every stripe.
func (ks *Keyspace) KeyCountsHeld() (keys, expires []int) {
	keys, expires = make([]int, ks.ndb), make([]int, ks.ndb)
	for i := range ks.stripes {
		for db, sh := range ks.stripes[i].shards {
			if sh != nil {
				keys[db] += sh.keys.Len()
				expires[db] += sh.expires.Len()
			}
		}
	}
	return keys, expires
}

// checkHeld panics, under -tags invariants, unless stripe s is locked
// (by someone: a mutex does not know its owner).
func (ks *Keyspace) checkHeld(s int) {
	if Invariants && ks.stripes[s].mu.TryLock() {
		ks.stripes[s].mu.Unlock()
		panic(fmt.Sprintf("invariants: stripe %d walked without being held", s))
	}
}

// ShardCounts is the number of keys, and of keys with a TTL, of database
// db in stripe. The caller holds the stripe.
func (ks *Keyspace) ShardCounts(db, stripe int) (keys, expires int) {
	sh := ks.stripes[stripe].shards[db]
	if sh == nil {
		return 0, 0
	}
	return sh.keys.Len(), sh.expires.Len()
}
