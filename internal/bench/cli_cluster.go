package bench

import (
	"fmt"
	"io"
	"sort"

	"github.com/corvid-kv/corvid/internal/bench/keygen"
	"github.com/corvid-kv/corvid/internal/bench/matrix"
	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/report"
	"github.com/corvid-kv/corvid/internal/bench/stats"
)

// Scenario 003 (ElastiCache cluster mode, r5 against r6g): each server
// runs as a cluster of --shards primaries and two workloads run against
// it in cluster mode, the article's memtier lines:
//
//	memtier_benchmark -R --data-size-range=1024-4096 --data-size-pattern=S --ratio=1:4 -t 10 -c 50 --cluster-mode --test-time 180
//	memtier_benchmark ... -t 20 -c 50 --key-pattern=G:G ...
//
// Besides matrix's table, stdout gets memtier's ALL STATS table (Sets,
// Gets, Waits, Totals with MOVED/sec and ASK/sec) of each server's median
// round, the form in which the article prints its results.

// defaultShards is the article's three nodes, one primary per shard.
const defaultShards = 3

// Row names of scenario 003.
const (
	rowRandom   = "random"
	rowGaussian = "gaussian"
)

// seed003Defaults sets the article's flags before the command line is
// parsed (so any of them can be overridden): -R --data-size-pattern=S
// --ratio=1:4 -t 10 -c 50 --cluster-mode.
func seed003Defaults(cfg *options.Config) {
	cfg.Threads, cfg.Clients = 10, 50
	cfg.RandomData = true
	cfg.DataSizePattern = 'S'
	cfg.Ratio = options.Ratio{Set: 1, Get: 4}
	cfg.ClusterMode = true
}

// seed003AfterParse adds --data-size-range=1024-4096 unless the command
// line gave a size (-d or --data-size-range), which memtier would reject
// as mutually exclusive with it.
func seed003AfterParse(cfg *options.Config) {
	if cfg.DataSize == 0 && cfg.DataSizeRange[1] == 0 {
		cfg.DataSizeRange = [2]int{1024, 4096}
	}
}

// seed003Rows are the article's two tests: random keys with the given
// threads (its 测试场景1, 10 x 50 = 500 connections), and Gaussian keys
// (--key-pattern=G:G) with twice the threads (测试场景2, 1000).
func seed003Rows(cfg *options.Config) []matrix.Row {
	rnd := *cfg
	rnd.ClusterMode = true
	rnd.Embedded = false
	g := rnd
	g.KeyPattern = [2]keygen.Pattern{keygen.Gaussian, keygen.Gaussian}
	g.Threads = 2 * rnd.Threads
	return []matrix.Row{{Name: rowRandom, Cfg: &rnd}, {Name: rowGaussian, Cfg: &g}}
}

// seed003Notes say how the clusters were built and what ran.
func seed003Notes(shards int, rows []matrix.Row, ioThreads bool) []string {
	io := "the servers' default io-threads"
	if ioThreads {
		io = "the scenario's --io-threads"
	}
	notes := []string{
		fmt.Sprintf("scenario 003: every server runs as a cluster of %d %s, no replicas (the article: an ElastiCache cluster-mode cluster of three nodes, each a shard's primary); every node: own process on a free 127.0.0.1 port with its own cluster bus port (--cluster-port), temp dir and nodes.conf, "+
			"--cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 15000 --save \"\" --appendonly no --maxmemory 0 --maxmemory-policy noeviction, %s",
			shards, primaries(shards), io),
		"scenario 003: clusters formed over the client protocol, no valkey-cli: CLUSTER ADDSLOTSRANGE (the 16384 slots split evenly, as valkey-cli --cluster create), CLUSTER SET-CONFIG-EPOCH, CLUSTER MEET, then a wait until every node reported cluster_state:ok, every node known and the same slot map",
	}
	for _, r := range rows {
		c := r.Cfg
		notes = append(notes, fmt.Sprintf("scenario 003 %s: -t %d -c %d (%d connections) --ratio=%s --key-pattern=%c:%c, %s values, --cluster-mode, --test-time %s",
			r.Name, c.Threads, c.Clients, c.Threads*c.Clients, c.Ratio, c.KeyPattern[0], c.KeyPattern[1], sizeText(c), c.TestTime))
	}
	return append(notes,
		"scenario 003: every run starts from an empty cluster (FLUSHALL on every node before and after it, so the servers start equal and one run's data does not stay in memory); the article's clusters held earlier runs' data (its GETs hit 99%)",
		"scenario 003: ops/sec, MOVED/sec and ASK/sec are the cluster's totals; cpu µs/op and rss are summed over the cluster's nodes (/proc/PID/stat utime+stime, VmRSS)")
}

func primaries(n int) string {
	if n == 1 {
		return "primary"
	}
	return "primaries"
}

func sizeText(c *options.Config) string {
	if c.DataSizeRange[1] != 0 {
		return fmt.Sprintf("%d-%d byte (--data-size-pattern=%c)", c.DataSizeRange[0], c.DataSizeRange[1], c.DataSizePattern)
	}
	return fmt.Sprintf("%d-byte", c.DataSize)
}

// runResults collects every run of a side-by-side matrix: scenario ->
// row -> server -> rounds in order.
type runResults struct {
	scenarios []string
	m         map[string]map[string]map[string][]*stats.Result
}

func (r *runResults) add(scenario, server, row string, _ int, res *stats.Result) {
	if r.m == nil {
		r.m = map[string]map[string]map[string][]*stats.Result{}
	}
	if r.m[scenario] == nil {
		r.m[scenario] = map[string]map[string][]*stats.Result{}
		r.scenarios = append(r.scenarios, scenario)
	}
	if r.m[scenario][row] == nil {
		r.m[scenario][row] = map[string][]*stats.Result{}
	}
	r.m[scenario][row][server] = append(r.m[scenario][row][server], res)
}

// medianRound is the index of the round whose total ops/sec is the
// median (the lower of the two middle ones for an even count); -1 for
// none.
func medianRound(ops []float64) int {
	if len(ops) == 0 {
		return -1
	}
	idx := make([]int, len(ops))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return ops[idx[a]] < ops[idx[b]] })
	return idx[(len(idx)-1)/2]
}

// writeArticleTables prints memtier's ALL STATS table of each server's
// median round, scenario by scenario and row by row, servers in the
// table's order (the article: r5 first, r6g after).
func (r *runResults) writeArticleTables(w io.Writer, rows []matrix.Row, servers []string, pcts []float64) {
	for _, sc := range r.scenarios {
		label := ""
		if len(r.scenarios) > 1 {
			label = "scenario " + sc + ", "
		}
		for _, row := range rows {
			for _, sv := range servers {
				runs := r.m[sc][row.Name][sv]
				var ops []float64
				for _, x := range runs {
					ops = append(ops, stats.TotalOps(x))
				}
				i := medianRound(ops)
				if i < 0 {
					continue
				}
				fmt.Fprintf(w, "== %s%s, %s: -t %d -c %d --key-pattern=%c:%c, round %d of %d (the median ops/sec) ==",
					label, sv, row.Name, row.Cfg.Threads, row.Cfg.Clients, row.Cfg.KeyPattern[0], row.Cfg.KeyPattern[1], i+1, len(runs))
				stats.WriteTable(w, "ALL STATS", stats.Rows(runs[i], pcts), true, pcts)
				fmt.Fprintln(w)
			}
		}
	}
}

// seed003PriceNote explains prices for clusters: a cluster costs its
// node count times the node price, the same count for every server here.
func seed003PriceNote(tab *report.Table, shards int, to *tableOpts) {
	if to.priceFile != "" || len(to.prices) > 0 {
		tab.Notes = append(tab.Notes, fmt.Sprintf("scenario 003: prices are per node (the article compares instance prices: --prices seed-003 has r5 100, r6g 95); every cluster here has %d %s, so the ratio of cluster prices is the ratio of node prices", shards, plural(shards, "node")))
	}
}
