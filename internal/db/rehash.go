package db

import "time"

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
