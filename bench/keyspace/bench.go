package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// percentiles asked of corvid-bench (--print-percentiles).
const percentiles = "50,99,99.9,99.99"

// load is the corvid-bench load shape shared by every run.
type load struct {
	Threads, Clients, Seconds, DataSize int
}

// benchArgs is the corvid-bench command line for one command ("GET",
// "SET" or "ZADD") on keys 1..n against addr.
func benchArgs(l load, command string, n int64, host string, port int, jsonPath string) []string {
	a := []string{"-s", host, "-p", strconv.Itoa(port),
		"-t", strconv.Itoa(l.Threads), "-c", strconv.Itoa(l.Clients), "--test-time", strconv.Itoa(l.Seconds)}
	switch command {
	case "GET":
		a = append(a, "--ratio", "0:1", "--key-prefix", "key:")
	case "SET":
		a = append(a, "--ratio", "1:0", "--key-prefix", "key:")
	case "ZADD":
		// The seed's "zadd __key__ __key__ __data__" on keys of their own:
		// an empty prefix keeps __key__ a number for the score.
		a = append(a, "--command", "zadd zkey:__key__ __key__ __data__", "--key-prefix", "")
	default:
		panic("benchArgs: unknown command " + command)
	}
	a = append(a, "--key-minimum", "1", "--key-maximum", strconv.FormatInt(n, 10),
		"-d", strconv.Itoa(l.DataSize), "-R", "--distinct-client-seed",
		"--print-percentiles", percentiles, "--hide-histogram", "--json-out-file", jsonPath)
	return a
}

// benchResult is what one corvid-bench run measured (latencies in ms).
type benchResult struct {
	OpsSec                float64
	Count                 int64
	Errors                int64
	AvgMs, MaxMs          float64
	P50, P99, P999, P9999 float64
	HitsSec, MissesSec    float64
	HasHits               bool
}

// parseBenchJSON reads corvid-bench's --json-out-file: ALL STATS/Totals,
// plus the hit and miss rates of the Gets row when there is one.
func parseBenchJSON(b []byte) (benchResult, error) {
	type row struct {
		Count       int64              `json:"Count"`
		OpsSec      float64            `json:"Ops/sec"`
		Errors      int64              `json:"Errors"`
		Avg         float64            `json:"Average Latency"`
		Max         float64            `json:"Max Latency"`
		Hits        *float64           `json:"Hits/sec"`
		Misses      *float64           `json:"Misses/sec"`
		Percentiles map[string]float64 `json:"Percentile Latencies"`
	}
	var doc struct {
		All map[string]json.RawMessage `json:"ALL STATS"`
	}
	var r benchResult
	if err := json.Unmarshal(b, &doc); err != nil {
		return r, err
	}
	raw, ok := doc.All["Totals"]
	if !ok {
		return r, fmt.Errorf("no ALL STATS/Totals in the JSON output")
	}
	var t row
	if err := json.Unmarshal(raw, &t); err != nil {
		return r, err
	}
	r = benchResult{OpsSec: t.OpsSec, Count: t.Count, Errors: t.Errors, AvgMs: t.Avg, MaxMs: t.Max,
		P50: t.Percentiles["p50.00"], P99: t.Percentiles["p99.00"], P999: t.Percentiles["p99.90"], P9999: t.Percentiles["p99.99"]}
	if raw, ok := doc.All["Gets"]; ok {
		var g row
		if err := json.Unmarshal(raw, &g); err == nil && g.Hits != nil && g.Misses != nil && g.Count > 0 {
			r.HitsSec, r.MissesSec, r.HasHits = *g.Hits, *g.Misses, true
		}
	}
	return r, nil
}

// runBench runs corvid-bench with args, its output appended to logPath,
// and reads the JSON file named in args.
func runBench(ctx context.Context, bin string, args []string, jsonPath, logPath string) (benchResult, error) {
	logf, err := os.OpenFile(logPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return benchResult{}, err
	}
	defer logf.Close()
	fmt.Fprintf(logf, "\n$ %s\n", benchproc.ShellJoin(append([]string{bin}, args...)))
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return benchResult{}, ctx.Err()
		}
		b, _ := os.ReadFile(logPath)
		return benchResult{}, fmt.Errorf("corvid-bench: %v: %s", err, benchproc.Tail(b, 800))
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		return benchResult{}, err
	}
	return parseBenchJSON(b)
}

// benchDisplay is the corvid-bench command line as shown in the report.
func benchDisplay(args []string) string {
	return benchproc.ShellJoin(append([]string{"corvid-bench"}, args...))
}

func jsonPathFor(dir, name string) string { return filepath.Join(dir, name+".json") }
