package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText prints the seed's table: one block per scenario with the
// commands' ops/sec, then total and the three normalized rows.
func WriteText(w io.Writer, t *Table) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"scenario", "io-threads", "command"}
	head = append(head, t.Targets...)
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
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
			fmt.Fprintln(tw, strings.Join(cells, "\t")+"\t")
		}
		for _, c := range s.Commands {
			line(c, func(tg string) string {
				if v, ok := s.Ops[c][tg]; ok {
					return Thousands(v)
				}
				return "n/a"
			})
		}
		line("total", func(tg string) string {
			if v, ok := d.Total[tg]; ok {
				return Thousands(v)
			}
			return "n/a"
		})
		line("total (normalized)", func(tg string) string { return Pct(d.TotalPct, tg) })
		line("price (normalized)", func(tg string) string { return Pct(d.PricePct, tg) })
		line("price-performance (normalized)", func(tg string) string { return Pct(d.PricePerfPct, tg) })
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "baseline: %s = 100%%\n", t.BaselineName())
	for _, n := range t.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	return nil
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
					rec = append(rec, ftoa(math.Round(v*100)/100))
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
}

// WriteJSON writes the table with its derived rows.
func WriteJSON(w io.Writer, t *Table) error {
	doc := JSONDoc{Baseline: t.BaselineName(), Targets: t.Targets, Prices: t.Prices, Notes: t.Notes}
	for _, s := range t.Scenarios {
		d := t.Derive(s)
		doc.Scenarios = append(doc.Scenarios, JSONScenario{ID: s.ID, IOThreads: s.IOThreads, Commands: s.Commands, Ops: s.Ops,
			Total: d.Total, TotalNormalizedPct: d.TotalPct, PriceNormalizedPct: d.PricePct, PricePerfNormalizePct: d.PricePerfPct})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(doc)
}
