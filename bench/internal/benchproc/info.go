package benchproc

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseInfo parses an INFO reply into field -> value ("# Section" headers
// and blank lines skipped).
func ParseInfo(s string) map[string]string {
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

// InfoInt is the integer field key of a parsed INFO reply.
func InfoInt(m map[string]string, key string) (int64, error) {
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
