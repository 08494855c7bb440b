package report

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Table is the study's results.
type Table struct {
	Targets   []string
	Scenarios []*Scenario
	Prices    map[string]float64 // any unit; only ratios to the baseline matter
	Baseline  string             // default: the first target
	Notes     []string           // e.g. io-threads recorded as a label only
}

// Scenario is one io-threads setting (the seed's 测试场景 ID).
type Scenario struct {
	ID        string
	IOThreads string
	Commands  []string                      // row order
	Ops       map[string]map[string]float64 // command -> target -> ops/sec
	// Detail holds what a side-by-side matrix measures besides ops/sec
	// (command -> target); nil for tables read from ops-only sources.
	Detail map[string]map[string]Detail
}

// Detail is one cell's latency and server cost, each the median over the
// rounds. Zero means not measured (CPU and RSS need the server to be a
// local process).
type Detail struct {
	P50Ms      float64 `json:"p50_ms"`
	P99Ms      float64 `json:"p99_ms"`
	P999Ms     float64 `json:"p99_9_ms"`
	CPUUsPerOp float64 `json:"server_cpu_us_per_op,omitempty"`
	RSSBytes   uint64  `json:"server_rss_bytes,omitempty"`
	Rounds     int     `json:"rounds,omitempty"`
	// Cluster-mode cells (seed 003) also carry memtier's cluster-mode
	// columns: the mean latency and MOVED and ASK redirections per second
	// (nil, not zero, when the run was not in cluster mode).
	AvgMs    float64  `json:"avg_ms,omitempty"`
	MovedSec *float64 `json:"moved_sec,omitempty"`
	AskSec   *float64 `json:"ask_sec,omitempty"`
}

// HasRedirects reports whether any cell was measured in cluster mode
// (has MOVED/ASK rates).
func (t *Table) HasRedirects() bool {
	for _, s := range t.Scenarios {
		for _, m := range s.Detail {
			for _, d := range m {
				if d.MovedSec != nil || d.AskSec != nil {
					return true
				}
			}
		}
	}
	return false
}

// Derived are a scenario's computed rows, unrounded; a target missing a
// value (no price, zero baseline) is absent from the map.
type Derived struct {
	Total, TotalPct, PricePct, PricePerfPct map[string]float64
}

// NewTable returns an empty table.
func NewTable() *Table { return &Table{Prices: map[string]float64{}} }

// Scenario returns the scenario with id, creating it.
func (t *Table) Scenario(id, ioThreads string) *Scenario {
	for _, s := range t.Scenarios {
		if s.ID == id {
			if s.IOThreads == "" {
				s.IOThreads = ioThreads
			}
			return s
		}
	}
	s := &Scenario{ID: id, IOThreads: ioThreads, Ops: map[string]map[string]float64{}}
	t.Scenarios = append(t.Scenarios, s)
	return s
}

// AddTarget registers a target column (keeps first-seen order).
func (t *Table) AddTarget(name string) {
	for _, x := range t.Targets {
		if x == name {
			return
		}
	}
	t.Targets = append(t.Targets, name)
}

// Set records ops/sec for a command and target in a scenario.
func (t *Table) Set(s *Scenario, command, target string, ops float64) {
	t.AddTarget(target)
	m := s.Ops[command]
	if m == nil {
		m = map[string]float64{}
		s.Ops[command] = m
		s.Commands = append(s.Commands, command)
	}
	m[target] = ops
}

// SetDetail records a cell's latency and cost.
func (t *Table) SetDetail(s *Scenario, command, target string, d Detail) {
	if s.Detail == nil {
		s.Detail = map[string]map[string]Detail{}
	}
	m := s.Detail[command]
	if m == nil {
		m = map[string]Detail{}
		s.Detail[command] = m
	}
	m[target] = d
}

// HasDetail reports whether any scenario has latency or cost data.
func (t *Table) HasDetail() bool {
	for _, s := range t.Scenarios {
		if len(s.Detail) > 0 {
			return true
		}
	}
	return false
}

// Ratio is a cell's ops/sec over the baseline's for the same command and
// scenario; false when either is missing or the baseline is zero.
func (t *Table) Ratio(s *Scenario, command, target string) (float64, bool) {
	v, ok := s.Ops[command][target]
	b, okb := s.Ops[command][t.BaselineName()]
	if !ok || !okb || b <= 0 {
		return 0, false
	}
	return v / b, true
}

// BaselineName is the baseline target (explicit or the first one).
func (t *Table) BaselineName() string {
	if t.Baseline != "" {
		return t.Baseline
	}
	if len(t.Targets) > 0 {
		return t.Targets[0]
	}
	return ""
}

// Validate checks that the baseline exists.
func (t *Table) Validate() error {
	if len(t.Targets) == 0 || len(t.Scenarios) == 0 {
		return fmt.Errorf("no results to report")
	}
	b := t.BaselineName()
	for _, x := range t.Targets {
		if x == b {
			return nil
		}
	}
	return fmt.Errorf("baseline %q is not one of the targets %v", b, t.Targets)
}

// Derive computes a scenario's total and normalized rows.
func (t *Table) Derive(s *Scenario) Derived {
	d := Derived{Total: map[string]float64{}, TotalPct: map[string]float64{}, PricePct: map[string]float64{}, PricePerfPct: map[string]float64{}}
	for _, tg := range t.Targets {
		var sum float64
		seen := false
		for _, c := range s.Commands {
			if v, ok := s.Ops[c][tg]; ok {
				sum += v
				seen = true
			}
		}
		if seen {
			d.Total[tg] = sum
		}
	}
	base := t.BaselineName()
	bt, bp := d.Total[base], t.Prices[base]
	for _, tg := range t.Targets {
		if v, ok := d.Total[tg]; ok && bt > 0 {
			d.TotalPct[tg] = v / bt * 100
		}
		if p, ok := t.Prices[tg]; ok && bp > 0 {
			d.PricePct[tg] = p / bp * 100
		}
		if tp, ok := d.TotalPct[tg]; ok {
			if pp, ok := d.PricePct[tg]; ok && pp > 0 {
				d.PricePerfPct[tg] = tp / pp * 100
			}
		}
	}
	return d
}

// SortCommands orders a scenario's commands alphabetically (the seed's
// table order: get, hset, incr, lpush, sadd, set, zadd).
func (s *Scenario) SortCommands() { sort.Strings(s.Commands) }

// Thousands formats n with comma separators, like the seed's tables.
func Thousands(f float64) string {
	n := int64(math.Round(f))
	neg := n < 0
	if neg {
		n = -n
	}
	s := strconv.FormatInt(n, 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// Pct renders a percentage rounded to an integer ("89%"), or "n/a".
func Pct(m map[string]float64, k string) string {
	v, ok := m[k]
	if !ok {
		return "n/a"
	}
	return strconv.FormatInt(int64(math.Round(v)), 10) + "%"
}
