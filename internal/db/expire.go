package db

import (
	"math/rand/v2"
	"time"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/effects"
)

// expireKey deletes an expired key. The key's stripe is locked; the
// caller propagates the deletion (Ctx.expire, or active expiry).
func (ks *Keyspace) expireKey(db int, sh *shard, key []byte) {
	if ks.preWrite.Load() != nil {
		ks.beforeWrite(db, key, sh.keys.Find(key))
	}
	sh.expires.Delete(key)
	if v, ok := sh.keys.Delete(key); ok {
		sh.unaccount(v.mem)
		sh.counted(key, -1)
	}
	ks.settle(db, sh)
	ks.Stats.ExpiredKeys.Add(1)
	ks.keyGone(db, key)
	ks.Event(NotifyExpired, "expired", key, db)
	ks.keyChanged(db, key, nil)
	ks.dirty.Add(0, 1)
}

// expire deletes an expired key a command met (lazy expiry) and
// propagates the deletion in the command's unit, before the command.
func (c *Ctx) expire(db int, sh *shard, key []byte) {
	c.KS.expireKey(db, sh, key)
	c.propagateDeletion(db, key, c.KS.lazy.expire.Load())
}

// reapExpired deletes an expired key that a command which locks stripes
// for itself met (SCAN, RANDOMKEY), with the key's stripe held: announced
// and propagated as lazy expiry does, in the command's unit inside EXEC or
// a script (which commits it with every stripe held), otherwise as a unit
// of its own, now, while the stripe is still held.
func (c *Ctx) reapExpired(db int, sh *shard, key []byte) {
	c.KS.expireKey(db, sh, key)
	lazy := c.KS.lazy.expire.Load()
	if c.Locked {
		c.propagateDeletion(db, key, lazy)
		return
	}
	var u effects.Unit
	c.KS.emitDeletion(&u, db, key, lazy)
}

// Active expiry, modelled on Valkey's activeExpireCycle: every tick visit
// the stripes round-robin, sample up to keysPerLoop keys with a TTL from
// each shard, delete the expired ones, and repeat on a shard while more
// than acceptableStale percent of the sample was expired. A tick stops
// after its time budget, so a huge backlog is drained over several ticks
// without stalling clients. effort (1..10, active-expire-effort) scales the
// sample size, the budget and the tolerated stale percentage as in Valkey.
type expireCycle struct {
	next int // next stripe to visit
}

// ActiveExpire runs one cycle with the given tick period and effort and
// returns how many keys it expired.
func (ks *Keyspace) ActiveExpire(period time.Duration, effort int, cyc *expireCycle) int {
	if effort < 1 {
		effort = 1
	}
	e := effort - 1
	keysPerLoop := 20 + 20/4*e
	acceptableStale := 10 - e
	// Valkey spends at most 25% (+2% per effort step) of CPU time on this.
	budget := period * time.Duration(25+2*e) / 100
	start := time.Now()
	deadline := start.Add(budget)
	expired := 0
	sample := make([][]byte, 0, keysPerLoop)
	var unit effects.Unit // each deletion is propagated alone
	for visited := 0; visited < StripeCount; visited++ {
		s := cyc.next
		cyc.next = (cyc.next + 1) % StripeCount
		st := &ks.stripes[s]
		st.mu.Lock()
		now := time.Now().UnixMilli()
		for db, sh := range st.shards {
			if sh == nil {
				continue
			}
			for sh.expires.Len() > 0 {
				sample = sample[:0]
				due := 0
				sh.expires.Sample(keysPerLoop, func(k string, exp *int64) {
					// Due keys first: the rest only count in the sample.
					sample = append(sample, []byte(k))
					if *exp < now {
						sample[due], sample[len(sample)-1] = sample[len(sample)-1], sample[due]
						due++
					}
				})
				n := 0
				for _, k := range sample[:due] {
					if o := sh.keys.Find(k); o != nil {
						ks.expireKey(db, sh, k)
						ks.emitDeletion(&unit, db, k, ks.lazy.expire.Load())
						n++
					}
				}
				expired += n
				if len(sample) == 0 || n*100/len(sample) <= acceptableStale {
					break
				}
			}
		}
		st.mu.Unlock()
		if visited%16 == 15 && time.Now().After(deadline) {
			break
		}
	}
	ks.Stats.ExpireCycleTime.Add(time.Since(start).Microseconds())
	return expired
}

// RunExpiry runs the keyspace cron every period until stop is closed: the
// active expire cycle when enabled says so (DEBUG SET-ACTIVE-EXPIRE), then
// active rehashing when rehash says so (activerehashing), which Valkey gives
// 1 ms per database per tick; Corvid gives the whole keyspace 1 ms.
func (ks *Keyspace) RunExpiry(stop <-chan struct{}, period func() time.Duration, effort func() int, enabled, rehash func() bool) {
	var cyc expireCycle
	cyc.next = rand.IntN(StripeCount)
	rehashNext := rand.IntN(StripeCount)
	for {
		p := period()
		select {
		case <-stop:
			return
		case <-time.After(p):
		}
		if enabled() {
			ks.ActiveExpire(p, effort(), &cyc)
		}
		if rehash() {
			ks.ActiveRehash(time.Millisecond, &rehashNext)
		}
	}
}

// A key's expiry lives in its shard's expires dict, the value of the
// key's entry there; the key's Object only has a bit saying it is there
// (Object.HasTTL). The two change together, under the stripe's lock, in
// setExpire and where a key is deleted or replaced.

// expireOf returns key's expiry in Unix milliseconds, 0 for none. o is
// key's object and h its hash (ds.Hash). Keys without a TTL cost a bit
// test; the others a lookup that does not rehash (Peek), so it is safe
// wherever reading o is.
func (sh *shard) expireOf(h uint64, key []byte, o *Object) int64 {
	if !o.HasTTL() {
		return 0
	}
	if p := sh.expires.PeekHashed(h, key); p != nil {
		return *p
	}
	return 0
}

// expireOf returns the expiry of key, whose object in db is o, with the
// key's stripe held (0: none).
func (ks *Keyspace) expireOf(db int, key []byte, o *Object) int64 {
	if !o.HasTTL() {
		return 0
	}
	h := ds.Hash(key)
	sh := ks.shardAt(db, ks.stripeOf(key, h), false)
	if sh == nil {
		return 0
	}
	return sh.expireOf(h, key, o)
}

// ExpireOf is expireOf for other packages (DEBUG OBJECT, MIGRATE, INFO):
// the key's stripe must be held.
func (ks *Keyspace) ExpireOf(db int, key []byte, o *Object) int64 { return ks.expireOf(db, key, o) }

// expireOfString is expireOf for a key handed out by the keys dict.
func (sh *shard) expireOfString(key string, o *Object) int64 {
	if !o.HasTTL() {
		return 0
	}
	if p := sh.expires.PeekHashedString(ds.HashString(key), key); p != nil {
		return *p
	}
	return 0
}

// expiredAt reports whether key's TTL has passed at now (Unix ms), as
// Valkey's keyIsExpired: a key is expired once now is past its expiry
// time, so at that very millisecond it still exists. (Setting a TTL that
// is already due, checkAlreadyExpired, deletes at once: when <= now.)
func (sh *shard) expiredAt(h uint64, key []byte, o *Object, now int64) bool {
	if !o.HasTTL() {
		return false
	}
	e := sh.expireOf(h, key, o)
	return e != 0 && e < now
}

// expiredAtString is expiredAt for a key handed out by the keys dict.
func (sh *shard) expiredAtString(key string, o *Object, now int64) bool {
	if !o.HasTTL() {
		return false
	}
	e := sh.expireOfString(key, o)
	return e != 0 && e < now
}

// setExpire sets key's expiry to ms (Unix milliseconds), or with ms == 0
// removes it. It does not settle the shard's memory count.
func (sh *shard) setExpire(h uint64, key []byte, o *Object, ms int64) {
	switch {
	case ms != 0:
		p, _ := sh.expires.UpsertHashed(h, key)
		*p = ms
		o.setHasTTL(true)
	case o.HasTTL():
		sh.expires.DeleteHashed(h, key)
		o.setHasTTL(false)
	}
}
