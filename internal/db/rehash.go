package db

import (
	"math"
	"time"
)

// rehashStepBuckets is how many buckets one Dict.Rehash call moves between
// clock checks (Valkey's dictRehashMicroseconds moves 100 at a time).
const rehashStepBuckets = 100

// ActiveRehash is Valkey's databasesCron work for activerehashing yes and
// its tryResizeHashTables: it lets the cron finish the incremental rehash
// of keyspace dicts that stopped seeing traffic (a dict rehashes one bucket
// per operation on it, so a dict that grew and went idle would keep both
// tables, and their memory, forever) and starts the resize of dicts whose
// fill crossed a threshold without a write (keys expired or were deleted in
// bulk). It visits stripes from *next on, one stripe lock at a time, and
// stops after budget; it returns whether any dict is still rehashing.
func (ks *Keyspace) ActiveRehash(budget time.Duration, next *int) bool {
	deadline := time.Now().Add(budget)
	pending := false
	for visited := 0; visited < StripeCount; visited++ {
		s := *next
		*next = (s + 1) % StripeCount
		st := &ks.stripes[s]
		st.mu.Lock()
		for db, sh := range st.shards {
			if sh == nil {
				continue
			}
			changed := false
			for _, d := range []interface {
				ResizeIfNeeded() bool
				IsRehashing() bool
				Rehash(int) bool
			}{sh.keys, sh.expires} {
				if !d.IsRehashing() && !d.ResizeIfNeeded() {
					continue
				}
				changed = true
				for d.Rehash(rehashStepBuckets) && time.Now().Before(deadline) {
				}
				pending = pending || d.IsRehashing()
			}
			if changed {
				ks.settle(db, sh) // the old table is gone: account for it
			}
		}
		st.mu.Unlock()
		if time.Now().After(deadline) {
			return true
		}
	}
	return pending
}

// Expand sizes db's dicts for n keys, as Valkey's dbExpand before DEBUG
// POPULATE (and an RDB's RESIZEDB): each stripe's dict gets a table for
// its share of n, so that loading them does not rehash along the way. A
// dict already that big, or rehashing, is left alone; so is a small n,
// which would only create empty shards (a stripe expecting a few keys
// rehashes tables of a few buckets). The caller holds every stripe lock
// (LockAll): inside EXEC or a script they are held already, and taking
// them one by one here would deadlock.
func (ks *Keyspace) Expand(db int, n int64) {
	if n < 16*StripeCount {
		return
	}
	want := stripeShare(n)
	for i := range ks.stripes {
		sh := ks.shardAt(db, i, true)
		if sh.keys.Expand(want) {
			ks.settle(db, sh) // the new table's memory
		}
	}
}

// stripeShare is how many of n uniformly hashed keys one stripe should
// expect room for: the mean plus four standard deviations, so that few
// stripes outgrow their table while loading.
func stripeShare(n int64) int {
	mean := float64(n) / StripeCount
	return int(mean + 4*math.Sqrt(mean) + 1)
}

// TableStats sums the bucket and key counts of database db's key tables
// (expires: of its TTL tables) over every stripe, main and rehashing
// target apart (DEBUG HTSTATS). It locks each stripe in turn unless the
// caller holds them all (held).
func (ks *Keyspace) TableStats(db int, expires, held bool) (mainSlots, mainUsed, targetSlots, targetUsed int) {
	for i := range ks.stripes {
		st := &ks.stripes[i]
		ks.lockStripe(i, held)
		if sh := st.shards[db]; sh != nil {
			var a, b, c, d int
			if expires {
				a, b, c, d = sh.expires.Stats()
			} else {
				a, b, c, d = sh.keys.Stats()
			}
			mainSlots, mainUsed, targetSlots, targetUsed = mainSlots+a, mainUsed+b, targetSlots+c, targetUsed+d
		}
		ks.unlockStripe(i, held)
	}
	return
}
