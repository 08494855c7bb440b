package server

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

func TestShrinkDue(t *testing.T) {
	const mb = 1 << 20
	sec := int64(time.Second)
	type step struct {
		last, used, now int64
		want            int64 // the drop reported, 0 for none
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"grows, then drops 90%: a release once it settles", []step{
			{0, 100 * mb, 10 * sec, 0}, {0, 1000 * mb, 11 * sec, 0},
			{0, 100 * mb, 12 * sec, 0}, // still falling, for all we know
			{0, 100 * mb, 12*sec + sec/10, 0},
			{0, 100 * mb, 12*sec + 2*sec/10, 900 * mb}}},
		{"a long shrink: a release per gap while it goes on", []step{
			{0, 1000 * mb, 10 * sec, 0},
			{0, 900 * mb, 11 * sec, 0},
			{0, 790 * mb, 11*sec + 9*sec/10, 0},
			{0, 780 * mb, 12 * sec, 220 * mb}, // 2 s since it left the mark
			{12 * sec, 700 * mb, 13 * sec, 0},
			{12 * sec, 640 * mb, 14 * sec, 0}, // 2 s since the release, not a fifth
			{12 * sec, 600 * mb, 14*sec + sec/10, 180 * mb}}},
		{"a drop under a fifth of the mark", []step{
			{0, 1000 * mb, 10 * sec, 0}, {0, 810 * mb, 11 * sec, 0}, {0, 810 * mb, 12 * sec, 0},
			{0, 799 * mb, 12 * sec, 201 * mb}}}, // 2 s since it left the mark
		{"a drop under the minimum", []step{
			{0, 40 * mb, 10 * sec, 0}, {0, 10 * mb, 11 * sec, 0}, {0, 10 * mb, 20 * sec, 0}}},
		{"too soon after the last release", []step{
			{5 * sec, 1000 * mb, 5 * sec, 0}, // seen follows last
			{5 * sec, 1000 * mb, 6 * sec, 0},
			{5 * sec, 100 * mb, 6*sec + sec/2, 0},
			{5 * sec, 100 * mb, 7*sec + 1, 900 * mb}}},
		{"a flush's release restarts the mark", []step{
			{0, 1000 * mb, 10 * sec, 0}, {20 * sec, 100 * mb, 21 * sec, 0}, {20 * sec, 100 * mb, 30 * sec, 0}}},
		// After a release at 11 s, last is 11 s.
		{"a tail once the shrink settles", []step{
			{0, 1000 * mb, 10 * sec, 0},
			{0, 500 * mb, 11 * sec, 0},
			{0, 500 * mb, 11*sec + 2*sec/10, 500 * mb}, // the drop release
			{11*sec + 2*sec/10, 450 * mb, 12 * sec, 0},
			{11*sec + 2*sec/10, 420 * mb, 13*sec + 2*sec/10, 0}, // 80 MB under the mark, still going down
			{11*sec + 2*sec/10, 420 * mb, 13*sec + 7*sec/10, 0},
			{11*sec + 2*sec/10, 420 * mb, 14*sec + 2*sec/10, 80 * mb}, // a second without a new low: the tail
			{14*sec + 2*sec/10, 400 * mb, 17 * sec, 0},                // no tail after a tail
			{14*sec + 2*sec/10, 400 * mb, 30 * sec, 0}}},
		{"a tail waits for the gap", []step{
			{0, 1000 * mb, 10 * sec, 0},
			{0, 500 * mb, 11 * sec, 0},
			{0, 500 * mb, 11*sec + 2*sec/10, 500 * mb},
			{11*sec + 2*sec/10, 480 * mb, 11*sec + 3*sec/10, 0},
			{11*sec + 2*sec/10, 480 * mb, 12*sec + 7*sec/10, 0}, // settled, 20 MB down, but 1.5 s after
			{11*sec + 2*sec/10, 480 * mb, 13*sec + 2*sec/10, 20 * mb}}},
		{"no tail under the minimum or a 32nd", []step{
			{0, 1000 * mb, 10 * sec, 0},
			{0, 500 * mb, 11 * sec, 0},
			{0, 500 * mb, 11*sec + 2*sec/10, 500 * mb},
			{11*sec + 2*sec/10, 490 * mb, 12 * sec, 0}, // 10 MB: under 490/32
			{11*sec + 2*sec/10, 490 * mb, 20 * sec, 0}}},
		{"a flush arms a tail", []step{
			{0, 1000 * mb, 10 * sec, 0},
			{20 * sec, 100 * mb, 20 * sec, 0},
			{20 * sec, 90 * mb, 21 * sec, 0},
			{20 * sec, 90 * mb, 22 * sec, 10 * mb}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st shrinkState
			for i, s := range tc.steps {
				if got := st.due(s.last, s.used, s.now); got != s.want {
					t.Fatalf("step %d (used %d MB): drop %d MB, want %d MB", i, s.used/mb, got/mb, s.want/mb)
				}
				if s.want != 0 { // as noteShrink does after a release
					st.restart(s.now, s.used)
				}
			}
		})
	}
}

// TestShrinkSteadyState: a workload whose used_memory moves up and down
// by less than a fifth (a cache at steady state, eviction at a steady
// maxmemory) never asks for a release, whatever its duration.
func TestShrinkSteadyState(t *testing.T) {
	const mb = 1 << 20
	var st shrinkState
	now := int64(time.Hour)
	for i := range 100000 { // 10,000 s of ticks
		used := int64(1000*mb) - int64(i%37)*5*mb // sawtooth from 1000 MB to 820 MB
		if got := st.due(0, used, now); got != 0 {
			t.Fatalf("tick %d (used %d MB): a release of %d MB", i, used/mb, got/mb)
		}
		now += int64(100 * time.Millisecond)
	}
}

// TestShrinkSettlesAtMaxmemory: after an eviction, used_memory at the
// limit dips by a few KB on every write (a key evicted, a client's reply
// buffer gone); those dips do not count as the shrink going on, so the
// compaction's settle comes a second after the last real drop. A drop of
// more than the slack does count.
func TestShrinkSettlesAtMaxmemory(t *testing.T) {
	const mb = 1 << 20
	sec := int64(time.Second)
	var st shrinkState
	st.due(0, 200*mb, 10*sec)
	st.due(0, 20*mb, 11*sec) // the eviction, down to the limit
	now := 11 * sec
	for i := range 30 { // 3 s of ticks, each a little lower than the last
		now += sec / 10
		st.due(0, 20*mb-int64(i)*700, now)
	}
	if !st.settled(now) {
		t.Fatalf("not settled 3 s after the drop, with dips of 700 bytes (low %d at %d s)", st.low, st.lowAt/sec)
	}

	now += sec / 10
	st.due(0, 18*mb, now) // 2 MB more went: still shrinking
	if st.settled(now + sec/2) {
		t.Fatal("settled half a second after a 2 MB drop")
	}
	if !st.settled(now + sec) {
		t.Fatal("not settled a second after the last drop")
	}
	// After a release the marks restart at used_memory, which then
	// hovers a few bytes over and under it: a new mark is no fall.
	var hv shrinkState
	release := 30 * sec
	hv.restart(release, 20*mb)
	for i := range 30 {
		now = release + int64(i+1)*sec/10
		hv.due(release, 20*mb+int64(i%3-1)*300, now)
	}
	if !hv.settled(now) {
		t.Fatalf("not settled 3 s after a release with used_memory hovering at the mark (lowAt %d ms ago)", (now-hv.lowAt)/1e6)
	}
}

// shrinkServer starts a server, fills it with n keys of 1 KiB (~1.1 KiB
// each accounted) and waits until the introspection tick has seen them.
func shrinkServer(t *testing.T, n int) (*Server, *testutil.Raw, int64) {
	t.Helper()
	s, addr := startIntroServer(t, "--enable-debug-command", "yes")
	cv := testutil.Dial(t, addr)
	if got := cv.Do("DEBUG", "POPULATE", strconv.Itoa(n), "key", "1024"); got != "+OK" {
		t.Fatalf("DEBUG POPULATE: %s", got)
	}
	// The tick must see the dataset before the deletions (used_memory
	// also counts process-wide overhead, which moves: most of it).
	full := s.usedMemory()
	waitFor(t, "the tick to see the dataset", func() bool { return s.ext().shrinkMark.Load() >= full*9/10 })
	return s, cv, full
}

// delKeys deletes key:from .. key:to-1, 500 a command.
func delKeys(t *testing.T, cv *testutil.Raw, from, to int) {
	t.Helper()
	for i := from; i < to; i += 500 {
		args := []string{"DEL"}
		for j := i; j < min(i+500, to); j++ {
			args = append(args, "key:"+strconv.Itoa(j))
		}
		if got := cv.Do(args...); got != ":"+strconv.Itoa(len(args)-1) {
			t.Fatalf("DEL: %s", got)
		}
	}
}

// TestShrinkReleasesMemory: deleting most of the keys (no flush) makes
// the introspection tick ask for a release; deleting more once that is
// done makes it ask for the tail.
func TestShrinkReleasesMemory(t *testing.T) {
	const n = 60000 // ~70 MB accounted
	s, cv, full := shrinkServer(t, n)
	e := s.ext()
	before := e.releases.Load()
	delKeys(t, cv, 0, n*8/10)
	if used := s.usedMemory(); used > full*3/10 {
		t.Fatalf("used_memory %d after deleting 80%% of %d", used, full)
	}
	waitFor(t, "a release after the deletions", func() bool { return e.releases.Load() > before })
	// 6,000 keys more (~7 MB, under the 32 MB of a drop release), within
	// the 2 s before any tail may come: the drop release's tail collects
	// them once used_memory has settled, and the mark comes down to
	// used_memory.
	after := e.releases.Load()
	delKeys(t, cv, n*8/10, n*9/10)
	waitFor(t, "the tail release", func() bool { return e.releases.Load() > after })
	waitFor(t, "the mark to follow", func() bool { return e.shrinkMark.Load()-s.usedMemory() < shrinkTailMin })
	if got := e.releases.Load() - after; got != 1 {
		t.Errorf("%d releases after the late deletions, want the tail alone", got)
	}
}

// TestShrinkReleasesAfterExpiry: keys removed by active expiry.
func TestShrinkReleasesAfterExpiry(t *testing.T) {
	const n = 60000
	s, cv, full := shrinkServer(t, n)
	e := s.ext()
	before := e.releases.Load()
	// PEXPIRE 1 on 90% of the keys in one script call; active expiry
	// deletes them.
	script := "for i = 0, tonumber(ARGV[1]) - 1 do server.call('PEXPIRE', 'key:' .. i, 1) end return 1"
	if got := cv.Do("EVAL", script, "0", strconv.Itoa(n*9/10)); got != ":1" {
		t.Fatalf("EVAL: %s", got)
	}
	// The dataset, not used_memory: in a test process the start-up base
	// counted in used_memory includes what earlier tests' servers left
	// on the heap.
	waitFor(t, "active expiry", func() bool { return s.ks.DatasetBytes(false) < full/5 })
	waitFor(t, "a release after expiry", func() bool { return e.releases.Load() > before })
}

// TestShrinkReleasesAfterEviction: keys evicted after CONFIG SET
// maxmemory lowers the limit under used_memory.
func TestShrinkReleasesAfterEviction(t *testing.T) {
	const n = 60000
	s, cv, full := shrinkServer(t, n)
	e := s.ext()
	before := e.releases.Load()
	// A tenth of the dataset above the declared overhead (start-up base
	// and clients), which in a test process includes what earlier tests'
	// servers left on the heap.
	limit := (full-s.ks.Overhead())/10 + s.ks.Overhead()
	for _, args := range [][]string{
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-random"},
		{"CONFIG", "SET", "maxmemory", strconv.FormatInt(limit, 10)},
		{"SET", "trigger", "1"}, // eviction starts with a write
	} {
		if got := cv.Do(args...); got != "+OK" {
			t.Fatalf("%v: %s", args, got)
		}
	}
	t.Cleanup(func() { setGoMemoryLimit(0) }) // the runtime limit is process-wide
	waitFor(t, "eviction down to maxmemory", func() bool { return s.usedMemory() <= limit })
	waitFor(t, "a release after eviction", func() bool { return e.releases.Load() > before })
}

// TestShrinkNoReleaseAtMaxmemory: writes at a steady maxmemory (eviction
// replacing the dataset three times over, for longer than the gap and the
// settling time together) ask for no release.
func TestShrinkNoReleaseAtMaxmemory(t *testing.T) {
	const limit = 24 << 20
	s, addr := startIntroServer(t, "--maxmemory-policy", "allkeys-random")
	t.Cleanup(func() { setGoMemoryLimit(0) })
	cv := testutil.Dial(t, addr)
	if got := cv.Do("CONFIG", "SET", "maxmemory", strconv.Itoa(limit)); got != "+OK" {
		t.Fatalf("CONFIG SET maxmemory: %s", got)
	}
	e := s.ext()
	before := e.releases.Load()
	val := string(make([]byte, 1024))
	key := 0
	set := func(count int) {
		for range count / 100 {
			args := []string{"MSET"}
			for range 100 {
				args = append(args, "k:"+strconv.Itoa(key), val)
				key++
			}
			if got := cv.Do(args...); got != "+OK" {
				t.Fatalf("MSET: %s", got)
			}
		}
	}
	const fill = limit / 1024 // keys in the limit, about
	set(fill)                 // up to the limit
	start := time.Now()
	// The limit is under shrinkReleaseMin, so also check the dips: under
	// a fifth of the mark, as with any limit.
	var dip float64
	for evicted := int64(0); evicted < 3*fill || time.Since(start) < shrinkReleaseGap+shrinkSettle; {
		set(2000)
		evicted = s.ks.Stats.EvictedKeys.Load()
		if mark := e.shrinkMark.Load(); mark > 0 {
			dip = max(dip, float64(mark-s.usedMemory())/float64(mark))
		}
	}
	if got := e.releases.Load() - before; got != 0 {
		t.Fatalf("%d releases at a steady maxmemory (mark %d, used %d)", got, e.shrinkMark.Load(), s.usedMemory())
	}
	if dip >= 0.2 {
		t.Fatalf("used_memory dipped %.0f%% under its mark at a steady maxmemory", dip*100)
	}
	t.Logf("largest dip under the mark: %.1f%%", dip*100)
}

// TestIdleReleaseDue: the idle release comes once the allocations have
// stayed under idleAllocMax for idleFor, when the garbage is at least
// idleReleaseMin and a quarter of the live heap, the gap since the last
// release respected; once per quiet period.
func TestIdleReleaseDue(t *testing.T) {
	const mb = 1 << 20
	sec := int64(time.Second)
	type step struct {
		allocs, garbage, live int64 // MB
		last, now             int64
		want                  bool
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"a load, then quiet: one release 2 s after it", []step{
			{100, 80, 60, 0, 10 * sec, false},
			{300, 80, 60, 0, 11 * sec, false}, // still loading
			{301, 80, 60, 0, 12 * sec, false},
			{302, 80, 60, 0, 12*sec + 9*sec/10, false},
			{302, 80, 60, 0, 13 * sec, true},           // 2 s since allocation stopped
			{302, 80, 60, 13 * sec, 20 * sec, false}}}, // once per quiet period
		{"allocation resumes: a new quiet period", []step{
			{100, 80, 60, 0, 10 * sec, false},
			{100, 80, 60, 0, 12 * sec, true},
			{200, 80, 60, 12 * sec, 13 * sec, false},
			{200, 80, 60, 12 * sec, 15 * sec, true}}},
		{"too little garbage", []step{
			{100, 15, 20, 0, 10 * sec, false}, {100, 15, 20, 0, 20 * sec, false}}},
		{"garbage under a quarter of the live heap", []step{
			{100, 90, 400, 0, 10 * sec, false}, {100, 90, 400, 0, 20 * sec, false}}},
		{"a trickle under idleAllocMax per window is quiet", []step{
			{100, 80, 60, 0, 10 * sec, false},
			{103, 80, 60, 0, 11 * sec, false},
			{103, 80, 60, 0, 12 * sec, true}}},
		{"the gap since another release", []step{
			{100, 80, 60, 0, 10 * sec, false},
			{100, 80, 60, 11 * sec, 12 * sec, false},
			{100, 80, 60, 11 * sec, 13 * sec, true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st idleState
			for i, s := range tc.steps {
				h := heapGarbage{allocs: s.allocs * mb, garbage: s.garbage * mb, live: s.live * mb}
				if got := st.due(h, s.last, s.now); got != s.want {
					t.Fatalf("step %d: due %v, want %v", i, got, s.want)
				}
			}
		})
	}
}

// TestIdleReleaseAfterLoad: values overwritten in a burst leave garbage
// the collector would keep until as much is allocated again; once the
// writes stop, the tick asks for a release and the heap's garbage goes.
func TestIdleReleaseAfterLoad(t *testing.T) {
	s, addr := startIntroServer(t)
	cv := testutil.Dial(t, addr)
	e := s.ext()
	before := e.idleReleases.Load()
	val := strings.Repeat("v", 256<<10)
	for i := range 400 { // 100 MB written, 2.5 MB kept
		if got := cv.Do("SET", "k:"+strconv.Itoa(i%10), val); got != "+OK" {
			t.Fatalf("SET: %s", got)
		}
	}
	waitFor(t, "an idle release", func() bool { return e.idleReleases.Load() > before })
	waitFor(t, "the release to finish", func() bool { return !e.releasing.Load() })
	if h := readHeapGarbage(); h.garbage >= idleReleaseMin {
		t.Errorf("%d MB of garbage and free pages after the idle release (live %d MB)", h.garbage>>20, h.live>>20)
	}
}
