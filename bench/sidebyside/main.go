// Command sidebyside (run it as bench/seed-side-by-side from the repo root)
// measures corvid-server against redis-server 7.0.15 on the seed study's
// seven commands, side by side in one run, on this machine (issue 6).
//
// It builds corvid-server, corvid-bench and the null server
// (bench/nullserver) into a temporary directory and starts, each on a free
// loopback port chosen at run time:
//
//	corvid     corvid-server --port P --bind 127.0.0.1 --maxmemory 4gb --maxmemory-policy allkeys-lru
//	redis      redis-server --port P --bind 127.0.0.1 --save '' --appendonly no --maxmemory 4gb --maxmemory-policy allkeys-lru
//	redis-io2  the same plus --io-threads 2 --io-threads-do-reads yes (-redis-io2, default on)
//	corvid-io2 corvid-server as above plus --io-threads 2: two event loops
//	           (-corvid-io2, default off)
//	corvid-uring, corvid-epoll corvid-server as above with its loops on
//	           io_uring or on epoll (-corvid-uring, -corvid-epoll, default
//	           off; --net-engine io_uring or epoll); the first of
//	           corvid-io2, corvid-uring, corvid-epoll that runs gets the
//	           second Corvid's columns
//	null       nullserver -port P -mode uring -raw (-null, default on; with
//	           -null-epoll: -mode epoll -loops 1 -raw -rawblock -deferwrite
//	           -lockthread), the network design corvid-server runs with by
//	           default here (io_uring, or the epoll it falls back to): the
//	           ceiling of the network path, it replies without touching data
//
// Every server runs in its own session (setsid), so the kernel schedules it
// in its own group, as a service, apart from the load generator's group
// (bench/internal/benchproc; docs/benchmarks-archive.md, "Scheduling groups").
//
// # Load and alternation
//
// For every pipeline depth (-pipelines, default 1 then 16), every seed
// command (the command lines of `corvid-bench matrix`, taken from
// internal/bench/matrix.SeedCommands: --command, --key-prefix, keys 1..500,
// --data-size=128, --random-data for the commands that carry data,
// --distinct-client-seed) and every round (-rounds), corvid-bench runs once
// against each server in turn, always in the same order: corvid, redis,
// redis-io2, null, corvid, redis, ... so slow drifts of the shared machine
// hit every server alike. Each run is
//
//	corvid-bench -s 127.0.0.1 -p P -t 2 -c 25 --test-time T --pipeline N --json-out-file F <seed flags>
//
// Before every run against a real server its data is dropped (FLUSHALL SYNC,
// else FLUSHALL), so every run starts from the same state whatever the
// order or the -commands subset; before a GET run the 500 keys GET reads
// are written first (128 random bytes each), as the SET run before it would
// have left them. The null server gets neither.
//
// # Columns
//
//	ops/s          Totals "Ops/sec" of corvid-bench's JSON, mean over rounds
//	c/r, c/io2,    corvid's ops/s divided by redis', redis-io2's, null's
//	c/null
//	p50, p99 c/r   Totals "Percentile Latencies" p50.00 / p99.00 in ms, median
//	               over rounds (with 2 rounds: the mean of the two), corvid / redis
//	CPU s/1M c/r   server CPU seconds per million ops (= CPU µs per op), corvid /
//	               redis: utime+stime of the server process from /proc/PID/stat
//	               (clock ticks, getconf CLK_TCK, normally 100 per second) read
//	               just before and just after each corvid-bench run, summed over
//	               rounds and divided by the ops of those runs (Totals "Count")
//	CPU c/r        the ratio of the two (< 1: Corvid spends less CPU per op)
//	RSS MiB c/r    VmRSS of /proc/PID/status after the command's last round
//	total          sum of the commands' ops/s and its ratios; CPU over all runs
//	               of the pipeline depth (ratio of sums), corvid / redis
//
// CPU per op is the steadier figure on a noisy shared machine: it counts
// what the server spent, not what the machine let it do.
//
// # Output
//
// A table per pipeline depth on stdout, and -out PREFIX (default
// /tmp/seed-side-by-side): PREFIX.md (the tables in markdown with the exact
// command line, machine and method, ready for docs/benchmarks.md),
// PREFIX.csv (the summary per pipeline, command and server), PREFIX.runs.csv
// (every run) and PREFIX.svg (internal/bench/chart's grouped bars, redis as
// the baseline). They are rewritten after every pipeline depth, so an
// interrupted run keeps what it measured.
//
// Every server is stopped on exit, on error and on Ctrl-C / SIGTERM (they
// also get SIGKILL if this process dies: Pdeathsig).
//
// Usage (from the repo root):
//
//	bench/seed-side-by-side [-time 15] [-rounds 2] [-commands set,get] [-pipelines 1,16]
//	    [-threads 2] [-clients 25] [-redis-io2=true] [-null=true] [-out /tmp/seed-side-by-side]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/matrix"
)

// config is the parsed command line.
type config struct {
	testTime  int
	rounds    int
	threads   int
	clients   int
	commands  []matrix.SeedCommand
	pipelines []int
	redisIO2  bool
	corvidIO2 bool
	// corvidURing and corvidEpoll also run corvid-server with its loops
	// on io_uring (the default where the kernel has it) or on epoll.
	corvidURing, corvidEpoll bool
	// nullEpoll runs the null server on epoll instead of io_uring.
	nullEpoll bool
	null      bool
	rate      int    // corvid-bench --rate-limiting per connection; 0: unlimited
	clientIO  string // corvid-bench --client-io; "": its default
	out       string
	argv      []string // as given, for the report
}

func main() { benchproc.Main("seed-side-by-side", parseFlags, run) }

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("seed-side-by-side", flag.ContinueOnError)
	c := &config{argv: args}
	fs.IntVar(&c.testTime, "time", 15, "corvid-bench --test-time per run, seconds")
	fs.IntVar(&c.rounds, "rounds", 2, "rounds; each round runs every server once per command")
	fs.IntVar(&c.threads, "threads", 2, "corvid-bench -t")
	fs.IntVar(&c.clients, "clients", 25, "corvid-bench -c (clients per thread)")
	cmds := fs.String("commands", "", "comma-separated subset of set,get,incr,lpush,sadd,zadd,hset (default: all seven)")
	pipes := fs.String("pipelines", "1,16", "comma-separated pipeline depths, run in this order")
	fs.BoolVar(&c.redisIO2, "redis-io2", true, "also run redis-server with --io-threads 2 --io-threads-do-reads yes")
	fs.BoolVar(&c.corvidIO2, "corvid-io2", false, "also run corvid-server with --io-threads 2 (two event loops on this machine)")
	fs.BoolVar(&c.corvidURing, "corvid-uring", false, "also run corvid-server with its loops on io_uring (--net-engine io_uring)")
	fs.BoolVar(&c.corvidEpoll, "corvid-epoll", false, "also run corvid-server with its loops on epoll (--net-engine epoll)")
	fs.BoolVar(&c.nullEpoll, "null-epoll", false, "run the null server on an epoll loop instead of io_uring")
	fs.BoolVar(&c.null, "null", true, "also run the null server (bench/nullserver -mode uring -raw; see -null-epoll)")
	fs.IntVar(&c.rate, "rate", 0, "corvid-bench --rate-limiting: requests/s per connection, the same for every server (equal-load latency); 0 = unlimited")
	fs.StringVar(&c.clientIO, "client-io", "", "corvid-bench --client-io (epoll, uring or goroutines; default: corvid-bench's)")
	fs.StringVar(&c.out, "out", "/tmp/seed-side-by-side", "output prefix: PREFIX.md, PREFIX.csv, PREFIX.runs.csv, PREFIX.svg")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: bench/seed-side-by-side [flags]\n\n"+
			"corvid-server vs redis-server (and redis-server --io-threads 2, and the null server)\n"+
			"on the seed's 7 commands, alternating servers run by run. Flags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.testTime < 1 || c.rounds < 1 || c.threads < 1 || c.clients < 1 {
		return nil, fmt.Errorf("-time, -rounds, -threads and -clients must be >= 1")
	}
	if c.rate < 0 {
		return nil, fmt.Errorf("-rate must be >= 0")
	}
	if c.clientIO != "" && c.clientIO != "epoll" && c.clientIO != "uring" && c.clientIO != "goroutines" {
		return nil, fmt.Errorf("-client-io must be epoll, uring or goroutines")
	}
	var err error
	if c.commands, err = pickCommands(*cmds); err != nil {
		return nil, err
	}
	if c.pipelines, err = parseInts(*pipes); err != nil {
		return nil, fmt.Errorf("-pipelines: %w", err)
	}
	return c, nil
}

// pickCommands selects seed commands by name, in the order given.
func pickCommands(list string) ([]matrix.SeedCommand, error) {
	if strings.TrimSpace(list) == "" {
		return matrix.SeedCommands, nil
	}
	var out []matrix.SeedCommand
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		found := false
		for _, sc := range matrix.SeedCommands {
			if strings.EqualFold(sc.Name, n) {
				out = append(out, sc)
				found = true
				break
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown seed command %q (have set, get, incr, lpush, sadd, zadd, hset)", n)
		}
	}
	return out, nil
}

// parseInts reads "1,16" into positive integers.
func parseInts(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("want positive integers separated by commas, got %q", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchArgs is corvid-bench's command line for one run (without the
// binary), the same flags `corvid-bench matrix` derives for a seed command.
func benchArgs(c *config, sc matrix.SeedCommand, port string, pipeline int, jsonFile string) []string {
	args := []string{
		"-s", "127.0.0.1", "-p", port,
		"-t", strconv.Itoa(c.threads), "-c", strconv.Itoa(c.clients),
		"--test-time=" + strconv.Itoa(c.testTime),
		"--distinct-client-seed",
		"--command=" + sc.Command,
		"--key-prefix=" + sc.KeyPrefix,
		"--key-minimum=1", "--key-maximum=500",
		"--data-size=128",
	}
	if sc.Data {
		args = append(args, "--random-data")
	}
	args = append(args, "--pipeline="+strconv.Itoa(pipeline), "--hide-histogram")
	if c.rate > 0 {
		args = append(args, "--rate-limiting="+strconv.Itoa(c.rate))
	}
	if c.clientIO != "" {
		args = append(args, "--client-io="+c.clientIO)
	}
	if jsonFile != "" {
		args = append(args, "--json-out-file="+jsonFile)
	}
	return args
}

// benchTemplate is one run's command line with the port left as PORT.
func benchTemplate(c *config, sc matrix.SeedCommand, pipeline int) string {
	return "corvid-bench " + benchproc.ShellJoin(benchArgs(c, sc, "PORT", pipeline, "F.json"))
}

func run(ctx context.Context, c *config) error {
	if _, err := os.Stat("cmd/corvid-server"); err != nil {
		return fmt.Errorf("run from the repository root (bench/seed-side-by-side does this): %w", err)
	}
	tmp, err := os.MkdirTemp("", "seed-side-by-side-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	fmt.Println("building corvid-server, corvid-bench, nullserver ...")
	for _, b := range [][2]string{{"corvid-server", "./cmd/corvid-server"}, {"corvid-bench", "./cmd/corvid-bench"}, {"nullserver", "./bench/nullserver"}} {
		if err := benchproc.Build(ctx, "", tmp+"/"+b[0], b[1], os.Stderr); err != nil {
			return err
		}
	}

	specs := serverSpecs(c, tmp)
	ports, err := benchproc.FreePorts(len(specs))
	if err != nil {
		return err
	}
	var servers []*server
	defer benchproc.StopAll()
	for i, sp := range specs {
		s, err := startServer(sp, ports[i], tmp)
		if err != nil {
			return err
		}
		servers = append(servers, s)
	}
	for _, s := range servers {
		if err := s.waitReady(ctx, 15*time.Second); err != nil {
			return err
		}
	}

	env := machineInfo(c)
	fmt.Println(env.summary())
	for _, s := range servers {
		fmt.Printf("  %-9s pid %-7d port %-5d %s\n", s.Name, s.PID(), s.Port, benchproc.ShellJoin(s.Argv))
	}
	fmt.Printf("per run, e.g.: %s\n", benchTemplate(c, c.commands[0], c.pipelines[0]))
	fmt.Printf("%d pipeline depth(s) x %d command(s) x %d round(s) x %d server(s) x %d s = about %s\n\n",
		len(c.pipelines), len(c.commands), c.rounds, len(servers), c.testTime,
		time.Duration(len(c.pipelines)*len(c.commands)*c.rounds*len(servers)*c.testTime)*time.Second)

	res := newResults(names(servers))
	for _, pl := range c.pipelines {
		for _, sc := range c.commands {
			for r := 1; r <= c.rounds; r++ {
				for _, s := range servers {
					rr, err := measure(ctx, c, tmp, s, sc, pl, r, env.hz)
					if err != nil {
						return err
					}
					res.add(rr)
					fmt.Println(rr.line())
				}
			}
			for _, s := range servers {
				if kib, err := s.RSSKiB(); err == nil {
					res.setRSS(pl, sc.Name, s.Name, uint64(kib))
				}
			}
		}
		fmt.Println()
		fmt.Printf("pipeline %d (ops/s: mean over %d round(s); p50/p99: median over rounds; CPU: server CPU s per 1M ops; RSS after the command's last round)\n",
			pl, c.rounds)
		fmt.Print(renderText(res.tableRows(pl, commandNames(c.commands))))
		for _, n := range res.notes(pl) {
			fmt.Println("note:", n)
		}
		fmt.Println()
		if err := writeOutputs(c, env, res); err != nil {
			return err
		}
	}
	fmt.Printf("wrote %s.md, %s.csv, %s.runs.csv, %s.svg\n", c.out, c.out, c.out, c.out)
	return nil
}

func names(ss []*server) []string {
	var out []string
	for _, s := range ss {
		out = append(out, s.Name)
	}
	return out
}

func commandNames(cs []matrix.SeedCommand) []string {
	var out []string
	for _, sc := range cs {
		out = append(out, sc.Name)
	}
	return out
}
