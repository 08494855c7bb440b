package main

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

var nan = math.NaN()

// per is a/b, NaN when b is 0.
func per(a, b float64) float64 {
	if b == 0 {
		return nan
	}
	return a / b
}

func sorted(xs []float64) []float64 {
	out := slices.Clone(xs)
	slices.Sort(out)
	return out
}

// pct is the p-th percentile (nearest rank) of sorted xs; 100 is the max,
// NaN for none.
func pct(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return nan
	}
	i := int(math.Ceil(p/100*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// median of xs, the mean of the middle two for an even count; NaNs are
// left out.
func median(xs []float64) float64 {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return nan
	}
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

func lagValues(s []lagSample) []float64 {
	out := make([]float64, len(s))
	for i, x := range s {
		out[i] = x.lag
	}
	slices.Sort(out)
	return out
}

// trend is how a phase's lag moved: the p50 of its first and last
// quarters (by time), the least-squares slope in bytes/s, and whether it
// grows (the last quarter's p50 above twice the first's and above 64 KB).
type trend struct {
	first, last, slope float64
	grows              bool
}

const growFloor = 64 << 10

func growth(s []lagSample) trend {
	if len(s) < 8 {
		return trend{first: nan, last: nan, slope: nan}
	}
	end := s[len(s)-1].t
	var first, last []float64
	var n, st, sl, stt, stl float64
	for _, x := range s {
		if x.t < end/4 {
			first = append(first, x.lag)
		} else if x.t >= end*3/4 {
			last = append(last, x.lag)
		}
		n++
		st += x.t
		sl += x.lag
		stt += x.t * x.t
		stl += x.t * x.lag
	}
	tr := trend{first: median(first), last: median(last), slope: nan}
	if d := n*stt - st*st; d > 0 {
		tr.slope = (n*stl - st*sl) / d
	}
	tr.grows = tr.last > 2*tr.first && tr.last > growFloor
	return tr
}

func bytesStr(x float64) string {
	switch {
	case math.IsNaN(x):
		return "n/a"
	case math.Abs(x) >= 10<<20:
		return fmt.Sprintf("%.0f MB", x/(1<<20))
	case math.Abs(x) >= 1<<20:
		return fmt.Sprintf("%.1f MB", x/(1<<20))
	case math.Abs(x) >= 10<<10:
		return fmt.Sprintf("%.0f KB", x/(1<<10))
	case math.Abs(x) >= 1<<10:
		return fmt.Sprintf("%.1f KB", x/(1<<10))
	}
	return fmt.Sprintf("%.0f B", x)
}

func num(x float64, format string) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf(format, x)
}

func ratio(a, b float64) string { return num(per(a, b), "%.2f") }

// results collects a run's syncs and phases.
type results struct {
	cfg    *config
	header []string
	syncs  []syncResult
	phases []phaseResult
}

func (r *results) syncsOf(kind string, replica int) []syncResult {
	var out []syncResult
	for _, s := range r.syncs {
		if s.Kind == kind && s.Replica == replica {
			out = append(out, s)
		}
	}
	return out
}

func (r *results) phasesOf(kind string, replicas int) []phaseResult {
	var out []phaseResult
	for _, p := range r.phases {
		if p.Kind == kind && p.Replicas == replicas {
			out = append(out, p)
		}
	}
	return out
}

// phaseOf is the phase of kind, round with that many replicas.
func (r *results) phaseOf(kind string, round, replicas int) (phaseResult, bool) {
	for _, p := range r.phases {
		if p.Kind == kind && p.Round == round && p.Replicas == replicas {
			return p, true
		}
	}
	return phaseResult{}, false
}

func medianOf[T any](xs []T, f func(T) float64) float64 {
	v := make([]float64, len(xs))
	for i, x := range xs {
		v[i] = f(x)
	}
	return median(v)
}

// syncRow is the medians of a kind's syncs of one replica.
type syncRow struct{ secs, up, pcpu, rcpu float64 }

func (r *results) syncRow(kind string, replica int) syncRow {
	ss := r.syncsOf(kind, replica)
	return syncRow{
		medianOf(ss, func(s syncResult) float64 { return s.Seconds }),
		medianOf(ss, func(s syncResult) float64 { return s.LinkUp }),
		medianOf(ss, func(s syncResult) float64 { return s.PrimaryCPU }),
		medianOf(ss, func(s syncResult) float64 { return s.ReplicaCPU }),
	}
}

// phaseRow is the medians of a kind's phases with that many replicas, and
// the pooled lag and visibility samples.
type phaseRow struct {
	ops, vs0, p50, p99, cpu, cpuVs0, rcpu float64
	lags, vis, errs                       []float64
	first, last, slope                    float64
	grows, rounds, timeouts               int
}

func (r *results) phaseRow(kind string, replicas int) phaseRow {
	ps := r.phasesOf(kind, replicas)
	row := phaseRow{
		ops:  medianOf(ps, func(p phaseResult) float64 { return p.OpsSec }),
		p50:  medianOf(ps, func(p phaseResult) float64 { return p.P50 }),
		p99:  medianOf(ps, func(p phaseResult) float64 { return p.P99 }),
		cpu:  medianOf(ps, phaseResult.cpuPerOp),
		rcpu: medianOf(ps, phaseResult.replicaCPUPerOp),
		vs0: medianOf(ps, func(p phaseResult) float64 {
			if b, ok := r.phaseOf(kind, p.Round, 0); ok {
				return per(p.OpsSec, b.OpsSec)
			}
			return nan
		}),
		cpuVs0: medianOf(ps, func(p phaseResult) float64 {
			if b, ok := r.phaseOf(kind, p.Round, 0); ok {
				return per(p.cpuPerOp(), b.cpuPerOp())
			}
			return nan
		}),
		rounds: len(ps),
	}
	var trs []trend
	for _, p := range ps {
		for _, s := range p.lag {
			row.lags = append(row.lags, s.lag)
			row.errs = append(row.errs, s.err)
		}
		row.vis = append(row.vis, p.visible...)
		row.timeouts += p.Timeouts
		tr := growth(p.lag)
		trs = append(trs, tr)
		if tr.grows {
			row.grows++
		}
	}
	slices.Sort(row.lags)
	slices.Sort(row.vis)
	row.first = medianOf(trs, func(t trend) float64 { return t.first })
	row.last = medianOf(trs, func(t trend) float64 { return t.last })
	row.slope = medianOf(trs, func(t trend) float64 { return t.slope })
	return row
}

// markdown is the three tables.
func (r *results) markdown() string {
	c := r.cfg
	var b strings.Builder
	maxRep := slices.Max(c.replicas)
	twoKinds := len(c.kinds) == 2
	a, z := c.kinds[0], c.kinds[len(c.kinds)-1]

	if maxRep > 0 {
		fmt.Fprintf(&b, "\n## Full sync: %d keys x %d bytes\n\n", c.keys(), c.valueSize)
		b.WriteString("From REPLICAOF until the replica reports master_link_status:up and its offset has reached the primary's; replica 1 is the first attached, the next ones attach with it connected (no load either way). Medians over rounds. CPU: utime+stime with reaped children (Valkey's RDB child), /proc/PID/stat.\n\n")
		b.WriteString("| server | replica | sync s | link up s | primary CPU s | replica CPU s | DBSIZE equal |\n|---|---:|---:|---:|---:|---:|---|\n")
		for _, k := range c.kinds {
			for i := 1; i <= maxRep; i++ {
				ss := r.syncsOf(k, i)
				if len(ss) == 0 {
					continue
				}
				ok := 0
				for _, s := range ss {
					if s.KeysOK {
						ok++
					}
				}
				row := r.syncRow(k, i)
				fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %d/%d |\n", k, i, num(row.secs, "%.2f"), num(row.up, "%.2f"),
					num(row.pcpu, "%.2f"), num(row.rcpu, "%.2f"), ok, len(ss))
			}
		}
		if twoKinds {
			for i := 1; i <= maxRep; i++ {
				x, y := r.syncRow(a, i), r.syncRow(z, i)
				fmt.Fprintf(&b, "| **%s/%s** | %d | %s | %s | %s | %s | |\n", a, z, i, ratio(x.secs, y.secs), ratio(x.up, y.up), ratio(x.pcpu, y.pcpu), ratio(x.rcpu, y.rcpu))
			}
		}
	}

	b.WriteString("\n## Primary throughput under the seed SET, by replicas attached\n\n")
	b.WriteString("memtier's Totals, medians over rounds; \"vs 0\": the ratio to the same server's 0-replica phase of the same round (median over rounds). CPU: the primary's utime+stime per op; replica CPU: per replica per op.\n\n")
	b.WriteString("| server | replicas | ops/s | vs 0 | p50 ms | p99 ms | primary CPU us/op | vs 0 | replica CPU us/op |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, k := range c.kinds {
		for _, n := range c.replicas {
			row := r.phaseRow(k, n)
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s |\n", k, n, num(row.ops, "%.0f"), num(row.vs0, "%.2f"),
				num(row.p50, "%.3f"), num(row.p99, "%.3f"), num(row.cpu, "%.2f"), num(row.cpuVs0, "%.2f"), num(row.rcpu, "%.2f"))
		}
	}
	if twoKinds {
		for _, n := range c.replicas {
			x, y := r.phaseRow(a, n), r.phaseRow(z, n)
			fmt.Fprintf(&b, "| **%s/%s** | %d | %s | %s | %s | %s | %s | %s | %s |\n", a, z, n, ratio(x.ops, y.ops), ratio(x.vs0, y.vs0),
				ratio(x.p50, y.p50), ratio(x.p99, y.p99), ratio(x.cpu, y.cpu), ratio(x.cpuVs0, y.cpuVs0), ratio(x.rcpu, y.rcpu))
		}
	}

	fmt.Fprintf(&b, "\n## Replication lag and write visibility under the same load\n\n")
	fmt.Fprintf(&b, "Lag: the primary's master_repl_offset (the mean of a reading before and one after the replicas') minus a replica's slave_repl_offset, sampled every %v (every sample of every replica and round; +-: the median half-difference of the two primary readings, the samples' uncertainty). Quarters: the lag's p50 in the phase's first and last quarter (median over rounds); slope: least squares, bytes/s; grows: the last quarter's p50 above twice the first's and above %s, in how many rounds. Visible: from sending a SET on the primary to the GET on a replica that returns it (polled every 100 us; with 0 replicas, the GET on the primary itself).\n\n",
		c.lagInterval, bytesStr(growFloor))
	b.WriteString("| server | replicas | lag p50 | lag p99 | lag max | first -> last quarter | slope B/s | grows | visible p50 ms | p99 ms | max ms | probes |\n|---|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n")
	for _, k := range c.kinds {
		for _, n := range c.replicas {
			row := r.phaseRow(k, n)
			lag := [4]string{"-", "-", "-", "-"}
			slope, grows := "-", "-"
			if n > 0 {
				lag = [4]string{bytesStr(pct(row.lags, 50)) + " +-" + bytesStr(median(row.errs)), bytesStr(pct(row.lags, 99)), bytesStr(pct(row.lags, 100)), bytesStr(row.first) + " -> " + bytesStr(row.last)}
				slope = num(row.slope, "%.0f")
				grows = "no"
				if row.grows > 0 {
					grows = fmt.Sprintf("**yes** (%d/%d)", row.grows, row.rounds)
				}
			}
			probes := strconv.Itoa(len(row.vis))
			if row.timeouts > 0 {
				probes += fmt.Sprintf(" (%d timed out)", row.timeouts)
			}
			fmt.Fprintf(&b, "| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", k, n, lag[0], lag[1], lag[2], lag[3], slope, grows,
				num(pct(row.vis, 50), "%.3f"), num(pct(row.vis, 99), "%.3f"), num(pct(row.vis, 100), "%.3f"), probes)
		}
	}
	if twoKinds {
		for _, n := range c.replicas {
			x, y := r.phaseRow(a, n), r.phaseRow(z, n)
			lag := [3]string{"-", "-", "-"}
			if n > 0 {
				lag = [3]string{ratio(pct(x.lags, 50), pct(y.lags, 50)), ratio(pct(x.lags, 99), pct(y.lags, 99)), ratio(pct(x.lags, 100), pct(y.lags, 100))}
			}
			fmt.Fprintf(&b, "| **%s/%s** | %d | %s | %s | %s | | | | %s | %s | %s | |\n", a, z, n, lag[0], lag[1], lag[2],
				ratio(pct(x.vis, 50), pct(y.vis, 50)), ratio(pct(x.vis, 99), pct(y.vis, 99)), ratio(pct(x.vis, 100), pct(y.vis, 100)))
		}
	}
	return b.String()
}

// writeCSV writes every sync and phase.
func (r *results) writeCSV(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	g := func(x float64) string {
		if math.IsNaN(x) {
			return ""
		}
		return strconv.FormatFloat(x, 'g', 6, 64)
	}
	w.Write([]string{"record", "server", "round", "replicas", "sync_s", "link_up_s", "primary_cpu_s", "replica_cpu_s", "keys_ok",
		"ops_sec", "ops", "p50_ms", "p99_ms", "lag_p50_b", "lag_p99_b", "lag_max_b", "lag_err_b", "lag_first_quarter_b", "lag_last_quarter_b", "lag_slope_b_s", "lag_grows",
		"visible_p50_ms", "visible_p99_ms", "visible_max_ms", "probes", "probe_timeouts"})
	for _, s := range r.syncs {
		w.Write([]string{"sync", s.Kind, strconv.Itoa(s.Round), strconv.Itoa(s.Replica), g(s.Seconds), g(s.LinkUp), g(s.PrimaryCPU), g(s.ReplicaCPU),
			strconv.FormatBool(s.KeysOK), "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "", ""})
	}
	for _, p := range r.phases {
		lags, vis, tr := lagValues(p.lag), sorted(p.visible), growth(p.lag)
		errs := make([]float64, len(p.lag))
		for i, x := range p.lag {
			errs[i] = x.err
		}
		w.Write([]string{"load", p.Kind, strconv.Itoa(p.Round), strconv.Itoa(p.Replicas), "", "", g(p.PrimaryCPU), g(p.ReplicaCPU), "",
			g(p.OpsSec), strconv.FormatInt(p.Ops, 10), g(p.P50), g(p.P99), g(pct(lags, 50)), g(pct(lags, 99)), g(pct(lags, 100)), g(median(errs)),
			g(tr.first), g(tr.last), g(tr.slope), strconv.FormatBool(tr.grows), g(pct(vis, 50)), g(pct(vis, 99)), g(pct(vis, 100)),
			strconv.Itoa(len(p.visible)), strconv.Itoa(p.Timeouts)})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
