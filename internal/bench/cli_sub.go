package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/chart"
	"github.com/corvid-kv/corvid/internal/bench/matrix"
	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/report"
	"github.com/corvid-kv/corvid/internal/bench/sla"
)

// tableOpts are the options shared by matrix and report: prices, the
// baseline and where to write the outputs.
type tableOpts struct {
	prices    map[string]float64
	priceFile string
	baseline  string
	out       string
	png       bool
	help      bool
}

func (t *tableOpts) opts(defaultOut string) []options.Opt {
	t.prices = map[string]float64{}
	t.out = defaultOut
	return []options.Opt{
		{Long: "price", Arg: true, Help: "Price of a target, name=value (repeatable; any unit, normalized to the baseline)", Set: func(_ *options.Config, v string) error {
			k, val, ok := strings.Cut(v, "=")
			f, err := strconv.ParseFloat(val, 64)
			if !ok || k == "" || err != nil || f <= 0 {
				return &options.UsageError{Msg: fmt.Sprintf("--price must be name=positive-number, got '%s'", v)}
			}
			t.prices[k] = f
			return nil
		}},
		{Long: "prices", Arg: true, Help: "Prices: a file (CSV name,price or YAML name: price) or a seed article's table: seed-000, seed-001, seed-003, seed-004 ('corvid-bench prices' lists them)", Set: func(_ *options.Config, v string) error {
			t.priceFile = v
			return nil
		}},
		{Long: "baseline", Arg: true, Help: "Target that is 100% (default: the first target)", Set: func(_ *options.Config, v string) error {
			t.baseline = v
			return nil
		}},
		{Long: "out", Arg: true, Help: "Output prefix: writes PREFIX.csv, PREFIX-normalized.csv, PREFIX.json, PREFIX.svg, and PREFIX-latency.svg when latency was measured (\"\" for none; default " + defaultOut + ")", Set: func(_ *options.Config, v string) error {
			t.out = v
			return nil
		}},
		{Long: "png", Help: "Also write PREFIX.png", Set: func(_ *options.Config, _ string) error {
			t.png = true
			return nil
		}},
		{Long: "help", Help: "Display this help", Set: func(_ *options.Config, _ string) error {
			t.help = true
			return nil
		}},
	}
}

// finish applies prices and baseline, prints the table and writes files.
func (t *tableOpts) finish(tab *report.Table, stdout, stderr io.Writer) error {
	if t.priceFile != "" {
		if err := report.LoadPrices(tab, t.priceFile); err != nil {
			return err
		}
	}
	for k, v := range t.prices {
		tab.Prices[k] = v
	}
	if t.baseline != "" {
		tab.Baseline = t.baseline
	}
	if err := tab.Validate(); err != nil {
		return err
	}
	if err := report.WriteText(stdout, tab); err != nil {
		return err
	}
	if t.out == "" {
		return nil
	}
	files := []struct {
		name  string
		write func(io.Writer, *report.Table) error
	}{
		{t.out + ".csv", report.WriteCSV},
		{t.out + "-normalized.csv", report.WriteNormalizedCSV},
		{t.out + ".json", report.WriteJSON},
		{t.out + ".svg", chart.SVG},
	}
	if tab.HasDetail() {
		files = append(files, struct {
			name  string
			write func(io.Writer, *report.Table) error
		}{t.out + "-latency.svg", chart.LatencySVG})
	}
	if t.png {
		files = append(files, struct {
			name  string
			write func(io.Writer, *report.Table) error
		}{t.out + ".png", chart.PNG})
	}
	var names []string
	for _, f := range files {
		if err := writeFile(f.name, func(w io.Writer) error { return f.write(w, tab) }); err != nil {
			return err
		}
		names = append(names, f.name)
	}
	fmt.Fprintf(stderr, "wrote %s\n", strings.Join(names, ", "))
	return nil
}

func writeFile(name string, fn func(io.Writer) error) error {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func targetOpt(dst *[]matrix.Target) options.Opt {
	return options.Opt{Long: "target", Arg: true, Help: "Named server, name=host:port (repeatable)", Set: func(_ *options.Config, v string) error {
		tg, err := matrix.ParseTarget(v)
		if err != nil {
			return &options.UsageError{Msg: err.Error()}
		}
		*dst = append(*dst, tg)
		return nil
	}}
}

func listOpt(long, help string, dst *[]string) options.Opt {
	return options.Opt{Long: long, Arg: true, Help: help, Set: func(_ *options.Config, v string) error {
		for _, x := range strings.Split(v, ",") {
			if x = strings.TrimSpace(x); x != "" {
				*dst = append(*dst, x)
			}
		}
		return nil
	}}
}

// targetsFrom combines --target with -s entries and the embedded server.
func targetsFrom(cfg *options.Config, targets []matrix.Target, stderr io.Writer) ([]matrix.Target, func(), error) {
	if len(targets) > 0 && (len(cfg.Servers) > 0 || cfg.UnixSocket != "") {
		return nil, nil, &options.UsageError{Msg: "use either --target or -s/--server, not both"}
	}
	if len(targets) > 0 {
		return targets, func() {}, nil
	}
	if cfg.UnixSocket != "" {
		return nil, nil, &options.UsageError{Msg: "matrix and sla need TCP targets (--target name=host:port)"}
	}
	if !cfg.Embedded {
		for _, a := range cfg.Addrs() {
			targets = append(targets, matrix.Target{Name: a, Addr: a})
		}
		return targets, func() {}, nil
	}
	addr, stop, err := embedded()
	if err != nil {
		return nil, nil, err
	}
	fmt.Fprintf(stderr, "no target given: running against the embedded corvid-server at %s\n", addr)
	return []matrix.Target{{Name: "corvid", Addr: addr}}, stop, nil
}

const matrixUsage = `Usage: corvid-bench matrix [--server name=path]... [--rounds 3] [--io-threads 6,10,14] [options]
       corvid-bench matrix --target name=host:port... [options]
       corvid-bench matrix --scenario 001|002|003|004 [options]

Runs seed 000's seven memtier commands (set, get, incr, lpush, sadd, zadd,
hset; keys 1..500, 128-byte random data, --distinct-client-seed) and
prints the seed's table: ops/sec per command, total, total normalized to
the baseline, price normalized, price-performance normalized. Defaults
follow the seed: -t 16 -c 50 --test-time 180.

Without --target (or -s host), matrix compares servers side by side: it
starts Corvid (as a child process) and every peer it is given
(--server valkey=/path/to/valkey-server) or finds (valkey-server and
redis-server on PATH and in ../shared/bin; --no-discover to skip), each on
a free loopback port with the same config (no persistence, maxmemory 0,
noeviction, the scenario's io-threads: the seed's 6,10,14 by default,
capped at half this machine's CPUs, as the load generator shares them). Each command runs --rounds times per
server, servers alternated A B A B; a cell is the median round. A second
block gives each cell's ratio to the baseline (Corvid unless --baseline),
p50/p99/p99.9 latency, server CPU per op and RSS. Files: PREFIX.csv,
PREFIX-normalized.csv, PREFIX.json, PREFIX.svg, PREFIX-latency.svg.

--scenario runs another seed article's method on this machine:
  001  one server process per CPU of each kind, pipelines 1/50/100, -t 8 -c 10
  002  the SLA search (as 'corvid-bench sla'): highest ops/sec with p99 <= 1ms,
       --ratio 1:10 --pipeline 45, per server kind
  003  ElastiCache cluster mode: each server a cluster of --shards primaries
       (default 3) that corvid-bench starts and forms itself; memtier's
       -R --data-size-range=1024-4096 --data-size-pattern=S --ratio=1:4
       --cluster-mode, rows random (-t 10 -c 50) and gaussian (--key-pattern=G:G,
       twice -t); memtier's ALL STATS per server, MOVED/sec and ASK/sec columns;
       every run starts from an empty cluster; cpu and rss summed over the nodes
  004  normalization by price of any results FILEs (as 'corvid-bench report';
       --prices seed-004 unless prices are given; see 'corvid-bench prices')

`

func runMatrix(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	scenario := scanScenario(args)
	switch scenario {
	case "", "000", "001", "002", "003":
	case "004":
		rest := without(args, "scenario")
		if !hasOpt(rest, "price", "prices", "help") {
			rest = append([]string{"--prices", "seed-004"}, rest...)
		}
		return runReport(rest, stdout, stderr)
	default:
		return &options.UsageError{Msg: fmt.Sprintf("unknown --scenario %q (have 000, 001, 002, 003, 004)", scenario)}
	}
	var to tableOpts
	var so sideOpts
	var targets []matrix.Target
	var ioThreads, commands []string
	extra := append(to.opts("corvid-matrix"),
		targetOpt(&targets),
		listOpt("io-threads", "io-threads settings, one scenario each (side by side: each server is started with it; with --target: CONFIG SET where allowed, else a label)", &ioThreads),
		listOpt("commands", "Subset of the seed commands, e.g. set,get (default: all seven)", &commands),
	)
	extra = append(extra, so.opts()...)
	cfg := options.Defaults()
	cfg.Threads, cfg.Clients = 16, 50 // the seed's -t 16 -c 50
	switch scenario {
	case "001":
		cfg.Threads, cfg.Clients = 8, 10 // 8 threads x 10 connections per instance
	case "002":
		cfg.Pipeline = 45 // 45 pipelined requests, get:set 1:10 (memtier's default --ratio 1:10)
	case "003":
		seed003Defaults(cfg) // -R --data-size-pattern=S --ratio=1:4 -t 10 -c 50 --cluster-mode
	}
	rest, err := options.ParseInto(cfg, args, extra...)
	if err != nil {
		return err
	}
	if to.help || cfg.Help {
		fmt.Fprint(stdout, matrixUsage+options.UsageOf(extra)+"\nmemtier options (passed to every run):\n"+options.Usage())
		return nil
	}
	if len(rest) > 0 {
		return &options.UsageError{Msg: fmt.Sprintf("unexpected argument '%s'", rest[0])}
	}
	if cfg.TLS.Enabled {
		return errNoTLS("matrix")
	}
	if scenario == "003" {
		seed003AfterParse(cfg) // --data-size-range=1024-4096 unless a size was given
	}
	if cfg.TestTime == 0 && cfg.Requests == 0 && !cfg.AllKeys {
		cfg.TestTime = 180 * time.Second // the seed's --test-time=180
		if scenario == "002" {
			cfg.TestTime = 5 * time.Second // per search step, as corvid-bench sla
		}
	}
	if err := cfg.Finalize(); err != nil {
		return err
	}
	if len(cfg.Commands) > 0 {
		return &options.UsageError{Msg: "matrix runs the seed's commands; use --commands to pick a subset, not --command"}
	}
	if len(targets) == 0 && cfg.Embedded {
		if scenario == "002" {
			return runSideSLA(ctx, cfg, &so, &to, stdout, stderr)
		}
		return runSide(ctx, cfg, &so, ioThreads, commands, &to, stdout, stderr)
	}
	if (scenario != "" && scenario != "000") || len(so.servers) > 0 {
		return &options.UsageError{Msg: "--scenario 001/002/003 and --server name=path start the servers themselves; do not combine them with --target or -s host (against a cluster of your own, run corvid-bench --cluster-mode -s HOST -p PORT with the article's flags)"}
	}
	tg, stop, err := targetsFrom(cfg, targets, stderr)
	if err != nil {
		return err
	}
	defer stop()
	tab, err := matrix.Run(ctx, matrix.Config{Base: cfg, Targets: tg, IOThreads: ioThreads, Commands: commands,
		Progress: progressOut(stderr), Log: stderr})
	if err != nil {
		return err
	}
	return to.finish(tab, stdout, stderr)
}

// errNoTLS refuses --tls in a subcommand whose control connections (and
// the servers it starts) are plaintext.
func errNoTLS(sub string) error {
	return &options.UsageError{Msg: sub + " does not support --tls (its control connections and the servers it starts are plaintext); run corvid-bench --tls -s HOST -p PORT"}
}

const reportUsage = `Usage: corvid-bench report [options] [name=]FILE...

Prints the seed's table (and writes CSV, JSON and an SVG chart) from
recorded results. Each FILE may be a corvid-bench matrix CSV or JSON (the
seed's reference CSV layout: scenario,io_threads,command,<targets>), a
memtier_benchmark --json-out-file, redis-benchmark --csv output, or plain
"target,qps" lines (e.g. sysbench QPS). For files holding one target's
numbers, name=FILE names the target (default: the file name).

`

func runReport(args []string, stdout, stderr io.Writer) error {
	var to tableOpts
	var ro report.ReadOptions
	extra := append(to.opts(""),
		options.Opt{Long: "scenario", Arg: true, Help: "Scenario id for single-result files (default 1)", Set: func(_ *options.Config, v string) error {
			ro.Scenario = v
			return nil
		}},
		options.Opt{Long: "io-threads", Arg: true, Help: "io-threads label for single-result files", Set: func(_ *options.Config, v string) error {
			ro.IOThreads = v
			return nil
		}},
	)
	files, err := options.ParseOnly(args, extra...)
	if err != nil {
		return err
	}
	if to.help {
		fmt.Fprint(stdout, reportUsage+options.UsageOf(extra))
		return nil
	}
	if len(files) == 0 {
		return &options.UsageError{Msg: "report needs at least one FILE"}
	}
	var srcs []report.Source
	for _, f := range files {
		srcs = append(srcs, report.ParseSource(f))
	}
	tab, err := report.ReadAll(srcs, ro)
	if err != nil {
		return err
	}
	return to.finish(tab, stdout, stderr)
}

const slaUsage = `Usage: corvid-bench sla [--target name=host:port]... [--sla 1ms] [options]

Finds the highest throughput at which p99 (--percentile) stays at or under
the bound (seed 002): raises connections against the first target, then,
with several targets (one server per core, seed 001), adds instances at the
best connection count. Each step runs --test-time (default 5s); a step
over the bound runs again (--retries) before it ends the search. Workload
flags (--ratio, --pipeline, -d, --key-*) are memtier's; seed 002 used
--ratio 1:10 --pipeline 45.

`

func runSLA(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var targets []matrix.Target
	var conns []string
	bound := time.Millisecond
	pct := 99.0
	retries := 0 // sla.Config's default
	help := false
	extra := []options.Opt{
		targetOpt(&targets),
		{Long: "sla", Arg: true, Help: "Latency bound, a duration (default 1ms)", Set: func(_ *options.Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return &options.UsageError{Msg: fmt.Sprintf("--sla must be a positive duration such as 1ms, got '%s'", v)}
			}
			bound = d
			return nil
		}},
		{Long: "percentile", Arg: true, Help: "Percentile held to the bound (default 99)", Set: func(_ *options.Config, v string) error {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil || f <= 0 || f > 100 {
				return &options.UsageError{Msg: "--percentile must be in (0, 100]"}
			}
			pct = f
			return nil
		}},
		listOpt("connections", "Connections per instance to try, ascending (default 1,2,4,...,512)", &conns),
		{Long: "retries", Arg: true, Help: "Times a step over the bound is run again before the search stops (default 1)", Set: func(_ *options.Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				return &options.UsageError{Msg: fmt.Sprintf("--retries must be a non-negative integer, got '%s'", v)}
			}
			retries = n
			if n == 0 {
				retries = -1 // sla.Config: none
			}
			return nil
		}},
		{Long: "help", Help: "Display this help", Set: func(_ *options.Config, _ string) error {
			help = true
			return nil
		}},
	}
	cfg := options.Defaults()
	rest, err := options.ParseInto(cfg, args, extra...)
	if err != nil {
		return err
	}
	if help || cfg.Help {
		fmt.Fprint(stdout, slaUsage+options.UsageOf(extra)+"\nmemtier options:\n"+options.Usage())
		return nil
	}
	if len(rest) > 0 {
		return &options.UsageError{Msg: fmt.Sprintf("unexpected argument '%s'", rest[0])}
	}
	if cfg.TLS.Enabled {
		return errNoTLS("sla")
	}
	if cfg.TestTime == 0 && cfg.Requests == 0 && !cfg.AllKeys {
		cfg.TestTime = 5 * time.Second
	}
	if err := cfg.Finalize(); err != nil {
		return err
	}
	var steps []int
	for _, c := range conns {
		n, err := strconv.Atoi(c)
		if err != nil || n <= 0 || (len(steps) > 0 && n <= steps[len(steps)-1]) {
			return &options.UsageError{Msg: "--connections must be ascending positive integers"}
		}
		steps = append(steps, n)
	}
	tg, stop, err := targetsFrom(cfg, targets, stderr)
	if err != nil {
		return err
	}
	defer stop()
	res, err := sla.Run(ctx, sla.Config{Base: cfg, Targets: tg, Bound: bound, Percentile: pct, Conns: steps,
		Retries: retries, Progress: progressOut(stderr), Log: stderr})
	if err != nil {
		return err
	}
	sla.Write(stdout, res)
	if cfg.JSONOut != "" {
		b, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		return os.WriteFile(cfg.JSONOut, append(b, '\n'), 0o644)
	}
	return nil
}
