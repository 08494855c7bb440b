package server

import (
	"strconv"
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
		{"grows, then drops 90%", []step{
			{0, 100 * mb, 10 * sec, 0}, {0, 1000 * mb, 11 * sec, 0}, {0, 100 * mb, 12 * sec, 900 * mb}}},
		{"a drop under a fifth of the mark", []step{
			{0, 1000 * mb, 10 * sec, 0}, {0, 810 * mb, 11 * sec, 0}, {0, 799 * mb, 12 * sec, 201 * mb}}},
		{"a drop under the minimum", []step{
			{0, 40 * mb, 10 * sec, 0}, {0, 10 * mb, 11 * sec, 0}}},
		{"too soon after the last release", []step{
			{5 * sec, 1000 * mb, 5 * sec, 0}, // seen follows last
			{5 * sec, 1000 * mb, 6 * sec, 0},
			{5 * sec, 100 * mb, 6*sec + sec/2, 0},
			{5 * sec, 100 * mb, 7*sec + 1, 900 * mb}}},
		{"a flush's release restarts the mark", []step{
			{0, 1000 * mb, 10 * sec, 0}, {20 * sec, 100 * mb, 21 * sec, 0}, {20 * sec, 100 * mb, 30 * sec, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var st shrinkState
			for i, s := range tc.steps {
				if got := st.due(s.last, s.used, s.now); got != s.want {
					t.Fatalf("step %d (used %d MB): drop %d MB, want %d MB", i, s.used/mb, got/mb, s.want/mb)
				}
				if s.want != 0 { // as noteShrink does after a release
					st.seen, st.mark = s.now, s.used
				}
			}
		})
	}
}

// TestShrinkReleasesMemory: deleting most of the keys (no flush) makes
// the introspection tick ask for a release.
func TestShrinkReleasesMemory(t *testing.T) {
	s, addr := startIntroServer(t, "--enable-debug-command", "yes")
	cv := testutil.Dial(t, addr)
	e := s.ext()
	const n = 60000 // ~70 MB accounted
	if got := cv.Do("DEBUG", "POPULATE", strconv.Itoa(n), "key", "1024"); got != "+OK" {
		t.Fatalf("DEBUG POPULATE: %s", got)
	}
	// The tick must see the dataset before the deletions (used_memory
	// also counts process-wide overhead, which moves: most of it).
	full := s.usedMemory()
	waitFor(t, "the tick to see the dataset", func() bool { return e.shrinkMark.Load() >= full*9/10 })
	before := e.releases.Load()
	for i := 0; i < n*9/10; i += 500 {
		args := []string{"DEL"}
		for j := i; j < min(i+500, n*9/10); j++ {
			args = append(args, "key:"+strconv.Itoa(j))
		}
		if got := cv.Do(args...); got != ":"+strconv.Itoa(len(args)-1) {
			t.Fatalf("DEL: %s", got)
		}
	}
	if used := s.usedMemory(); used > full/5 {
		t.Fatalf("used_memory %d after deleting 90%% of %d", used, full)
	}
	waitFor(t, "a release after the deletions", func() bool { return e.releases.Load() > before })
}
