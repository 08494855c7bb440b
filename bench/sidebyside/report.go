package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/bench/chart"
	"github.com/corvid-kv/corvid/internal/bench/report"
)

// Server names; the table's columns compare corvid with the others.
const (
	nCorvid = "corvid"
	nRedis  = "redis"
	nIO2    = "redis-io2"
	nNull   = "null"
	nCIO2   = "corvid-io2"
	nCURing = "corvid-uring"
	nCEpoll = "corvid-epoll"
)

// runResult is one corvid-bench run against one server.
type runResult struct {
	Pipeline int
	Command  string
	Round    int
	Server   string
	benchTotals
	CPUSec float64 // server utime+stime during the run
}

// cpuPer1M is the run's server CPU seconds per million ops.
func (r runResult) cpuPer1M() (float64, bool) { return per1M(r.CPUSec, r.Ops) }

func (r runResult) line() string {
	cpu := "n/a"
	if v, ok := r.cpuPer1M(); ok {
		cpu = fmt.Sprintf("%.2f", v)
	}
	s := fmt.Sprintf("pipeline %-2d %-5s round %d  %-9s %10s ops/s  p50 %.3f ms  p99 %.3f ms  CPU %5.2f s  %s s/1M ops",
		r.Pipeline, r.Command, r.Round, r.Server, report.Thousands(r.OpsSec), r.P50, r.P99, r.CPUSec, cpu)
	if r.Errors > 0 {
		s += fmt.Sprintf("  (%d errors)", r.Errors)
	}
	return s
}

func per1M(cpuSec float64, ops uint64) (float64, bool) {
	if ops == 0 {
		return 0, false
	}
	return cpuSec / float64(ops) * 1e6, true
}

type key struct {
	pipeline        int
	command, server string
}

// agg is one pipeline × command × server over its rounds.
type agg struct {
	opsSec, p50, p99 []float64
	cpuSec           float64
	ops, errors      uint64
	rssKiB           uint64
	hasRSS           bool
}

func (a *agg) meanOps() float64       { return mean(a.opsSec) }
func (a *agg) medP50() float64        { return median(a.p50) }
func (a *agg) medP99() float64        { return median(a.p99) }
func (a *agg) cpu1M() (float64, bool) { return per1M(a.cpuSec, a.ops) }

// results collects runs in the order they were measured.
type results struct {
	servers   []string
	runs      []runResult
	cells     map[key]*agg
	pipelines []int
	commands  map[int][]string
}

func newResults(servers []string) *results {
	return &results{servers: servers, cells: map[key]*agg{}, commands: map[int][]string{}}
}

func (r *results) cell(pl int, cmd, srv string) *agg {
	k := key{pl, cmd, srv}
	a := r.cells[k]
	if a == nil {
		a = &agg{}
		r.cells[k] = a
		if !slices.Contains(r.pipelines, pl) {
			r.pipelines = append(r.pipelines, pl)
		}
		if !slices.Contains(r.commands[pl], cmd) {
			r.commands[pl] = append(r.commands[pl], cmd)
		}
	}
	return a
}

func (r *results) add(rr runResult) {
	r.runs = append(r.runs, rr)
	a := r.cell(rr.Pipeline, rr.Command, rr.Server)
	a.opsSec = append(a.opsSec, rr.OpsSec)
	a.p50 = append(a.p50, rr.P50)
	a.p99 = append(a.p99, rr.P99)
	a.cpuSec += rr.CPUSec
	a.ops += rr.Ops
	a.errors += rr.Errors
}

func (r *results) setRSS(pl int, cmd, srv string, kib uint64) {
	a := r.cell(pl, cmd, srv)
	a.rssKiB, a.hasRSS = kib, true
}

func (r *results) get(pl int, cmd, srv string) *agg { return r.cells[key{pl, cmd, srv}] }

func (r *results) has(srv string) bool { return slices.Contains(r.servers, srv) }

// notes are the error replies seen at a pipeline depth.
func (r *results) notes(pl int) []string {
	var out []string
	for _, c := range r.commands[pl] {
		for _, s := range r.servers {
			if a := r.get(pl, c, s); a != nil && a.errors > 0 {
				out = append(out, fmt.Sprintf("%s %s: %d error replies over %d round(s)", s, c, a.errors, len(a.opsSec)))
			}
		}
	}
	return out
}

// tableRows is the table of one pipeline depth, header first, then one
// row per command and the total row.
func (r *results) tableRows(pl int, commands []string) [][]string {
	io2, null := r.has(nIO2), r.has(nNull)
	head := []string{"command", "corvid ops/s", "redis ops/s", "c/r"}
	if io2 {
		head = append(head, "redis-io2 ops/s", "c/io2")
	}
	if null {
		head = append(head, "null ops/s", "c/null")
	}
	// The second Corvid's columns: the first variant that ran.
	alt := nCIO2
	for _, v := range []string{nCIO2, nCURing, nCEpoll} {
		if r.has(v) {
			alt = v
			break
		}
	}
	cio2 := r.has(alt)
	if cio2 {
		head = append(head, alt+" ops/s", "c2/r", "c2 p99 ms", "c2 CPU s/1M")
	}
	head = append(head, "p50 ms c/r", "p99 ms c/r", "CPU s/1M ops c/r", "CPU c/r", "RSS MiB c/r")
	rows := [][]string{head}

	ops := func(a *agg) (float64, bool) {
		if a == nil || len(a.opsSec) == 0 {
			return 0, false
		}
		return a.meanOps(), true
	}
	sum := map[string]float64{}
	complete := map[string]bool{}
	for _, s := range r.servers {
		complete[s] = true
	}
	cpuSec := map[string]float64{}
	cpuOps := map[string]uint64{}
	for _, cmd := range commands {
		c, rd := r.get(pl, cmd, nCorvid), r.get(pl, cmd, nRedis)
		for _, s := range r.servers {
			a := r.get(pl, cmd, s)
			if v, ok := ops(a); ok {
				sum[s] += v
				cpuSec[s] += a.cpuSec
				cpuOps[s] += a.ops
			} else {
				complete[s] = false
			}
		}
		co, cok := ops(c)
		row := []string{cmd, fmtOps(co, cok)}
		ro, rok := ops(rd)
		row = append(row, fmtOps(ro, rok), ratio(co, ro, cok && rok))
		if io2 {
			v, ok := ops(r.get(pl, cmd, nIO2))
			row = append(row, fmtOps(v, ok), ratio(co, v, cok && ok))
		}
		if null {
			v, ok := ops(r.get(pl, cmd, nNull))
			row = append(row, fmtOps(v, ok), ratio(co, v, cok && ok))
		}
		if cio2 {
			a := r.get(pl, cmd, alt)
			v, ok := ops(a)
			p99, cpu := "n/a", "n/a"
			if a != nil && len(a.p99) > 0 {
				p99 = fmt.Sprintf("%.3f", a.medP99())
			}
			if a != nil {
				if x, ok := a.cpu1M(); ok {
					cpu = fmt.Sprintf("%.2f", x)
				}
			}
			row = append(row, fmtOps(v, ok), ratio(v, ro, ok && rok), p99, cpu)
		}
		row = append(row,
			pair(c, rd, func(a *agg) (string, bool) { return fmt.Sprintf("%.3f", a.medP50()), len(a.p50) > 0 }),
			pair(c, rd, func(a *agg) (string, bool) { return fmt.Sprintf("%.3f", a.medP99()), len(a.p99) > 0 }),
			pair(c, rd, func(a *agg) (string, bool) { v, ok := a.cpu1M(); return fmt.Sprintf("%.2f", v), ok }),
			cpuRatio(c, rd),
			pair(c, rd, func(a *agg) (string, bool) { return fmt.Sprintf("%.1f", float64(a.rssKiB)/1024), a.hasRSS }),
		)
		rows = append(rows, row)
	}

	tot := func(s string) (float64, bool) { return sum[s], complete[s] && len(commands) > 0 }
	co, cok := tot(nCorvid)
	ro, rok := tot(nRedis)
	row := []string{"total", fmtOps(co, cok), fmtOps(ro, rok), ratio(co, ro, cok && rok)}
	if io2 {
		v, ok := tot(nIO2)
		row = append(row, fmtOps(v, ok), ratio(co, v, cok && ok))
	}
	if null {
		v, ok := tot(nNull)
		row = append(row, fmtOps(v, ok), ratio(co, v, cok && ok))
	}
	if cio2 {
		v, ok := tot(alt)
		c2, c2ok := per1M(cpuSec[alt], cpuOps[alt])
		cpu := "n/a"
		if c2ok {
			cpu = fmt.Sprintf("%.2f", c2)
		}
		row = append(row, fmtOps(v, ok), ratio(v, ro, ok && rok), "", cpu)
	}
	cc, ccok := per1M(cpuSec[nCorvid], cpuOps[nCorvid])
	rc, rcok := per1M(cpuSec[nRedis], cpuOps[nRedis])
	cpuCell := "n/a"
	if ccok && rcok {
		cpuCell = fmt.Sprintf("%.2f / %.2f", cc, rc)
	}
	row = append(row, "", "", cpuCell, ratio(cc, rc, ccok && rcok), "")
	rows = append(rows, row)
	return rows
}

// cpuRatio is corvid's CPU per op over redis'.
func cpuRatio(c, r *agg) string {
	if c == nil || r == nil {
		return "n/a"
	}
	cv, cok := c.cpu1M()
	rv, rok := r.cpu1M()
	return ratio(cv, rv, cok && rok)
}

// pair renders "corvid / redis" for one metric.
func pair(c, r *agg, f func(*agg) (string, bool)) string {
	cell := func(a *agg) string {
		if a == nil {
			return "n/a"
		}
		if s, ok := f(a); ok {
			return s
		}
		return "n/a"
	}
	return cell(c) + " / " + cell(r)
}

func fmtOps(v float64, ok bool) string {
	if !ok {
		return "n/a"
	}
	return report.Thousands(v)
}

// ratio renders a/b as "1.23x", or "n/a" without both values or with b = 0.
func ratio(a, b float64, ok bool) string {
	if !ok || b == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.2fx", a/b)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// median of xs; with an even count, the mean of the middle two.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// renderText aligns rows: the first column left, the others right, a rule
// under the header.
func renderText(rows [][]string) string {
	if len(rows) == 0 {
		return ""
	}
	width := make([]int, len(rows[0]))
	for _, row := range rows {
		for i, c := range row {
			if i < len(width) {
				width[i] = max(width[i], len([]rune(c)))
			}
		}
	}
	var b strings.Builder
	for ri, row := range rows {
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-len([]rune(c)))
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString("  " + pad + c)
			}
		}
		b.WriteString("\n")
		if ri == 0 {
			total := 0
			for _, w := range width {
				total += w + 2
			}
			b.WriteString(strings.Repeat("-", total-2) + "\n")
		}
	}
	return b.String()
}

// renderMarkdown writes rows as a markdown table, numbers right-aligned.
func renderMarkdown(rows [][]string) string {
	if len(rows) == 0 {
		return ""
	}
	var b strings.Builder
	line := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	line(rows[0])
	b.WriteString("|---|")
	for range rows[0][1:] {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range rows[1:] {
		line(row)
	}
	return b.String()
}

// markdownDoc is PREFIX.md.
func markdownDoc(c *config, e env, r *results, svgName string) string {
	var b strings.Builder
	b.WriteString("### Seed commands side by side: corvid-server vs redis-server\n\n")
	fmt.Fprintf(&b, "```\n%s\n```\n\n", e.command)
	fmt.Fprintf(&b, "- %s; machine: %s cores (`nproc`), %s, kernel %s, load average at start %s\n",
		e.date, orUnknown(e.nproc), orUnknown(e.model), orUnknown(e.kernel), orUnknown(e.loadavg))
	fmt.Fprintf(&b, "- %s; %s; commit %s\n", orUnknown(e.redis), e.goVersion, orUnknown(e.commit))
	fmt.Fprintf(&b, "- servers: %s\n", strings.Join(r.servers, ", "))
	fmt.Fprintf(&b, "- each run: `%s`; servers in turn (%s), %d round(s) per command\n",
		e.load, strings.Join(r.servers, ", then "), c.rounds)
	b.WriteString("- ops/s: mean over rounds; p50/p99: median over rounds (ms); CPU s/1M ops: server utime+stime from /proc/PID/stat " +
		"over all rounds / ops of those rounds (= µs per op); CPU c/r < 1: Corvid cheaper; RSS: VmRSS after the command's last round; " +
		"c/r, c/io2, c/null: Corvid / redis, redis --io-threads 2, null server; c2/r: the second Corvid (corvid-io2: --io-threads 2, two event loops; corvid-uring, corvid-epoll: loops on io_uring, on epoll) / redis\n")
	for _, pl := range r.pipelines {
		fmt.Fprintf(&b, "\n#### pipeline %d\n\n", pl)
		b.WriteString(renderMarkdown(r.tableRows(pl, r.commands[pl])))
		for _, n := range r.notes(pl) {
			fmt.Fprintf(&b, "\nnote: %s\n", n)
		}
	}
	if svgName != "" {
		fmt.Fprintf(&b, "\n![ops/sec per command, redis = 100%%](%s)\n", svgName)
	}
	return b.String()
}

// writeSummaryCSV writes one row per pipeline, command and server, and a
// total row per pipeline and server.
func writeSummaryCSV(w io.Writer, r *results) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"pipeline", "command", "server", "rounds", "ops_sec_mean", "ops_sec_rounds", "p50_ms_median", "p99_ms_median",
		"cpu_s", "ops", "cpu_s_per_1m_ops", "rss_kib", "errors"})
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, pl := range r.pipelines {
		totOps, totCPU := map[string]float64{}, map[string]float64{}
		totN := map[string]uint64{}
		for _, cmd := range r.commands[pl] {
			for _, s := range r.servers {
				a := r.get(pl, cmd, s)
				if a == nil || len(a.opsSec) == 0 {
					continue
				}
				var each []string
				for _, v := range a.opsSec {
					each = append(each, f(v))
				}
				cpu, rss := "", ""
				if v, ok := a.cpu1M(); ok {
					cpu = strconv.FormatFloat(v, 'f', 4, 64)
				}
				if a.hasRSS {
					rss = strconv.FormatUint(a.rssKiB, 10)
				}
				cw.Write([]string{strconv.Itoa(pl), cmd, s, strconv.Itoa(len(a.opsSec)), strconv.FormatFloat(a.meanOps(), 'f', 2, 64),
					strings.Join(each, ";"), strconv.FormatFloat(a.medP50(), 'f', 5, 64), strconv.FormatFloat(a.medP99(), 'f', 5, 64), strconv.FormatFloat(a.cpuSec, 'f', 2, 64),
					strconv.FormatUint(a.ops, 10), cpu, rss, strconv.FormatUint(a.errors, 10)})
				totOps[s] += a.meanOps()
				totCPU[s] += a.cpuSec
				totN[s] += a.ops
			}
		}
		for _, s := range r.servers {
			cpu := ""
			if v, ok := per1M(totCPU[s], totN[s]); ok {
				cpu = strconv.FormatFloat(v, 'f', 4, 64)
			}
			cw.Write([]string{strconv.Itoa(pl), "total", s, "", strconv.FormatFloat(totOps[s], 'f', 2, 64), "", "", "",
				strconv.FormatFloat(totCPU[s], 'f', 2, 64), strconv.FormatUint(totN[s], 10), cpu, "", ""})
		}
	}
	cw.Flush()
	return cw.Error()
}

// writeRunsCSV writes every run.
func writeRunsCSV(w io.Writer, r *results) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"pipeline", "command", "round", "server", "ops_sec", "ops", "duration_ms", "p50_ms", "p99_ms", "cpu_s", "cpu_s_per_1m_ops", "errors"})
	for _, rr := range r.runs {
		cpu := ""
		if v, ok := rr.cpuPer1M(); ok {
			cpu = strconv.FormatFloat(v, 'f', 4, 64)
		}
		cw.Write([]string{strconv.Itoa(rr.Pipeline), rr.Command, strconv.Itoa(rr.Round), rr.Server,
			strconv.FormatFloat(rr.OpsSec, 'f', 2, 64), strconv.FormatUint(rr.Ops, 10), strconv.FormatInt(rr.DurationMs, 10),
			strconv.FormatFloat(rr.P50, 'f', -1, 64), strconv.FormatFloat(rr.P99, 'f', -1, 64),
			strconv.FormatFloat(rr.CPUSec, 'f', 2, 64), cpu, strconv.FormatUint(rr.Errors, 10)})
	}
	cw.Flush()
	return cw.Error()
}

// chartTable is the results as a report.Table for internal/bench/chart:
// one scenario per pipeline depth, mean ops/s, redis as the baseline.
func chartTable(r *results) *report.Table {
	t := report.NewTable()
	for _, s := range r.servers {
		t.AddTarget(s)
	}
	t.Baseline = nRedis
	for _, pl := range r.pipelines {
		sc := t.Scenario("pipeline "+strconv.Itoa(pl), "")
		for _, cmd := range r.commands[pl] {
			for _, s := range r.servers {
				if a := r.get(pl, cmd, s); a != nil && len(a.opsSec) > 0 {
					t.Set(sc, cmd, s, a.meanOps())
				}
			}
		}
	}
	return t
}

// writeOutputs (re)writes PREFIX.md, .csv, .runs.csv and .svg.
func writeOutputs(c *config, e env, r *results) error {
	if dir := filepath.Dir(c.out); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	write := func(path string, f func(io.Writer) error) error {
		fh, err := os.Create(path)
		if err != nil {
			return err
		}
		if err := f(fh); err != nil {
			fh.Close()
			return fmt.Errorf("%s: %w", path, err)
		}
		return fh.Close()
	}
	svg := c.out + ".svg"
	if err := write(svg, func(w io.Writer) error { return chart.SVG(w, chartTable(r)) }); err != nil {
		return err
	}
	if err := write(c.out+".md", func(w io.Writer) error {
		_, err := io.WriteString(w, markdownDoc(c, e, r, filepath.Base(svg)))
		return err
	}); err != nil {
		return err
	}
	if err := write(c.out+".csv", func(w io.Writer) error { return writeSummaryCSV(w, r) }); err != nil {
		return err
	}
	return write(c.out+".runs.csv", func(w io.Writer) error { return writeRunsCSV(w, r) })
}
