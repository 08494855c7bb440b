package benchproc

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// parseVmRSS reads the VmRSS line of /proc/PID/status, in KiB.
func parseVmRSS(status []byte) (int64, error) {
	for line := range strings.SplitSeq(string(status), "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			break
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
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

// parseStatCPU returns utime and stime (fields 14 and 15, clock ticks) of
// a /proc/PID/stat line. The command name (field 2) is in parentheses and
// may itself contain spaces and parentheses, so fields are counted from
// the last ')'.
func parseStatCPU(b []byte) (utime, stime uint64, err error) {
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

func trunc(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

var clockTicks = sync.OnceValue(func() float64 {
	if out, err := Output("", "getconf", "CLK_TCK"); err == nil {
		if v, err := strconv.ParseFloat(out, 64); err == nil && v > 0 {
			return v
		}
	}
	return 100
})

// ClockTicks is the unit of /proc/PID/stat's times per second (getconf
// CLK_TCK; 100 if that fails, as on every Linux this runs on).
func ClockTicks() float64 { return clockTicks() }

func ticksDuration(ticks uint64, hz float64) time.Duration {
	return time.Duration(float64(ticks) / hz * float64(time.Second))
}

// Output runs a command in dir ("" for the current directory) and returns
// its standard output, trimmed.
func Output(dir, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// NProc is what `nproc` prints, else runtime.NumCPU().
func NProc() string {
	if s, err := Output("", "nproc"); err == nil && s != "" {
		return s
	}
	return strconv.Itoa(runtime.NumCPU())
}

// CPUModel is the first "model name" of /proc/cpuinfo, "" if none.
func CPUModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	return parseCPUModel(b)
}

func parseCPUModel(cpuinfo []byte) string {
	for line := range strings.SplitSeq(string(cpuinfo), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// Kernel is the kernel release (/proc/sys/kernel/osrelease), "" if unknown.
func Kernel() string {
	b, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	return strings.TrimSpace(string(b))
}

// LoadAvg is the first three fields of /proc/loadavg, "" if unknown.
func LoadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	return parseLoadAvg(b)
}

func parseLoadAvg(b []byte) string {
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// MeminfoKiB is one field of /proc/meminfo ("MemTotal", "MemAvailable")
// in KiB, or -1.
func MeminfoKiB(field string) int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return -1
	}
	return parseMeminfoKiB(b, field)
}

func parseMeminfoKiB(meminfo []byte, field string) int64 {
	for line := range strings.SplitSeq(string(meminfo), "\n") {
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

// GitRevision is the short commit of the checkout in dir ("" for the
// current directory; rev is "" when git cannot tell), and whether tracked
// files differ from it.
func GitRevision(dir string) (rev string, dirty bool) {
	rev, err := Output(dir, "git", "rev-parse", "--short", "HEAD")
	if err != nil {
		rev = ""
	}
	st, err := Output(dir, "git", "status", "--porcelain", "--untracked-files=no")
	return rev, err == nil && st != ""
}
