// Command types (run it as bench/types.sh from the repo root) measures the
// stream, HyperLogLog and geo commands side by side: corvid-server against
// valkey-server 8.0.1, the same settings for both, in one run.
//
// # Servers
//
// Every run gets a fresh server on a free loopback port in a directory of
// its own, in its own session (bench/internal/benchproc: its own process
// group and scheduling group, SIGKILL if this program dies):
//
//	corvid-server|valkey-server --port P --bind 127.0.0.1 --save '' --appendonly no
//	    --dir D [-server-args] [-corvid-args|-valkey-args]
//
// otherwise with their defaults (Valkey: io-threads 1).
//
// # Throughput cases
//
// Each at -threads x -clients connections (2 x 25 = 50), pipeline 1, for
// -time seconds, against -keys keys (1000) picked at random per request:
//
//	xadd       XADD stream:<n> * f <16 random bytes>               (memtier)
//	xreadgroup XREADGROUP GROUP g c<i> COUNT 1 STREAMS stream:<n> >
//	           then XACK stream:<n> g <the id it returned>     (the Go loop)
//	           on streams filled beforehand (group g created at 0, then
//	           -stream-entries entries each, "f" and 16 random bytes);
//	           one read+ack pair is one op
//	pfadd      PFADD hll:<n> <16 random bytes>                     (memtier)
//	pfcount    PFCOUNT hll:<n>                                     (memtier)
//	pfcount3   PFCOUNT hll:<a> hll:<b> hll:<c>, three keys drawn
//	           independently (a union)                             (memtier)
//	           on HLLs filled beforehand: the even ones with 200 distinct
//	           elements (sparse), the odd ones with 5000 (dense); each
//	           server's sparse/dense count is read back (the encoding byte
//	           of the HYLL header) and printed
//	geoadd     GEOADD geo:<n> <lon> <lat> <16 random bytes>        (memtier)
//	           with 64 fixed (lon, lat) pairs drawn once from the whole
//	           valid range, one --command each, cycled by memtier
//	geosearch  GEOSEARCH geo:<n> FROMLONLAT <lon> <lat> BYRADIUS 50 km ASC
//	           COUNT 10                                            (memtier)
//	           over -geo-keys sets (100) of -geo-members members (10,000)
//	           at random points of the box lon 0..10, lat 45..55
//	           (about 90 members within 50 km of a point inside it), with
//	           16 fixed centers inside the box, one --command each
//
// memtier is memtier_benchmark 2.3.0 (-t THREADS -c CLIENTS --pipeline 1
// --distinct-client-seed --command-key-pattern R --random-data
// --data-size 16). The Go loop (xreadgroup, whose XACK needs the id the
// read returned) runs THREADS x CLIENTS goroutines, one connection each,
// one command in flight each, each picking its stream at random per pair;
// its latency is the pair's (two round trips), not one command's. A read
// that finds its stream drained (a nil reply) is counted as "empty" and
// flags the run: -stream-entries is too small for the server's rate (0, the
// default, fills 150 entries per stream per second of -time).
//
// Per run: the throughput (memtier's Totals Ops/sec, or pairs over the
// loop's wall time), p50 and p99 latency, the server's CPU per op
// (utime+stime of the whole process from /proc/PID/stat, read just before
// and just after the load, over the ops), and total_error_replies (INFO
// stats) before and after the load. A run with error replies (memtier
// counts an error reply as an op), empty reads or an unexpected XACK
// reply is flagged: kept out of the medians and listed under the table,
// with INFO errorstats.
//
// # Memory cases
//
//	mem-stream XADD mstream:<k> * f <16 printable random bytes>,
//	           -mem-elements (1,000,000) entries over -mem-keys (100) streams
//	mem-geo    GEOADD mgeo:<k> <lon> <lat> m:<i>, -mem-elements members at
//	           random valid coordinates over -mem-keys sets, 100 per command
//
// On a fresh server: wait -settle, MEMORY PURGE, read used_memory (INFO
// memory) and VmRSS; load the elements pipelined over one connection,
// close it; wait -settle, MEMORY PURGE, read them again. Bytes per element
// is the growth over the elements. (Corvid's used_memory is its own
// accounting of the dataset, Valkey's the allocator's count; the RSS
// columns are the process's.)
//
// # Method
//
// For each round, for each case in -cases, for each server (the order
// rotates round by round), a fresh server: fill if the case needs it,
// then the load, then stop. Figures are medians over the rounds' unflagged
// runs; corvid/valkey ratios are within this one run (ops/s above 1:
// Corvid ahead; CPU per op, latency and bytes per element below 1).
//
// # Output
//
// A line per run as it finishes, then markdown tables on stdout
// (throughput, latency and CPU per case; memory per element; the flagged
// runs); with -out PREFIX also PREFIX.md (the same with the command line)
// and PREFIX.runs.csv (every run).
//
// Flags take their defaults from the environment where it names them
// (TIME=5 bench/types.sh ...).
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
	testTime      int
	rounds        int
	threads       int
	clients       int
	keys          int
	cases         []string
	streamEntries int // per stream for xreadgroup; 0: 150 per second of -time
	geoKeys       int
	geoMembers    int
	memElements   int
	memKeys       int
	settle        time.Duration
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

// entriesPerStream is what xreadgroup fills each stream with.
func (c *config) entriesPerStream() int {
	if c.streamEntries > 0 {
		return c.streamEntries
	}
	return 150 * c.testTime
}

// conns is the number of client connections of a load.
func (c *config) conns() int { return c.threads * c.clients }

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
	fs := flag.NewFlagSet("types", flag.ContinueOnError)
	c := &config{argv: args}
	fs.IntVar(&c.testTime, "time", envInt("TIME", 10), "seconds of load per run (env TIME)")
	fs.IntVar(&c.rounds, "rounds", envInt("ROUNDS", 3), "rounds; each runs every case on every server (env ROUNDS)")
	fs.IntVar(&c.threads, "threads", envInt("THREADS", 2), "memtier -t; the Go loop runs threads x clients connections (env THREADS)")
	fs.IntVar(&c.clients, "clients", envInt("CLIENTS", 25), "memtier -c, clients per thread (env CLIENTS)")
	fs.IntVar(&c.keys, "keys", envInt("KEYS", 1000), "keys of the xadd, xreadgroup, pfadd, pfcount, pfcount3 and geoadd cases (env KEYS)")
	cs := fs.String("cases", envStr("CASES", strings.Join(allCases, ",")), "cases, comma-separated (env CASES): "+strings.Join(allCases, ","))
	fs.IntVar(&c.streamEntries, "stream-entries", envInt("STREAM_ENTRIES", 0), "entries per stream before xreadgroup; 0: 150 per second of -time (env STREAM_ENTRIES)")
	fs.IntVar(&c.geoKeys, "geo-keys", envInt("GEO_KEYS", 100), "sets of the geosearch case (env GEO_KEYS)")
	fs.IntVar(&c.geoMembers, "geo-members", envInt("GEO_MEMBERS", 10000), "members per set of the geosearch case (env GEO_MEMBERS)")
	fs.IntVar(&c.memElements, "mem-elements", envInt("MEM_ELEMENTS", 1000000), "stream entries / geo members of the memory cases (env MEM_ELEMENTS)")
	fs.IntVar(&c.memKeys, "mem-keys", envInt("MEM_KEYS", 100), "keys the memory cases spread them over (env MEM_KEYS)")
	fs.DurationVar(&c.settle, "settle", envDur("SETTLE", time.Second), "wait before each memory reading (env SETTLE)")
	servers := fs.String("servers", envStr("SERVERS", "corvid,valkey"), "server kinds; round 1 runs them in this order, later rounds rotate it (env SERVERS)")
	fs.StringVar(&c.memtier, "memtier", os.Getenv("MEMTIER"), "memtier_benchmark (env MEMTIER; default ../shared/bin, /work/shared/bin, then PATH)")
	fs.StringVar(&c.valkey, "valkey", os.Getenv("VALKEY"), "valkey-server 8.0.1 (env VALKEY; default as -memtier)")
	fs.StringVar(&c.corvid, "corvid", os.Getenv("CORVID"), "a corvid-server binary (env CORVID; default: built from the working tree)")
	fs.StringVar(&c.rev, "rev", os.Getenv("REV"), "build corvid-server at this git revision, from a worktree (env REV)")
	sa := fs.String("server-args", os.Getenv("SERVER_ARGS"), "more arguments for every server, split at spaces (env SERVER_ARGS)")
	ca := fs.String("corvid-args", os.Getenv("CORVID_ARGS"), "more arguments for corvid-server (env CORVID_ARGS)")
	va := fs.String("valkey-args", os.Getenv("VALKEY_ARGS"), "more arguments for valkey-server (env VALKEY_ARGS), e.g. \"--io-threads 2\"")
	fs.StringVar(&c.out, "out", os.Getenv("OUT"), "also write PREFIX.md and PREFIX.runs.csv (env OUT)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: bench/types.sh [flags]\n\n"+
			"Streams, HyperLogLog and geo, corvid-server vs valkey-server 8.0.1: ops/s, server CPU per op,\n"+
			"p50/p99 at 50 clients, error replies; bytes per stream entry and per geo member. Flags:\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if c.testTime < 1 || c.rounds < 1 || c.threads < 1 || c.clients < 1 || c.keys < 1 || c.geoKeys < 1 ||
		c.geoMembers < 1 || c.memElements < 1 || c.memKeys < 1 {
		return nil, fmt.Errorf("-time, -rounds, -threads, -clients, -keys, -geo-keys, -geo-members, -mem-elements and -mem-keys must be >= 1")
	}
	if c.streamEntries < 0 || c.settle < 0 {
		return nil, fmt.Errorf("-stream-entries and -settle must not be negative")
	}
	for _, f := range strings.Split(*cs, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !slices.Contains(allCases, f) {
			return nil, fmt.Errorf("-cases: %q is not one of %s", f, strings.Join(allCases, ","))
		}
		if !slices.Contains(c.cases, f) {
			c.cases = append(c.cases, f)
		}
	}
	if len(c.cases) == 0 {
		return nil, fmt.Errorf("-cases: none given")
	}
	for _, k := range strings.Split(*servers, ",") {
		k = strings.TrimSpace(k)
		if k != "corvid" && k != "valkey" {
			return nil, fmt.Errorf("-servers: corvid and/or valkey, got %q", k)
		}
		if slices.Contains(c.kinds, k) {
			return nil, fmt.Errorf("-servers: %s twice", k)
		}
		c.kinds = append(c.kinds, k)
	}
	c.serverArgs, c.corvidArgs, c.valkeyArgs = strings.Fields(*sa), strings.Fields(*ca), strings.Fields(*va)
	return c, nil
}

// order is the servers of round (1-based): the -servers list rotated by
// round-1.
func order(kinds []string, round int) []string {
	n := len(kinds)
	out := make([]string, n)
	for i := range n {
		out[i] = kinds[(i+round-1)%n]
	}
	return out
}

func main() { benchproc.Main("types", parseFlags, run) }
