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

// perElem is a byte growth per element.
func perElem(delta, n int64) float64 { return per(float64(delta), float64(n)) }

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

func num(x float64, format string) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return "n/a"
	}
	return fmt.Sprintf(format, x)
}

func ratio(a, b float64) string { return num(per(a, b), "%.2f") }

// results collects a run's measurements.
type results struct {
	cfg    *config
	header []string
	runs   []runResult
}

// of is the runs of a case on a server kind; good leaves the flagged ones
// out.
func (r *results) of(name, kind string, good bool) []runResult {
	var out []runResult
	for _, x := range r.runs {
		if x.Case == name && x.Kind == kind && (!good || x.flagged() == "") {
			out = append(out, x)
		}
	}
	return out
}

// row is the medians of a case's unflagged runs on one server kind.
type row struct {
	ops, cpu, p50, p99, used, rss float64
	errors                        int64
	runs, flagged                 int
}

func (r *results) row(name, kind string) row {
	all, good := r.of(name, kind, false), r.of(name, kind, true)
	med := func(f func(runResult) float64) float64 {
		v := make([]float64, len(good))
		for i, x := range good {
			v[i] = f(x)
		}
		return median(v)
	}
	w := row{
		ops:     med(func(x runResult) float64 { return x.OpsSec }),
		cpu:     med(runResult.cpuPerOp),
		p50:     med(func(x runResult) float64 { return x.P50 }),
		p99:     med(func(x runResult) float64 { return x.P99 }),
		used:    med(func(x runResult) float64 { return perElem(x.UsedAfter-x.UsedBefore, x.Elements) }),
		rss:     med(func(x runResult) float64 { return perElem(x.RSSAfter-x.RSSBefore, x.Elements) }),
		runs:    len(all),
		flagged: len(all) - len(good),
	}
	for _, x := range all {
		w.errors += x.Errors
	}
	return w
}

// table renders a markdown table: the first column and the text columns
// (error replies, flagged runs) left-aligned, the figures right-aligned.
func table(b *strings.Builder, head []string, rows [][]string) {
	b.WriteString("| " + strings.Join(head, " | ") + " |\n")
	b.WriteString("|")
	for i, h := range head {
		if i == 0 || h == "error replies" || h == "flagged runs" {
			b.WriteString("---|")
		} else {
			b.WriteString("---:|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
}

// markdown is the report's tables.
func (r *results) markdown() string {
	c := r.cfg
	var b strings.Builder
	ks := c.kinds
	both := slices.Contains(ks, "corvid") && slices.Contains(ks, "valkey")
	var tput, mem []string
	for _, name := range c.cases {
		if isMemory(name) {
			mem = append(mem, name)
		} else {
			tput = append(tput, name)
		}
	}

	b.WriteString("\n## Cases\n\n")
	for _, name := range c.cases {
		fmt.Fprintf(&b, "- **%s**: %s\n", name, describe(c, name))
	}

	if len(tput) > 0 {
		fmt.Fprintf(&b, "\n## Throughput, CPU and latency at %d clients, pipeline 1\n\n", c.conns())
		fmt.Fprintf(&b, "Medians over the unflagged runs of %d round(s), %d s each. ops/s: memtier's Totals (xreadgroup: read+ack pairs over the loop's wall time); CPU: the server's utime+stime per op (/proc/PID/stat); p50/p99: per command (xreadgroup: per pair). corvid/valkey: ops/s above 1, CPU and latency below 1 favour Corvid. Error replies: total_error_replies growth during the loads, summed over the rounds.\n\n",
			c.rounds, c.testTime)
		head := []string{"case"}
		add := func(f string) {
			for _, k := range ks {
				head = append(head, k+" "+f)
			}
		}
		add("ops/s")
		if both {
			head = append(head, "ops corvid/valkey")
		}
		add("CPU us/op")
		if both {
			head = append(head, "CPU corvid/valkey")
		}
		add("p50 ms")
		add("p99 ms")
		if both {
			head = append(head, "p99 corvid/valkey")
		}
		head = append(head, "error replies", "flagged runs")
		var rows [][]string
		for _, name := range tput {
			rw := map[string]row{}
			for _, k := range ks {
				rw[k] = r.row(name, k)
			}
			line := []string{name}
			each := func(f func(row) string) {
				for _, k := range ks {
					line = append(line, f(rw[k]))
				}
			}
			each(func(w row) string { return num(w.ops, "%.0f") })
			if both {
				line = append(line, "**"+ratio(rw["corvid"].ops, rw["valkey"].ops)+"**")
			}
			each(func(w row) string { return num(w.cpu, "%.2f") })
			if both {
				line = append(line, ratio(rw["corvid"].cpu, rw["valkey"].cpu))
			}
			each(func(w row) string { return num(w.p50, "%.3f") })
			each(func(w row) string { return num(w.p99, "%.3f") })
			if both {
				line = append(line, ratio(rw["corvid"].p99, rw["valkey"].p99))
			}
			var errs, flags []string
			for _, k := range ks {
				errs = append(errs, fmt.Sprintf("%s %d", k, rw[k].errors))
				if rw[k].flagged > 0 {
					flags = append(flags, fmt.Sprintf("**%s %d/%d**", k, rw[k].flagged, rw[k].runs))
				}
			}
			if len(flags) == 0 {
				flags = []string{"-"}
			}
			rows = append(rows, append(line, strings.Join(errs, ", "), strings.Join(flags, ", ")))
		}
		table(&b, head, rows)
	}

	if len(mem) > 0 {
		b.WriteString("\n## Memory per element\n\n")
		fmt.Fprintf(&b, "Growth over the elements on a fresh server, each reading after %v and MEMORY PURGE; used = INFO used_memory (Corvid: its accounting of the dataset; Valkey: the allocator's count), RSS = VmRSS. Medians over %d round(s); corvid/valkey below 1 favours Corvid.\n\n", c.settle, c.rounds)
		head := []string{"case", "elements", "keys"}
		for _, k := range ks {
			head = append(head, k+" used B/elem")
		}
		if both {
			head = append(head, "used corvid/valkey")
		}
		for _, k := range ks {
			head = append(head, k+" RSS B/elem")
		}
		if both {
			head = append(head, "RSS corvid/valkey")
		}
		var rows [][]string
		for _, name := range mem {
			rw := map[string]row{}
			for _, k := range ks {
				rw[k] = r.row(name, k)
			}
			line := []string{name, strconv.Itoa(c.memElements), strconv.Itoa(c.memKeys)}
			for _, k := range ks {
				line = append(line, num(rw[k].used, "%.1f"))
			}
			if both {
				line = append(line, "**"+ratio(rw["corvid"].used, rw["valkey"].used)+"**")
			}
			for _, k := range ks {
				line = append(line, num(rw[k].rss, "%.1f"))
			}
			if both {
				line = append(line, ratio(rw["corvid"].rss, rw["valkey"].rss))
			}
			rows = append(rows, line)
		}
		table(&b, head, rows)
	}

	var flagged []string
	for _, x := range r.runs {
		if f := x.flagged(); f != "" {
			flagged = append(flagged, fmt.Sprintf("- round %d, %s, %s: %s", x.Round, x.Case, x.Kind, f))
		}
	}
	if len(flagged) > 0 {
		b.WriteString("\n### Flagged runs (kept out of the medians)\n\n" + strings.Join(flagged, "\n") + "\n")
	}
	return b.String()
}

// csvHeader is the columns of PREFIX.runs.csv.
var csvHeader = []string{"case", "server", "round", "ops_sec", "ops", "p50_ms", "p99_ms", "cpu_s", "cpu_us_op",
	"error_replies", "client_errors", "empty_reads", "bad_acks", "flagged", "fill_s", "note",
	"elements", "used_before", "used_after", "rss_before", "rss_after", "load_s"}

// csvRow is one run as PREFIX.runs.csv has it.
func csvRow(x runResult) []string {
	g := func(v float64) string {
		if math.IsNaN(v) {
			return ""
		}
		return strconv.FormatFloat(v, 'g', 6, 64)
	}
	i := func(v int64) string { return strconv.FormatInt(v, 10) }
	if isMemory(x.Case) {
		return []string{x.Case, x.Kind, strconv.Itoa(x.Round), "", "", "", "", "", "", "", "", "", "", "", "", "",
			i(x.Elements), i(x.UsedBefore), i(x.UsedAfter), i(x.RSSBefore), i(x.RSSAfter), g(x.LoadSeconds)}
	}
	return []string{x.Case, x.Kind, strconv.Itoa(x.Round), g(x.OpsSec), i(x.Ops), g(x.P50), g(x.P99), g(x.CPU), g(x.cpuPerOp()),
		i(x.Errors), i(x.ClientErrors), i(x.Empty), i(x.BadAcks), x.flagged(), g(x.Fill), x.Note, "", "", "", "", "", ""}
}

// writeCSV writes every run.
func (r *results) writeCSV(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := csv.NewWriter(f)
	w.Write(csvHeader)
	for _, x := range r.runs {
		w.Write(csvRow(x))
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
