package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// parseProcStat returns utime and stime (fields 14 and 15, clock ticks) of
// a /proc/PID/stat line. The command name (field 2) is in parentheses and
// may itself contain spaces and parentheses, so fields are counted from
// the last ')'.
func parseProcStat(b []byte) (utime, stime uint64, err error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, fmt.Errorf("/proc stat: no ')' in %q", trunc(b))
	}
	f := strings.Fields(string(b[i+1:])) // f[0] is field 3 (state)
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc stat: %d fields after the name, want >= 13", len(f))
	}
	if utime, err = strconv.ParseUint(f[11], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("/proc stat utime: %w", err)
	}
	if stime, err = strconv.ParseUint(f[12], 10, 64); err != nil {
		return 0, 0, fmt.Errorf("/proc stat stime: %w", err)
	}
	return utime, stime, nil
}

// parseVmRSS returns the VmRSS line of /proc/PID/status in KiB.
func parseVmRSS(b []byte) (uint64, error) {
	for _, line := range strings.Split(string(b), "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmRSS: %w", err)
		}
		if len(f) > 1 && f[1] != "kB" {
			return 0, fmt.Errorf("VmRSS: unexpected unit %q", f[1])
		}
		return n, nil
	}
	return 0, fmt.Errorf("no VmRSS line")
}

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel(b []byte) string {
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func trunc(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// benchTotals is what one corvid-bench run reports (its JSON's
// "ALL STATS" / "Totals" row and "Runtime").
type benchTotals struct {
	OpsSec     float64 // Totals "Ops/sec"
	Ops        uint64  // Totals "Count"
	Errors     uint64  // Totals "Errors"
	P50, P99   float64 // ms
	DurationMs int64   // Runtime "Total duration"
}

// parseBenchJSON reads corvid-bench's (memtier_benchmark's) --json-out-file.
func parseBenchJSON(b []byte) (benchTotals, error) {
	type row struct {
		OpsSec *float64            `json:"Ops/sec"`
		Count  uint64              `json:"Count"`
		Errors uint64              `json:"Errors"`
		Pcts   map[string]*float64 `json:"Percentile Latencies"`
	}
	var doc struct {
		All struct {
			Totals  *row `json:"Totals"`
			Runtime struct {
				Duration int64 `json:"Total duration"`
			} `json:"Runtime"`
		} `json:"ALL STATS"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return benchTotals{}, err
	}
	t := doc.All.Totals
	if t == nil || t.OpsSec == nil {
		return benchTotals{}, fmt.Errorf(`no "ALL STATS" / "Totals" / "Ops/sec"`)
	}
	out := benchTotals{OpsSec: *t.OpsSec, Ops: t.Count, Errors: t.Errors, DurationMs: doc.All.Runtime.Duration}
	for key, dst := range map[string]*float64{"p50.00": &out.P50, "p99.00": &out.P99} {
		v := t.Pcts[key]
		if v == nil {
			return benchTotals{}, fmt.Errorf("no %s in Totals \"Percentile Latencies\"", key)
		}
		*dst = *v
	}
	return out, nil
}
