package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// Facts about the machine and the binaries, for the report's header.

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, time.Now().Format("15:04:05 ")+format+"\n", args...)
}

// orUnknown is s, or "?" when it is empty.
func orUnknown(s string) string {
	if s == "" {
		return "?"
	}
	return s
}

// output runs a command and returns its trimmed standard output, or "?".
func output(name string, args ...string) string {
	out, err := benchproc.Output("", name, args...)
	if err != nil {
		return "?"
	}
	return out
}

// machine is the CPU model, the CPU count, MemTotal as /proc/meminfo
// writes it and the kernel.
func machine() string {
	mem := "?"
	if kb := benchproc.MeminfoKiB("MemTotal"); kb >= 0 {
		mem = strconv.FormatInt(kb, 10) + " kB"
	}
	kernel := runtime.GOOS
	if k := benchproc.Kernel(); k != "" {
		kernel += " " + k
	}
	return fmt.Sprintf("%s, %d CPUs (%s), MemTotal %s, %s", orUnknown(benchproc.CPUModel()), runtime.NumCPU(), runtime.GOARCH, mem, kernel)
}

// gitRevision is the checkout's short commit, "+dirty" if tracked files
// differ from it.
func gitRevision(root string) string {
	rev, dirty := benchproc.GitRevision(root)
	rev = orUnknown(rev)
	if dirty {
		rev += "+dirty"
	}
	return rev
}
