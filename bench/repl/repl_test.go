package main

import (
	"math"
	"testing"
)

func TestPct(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for p, want := range map[float64]float64{0: 1, 10: 1, 50: 5, 51: 6, 99: 10, 100: 10} {
		if got := pct(xs, p); got != want {
			t.Errorf("pct(%v) = %v, want %v", p, got, want)
		}
	}
	if !math.IsNaN(pct(nil, 50)) {
		t.Error("pct of nothing")
	}
	if got := median([]float64{3, math.NaN(), 1, 2, 10}); got != 2.5 {
		t.Errorf("median %v", got)
	}
}

func TestGrowth(t *testing.T) {
	var flat, rising []lagSample
	for i := range 400 {
		ts := float64(i) / 100
		flat = append(flat, lagSample{t: ts, lag: float64(1000 + i%7*100)})
		rising = append(rising, lagSample{t: ts, lag: float64(i) * 10000})
	}
	if tr := growth(flat); tr.grows || math.Abs(tr.slope) > 100 {
		t.Errorf("flat: %+v", tr)
	}
	if tr := growth(rising); !tr.grows || math.Abs(tr.slope-1e6) > 1 {
		t.Errorf("rising: %+v", tr)
	}
	// Growing, but small: not flagged.
	var small []lagSample
	for i := range 400 {
		small = append(small, lagSample{t: float64(i) / 100, lag: float64(i)})
	}
	if tr := growth(small); tr.grows {
		t.Errorf("small: %+v", tr)
	}
}

func TestParseMemtier(t *testing.T) {
	var r phaseResult
	err := parseMemtier([]byte(`{"ALL STATS": {"Totals": {"Ops/sec": 51234.5, "Count": 256000,
		"Percentile Latencies": {"p50.00": 0.9, "p99.00": 2.5, "Histogram log format": {"Compressed Histogram": "HIST"}}}}}`), &r)
	if err != nil || r.OpsSec != 51234.5 || r.Ops != 256000 || r.P50 != 0.9 || r.P99 != 2.5 {
		t.Fatalf("%+v %v", r, err)
	}
	if err := parseMemtier([]byte(`{"ALL STATS": {}}`), &r); err == nil {
		t.Fatal("no Totals accepted")
	}
}

func TestParseFlags(t *testing.T) {
	t.Setenv("DATASET_MB", "16")
	t.Setenv("REPLICAS", "2,0,1,1")
	c, err := parseFlags([]string{"-time", "3", "-value-size", "512"})
	if err != nil {
		t.Fatal(err)
	}
	if c.datasetMB != 16 || c.testTime != 3 || c.keys() != 32768 || len(c.replicas) != 3 || c.replicas[0] != 0 || c.replicas[2] != 2 {
		t.Fatalf("%+v", c)
	}
	if _, err := parseFlags([]string{"-servers", "redis"}); err == nil {
		t.Fatal("-servers redis accepted")
	}
}
