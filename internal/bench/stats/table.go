package stats

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
	"strings"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// Row is one printed line of a results table.
type Row struct {
	Type                                              string
	Count, Errors                                     uint64
	OpsSec, HitsSec, MissesSec, MovedSec, AskSec, KBs float64
	TrackHits                                         bool
	Empty                                             bool // the Waits row: all "---"
	AvgMs, MinMs, MaxMs                               float64
	PctMs                                             []float64 // aligned with the table's percentiles
	hist                                              *hdrhistogram.Histogram
}

func ms(ns float64) float64 { return ns / 1e6 }

func makeRow(c *Cmd, secs float64, pcts []float64) Row {
	if secs <= 0 {
		secs = 1e-9
	}
	r := Row{Type: c.Name, Count: c.Ops, Errors: c.Errors, TrackHits: c.TrackHits, hist: c.Hist,
		OpsSec: float64(c.Ops) / secs, HitsSec: float64(c.Hits) / secs, MissesSec: float64(c.Misses) / secs,
		MovedSec: float64(c.Moved) / secs, AskSec: float64(c.Ask) / secs, KBs: float64(c.Bytes) / 1024 / secs}
	if c.Hist != nil && c.Hist.TotalCount() > 0 {
		r.AvgMs, r.MinMs, r.MaxMs = ms(c.Hist.Mean()), ms(float64(c.Hist.Min())), ms(float64(c.Hist.Max()))
		for _, p := range pcts {
			r.PctMs = append(r.PctMs, ms(float64(c.Hist.ValueAtPercentile(p))))
		}
	} else {
		r.PctMs = make([]float64, len(pcts))
	}
	return r
}

// Rows builds the table rows for one result: each command, Waits in
// default mode, then Totals.
func Rows(r *Result, pcts []float64) []Row {
	secs := r.Duration().Seconds()
	var rows []Row
	for _, c := range r.Cmds {
		rows = append(rows, makeRow(c, secs, pcts))
	}
	if r.Waits {
		rows = append(rows, Row{Type: "Waits", Empty: true})
	}
	return append(rows, makeRow(r.Totals(), secs, pcts))
}

// TotalOps is a result's total throughput (ops/sec).
func TotalOps(r *Result) float64 {
	s := r.Duration().Seconds()
	if s <= 0 {
		return 0
	}
	return float64(r.Totals().Ops) / s
}

// BestWorst returns the runs with the highest and lowest total ops/sec.
func BestWorst(runs []*Result) (best, worst *Result) {
	for _, r := range runs {
		if best == nil || TotalOps(r) > TotalOps(best) {
			best = r
		}
		if worst == nil || TotalOps(r) < TotalOps(worst) {
			worst = r
		}
	}
	return best, worst
}

// AverageRows is memtier's AGGREGATED AVERAGE: rates averaged over runs,
// latencies from the histograms of all runs merged.
func AverageRows(runs []*Result, pcts []float64) []Row {
	type acc struct {
		cmd  *Cmd
		rate [5]float64
		kb   float64
	}
	var order []string
	accs := map[string]*acc{}
	waits := false
	add := func(c *Cmd, secs float64) {
		a := accs[c.Name]
		if a == nil {
			a = &acc{cmd: &Cmd{Name: c.Name, TrackHits: c.TrackHits, Hist: NewHist()}}
			accs[c.Name] = a
			order = append(order, c.Name)
		}
		a.cmd.Counters.Add(c.Counters)
		a.cmd.Hist.Merge(c.Hist)
		if secs > 0 {
			a.rate[0] += float64(c.Ops) / secs
			a.rate[1] += float64(c.Hits) / secs
			a.rate[2] += float64(c.Misses) / secs
			a.rate[3] += float64(c.Moved) / secs
			a.rate[4] += float64(c.Ask) / secs
			a.kb += float64(c.Bytes) / 1024 / secs
		}
	}
	for _, r := range runs {
		secs := r.Duration().Seconds()
		for _, c := range r.Cmds {
			add(c, secs)
		}
		waits = waits || r.Waits
	}
	n := float64(len(runs))
	var rows []Row
	total := &Cmd{Name: "Totals", Hist: NewHist()}
	var trate [5]float64
	var tkb float64
	for _, name := range order {
		a := accs[name]
		row := makeRow(a.cmd, 1, pcts)
		row.Count = a.cmd.Ops / uint64(max(n, 1))
		row.OpsSec, row.HitsSec, row.MissesSec, row.MovedSec, row.AskSec = a.rate[0]/n, a.rate[1]/n, a.rate[2]/n, a.rate[3]/n, a.rate[4]/n
		row.KBs = a.kb / n
		rows = append(rows, row)
		total.Counters.Add(a.cmd.hitCounters())
		total.TrackHits = total.TrackHits || a.cmd.TrackHits
		total.Hist.Merge(a.cmd.Hist)
		for i := range trate {
			if (i == 1 || i == 2) && !a.cmd.TrackHits {
				continue // hits, misses: only GET-like rows count (memtier's Totals)
			}
			trate[i] += a.rate[i] / n
		}
		tkb += a.kb / n
	}
	if waits {
		rows = append(rows, Row{Type: "Waits", Empty: true})
	}
	tr := makeRow(total, 1, pcts)
	tr.Count = total.Ops / uint64(max(n, 1))
	tr.OpsSec, tr.HitsSec, tr.MissesSec, tr.MovedSec, tr.AskSec, tr.KBs = trate[0], trate[1], trate[2], trate[3], trate[4], tkb
	return append(rows, tr)
}

// PctLabel renders a percentile like memtier's column heads: 50 -> "p50",
// 99.9 -> "p99.9".
func PctLabel(p float64) string {
	return "p" + strconv.FormatFloat(p, 'f', -1, 64)
}

// WriteTable prints rows under a memtier-style heading.
func WriteTable(w io.Writer, title string, rows []Row, cluster bool, pcts []float64) {
	var head strings.Builder
	fmt.Fprintf(&head, "%-7s %12s %12s %12s ", "Type", "Ops/sec", "Hits/sec", "Misses/sec")
	if cluster {
		fmt.Fprintf(&head, "%12s %12s ", "MOVED/sec", "ASK/sec")
	}
	fmt.Fprintf(&head, "%15s ", "Avg. Latency")
	for _, p := range pcts {
		fmt.Fprintf(&head, "%15s ", PctLabel(p)+" Latency")
	}
	fmt.Fprintf(&head, "%12s ", "KB/sec")
	width := head.Len()
	fmt.Fprintf(w, "\n\n%s\n%s\n%s\n%s\n", title, strings.Repeat("=", width), head.String(), strings.Repeat("-", width))
	for _, r := range rows {
		var b strings.Builder
		dash := func(n int) { fmt.Fprintf(&b, "%*s ", n, "---") }
		if r.Empty {
			fmt.Fprintf(&b, "%-7s %12.2f ", r.Type, 0.0)
			dash(12)
			dash(12)
			if cluster {
				dash(12)
				dash(12)
			}
			dash(15)
			for range pcts {
				dash(15)
			}
			dash(12)
			fmt.Fprintln(w, b.String())
			continue
		}
		fmt.Fprintf(&b, "%-7s %12.2f ", r.Type, r.OpsSec)
		if r.TrackHits {
			fmt.Fprintf(&b, "%12.2f %12.2f ", r.HitsSec, r.MissesSec)
		} else {
			dash(12)
			dash(12)
		}
		if cluster {
			fmt.Fprintf(&b, "%12.2f %12.2f ", r.MovedSec, r.AskSec)
		}
		fmt.Fprintf(&b, "%15.5f ", r.AvgMs)
		for _, v := range r.PctMs {
			fmt.Fprintf(&b, "%15.5f ", v)
		}
		fmt.Fprintf(&b, "%12.2f ", r.KBs)
		fmt.Fprintln(w, b.String())
	}
}

// WriteServers prints one Totals line per server and their sum (seed 001:
// one server process per core, throughput summed).
func WriteServers(w io.Writer, per []*Result, sum *Result, pcts []float64) {
	if len(per) < 2 {
		return
	}
	var rows []Row
	for _, r := range per {
		row := makeRow(r.Totals(), r.Duration().Seconds(), pcts)
		row.Type = r.Server
		rows = append(rows, row)
	}
	row := makeRow(sum.Totals(), sum.Duration().Seconds(), pcts)
	row.Type = "Sum"
	rows = append(rows, row)
	wide := 6
	for _, r := range rows {
		wide = max(wide, len(r.Type))
	}
	fmt.Fprintf(w, "\n\nPER SERVER\n%-*s %12s %15s", wide, "Server", "Ops/sec", "Avg. Latency")
	for _, p := range pcts {
		fmt.Fprintf(w, " %15s", PctLabel(p)+" Latency")
	}
	fmt.Fprintf(w, " %12s\n", "KB/sec")
	for _, r := range rows {
		fmt.Fprintf(w, "%-*s %12.2f %15.5f", wide, r.Type, r.OpsSec, r.AvgMs)
		for _, v := range r.PctMs {
			fmt.Fprintf(w, " %15.5f", v)
		}
		fmt.Fprintf(w, " %12.2f\n", r.KBs)
	}
}

// WriteDistribution prints the cumulative latency distribution per command
// (memtier's "Request Latency Distribution").
func WriteDistribution(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "\n\nRequest Latency Distribution\n%-6s %12s %12s\n", "Type", "<= msec", "Percent")
	fmt.Fprintln(w, strings.Repeat("-", 32))
	for _, r := range rows {
		if r.Empty || r.Type == "Totals" || r.hist == nil || r.hist.TotalCount() == 0 {
			continue
		}
		name := strings.ToUpper(strings.TrimSuffix(r.Type, "s"))
		for _, b := range r.hist.CumulativeDistributionWithTicks(2) {
			fmt.Fprintf(w, "%-6s %12.3f %12.3f\n", name, ms(float64(b.ValueAt)), b.Quantile)
		}
		fmt.Fprintln(w, "---")
	}
}

// WriteHDRFiles writes one HdrHistogram percentile-distribution file per
// command (values in ms), named PREFIX_<TYPE>_RUN_<n>.hgrm, the format
// HdrHistogram's plotter reads. It returns the files written.
func WriteHDRFiles(prefix string, run int, rows []Row) ([]string, error) {
	var files []string
	for _, r := range rows {
		if r.Empty || r.hist == nil {
			continue
		}
		name := fmt.Sprintf("%s_%s_RUN_%d.hgrm", prefix, strings.ToUpper(r.Type), run)
		f, err := os.Create(name)
		if err != nil {
			return files, err
		}
		_, werr := r.hist.PercentilesPrint(f, 5, 1e6)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return files, werr
		}
		files = append(files, name)
	}
	sort.Strings(files)
	return files, nil
}
