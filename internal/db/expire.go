package db

import (
	"math/rand/v2"
	"time"

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
				sh.expires.Sample(keysPerLoop, func(k string, _ *struct{}) {
					sample = append(sample, []byte(k))
				})
				n := 0
				for _, k := range sample {
					if o := sh.keys.Find(k); o != nil && o.ExpiredAt(now) {
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
