package db

import (
	"math/rand/v2"
	"time"
)

// The LRU clock has Valkey's layout: 24 bits of seconds. Under an LFU
// policy the same 24 bits hold 16 bits of minutes and an 8-bit logarithmic
// access counter. Which layout a keyspace's clocks use follows its
// maxmemory-policy (SetEvictionPolicy), as Valkey's follows
// server.maxmemory_policy; the LFU tuning is its Settings.
const (
	lruClockMax = 1<<24 - 1
	lfuInitVal  = 5
)

// lfu reports whether the keyspace's access clocks use the LFU layout.
func (ks *Keyspace) lfu() bool { return EvictionPolicy(ks.ev.policy.Load()).lfu() }

// LRUClock returns the current 24-bit seconds clock.
func LRUClock() uint32 { return lruClockAt(time.Now().UnixMilli()) }

// lruClockAt is the LRU clock at nowMs. Commands pass their cached clock
// (Ctx.Now) so an access costs no extra time.Now call.
func lruClockAt(nowMs int64) uint32 { return uint32(nowMs/1000) & lruClockMax }

func lfuMinutesAt(nowMs int64) uint32 { return uint32(nowMs/60000) & 0xffff }

// newClock is the clock value for a freshly created key.
func (ks *Keyspace) newClock(nowMs int64) uint32 {
	if ks.lfu() {
		return lfuMinutesAt(nowMs)<<8 | lfuInitVal
	}
	return lruClockAt(nowMs)
}

// accessClock returns the clock after an access.
func (ks *Keyspace) accessClock(old uint32, nowMs int64) uint32 {
	if !ks.lfu() {
		return lruClockAt(nowMs)
	}
	counter := ks.lfuDecrAt(old, nowMs)
	counter = ks.lfuLogIncr(counter)
	return lfuMinutesAt(nowMs)<<8 | counter
}

// LFUDecr applies the decay (lfu-decay-time) for the minutes elapsed until
// now and returns the counter.
func (ks *Keyspace) LFUDecr(clock uint32) uint32 { return ks.lfuDecrAt(clock, time.Now().UnixMilli()) }

// lfuDecrAt is LFUDecr at the given clock (a command's cached Ctx.Now).
func (ks *Keyspace) lfuDecrAt(clock uint32, nowMs int64) uint32 {
	ldt := clock >> 8
	counter := clock & 0xff
	now := lfuMinutesAt(nowMs)
	var elapsed uint32
	if now >= ldt {
		elapsed = now - ldt
	} else {
		elapsed = 65535 - ldt + now
	}
	decay := ks.cfg.lfuDecayTime.Load()
	if decay > 0 {
		periods := elapsed / uint32(decay)
		if periods > counter {
			return 0
		}
		return counter - periods
	}
	return counter
}

// lfuLogIncr is LFULogIncr: the counter grows with probability
// 1/((counter-lfuInitVal)*lfu-log-factor+1).
func (ks *Keyspace) lfuLogIncr(counter uint32) uint32 {
	if counter == 255 {
		return 255
	}
	// math/rand/v2's top-level functions use a per-thread ChaCha8
	// source with no lock.
	r := rand.Float64()
	base := float64(counter) - lfuInitVal
	if base < 0 {
		base = 0
	}
	p := 1.0 / (base*float64(ks.cfg.lfuLogFactor.Load()) + 1)
	if r < p {
		counter++
	}
	return counter
}

// IdleSeconds returns OBJECT IDLETIME for an LRU clock.
func IdleSeconds(clock uint32) int64 {
	now := LRUClock()
	if now >= clock {
		return int64(now - clock)
	}
	return int64(lruClockMax - clock + now)
}
