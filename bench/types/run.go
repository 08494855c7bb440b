package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

func run(ctx context.Context, c *config) error {
	if _, err := os.Stat("cmd/corvid-server"); err != nil {
		return fmt.Errorf("run from the repository root (bench/types.sh does this): %w", err)
	}
	tmp, err := os.MkdirTemp("", "bench-types-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	defer benchproc.StopAll()
	what, err := binaries(ctx, c, tmp)
	if err != nil {
		return err
	}
	res := &results{cfg: c, header: header(c, what)}
	for _, h := range res.header {
		fmt.Println(h)
	}
	fmt.Println()

	n := 0
	for round := 1; round <= c.rounds; round++ {
		for _, name := range c.cases {
			for _, kind := range order(c.kinds, round) {
				n++
				r, err := runCase(ctx, c, name, kind, filepath.Join(tmp, fmt.Sprintf("%s-%d", kind, n)), tmp)
				if err != nil {
					return fmt.Errorf("round %d, %s, %s: %w", round, name, kind, err)
				}
				r.Round = round
				res.runs = append(res.runs, r)
				fmt.Println(r.line())
			}
		}
	}
	fmt.Println()
	report := res.markdown()
	fmt.Print(report)
	if c.out != "" {
		md := strings.Join(res.header, "\n") + "\n\n    bench/types.sh " + benchproc.ShellJoin(c.argv) + "\n" + report
		if err := os.WriteFile(c.out+".md", []byte(md), 0o644); err != nil {
			return err
		}
		if err := res.writeCSV(c.out + ".runs.csv"); err != nil {
			return err
		}
		fmt.Printf("\nwrote %s.md, %s.runs.csv\n", c.out, c.out)
	}
	return nil
}

// runCase starts a fresh server of kind in dir, fills it as the case
// needs, runs the case and stops the server.
func runCase(ctx context.Context, c *config, name, kind, dir, tmp string) (runResult, error) {
	r := runResult{Case: name, Kind: kind}
	s, err := startServer(ctx, c, kind, dir)
	if err != nil {
		return r, err
	}
	defer func() {
		s.stop()
		os.RemoveAll(dir)
	}()
	if isMemory(name) {
		return r, runMemory(ctx, c, name, s, &r)
	}
	t0 := time.Now()
	if r.Note, err = fill(ctx, c, name, s); err != nil {
		return r, err
	}
	if name == "xreadgroup" || name == "pfcount" || name == "pfcount3" || name == "geosearch" {
		r.Fill = time.Since(t0).Seconds()
	}
	if name == "xreadgroup" {
		err = runXReadGroup(ctx, c, s, &r)
	} else {
		err = runMemtier(ctx, c, name, tmp, s, &r)
	}
	return r, err
}

// header is what the report says about the run.
func header(c *config, what string) []string {
	rev, dirty := benchproc.GitRevision("")
	if dirty {
		rev += " (uncommitted changes)"
	}
	valkey := "-"
	if c.valkey != "" {
		if out, err := benchproc.Output("", c.valkey, "--version"); err == nil {
			valkey = out
		}
	}
	return []string{
		"# Streams, HyperLogLog and geo side by side: " + strings.Join(c.kinds, " vs "),
		"",
		fmt.Sprintf("**Run:** %s · **commit** %s · %s · %s", time.Now().UTC().Format("2006-01-02 15:04 UTC"), orUnknown(rev), what, valkey),
		fmt.Sprintf("**Machine:** %s cores (%s), kernel %s, load %s, %s",
			benchproc.NProc(), orUnknown(benchproc.CPUModel()), orUnknown(benchproc.Kernel()), orUnknown(benchproc.LoadAvg()), runtime.Version()),
		fmt.Sprintf("**Load:** %d s per run, %d round(s), a fresh server per run, the servers' order rotating by round; %d clients (memtier_benchmark -t %d -c %d --pipeline 1 --distinct-client-seed --random-data --data-size 16, or the Go loop with %d connections), cases %s",
			c.testTime, c.rounds, c.conns(), c.threads, c.clients, c.conns(), strings.Join(c.cases, ", ")),
		"**Servers:** `--save '' --appendonly no" + argsNote(c) + "`, otherwise defaults",
	}
}

func argsNote(c *config) string {
	s := ""
	if len(c.serverArgs) > 0 {
		s += " " + strings.Join(c.serverArgs, " ")
	}
	if len(c.corvidArgs) > 0 {
		s += "`; corvid `" + strings.Join(c.corvidArgs, " ")
	}
	if len(c.valkeyArgs) > 0 {
		s += "`; valkey `" + strings.Join(c.valkeyArgs, " ")
	}
	return s
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
