package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
)

// CompareRow is one cell present in both tables of a comparison: the
// same scenario id, command (or "total") and target.
type CompareRow struct {
	Scenario, IOThreads, Command, Target string
	A, B                                 float64 // ops/sec
	AP99, BP99                           float64 // ms; 0 when not recorded
}

// Ratio is B over A (0 when A is 0).
func (r CompareRow) Ratio() float64 {
	if r.A <= 0 {
		return 0
	}
	return r.B / r.A
}

// Comparison is the result of Compare.
type Comparison struct {
	Rows []CompareRow
	// OnlyA and OnlyB count cells (scenario, command, target) found in
	// one table only.
	OnlyA, OnlyB int
}

// Compare matches the cells of two tables by scenario id, command and
// target (in a's order) and adds each scenario's total per target.
func Compare(a, b *Table) Comparison {
	var out Comparison
	bs := map[string]*Scenario{}
	for _, s := range b.Scenarios {
		bs[s.ID] = s
	}
	matched := 0
	for _, sa := range a.Scenarios {
		sb := bs[sa.ID]
		for _, c := range sa.Commands {
			for _, tg := range a.Targets {
				va, ok := sa.Ops[c][tg]
				if !ok {
					continue
				}
				var vb float64
				okb := false
				if sb != nil {
					vb, okb = sb.Ops[c][tg]
				}
				if !okb {
					out.OnlyA++
					continue
				}
				matched++
				io := sa.IOThreads
				if sb.IOThreads != io {
					io = orDash(io) + "/" + orDash(sb.IOThreads)
				}
				out.Rows = append(out.Rows, CompareRow{Scenario: sa.ID, IOThreads: io, Command: c, Target: tg, A: va, B: vb,
					AP99: sa.Detail[c][tg].P99Ms, BP99: sb.Detail[c][tg].P99Ms})
			}
		}
		if sb == nil {
			continue
		}
		// totals over the commands both have, per target
		for _, tg := range a.Targets {
			var ta, tb float64
			n := 0
			for _, c := range sa.Commands {
				va, oka := sa.Ops[c][tg]
				vb, okb := sb.Ops[c][tg]
				if oka && okb {
					ta += va
					tb += vb
					n++
				}
			}
			if n > 1 {
				out.Rows = append(out.Rows, CompareRow{Scenario: sa.ID, IOThreads: sa.IOThreads, Command: "total", Target: tg, A: ta, B: tb})
			}
		}
	}
	total := 0
	for _, s := range b.Scenarios {
		for _, c := range s.Commands {
			total += len(s.Ops[c])
		}
	}
	out.OnlyB = total - matched
	return out
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// WriteCompare prints a comparison: A and B ops/sec, B/A, and the p99s
// with their ratio when both files recorded latency.
func WriteCompare(w io.Writer, c Comparison, nameA, nameB string) error {
	if len(c.Rows) == 0 {
		return fmt.Errorf("the two results have no cell in common (same scenario id, command and target)")
	}
	grid := [][]string{{"scenario", "io-threads", "command", "target", "A ops/sec", "B ops/sec", "B/A", "A p99 ms", "B p99 ms", "B/A p99"}}
	for _, r := range c.Rows {
		row := []string{r.Scenario, r.IOThreads, r.Command, r.Target, Thousands(r.A), Thousands(r.B), "n/a", msText(r.AP99), msText(r.BP99), "n/a"}
		if r.A > 0 {
			row[6] = strconv.FormatFloat(r.Ratio(), 'f', 2, 64) + "x"
		}
		if r.AP99 > 0 && r.BP99 > 0 {
			row[9] = strconv.FormatFloat(r.BP99/r.AP99, 'f', 2, 64) + "x"
		}
		grid = append(grid, row)
	}
	width := make([]int, len(grid[0]))
	for _, row := range grid {
		for i, s := range row {
			width[i] = max(width[i], len(s))
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "A: %s\nB: %s\n", nameA, nameB)
	for _, row := range grid {
		for i, s := range row {
			if i < 4 {
				fmt.Fprintf(&b, "%-*s  ", width[i], s)
			} else {
				fmt.Fprintf(&b, "%*s  ", width[i], s)
			}
		}
		b.WriteString("\n")
	}
	if c.OnlyA > 0 || c.OnlyB > 0 {
		fmt.Fprintf(&b, "not compared: %d cell(s) only in A, %d only in B\n", c.OnlyA, c.OnlyB)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
