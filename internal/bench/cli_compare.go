package bench

import (
	"fmt"
	"io"

	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/report"
)

const compareUsage = `Usage: corvid-bench compare [options] A B

Prints, for every cell two results share (same scenario id, command and
server), A's and B's ops/sec and B/A, plus each scenario's total and, when
both recorded latency (side-by-side matrix JSON), the p99s and their
ratio. A and B are anything 'corvid-bench report' reads: matrix JSON or
CSV, memtier JSON, redis-benchmark CSV. Keep each run's PREFIX.json to
build a history.

`

// runCompare is the compare subcommand.
func runCompare(args []string, stdout io.Writer) error {
	help := false
	opts := []options.Opt{{Long: "help", Help: "Display this help", Set: func(_ *options.Config, _ string) error {
		help = true
		return nil
	}}}
	files, err := options.ParseOnly(args, opts...)
	if err != nil {
		return err
	}
	if help {
		fmt.Fprint(stdout, compareUsage+options.UsageOf(opts))
		return nil
	}
	if len(files) != 2 {
		return &options.UsageError{Msg: "compare needs exactly two files, A and B"}
	}
	var tabs [2]*report.Table
	for i, f := range files {
		t, err := report.ReadAll([]report.Source{report.ParseSource(f)}, report.ReadOptions{})
		if err != nil {
			return err
		}
		tabs[i] = t
	}
	return report.WriteCompare(stdout, report.Compare(tabs[0], tabs[1]), files[0], files[1])
}
