package tsc

import (
	"testing"
	"time"
)

// TestNanosTracksMonotonicClock: a tick duration converts to the same
// nanoseconds the runtime's monotonic clock measured over the same span,
// within 1% plus the reads' spacing. Each tick read is bracketed by two
// monotonic ones, so the spacing is measured, not assumed: a thread
// preempted between reads widens the bracket instead of failing the test.
func TestNanosTracksMonotonicClock(t *testing.T) {
	t.Logf("TSC in use: %v, %.4f ns per tick", UsesTSC(), nsPerTick)
	for _, d := range []time.Duration{time.Millisecond, 20 * time.Millisecond} {
		n0, k0, n0b := nanotime(), Now(), nanotime()
		time.Sleep(d) // the span measured
		n1, k1, n1b := nanotime(), Now(), nanotime()
		got := Nanos(k1 - k0)
		lo, hi := n1-n0b, n1b-n0 // the tick span lies within [lo, hi]
		if got < lo-lo/100 || got > hi+hi/100 {
			t.Errorf("slept %v: Nanos = %d ns, monotonic clock between %d and %d ns", d, got, lo, hi)
		}
	}
}

func TestNanosNonPositive(t *testing.T) {
	for _, d := range []int64{0, -1, -1 << 40} {
		if got := Nanos(d); got != 0 {
			t.Errorf("Nanos(%d) = %d, want 0", d, got)
		}
	}
}

func TestStableFlags(t *testing.T) {
	tests := []struct {
		name, cpuinfo string
		want          bool
	}{
		{"both", "processor\t: 0\nflags\t\t: fpu tsc constant_tsc rep_good nonstop_tsc cpuid\nbugs\t: x\n", true},
		{"constant only", "flags\t\t: fpu tsc constant_tsc\n", false},
		{"nonstop only", "flags\t\t: tsc nonstop_tsc\n", false},
		{"prefix is not a flag", "flags\t\t: constant_tsc_x nonstop_tsc\n", false},
		{"first flags line decides", "flags\t: tsc\nflags\t: constant_tsc nonstop_tsc\n", false},
		{"vmx flags line ignored", "vmx flags\t: constant_tsc nonstop_tsc\nflags\t: tsc\n", false},
		{"no flags", "processor\t: 0\n", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		if got := stableFlags([]byte(tt.cpuinfo)); got != tt.want {
			t.Errorf("%s: stableFlags = %v, want %v", tt.name, got, tt.want)
		}
	}
}

var sink int64

func BenchmarkNow(b *testing.B) {
	for b.Loop() {
		sink += Now()
	}
}

func BenchmarkNanotime(b *testing.B) {
	for b.Loop() {
		sink += nanotime()
	}
}
