package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/bench/wire"
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

// usedMemory reads used_memory from INFO memory.
func usedMemory(c *wire.Conn) (int64, error) {
	rep, err := do(c, "INFO", "memory")
	if err != nil {
		return 0, err
	}
	return infoInt(parseInfo(rep.Str), "used_memory")
}
