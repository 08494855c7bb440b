package db

// Key lookups cluster mode needs outside a command (internal/server/cluster.go).

// KeyExists reports whether key is a live key of database db. It takes the
// key's stripe unless held says the caller holds every stripe.
func (ks *Keyspace) KeyExists(db int, key []byte, now int64, held bool) bool {
	i := ks.StripeOf(key)
	if !held {
		ks.LockStripe(i)
		defer ks.UnlockStripe(i)
	}
	sh := ks.stripes[i].shards[db]
	if sh == nil {
		return false
	}
	o := sh.keys.Peek(key)
	return o != nil && !o.ExpiredAt(now)
}
