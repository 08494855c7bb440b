package repl

import "testing"

func TestNewHistory(t *testing.T) {
	h := NewHistory()
	if len(h.ID) != 40 || h.ID == ZeroID || h.ID2 != ZeroID || h.Off2 != -1 {
		t.Fatalf("%+v", h)
	}
	if NewHistory().ID == h.ID {
		t.Fatal("two histories with one ID")
	}
}

func TestHistoryContinues(t *testing.T) {
	const a, b, c = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb", "cccccccccccccccccccccccccccccccccccccccc"
	fresh := History{ID: a, ID2: ZeroID, Off2: -1}
	promoted := History{ID: a, ID2: b, Off2: 1001} // b's history up to offset 1000
	for _, tc := range []struct {
		name string
		h    History
		id   string
		off  int64
		want bool
	}{
		{"own ID", fresh, a, 1, true},
		{"own ID, any offset (the backlog decides)", fresh, a, 1 << 40, true},
		{"another ID", fresh, b, 1, false},
		{"the ? of a first sync", fresh, "?", -1, false},
		{"the zero ID", fresh, ZeroID, 5, false},
		{"the zero ID at -1", fresh, ZeroID, -1, true}, // as Valkey: replid2 is all zeros, second_replid_offset -1
		{"own ID after a shift", promoted, a, 5000, true},
		{"ID2 before the switch", promoted, b, 1, true},
		{"ID2 at its last byte", promoted, b, 1000, true},
		{"ID2 at the switch", promoted, b, 1001, true},
		{"ID2 past the switch", promoted, b, 1002, false},
		{"neither", promoted, c, 10, false},
		{"IDs are case-sensitive", promoted, "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", 10, false},
	} {
		if got := tc.h.Continues(tc.id, tc.off); got != tc.want {
			t.Errorf("%s: Continues(%q, %d) = %v", tc.name, tc.id, tc.off, got)
		}
	}
}

func TestHistoryShift(t *testing.T) {
	h := NewHistory()
	old := h.ID
	h.Shift(1000)
	if h.ID2 != old || h.Off2 != 1001 || h.ID == old || len(h.ID) != 40 {
		t.Fatalf("after Shift(1000) of %s: %+v", old, h)
	}
	// A former sibling at offset 1000 asks for byte 1001: a partial resync.
	if !h.Continues(old, 1001) || h.Continues(old, 1002) || !h.Continues(h.ID, 1001) {
		t.Fatal("Continues after Shift")
	}
	// A second shift forgets the first ID.
	mid := h.ID
	h.Shift(5000)
	if h.ID2 != mid || h.Off2 != 5001 || h.Continues(old, 10) {
		t.Fatalf("after a second Shift: %+v", h)
	}
	h.Clear()
	if h.ID == mid || h.ID2 != ZeroID || h.Off2 != -1 || h.Continues(mid, 10) {
		t.Fatalf("after Clear: %+v", h)
	}
}
