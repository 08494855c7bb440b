package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func table(rows ...[4]any) *Table {
	t := NewTable()
	for _, r := range rows {
		s := t.Scenario(r[0].(string), "")
		t.Set(s, r[1].(string), r[2].(string), r[3].(float64))
	}
	return t
}

func TestCompare(t *testing.T) {
	type r = [4]any
	cases := []struct {
		name         string
		a, b         *Table
		want         []string // scenario/command/target=ratio
		onlyA, onlyB int
	}{
		{"same cells",
			table(r{"1", "get", "corvid", 100.0}, r{"1", "set", "corvid", 200.0}),
			table(r{"1", "get", "corvid", 150.0}, r{"1", "set", "corvid", 100.0}),
			[]string{"1/get/corvid=1.50", "1/set/corvid=0.50", "1/total/corvid=0.83"}, 0, 0},
		{"cells in one file only",
			table(r{"1", "get", "corvid", 100.0}, r{"1", "get", "valkey", 80.0}),
			table(r{"1", "get", "corvid", 100.0}, r{"2", "get", "corvid", 90.0}),
			[]string{"1/get/corvid=1.00"}, 1, 1},
		{"no common scenario",
			table(r{"1", "get", "corvid", 100.0}),
			table(r{"2", "get", "corvid", 100.0}),
			nil, 1, 1},
		{"zero in A",
			table(r{"1", "get", "corvid", 0.0}),
			table(r{"1", "get", "corvid", 5.0}),
			[]string{"1/get/corvid=0.00"}, 0, 0},
	}
	for _, c := range cases {
		got := Compare(c.a, c.b)
		var s []string
		for _, row := range got.Rows {
			s = append(s, row.Scenario+"/"+row.Command+"/"+row.Target+"="+ftoa2(row.Ratio()))
		}
		if strings.Join(s, " ") != strings.Join(c.want, " ") || got.OnlyA != c.onlyA || got.OnlyB != c.onlyB {
			t.Errorf("%s: %v onlyA=%d onlyB=%d, want %v %d %d", c.name, s, got.OnlyA, got.OnlyB, c.want, c.onlyA, c.onlyB)
		}
	}
}

func ftoa2(f float64) string { return strconv.FormatFloat(f, 'f', 2, 64) }

func TestWriteCompareWithLatency(t *testing.T) {
	a, b := NewTable(), NewTable()
	sa, sb := a.Scenario("1", "1"), b.Scenario("1", "2")
	a.Set(sa, "get", "corvid", 1000)
	b.Set(sb, "get", "corvid", 1100)
	a.SetDetail(sa, "get", "corvid", Detail{P99Ms: 0.2})
	b.SetDetail(sb, "get", "corvid", Detail{P99Ms: 0.1})
	var out bytes.Buffer
	if err := WriteCompare(&out, Compare(a, b), "a.json", "b.json"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"A: a.json", "1.10x", "0.50x", "1/2", "0.200", "0.100"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("lacks %q:\n%s", want, out.String())
		}
	}
	if err := WriteCompare(&out, Comparison{}, "a", "b"); err == nil {
		t.Fatal("empty comparison printed")
	}
}

// The side-by-side detail survives the JSON round trip (compare reads
// what matrix writes) and prints its own block; a table without detail
// prints exactly as before (the golden test covers that).
func TestDetailRoundTripAndText(t *testing.T) {
	tab := NewTable()
	s := tab.Scenario("1", "1 (seed 6/10/14)")
	tab.Set(s, "get", "corvid", 50000)
	tab.Set(s, "get", "valkey", 40000)
	tab.SetDetail(s, "get", "corvid", Detail{P50Ms: 0.07, P99Ms: 0.2, P999Ms: 1.2, CPUUsPerOp: 19.5, RSSBytes: 14 << 20, Rounds: 3})
	tab.SetDetail(s, "get", "valkey", Detail{P50Ms: 0.08, P99Ms: 0.3, P999Ms: 2, Rounds: 3})
	if r, ok := tab.Ratio(s, "get", "valkey"); !ok || r != 0.8 {
		t.Fatalf("ratio %v %v", r, ok)
	}
	if _, ok := tab.Ratio(s, "set", "valkey"); ok {
		t.Fatal("ratio of a missing cell")
	}
	path := filepath.Join(t.TempDir(), "m.json")
	var buf bytes.Buffer
	if err := WriteJSON(&buf, tab); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadAll([]Source{ParseSource(path)}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Scenarios[0].Detail["get"]["corvid"]; got != tab.Scenarios[0].Detail["get"]["corvid"] {
		t.Fatalf("detail lost: %+v", got)
	}
	var text bytes.Buffer
	if err := WriteText(&text, back); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"vs corvid", "0.80x", "1.00x", "19.50", "14.0", "p99.9 ms", "n/a"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

func TestLoadPrices(t *testing.T) {
	tab := NewTable()
	if err := LoadPrices(tab, "seed-000"); err != nil || tab.Prices["r6i"] != 100 || tab.Prices["r8g"] != 94 {
		t.Fatal(err, tab.Prices)
	}
	if err := LoadPrices(tab, "SEED-004"); err != nil || tab.Prices["mysql-db.m7g.xlarge"] != 0.372 {
		t.Fatal(err, tab.Prices)
	}
	if err := LoadPrices(tab, "seed-999"); err == nil || !strings.Contains(err.Error(), "seed-000") {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "p.csv")
	os.WriteFile(p, []byte("name,price\ncorvid,2\n"), 0o644)
	if err := LoadPrices(tab, p); err != nil || tab.Prices["corvid"] != 2 {
		t.Fatal(err, tab.Prices)
	}
	var out bytes.Buffer
	if err := WritePrices(&out); err != nil || !strings.Contains(out.String(), "# seed-000") || !strings.Contains(out.String(), "r6g,80") {
		t.Fatal(err, out.String())
	}
}

// The seed-000 price table reproduces the article's price row.
func TestSeedPricesMatchTheReference(t *testing.T) {
	ref, err := ReadAll([]Source{ParseSource(filepath.Join("..", "testdata", "seed-000-graviton4-valkey.csv"))}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := SeedPriceNamed("seed-000")
	for k, v := range ref.Prices {
		if p.Prices[k] != v {
			t.Errorf("%s: table %v, reference %v", k, p.Prices[k], v)
		}
	}
}

// Cluster-mode cells (seed 003) add memtier's MOVED/sec, ASK/sec and mean
// latency columns; the rates survive the JSON round trip, zero included.
func TestClusterDetailColumns(t *testing.T) {
	tab := NewTable()
	s := tab.Scenario("003", "")
	moved, ask, zero := 12.5, 0.25, 0.0
	tab.Set(s, "random", "corvid", 50000)
	tab.Set(s, "random", "valkey", 40000)
	tab.SetDetail(s, "random", "corvid", Detail{AvgMs: 0.4, P50Ms: 0.3, P99Ms: 1, P999Ms: 2, MovedSec: &moved, AskSec: &ask, Rounds: 1})
	tab.SetDetail(s, "random", "valkey", Detail{AvgMs: 0.5, P50Ms: 0.4, P99Ms: 1, P999Ms: 2, MovedSec: &zero, AskSec: &zero, Rounds: 1})
	if !tab.HasRedirects() {
		t.Fatal("HasRedirects")
	}
	var buf bytes.Buffer
	if err := WriteJSON(&buf, tab); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"moved_sec": 0`) || !strings.Contains(buf.String(), `"ask_sec": 0.25`) {
		t.Errorf("JSON lacks the rates:\n%s", buf.String())
	}
	path := filepath.Join(t.TempDir(), "c.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := ReadAll([]Source{ParseSource(path)}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d := back.Scenarios[0].Detail["random"]["corvid"]
	if d.MovedSec == nil || *d.MovedSec != 12.5 || d.AskSec == nil || *d.AskSec != 0.25 || d.AvgMs != 0.4 {
		t.Fatalf("detail after round trip %+v", d)
	}
	if v := back.Scenarios[0].Detail["random"]["valkey"]; v.MovedSec == nil || *v.MovedSec != 0 {
		t.Fatalf("zero rate lost: %+v", v)
	}
	var text bytes.Buffer
	if err := WriteText(&text, back); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MOVED/sec", "ASK/sec", "avg ms", "12.50", "0.25", "0.400", "cluster mode: ops/sec is the cluster's total"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
	// A table without cluster cells keeps its columns.
	plain := NewTable()
	ps := plain.Scenario("1", "")
	plain.Set(ps, "get", "corvid", 1)
	plain.SetDetail(ps, "get", "corvid", Detail{P50Ms: 0.1})
	text.Reset()
	if err := WriteText(&text, plain); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(text.String(), "MOVED") || strings.Contains(text.String(), "avg ms") {
		t.Errorf("standalone table has cluster columns:\n%s", text.String())
	}
}
