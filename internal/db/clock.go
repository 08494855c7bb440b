package db

import (
	"sync/atomic"
	"time"
)

// The LRU clock has Valkey's layout: 24 bits of seconds. Under an LFU
// policy the same 24 bits hold 16 bits of minutes and an 8-bit logarithmic
// access counter. The policy switch is global (maxmemory-policy).
const (
	lruClockMax = 1<<24 - 1
	lfuInitVal  = 5
)

var lfuMode atomic.Bool

// SetLFU switches access clocks between LRU and LFU layout.
func SetLFU(on bool) { lfuMode.Store(on) }

// LRUClock returns the current 24-bit seconds clock.
func LRUClock() uint32 { return lruClockAt(time.Now().UnixMilli()) }

// lruClockAt is the LRU clock at nowMs. Commands pass their cached clock
// (Ctx.Now) so an access costs no extra time.Now call.
func lruClockAt(nowMs int64) uint32 { return uint32(nowMs/1000) & lruClockMax }

func lfuMinutesAt(nowMs int64) uint32 { return uint32(nowMs/60000) & 0xffff }

// newClock is the clock value for a freshly created key.
func (ks *Keyspace) newClock(nowMs int64) uint32 {
	if lfuMode.Load() {
		return lfuMinutesAt(nowMs)<<8 | lfuInitVal
	}
	return lruClockAt(nowMs)
}

// LFU tuning (lfu-log-factor, lfu-decay-time), set from config.
var (
	LFULogFactor atomic.Int64
	LFUDecayTime atomic.Int64
)

func init() {
	LFULogFactor.Store(10)
	LFUDecayTime.Store(1)
}

// accessClock returns the clock after an access.
func (ks *Keyspace) accessClock(old uint32, nowMs int64) uint32 {
	if !lfuMode.Load() {
		return lruClockAt(nowMs)
	}
	counter := LFUDecrAt(old, nowMs)
	counter = lfuLogIncr(counter)
	return lfuMinutesAt(nowMs)<<8 | counter
}

// LFUDecr applies the decay for minutes elapsed until now and returns the
// counter.
func LFUDecr(clock uint32) uint32 { return LFUDecrAt(clock, time.Now().UnixMilli()) }

// LFUDecrAt is LFUDecr at the given clock (a command's cached Ctx.Now).
func LFUDecrAt(clock uint32, nowMs int64) uint32 {
	ldt := clock >> 8
	counter := clock & 0xff
	now := lfuMinutesAt(nowMs)
	var elapsed uint32
	if now >= ldt {
		elapsed = now - ldt
	} else {
		elapsed = 65535 - ldt + now
	}
	decay := LFUDecayTime.Load()
	if decay > 0 {
		periods := elapsed / uint32(decay)
		if periods > counter {
			return 0
		}
		return counter - periods
	}
	return counter
}

func lfuLogIncr(counter uint32) uint32 {
	if counter == 255 {
		return 255
	}
	r := fastRandFloat()
	base := float64(counter) - lfuInitVal
	if base < 0 {
		base = 0
	}
	p := 1.0 / (base*float64(LFULogFactor.Load()) + 1)
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
