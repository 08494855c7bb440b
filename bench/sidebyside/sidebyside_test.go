package main

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"
)

func TestParseBenchJSON(t *testing.T) {
	doc := `{"ALL STATS": {"Runtime": {"Total duration": 1000},
	  "Sets": {"Ops/sec": 1, "Count": 1},
	  "Totals": {"Count": 34196, "Errors": 2, "Ops/sec": 34190.61,
	    "Percentile Latencies": {"p50.00": 0.04608, "p99.00": 0.22886, "p99.90": 0.6016}}},
	  "configuration": {"pipeline": 1}}`
	got, err := parseBenchJSON([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	want := benchTotals{OpsSec: 34190.61, Ops: 34196, Errors: 2, P50: 0.04608, P99: 0.22886, DurationMs: 1000}
	if got != want {
		t.Fatalf("parseBenchJSON = %+v, want %+v", got, want)
	}
	if _, err := parseBenchJSON([]byte(`{"ALL STATS": {}}`)); err == nil {
		t.Fatal("no Totals: no error")
	}
	if _, err := parseBenchJSON([]byte(`{"ALL STATS": {"Totals": {"Ops/sec": 1, "Percentile Latencies": {"p50.00": 1}}}}`)); err == nil {
		t.Fatal("no p99: no error")
	}
}

func TestRatioMeanMedian(t *testing.T) {
	for _, c := range []struct {
		a, b float64
		ok   bool
		want string
	}{{3, 2, true, "1.50x"}, {1, 3, true, "0.33x"}, {1, 0, true, "n/a"}, {1, 2, false, "n/a"}} {
		if got := ratio(c.a, c.b, c.ok); got != c.want {
			t.Errorf("ratio(%v, %v, %v) = %q, want %q", c.a, c.b, c.ok, got, c.want)
		}
	}
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median odd = %v", m)
	}
	if m := median([]float64{4, 1}); m != 2.5 {
		t.Errorf("median even = %v", m)
	}
	if m := mean([]float64{1, 2, 6}); m != 3 {
		t.Errorf("mean = %v", m)
	}
	if v, ok := per1M(1.5, 100000); !ok || v != 15 {
		t.Errorf("per1M = %v, %v; want 15", v, ok)
	}
	if _, ok := per1M(1, 0); ok {
		t.Error("per1M with no ops is ok")
	}
}

// sample is two commands, two rounds, corvid and redis only.
func sample() *results {
	r := newResults([]string{nCorvid, nRedis})
	add := func(cmd, srv string, round int, ops float64, n uint64, cpu, p50, p99 float64) {
		r.add(runResult{Pipeline: 1, Command: cmd, Round: round, Server: srv, CPUSec: cpu,
			benchTotals: benchTotals{OpsSec: ops, Ops: n, P50: p50, P99: p99}})
	}
	add("set", nCorvid, 1, 60000, 600000, 6, 0.4, 1.0)
	add("set", nRedis, 1, 40000, 400000, 6, 0.6, 1.2)
	add("set", nCorvid, 2, 40000, 400000, 4, 0.6, 2.0)
	add("set", nRedis, 2, 40000, 400000, 6, 0.6, 1.6)
	add("get", nCorvid, 1, 50000, 500000, 5, 0.5, 1.0)
	add("get", nRedis, 1, 25000, 250000, 5, 0.9, 1.0)
	r.setRSS(1, "set", nCorvid, 20480)
	r.setRSS(1, "set", nRedis, 10240)
	return r
}

func TestTableRows(t *testing.T) {
	r := sample()
	rows := r.tableRows(1, []string{"set", "get"})
	want := [][]string{
		{"command", "corvid ops/s", "redis ops/s", "c/r", "p50 ms c/r", "p99 ms c/r", "CPU s/1M ops c/r", "CPU c/r", "RSS MiB c/r"},
		// set: ops mean 50000 vs 40000; p50 median 0.5 vs 0.6; CPU 10 s / 1M ops vs 12 s / 0.8M ops
		{"set", "50,000", "40,000", "1.25x", "0.500 / 0.600", "1.500 / 1.400", "10.00 / 15.00", "0.67x", "20.0 / 10.0"},
		{"get", "50,000", "25,000", "2.00x", "0.500 / 0.900", "1.000 / 1.000", "10.00 / 20.00", "0.50x", "n/a / n/a"},
		// total: CPU 15 s / 1.5M vs 17 s / 1.05M
		{"total", "100,000", "65,000", "1.54x", "", "", "10.00 / 16.19", "0.62x", ""},
	}
	if len(rows) != len(want) {
		t.Fatalf("rows:\n%v", rows)
	}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d:\n got %q\nwant %q", i, rows[i], want[i])
		}
	}
	// A missing server (interrupted run) shows n/a, not a wrong total.
	r.servers = append(r.servers, nNull)
	rows = r.tableRows(1, []string{"set"})
	if got := rows[len(rows)-1][5]; got != "n/a" {
		t.Errorf("total without null runs: %q, want n/a (%q)", got, rows[len(rows)-1])
	}
}

func TestRender(t *testing.T) {
	rows := [][]string{{"command", "ops", "c/r"}, {"set", "50,000", "1.25x"}, {"total", "100,000", "1.5x"}}
	text := renderText(rows)
	wantText := "command      ops    c/r\n" +
		"-----------------------\n" +
		"set       50,000  1.25x\n" +
		"total    100,000   1.5x\n"
	if text != wantText {
		t.Errorf("renderText:\n%s\nwant:\n%s", text, wantText)
	}
	md := renderMarkdown(rows)
	wantMD := "| command | ops | c/r |\n|---|---:|---:|\n| set | 50,000 | 1.25x |\n| total | 100,000 | 1.5x |\n"
	if md != wantMD {
		t.Errorf("renderMarkdown:\n%s\nwant:\n%s", md, wantMD)
	}
}

func TestCSVAndChart(t *testing.T) {
	r := sample()
	var b bytes.Buffer
	if err := writeSummaryCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(&b).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// header + 4 cells + 2 totals
	if len(recs) != 7 || recs[1][2] != nCorvid || recs[1][5] != "60000;40000" || recs[1][10] != "10.0000" {
		t.Fatalf("summary CSV:\n%q", recs)
	}
	b.Reset()
	if err := writeRunsCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "\n"); n != 7 {
		t.Fatalf("runs CSV has %d lines, want 7", n)
	}
	tb := chartTable(r)
	if err := tb.Validate(); err != nil || tb.BaselineName() != nRedis || tb.Scenarios[0].Ops["get"][nCorvid] != 50000 {
		t.Fatalf("chart table: %v %+v", err, tb.Scenarios[0])
	}
}

func TestFlagsAndArgs(t *testing.T) {
	c, err := parseFlags([]string{"-time", "2", "-rounds", "1", "-commands", "set, GET", "-pipelines", "16,1"})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.commands) != 2 || c.commands[1].Name != "get" || !slices.Equal(c.pipelines, []int{16, 1}) || !c.redisIO2 || !c.null {
		t.Fatalf("parseFlags: %+v", c)
	}
	for _, bad := range [][]string{{"-commands", "del"}, {"-pipelines", "0"}, {"-time", "0"}, {"extra"}, {"-rate", "-1"}, {"-client-io", "threads"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("parseFlags(%q): no error", bad)
		}
	}
	got := benchTemplate(c, c.commands[0], 16)
	want := "corvid-bench -s 127.0.0.1 -p PORT -t 2 -c 25 --test-time=2 --distinct-client-seed '--command=set __key__ __data__' " +
		"--key-prefix=kv_ --key-minimum=1 --key-maximum=500 --data-size=128 --random-data --pipeline=16 --hide-histogram --json-out-file=F.json"
	if got != want {
		t.Errorf("benchTemplate:\n got %s\nwant %s", got, want)
	}
	c, err = parseFlags([]string{"-rate", "1200", "-client-io", "goroutines", "-commands", "get"})
	if err != nil {
		t.Fatal(err)
	}
	if got := benchTemplate(c, c.commands[0], 1); !strings.Contains(got, " --rate-limiting=1200 --client-io=goroutines ") {
		t.Errorf("benchTemplate with -rate and -client-io: %s", got)
	}
}
