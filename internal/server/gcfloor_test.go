package server

import "testing"

func TestGCPercentFor(t *testing.T) {
	for _, tc := range []struct {
		live int64
		want int
	}{
		{0, 6300},                // under 1 MB counts as 1 MB: goal 64 MB
		{1 << 20, 6300},          // goal = live * (1 + pct/100) = 64 MB
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
		if goal := tc.live * int64(100+got) / 100; tc.live >= 1<<20 && goal < gcHeapFloor-(1<<20) {
			t.Errorf("live %d: goal %d below the floor", tc.live, goal)
		}
	}
}
