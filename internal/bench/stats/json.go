package stats

import (
	"fmt"
	"strconv"
	"time"
)

// JSONRows renders rows as memtier's per-type objects ("Sets": {...}).
func JSONRows(rows []Row, pcts []float64, r *Result) map[string]any {
	out := map[string]any{}
	for _, row := range rows {
		o := map[string]any{
			"Count":           row.Count,
			"Ops/sec":         round2(row.OpsSec),
			"KB/sec":          round2(row.KBs),
			"Latency":         round5(row.AvgMs),
			"Average Latency": round5(row.AvgMs),
			"Min Latency":     round5(row.MinMs),
			"Max Latency":     round5(row.MaxMs),
			"MOVED/sec":       round2(row.MovedSec),
			"ASK/sec":         round2(row.AskSec),
			"Errors":          row.Errors,
		}
		if row.TrackHits {
			o["Hits/sec"] = round2(row.HitsSec)
			o["Misses/sec"] = round2(row.MissesSec)
		}
		p := map[string]any{}
		for i, q := range pcts {
			if i < len(row.PctMs) {
				p["p"+strconv.FormatFloat(q, 'f', 2, 64)] = round5(row.PctMs[i])
			}
		}
		o["Percentile Latencies"] = p
		out[row.Type] = o
	}
	if r != nil {
		out["Runtime"] = map[string]any{
			"Start time":     r.Start.UnixMilli(),
			"Finish time":    r.End.UnixMilli(),
			"Total duration": r.Duration().Milliseconds(),
			"Time unit":      "MILLISECONDS",
		}
	}
	return out
}

func round2(f float64) float64 { return float64(int64(f*100+0.5)) / 100 }
func round5(f float64) float64 { return float64(int64(f*1e5+0.5)) / 1e5 }

// Document assembles the whole JSON file: configuration, ALL STATS (or
// BEST/WORST/AGGREGATED with several runs), per-server totals, and the
// client's CPU use.
func Document(config map[string]any, runs []*Result, perServer [][]*Result, pcts []float64, cpu time.Duration) map[string]any {
	doc := map[string]any{"configuration": config}
	if len(runs) == 1 {
		doc["ALL STATS"] = JSONRows(Rows(runs[0], pcts), pcts, runs[0])
	} else if len(runs) > 1 {
		best, worst := BestWorst(runs)
		doc["BEST RUN RESULTS"] = JSONRows(Rows(best, pcts), pcts, best)
		doc["WORST RUN RESULTS"] = JSONRows(Rows(worst, pcts), pcts, worst)
		doc[fmt.Sprintf("AGGREGATED AVERAGE RESULTS (%d runs)", len(runs))] = JSONRows(AverageRows(runs, pcts), pcts, nil)
		doc["ALL STATS"] = JSONRows(AverageRows(runs, pcts), pcts, nil)
	}
	if len(perServer) > 0 && len(perServer[len(perServer)-1]) > 1 {
		var servers []any
		for _, r := range perServer[len(perServer)-1] {
			t := makeRow(r.Totals(), r.Duration().Seconds(), pcts)
			servers = append(servers, map[string]any{"Server": r.Server, "Ops/sec": round2(t.OpsSec), "Latency": round5(t.AvgMs)})
		}
		doc["Servers"] = servers
	}
	var ops float64
	for _, r := range runs {
		ops += float64(r.Totals().Ops)
	}
	client := map[string]any{"CPU seconds": cpu.Seconds()}
	if cpu > 0 {
		client["Ops per CPU-second"] = round2(ops / cpu.Seconds())
	}
	doc["Client"] = client
	return doc
}
