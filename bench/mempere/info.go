package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// parseInfo parses an INFO reply into field -> value ("# Section" headers
// and blank lines skipped).
func parseInfo(s string) map[string]string {
	m := make(map[string]string)
	for line := range strings.SplitSeq(s, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == "" || line[0] == '#' {
			continue
		}
		if k, v, ok := strings.Cut(line, ":"); ok {
			m[k] = v
		}
	}
	return m
}

// infoInt is the integer field key of a parsed INFO reply.
func infoInt(m map[string]string, key string) (int64, error) {
	v, ok := m[key]
	if !ok {
		return 0, fmt.Errorf("INFO has no %s", key)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("INFO %s: %q is not an integer", key, v)
	}
	return n, nil
}

// parseVmRSS returns VmRSS in bytes from the text of /proc/PID/status.
func parseVmRSS(status string) (int64, error) {
	for line := range strings.SplitSeq(status, "\n") {
		rest, ok := strings.CutPrefix(line, "VmRSS:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("VmRSS line %q: want \"<n> kB\"", line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("VmRSS line %q: %v", line, err)
		}
		return n * 1024, nil
	}
	return 0, fmt.Errorf("no VmRSS line")
}

// readRSS is the resident set size of process pid, in bytes.
func readRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(string(b))
}

// usedMemory reads used_memory from INFO memory.
func usedMemory(c *conn) (int64, error) {
	rep, err := c.do("INFO", "memory")
	if err != nil {
		return 0, err
	}
	return infoInt(parseInfo(rep.str), "used_memory")
}
