package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/keygen"
	"github.com/corvid-kv/corvid/internal/bench/matrix"
	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/report"
	"github.com/corvid-kv/corvid/internal/bench/sla"
	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/server"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// valkeyPath finds valkey-server as tests/testutil does (CORVID_VALKEY_SERVER,
// ../shared/bin beside the repository, PATH), or skips; with
// CORVID_REQUIRE_VALKEY set a missing binary fails the test.
func valkeyPath(t *testing.T) string {
	t.Helper()
	cands := []string{os.Getenv("CORVID_VALKEY_SERVER"), filepath.Join("..", "..", "..", "shared", "bin", "valkey-server")}
	if p, err := exec.LookPath("valkey-server"); err == nil {
		cands = append(cands, p)
	}
	for _, p := range cands {
		if st, err := os.Stat(p); p != "" && err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			abs, _ := filepath.Abs(p)
			return abs
		}
	}
	if os.Getenv("CORVID_REQUIRE_VALKEY") != "" {
		t.Fatal("valkey-server not found but CORVID_REQUIRE_VALKEY is set")
	}
	t.Skip("valkey-server not found (CORVID_VALKEY_SERVER, ../shared/bin, PATH)")
	return ""
}

// A tiny side-by-side matrix: Corvid (this test binary as a child
// process) and valkey-server, one command, one round. The table must have
// both columns, a ratio block with Corvid at 1.00x and a positive finite
// ratio for Valkey, server CPU and RSS for both, and files compare reads.
// No timing thresholds: the machine is shared.
func TestSideBySideMatrix(t *testing.T) {
	vk := valkeyPath(t)
	old := ServeChild
	ServeChild = server.ServeArgs
	t.Cleanup(func() { ServeChild = old })
	out := filepath.Join(t.TempDir(), "m")
	stdout, stderr, code := run(t, "matrix", "--commands", "get", "--rounds", "1", "--test-time", "1", "-t", "1", "-c", "2",
		"--no-discover", "--server", "valkey="+vk, "--io-threads", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
	if !strings.Contains(stdout, "corvid") || !strings.Contains(stdout, "valkey") || !strings.Contains(stdout, "vs corvid") {
		t.Fatalf("table lacks a column:\n%s", stdout)
	}
	tab, err := report.ReadAll([]report.Source{report.ParseSource(out + ".json")}, report.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Targets, ","); got != "corvid,valkey" {
		t.Fatalf("targets %s", got)
	}
	s := tab.Scenarios[0]
	for _, tg := range tab.Targets {
		r, ok := tab.Ratio(s, "get", tg)
		if !ok || !(r > 0) || r > 1e6 {
			t.Errorf("%s: ratio %v %v", tg, r, ok)
		}
		d := s.Detail["get"][tg]
		if d.P50Ms <= 0 || d.P99Ms < d.P50Ms || d.P999Ms < d.P99Ms || d.CPUUsPerOp <= 0 || d.RSSBytes == 0 || d.Rounds != 1 {
			t.Errorf("%s: detail %+v", tg, d)
		}
	}
	if r, _ := tab.Ratio(s, "get", "corvid"); r != 1 {
		t.Errorf("baseline ratio %v", r)
	}
	for _, f := range []string{".svg", "-latency.svg", ".csv"} {
		if st, err := os.Stat(out + f); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
	// compare the run with itself: every ratio is 1.00x.
	cmp, _, code := run(t, "compare", out+".json", out+".json")
	if code != 0 || strings.Count(cmp, "1.00x") < 4 {
		t.Fatalf("compare: %d\n%s", code, cmp)
	}
	// The stderr log names each server's run.
	if !strings.Contains(stderr, "get round 1/1: valkey") || !strings.Contains(stderr, "started corvid") {
		t.Errorf("log: %s", stderr)
	}
}

func TestCompareCommand(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.csv"), filepath.Join(dir, "b.csv")
	os.WriteFile(a, []byte("scenario,io_threads,command,corvid,valkey\n1,1,get,100,80\n1,1,set,100,50\n"), 0o644)
	os.WriteFile(b, []byte("scenario,io_threads,command,corvid,valkey\n1,1,get,120,80\n1,1,set,50,100\n"), 0o644)
	out, errOut, code := run(t, "compare", a, b)
	if code != 0 {
		t.Fatalf("%d %s", code, errOut)
	}
	for _, want := range []string{"1.20x", "0.50x", "2.00x", "total"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"compare", a}, 2, "exactly two"},
		{[]string{"compare", a, filepath.Join(dir, "none.json")}, 1, "no such file"},
	} {
		if _, errOut, code := run(t, c.args...); code != c.code || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: %d %s", c.args, code, errOut)
		}
	}
}

func TestScenarios(t *testing.T) {
	// 003 starts clusters itself: not with --target; --shards is bounded.
	if _, errOut, code := run(t, "matrix", "--scenario", "003", "--target", "a=127.0.0.1:1"); code != 2 || !strings.Contains(errOut, "do not combine") {
		t.Fatalf("003+target: %d %s", code, errOut)
	}
	if _, errOut, code := run(t, "matrix", "--scenario", "003", "--shards", "0"); code != 2 || !strings.Contains(errOut, "--shards must be") {
		t.Fatalf("003 --shards 0: %d %s", code, errOut)
	}
	if _, errOut, code := run(t, "matrix", "--scenario=9"); code != 2 || !strings.Contains(errOut, "unknown --scenario") {
		t.Fatalf("9: %d %s", code, errOut)
	}
	// 004 is the normalization of any table: the seed's own numbers with
	// the seed-000 prices give the article's price-performance row.
	ref := filepath.Join("testdata", "seed-000-graviton4-valkey.csv")
	out, errOut, code := run(t, "matrix", "--scenario", "004", "--prices", "seed-000", "--baseline", "r6i", ref)
	if code != 0 || !strings.Contains(out, "143%") || !strings.Contains(out, "baseline: r6i") {
		t.Fatalf("004: %d %s\n%s", code, errOut, out)
	}
	// Without prices it uses the seed-004 table (RDS names).
	p := filepath.Join(t.TempDir(), "qps.txt")
	os.WriteFile(p, []byte("mysql-db.m6g.xlarge,1000\nmysql-db.m7g.xlarge,1290\n"), 0o644)
	out, errOut, code = run(t, "matrix", "--scenario", "004", p)
	if code != 0 || !strings.Contains(out, "111%") || !strings.Contains(out, "117%") {
		t.Fatalf("004 seed prices: %d %s\n%s", code, errOut, out)
	}
	out, _, code = run(t, "prices")
	if code != 0 || !strings.Contains(out, "seed-004") {
		t.Fatalf("prices: %d %s", code, out)
	}
	// --scenario 001 and --server name=path start servers: not with --target.
	if _, errOut, code := run(t, "matrix", "--scenario", "001", "--target", "a=127.0.0.1:1"); code != 2 || !strings.Contains(errOut, "do not combine") {
		t.Fatalf("001+target: %d %s", code, errOut)
	}
	if _, errOut, code := run(t, "matrix", "--server", "valkey="); code != 2 || !strings.Contains(errOut, "name=/path") {
		t.Fatalf("bad --server: %d %s", code, errOut)
	}
}

func TestScanScenario(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--scenario", "001", "-t", "1"}, "001"},
		{[]string{"--scenario=002"}, "002"},
		{[]string{"--", "--scenario", "001"}, ""},
		{[]string{"--scenario"}, ""},
	}
	for _, c := range cases {
		if got := scanScenario(c.args); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
	if got := without([]string{"--scenario", "004", "a", "--scenario=004", "b"}, "scenario"); strings.Join(got, " ") != "a b" {
		t.Errorf("without: %v", got)
	}
	if !hasOpt([]string{"--prices=x"}, "price", "prices") || hasOpt([]string{"--pricey"}, "price") {
		t.Error("hasOpt")
	}
}

func TestSLAMedians(t *testing.T) {
	p := func(ops, p50, p99 float64) *sla.Point { return &sla.Point{OpsSec: ops, P50Ms: p50, PctMs: p99} }
	cases := []struct {
		name          string
		in            []*sla.Point
		ops, p50, p99 float64
		met           int
	}{
		{"none", nil, 0, 0, 0, 0},
		{"all met", []*sla.Point{p(100, 0.1, 0.5), p(300, 0.3, 0.9), p(200, 0.2, 0.7)}, 200, 0.2, 0.7, 3},
		{"one missed counts as 0", []*sla.Point{p(100, 0.1, 0.5), nil, p(300, 0.3, 0.9)}, 100, 0.2, 0.7, 2},
		{"never met", []*sla.Point{nil, nil}, 0, 0, 0, 0},
	}
	for _, c := range cases {
		ops, p50, p99, met := SLAMedians(c.in)
		if ops != c.ops || p50 != c.p50 || p99 != c.p99 || met != c.met {
			t.Errorf("%s: %v %v %v %d", c.name, ops, p50, p99, met)
		}
	}
}

// Scenario 003 for a second per row: Corvid (this test binary as child
// processes) and, when found, Valkey, each a cluster of three primaries
// formed by corvid-bench itself. Every cell has ops, the MOVED/ASK rates
// (zero for a stable cluster, but present), latency, and CPU and RSS
// summed over the nodes; stdout has the article's memtier tables. A peer
// that cannot run as a cluster (here /bin/false) is left out with a note.
// No timing thresholds: the machine is shared.
func TestScenario003Cluster(t *testing.T) {
	old := ServeChild
	ServeChild = server.ServeArgs
	t.Cleanup(func() { ServeChild = old })
	out := filepath.Join(t.TempDir(), "c")
	args := []string{"matrix", "--scenario", "003", "--rounds", "1", "--test-time", "1", "-t", "1", "-c", "2", "--no-discover", "--out", out}
	want := []string{"corvid"}
	if testutil.HaveValkey(t) {
		args = append(args, "--server", "valkey="+testutil.ValkeyServerLookup())
		want = append(want, "valkey")
	}
	args = append(args, "--server", "nocluster=/bin/false")
	stdout, stderr, code := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", code, stderr, stdout)
	}
	tab, err := report.ReadAll([]report.Source{report.ParseSource(out + ".json")}, report.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(tab.Targets, ","); got != strings.Join(append(want, "nocluster"), ",") {
		t.Fatalf("targets %s, want %v and nocluster", got, want)
	}
	if _, ok := tab.Scenarios[0].Ops["random"]["nocluster"]; ok || !strings.Contains(stdout, "note: nocluster left out of scenario 003: cannot run as a cluster") {
		t.Errorf("nocluster not left out:\n%s", stdout)
	}
	s := tab.Scenarios[0]
	if s.ID != "003" || strings.Join(s.Commands, ",") != "random,gaussian" {
		t.Fatalf("scenario %s rows %v", s.ID, s.Commands)
	}
	for _, row := range s.Commands {
		for _, tg := range want {
			ops := s.Ops[row][tg]
			d := s.Detail[row][tg]
			if !(ops > 0) || d.MovedSec == nil || d.AskSec == nil || d.AvgMs <= 0 || d.P99Ms < d.P50Ms || d.CPUUsPerOp <= 0 || d.RSSBytes == 0 {
				t.Errorf("%s %s: ops %v detail %+v", row, tg, ops, d)
			}
		}
	}
	for _, w := range []string{"MOVED/sec", "ASK/sec", "avg ms", "vs corvid", "price-performance (normalized)", "every server runs as a cluster of 3 primaries"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q:\n%s", w, stdout)
		}
	}
	// The article's form: memtier's ALL STATS per server and row.
	if n := strings.Count(stdout, "ALL STATS"); n != 2*len(want) {
		t.Errorf("%d ALL STATS tables, want %d:\n%s", n, 2*len(want), stdout)
	}
	for _, tg := range want {
		for _, row := range []string{"random", "gaussian"} {
			if !strings.Contains(stdout, "== "+tg+", "+row+":") {
				t.Errorf("no %s %s table", tg, row)
			}
		}
		if !strings.Contains(stderr, "started "+tg+": a cluster of 3 primaries") {
			t.Errorf("log lacks %s's cluster: %s", tg, stderr)
		}
	}
	if !strings.Contains(stderr, "--cluster-mode --ratio=1:4 --key-pattern=G:G") {
		t.Errorf("log lacks the Gaussian row's memtier line: %s", stderr)
	}
}

func TestSeed003Config(t *testing.T) {
	cfg := options.Defaults()
	seed003Defaults(cfg)
	rest, err := options.ParseInto(cfg, []string{"-t", "3"})
	if err != nil || len(rest) != 0 {
		t.Fatal(rest, err)
	}
	seed003AfterParse(cfg)
	cfg.TestTime = time.Second
	if err := cfg.Finalize(); err != nil {
		t.Fatal(err)
	}
	rows := seed003Rows(cfg)
	r, g := rows[0].Cfg, rows[1].Cfg
	if rows[0].Name != "random" || r.Threads != 3 || r.Clients != 50 || !r.ClusterMode || !r.RandomData || r.Ratio.String() != "1:4" ||
		r.DataSizeRange != [2]int{1024, 4096} || r.DataSizePattern != 'S' || r.KeyPattern[0] != 'R' {
		t.Errorf("random row %+v", r)
	}
	if rows[1].Name != "gaussian" || g.Threads != 6 || g.KeyPattern != [2]keygen.Pattern{'G', 'G'} || r.KeyPattern[1] != 'R' {
		t.Errorf("gaussian row threads %d pattern %c:%c", g.Threads, g.KeyPattern[0], g.KeyPattern[1])
	}
	// A size on the command line replaces the article's range.
	cfg = options.Defaults()
	seed003Defaults(cfg)
	if _, err := options.ParseInto(cfg, []string{"-d", "100"}); err != nil {
		t.Fatal(err)
	}
	seed003AfterParse(cfg)
	cfg.TestTime = time.Second
	if err := cfg.Finalize(); err != nil || cfg.DataSize != 100 || cfg.DataSizeRange[1] != 0 {
		t.Errorf("-d 100: %v %d %v", err, cfg.DataSize, cfg.DataSizeRange)
	}
}

func TestMedianRound(t *testing.T) {
	cases := []struct {
		ops  []float64
		want int
	}{
		{nil, -1},
		{[]float64{5}, 0},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 3},   // the lower middle: 2
		{[]float64{10, 10, 1000}, 1}, // ties keep round order
	}
	for _, c := range cases {
		if got := medianRound(c.ops); got != c.want {
			t.Errorf("medianRound(%v) = %d, want %d", c.ops, got, c.want)
		}
	}
}

// The article's tables are per scenario (io-threads setting): rounds of
// different scenarios are not mixed.
func TestRunResultsPerScenario(t *testing.T) {
	mk := func(ops uint64) *stats.Result {
		start := time.Unix(0, 0)
		c := &stats.Cmd{Name: "Gets", TrackHits: true, Hist: stats.NewHist(), Counters: stats.Counters{Ops: ops}}
		_ = c.Hist.RecordValue(1000)
		return &stats.Result{Start: start, End: start.Add(time.Second), Cmds: []*stats.Cmd{c}, Cluster: true}
	}
	var r runResults
	r.add("003-1", "corvid", "random", 1, mk(100))
	r.add("003-2", "corvid", "random", 1, mk(900))
	r.add("003-1", "corvid", "random", 2, mk(300))
	r.add("003-1", "corvid", "random", 3, mk(200))
	cfg := options.Defaults()
	var b strings.Builder
	r.writeArticleTables(&b, []matrix.Row{{Name: "random", Cfg: cfg}}, []string{"corvid"}, []float64{50})
	out := b.String()
	if !strings.Contains(out, "== scenario 003-1, corvid, random: -t 4 -c 50 --key-pattern=R:R, round 3 of 3") ||
		!strings.Contains(out, "== scenario 003-2, corvid, random: -t 4 -c 50 --key-pattern=R:R, round 1 of 1") ||
		!strings.Contains(out, "200.00") || !strings.Contains(out, "900.00") || strings.Contains(out, "300.00") {
		t.Errorf("tables:\n%s", out)
	}
}
