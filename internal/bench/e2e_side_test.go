package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/bench/report"
	"github.com/corvid-kv/corvid/internal/bench/sla"
	"github.com/corvid-kv/corvid/internal/server"
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
	// 003 needs cluster mode.
	if _, errOut, code := run(t, "matrix", "--scenario", "003"); code != 1 || !strings.Contains(errOut, "needs cluster mode") {
		t.Fatalf("003: %d %s", code, errOut)
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
