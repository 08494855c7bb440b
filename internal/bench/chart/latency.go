package chart

import (
	"fmt"
	"io"
	"math"

	"github.com/corvid-kv/corvid/internal/bench/report"
)

// LatencySVG writes the latency chart of a side-by-side table: for each
// scenario, three panels (p50, p99, p99.9 in ms), each with one bar per
// server per command in the same colours as the throughput chart.
func LatencySVG(w io.Writer, t *report.Table) error {
	shapes, width, height := latencyLayout(t)
	return render(w, shapes, width, height)
}

var latencyPcts = []struct {
	name string
	get  func(report.Detail) float64
}{
	{"p50", func(d report.Detail) float64 { return d.P50Ms }},
	{"p99", func(d report.Detail) float64 { return d.P99Ms }},
	{"p99.9", func(d report.Detail) float64 { return d.P999Ms }},
}

func latencyLayout(t *report.Table) (shapes []shape, width, height float64) {
	nT := max(len(t.Targets), 1)
	maxCmds := 1
	for _, s := range t.Scenarios {
		maxCmds = max(maxCmds, len(s.Commands))
	}
	barW := 14.0
	groupW := groupWidth(t, barW)
	panelW := math.Max(float64(maxCmds)*groupW, 220)
	gap := 70.0
	width = leftPad + 3*panelW + 2*gap + 30
	height = panelH*float64(len(t.Scenarios)) + 70
	add := func(s shape) { shapes = append(shapes, s) }
	add(shape{k: kRect, x: 0, y: 0, w: width, h: height, fill: "#ffffff"})
	lx := leftPad
	for i, tg := range t.Targets {
		add(shape{k: kRect, x: lx, y: 14, w: 12, h: 12, fill: palette[i%len(palette)]})
		add(shape{k: kText, x: lx + 16, y: 25, text: tg, size: 12})
		lx += 30 + 7*float64(len(tg))
	}
	add(shape{k: kText, x: lx + 20, y: 25, text: "latency per request, ms (median over rounds; lower is better)", size: 12})
	for si, s := range t.Scenarios {
		y0 := 50 + panelH*float64(si)
		title := "scenario " + s.ID
		if s.IOThreads != "" {
			title += " — io-threads " + s.IOThreads
		}
		add(shape{k: kText, x: leftPad, y: y0 + 22, text: title, size: 15, bold: true})
		py := y0 + top
		for pi, pc := range latencyPcts {
			px := leftPad + float64(pi)*(panelW+gap)
			var vmax float64
			for _, c := range s.Commands {
				for _, tg := range t.Targets {
					vmax = math.Max(vmax, pc.get(s.Detail[c][tg]))
				}
			}
			vmax = niceMax(vmax * 1.15) // headroom for the value labels
			for i := 0; i <= 5; i++ {
				v := vmax * float64(i) / 5
				y := py + plotH - plotH*float64(i)/5
				add(shape{k: kLine, x: px, y: y, w: px + panelW, h: y, fill: "#e0e0e0", stroke: true})
				add(shape{k: kText, x: px - 6, y: y + 4, text: msLabel(v), size: 11, anchor: "end"})
			}
			add(shape{k: kText, x: px + panelW/2, y: py - 10, text: pc.name + " (ms)", size: 13, bold: true, anchor: "middle"})
			for ci, c := range s.Commands {
				gx := px + 9 + float64(ci)*groupW
				for ti, tg := range t.Targets {
					d, ok := s.Detail[c][tg]
					v := pc.get(d)
					if !ok || v <= 0 {
						continue
					}
					h := plotH * v / vmax
					add(shape{k: kRect, x: gx + float64(ti)*barW, y: py + plotH - h, w: barW - 2, h: h, fill: palette[ti%len(palette)]})
					add(valueLabel(gx+float64(ti)*barW+(barW-2)/2, py+plotH-h, msLabel(v)))
				}
				add(shape{k: kText, x: gx + float64(nT)*barW/2, y: py + plotH + 18, text: c, size: 12, anchor: "middle"})
			}
			add(shape{k: kLine, x: px, y: py + plotH, w: px + panelW, h: py + plotH, fill: "#333333", stroke: true})
		}
	}
	return shapes, width, height
}

// msLabel renders an axis value in ms with enough decimals.
func msLabel(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 10:
		return fmt.Sprintf("%.0f", v)
	case v >= 1:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.1:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.3f", v)
}
