package ds

import (
	"testing"
	"unsafe"
)

// checkOIndex verifies an oIndex: each table's counts match its slots and
// leave an empty slot; every live slot holds a record of owned (each one
// exactly once, all of them) under the tag of hash(record), and the
// record keeps that hash's low 32 bits; the second table exists only
// while resizing; and no slot of the old table below rehashIdx is live.
func checkOIndex(t *testing.T, x *oIndex, owned map[unsafe.Pointer]bool, hash func(unsafe.Pointer) uint64) {
	t.Helper()
	left := len(owned)
	seen := map[unsafe.Pointer]bool{}
	for ti := range x.tables {
		tb := &x.tables[ti]
		if ti == 1 && x.rehashIdx < 0 {
			if len(tb.slots) != 0 || tb.used != 0 || tb.tombs != 0 {
				t.Fatalf("second table %d slots, %d used while not resizing", len(tb.slots), tb.used)
			}
			continue
		}
		used, tombs, empty := 0, 0, 0
		for i, s := range tb.slots {
			switch s {
			case oSlotEmpty:
				empty++
			case oSlotTomb:
				tombs++
			default:
				used++
				p := oSlotPtr(s)
				if !owned[p] || seen[p] {
					t.Fatalf("table %d slot %d holds a record that is not owned or is indexed twice", ti, i)
				}
				seen[p] = true
				left--
				h := hash(p)
				if s&^oPtrMask != oTag(h) || recHash(p) != uint64(uint32(h)) {
					t.Fatalf("table %d slot %d: tag or stored hash wrong", ti, i)
				}
				if ti == 0 && x.rehashIdx >= 0 && i < x.rehashIdx {
					t.Fatalf("old table slot %d below rehashIdx %d is live", i, x.rehashIdx)
				}
			}
		}
		if used != int(tb.used) || tombs != int(tb.tombs) {
			t.Fatalf("table %d: %d live %d tombstones, counts say %d %d", ti, used, tombs, tb.used, tb.tombs)
		}
		if len(tb.slots) > 0 && empty == 0 {
			t.Fatalf("table %d has no empty slot", ti)
		}
	}
	if left != 0 {
		t.Fatalf("%d owned records missing from the index", left)
	}
}
