package server

import (
	"strings"
	"testing"
)

// TestStreamReadBlocks: XREAD and XREADGROUP leave the event loop only
// with BLOCK among their options, wherever a group, consumer, count, key
// or ID happens to be named "block" or "streams".
func TestStreamReadBlocks(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		want bool
	}{
		{"XREAD STREAMS s 0", false},
		{"XREAD COUNT 1 STREAMS s 0", false},
		{"XREAD BLOCK 0 STREAMS s $", true},
		{"xread count 5 block 100 streams s $", true},
		{"XREAD STREAMS block 0", false},
		{"XREADGROUP GROUP g c STREAMS s >", false},
		{"XREADGROUP GROUP g c COUNT 1 NOACK STREAMS s >", false},
		{"XREADGROUP GROUP g c BLOCK 10 STREAMS s >", true},
		{"XREADGROUP GROUP block block STREAMS s >", false},
		{"XREADGROUP GROUP streams c BLOCK 0 STREAMS s >", true},
		{"XREADGROUP GROUP g streams COUNT block STREAMS s >", false},
		{"XREAD COUNT", false},
	} {
		if got := streamReadBlocks(argvOf(tc.cmd)); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.cmd, got, tc.want)
		}
	}
}

func argvOf(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		out = append(out, []byte(f))
	}
	return out
}
