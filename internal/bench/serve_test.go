package bench

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/server"
)

// TestMain lets the test binary serve as Corvid's child process in the
// side-by-side tests, as cmd/corvid-bench does (peer.ServeEnv).
func TestMain(m *testing.M) {
	if os.Getenv(peer.ServeEnv) != "" {
		os.Exit(serveForTest(os.Args[1:]))
	}
	os.Exit(m.Run())
}

// serveForTest is cmd/corvid-bench's serveCorvid.
func serveForTest(args []string) int {
	signals := server.NotifySignals()
	cfg, err := config.LoadWith(config.LoadOptions{Args: args, CommandExists: server.CommandExists})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if err := server.Run(context.Background(), cfg, signals); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
