package db

import (
	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/keyslot"
)

// Keys by hash slot, for cluster mode (internal/server/cluster_keys.go).
//
// In slot mode (SetSlotStriping, turned on by the server when
// cluster-enabled is yes, before anything is loaded) a key's stripe is
// chosen by its hash slot instead of its hash: slot s lives in stripe
// SlotStripe(s) = s mod StripeCount, so each stripe holds a fixed group
// of SlotsPerStripe (64) slots, and the contiguous slot ranges a node
// owns still spread over every stripe. Every shard then counts its keys
// per slot (shard.slots), exactly: every insertion into and deletion from
// a shard's keys dict is followed by shard.counted, and whole shards are
// dropped (FLUSHDB) or swapped (SWAPDB) with their counts.
// The counts include keys that have expired but are not collected yet,
// as Valkey's per-slot dict sizes do.
//
// So COUNTKEYSINSLOT is one stripe lock and a load, GETKEYSINSLOT walks
// one stripe (1/256 of the keys) and stops as soon as it has what the
// count says there is, and an empty slot costs nothing. Outside slot
// mode the same calls walk every stripe.

// SlotsPerStripe is the number of hash slots one stripe holds in slot
// mode.
const SlotsPerStripe = keyslot.Slots / StripeCount

// SlotStripe returns the stripe holding slot's keys in slot mode.
func SlotStripe(slot int) int { return slot & (StripeCount - 1) }

// slotIndex is slot's index in its stripe's shard.slots.
func slotIndex(slot int) int { return slot / StripeCount }

// SetSlotStriping turns slot mode on or off. It must be called before
// any key is stored and before the keyspace is shared with another
// goroutine (the server calls it while it is being built); it panics if
// a key was stored already.
func (ks *Keyspace) SetSlotStriping(on bool) {
	for i := range ks.stripes {
		for _, sh := range ks.stripes[i].shards {
			if sh != nil {
				panic("db: SetSlotStriping on a keyspace that has stored keys")
			}
		}
	}
	ks.slotStripes = on
}

// SlotStriping reports whether the keyspace is in slot mode.
func (ks *Keyspace) SlotStriping() bool { return ks.slotStripes }

// SetClusterMode makes MOVE and SWAPDB answer Valkey's cluster-mode
// errors. Like SetSlotStriping, it is called while the server is built.
func (ks *Keyspace) SetClusterMode(on bool) { ks.clusterMode = on }

// counted records that key was inserted into (n = 1) or deleted from
// (n = -1) the shard's keys dict: every insertion of a new key and every
// deletion is followed by it (Create, SetString, deleteDB, expireKey,
// evictLocked, loadEntryIn). Outside slot mode it is one nil check; it
// stays inlinable by keeping the count out of line. The shard's stripe is
// locked.
func (sh *shard) counted(key []byte, n int32) {
	if sh.slots != nil {
		sh.countSlot(key, n)
	}
}

//go:noinline
func (sh *shard) countSlot(key []byte, n int32) {
	sh.slots[slotIndex(keyslot.Of(key))] += n
}

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
	h := ds.Hash(key)
	o := sh.keys.PeekHashed(h, key)
	return o != nil && !sh.expiredAt(h, key, o, now)
}

// CountKeysInSlot returns the number of keys of slot in database 0,
// expired ones not yet collected included (Valkey's countKeysInSlot).
// held says the caller holds every stripe.
func (ks *Keyspace) CountKeysInSlot(slot int, held bool) int {
	if !ks.slotStripes {
		n := 0
		ks.walkSlots(held, func(s int) bool { return s == slot }, func(string) bool { n++; return true })
		return n
	}
	i := SlotStripe(slot)
	ks.lockStripe(i, held)
	defer ks.unlockStripe(i, held)
	return ks.slotCount(i, slot)
}

// slotCount is the count of slot, whose stripe i is locked.
func (ks *Keyspace) slotCount(i, slot int) int {
	if sh := ks.stripes[i].shards[0]; sh != nil {
		return int(sh.slots[slotIndex(slot)])
	}
	return 0
}

// KeysInSlot returns up to max keys of slot in database 0, as
// CountKeysInSlot counts them (GETKEYSINSLOT), in no particular order.
// held says the caller holds every stripe.
func (ks *Keyspace) KeysInSlot(slot, max int, held bool) []string {
	if max <= 0 {
		return nil
	}
	var keys []string
	if !ks.slotStripes {
		ks.walkSlots(held, func(s int) bool { return s == slot }, func(k string) bool {
			keys = append(keys, k)
			return len(keys) < max
		})
		return keys
	}
	i := SlotStripe(slot)
	ks.lockStripe(i, held)
	defer ks.unlockStripe(i, held)
	n := min(max, ks.slotCount(i, slot))
	if n == 0 {
		return nil
	}
	keys = make([]string, 0, n)
	ks.stripes[i].shards[0].keys.Range(func(k string, _ *Object) bool {
		if keyslot.Of(sbytes(k)) == slot {
			keys = append(keys, k)
		}
		return len(keys) < n
	})
	return keys
}

// SlotKeyCounts returns the number of keys of every slot in database 0,
// indexed by slot, locking one stripe at a time unless held (then the
// caller holds every stripe).
func (ks *Keyspace) SlotKeyCounts(held bool) []int {
	counts := make([]int, keyslot.Slots)
	if !ks.slotStripes {
		ks.walkSlots(held, nil, func(k string) bool {
			counts[keyslot.Of(sbytes(k))]++
			return true
		})
		return counts
	}
	for i := range ks.stripes {
		ks.lockStripe(i, held)
		if sh := ks.stripes[i].shards[0]; sh != nil {
			for j, n := range sh.slots {
				counts[j*StripeCount+i] = int(n)
			}
		}
		ks.unlockStripe(i, held)
	}
	return counts
}

// KeysInSlots returns every key of database 0 in one of slots, locking
// one stripe at a time: in slot mode only the stripes of slots that have
// keys.
func (ks *Keyspace) KeysInSlots(slots []int) []string {
	want := make([]bool, keyslot.Slots)
	for _, s := range slots {
		want[s] = true
	}
	var keys []string
	collect := func(k string) bool { keys = append(keys, k); return true }
	if !ks.slotStripes {
		ks.walkSlots(false, func(s int) bool { return want[s] }, collect)
		return keys
	}
	var stripes [StripeCount]bool
	for _, s := range slots {
		stripes[SlotStripe(s)] = true
	}
	for i, ok := range stripes {
		if !ok {
			continue
		}
		ks.LockStripe(i)
		if sh := ks.stripes[i].shards[0]; sh != nil {
			found := 0 // keys of the wanted slots still to find here
			for j, n := range sh.slots {
				if want[j*StripeCount+i] {
					found += int(n)
				}
			}
			if found > 0 {
				sh.keys.Range(func(k string, _ *Object) bool {
					if want[keyslot.Of(sbytes(k))] {
						keys = append(keys, k)
						found--
					}
					return found > 0
				})
			}
		}
		ks.UnlockStripe(i)
	}
	return keys
}

// walkSlots calls fn for each key of database 0 whose slot want accepts
// (nil: every key), expired or not, walking every stripe until fn returns
// false: what the slot calls do outside slot mode.
func (ks *Keyspace) walkSlots(held bool, want func(slot int) bool, fn func(key string) bool) {
	more := true
	for i := 0; i < StripeCount && more; i++ {
		ks.lockStripe(i, held)
		if sh := ks.stripes[i].shards[0]; sh != nil {
			sh.keys.Range(func(k string, _ *Object) bool {
				if want == nil || want(keyslot.Of(sbytes(k))) {
					more = fn(k)
				}
				return more
			})
		}
		ks.unlockStripe(i, held)
	}
}
