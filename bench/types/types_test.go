package main

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

func TestParseFlags(t *testing.T) {
	t.Setenv("TIME", "4")
	t.Setenv("CASES", "pfcount, xadd,pfcount")
	c, err := parseFlags([]string{"-rounds", "2", "-clients", "10"})
	if err != nil {
		t.Fatal(err)
	}
	if c.testTime != 4 || c.rounds != 2 || c.conns() != 20 || strings.Join(c.cases, ",") != "pfcount,xadd" ||
		strings.Join(c.kinds, ",") != "corvid,valkey" || c.entriesPerStream() != 600 || c.memElements != 1000000 {
		t.Fatalf("%+v", c)
	}
	c, err = parseFlags([]string{"-stream-entries", "50", "-servers", "valkey", "-cases", "mem-geo"})
	if err != nil || c.entriesPerStream() != 50 || len(c.kinds) != 1 || c.cases[0] != "mem-geo" {
		t.Fatalf("%+v %v", c, err)
	}
	for _, bad := range [][]string{{"-cases", "xdel"}, {"-servers", "redis"}, {"-servers", "corvid,corvid"},
		{"-time", "0"}, {"-cases", ","}, {"extra"}} {
		if _, err := parseFlags(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestOrder(t *testing.T) {
	k := []string{"corvid", "valkey"}
	if o := order(k, 1); o[0] != "corvid" || o[1] != "valkey" {
		t.Fatal(o)
	}
	if o := order(k, 2); o[0] != "valkey" || o[1] != "corvid" {
		t.Fatal(o)
	}
	if o := order(k, 3); o[0] != "corvid" {
		t.Fatal(o)
	}
}

func TestMemtierCase(t *testing.T) {
	c, err := parseFlags(nil)
	if err != nil {
		t.Fatal(err)
	}
	count := func(a []string, s string) (n int) {
		for _, x := range a {
			if x == s {
				n++
			}
		}
		return n
	}
	a := memtierCase(c, "pfcount3")
	if count(a, "--command") != 1 || count(a, "PFCOUNT __key__ __key__ __key__") != 1 || count(a, "hll:") != 1 {
		t.Fatal(a)
	}
	if a := memtierCase(c, "geoadd"); count(a, "--command") != geoaddPairs {
		t.Fatal(a)
	}
	for _, p := range geoaddCoords() {
		lon, _ := strconv.ParseFloat(p[0], 64)
		lat, _ := strconv.ParseFloat(p[1], 64)
		if lon < -180 || lon > 180 || lat < -maxLat || lat > maxLat {
			t.Fatal(p)
		}
	}
	a = memtierCase(c, "geosearch")
	if count(a, "--command") != searchCenters || !strings.Contains(strings.Join(a, " "), "BYRADIUS 50 km ASC COUNT 10") || count(a, "100") != 1 {
		t.Fatal(a)
	}
	if memtierCase(c, "xreadgroup") != nil || memtierCase(c, "mem-stream") != nil {
		t.Fatal("not memtier cases")
	}
}

// TestFillCommands checks the fills' RESP encoding.
func TestFillCommands(t *testing.T) {
	b := appendXAdd(nil, "stream:7", 3)
	v, n, err := wire.Parse(b)
	if err != nil || n != len(b) || len(v.Elems) != 5 || v.Elems[1].Str != "stream:7" || len(v.Elems[4].Str) != 16 {
		t.Fatalf("%q %+v %v", b, v, err)
	}
	if string(appendXAdd(nil, "k", 3)) == string(appendXAdd(nil, "k", 4)) || string(appendXAdd(nil, "k", 3)) != string(appendXAdd(nil, "k", 3)) {
		t.Fatal("values are not a function of the index")
	}
	b = appendGeoAdd(nil, "geo:1", 200, 300, inBox)
	v, n, err = wire.Parse(b)
	if err != nil || n != len(b) || len(v.Elems) != 2+300 || v.Elems[4].Str != "m:200" || v.Elems[301].Str != "m:299" {
		t.Fatalf("%+v %v", v.Elems[:5], err)
	}
	for i := 2; i < len(v.Elems); i += 3 {
		lon, _ := strconv.ParseFloat(v.Elems[i].Str, 64)
		lat, _ := strconv.ParseFloat(v.Elems[i+1].Str, 64)
		if lon < boxLon0 || lon >= boxLon1 || lat < boxLat0 || lat >= boxLat1 {
			t.Fatalf("%v %v outside the box", lon, lat)
		}
	}
	for i := range 1000 {
		if lon, lat := anywhere(i); lon < -180 || lon >= 180 || lat < -maxLat || lat >= maxLat {
			t.Fatal(lon, lat)
		}
	}
}

func TestStreamID(t *testing.T) {
	b := []byte("*1\r\n*2\r\n$8\r\nstream:1\r\n*1\r\n*2\r\n$5\r\n1-123\r\n*2\r\n$1\r\nf\r\n$2\r\nvv\r\n")
	v, _, err := wire.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	if id, ok := streamID(v); !ok || id != "1-123" {
		t.Fatal(id, ok)
	}
	v, _, _ = wire.Parse([]byte("*-1\r\n"))
	if _, ok := streamID(v); ok || !v.Nil {
		t.Fatal("nil reply")
	}
}

func TestParseMemtier(t *testing.T) {
	var r runResult
	err := parseMemtier([]byte(`{"ALL STATS": {"Totals": {"Ops/sec": 51234.5, "Count": 256000,
		"Percentile Latencies": {"p50.00": 0.9, "p99.00": 2.5}}}}`), &r)
	if err != nil || r.OpsSec != 51234.5 || r.Ops != 256000 || r.P50 != 0.9 || r.P99 != 2.5 {
		t.Fatalf("%+v %v", r, err)
	}
	if err := parseMemtier([]byte(`{"ALL STATS": {}}`), &r); err == nil {
		t.Fatal("no Totals accepted")
	}
}

func TestPct(t *testing.T) {
	xs := []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]int{0: 1, 10: 1, 50: 5, 51: 6, 99: 10, 100: 10} {
		if got := pctOf(xs, p); got != want {
			t.Errorf("pctOf(%v) = %v, want %v", p, got, want)
		}
	}
	if got := median([]float64{3, math.NaN(), 1, 2, 10}); got != 2.5 {
		t.Errorf("median %v", got)
	}
}

func TestMarkdown(t *testing.T) {
	c, err := parseFlags([]string{"-cases", "pfadd,mem-geo", "-rounds", "3", "-mem-elements", "1000"})
	if err != nil {
		t.Fatal(err)
	}
	r := &results{cfg: c}
	for round := 1; round <= 3; round++ {
		// Corvid: 200k ops/s, 2 s of CPU per 1M ops; round 3 has errors.
		cr := runResult{Case: "pfadd", Kind: "corvid", Round: round, OpsSec: 200000, Ops: 1000000, CPU: 2, P50: 0.2, P99: 1}
		if round == 3 {
			cr.OpsSec, cr.Errors, cr.ErrorStats = 999999, 7, "errorstat_ERR:count=7"
		}
		vr := runResult{Case: "pfadd", Kind: "valkey", Round: round, OpsSec: 100000 * float64(round), Ops: 1000000, CPU: 4, P50: 0.4, P99: 2}
		r.runs = append(r.runs, cr, vr,
			runResult{Case: "mem-geo", Kind: "corvid", Round: round, Elements: 1000, UsedBefore: 1000, UsedAfter: 61000, RSSBefore: 0, RSSAfter: 80000},
			runResult{Case: "mem-geo", Kind: "valkey", Round: round, Elements: 1000, UsedBefore: 0, UsedAfter: 80000, RSSBefore: 0, RSSAfter: 100000})
	}
	md := r.markdown()
	for _, want := range []string{
		"| case | corvid ops/s | valkey ops/s | ops corvid/valkey | corvid CPU us/op | valkey CPU us/op | CPU corvid/valkey | corvid p50 ms | valkey p50 ms | corvid p99 ms | valkey p99 ms | p99 corvid/valkey | error replies | flagged runs |",
		// Corvid's medians leave round 3 out; Valkey's median is round 2.
		"| pfadd | 200000 | 200000 | **1.00** | 2.00 | 4.00 | 0.50 | 0.200 | 0.400 | 1.000 | 2.000 | 0.50 | corvid 7, valkey 0 | **corvid 1/3** |",
		"| mem-geo | 1000 | 100 | 60.0 | 80.0 | **0.75** | 80.0 | 100.0 | 0.80 |",
		"- round 3, pfadd, corvid: 7 error replies (errorstat_ERR:count=7)",
		"- **pfadd**: `PFADD hll:<n> <16 random bytes>`",
		"|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
	// One server: no ratio columns.
	c.kinds = []string{"valkey"}
	if md := r.markdown(); strings.Contains(md, "ops corvid/valkey") || !strings.Contains(md, "| pfadd | 200000 | 4.00 |") {
		t.Errorf("one server:\n%s", md)
	}
	for _, x := range r.runs {
		if len(csvRow(x)) != len(csvHeader) {
			t.Fatalf("%s: %d columns, header %d", x.Case, len(csvRow(x)), len(csvHeader))
		}
	}
}

func TestFlagged(t *testing.T) {
	if f := (runResult{}).flagged(); f != "" {
		t.Fatal(f)
	}
	f := runResult{Empty: 3, BadAcks: 1, ClientErrors: 2}.flagged()
	if !strings.Contains(f, "3 empty reads") || !strings.Contains(f, "1 XACK") || !strings.Contains(f, "2 error replies seen by the client") {
		t.Fatal(f)
	}
}
