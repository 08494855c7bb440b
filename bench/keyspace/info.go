package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
)

// cpuModel is the first "model name" of /proc/cpuinfo.
func cpuModel(cpuinfo string) string {
	for _, line := range strings.Split(cpuinfo, "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func outputOf(name string, args ...string) string {
	b, err := exec.Command(name, args...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}

func nproc() string {
	if s := outputOf("nproc"); s != "" {
		return s
	}
	return strconv.Itoa(runtime.NumCPU())
}

func memTotal() string {
	b, _ := os.ReadFile("/proc/meminfo")
	if kb := meminfoKiB(string(b), "MemTotal"); kb > 0 {
		return strconv.FormatFloat(float64(kb)/(1<<20), 'f', 1, 64) + " GiB"
	}
	return "unknown"
}

// meminfoKiB is the value of one /proc/meminfo field in KiB, or -1.
func meminfoKiB(meminfo, field string) int64 {
	for _, line := range strings.Split(meminfo, "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			if f := strings.Fields(rest); len(f) > 0 {
				if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
					return kb
				}
			}
		}
	}
	return -1
}

// gitRev is the short commit of the tree in dir, "+dirty" when it has
// uncommitted changes.
func gitRev(dir string) string {
	rev := outputOf("git", "-C", dir, "rev-parse", "--short", "HEAD")
	if rev == "" {
		return "unknown"
	}
	if outputOf("git", "-C", dir, "status", "--porcelain", "--untracked-files=no") != "" {
		rev += "+dirty"
	}
	return rev
}

func machineLines(root, redisBin string, withRedis bool) []string {
	cpuinfo, _ := os.ReadFile("/proc/cpuinfo")
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	lines := []string{
		"nproc: " + nproc(),
		"cpu: " + cpuModel(string(cpuinfo)),
		"memory: " + memTotal(),
		"kernel: " + strings.TrimSpace(string(kernel)),
		"go: " + runtime.Version(),
		"corvid: " + gitRev(root),
	}
	if withRedis {
		lines = append(lines, "redis: "+outputOf(redisBin, "--version"))
	}
	return lines
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
