package db

import (
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/keyslot"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// BenchmarkSlotKeys: COUNTKEYSINSLOT, GETKEYSINSLOT <slot> 10 and
// SLOT-STATS' counts on 200k keys, in slot mode (cluster mode's layout)
// and in a plain keyspace, where the same calls walk every stripe.
func BenchmarkSlotKeys(b *testing.B) {
	const n = 200_000
	slot := keyslot.Of([]byte("key:0"))
	for _, mode := range []struct {
		name string
		on   bool
	}{{"plain", false}, {"slot", true}} {
		ks := New(1)
		ks.SetSlotStriping(mode.on)
		for i := range n {
			e := rdb.NewEntry(0, []byte("key:"+strconv.Itoa(i)), rdb.KindString)
			e.String = []byte("v")
			if _, err := ks.LoadEntry(e, 0); err != nil {
				b.Fatal(err)
			}
		}
		b.Run("COUNTKEYSINSLOT/"+mode.name, func(b *testing.B) {
			for b.Loop() {
				if ks.CountKeysInSlot(slot, false) == 0 {
					b.Fatal("no keys")
				}
			}
		})
		b.Run("GETKEYSINSLOT10/"+mode.name, func(b *testing.B) {
			for b.Loop() {
				if len(ks.KeysInSlot(slot, 10, false)) == 0 {
					b.Fatal("no keys")
				}
			}
		})
		b.Run("SlotKeyCounts/"+mode.name, func(b *testing.B) {
			for b.Loop() {
				ks.SlotKeyCounts(false)
			}
		})
	}
}

// BenchmarkCreateDelete: a key created and deleted (the per-slot count's
// two updates), plain and in slot mode.
func BenchmarkCreateDelete(b *testing.B) {
	for _, mode := range []struct {
		name string
		on   bool
	}{{"plain", false}, {"slot", true}} {
		b.Run(mode.name, func(b *testing.B) {
			ks := New(1)
			ks.SetSlotStriping(mode.on)
			c := &Ctx{KS: ks, Now: testNow}
			key, val := []byte("key:000001"), []byte("v")
			st := c.PinKey(key)
			b.ReportAllocs()
			for b.Loop() {
				ks.LockStripe(st)
				c.SetString(key, val, false)
				c.Delete(key)
				ks.UnlockStripe(st)
			}
		})
	}
}
