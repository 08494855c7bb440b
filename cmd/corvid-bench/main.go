// Command corvid-bench is a memtier_benchmark-compatible load generator
// with the seed study's methods as subcommands (matrix, report, sla,
// compare). See docs/benchmarking.md.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/corvid-kv/corvid/internal/bench"
	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/server"
)

func main() {
	// With no -s/--target, corvid-bench runs against an in-process
	// corvid-server on a free loopback port.
	bench.StartEmbedded = server.StartEmbedded
	// matrix runs Corvid as a child process (this binary with
	// CORVID_BENCH_SERVE set), measured through /proc like its peers.
	bench.ServeChild = serveCorvid
	if os.Getenv(peer.ServeEnv) != "" {
		os.Exit(serveCorvid(os.Args[1:]))
	}
	os.Exit(bench.Main(os.Args[1:], os.Stdout, os.Stderr))
}

// serveCorvid runs a corvid-server with args as its options, as
// cmd/corvid-server does without a configuration file.
func serveCorvid(args []string) int {
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
