// Command corvid-bench is a memtier_benchmark-compatible load generator
// with the seed study's methods as subcommands (matrix, report, sla,
// compare). See docs/benchmarking.md.
package main

import (
	"os"

	"github.com/corvid-kv/corvid/internal/bench"
	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/server"
)

func main() {
	// With no -s/--target, corvid-bench runs against an in-process
	// corvid-server on a free loopback port.
	bench.StartEmbedded = server.StartEmbedded
	// matrix runs Corvid as a child process (this binary with
	// CORVID_BENCH_SERVE set), measured through /proc like its peers.
	bench.ServeChild = server.ServeArgs
	if os.Getenv(peer.ServeEnv) != "" {
		os.Exit(server.ServeArgs(os.Args[1:]))
	}
	os.Exit(bench.Main(os.Args[1:], os.Stdout, os.Stderr))
}
