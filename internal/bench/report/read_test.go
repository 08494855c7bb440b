package report

import (
	"os"
	"path/filepath"
	"testing"
)

func write(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestReadFormats(t *testing.T) {
	memtier := write(t, "a.json", `{"configuration": {}, "ALL STATS": {
		"Sets": {"Ops/sec": 1000.5, "Latency": 0.1},
		"Gets": {"Ops/sec": 9000, "Hits/sec": 10},
		"Waits": {"Ops/sec": 0},
		"Totals": {"Ops/sec": 10000.5},
		"Runtime": {"Start time": 1}}}`)
	memtierRuns := write(t, "b.json", `{"BEST RUN RESULTS": {"Totals": {"Ops/sec": 9}},
		"AGGREGATED AVERAGE RESULTS (3 runs)": {"Lpushs": {"Ops/sec": 700}, "Totals": {"Ops/sec": 700}},
		"ALL STATS": {"Lpushs": {"Ops/sec": 1}}}`)
	rbNew := write(t, "rb.csv", "\"test\",\"rps\",\"avg_latency_ms\"\n\"SET\",\"123456.79\",\"0.2\"\n\"LPUSH (needed to benchmark LPOP)\",\"1000.00\",\"0.3\"\n")
	rbOld := write(t, "rbold.csv", "\"SET\",\"2000.00\"\n\"GET\",\"3000.00\"\n")
	sysbench := write(t, "sysbench.txt", "target,qps\nrds-g2,12000.5\nrds-g3,15000\n")
	single := write(t, "one.txt", "4242\n")

	cases := []struct {
		src         string
		cmd, target string
		want        float64
	}{
		{"x86=" + memtier, "set", "x86", 1000.5},
		{"x86=" + memtier, "get", "x86", 9000},
		{memtierRuns, "lpush", "b", 700},
		{"box=" + rbNew, "set", "box", 123456.79},
		{"box=" + rbNew, "lpush", "box", 1000},
		{rbOld, "get", "rbold", 3000},
		{sysbench, "qps", "rds-g3", 15000},
		{"m=" + single, "qps", "m", 4242},
	}
	for _, c := range cases {
		tab, err := ReadAll([]Source{ParseSource(c.src)}, ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", c.src, err)
		}
		got, ok := tab.Scenarios[0].Ops[c.cmd][c.target]
		if !ok || got != c.want {
			t.Errorf("%s: %s/%s = %v (ok %v), want %v; table %+v", c.src, c.cmd, c.target, got, ok, c.want, tab.Scenarios[0].Ops)
		}
	}
	// memtier's Waits and Totals rows are not commands.
	tab, _ := ReadAll([]Source{ParseSource(memtier)}, ReadOptions{})
	if len(tab.Scenarios[0].Commands) != 2 {
		t.Fatalf("commands %v", tab.Scenarios[0].Commands)
	}
}

// The seed's RDS/sysbench comparison normalizes like the Valkey table.
func TestSysbenchNormalizes(t *testing.T) {
	p := write(t, "qps.csv", "rds-g2,1000\nrds-g3,1270\n")
	tab, err := ReadAll([]Source{ParseSource(p)}, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := ParsePrices(tab, []byte("rds-g2: 1.0\nrds-g3: 1.0\n"), "prices.yaml"); err != nil {
		t.Fatal(err)
	}
	d := tab.Derive(tab.Scenarios[0])
	if Pct(d.PricePerfPct, "rds-g3") != "127%" {
		t.Fatalf("%v", d.PricePerfPct)
	}
}

func TestParsePrices(t *testing.T) {
	for name, body := range map[string]string{
		"csv":  "name,price\nr6g,0.8064\nr6i,1.008\n",
		"yaml": "# on-demand $/h\nprices:\n  r6g: 0.8064\n  r6i: \"1.008\"\n",
	} {
		tab := NewTable()
		if err := ParsePrices(tab, []byte(body), name); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if tab.Prices["r6g"] != 0.8064 || tab.Prices["r6i"] != 1.008 {
			t.Fatalf("%s: %v", name, tab.Prices)
		}
	}
	if err := ParsePrices(NewTable(), []byte("a,1\nb,zero\n"), "bad"); err == nil {
		t.Fatal("bad price accepted")
	}
}

func TestReadErrors(t *testing.T) {
	for name, body := range map[string]string{
		"empty.csv":    "",
		"bad.json":     "{nope",
		"nostats.json": `{"x": 1}`,
		"badnum.csv":   "scenario,io_threads,command,a\n1,6,get,lots\n",
		"plain.txt":    "a,b,c,d\n",
	} {
		if _, err := ReadAll([]Source{{Target: "t", Path: write(t, name, body)}}, ReadOptions{}); err == nil {
			t.Errorf("%s accepted", name)
		}
	}
	if _, err := ReadAll([]Source{{Path: "/nonexistent/file.csv"}}, ReadOptions{}); err == nil {
		t.Error("missing file accepted")
	}
	tab := NewTable()
	tab.AddTarget("a")
	tab.Scenario("1", "")
	tab.Baseline = "zzz"
	if tab.Validate() == nil {
		t.Error("unknown baseline accepted")
	}
}
