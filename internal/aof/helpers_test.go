package aof

import (
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/effects"
)

// collector gathers loaded commands as space-joined strings.
type collector struct{ cmds []string }

func (c *collector) opts(truncated bool) LoadOptions {
	return LoadOptions{Truncated: truncated, Command: func(argv [][]byte) error {
		parts := make([]string, len(argv))
		for i, a := range argv {
			parts[i] = string(a)
		}
		c.cmds = append(c.cmds, strings.Join(parts, " "))
		return nil
	}}
}

// cmd renders a command given as space-separated words.
func cmd(s string) []byte {
	var argv [][]byte
	for _, w := range strings.Fields(s) {
		argv = append(argv, []byte(w))
	}
	return effects.AppendCommand(nil, argv...)
}

func equalStrings(t *testing.T, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
