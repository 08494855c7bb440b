package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// WriteText prints the seed's table: one block per scenario with the
// commands' ops/sec, then total and the three normalized rows. Label
// columns are left-aligned, numbers right-aligned.
func WriteText(w io.Writer, t *Table) error {
	var grid [][]string
	grid = append(grid, append([]string{"scenario", "io-threads", "command"}, t.Targets...))
	for _, s := range t.Scenarios {
		d := t.Derive(s)
		first := true
		line := func(label string, val func(tg string) string) {
			cells := []string{"", "", label}
			if first {
				cells[0], cells[1] = s.ID, s.IOThreads
				first = false
			}
			for _, tg := range t.Targets {
				cells = append(cells, val(tg))
			}
			grid = append(grid, cells)
		}
		num := func(m map[string]float64, tg string) string {
			if v, ok := m[tg]; ok {
				return Thousands(v)
			}
			return "n/a"
		}
		for _, c := range s.Commands {
			line(c, func(tg string) string { return num(s.Ops[c], tg) })
		}
		line("total", func(tg string) string { return num(d.Total, tg) })
		line("total (normalized)", func(tg string) string { return Pct(d.TotalPct, tg) })
		line("price (normalized)", func(tg string) string { return Pct(d.PricePct, tg) })
		line("price-performance (normalized)", func(tg string) string { return Pct(d.PricePerfPct, tg) })
	}
	width := make([]int, len(grid[0]))
	for _, row := range grid {
		for i, c := range row {
			width[i] = max(width[i], len(c))
		}
	}
	var b strings.Builder
	for _, row := range grid {
		for i, c := range row {
			if i < 3 {
				fmt.Fprintf(&b, "%-*s  ", width[i], c)
			} else {
				fmt.Fprintf(&b, "%*s  ", width[i], c)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "baseline: %s = 100%%\n", t.BaselineName())
	if t.HasDetail() {
		b.WriteString("\n")
		writeDetail(&b, t)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeDetail prints the side-by-side block: one line per scenario,
// command and target with ops/sec, the ratio to the baseline, latency
// percentiles and the server's CPU time and RSS.
// In cluster mode (seed 003) the block also has memtier's cluster-mode
// columns: MOVED/sec, ASK/sec and the mean latency.
func writeDetail(b *strings.Builder, t *Table) {
	cluster := t.HasRedirects()
	head := []string{"scenario", "io-threads", "command", "server", "ops/sec", "vs " + t.BaselineName()}
	if cluster {
		head = append(head, "MOVED/sec", "ASK/sec", "avg ms")
	}
	head = append(head, "p50 ms", "p99 ms", "p99.9 ms", "cpu µs/op", "rss MB")
	grid := [][]string{head}
	rate := func(v *float64) string {
		if v == nil {
			return "n/a"
		}
		return strconv.FormatFloat(*v, 'f', 2, 64)
	}
	for _, s := range t.Scenarios {
		first := true
		for _, c := range s.Commands {
			for _, tg := range t.Targets {
				v, ok := s.Ops[c][tg]
				if !ok {
					continue
				}
				row := []string{"", "", c, tg, Thousands(v), "n/a"}
				if first {
					row[0], row[1] = s.ID, s.IOThreads
					first = false
				}
				if r, ok := t.Ratio(s, c, tg); ok {
					row[5] = strconv.FormatFloat(r, 'f', 2, 64) + "x"
				}
				d, ok := s.Detail[c][tg]
				if cluster {
					if ok {
						row = append(row, rate(d.MovedSec), rate(d.AskSec), msText(d.AvgMs))
					} else {
						row = append(row, "n/a", "n/a", "n/a")
					}
				}
				rest := []string{"n/a", "n/a", "n/a", "n/a", "n/a"}
				if ok {
					rest[0], rest[1], rest[2] = msText(d.P50Ms), msText(d.P99Ms), msText(d.P999Ms)
					if d.CPUUsPerOp > 0 {
						rest[3] = strconv.FormatFloat(d.CPUUsPerOp, 'f', 2, 64)
					}
					if d.RSSBytes > 0 {
						rest[4] = strconv.FormatFloat(float64(d.RSSBytes)/(1<<20), 'f', 1, 64)
					}
				}
				grid = append(grid, append(row, rest...))
			}
		}
	}
	width := make([]int, len(grid[0]))
	for _, row := range grid {
		for i, c := range row {
			width[i] = max(width[i], utf8.RuneCountInString(c))
		}
	}
	for _, row := range grid {
		for i, c := range row {
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i < 4 {
				b.WriteString(c + pad + "  ")
			} else {
				b.WriteString(pad + c + "  ")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("latency: medians over rounds of each run's percentile (client-side, per request); cpu: server process utime+stime per op; rss: server VmRSS after the run\n")
	if cluster {
		b.WriteString("cluster mode: ops/sec is the cluster's total; MOVED/sec and ASK/sec: redirections the client followed; avg: mean latency; cpu and rss summed over the cluster's nodes\n")
	}
}

// msText renders milliseconds with three decimals ("n/a" for 0).
func msText(v float64) string {
	if v <= 0 {
		return "n/a"
	}
	return strconv.FormatFloat(v, 'f', 3, 64)
}

func ftoa(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', 2, 64)
}

// WriteCSV writes the table in the input format that ReadFile accepts back
// (the reference file's layout): scenario,io_threads,command,<targets>,
// plus a "price" row when prices are known.
func WriteCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	head := append([]string{"scenario", "io_threads", "command"}, t.Targets...)
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, s := range t.Scenarios {
		for _, c := range s.Commands {
			rec := []string{s.ID, s.IOThreads, c}
			for _, tg := range t.Targets {
				if v, ok := s.Ops[c][tg]; ok {
					rec = append(rec, strconv.FormatFloat(v, 'f', -1, 64)) // exact: no double rounding on re-read
				} else {
					rec = append(rec, "")
				}
			}
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	if len(t.Prices) > 0 {
		rec := []string{"price", "", ""}
		for _, tg := range t.Targets {
			if p, ok := t.Prices[tg]; ok {
				rec = append(rec, ftoa(p))
			} else {
				rec = append(rec, "")
			}
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// NormalizedRows are the derived rows as printed (rounded), in the layout
// of the seed's expected-normalized reference: scenario,row,<targets>.
func NormalizedRows(t *Table) [][]string {
	var out [][]string
	for _, s := range t.Scenarios {
		d := t.Derive(s)
		for _, r := range []struct {
			name string
			m    map[string]float64
		}{{"total", d.Total}, {"total_normalized_pct", d.TotalPct}, {"price_normalized_pct", d.PricePct}, {"price_performance_normalized_pct", d.PricePerfPct}} {
			rec := []string{s.ID, r.name}
			for _, tg := range t.Targets {
				if v, ok := r.m[tg]; ok {
					rec = append(rec, strconv.FormatInt(int64(math.Round(v)), 10))
				} else {
					rec = append(rec, "")
				}
			}
			out = append(out, rec)
		}
	}
	return out
}

// WriteNormalizedCSV writes NormalizedRows with a header.
func WriteNormalizedCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(append([]string{"scenario", "row"}, t.Targets...)); err != nil {
		return err
	}
	if err := cw.WriteAll(NormalizedRows(t)); err != nil {
		return err
	}
	return cw.Error()
}

// JSONDoc is the JSON layout (also accepted by ReadFile).
type JSONDoc struct {
	Baseline  string             `json:"baseline"`
	Targets   []string           `json:"targets"`
	Prices    map[string]float64 `json:"prices,omitempty"`
	Notes     []string           `json:"notes,omitempty"`
	Scenarios []JSONScenario     `json:"scenarios"`
}

// JSONScenario is one scenario with its derived rows.
type JSONScenario struct {
	ID                    string                        `json:"id"`
	IOThreads             string                        `json:"io_threads"`
	Commands              []string                      `json:"commands"`
	Ops                   map[string]map[string]float64 `json:"ops"`
	Total                 map[string]float64            `json:"total"`
	TotalNormalizedPct    map[string]float64            `json:"total_normalized_pct"`
	PriceNormalizedPct    map[string]float64            `json:"price_normalized_pct"`
	PricePerfNormalizePct map[string]float64            `json:"price_performance_normalized_pct"`
	Detail                map[string]map[string]Detail  `json:"detail,omitempty"`
}

// WriteJSON writes the table with its derived rows.
func WriteJSON(w io.Writer, t *Table) error {
	doc := JSONDoc{Baseline: t.BaselineName(), Targets: t.Targets, Prices: t.Prices, Notes: t.Notes}
	for _, s := range t.Scenarios {
		d := t.Derive(s)
		doc.Scenarios = append(doc.Scenarios, JSONScenario{ID: s.ID, IOThreads: s.IOThreads, Commands: s.Commands, Ops: s.Ops,
			Total: d.Total, TotalNormalizedPct: d.TotalPct, PriceNormalizedPct: d.PricePct, PricePerfNormalizePct: d.PricePerfPct,
			Detail: s.Detail})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
