package server

import "testing"

func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live int64
		want int
	}{
		{0, 1500},                // under 4 MB counts as 4 MB
		{1 << 20, 1500},          // (the runtime's minimum goal, 4 MB x pct/100, stays at 60 MB)
		{4 << 20, 1500},          // 4 MB live: collect at 64 MB
		{16 << 20, 300},          // 16 MB live: collect at 64 MB
		{32 << 20, 100},          // half the floor: the default
		{1 << 30, 100},           // large heaps: the default
		{gcHeapFloor/2 - 1, 100}, // rounding keeps the goal at or above the floor
	} {
		got := gcPercentFor(tc.live)
		if got != tc.want {
			t.Errorf("gcPercentFor(%d) = %d, want %d", tc.live, got, tc.want)
		}
		if goal := tc.live * int64(100+got) / 100; tc.live >= runtimeHeapMinimum && goal < gcHeapFloor-(1<<20) {
			t.Errorf("live %d: goal %d below the floor", tc.live, goal)
		}
		// The runtime does not collect below 4 MB x GOGC/100: that must
		// not lift the floor.
		if minimum := int64(runtimeHeapMinimum) * int64(got) / 100; minimum > gcHeapFloor {
			t.Errorf("live %d: pct %d puts the runtime's minimum heap at %d, above the floor", tc.live, got, minimum)
		}
	}
}
