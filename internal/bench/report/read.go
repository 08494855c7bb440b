package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Source is one input: a file, and the target name its numbers belong to
// (for formats that hold a single target's results).
type Source struct {
	Target string
	Path   string
}

// ParseSource reads "name=path" or "path" (the target is then the file
// name without its extension).
func ParseSource(arg string) Source {
	if name, path, ok := strings.Cut(arg, "="); ok && name != "" && !strings.ContainsAny(name, "/\\") {
		return Source{Target: name, Path: path}
	}
	base := filepath.Base(arg)
	return Source{Target: strings.TrimSuffix(base, filepath.Ext(base)), Path: arg}
}

// ReadOptions fill in what single-result formats do not say.
type ReadOptions struct {
	Scenario  string // scenario id for single-result files (default "1")
	IOThreads string // io-threads label for them
}

// ReadInto adds a source's results to t, detecting the format:
// corvid-bench CSV/JSON, memtier JSON, redis-benchmark CSV, or plain
// "target,qps" lines (sysbench).
func ReadInto(t *Table, src Source, opt ReadOptions) error {
	data, err := os.ReadFile(src.Path)
	if err != nil {
		return err
	}
	if opt.Scenario == "" {
		opt.Scenario = "1"
	}
	trim := bytes.TrimSpace(data)
	if len(trim) == 0 {
		return fmt.Errorf("%s: empty file", src.Path)
	}
	if trim[0] == '{' {
		var probe map[string]json.RawMessage
		if err := json.Unmarshal(trim, &probe); err != nil {
			return fmt.Errorf("%s: %w", src.Path, err)
		}
		if _, ok := probe["scenarios"]; ok {
			return readOwnJSON(t, trim, src.Path)
		}
		return readMemtierJSON(t, probe, src, opt)
	}
	lines := dataLines(string(data))
	if len(lines) == 0 {
		return fmt.Errorf("%s: no data lines", src.Path)
	}
	first := strings.ToLower(lines[0])
	switch {
	case strings.HasPrefix(first, "scenario,"):
		return readMatrixCSV(t, strings.Join(lines, "\n"), src.Path)
	case strings.HasPrefix(first, `"`):
		return readRedisBenchmarkCSV(t, lines, src, opt)
	default:
		return readPlain(t, lines, src, opt)
	}
}

// dataLines drops blank lines and '#' comments.
func dataLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		out = append(out, l)
	}
	return out
}

func parseNum(s string) (float64, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), ",", "")
	s = strings.TrimSuffix(s, "%")
	return strconv.ParseFloat(s, 64)
}

// readMatrixCSV reads scenario,io_threads,command,<targets...> with an
// optional "price" row.
func readMatrixCSV(t *Table, text, path string) error {
	r := csv.NewReader(strings.NewReader(text))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	head := recs[0]
	if len(head) < 4 || !strings.EqualFold(head[2], "command") {
		return fmt.Errorf("%s: header must be scenario,io_threads,command,<targets...>", path)
	}
	targets := head[3:]
	for _, tg := range targets {
		t.AddTarget(strings.TrimSpace(tg))
	}
	for i, rec := range recs[1:] {
		if len(rec) < 3 {
			return fmt.Errorf("%s: line %d: too few fields", path, i+2)
		}
		isPrice := strings.EqualFold(strings.TrimSpace(rec[0]), "price")
		var s *Scenario
		if !isPrice {
			s = t.Scenario(strings.TrimSpace(rec[0]), strings.TrimSpace(rec[1]))
		}
		for j, tg := range targets {
			if 3+j >= len(rec) || strings.TrimSpace(rec[3+j]) == "" {
				continue
			}
			v, err := parseNum(rec[3+j])
			if err != nil {
				return fmt.Errorf("%s: line %d: %q is not a number", path, i+2, rec[3+j])
			}
			tg = strings.TrimSpace(tg)
			if isPrice {
				t.Prices[tg] = v
			} else {
				t.Set(s, strings.TrimSpace(rec[2]), tg, v)
			}
		}
	}
	return nil
}

func readOwnJSON(t *Table, data []byte, path string) error {
	var doc JSONDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for _, tg := range doc.Targets {
		t.AddTarget(tg)
	}
	for k, v := range doc.Prices {
		t.Prices[k] = v
	}
	if t.Baseline == "" {
		t.Baseline = doc.Baseline
	}
	t.Notes = append(t.Notes, doc.Notes...)
	for _, js := range doc.Scenarios {
		s := t.Scenario(js.ID, js.IOThreads)
		for _, c := range js.Commands {
			for _, tg := range doc.Targets {
				if v, ok := js.Ops[c][tg]; ok {
					t.Set(s, c, tg, v)
				}
				if d, ok := js.Detail[c][tg]; ok {
					t.SetDetail(s, c, tg, d)
				}
			}
		}
	}
	return nil
}

// memtier JSON: {"ALL STATS": {"Sets": {"Ops/sec": ...}, "Gets": ..., "Totals": ...}}.
// Each row except Totals/Waits/Runtime becomes a command (lower-cased,
// trailing "s" dropped: "Sets" -> "set"). With several runs the
// AGGREGATED AVERAGE section is used.
func readMemtierJSON(t *Table, probe map[string]json.RawMessage, src Source, opt ReadOptions) error {
	section := probe["ALL STATS"]
	for k, v := range probe {
		if strings.HasPrefix(k, "AGGREGATED AVERAGE RESULTS") {
			section = v
		}
	}
	if section == nil {
		return fmt.Errorf("%s: not a memtier JSON file (no \"ALL STATS\")", src.Path)
	}
	var rows map[string]json.RawMessage
	if err := json.Unmarshal(section, &rows); err != nil {
		return fmt.Errorf("%s: %w", src.Path, err)
	}
	names := make([]string, 0, len(rows))
	for k := range rows {
		names = append(names, k)
	}
	sort.Strings(names)
	s := t.Scenario(opt.Scenario, opt.IOThreads)
	added := 0
	var totals float64
	for _, k := range names {
		var row struct {
			Ops *float64 `json:"Ops/sec"`
		}
		if json.Unmarshal(rows[k], &row) != nil || row.Ops == nil {
			continue
		}
		switch k {
		case "Totals":
			totals = *row.Ops
			continue
		case "Waits", "Runtime":
			continue
		}
		if *row.Ops == 0 {
			continue
		}
		t.Set(s, strings.TrimSuffix(strings.ToLower(k), "s"), src.Target, *row.Ops)
		added++
	}
	if added == 0 {
		if totals == 0 {
			return fmt.Errorf("%s: no Ops/sec in the memtier JSON", src.Path)
		}
		t.Set(s, "total", src.Target, totals)
	}
	return nil
}

// redis-benchmark --csv: "test","rps",... header (Redis 6+) or bare
// "SET","123.45" lines (older).
func readRedisBenchmarkCSV(t *Table, lines []string, src Source, opt ReadOptions) error {
	r := csv.NewReader(strings.NewReader(strings.Join(lines, "\n")))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return fmt.Errorf("%s: %w", src.Path, err)
	}
	col := 1
	if len(recs) > 0 && strings.EqualFold(recs[0][0], "test") {
		for i, h := range recs[0] {
			if strings.EqualFold(h, "rps") {
				col = i
			}
		}
		recs = recs[1:]
	}
	s := t.Scenario(opt.Scenario, opt.IOThreads)
	for _, rec := range recs {
		if len(rec) <= col {
			continue
		}
		v, err := parseNum(rec[col])
		if err != nil {
			return fmt.Errorf("%s: %q is not a number", src.Path, rec[col])
		}
		name := strings.ToLower(strings.Fields(rec[0] + " x")[0]) // "LPUSH (needed to benchmark LPOP)" -> "lpush"
		t.Set(s, name, src.Target, v)
	}
	return nil
}

// readPlain reads "target,qps" lines (a header line is skipped), or a
// single number for the source's own target. The command is "qps".
func readPlain(t *Table, lines []string, src Source, opt ReadOptions) error {
	s := t.Scenario(opt.Scenario, opt.IOThreads)
	for i, l := range lines {
		f := strings.FieldsFunc(l, func(r rune) bool { return r == ',' || r == '\t' || r == ' ' || r == ';' })
		switch len(f) {
		case 1:
			v, err := parseNum(f[0])
			if err != nil {
				return fmt.Errorf("%s: line %d: %q is not a number", src.Path, i+1, l)
			}
			t.Set(s, "qps", src.Target, v)
		case 2:
			v, err := parseNum(f[1])
			if err != nil {
				if i == 0 {
					continue // header such as "target,qps"
				}
				return fmt.Errorf("%s: line %d: %q is not a number", src.Path, i+1, f[1])
			}
			t.Set(s, "qps", f[0], v)
		default:
			return fmt.Errorf("%s: line %d: want \"target,qps\", got %q", src.Path, i+1, l)
		}
	}
	return nil
}

// ReadPrices reads prices from CSV ("name,price") or YAML-ish
// ("name: price", optionally under a "prices:" key) into t.
func ReadPrices(t *Table, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return ParsePrices(t, data, path)
}

// ParsePrices is ReadPrices on bytes.
func ParsePrices(t *Table, data []byte, name string) error {
	for i, l := range dataLines(string(data)) {
		if strings.EqualFold(strings.TrimSpace(l), "prices:") {
			continue
		}
		sep := ","
		if !strings.Contains(l, ",") {
			sep = ":"
		}
		k, v, ok := strings.Cut(l, sep)
		if !ok {
			return fmt.Errorf("%s: line %d: want name,price or name: price", name, i+1)
		}
		k = strings.Trim(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(k), "- ")), `"'`)
		f, err := parseNum(strings.Trim(strings.TrimSpace(v), `"'`))
		if err != nil {
			if i == 0 {
				continue // header
			}
			return fmt.Errorf("%s: line %d: %q is not a price", name, i+1, v)
		}
		if f <= 0 {
			return fmt.Errorf("%s: line %d: price must be positive", name, i+1)
		}
		t.Prices[k] = f
	}
	return nil
}

// ReadAll reads every source into one table.
func ReadAll(srcs []Source, opt ReadOptions) (*Table, error) {
	t := NewTable()
	for _, s := range srcs {
		if err := ReadInto(t, s, opt); err != nil {
			return nil, err
		}
	}
	return t, nil
}
