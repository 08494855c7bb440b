// Package counter provides Sharded, an int64 statistic that many cores
// increment on every command without sharing a cache line.
//
// A plain atomic counter updated by event loops on different cores moves
// its cache line between them on every increment; a contended atomic add
// costs tens of nanoseconds, about as much as a whole GET's data path. Each
// writer instead adds to the shard it names (a client uses the shard of its
// ID, so one connection always hits the same line) and readers, which are
// rare (INFO, the ops/sec sampler), sum the shards.
//
// Invariants: every method is safe for concurrent use; Load is not a
// snapshot across shards (each shard is read atomically, the sum is not),
// which statistics tolerate.
package counter

import "sync/atomic"

// Shards is the number of shards; shard arguments are taken modulo it.
const Shards = 8

// Sharded is a sharded int64 counter. The zero value is zero.
type Sharded struct {
	s [Shards]struct {
		v atomic.Int64
		_ [56]byte // pad to a 64-byte cache line
	}
}

// Add adds n to the given shard.
func (c *Sharded) Add(shard int, n int64) { c.s[shard&(Shards-1)].v.Add(n) }

// Load returns the sum of the shards.
func (c *Sharded) Load() int64 {
	var t int64
	for i := range c.s {
		t += c.s[i].v.Load()
	}
	return t
}

// Store sets the counter to v (CONFIG RESETSTAT stores 0).
func (c *Sharded) Store(v int64) {
	for i := range c.s {
		c.s[i].v.Store(0)
	}
	c.s[0].v.Store(v)
}
