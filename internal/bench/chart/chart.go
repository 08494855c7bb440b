package chart

import (
	"fmt"
	"html"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"strings"

	"github.com/corvid-kv/corvid/internal/bench/report"
)

type kind uint8

const (
	kRect kind = iota
	kLine
	kText
	kCircle
)

type shape struct {
	k              kind
	x, y, w, h     float64 // rect; line: (x,y)-(w,h); circle: centre x,y radius w
	fill           string
	text, anchor   string
	size           float64
	bold, rotate   bool
	stroke, dashed bool
}

var palette = []string{"#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"}
var lineColors = []string{"#1f3b73", "#c0392b", "#27ae60"}

const (
	panelH  = 430.0
	top     = 60.0
	plotH   = 280.0
	leftPad = 80.0
	linesW  = 360.0
)

// niceMax rounds v up to 1, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

func short(v float64) string {
	switch {
	case v >= 1e6:
		return strings.Replace(fmt.Sprintf("%.1fM", v/1e6), ".0M", "M", 1)
	case v >= 1e3:
		return fmt.Sprintf("%.0fk", v/1e3)
	}
	return fmt.Sprintf("%.0f", v)
}

// groupWidth is the width of one command's group of bars: the bars, or
// the command's label when that is wider (about 6.8 px a character at
// 12 px), so labels such as "pipeline 100" do not run together.
func groupWidth(t *report.Table, barW float64) float64 {
	w := float64(max(len(t.Targets), 1))*barW + 18
	for _, s := range t.Scenarios {
		for _, c := range s.Commands {
			w = math.Max(w, 6.8*float64(len([]rune(c)))+14)
		}
	}
	return w
}

// valueLabel is a bar's value written upward from just above its top
// (rotated, so neighbouring bars' labels do not overlap).
func valueLabel(x, top float64, text string) shape {
	return shape{k: kText, x: x + 3, y: top - 3, text: text, size: 9, anchor: "start", rotate: true}
}

// layout returns the drawing and its size.
func layout(t *report.Table) (shapes []shape, width, height float64) {
	nT := max(len(t.Targets), 1)
	maxCmds := 1
	for _, s := range t.Scenarios {
		maxCmds = max(maxCmds, len(s.Commands))
	}
	barW := 14.0
	groupW := groupWidth(t, barW)
	barsW := math.Max(float64(maxCmds)*groupW, 300)
	width = leftPad + barsW + 90 + linesW + 40
	height = panelH*float64(len(t.Scenarios)) + 70
	add := func(s shape) { shapes = append(shapes, s) }
	add(shape{k: kRect, x: 0, y: 0, w: width, h: height, fill: "#ffffff"})
	// legend: targets (bars) and the three lines
	lx := leftPad
	for i, tg := range t.Targets {
		add(shape{k: kRect, x: lx, y: 14, w: 12, h: 12, fill: palette[i%len(palette)]})
		add(shape{k: kText, x: lx + 16, y: 25, text: tg, size: 12})
		lx += 30 + 7*float64(len(tg))
	}
	lx += 20
	for i, name := range []string{"total (normalized)", "price (normalized)", "price-performance (normalized)"} {
		add(shape{k: kLine, x: lx, y: 20, w: lx + 18, h: 20, fill: lineColors[i], stroke: true, dashed: i == 1})
		add(shape{k: kText, x: lx + 22, y: 25, text: name, size: 12})
		lx += 40 + 6.5*float64(len(name))
	}
	for si, s := range t.Scenarios {
		y0 := 50 + panelH*float64(si)
		d := t.Derive(s)
		title := "scenario " + s.ID
		if s.IOThreads != "" {
			title += " — io-threads " + s.IOThreads
		}
		add(shape{k: kText, x: leftPad, y: y0 + 22, text: title, size: 15, bold: true})
		// bars
		var vmax float64
		for _, c := range s.Commands {
			for _, tg := range t.Targets {
				vmax = math.Max(vmax, s.Ops[c][tg])
			}
		}
		vmax = niceMax(vmax * 1.12) // headroom for the value labels
		py := y0 + top
		for i := 0; i <= 5; i++ {
			v := vmax * float64(i) / 5
			y := py + plotH - plotH*float64(i)/5
			add(shape{k: kLine, x: leftPad, y: y, w: leftPad + barsW, h: y, fill: "#e0e0e0", stroke: true})
			add(shape{k: kText, x: leftPad - 6, y: y + 4, text: short(v), size: 11, anchor: "end"})
		}
		add(shape{k: kText, x: 18, y: py + plotH/2, text: "ops/sec", size: 12, anchor: "middle", rotate: true})
		for ci, c := range s.Commands {
			gx := leftPad + 9 + float64(ci)*groupW
			for ti, tg := range t.Targets {
				v, ok := s.Ops[c][tg]
				if !ok {
					continue
				}
				h := plotH * v / vmax
				add(shape{k: kRect, x: gx + float64(ti)*barW, y: py + plotH - h, w: barW - 2, h: h, fill: palette[ti%len(palette)]})
				add(valueLabel(gx+float64(ti)*barW+(barW-2)/2, py+plotH-h, short(v)))
			}
			add(shape{k: kText, x: gx + float64(nT)*barW/2, y: py + plotH + 18, text: c, size: 12, anchor: "middle"})
		}
		add(shape{k: kLine, x: leftPad, y: py + plotH, w: leftPad + barsW, h: py + plotH, fill: "#333333", stroke: true})
		// normalized lines
		lx0 := leftPad + barsW + 90
		var pmax float64 = 100
		for _, m := range []map[string]float64{d.TotalPct, d.PricePct, d.PricePerfPct} {
			for _, v := range m {
				pmax = math.Max(pmax, v)
			}
		}
		pmax = niceMax(pmax * 1.05)
		for i := 0; i <= 4; i++ {
			v := pmax * float64(i) / 4
			y := py + plotH - plotH*float64(i)/4
			add(shape{k: kLine, x: lx0, y: y, w: lx0 + linesW, h: y, fill: "#e0e0e0", stroke: true})
			add(shape{k: kText, x: lx0 - 6, y: y + 4, text: fmt.Sprintf("%.0f%%", v), size: 11, anchor: "end"})
		}
		y100 := py + plotH - plotH*100/pmax
		add(shape{k: kLine, x: lx0, y: y100, w: lx0 + linesW, h: y100, fill: "#999999", stroke: true, dashed: true})
		step := linesW / float64(nT)
		for ti, tg := range t.Targets {
			add(shape{k: kText, x: lx0 + step*(float64(ti)+0.5), y: py + plotH + 18, text: tg, size: 12, anchor: "middle"})
		}
		for li, m := range []map[string]float64{d.TotalPct, d.PricePct, d.PricePerfPct} {
			var px, pyv float64
			have := false
			for ti, tg := range t.Targets {
				v, ok := m[tg]
				if !ok {
					have = false
					continue
				}
				x := lx0 + step*(float64(ti)+0.5)
				y := py + plotH - plotH*v/pmax
				if have {
					add(shape{k: kLine, x: px, y: pyv, w: x, h: y, fill: lineColors[li], stroke: true, dashed: li == 1})
				}
				add(shape{k: kCircle, x: x, y: y, w: 3.5, fill: lineColors[li]})
				add(shape{k: kText, x: x, y: y - 7, text: report.Pct(m, tg), size: 10, anchor: "middle"})
				px, pyv, have = x, y, true
			}
		}
		add(shape{k: kText, x: lx0 + linesW/2, y: py - 10, text: "% of " + t.BaselineName(), size: 12, anchor: "middle"})
	}
	return shapes, width, height
}

// SVG writes the chart as an SVG document.
func SVG(w io.Writer, t *report.Table) error {
	shapes, width, height := layout(t)
	return render(w, shapes, width, height)
}

// render writes shapes as an SVG document.
func render(w io.Writer, shapes []shape, width, height float64) error {
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif">`+"\n", width, height, width, height)
	for _, s := range shapes {
		switch s.k {
		case kRect:
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", s.x, s.y, s.w, s.h, s.fill)
		case kLine:
			dash := ""
			if s.dashed {
				dash = ` stroke-dasharray="5,4"`
			}
			sw := 1.0
			if s.fill != "#e0e0e0" {
				sw = 2
			}
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%.0f"%s/>`+"\n", s.x, s.y, s.w, s.h, s.fill, sw, dash)
		case kCircle:
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="%.1f" fill="%s"/>`+"\n", s.x, s.y, s.w, s.fill)
		case kText:
			attrs := ""
			if s.anchor != "" {
				attrs += ` text-anchor="` + s.anchor + `"`
			}
			if s.bold {
				attrs += ` font-weight="bold"`
			}
			if s.rotate {
				attrs += fmt.Sprintf(` transform="rotate(-90 %.1f %.1f)"`, s.x, s.y)
			}
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" font-size="%.0f"%s>%s</text>`+"\n", s.x, s.y, s.size, attrs, html.EscapeString(s.text))
		}
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// PNG writes the same chart as a PNG (without text).
func PNG(w io.Writer, t *report.Table) error {
	shapes, width, height := layout(t)
	img := image.NewRGBA(image.Rect(0, 0, int(width), int(height)))
	for _, s := range shapes {
		c := parseHex(s.fill)
		switch s.k {
		case kRect:
			for y := int(s.y); y < int(s.y+s.h+0.5); y++ {
				for x := int(s.x); x < int(s.x+s.w+0.5); x++ {
					img.Set(x, y, c)
				}
			}
		case kLine:
			thick := 1
			if s.fill != "#e0e0e0" {
				thick = 2
			}
			drawLine(img, s.x, s.y, s.w, s.h, c, thick, s.dashed)
		case kCircle:
			r := s.w
			for y := -r; y <= r; y++ {
				for x := -r; x <= r; x++ {
					if x*x+y*y <= r*r {
						img.Set(int(s.x+x), int(s.y+y), c)
					}
				}
			}
		}
	}
	return png.Encode(w, img)
}

func drawLine(img *image.RGBA, x0, y0, x1, y1 float64, c color.Color, thick int, dashed bool) {
	n := int(math.Max(math.Abs(x1-x0), math.Abs(y1-y0))) + 1
	for i := 0; i <= n; i++ {
		if dashed && (i/5)%2 == 1 {
			continue
		}
		f := float64(i) / float64(n)
		x, y := int(x0+(x1-x0)*f), int(y0+(y1-y0)*f)
		for d := 0; d < thick; d++ {
			img.Set(x, y+d, c)
		}
	}
}

func parseHex(s string) color.RGBA {
	var r, g, b uint8
	if _, err := fmt.Sscanf(s, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return color.RGBA{0, 0, 0, 255}
	}
	return color.RGBA{r, g, b, 255}
}
