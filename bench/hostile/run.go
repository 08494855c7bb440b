package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// run resolves the servers, runs every scenario on each in turn (a fresh
// server each time, working and logging in tmp) and prints the report.
func run(c *config, tmp string) error {
	root, err := benchproc.ModuleRoot()
	if err != nil {
		return err
	}
	targets, err := resolveTargets(context.Background(), c, root, tmp)
	if err != nil {
		return err
	}
	header := headerLines(c, root, targets)
	var notes []string
	for _, t := range targets {
		if t.note != "" {
			notes = append(notes, t.note)
			logf("%s", t.note)
		}
	}

	bigCmd := sync.OnceValue(func() []byte { return rpushCommand("hostile:list", c.n) })
	all := scenarios(bigCmd)
	var results []result
	for _, key := range c.scenarios {
		sc := all[key]
		for _, t := range targets {
			if t.bin == "" {
				continue
			}
			logf("%s: %s", sc.label, t.name)
			r := measure(c, t, sc, tmp)
			logf("  %s", strings.TrimSpace(r.row()))
			results = append(results, r)
		}
	}
	header = append(header, "load average at end: "+orUnknown(benchproc.LoadAvg()))
	fmt.Print("\n" + report(header, results, notes))
	for _, r := range results {
		if r.err != "" {
			return errFailed
		}
	}
	return nil
}

// errFailed is run's error when the report holds a failed scenario.
var errFailed = errors.New("a scenario failed (see its row)")

// measure runs one scenario on a fresh server of t; a failure is kept in
// the result.
func measure(c *config, t target, sc scenario, tmp string) result {
	r := result{scenario: sc.label, server: t.name, obufDisc: -1}
	s, err := start(t, tmp, sc.key)
	if err != nil {
		r.err = err.Error()
		return r
	}
	defer s.Stop()
	if err := sc.run(c, s, &r); err != nil {
		r.err = err.Error()
		if s.Exited() {
			r.err += "; the server exited: " + s.LogTail(300)
		}
	}
	return r
}

// headerLines are the report's facts: the command line, date, commit,
// machine, versions and parameters.
func headerLines(c *config, root string, targets []target) []string {
	cmd := "go run ./bench/hostile"
	if len(c.argv) > 0 {
		cmd += " " + benchproc.ShellJoin(c.argv)
	}
	h := []string{
		"command: `" + cmd + "`",
		"date: " + time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		"commit: " + gitRevision(root),
		"machine: " + machine(),
		"load average at start: " + orUnknown(benchproc.LoadAvg()),
	}
	for _, t := range targets {
		if t.bin != "" {
			h = append(h, fmt.Sprintf("%s: %s (%s)", t.name, t.version, t.bin))
		}
	}
	h = append(h,
		fmt.Sprintf("servers: `%s` on a free loopback port P, a fresh one per scenario, one at a time",
			benchproc.ShellJoin(serverArgv("BIN", "P"))),
		fmt.Sprintf("large multibulk: RPUSH of %d arguments in one write", c.n),
		fmt.Sprintf("slow reader: %d GETs of a %d-byte value in one write, nothing read for %v; obuf limit: client-output-buffer-limit %q",
			c.gets, c.value, c.hold, c.obufLimit),
		fmt.Sprintf("idle connections: %d, each PING then idle", c.conns),
		fmt.Sprintf("prober: one PING every %v (0: back to back); idle median of %d PINGs after %v settle; RSS sampled every %v",
			c.pingEvery, c.pings, c.settle, rssEvery),
	)
	return h
}

// machine is the CPU model, CPU count, MemTotal, kernel and Go version.
func machine() string {
	mem := "?"
	if kb := benchproc.MeminfoKiB("MemTotal"); kb >= 0 {
		mem = strconv.FormatInt(kb, 10) + " kB"
	}
	return fmt.Sprintf("%s, %s CPUs (nproc), MemTotal %s, kernel %s, %s", orUnknown(benchproc.CPUModel()),
		benchproc.NProc(), mem, orUnknown(benchproc.Kernel()), runtime.Version())
}

// gitRevision is the checkout's short commit, "+dirty" when tracked files
// differ from it.
func gitRevision(root string) string {
	rev, dirty := benchproc.GitRevision(root)
	rev = orUnknown(rev)
	if dirty {
		rev += "+dirty"
	}
	return rev
}

func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}
