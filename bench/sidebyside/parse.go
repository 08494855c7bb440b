package main

import (
	"encoding/json"
	"fmt"
)

// benchTotals is what one corvid-bench run reports (its JSON's
// "ALL STATS" / "Totals" row and "Runtime").
type benchTotals struct {
	OpsSec     float64 // Totals "Ops/sec"
	Ops        uint64  // Totals "Count"
	Errors     uint64  // Totals "Errors"
	P50, P99   float64 // ms
	DurationMs int64   // Runtime "Total duration"
}

// parseBenchJSON reads corvid-bench's (memtier_benchmark's) --json-out-file.
func parseBenchJSON(b []byte) (benchTotals, error) {
	type row struct {
		OpsSec *float64            `json:"Ops/sec"`
		Count  uint64              `json:"Count"`
		Errors uint64              `json:"Errors"`
		Pcts   map[string]*float64 `json:"Percentile Latencies"`
	}
	var doc struct {
		All struct {
			Totals  *row `json:"Totals"`
			Runtime struct {
				Duration int64 `json:"Total duration"`
			} `json:"Runtime"`
		} `json:"ALL STATS"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return benchTotals{}, err
	}
	t := doc.All.Totals
	if t == nil || t.OpsSec == nil {
		return benchTotals{}, fmt.Errorf(`no "ALL STATS" / "Totals" / "Ops/sec"`)
	}
	out := benchTotals{OpsSec: *t.OpsSec, Ops: t.Count, Errors: t.Errors, DurationMs: doc.All.Runtime.Duration}
	for key, dst := range map[string]*float64{"p50.00": &out.P50, "p99.00": &out.P99} {
		v := t.Pcts[key]
		if v == nil {
			return benchTotals{}, fmt.Errorf("no %s in Totals \"Percentile Latencies\"", key)
		}
		*dst = *v
	}
	return out, nil
}
