package bench

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/clusterup"
	"github.com/corvid-kv/corvid/internal/bench/matrix"
	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/bench/report"
	"github.com/corvid-kv/corvid/internal/bench/sla"
)

// ServeChild runs a Corvid server with the given server options and
// returns the exit status. cmd/corvid-bench sets it (and calls it when
// peer.ServeEnv is set), so matrix can start Corvid as a child process
// measured through /proc like the peers. Unset, matrix runs Corvid in
// process and reports no server CPU or RSS for it.
var ServeChild func(args []string) int

// sideOpts are matrix's side-by-side options.
type sideOpts struct {
	servers    []peer.Server
	noDiscover bool
	rounds     int
	instances  int
	pipelines  []string
	scenario   string
	bound      time.Duration // scenario 002
	shards     int           // scenario 003
}

func (s *sideOpts) opts() []options.Opt {
	s.rounds = 3
	s.bound = time.Millisecond
	s.shards = defaultShards
	return []options.Opt{
		{Long: "sla", Arg: true, Help: "Scenario 002: the p99 bound, a duration (default 1ms)", Set: func(_ *options.Config, v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return &options.UsageError{Msg: fmt.Sprintf("--sla must be a positive duration such as 1ms, got '%s'", v)}
			}
			s.bound = d
			return nil
		}},
		// Overrides memtier's -s/--server: name=path is a server binary
		// to start, anything else a host to drive as memtier does.
		{Long: "server", Short: 's', Arg: true, Help: "name=/path/to/server-binary: a server matrix starts and compares (repeatable; e.g. valkey=/usr/bin/valkey-server; corvid=PATH replaces the built-in Corvid); a plain host is memtier's -s", Set: func(c *options.Config, v string) error {
			if strings.Contains(v, "=") {
				sv, err := peer.ParseServer(v)
				if err != nil {
					return &options.UsageError{Msg: err.Error()}
				}
				s.servers = append(s.servers, sv)
				return nil
			}
			for _, h := range strings.Split(v, ",") {
				if h = strings.TrimSpace(h); h == "" {
					return &options.UsageError{Msg: fmt.Sprintf("empty server address in '%s'.", v)}
				}
				c.Servers = append(c.Servers, h)
			}
			return nil
		}},
		{Long: "no-discover", Help: "Do not look for valkey-server and redis-server on PATH and in ../shared/bin", Set: func(_ *options.Config, _ string) error {
			s.noDiscover = true
			return nil
		}},
		{Long: "rounds", Arg: true, Help: "Rounds per cell, servers alternated A B A B; the median is kept (default 3)", Set: func(_ *options.Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 1000 {
				return &options.UsageError{Msg: "--rounds must be 1..1000"}
			}
			s.rounds = n
			return nil
		}},
		{Long: "instances", Arg: true, Help: "Scenario 001/002: server processes of each kind (default: one per CPU)", Set: func(_ *options.Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 256 {
				return &options.UsageError{Msg: "--instances must be 1..256"}
			}
			s.instances = n
			return nil
		}},
		{Long: "shards", Arg: true, Help: "Scenario 003: primaries in each server's cluster (default 3, the article's three nodes)", Set: func(_ *options.Config, v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > clusterup.MaxNodes {
				return &options.UsageError{Msg: fmt.Sprintf("--shards must be 1..%d", clusterup.MaxNodes)}
			}
			s.shards = n
			return nil
		}},
		listOpt("pipelines", "Scenario 001: pipeline depths, one row each (default 1,50,100)", &s.pipelines),
		{Long: "scenario", Arg: true, Help: "Seed article's method: 000 (default; 7 commands, io-threads 6,10,14), 001 (one server per CPU, pipelines 1/50/100), 002 (SLA: highest ops/sec with p99 <= 1 ms, ratio 1:10, pipeline 45), 003 (cluster mode: each server a cluster of --shards primaries, ratio 1:4, 1-4 KB values, random and Gaussian keys, MOVED/ASK columns), 004 (normalize FILEs by price, as report)", Set: func(_ *options.Config, v string) error {
			s.scenario = v
			return nil
		}},
	}
}

// scanScenario finds --scenario's value before the full parse (each
// scenario has its own defaults).
func scanScenario(args []string) string {
	for i, a := range args {
		if a == "--" {
			break
		}
		if v, ok := strings.CutPrefix(a, "--scenario="); ok {
			return v
		}
		if a == "--scenario" && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}

// without drops an option and its value from args.
func without(args []string, long string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "--"+long {
			i++
			continue
		}
		if strings.HasPrefix(args[i], "--"+long+"=") {
			continue
		}
		out = append(out, args[i])
	}
	return out
}

func hasOpt(args []string, longs ...string) bool {
	for _, a := range args {
		for _, l := range longs {
			if a == "--"+l || strings.HasPrefix(a, "--"+l+"=") {
				return true
			}
		}
	}
	return false
}

// sideServers is the list matrix compares: Corvid first (the baseline),
// then the servers named with --server, then those discovered.
func sideServers(so *sideOpts, stderr io.Writer) ([]peer.Server, []string) {
	var notes []string
	corvid := peer.Server{Name: "corvid", Path: peer.Self}
	switch {
	case ServeChild == nil && StartEmbedded != nil:
		corvid.Path = matrix.InProcess
	case ServeChild == nil:
		corvid.Path = "" // reported by Side as unavailable
	}
	var rest []peer.Server
	for _, s := range so.servers {
		if s.Name == "corvid" {
			corvid = s
			continue
		}
		rest = append(rest, s)
	}
	out := append([]peer.Server{corvid}, rest...)
	if !so.noDiscover {
		for _, d := range peer.Discover(peer.DefaultDirs()) {
			dup := false
			for _, s := range out {
				dup = dup || s.Name == d.Name
			}
			if !dup {
				out = append(out, d)
			}
		}
	}
	for _, s := range out {
		switch s.Path {
		case peer.Self:
			notes = append(notes, "corvid: this corvid-bench binary run as a corvid-server child process")
		case matrix.InProcess:
			notes = append(notes, "corvid: in-process server (its CPU and RSS are not measured)")
		default:
			v := peer.Version(s)
			if v == "" {
				v = "version unknown"
			}
			notes = append(notes, fmt.Sprintf("%s: %s (%s)", s.Name, s.Path, v))
		}
	}
	if len(out) == 1 {
		fmt.Fprintln(stderr, "no peer server found (valkey-server, redis-server on PATH or in ../shared/bin): Corvid runs alone; name one with --server valkey=/path/to/valkey-server")
	}
	return out, notes
}

// sideConfigNote says how every server was started.
func sideConfigNote(extra []string) string {
	n := "every server: own process on a free 127.0.0.1 port, own temp dir, --save \"\" --appendonly no --maxmemory 0 --maxmemory-policy noeviction, the scenario's --io-threads"
	if len(extra) > 0 {
		n += " " + strings.Join(extra, " ")
	}
	return n
}

// runSide is matrix without --target: it starts the servers itself.
func runSide(ctx context.Context, cfg *options.Config, so *sideOpts, ioThreads, commands []string, to *tableOpts, stdout, stderr io.Writer) error {
	servers, notes := sideServers(so, stderr)
	if servers[0].Path == "" {
		return fmt.Errorf("no corvid server: this build cannot run Corvid as a child process; pass --server corvid=/path/to/corvid-server")
	}
	ncpu := runtime.NumCPU()
	sc := matrix.SideConfig{Servers: servers, Rounds: so.rounds, Embedded: StartEmbedded, Progress: progressOut(stderr), Log: stderr}
	var req []int
	if len(ioThreads) > 0 {
		var err error
		if req, err = matrix.ParseIOThreads(ioThreads); err != nil {
			return &options.UsageError{Msg: err.Error()}
		}
	}
	var capNote string
	var runs runResults // scenario 003: every run, for the article's tables
	switch so.scenario {
	case "", "000":
		if len(ioThreads) == 0 {
			req = []int{6, 10, 14} // the seed's scenarios
		}
		rows, err := matrix.SeedRows(cfg, commands)
		if err != nil {
			return &options.UsageError{Msg: err.Error()}
		}
		sc.Rows = rows
	case "001":
		sc.Instances = so.instances
		if sc.Instances == 0 {
			sc.Instances = ncpu
		}
		pipes := so.pipelines
		if len(pipes) == 0 {
			pipes = []string{"1", "50", "100"}
		}
		for _, p := range pipes {
			n, err := strconv.Atoi(p)
			if err != nil || n < 1 {
				return &options.UsageError{Msg: "--pipelines must be positive integers"}
			}
			c := *cfg
			c.Pipeline = n
			sc.Rows = append(sc.Rows, matrix.Row{Name: fmt.Sprintf("pipeline %d", n), Cfg: &c})
		}
		notes = append(notes, fmt.Sprintf("scenario 001: %d %s per server kind (the seed: one per core), -t %d -c %d against each, ratio %s, ops/sec summed over the instances",
			sc.Instances, plural(sc.Instances, "instance"), cfg.Threads, cfg.Clients, cfg.Ratio))
	case "003":
		sc.Cluster = so.shards
		sc.Rows = seed003Rows(cfg)
		sc.OnRun = runs.add
	}
	if len(req) > 0 {
		sc.Scenarios, capNote = matrix.CapIOThreads(req, matrix.IOThreadsLimit(ncpu))
		if so.scenario == "001" || so.scenario == "003" {
			for i := range sc.Scenarios {
				sc.Scenarios[i].ID = so.scenario + "-" + sc.Scenarios[i].ID
			}
		}
	} else if so.scenario == "001" || so.scenario == "003" {
		sc.Scenarios = []matrix.Scenario{{ID: so.scenario}}
	}
	if capNote != "" {
		notes = append(notes, capNote)
		fmt.Fprintln(stderr, capNote)
	}
	if so.scenario == "003" {
		notes = append(notes, seed003Notes(so.shards, sc.Rows, len(req) > 0)...)
	} else {
		notes = append(notes, sideConfigNote(nil))
	}
	notes = append(notes, fmt.Sprintf("%d round(s) per cell, servers alternated within each round; each cell is the median round", max(so.rounds, 1)))
	tab, err := matrix.Side(ctx, sc)
	if err != nil {
		return err
	}
	tab.Notes = append(notes, tab.Notes...)
	sameMachinePrices(tab, to)
	if so.scenario == "003" {
		seed003PriceNote(tab, so.shards, to)
		runs.writeArticleTables(stdout, sc.Rows, tab.Targets, cfg.Percentiles)
	}
	return to.finish(tab, stdout, stderr)
}

// sameMachinePrices gives every server the same price when none was
// passed: they ran on one machine, so price-performance equals the
// normalized total (a note says so).
func sameMachinePrices(tab *report.Table, to *tableOpts) {
	if to.priceFile != "" || len(to.prices) > 0 {
		return
	}
	for _, tg := range tab.Targets {
		tab.Prices[tg] = 1
	}
	tab.Notes = append(tab.Notes, "prices: every server ran on this machine, so each is priced 1 (pass --price name=value or --prices to change)")
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

// runSideSLA is scenario 002: the SLA search (reusing sla.Run) against
// each server in turn, each started as --instances processes (default one
// per CPU), and a table of each server's answer.
func runSideSLA(ctx context.Context, cfg *options.Config, so *sideOpts, to *tableOpts, stdout, stderr io.Writer) error {
	servers, notes := sideServers(so, stderr)
	if servers[0].Path == "" {
		return fmt.Errorf("no corvid server: pass --server corvid=/path/to/corvid-server")
	}
	n := so.instances
	if n == 0 {
		n = runtime.NumCPU()
	}
	tab := report.NewTable()
	s := tab.Scenario("002", "")
	row := "max ops/sec, p99 <= " + so.bound.String()
	rounds := max(so.rounds, 1)
	best := make([][]*sla.Point, len(servers)) // per server, per round
	for _, sv := range servers {
		tab.AddTarget(sv.Name)
	}
	for r := 1; r <= rounds; r++ {
		for i, sv := range servers {
			fmt.Fprintf(stderr, "== %s, round %d/%d: %d %s ==\n", sv.Name, r, rounds, n, plural(n, "instance"))
			insts, err := startInstances(ctx, sv, n)
			if err != nil {
				return err
			}
			var tg []matrix.Target
			for k, p := range insts {
				tg = append(tg, matrix.Target{Name: fmt.Sprintf("%s-%d", sv.Name, k+1), Addr: p.Address()})
			}
			res, err := sla.Run(ctx, sla.Config{Base: cfg, Targets: tg, Bound: so.bound, Percentile: 99, Progress: progressOut(stderr), Log: stderr})
			for _, p := range insts {
				p.Stop()
			}
			if err != nil {
				return fmt.Errorf("%s: %w", sv.Name, err)
			}
			fmt.Fprintf(stdout, "== %s, round %d ==", sv.Name, r)
			sla.Write(stdout, res)
			fmt.Fprintln(stdout)
			best[i] = append(best[i], res.Best)
			if ctx.Err() != nil {
				return ctx.Err()
			}
		}
	}
	for i, sv := range servers {
		ops, p50, p99, met := SLAMedians(best[i])
		if met == 0 {
			notes = append(notes, fmt.Sprintf("%s: no step kept p99 within the bound in any of %d round(s)", sv.Name, rounds))
			continue
		}
		tab.Set(s, row, sv.Name, ops)
		tab.SetDetail(s, row, sv.Name, report.Detail{P50Ms: p50, P99Ms: p99, Rounds: rounds})
		notes = append(notes, fmt.Sprintf("%s: the bound was met in %d of %d round(s); a round that never met it counts as 0 ops/sec", sv.Name, met, rounds))
	}
	if len(s.Commands) == 0 {
		return fmt.Errorf("no server met the SLA")
	}
	tab.Notes = append(notes, sideConfigNote(nil), fmt.Sprintf("workload: ratio %s (set:get), pipeline %d, %d-byte values; servers alternated per round, each round a full search", cfg.Ratio, cfg.Pipeline, cfg.DataSize))
	sameMachinePrices(tab, to)
	return to.finish(tab, stdout, stderr)
}

// SLAMedians reduces the rounds of scenario 002 for one server: the
// median of the best ops/sec (a round with no step within the bound
// counts as 0), the median p50 and p99 of the rounds that had an answer,
// and how many did.
func SLAMedians(best []*sla.Point) (ops, p50, p99 float64, met int) {
	var o, a, b []float64
	for _, p := range best {
		if p == nil {
			o = append(o, 0)
			continue
		}
		met++
		o = append(o, p.OpsSec)
		a = append(a, p.P50Ms)
		b = append(b, p.PctMs)
	}
	return matrix.Median(o), matrix.Median(a), matrix.Median(b), met
}

type stopper interface {
	Address() string
	Stop()
}

func startInstances(ctx context.Context, sv peer.Server, n int) ([]stopper, error) {
	var out []stopper
	for i := 0; i < n; i++ {
		var x stopper
		if sv.Path == matrix.InProcess {
			addr, stop, err := embedded()
			if err != nil {
				return nil, err
			}
			x = inproc{addr, stop}
		} else {
			p, err := peer.Start(ctx, sv, peer.Options{})
			if err != nil {
				for _, y := range out {
					y.Stop()
				}
				return nil, err
			}
			x = procAddr{p}
		}
		out = append(out, x)
	}
	return out, nil
}

type inproc struct {
	addr string
	stop func()
}

func (i inproc) Address() string { return i.addr }
func (i inproc) Stop()           { i.stop() }

type procAddr struct{ *peer.Proc }

func (p procAddr) Address() string { return p.Addr }
