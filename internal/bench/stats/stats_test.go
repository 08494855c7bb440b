package stats

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func result(ops uint64, secs float64, latMs float64) *Result {
	start := time.Unix(0, 0)
	set := &Cmd{Name: "Sets", Hist: NewHist(), Counters: Counters{Ops: ops, Bytes: ops * 100}}
	get := &Cmd{Name: "Gets", TrackHits: true, Hist: NewHist(), Counters: Counters{Ops: 2 * ops, Hits: ops, Misses: ops, Bytes: ops * 200}}
	for i := uint64(0); i < ops; i++ {
		_ = set.Hist.RecordValue(int64(latMs * 1e6))
		_ = get.Hist.RecordValue(int64(latMs * 1e6))
		_ = get.Hist.RecordValue(int64(latMs * 2e6))
	}
	return &Result{Server: "s", Start: start, End: start.Add(time.Duration(secs * float64(time.Second))), Cmds: []*Cmd{set, get}, Waits: true}
}

func TestRows(t *testing.T) {
	rows := Rows(result(1000, 2, 1), []float64{50, 99})
	if len(rows) != 4 || rows[2].Type != "Waits" || rows[3].Type != "Totals" {
		t.Fatalf("%+v", rows)
	}
	if rows[0].OpsSec != 500 || rows[1].HitsSec != 500 || rows[3].OpsSec != 1500 {
		t.Fatalf("rates %+v", rows)
	}
	if kb := rows[3].KBs; kb < 146.4 || kb > 146.5 { // 300000 bytes / 1024 / 2 s
		t.Fatalf("KB/sec %v", kb)
	}
	if p := rows[0].PctMs[0]; p < 0.999 || p > 1.001 {
		t.Fatalf("p50 %v", p)
	}
	if avg := rows[1].AvgMs; avg < 1.49 || avg > 1.51 {
		t.Fatalf("avg %v", avg)
	}
}

func TestWriteTableMemtierLayout(t *testing.T) {
	var b bytes.Buffer
	WriteTable(&b, "ALL STATS", Rows(result(1000, 2, 1), []float64{50, 99, 99.9}), false, []float64{50, 99, 99.9})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if lines[0] != "ALL STATS" || !strings.HasPrefix(lines[1], "====") {
		t.Fatal(b.String())
	}
	// memtier's README sample header, verbatim.
	head := "Type         Ops/sec     Hits/sec   Misses/sec    Avg. Latency     p50 Latency     p99 Latency   p99.9 Latency       KB/sec "
	if lines[2] != head {
		t.Fatalf("header\n%q\nwant\n%q", lines[2], head)
	}
	if !strings.HasPrefix(lines[4], "Sets          500.00          ---          ---         1.00") {
		t.Fatalf("%q", lines[4])
	}
	if !strings.HasPrefix(lines[6], "Waits           0.00          ---") {
		t.Fatalf("%q", lines[6])
	}
	var c bytes.Buffer
	WriteTable(&c, "ALL STATS", Rows(result(10, 1, 1), []float64{50}), true, []float64{50})
	if !strings.Contains(c.String(), "MOVED/sec      ASK/sec") {
		t.Fatal(c.String())
	}
}

func TestRunsBestWorstAverage(t *testing.T) {
	a, b := result(1000, 1, 1), result(3000, 1, 3)
	best, worst := BestWorst([]*Result{a, b})
	if best != b || worst != a {
		t.Fatal("best/worst")
	}
	avg := AverageRows([]*Result{a, b}, []float64{50})
	tot := avg[len(avg)-1]
	if tot.OpsSec != 6000 { // (3000 + 9000) / 2
		t.Fatalf("average ops/sec %v", tot.OpsSec)
	}
	// latencies come from the merged histograms: p50 of 1ms x2000+2ms x1000 + 3ms x6000+6ms x3000
	if p := tot.PctMs[0]; p < 2.99 || p > 3.01 {
		t.Fatalf("p50 %v", p)
	}
}

func TestSumAndJSON(t *testing.T) {
	s := Sum("all", []*Result{result(100, 1, 1), result(300, 1, 1)})
	if s.Totals().Ops != 1200 {
		t.Fatal(s.Totals().Ops)
	}
	doc := Document(map[string]any{}, []*Result{s}, nil, []float64{50, 99.9}, time.Second)
	all := doc["ALL STATS"].(map[string]any)
	tot := all["Totals"].(map[string]any)
	if tot["Ops/sec"].(float64) != 1200 {
		t.Fatal(tot)
	}
	if _, ok := tot["Percentile Latencies"].(map[string]any)["p99.90"]; !ok {
		t.Fatal(tot)
	}
	if _, ok := all["Sets"].(map[string]any)["Hits/sec"]; ok {
		t.Fatal("Sets has Hits/sec")
	}
	if doc["Client"].(map[string]any)["Ops per CPU-second"].(float64) != 1200 {
		t.Fatal(doc["Client"])
	}
	multi := Document(map[string]any{}, []*Result{result(1, 1, 1), result(2, 1, 1)}, nil, []float64{50}, 0)
	for _, k := range []string{"BEST RUN RESULTS", "WORST RUN RESULTS", "AGGREGATED AVERAGE RESULTS (2 runs)"} {
		if _, ok := multi[k]; !ok {
			t.Errorf("missing %s", k)
		}
	}
}

func TestRowNameAndHits(t *testing.T) {
	for in, want := range map[string]string{"SET": "Sets", "get": "Gets", "ZADD": "Zadds", "": "Cmds"} {
		if got := RowName(in); got != want {
			t.Errorf("%q -> %q", in, got)
		}
	}
	if !TracksHits("get") || TracksHits("SET") {
		t.Error("TracksHits")
	}
	if PctLabel(99.9) != "p99.9" || PctLabel(50) != "p50" {
		t.Error("PctLabel")
	}
}

// A SET's +OK is recorded as a hit on its row; memtier's Totals row counts
// only the GET-like rows' hits and misses.
func TestTotalsHitsFromGetsOnly(t *testing.T) {
	r := result(1000, 2, 1)
	r.Cmds[0].Hits = 1000 // what loadgen records for SET's +OK
	if tot := r.Totals(); tot.Hits != 1000 || tot.Misses != 1000 || tot.Ops != 3000 {
		t.Fatalf("totals %+v", tot.Counters)
	}
	rows := AverageRows([]*Result{r, r}, []float64{50})
	if tr := rows[len(rows)-1]; tr.HitsSec != 500 || tr.MissesSec != 500 || tr.OpsSec != 1500 {
		t.Fatalf("average totals %+v", tr)
	}
}
