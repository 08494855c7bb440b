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

// kindState is one server kind's primary, alive for the whole run.
type kindState struct {
	kind    string
	primary *server
}

func run(ctx context.Context, c *config) error {
	if _, err := os.Stat("cmd/corvid-server"); err != nil {
		return fmt.Errorf("run from the repository root (bench/repl.sh does this): %w", err)
	}
	tmp, err := os.MkdirTemp("", "bench-repl-")
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

	var kinds []*kindState
	for _, k := range c.kinds {
		p, err := startServer(ctx, c, k, k+"-primary", filepath.Join(tmp, k+"-primary"))
		if err != nil {
			return err
		}
		kinds = append(kinds, &kindState{kind: k, primary: p})
		n := c.keys()
		t0 := time.Now()
		if err := fill(ctx, p, n, c.valueSize); err != nil {
			return err
		}
		rss, _ := p.RSSKiB()
		fmt.Printf("%-6s primary pid %d port %d: %d keys x %d bytes written in %.1f s, RSS %.0f MiB\n",
			k, p.PID(), p.Port, n, c.valueSize, time.Since(t0).Seconds(), float64(rss)/1024)
	}
	fmt.Println()

	for round := 1; round <= c.rounds; round++ {
		for _, ks := range kinds {
			if err := roundOf(ctx, c, tmp, ks, round, res); err != nil {
				return err
			}
		}
	}
	fmt.Println()
	report := res.markdown()
	fmt.Print(report)
	if c.out != "" {
		md := strings.Join(res.header, "\n") + "\n\n    bench/repl.sh " + benchproc.ShellJoin(c.argv) + "\n" + report
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

// roundOf runs one round for one kind: the load phases with 0, 1, 2 ...
// replicas, attaching fresh replicas (full syncs) in between.
func roundOf(ctx context.Context, c *config, tmp string, ks *kindState, round int, res *results) error {
	var reps []*server
	defer func() {
		for _, r := range reps {
			r.stop()
			os.RemoveAll(r.Dir)
		}
	}()
	p := ks.primary
	for _, want := range c.replicas {
		for len(reps) < want {
			i := len(reps) + 1
			name := fmt.Sprintf("%s-replica%d", ks.kind, i)
			r, err := startServer(ctx, c, ks.kind, name, filepath.Join(tmp, fmt.Sprintf("%s-r%d-%d", ks.kind, round, i)))
			if err != nil {
				return err
			}
			reps = append(reps, r)
			sr, err := attach(ctx, c, p, r)
			if err != nil {
				return err
			}
			sr.Kind, sr.Round, sr.Replica = ks.kind, round, i
			res.syncs = append(res.syncs, sr)
			fmt.Println(sr.line())
		}
		pr, err := phase(ctx, c, tmp, p, reps)
		if err != nil {
			return err
		}
		pr.Kind, pr.Round = ks.kind, round
		res.phases = append(res.phases, pr)
		fmt.Println(pr.line())
	}
	for _, r := range reps {
		r.stop()
		os.RemoveAll(r.Dir)
	}
	reps = nil
	// The primary notices its replicas left before the next kind runs.
	for end := time.Now().Add(30 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		if n, err := p.infoInt("replication", "connected_slaves"); err != nil || n == 0 {
			break
		}
	}
	return nil
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
	load := "memtier_benchmark " + benchproc.ShellJoin(memtierArgs(c, "PORT", "F.json"))
	return []string{
		"# Replication side by side: " + strings.Join(c.kinds, " vs "),
		"",
		fmt.Sprintf("**Run:** %s · **commit** %s · %s · %s", time.Now().UTC().Format("2006-01-02 15:04 UTC"), orUnknown(rev), what, valkey),
		fmt.Sprintf("**Machine:** %s cores (%s), kernel %s, load %s, %s",
			benchproc.NProc(), orUnknown(benchproc.CPUModel()), orUnknown(benchproc.Kernel()), orUnknown(benchproc.LoadAvg()), runtime.Version()),
		fmt.Sprintf("**Dataset:** %d keys x %d random bytes (%d MiB of values); **load:** %d s per phase, replicas %v, %d round(s); lag sampled every %v, a probe every %v",
			c.keys(), c.valueSize, c.datasetMB, c.testTime, c.replicas, c.rounds, c.lagInterval, c.probeInterval),
		"**Load:** `" + load + "`",
		"**Servers:** `--save '' --appendonly no --repl-diskless-sync-delay 0" + argsNote(c) + "`, otherwise defaults (diskless sync, disk load)",
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
