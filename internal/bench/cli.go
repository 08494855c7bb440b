package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/corvid-kv/corvid/internal/bench/loadgen"
	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/report"
	"github.com/corvid-kv/corvid/internal/bench/stats"
)

// Version is printed by --version.
var Version = "corvid-bench 0.1 (memtier_benchmark-compatible)"

const topUsage = `Usage: corvid-bench [memtier_benchmark options]
       corvid-bench matrix [options]     the seed study's 7-command table, Corvid and peers side by side
       corvid-bench matrix --scenario 001|002|003|004  the other seed articles' methods (003: clusters)
       corvid-bench report [options] FILE...  the same table and chart from recorded results
       corvid-bench sla [options]        highest throughput with p99 under a bound
       corvid-bench compare A.json B.json  per-cell ratios (B/A) of two matrix results
       corvid-bench prices               the seed articles' instance prices (--prices seed-NNN)
       corvid-bench pubsub [options]     pub/sub fan-out: PUBLISH and delivered msgs/s, delivery latency

Without -s/--server, -p/--port or -S, corvid-bench starts an in-process
corvid-server on a free loopback port and runs against it.
Run 'corvid-bench <subcommand> --help' for a subcommand's options.

memtier_benchmark options:
`

// Main runs the command line and returns the exit status.
func Main(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return MainContext(ctx, args, stdout, stderr)
}

// MainContext is Main with a caller-supplied context (tests cancel it).
func MainContext(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "matrix":
			return exit(stderr, runMatrix(ctx, args[1:], stdout, stderr))
		case "report":
			return exit(stderr, runReport(args[1:], stdout, stderr))
		case "sla":
			return exit(stderr, runSLA(ctx, args[1:], stdout, stderr))
		case "compare":
			return exit(stderr, runCompare(args[1:], stdout))
		case "prices":
			return exit(stderr, report.WritePrices(stdout))
		case "pubsub":
			return exit(stderr, runPubSub(ctx, args[1:], stdout, stderr))
		case "help":
			fmt.Fprint(stdout, topUsage+options.Usage())
			return 0
		case "version":
			fmt.Fprintln(stdout, Version)
			return 0
		}
	}
	return exit(stderr, runLoad(ctx, args, stdout, stderr))
}

// exit maps an error to a status and prints it.
func exit(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ue *options.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "%v\nTry 'corvid-bench --help' for more information.\n", err)
		return 2
	}
	if errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "interrupted")
		return 130
	}
	fmt.Fprintf(stderr, "error: %v\n", err)
	return 1
}

// isTerminal reports whether w is a character device (a TTY).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

func progressOut(stderr io.Writer) io.Writer {
	if isTerminal(stderr) {
		return stderr
	}
	return nil
}

// resolveAddrs returns the servers to drive, starting the embedded server
// when none was named.
func resolveAddrs(cfg *options.Config, stderr io.Writer) ([]string, func(), error) {
	if !cfg.Embedded {
		return cfg.Addrs(), func() {}, nil
	}
	addr, stop, err := embedded()
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "no server given: running against the embedded corvid-server at %s\n", addr)
	return []string{addr}, stop, nil
}

// runLoad is memtier mode.
func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, rest, err := options.Parse(args)
	if err != nil {
		return err
	}
	if cfg.Help {
		fmt.Fprint(stdout, topUsage+options.Usage())
		return nil
	}
	if cfg.Version {
		fmt.Fprintln(stdout, Version)
		return nil
	}
	if len(rest) > 0 {
		return &options.UsageError{Msg: fmt.Sprintf("unexpected argument '%s'", rest[0])}
	}
	addrs, stopServer, err := resolveAddrs(cfg, stderr)
	if err != nil {
		return err
	}
	defer stopServer()

	out := stdout
	if cfg.OutFile != "" {
		f, err := os.Create(cfg.OutFile)
		if err != nil {
			return err
		}
		defer f.Close()
		out = f
	}
	if cfg.ShowConfig {
		b, _ := json.MarshalIndent(cfg.Describe(), "", "  ")
		fmt.Fprintf(out, "%s\n", b)
	}
	fmt.Fprintf(stderr, "%d server(s), %d threads, %d connections per thread, %s\n", len(addrs), cfg.Threads, cfg.Clients, runLength(cfg))

	cpu0 := stats.CPUTime()
	var runs []*stats.Result
	var perServer [][]*stats.Result
	for i := 1; i <= cfg.RunCount; i++ {
		res, err := loadgen.Run(ctx, cfg, addrs, loadgen.Progress{Out: progressOut(stderr), Run: i})
		if err != nil {
			return err
		}
		sum := stats.Sum(strings.Join(addrs, ","), res)
		runs = append(runs, sum)
		perServer = append(perServer, res)
		if cfg.PrintAllRuns && cfg.RunCount > 1 {
			stats.WriteTable(out, fmt.Sprintf("RUN #%d RESULTS", i), stats.Rows(sum, cfg.Percentiles), cfg.ClusterMode, cfg.Percentiles)
		}
		if ctx.Err() != nil {
			break
		}
	}
	cpu := stats.CPUTime() - cpu0

	var finalRows []stats.Row
	if len(runs) == 1 {
		finalRows = stats.Rows(runs[0], cfg.Percentiles)
		stats.WriteTable(out, "ALL STATS", finalRows, cfg.ClusterMode, cfg.Percentiles)
	} else {
		best, worst := stats.BestWorst(runs)
		stats.WriteTable(out, "BEST RUN RESULTS", stats.Rows(best, cfg.Percentiles), cfg.ClusterMode, cfg.Percentiles)
		stats.WriteTable(out, "WORST RUN RESULTS", stats.Rows(worst, cfg.Percentiles), cfg.ClusterMode, cfg.Percentiles)
		finalRows = stats.AverageRows(runs, cfg.Percentiles)
		stats.WriteTable(out, fmt.Sprintf("AGGREGATED AVERAGE RESULTS (%d runs)", len(runs)), finalRows, cfg.ClusterMode, cfg.Percentiles)
	}
	last := perServer[len(perServer)-1]
	stats.WriteServers(out, last, runs[len(runs)-1], cfg.Percentiles)
	if !cfg.HideHistogram {
		stats.WriteDistribution(out, finalRows)
	}
	var ops uint64
	for _, r := range runs {
		ops += r.Totals().Ops
		if r.FirstError != "" {
			fmt.Fprintf(stderr, "warning: %d error replies; first: %s\n", r.Totals().Errors, r.FirstError)
		}
	}
	if cpu > 0 {
		fmt.Fprintf(out, "\nClient CPU: %.3f s (user+sys), %.0f ops per CPU-second\n", cpu.Seconds(), float64(ops)/cpu.Seconds())
	}
	if cfg.JSONOut != "" {
		doc := stats.Document(cfg.Describe(), runs, perServer, cfg.Percentiles, cpu)
		b, err := json.MarshalIndent(doc, "", "  ")
		if err != nil {
			return err
		}
		if err := os.WriteFile(cfg.JSONOut, append(b, '\n'), 0o644); err != nil {
			return err
		}
	}
	if cfg.HDRPrefix != "" {
		for i, r := range runs {
			if _, err := stats.WriteHDRFiles(cfg.HDRPrefix, i+1, stats.Rows(r, cfg.Percentiles)); err != nil {
				return err
			}
		}
	}
	return nil
}

func runLength(cfg *options.Config) string {
	if cfg.TestTime > 0 {
		return "test time " + cfg.TestTime.String()
	}
	return fmt.Sprintf("%d requests per connection", cfg.Requests)
}
