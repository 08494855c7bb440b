package main

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// table is one titled table, rendered as aligned text or as Markdown.
type table struct {
	Title  string
	Header []string
	Rows   [][]string
	Notes  []string
}

func (t *table) add(cells ...string) { t.Rows = append(t.Rows, cells) }

// text writes the table with columns padded to equal width; the first
// column is left-aligned, the rest right-aligned.
func (t *table) text(w io.Writer) {
	if t.Title != "" {
		fmt.Fprintf(w, "%s\n", t.Title)
	}
	width := make([]int, len(t.Header))
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range r {
			if i < len(width) {
				width[i] = max(width[i], utf8.RuneCountInString(c))
			}
		}
	}
	line := func(r []string) {
		var b strings.Builder
		for i := range width {
			c := ""
			if i < len(r) {
				c = r[i]
			}
			pad := strings.Repeat(" ", width[i]-utf8.RuneCountInString(c))
			if i > 0 {
				b.WriteString("  ")
			}
			if i == 0 {
				b.WriteString(c + pad)
			} else {
				b.WriteString(pad + c)
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	line(t.Header)
	for _, r := range t.Rows {
		line(r)
	}
	for _, n := range t.Notes {
		fmt.Fprintf(w, "  %s\n", n)
	}
	fmt.Fprintln(w)
}

// markdown writes the table as a GitHub Markdown table under a ### title.
func (t *table) markdown(w io.Writer) {
	if t.Title != "" {
		fmt.Fprintf(w, "### %s\n\n", t.Title)
	}
	cell := func(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
	row := func(r []string) {
		cs := make([]string, len(t.Header))
		for i := range cs {
			if i < len(r) {
				cs[i] = cell(r[i])
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cs, " | "))
	}
	row(t.Header)
	sep := make([]string, len(t.Header))
	for i := range sep {
		sep[i] = "---:"
		if i == 0 {
			sep[i] = ":---"
		}
	}
	fmt.Fprintf(w, "| %s |\n", strings.Join(sep, " | "))
	for _, r := range t.Rows {
		row(r)
	}
	fmt.Fprintln(w)
	for _, n := range t.Notes {
		fmt.Fprintf(w, "%s\n\n", n)
	}
}
