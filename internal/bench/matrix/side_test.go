package matrix

import (
	"reflect"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/report"
)

func TestMedian(t *testing.T) {
	cases := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{5}, 5},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{10, 10, 1000}, 10}, // one bad round does not move it
	}
	for _, c := range cases {
		in := append([]float64(nil), c.in...)
		if got := Median(c.in); got != c.want {
			t.Errorf("Median(%v) = %v, want %v", c.in, got, c.want)
		}
		if !reflect.DeepEqual(in, c.in) && c.in != nil {
			t.Errorf("Median reordered its input: %v", c.in)
		}
	}
}

func TestMedians(t *testing.T) {
	ss := []sample{
		{ops: 100, p50: 0.1, p99: 1, p999: 5, cpuPerOp: 3, cpuOK: true, rss: 10 << 20},
		{ops: 300, p50: 0.3, p99: 3, p999: 2, cpuPerOp: 1, cpuOK: true, rss: 30 << 20},
		{ops: 200, p50: 0.2, p99: 2, p999: 9, cpuPerOp: 2, cpuOK: true, rss: 20 << 20},
	}
	ops, d := Medians(ss)
	want := report.Detail{P50Ms: 0.2, P99Ms: 2, P999Ms: 5, CPUUsPerOp: 2, RSSBytes: 20 << 20, Rounds: 3}
	if ops != 200 || d != want {
		t.Fatalf("%v %+v, want 200 %+v", ops, d, want)
	}
	// One round without a CPU reading: no CPU figure rather than a biased one.
	ss[1].cpuOK = false
	if _, d := Medians(ss); d.CPUUsPerOp != 0 {
		t.Fatalf("cpu %v from incomplete readings", d.CPUUsPerOp)
	}
}

func TestCapIOThreads(t *testing.T) {
	type sc = Scenario
	cases := []struct {
		name  string
		req   []int
		limit int
		want  []Scenario
		note  bool
	}{
		{"seed on 16 cores", []int{6, 10, 14}, 16, []sc{{"1", "6", 6}, {"2", "10", 10}, {"3", "14", 14}}, false},
		{"seed on 8 cores", []int{6, 10, 14}, 8, []sc{{"1", "6", 6}, {"2", "8 (seed 10/14)", 8}}, true},
		{"seed on 2 cores", []int{6, 10, 14}, 1, []sc{{"1", "1 (seed 6/10/14)", 1}}, true},
		{"repeat without capping", []int{2, 2}, 4, []sc{{"1", "2", 2}}, false},
		{"zero limit means 1", []int{3}, 0, []sc{{"1", "1 (seed 3)", 1}}, true},
	}
	for _, c := range cases {
		got, note := CapIOThreads(c.req, c.limit)
		if !reflect.DeepEqual(got, c.want) || (note != "") != c.note {
			t.Errorf("%s: %+v %q, want %+v note=%v", c.name, got, note, c.want, c.note)
		}
	}
	for ncpu, want := range map[int]int{1: 1, 2: 1, 3: 1, 4: 2, 16: 8} {
		if got := IOThreadsLimit(ncpu); got != want {
			t.Errorf("IOThreadsLimit(%d) = %d, want %d", ncpu, got, want)
		}
	}
}

func TestParseIOThreads(t *testing.T) {
	if got, err := ParseIOThreads([]string{"6", " 10", "14"}); err != nil || !reflect.DeepEqual(got, []int{6, 10, 14}) {
		t.Fatal(got, err)
	}
	for _, bad := range []string{"0", "-1", "x", "", "1000"} {
		if _, err := ParseIOThreads([]string{bad}); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSeedRowsInTableOrder(t *testing.T) {
	base := seedBase()
	base.TestTime = time.Second
	rows, err := SeedRows(base, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range rows {
		names = append(names, r.Name)
		if r.Cfg.TestTime != time.Second || r.Cfg.KeyMax != 500 {
			t.Errorf("%s: %+v", r.Name, r.Cfg)
		}
	}
	if want := []string{"get", "hset", "incr", "lpush", "sadd", "set", "zadd"}; !reflect.DeepEqual(names, want) {
		t.Fatalf("%v", names)
	}
	if _, err := SeedRows(base, []string{"nope"}); err == nil {
		t.Fatal("unknown command accepted")
	}
}

// Cluster-mode samples also give the mean latency and the MOVED/ASK rates
// (present even when zero); standalone ones leave them out.
func TestMediansCluster(t *testing.T) {
	ss := []sample{
		{ops: 100, cluster: true, avg: 0.3, movedSec: 0, askSec: 1},
		{ops: 300, cluster: true, avg: 0.1, movedSec: 4, askSec: 0},
		{ops: 200, cluster: true, avg: 0.2, movedSec: 2, askSec: 0},
	}
	_, d := Medians(ss)
	if d.AvgMs != 0.2 || d.MovedSec == nil || *d.MovedSec != 2 || d.AskSec == nil || *d.AskSec != 0 {
		t.Fatalf("%+v", d)
	}
	if _, d := Medians([]sample{{ops: 1}}); d.MovedSec != nil || d.AskSec != nil || d.AvgMs != 0 {
		t.Fatalf("standalone %+v", d)
	}
}
