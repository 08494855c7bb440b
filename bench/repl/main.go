// Command repl (run it as bench/repl.sh from the repo root) measures
// replication side by side: corvid-server against valkey-server 8.0.1, the
// same settings for both, in one run.
//
// # Servers
//
// Every server is started fresh on a free loopback port in a directory of
// its own, in its own session (bench/internal/benchproc: its own process
// group and scheduling group, SIGKILL if this program dies):
//
//	corvid-server|valkey-server --port P --bind 127.0.0.1 --save '' --appendonly no
//	    --dir D --repl-diskless-sync-delay 0 [-server-args] [-corvid-args|-valkey-args]
//
// Both run with their defaults otherwise: repl-diskless-sync yes (the RDB
// goes straight to the socket: Corvid from its fork-less snapshot, Valkey
// from a forked child), repl-diskless-load disabled (the replica writes the
// RDB to a file, then loads it), repl-backlog-size 10mb.
//
// # Method
//
// For each round and each server kind in turn (corvid, then valkey: the
// two alternate round by round), with one primary per kind that lives for
// the whole run:
//
//  1. (once per kind) the primary is filled with -dataset-mb of values of
//     -value-size random (incompressible) bytes, keys key:0 ... key:N-1,
//     SET pipelined over 4 connections.
//  2. For every count in -replicas (ascending, default 0,1,2): replicas
//     are started fresh (an empty server with no history, so each attach is
//     a full sync) and attached one by one until there are that many. Each
//     attach is a full sync, timed (a) from REPLICAOF until the replica
//     reports master_link_status:up and its slave_repl_offset has reached
//     the primary's master_repl_offset read just before (INFO replication,
//     polled every 10 ms); "link up" is the first half alone. The first
//     replica's sync is the dataset's full sync time; later ones are
//     reported apart (a replica already attached, no load either way).
//     The CPU the primary and the replica spent on it is read from
//     /proc/PID/stat with the children's (Valkey's forked RDB child is
//     counted once it is reaped: the primary's rdb_bgsave_in_progress is
//     waited for before the second reading).
//  3. Then the load phase (b, c): the seed SET (memtier_benchmark 2.3.0,
//     -t 2 -c 25, --ratio 1:0 as "set __key__ __data__", 128-byte random
//     values, keys kv_1..kv_500 at random, pipeline 1; -threads and
//     -clients change the client counts) for -time seconds against the
//     primary, and meanwhile
//     - a lag sampler: every -lag-interval, INFO replication on the
//     primary (master_repl_offset), then on each replica
//     (slave_repl_offset), then on the primary again; the lag is the mean
//     of the two primary offsets minus the replica's, in bytes (below 0
//     counts as 0), exact to within half the primary's two readings'
//     difference (reported as +-, the median over samples).
//     Reported per phase: p50, p99 and max over every (sample, replica),
//     the p50 of the first and of the last quarter of the phase, the
//     least-squares slope (bytes/s), and "grows" when the last quarter's
//     p50 is above twice the first's and above 64 KB;
//     - a probe client: every -probe-interval it SETs replprobe to a
//     value never used before on the primary and polls GET replprobe on
//     every replica (each 100 us until it returns that value, 10 s at
//     most); the time from sending the SET to the GET that returned it is
//     the write's visibility latency on that replica (p50, p99, max over
//     every (probe, replica)). With 0 replicas it polls the primary itself,
//     so every phase carries the same extra client (the baseline is one
//     round trip).
//     Throughput (memtier's Totals Ops/sec, p50, p99) and the primary's CPU
//     per op (utime+stime over memtier's Count) are compared with the 0
//     replicas phase of the same server and round; the replicas' CPU per
//     op is their mean.
//  4. The replicas are stopped (their directories removed) before the
//     next kind runs.
//
// Figures are medians over rounds (lag and visibility percentiles: over
// the samples of every round). Each table ends with corvid/valkey rows:
// ratios within this one run (throughput above 1: Corvid ahead; sync time,
// CPU, lag and visibility below 1: Corvid ahead).
//
// # Output
//
// One line per sync and per load phase as they finish, then the three
// tables (markdown) on stdout; with -out PREFIX also PREFIX.md (the same,
// with the exact command line) and PREFIX.runs.csv (every sync and phase).
//
// Flags take their defaults from the environment where it names them
// (DATASET_MB=64 bench/repl.sh ...).
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// config is the parsed command line.
type config struct {
	datasetMB     int
	valueSize     int
	testTime      int
	rounds        int
	threads       int
	clients       int
	replicas      []int
	lagInterval   time.Duration
	probeInterval time.Duration
	syncTimeout   time.Duration
	kinds         []string
	memtier       string
	valkey        string
	corvid        string // a corvid-server binary; "" builds one
	rev           string // build corvid-server at this revision (a worktree)
	serverArgs    []string
	corvidArgs    []string
	valkeyArgs    []string
	out           string
	argv          []string
}

func (c *config) keys() int { return int(int64(c.datasetMB) << 20 / int64(c.valueSize)) }

func envStr(name, def string) string {
	if v, ok := os.LookupEnv(name); ok && v != "" {
		return v
	}
	return def
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func envDur(name string, def time.Duration) time.Duration {
	if v, err := time.ParseDuration(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("repl", flag.ContinueOnError)
	c := &config{argv: args}
	fs.IntVar(&c.datasetMB, "dataset-mb", envInt("DATASET_MB", 1024), "dataset to full-sync, MiB of values (env DATASET_MB)")
	fs.IntVar(&c.valueSize, "value-size", envInt("VALUE_SIZE", 1024), "bytes per value of the dataset (env VALUE_SIZE)")
	fs.IntVar(&c.testTime, "time", envInt("TIME", 20), "seconds of load per phase (env TIME)")
	fs.IntVar(&c.rounds, "rounds", envInt("ROUNDS", 1), "rounds; each round syncs the replicas again and runs every phase (env ROUNDS)")
	fs.IntVar(&c.threads, "threads", envInt("THREADS", 2), "memtier -t (env THREADS)")
	fs.IntVar(&c.clients, "clients", envInt("CLIENTS", 25), "memtier -c, clients per thread (env CLIENTS)")
	reps := fs.String("replicas", envStr("REPLICAS", "0,1,2"), "replica counts of the load phases (env REPLICAS)")
	fs.DurationVar(&c.lagInterval, "lag-interval", envDur("LAG_INTERVAL", 10*time.Millisecond), "lag sampling period (env LAG_INTERVAL)")
	fs.DurationVar(&c.probeInterval, "probe-interval", envDur("PROBE_INTERVAL", 20*time.Millisecond), "time between visibility probes (env PROBE_INTERVAL)")
	fs.DurationVar(&c.syncTimeout, "sync-timeout", envDur("SYNC_TIMEOUT", 15*time.Minute), "give up on a full sync after this long (env SYNC_TIMEOUT)")
	servers := fs.String("servers", envStr("SERVERS", "corvid,valkey"), "server kinds, in this order each round (env SERVERS)")
	fs.StringVar(&c.memtier, "memtier", os.Getenv("MEMTIER"), "memtier_benchmark (env MEMTIER; default ../shared/bin, /work/shared/bin, then PATH)")
	fs.StringVar(&c.valkey, "valkey", os.Getenv("VALKEY"), "valkey-server 8.0.1 (env VALKEY; default as -memtier)")
	fs.StringVar(&c.corvid, "corvid", os.Getenv("CORVID"), "a corvid-server binary (env CORVID; default: built from the working tree)")
	fs.StringVar(&c.rev, "rev", os.Getenv("REV"), "build corvid-server at this git revision, from a worktree (env REV)")
	sa := fs.String("server-args", os.Getenv("SERVER_ARGS"), "more arguments for every server, split at spaces (env SERVER_ARGS), e.g. \"--repl-diskless-sync no\"")
	ca := fs.String("corvid-args", os.Getenv("CORVID_ARGS"), "more arguments for corvid-server (env CORVID_ARGS)")
	va := fs.String("valkey-args", os.Getenv("VALKEY_ARGS"), "more arguments for valkey-server (env VALKEY_ARGS)")
	fs.StringVar(&c.out, "out", os.Getenv("OUT"), "also write PREFIX.md and PREFIX.runs.csv (env OUT)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: bench/repl.sh [flags]\n\n"+
			"Replication, corvid-server vs valkey-server 8.0.1: full sync time of a dataset, the primary's\n"+
			"seed-SET throughput with 0, 1, 2 replicas, replication lag and write visibility. Flags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.datasetMB < 0 || c.valueSize < 1 || c.testTime < 1 || c.rounds < 1 || c.threads < 1 || c.clients < 1 {
		return nil, fmt.Errorf("-dataset-mb must be >= 0; -value-size, -time, -rounds, -threads and -clients >= 1")
	}
	if c.lagInterval <= 0 || c.probeInterval <= 0 {
		return nil, fmt.Errorf("-lag-interval and -probe-interval must be positive")
	}
	for _, f := range strings.Split(*reps, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 0 || n > 8 {
			return nil, fmt.Errorf("-replicas: want counts 0..8 separated by commas, got %q", *reps)
		}
		if !slices.Contains(c.replicas, n) {
			c.replicas = append(c.replicas, n)
		}
	}
	slices.Sort(c.replicas)
	for _, k := range strings.Split(*servers, ",") {
		k = strings.TrimSpace(k)
		if k != "corvid" && k != "valkey" {
			return nil, fmt.Errorf("-servers: corvid and/or valkey, got %q", k)
		}
		c.kinds = append(c.kinds, k)
	}
	c.serverArgs, c.corvidArgs, c.valkeyArgs = strings.Fields(*sa), strings.Fields(*ca), strings.Fields(*va)
	return c, nil
}

func main() { benchproc.Main("repl", parseFlags, run) }
