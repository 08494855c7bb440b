package db

import (
	"math/rand/v2"
)

// DBSize counts the keys of database db, stripe by stripe. Keys that have
// expired but not been collected are counted, as in Valkey.
// held says the caller already holds every stripe (inside EXEC or a script).
func (ks *Keyspace) DBSize(db int, held bool) int {
	n := 0
	for i := range ks.stripes {
		st := &ks.stripes[i]
		ks.lockStripe(i, held)
		if sh := st.shards[db]; sh != nil {
			n += sh.keys.Len()
		}
		ks.unlockStripe(i, held)
	}
	return n
}

// lockStripe locks stripe i unless the caller holds every stripe already.
func (ks *Keyspace) lockStripe(i int, held bool) {
	if !held {
		ks.stripes[i].mu.Lock()
	}
}

func (ks *Keyspace) unlockStripe(i int, held bool) {
	if !held {
		ks.stripes[i].mu.Unlock()
	}
}

// KeyCounts returns keys and keys-with-TTL per database (INFO keyspace).
func (ks *Keyspace) KeyCounts() (keys, expires []int) {
	keys, expires = make([]int, ks.ndb), make([]int, ks.ndb)
	for i := range ks.stripes {
		st := &ks.stripes[i]
		st.mu.Lock()
		for db, sh := range st.shards {
			if sh != nil {
				keys[db] += sh.keys.Len()
				expires[db] += sh.expires.Len()
			}
		}
		st.mu.Unlock()
	}
	return keys, expires
}

// FlushDB empties database db (db < 0: all). All stripes must be locked.
func (ks *Keyspace) FlushDB(db int) int {
	ks.beforeWriteDB(db)
	ks.touchWatchedDB(db, -1) // before the keys are gone
	ks.flushed(db)
	ks.dbGone(db)
	n := 0
	var freed int64
	for i := range ks.stripes {
		st := &ks.stripes[i]
		for d, sh := range st.shards {
			if sh != nil && (db < 0 || d == db) {
				n += sh.keys.Len()
				freed += sh.val + sh.dict
				ks.dropShard(sh)
				st.shards[d] = nil
			}
		}
	}
	for d := range ks.mem.nonEmpty {
		if db < 0 || d == db {
			ks.mem.nonEmpty[d].keys.Store(0)
			ks.mem.nonEmpty[d].expires.Store(0)
		}
	}
	ks.dirty.Add(0, int64(n))
	if h := ks.Hooks.Flushed; h != nil && freed > 0 {
		h(freed)
	}
	return n
}

// SwapDB exchanges two databases. All stripes must be locked.
func (ks *Keyspace) SwapDB(a, b int) {
	ks.beforeWriteDB(a)
	ks.beforeWriteDB(b)
	// A watcher of a key in a or b sees a change when the key exists on
	// either side (Valkey: touchAllWatchedKeysInDb(a, b) and (b, a)).
	ks.touchWatchedDB(a, b)
	ks.touchWatchedDB(b, a)
	for i := range ks.stripes {
		sh := ks.stripes[i].shards
		sh[a], sh[b] = sh[b], sh[a]
	}
	ks.dbGone(a)
	ks.dbGone(b)
	// Memory stays with the stripes; only the per-database shapes move.
	na, nb := &ks.mem.nonEmpty[a], &ks.mem.nonEmpty[b]
	ka, ea := na.keys.Load(), na.expires.Load()
	na.keys.Store(nb.keys.Load())
	na.expires.Store(nb.expires.Load())
	nb.keys.Store(ka)
	nb.expires.Store(ea)
	ks.dirty.Add(0, 1)
}

// holds reports whether database db stores key, expired or not (Valkey's
// dbFind). key's stripe must be locked.
func (ks *Keyspace) holds(db int, key string) bool {
	sh := ks.shardAt(db, ks.StripeOf(sbytes(key)), false)
	return sh != nil && sh.keys.FindString(key) != nil
}

// ScanCursor layout: the low 8 bits select the stripe, the rest is the
// stripe dict's own reverse-binary cursor. A stripe is finished when its
// dict cursor returns 0; the walk then moves to the next stripe. The
// encoded cursor is 0 only at the start and the end, which gives SCAN
// Valkey's guarantee per stripe and so for the whole database.
const stripeBits = 8

// Scan visits about count keys of database db starting at cursor and
// returns the next cursor. fn runs with the key's stripe locked and gets
// only live keys.
// held says the caller already holds every stripe.
func (ks *Keyspace) Scan(db int, cursor uint64, count int, now int64, held bool, fn func(key string, o *Object)) uint64 {
	return ks.scan(db, cursor, count, now, held, nil, nil, fn)
}

// scan is Scan with SCAN's treatment of expired keys when reap is set
// (Valkey's scanGenericCommand): a key that want accepts (want nil: every
// key) but whose time has passed is not given to fn but handed to reap,
// with its stripe held, once the walk of that stripe in this call is
// over (the dict is not changed while it is walked).
func (ks *Keyspace) scan(db int, cursor uint64, count int, now int64, held bool, want func(key string, o *Object) bool, reap func(db int, sh *shard, key []byte), fn func(key string, o *Object)) uint64 {
	s := int(cursor & (StripeCount - 1))
	dc := cursor >> stripeBits
	visited := 0
	for s < StripeCount {
		st := &ks.stripes[s]
		ks.lockStripe(s, held)
		sh := st.shards[db]
		if sh == nil || sh.keys.Len() == 0 {
			dc = 0
		} else {
			var dead []string
			// Keep visiting buckets of this stripe until the count is met.
			for {
				dc = sh.keys.Scan(dc, func(k string, o *Object) {
					visited++
					if want != nil && !want(k, o) {
						return
					}
					if sh.expiredAtString(k, o, now) {
						if reap != nil {
							dead = append(dead, k)
						}
						return
					}
					fn(k, o)
				})
				if dc == 0 || visited >= count {
					break
				}
			}
			for _, k := range dead {
				reap(db, sh, []byte(k))
			}
		}
		ks.unlockStripe(s, held)
		if dc == 0 {
			s++
		}
		if visited >= count && s < StripeCount {
			return dc<<stripeBits | uint64(s)
		}
		if visited >= count {
			return 0
		}
	}
	return 0
}

// Keys calls fn for every live key of database db. All stripes must be
// locked (KEYS is atomic in Valkey).
func (ks *Keyspace) Keys(db int, now int64, fn func(key string, o *Object)) {
	for i := range ks.stripes {
		sh := ks.stripes[i].shards[db]
		if sh == nil {
			continue
		}
		sh.keys.Range(func(k string, o *Object) bool {
			if !sh.expiredAtString(k, o, now) {
				fn(k, o)
			}
			return true
		})
	}
}

// RandomKey returns a random live key of database db, or false if it is
// empty. It locks stripes one at a time, choosing a stripe with a
// probability proportional to its size so that every key is about equally
// likely. An expired key it picks is handed to reap, with its stripe
// held, to be deleted.
// held says the caller already holds every stripe.
func (ks *Keyspace) RandomKey(db int, now int64, held bool, reap func(db int, sh *shard, key []byte)) (string, bool) {
	for tries := 0; tries < 100; tries++ {
		var sizes [StripeCount]int
		total := 0
		for i := range ks.stripes {
			st := &ks.stripes[i]
			ks.lockStripe(i, held)
			if sh := st.shards[db]; sh != nil {
				sizes[i] = sh.keys.Len()
				total += sizes[i]
			}
			ks.unlockStripe(i, held)
		}
		if total == 0 {
			return "", false
		}
		pick := rand.IntN(total)
		s := 0
		for ; s < StripeCount; s++ {
			if pick < sizes[s] {
				break
			}
			pick -= sizes[s]
		}
		st := &ks.stripes[s]
		ks.lockStripe(s, held)
		sh := st.shards[db]
		var key string
		var ok bool
		if sh != nil {
			var o *Object
			key, o, ok = sh.keys.RandomKey()
			if ok && sh.expiredAtString(key, o, now) {
				reap(db, sh, []byte(key))
				ok = false
			}
		}
		ks.unlockStripe(s, held)
		if ok {
			return key, true
		}
	}
	return "", false
}
