package main

import (
	"runtime"
	"strconv"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// orUnknown is s, or "unknown" when it is empty.
func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

func memTotal() string {
	if kb := benchproc.MeminfoKiB("MemTotal"); kb > 0 {
		return strconv.FormatFloat(float64(kb)/(1<<20), 'f', 1, 64) + " GiB"
	}
	return "unknown"
}

// gitRev is the short commit of the tree in dir, "+dirty" when it has
// uncommitted changes.
func gitRev(dir string) string {
	rev, dirty := benchproc.GitRevision(dir)
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

func machineLines(root, redisBin string, withRedis bool) []string {
	lines := []string{
		"nproc: " + benchproc.NProc(),
		"cpu: " + orUnknown(benchproc.CPUModel()),
		"memory: " + memTotal(),
		"kernel: " + benchproc.Kernel(),
		"go: " + runtime.Version(),
		"corvid: " + gitRev(root),
	}
	if withRedis {
		v, _ := benchproc.Output("", redisBin, "--version")
		lines = append(lines, "redis: "+v)
	}
	return lines
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string { return orUnknown(benchproc.LoadAvg()) }
