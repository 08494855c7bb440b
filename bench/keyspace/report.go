package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// tolerance is the "flat within 20%" bound on throughput ratios.
const tolerance = 0.20

func f0(v float64) string { return strconv.FormatFloat(v, 'f', 0, 64) }
func f1(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
func f2(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }
func f3(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) }

func kibMiB(k int64) string {
	if k < 0 {
		return "?"
	}
	return strconv.FormatInt(k/1024, 10)
}

// firstSeen lists the distinct values of f over rows in first-seen order.
func firstSeen[T comparable](rows []scaleRow, f func(scaleRow) T) []T {
	var out []T
	seen := map[T]bool{}
	for _, r := range rows {
		if v := f(r); !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// serverOrder lists the servers in first-seen order.
func serverOrder(rows []scaleRow) []string {
	return firstSeen(rows, func(r scaleRow) string { return r.Server })
}

func sizesOf(rows []scaleRow) []int64 {
	return firstSeen(rows, func(r scaleRow) int64 { return r.Size })
}

func findRow(rows []scaleRow, server, cmd string, size int64) (scaleRow, bool) {
	for _, r := range rows {
		if r.Server == server && r.Command == cmd && r.Size == size {
			return r, true
		}
	}
	return scaleRow{}, false
}

// scalingTables is one side-by-side table per command (the servers'
// curves next to each other), the verdicts and the memory table.
func scalingTables(rows []scaleRow, commands []string) []*table {
	servers := serverOrder(rows)
	sizes := sizesOf(rows)
	if len(rows) == 0 {
		return nil
	}
	base := sizeLabel(sizes[0])
	var out []*table
	for _, cmd := range commands {
		t := &table{Title: cmd + " (latency in ms, server CPU in us per op)", Header: []string{"keys"}}
		for _, s := range servers {
			t.Header = append(t.Header, s+" ops/s", "vs "+base, "p50", "p99", "p99.9", "cpu us/op")
		}
		if len(servers) == 2 {
			t.Header = append(t.Header, servers[0]+"/"+servers[1])
		}
		for _, n := range sizes {
			cells := []string{sizeLabel(n)}
			var ops []float64
			for _, s := range servers {
				r, ok := findRow(rows, s, cmd, n)
				if !ok {
					cells = append(cells, "-", "-", "-", "-", "-", "-")
					ops = append(ops, 0)
					continue
				}
				cells = append(cells, f0(r.Res.OpsSec), f2(r.Rel), f3(r.Res.P50), f3(r.Res.P99), f3(r.Res.P999), f1(r.CPUUsPerOp))
				ops = append(ops, r.Res.OpsSec)
			}
			if len(servers) == 2 {
				if ops[1] > 0 {
					cells = append(cells, f2(ops[0]/ops[1]))
				} else {
					cells = append(cells, "-")
				}
			}
			t.add(cells...)
		}
		for _, r := range rows {
			if r.Command == cmd && r.Res.Errors > 0 {
				t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %d error replies", r.Server, sizeLabel(r.Size), r.Res.Errors))
			}
			if r.Command == cmd && r.Res.HasHits && r.Res.MissesSec > 0.001*r.Res.OpsSec {
				t.Notes = append(t.Notes, fmt.Sprintf("%s %s: %.1f%% misses", r.Server, sizeLabel(r.Size), 100*r.Res.MissesSec/r.Res.OpsSec))
			}
		}
		out = append(out, t)
	}

	v := &table{Title: fmt.Sprintf("Flat within %.0f%%: every ops/s ratio to the %s row in [%.2f, %.2f] (information, not an assertion)",
		100*tolerance, base, 1-tolerance, 1+tolerance), Header: []string{"command"}}
	v.Header = append(v.Header, servers...)
	verdicts := flatness(rows, tolerance)
	for _, cmd := range commands {
		cells := []string{cmd}
		for _, s := range servers {
			c := "-"
			for _, vd := range verdicts {
				if vd.Server == s && vd.Command == cmd {
					c = fmt.Sprintf("%s (ops/s %.2f..%.2f; cpu/op %.2f..%.2f; %d size(s))", passFail(vd.Pass), vd.Min, vd.Max, vd.CPUMin, vd.CPUMax, vd.Sizes)
				}
			}
			cells = append(cells, c)
		}
		v.add(cells...)
	}
	out = append(out, v)

	m := &table{Title: "Server RSS in MiB (strings: after GET/SET; +zsets: after ZADD) and fill time", Header: []string{"keys"}}
	for _, s := range servers {
		m.Header = append(m.Header, s+" strings", s+" +zsets", s+" fill")
	}
	for _, n := range sizes {
		cells := []string{sizeLabel(n)}
		for _, s := range servers {
			str, z, fill := "-", "-", "-"
			for _, r := range rows {
				if r.Server != s || r.Size != n {
					continue
				}
				if r.Command == "ZADD" {
					z = kibMiB(r.RSSKiB)
				} else {
					str = kibMiB(r.RSSKiB)
					fill = fmt.Sprintf("%s %.1fs", r.FillMethod, r.FillSecs)
				}
			}
			cells = append(cells, str, z, fill)
		}
		m.add(cells...)
	}
	out = append(out, m)
	return out
}

func passFail(ok bool) string {
	if ok {
		return "PASS"
	}
	return "FAIL"
}

// rehashTable shows the GET load of each window and the grow window's
// latencies over the overwrite and quiet windows'.
func rehashTable(rows []rehashRow, bits int, margin int64) *table {
	from, to := rehashRange(bits, margin)
	t := &table{
		Title:  fmt.Sprintf("Rehash latency, corvid: GET load on %d keys while a writer inserts up to %d keys (2^%d-%d -> 2^%d+%d); latency in ms", from, to, bits, margin, bits+1, margin),
		Header: []string{"window", "writer ops", "writer s", "GET ops/s", "p50", "p99", "p99.9", "p99.99", "max", "keys", "bucket tables"},
	}
	for _, r := range rows {
		wops, ws := "-", "-"
		if r.WriterOps > 0 {
			wops, ws = strconv.FormatInt(r.WriterOps, 10), f1(r.WriterSecs)
		}
		t.add(r.Window, wops, ws, f0(r.Res.OpsSec), f3(r.Res.P50), f3(r.Res.P99), f3(r.Res.P999), f3(r.Res.P9999), f3(r.Res.MaxMs),
			fmt.Sprintf("%d->%d", r.KeysBefore, r.KeysAfter), mib(r.LUTBefore)+"->"+mib(r.LUTAfter))
		if r.WriterErrs > 0 {
			t.Notes = append(t.Notes, fmt.Sprintf("%s: %d writer error replies", r.Window, r.WriterErrs))
		}
	}
	byName := map[string]rehashRow{}
	for _, r := range rows {
		byName[r.Window] = r
	}
	g, okg := byName["grow"]
	for _, ref := range []string{"overwrite", "quiet"} {
		b, ok := byName[ref]
		if !ok || !okg {
			continue
		}
		t.Notes = append(t.Notes, fmt.Sprintf("grow / %s: ops/s %s, p50 %s, p99 %s, p99.9 %s, p99.99 %s, max %s", ref,
			ratio(g.Res.OpsSec, b.Res.OpsSec), ratio(g.Res.P50, b.Res.P50), ratio(g.Res.P99, b.Res.P99),
			ratio(g.Res.P999, b.Res.P999), ratio(g.Res.P9999, b.Res.P9999), ratio(g.Res.MaxMs, b.Res.MaxMs)))
	}
	return t
}

func ratio(a, b float64) string {
	if b <= 0 {
		return "-"
	}
	return f2(a / b)
}

// csvHeader is the long-form CSV: one line per reported row ("scaling":
// the median of the rounds, "scaling-run": every round when there were
// several, "rehash": one window).
var csvHeader = []string{"mode", "round", "server", "command", "size", "keys", "fill_method", "fill_s",
	"ops_sec", "rel_to_smallest", "p50_ms", "p99_ms", "p99_9_ms", "p99_99_ms", "max_ms", "avg_ms",
	"server_cpu_us_per_op", "cpu_rel_to_smallest", "server_rss_kib", "errors", "hit_rate",
	"window", "writer_ops", "writer_s", "keys_after", "bucket_bytes_before", "bucket_bytes_after", "cmdline"}

func writeCSV(w io.Writer, header []string, summary, runs []scaleRow, rehash []rehashRow) error {
	if err := benchproc.WriteComments(w, header); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	cw.Write(csvHeader)
	i64 := func(v int64) string { return strconv.FormatInt(v, 10) }
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	several := false
	for _, r := range summary {
		several = several || r.Runs > 1
	}
	scale := func(mode string, r scaleRow) {
		hit := ""
		if r.Res.HasHits && r.Res.OpsSec > 0 {
			hit = f3(r.Res.HitsSec / r.Res.OpsSec)
		}
		cw.Write([]string{mode, strconv.Itoa(r.Round), r.Server, r.Command, i64(r.Size), i64(r.Keys), r.FillMethod, f3(r.FillSecs),
			f2(r.Res.OpsSec), f3(r.Rel), g(r.Res.P50), g(r.Res.P99), g(r.Res.P999), g(r.Res.P9999), g(r.Res.MaxMs), g(r.Res.AvgMs),
			f2(r.CPUUsPerOp), f3(r.CPURel), i64(r.RSSKiB), i64(r.Res.Errors), hit,
			"", "", "", "", "", "", r.Cmdline})
	}
	for _, r := range summary {
		scale("scaling", r)
	}
	if several {
		for _, r := range runs {
			scale("scaling-run", r)
		}
	}
	for _, r := range rehash {
		hit := ""
		if r.Res.HasHits && r.Res.OpsSec > 0 {
			hit = f3(r.Res.HitsSec / r.Res.OpsSec)
		}
		cw.Write([]string{"rehash", "", "corvid", "GET", "", i64(r.KeysBefore), "", "",
			f2(r.Res.OpsSec), "", g(r.Res.P50), g(r.Res.P99), g(r.Res.P999), g(r.Res.P9999), g(r.Res.MaxMs), g(r.Res.AvgMs),
			"", "", "", i64(r.Res.Errors), hit,
			r.Window, i64(r.WriterOps), f3(r.WriterSecs), i64(r.KeysAfter), i64(r.LUTBefore), i64(r.LUTAfter), r.Cmdline})
	}
	cw.Flush()
	return cw.Error()
}

// writeMarkdown writes the header lines, the tables and the commands run.
func writeMarkdown(w io.Writer, header []string, tables []*table, commands []string) {
	fmt.Fprintf(w, "# Keyspace scaling and rehash latency\n\n")
	for _, h := range header {
		k, v, _ := strings.Cut(h, ": ")
		fmt.Fprintf(w, "- %s: `%s`\n", k, v)
	}
	fmt.Fprintln(w)
	for _, t := range tables {
		t.markdown(w)
	}
	if len(commands) > 0 {
		fmt.Fprintf(w, "### Commands run\n\n```\n%s\n```\n", strings.Join(commands, "\n"))
	}
}
