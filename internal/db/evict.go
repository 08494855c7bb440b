package db

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
)

// Eviction, modelled on Valkey's evict.c.
//
// Before a command runs (and before it takes any stripe), the dispatcher
// calls PerformEvictions when maxmemory is set. If used memory is above
// the limit, keys are evicted one at a time until it is not: the candidate
// comes from an eviction pool of 16 entries kept sorted by score, refilled
// before every eviction with maxmemory-samples keys sampled from the keys
// dicts (allkeys-*) or the TTL dicts (volatile-*). The score is the idle
// time (LRU), 255 minus the decayed LFU counter (LFU) or how soon the key
// expires (volatile-ttl); the random policies pick a random key of the next
// database instead. Because memory is counted incrementally (mem.go), each
// eviction's effect is visible immediately.
//
// Concurrency: evictor.mu serializes evictions (it guards the pool) and is
// always taken before a stripe; an eviction locks one stripe at a time, to
// sample or to delete, and never while the caller holds stripes. So the
// lock order is evictor.mu -> one stripe -> watch registry.
//
// Sampling maps Valkey's kvstore (a dict per cluster slot, sampled through
// a size-weighted random slot) onto stripes: a round visits stripes from a
// random one on and samples every database's shard it meets until
// maxmemory-samples keys were seen. With many keys per stripe this is one
// stripe per round; with few it samples more stripes, like kvstore's loop
// over non-empty dicts.
//
// maxmemory-eviction-tenacity bounds the time one call may spend (checked
// every 16 keys as Valkey does); past it the call returns EvictRunning,
// the command runs anyway, and the background job (RunEviction, Valkey's
// evictionTimeProc) carries on until memory is back under the limit.

// EvictionPolicy is maxmemory-policy.
type EvictionPolicy int32

// The policies, in Valkey's config order.
const (
	PolicyNoEviction EvictionPolicy = iota
	PolicyAllkeysLRU
	PolicyAllkeysLFU
	PolicyAllkeysRandom
	PolicyVolatileLRU
	PolicyVolatileLFU
	PolicyVolatileRandom
	PolicyVolatileTTL
)

var policyNames = [...]string{"noeviction", "allkeys-lru", "allkeys-lfu", "allkeys-random",
	"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"}

func (p EvictionPolicy) String() string { return policyNames[p] }

// ParsePolicy maps a maxmemory-policy name to its policy.
func ParsePolicy(name string) (EvictionPolicy, bool) {
	for i, n := range policyNames {
		if EqualFold([]byte(name), n) {
			return EvictionPolicy(i), true
		}
	}
	return PolicyNoEviction, false
}

func (p EvictionPolicy) volatile() bool { return p >= PolicyVolatileLRU }
func (p EvictionPolicy) lru() bool      { return p == PolicyAllkeysLRU || p == PolicyVolatileLRU }
func (p EvictionPolicy) lfu() bool      { return p == PolicyAllkeysLFU || p == PolicyVolatileLFU }
func (p EvictionPolicy) random() bool {
	return p == PolicyAllkeysRandom || p == PolicyVolatileRandom
}

// EvictResult is what PerformEvictions achieved.
type EvictResult int

const (
	// EvictOK: used memory is within maxmemory (or there is no limit).
	EvictOK EvictResult = iota
	// EvictRunning: still above the limit after the time budget; the
	// background job continues. The command is not refused.
	EvictRunning
	// EvictFail: above the limit and nothing can be evicted (noeviction,
	// or no candidate keys): DENYOOM commands are refused.
	EvictFail
)

// evpoolSize is Valkey's EVPOOL_SIZE.
const evpoolSize = 16

type poolEntry struct {
	idle uint64 // score: higher is a better candidate
	key  string // shares the sampled dict entry's immutable key
	db   int
	used bool
}

type evictor struct {
	maxmem   atomic.Int64
	policy   atomic.Int32
	samples  atomic.Int32
	tenacity atomic.Int32

	// mu serializes evictions and guards pool and nextDB. Taken before any
	// stripe, never while one is held.
	mu     sync.Mutex
	pool   [evpoolSize]poolEntry
	nextDB int // random policies visit databases round-robin

	kick chan struct{} // wakes RunEviction (buffered 1)
	// overSince is when (Unix µs) used memory was first seen above the
	// limit in the current stretch, 0 when under it.
	overSince atomic.Int64
	// now is the clock for LRU/LFU scores in Unix ms; tests replace it.
	now func() int64
}

func (e *evictor) init() {
	e.samples.Store(5)
	e.tenacity.Store(10)
	e.kick = make(chan struct{}, 1)
	e.now = func() int64 { return time.Now().UnixMilli() }
}

// SetMaxMemory sets maxmemory (0: no limit). Lowering it wakes the
// background job, which evicts down to the new limit at once, as Valkey's
// CONFIG SET starts its eviction timer.
func (ks *Keyspace) SetMaxMemory(n int64) {
	ks.ev.maxmem.Store(n)
	// Keep the published total within ~1.6% of the limit: StripeCount
	// stripes may each hold up to step unpublished bytes.
	step := int64(maxPublishStep)
	if n > 0 {
		step = min(max(n/(StripeCount*64), minPublishStep), maxPublishStep)
	}
	ks.mem.step.Store(step)
	ks.kickEviction()
}

// MaxMemory returns maxmemory (0: none).
func (ks *Keyspace) MaxMemory() int64 { return ks.ev.maxmem.Load() }

// SetEvictionPolicy sets maxmemory-policy. It takes effect for the next
// eviction; the keyspace's access clocks switch layout (LRU or LFU,
// clock.go) at once.
func (ks *Keyspace) SetEvictionPolicy(p EvictionPolicy) {
	ks.ev.policy.Store(int32(p))
	ks.kickEviction()
}

// EvictionPolicy returns maxmemory-policy.
func (ks *Keyspace) EvictionPolicy() EvictionPolicy { return EvictionPolicy(ks.ev.policy.Load()) }

// SetEvictionTuning sets maxmemory-samples and maxmemory-eviction-tenacity.
func (ks *Keyspace) SetEvictionTuning(samples, tenacity int) {
	ks.ev.samples.Store(int32(min(max(samples, 1), 64)))
	ks.ev.tenacity.Store(int32(min(max(tenacity, 0), 100)))
}

func (ks *Keyspace) kickEviction() {
	select {
	case ks.ev.kick <- struct{}{}:
	default:
	}
}

// evictionTimeLimit is Valkey's evictionTimeLimitUs: 50 µs per step up to
// tenacity 10, then 15% more per step, no limit at 100.
func evictionTimeLimit(tenacity int) time.Duration {
	switch {
	case tenacity <= 10:
		return time.Duration(50*tenacity) * time.Microsecond
	case tenacity < 100:
		return time.Duration(500*math.Pow(1.15, float64(tenacity-10))) * time.Microsecond
	}
	return math.MaxInt64
}

// PerformEvictions evicts keys until used memory is within maxmemory, the
// time budget runs out (EvictRunning) or nothing is left to evict
// (EvictFail). The caller must hold no stripe.
func (ks *Keyspace) PerformEvictions() EvictResult { return ks.performEvictions(false) }

func (ks *Keyspace) performEvictions(background bool) EvictResult {
	ev := &ks.ev
	max := ev.maxmem.Load()
	if max <= 0 || ks.ignoreMaxmem.Load() || ks.UsedMemory() <= max {
		ks.noteUnder()
		return EvictOK
	}
	ks.noteOver()
	pol := ks.EvictionPolicy()
	if pol == PolicyNoEviction {
		return EvictFail
	}
	ev.mu.Lock()
	defer ev.mu.Unlock()
	limit := evictionTimeLimit(int(ev.tenacity.Load()))
	start := time.Now()
	for iter := 1; ks.UsedMemory() > max; iter++ {
		if _, candidates := ks.evictOne(pol); !candidates {
			return EvictFail
		}
		if iter%16 == 0 && time.Since(start) > limit {
			if !background {
				ks.kickEviction()
			}
			return EvictRunning
		}
	}
	ks.noteUnder()
	return EvictOK
}

// RunEviction is the background eviction job (Valkey's evictionTimeProc):
// when woken (a foreground eviction ran out of time, maxmemory or the
// policy changed) and on a 100 ms tick, it evicts in tenacity-sized slices
// until used memory is within the limit or nothing is left to evict,
// yielding between slices so that clients keep running.
func (ks *Keyspace) RunEviction(stop <-chan struct{}) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-ks.ev.kick:
		case <-t.C:
		}
		for ks.performEvictions(true) == EvictRunning {
			select {
			case <-stop:
				return
			default:
			}
			runtime.Gosched()
		}
	}
}

// noteOver and noteUnder time the stretches spent above maxmemory (INFO's
// total/current_eviction_exceeded_time).
func (ks *Keyspace) noteOver() {
	if ks.ev.overSince.Load() == 0 {
		ks.ev.overSince.CompareAndSwap(0, time.Now().UnixMicro())
	}
}

func (ks *Keyspace) noteUnder() {
	if s := ks.ev.overSince.Load(); s != 0 && ks.ev.overSince.CompareAndSwap(s, 0) {
		ks.Stats.EvictionExceeded.Add(time.Now().UnixMicro() - s)
	}
}

// EvictionExceededTime returns, in milliseconds, the total time used
// memory spent above maxmemory and the length of the current stretch (0
// when under the limit).
func (ks *Keyspace) EvictionExceededTime() (total, current int64) {
	total = ks.Stats.EvictionExceeded.Load()
	if s := ks.ev.overSince.Load(); s != 0 {
		current = time.Now().UnixMicro() - s
	}
	return (total + current) / 1000, current / 1000
}

// evictOne evicts one key. candidates is false when the policy has no key
// to choose from at all. evictor.mu is held.
func (ks *Keyspace) evictOne(pol EvictionPolicy) (evicted, candidates bool) {
	if !ks.hasCandidates(pol.volatile()) {
		return false, false
	}
	if pol.random() {
		return ks.evictRandom(pol.volatile())
	}
	pool := &ks.ev.pool
	// Refill, then take the best entry; an entry whose key is gone (or
	// lost its TTL, for volatile policies) is a ghost: try the next one.
	// A few rounds at most, so that a keyspace churning under us cannot
	// keep the loop here; the caller's time budget takes over.
	for round := 0; round < 4; round++ {
		if ks.populatePool(pol) == 0 {
			return false, ks.hasCandidates(pol.volatile())
		}
		for k := evpoolSize - 1; k >= 0; k-- {
			if !pool[k].used {
				continue
			}
			e := pool[k]
			pool[k] = poolEntry{}
			if ks.evictKey(e.db, e.key, pol.volatile()) {
				return true, true
			}
		}
	}
	return false, true
}

// hasCandidates reports whether some database has keys (with a TTL, for
// volatile policies).
func (ks *Keyspace) hasCandidates(volatile bool) bool {
	for i := range ks.mem.nonEmpty {
		n := &ks.mem.nonEmpty[i]
		if volatile && n.expires.Load() > 0 || !volatile && n.keys.Load() > 0 {
			return true
		}
	}
	return false
}

// populatePool is evictionPoolPopulate over stripes: it samples at least
// maxmemory-samples keys (fewer if the keyspace has fewer), scores them
// and merges them into the pool. It returns how many keys it sampled.
func (ks *Keyspace) populatePool(pol EvictionPolicy) int {
	want := int(ks.ev.samples.Load())
	now := ks.ev.now()
	volatile := pol.volatile()
	sampled := 0
	start := rand.IntN(StripeCount)
	for v := 0; v < StripeCount && sampled < want; v++ {
		st := &ks.stripes[(start+v)&(StripeCount-1)]
		st.mu.Lock()
		for db, sh := range st.shards {
			if sh == nil {
				continue
			}
			if volatile {
				if sh.expires.Len() == 0 {
					continue
				}
				sampled += sh.expires.Sample(want, func(k string, exp *int64) {
					if o := sh.keys.FindString(k); o != nil {
						ks.ev.offer(db, k, ks.score(pol, o, *exp, now))
					}
				})
				continue
			}
			if sh.keys.Len() == 0 {
				continue
			}
			sampled += sh.keys.Sample(want, func(k string, o *Object) {
				ks.ev.offer(db, k, ks.score(pol, o, 0, now))
			})
		}
		st.mu.Unlock()
	}
	return sampled
}

// score is the pool's "idle" value: higher means evict sooner. expire is
// the key's expiry (volatile policies sample the expires dict, which
// holds it).
func (ks *Keyspace) score(pol EvictionPolicy, o *Object, expire, nowMs int64) uint64 {
	switch {
	case pol.lru():
		return idleMillis(o.LRU, nowMs)
	case pol.lfu():
		return 255 - uint64(ks.lfuDecrAt(o.LRU, nowMs))
	default: // volatile-ttl: the sooner the expiry the better
		return math.MaxUint64 - uint64(expire)
	}
}

// idleMillis is estimateObjectIdleTime: the LRU clock's age in ms (the
// clock ticks in seconds).
func idleMillis(clock uint32, nowMs int64) uint64 {
	now := lruClockAt(nowMs)
	if now >= clock {
		return uint64(now-clock) * 1000
	}
	return uint64(now+(lruClockMax-clock)) * 1000
}

// offer inserts a sampled key into the pool, which is kept in ascending
// score order with empty slots on the right, exactly as Valkey's
// evictionPoolPopulate: a key worse than every entry of a full pool is
// dropped; otherwise it goes in its place, shifting the worse entries left
// (dropping the worst) or the better ones right into a free slot.
func (e *evictor) offer(db int, key string, idle uint64) {
	pool := &e.pool
	k := 0
	for k < evpoolSize && pool[k].used && pool[k].idle < idle {
		k++
	}
	switch {
	case k == 0 && pool[evpoolSize-1].used:
		return
	case k < evpoolSize && !pool[k].used:
		// Empty slot: insert here.
	case !pool[evpoolSize-1].used:
		copy(pool[k+1:], pool[k:evpoolSize-1])
	default:
		k--
		copy(pool[:k], pool[1:k+1])
	}
	pool[k] = poolEntry{idle: idle, key: key, db: db, used: true}
}

// evictRandom deletes a random key of the next database (round-robin)
// that has one. Stripes are probed at random, so a key's chance is
// inversely proportional to its stripe's size; keys spread evenly over
// stripes, which makes the choice close to uniform.
func (ks *Keyspace) evictRandom(volatile bool) (evicted, candidates bool) {
	ev := &ks.ev
	for i := 0; i < ks.ndb; i++ {
		ev.nextDB = (ev.nextDB + 1) % ks.ndb
		db := ev.nextDB
		n := &ks.mem.nonEmpty[db]
		if volatile && n.expires.Load() == 0 || !volatile && n.keys.Load() == 0 {
			continue
		}
		for probe := 0; probe < 4*StripeCount; probe++ {
			s := rand.IntN(StripeCount)
			if probe >= 2*StripeCount {
				s = probe & (StripeCount - 1) // then sweep, to be sure
			}
			if ks.evictRandomIn(s, db, volatile) {
				return true, true
			}
		}
	}
	return false, ks.hasCandidates(volatile)
}

func (ks *Keyspace) evictRandomIn(s, db int, volatile bool) bool {
	st := &ks.stripes[s]
	st.mu.Lock()
	defer st.mu.Unlock()
	sh := st.shards[db]
	if sh == nil {
		return false
	}
	var key string
	var ok bool
	if volatile {
		key, _, ok = sh.expires.RandomKey()
	} else {
		key, _, ok = sh.keys.RandomKey()
	}
	return ok && ks.evictLocked(db, sh, key, volatile)
}

// evictKey deletes key from db if it still qualifies (exists; has a TTL for
// volatile policies), locking its stripe.
func (ks *Keyspace) evictKey(db int, key string, volatile bool) bool {
	kb := sbytes(key)
	st := &ks.stripes[ks.StripeOf(kb)]
	st.mu.Lock()
	defer st.mu.Unlock()
	sh := st.shards[db]
	return sh != nil && ks.evictLocked(db, sh, key, volatile)
}

// evictLocked deletes an evicted key as expireKey deletes an expired one:
// memory, WATCH, dirty counter, propagation (emitDeletion) and
// evicted_keys. The stripe is locked.
func (ks *Keyspace) evictLocked(db int, sh *shard, key string, volatile bool) bool {
	o := sh.keys.FindString(key)
	if o == nil || volatile && !o.HasTTL() {
		return false
	}
	kb := sbytes(key)
	ks.beforeWrite(db, kb, o)
	if o.HasTTL() {
		sh.expires.DeleteString(key)
		o.setHasTTL(false)
	}
	if v, ok := sh.keys.DeleteString(key); ok {
		sh.unaccount(v.mem)
		sh.counted(kb, -1)
	}
	ks.settle(db, sh)
	ks.publish(sh.st, true)
	ks.Stats.EvictedKeys.Add(1)
	ks.keyGone(db, kb)
	ks.Event(NotifyEvicted, "evicted", kb, db)
	ks.keyChanged(db, kb, nil)
	ks.dirty.Add(0, 1)
	if ks.Effects.Active() {
		var u effects.Unit
		ks.emitDeletion(&u, db, kb, ks.lazy.eviction.Load())
	}
	return true
}
