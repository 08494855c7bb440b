package main

import (
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// decodeCommands parses RESP multibulks back into argument lists.
func decodeCommands(t *testing.T, b []byte) [][]string {
	t.Helper()
	var out [][]string
	for len(b) > 0 {
		v, n, err := wire.Parse(b)
		if err != nil || n == 0 || v.Type != '*' {
			t.Fatalf("bad encoding: %s %d %v", v.Text(), n, err)
		}
		var args []string
		for _, a := range v.Elems {
			if a.Type != '$' {
				t.Fatalf("argument %s is not a bulk string", a.Text())
			}
			args = append(args, a.Str)
		}
		out = append(out, args)
		b = b[n:]
	}
	return out
}

func TestRPushCommand(t *testing.T) {
	for _, n := range []int{1, 2, 10, 11, 1234} {
		cmds := decodeCommands(t, rpushCommand("k:l", n))
		if len(cmds) != 1 || len(cmds[0]) != n+2 || cmds[0][0] != "RPUSH" || cmds[0][1] != "k:l" {
			t.Fatalf("n=%d: %d commands, first %v...", n, len(cmds), cmds[0][:min(3, len(cmds[0]))])
		}
		for i, a := range cmds[0][2:] {
			if a != strconv.Itoa(i) {
				t.Fatalf("n=%d: argument %d is %q", n, i, a)
			}
		}
	}
	if got, want := string(rpushCommand("k", 2)), "*4\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n$1\r\n0\r\n$1\r\n1\r\n"; got != want {
		t.Errorf("rpushCommand = %q, want %q", got, want)
	}
}

func TestRepeatCommand(t *testing.T) {
	cmds := decodeCommands(t, repeatCommand(3, "GET", bigKey))
	if len(cmds) != 3 {
		t.Fatalf("%d commands, want 3", len(cmds))
	}
	for _, c := range cmds {
		if len(c) != 2 || c[0] != "GET" || c[1] != bigKey {
			t.Errorf("command %v", c)
		}
	}
}

func TestBulkReplyLen(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want int64
	}{
		{0, int64(len("$0\r\n\r\n"))},
		{9, int64(len("$9\r\n123456789\r\n"))},
		{10, 1 + 2 + 2 + 10 + 2},
		{10 << 20, int64(len("$10485760\r\n\r\n")) + 10<<20},
	} {
		if got := bulkReplyLen(tc.n); got != tc.want {
			t.Errorf("bulkReplyLen(%d) = %d, want %d", tc.n, got, tc.want)
		}
	}
}

// TestOptionalInt: a field a server lacks reads -1 (benchproc.ParseInfo's
// own test is in its package).
func TestOptionalInt(t *testing.T) {
	valkey := "# Stats\r\ntotal_connections_received:5\r\nclient_output_buffer_limit_disconnections:2\r\n\r\n# Other\r\nweird:a:b\r\n"
	redis70 := "# Stats\r\ntotal_connections_received:5\r\n"
	for _, tc := range []struct {
		name, info, key string
		want            int64
		wantErr         bool
	}{
		{"valkey", valkey, "client_output_buffer_limit_disconnections", 2, false},
		{"redis 7.0 lacks it", redis70, "client_output_buffer_limit_disconnections", -1, false},
		{"not an integer", valkey, "weird", 0, true},
	} {
		got, err := optionalInt(benchproc.ParseInfo(tc.info), tc.key)
		if got != tc.want || (err != nil) != tc.wantErr {
			t.Errorf("%s: optionalInt = %d, %v; want %d (error %v)", tc.name, got, err, tc.want, tc.wantErr)
		}
	}
}
