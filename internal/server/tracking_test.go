package server

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestBroadcastWaitsForBatch: a pipeline's broadcast-mode changes reach a
// BCAST client as one message after the whole batch, even when the
// broadcast timer fires between two of the batch's commands (the hooks
// hold the second command until it has; on a loaded machine a scheduler
// stall does the same). Valkey sends them at the end of its event-loop
// iteration.
func TestBroadcastWaitsForBatch(t *testing.T) {
	bothPaths(t, func(t *testing.T, s *Server, addr string) {
		tr := testutil.Dial(t, addr)
		w := testutil.Dial(t, addr)
		if got := tr.Do("HELLO", "3"); !strings.Contains(got, "proto") {
			t.Fatalf("HELLO 3: %s", got)
		}
		if got := tr.Do("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a"); got != "+OK" {
			t.Fatalf("CLIENT TRACKING: %s", got)
		}
		wid := strings.TrimPrefix(w.Do("CLIENT", "ID"), ":")
		var fired atomic.Int32
		fire := func() { fired.Add(1) }
		testHookBcastFire.Store(&fire)
		defer testHookBcastFire.Store(nil)
		var seen int
		hook := func(c *Client) {
			if strconv.FormatInt(c.id, 10) != wid {
				return
			}
			if seen++; seen == 2 { // before the batch's second command
				waitFor(t, "the broadcast timer to fire", func() bool { return fired.Load() > 0 })
			}
		}
		testHookLoopCheck.Store(&hook)
		defer testHookLoopCheck.Store(nil)
		w.WriteRaw(testutil.Command("SET", "a1", "1") + testutil.Command("SET", "a2", "1"))
		for i := range 2 {
			if got := w.Read(); got != "+OK" {
				t.Fatalf("SET %d: %s", i+1, got)
			}
		}
		testHookLoopCheck.Store(nil)
		if got, want := tr.Read(), `>["invalidate", *["a1", "a2"]]`; got != want {
			t.Fatalf("invalidation: %s, want %s", got, want)
		}
	})
}
