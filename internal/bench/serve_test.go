package bench

import (
	"os"
	"testing"

	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/server"
)

// TestMain lets the test binary serve as Corvid's child process in the
// side-by-side tests, as cmd/corvid-bench does (peer.ServeEnv).
func TestMain(m *testing.M) {
	if os.Getenv(peer.ServeEnv) != "" {
		os.Exit(server.ServeArgs(os.Args[1:]))
	}
	os.Exit(m.Run())
}
