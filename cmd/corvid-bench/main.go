// Command corvid-bench is a memtier_benchmark-compatible load generator
// with the seed study's methods as subcommands (matrix, report, sla). See
// docs/benchmarking.md.
package main

import (
	"os"

	"github.com/corvid-kv/corvid/internal/bench"
	"github.com/corvid-kv/corvid/internal/server"
)

func main() {
	// With no -s/--target, corvid-bench runs against an in-process
	// corvid-server on a free loopback port.
	bench.StartEmbedded = server.StartEmbedded
	os.Exit(bench.Main(os.Args[1:], os.Stdout, os.Stderr))
}
