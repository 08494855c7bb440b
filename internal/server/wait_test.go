package server

import (
	"testing"
	"time"
)

// hangTimeout bounds every wait in this package's tests for something the
// server does on its own time (a client to block, a connection to be
// noticed closed, input to be read). Only a hang reaches it: the machines
// that run these tests are small and noisy, and no test may depend on how
// fast they are.
const hangTimeout = 30 * time.Second

// waitFor polls cond until it holds, failing the test if it still does not
// after hangTimeout. It must run on the test's goroutine.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(hangTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting after %v: %s", hangTimeout, what)
		}
		time.Sleep(time.Millisecond)
	}
}

// inputRead waits until the server has read at least n bytes from its
// clients in total (total_net_input_bytes): after base, a test that sends
// a request of n-base bytes and nothing else knows the server has it.
func inputRead(t testing.TB, s *Server, n int64) {
	t.Helper()
	waitFor(t, "the server to read the request", func() bool { return s.stats.netInput.Load() >= n })
}
