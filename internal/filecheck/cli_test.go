package filecheck

import (
	"os"
	"slices"
	"strings"
	"testing"
)

func TestToolFor(t *testing.T) {
	for _, tc := range []struct {
		argv0 string
		args  []string
		tool  string
		targs []string
	}{
		{"/usr/bin/corvid-server", []string{"--port", "1"}, "", nil},
		{"corvid-server", nil, "", nil},
		{"/opt/corvid/corvid-check-rdb", []string{"dump.rdb"}, ToolRDB, []string{"dump.rdb"}},
		{"./corvid-check-aof", []string{"--fix", "x"}, ToolAOF, []string{"--fix", "x"}},
		{"valkey-check-aof", []string{"x"}, ToolAOF, []string{"x"}},
		{"redis-check-rdb", []string{"x"}, ToolRDB, []string{"x"}},
		{"corvid-server", []string{"--check-rdb", "dump.rdb"}, ToolRDB, []string{"dump.rdb"}},
		{"corvid-server", []string{"--check-aof", "--fix", "d"}, ToolAOF, []string{"--fix", "d"}},
		{"corvid-server", []string{"/etc/valkey.conf", "--check-aof", "d"}, "", nil},
	} {
		tool, targs, ok := ToolFor(tc.argv0, tc.args)
		if tool != tc.tool || ok != (tc.tool != "") || !slices.Equal(targs, tc.targs) {
			t.Errorf("%s %q: %q %q %v", tc.argv0, tc.args, tool, targs, ok)
		}
	}
}

func runMain(tool string, args ...string) (code int, stdout, stderr string) {
	var o, e strings.Builder
	code = Main(tool, args, "1.2.3", &o, &e)
	return code, o.String(), e.String()
}

func TestMainExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := writeFile(t, dir, "dump.rdb", testRDB(t, true))
	b := testRDB(t, true)
	bad := writeFile(t, dir, "bad.rdb", b[:len(b)-3])
	aofGood := cmdText("#TS:10", "SET a 1", "#TS:20", "SET b 2")
	aofPath := writeFile(t, dir, "appendonly.aof", append(aofGood, "*2\r\n$3\r\nGET"...))
	for _, tc := range []struct {
		tool   string
		args   []string
		code   int
		stdout string // a part of it
		stderr string
	}{
		{ToolRDB, []string{good}, 0, "verdict: ok", ""},
		{ToolRDB, []string{bad}, 1, "verdict: bad", ""},
		{ToolRDB, []string{dir + "/none.rdb"}, 1, "cannot check", ""},
		{ToolRDB, nil, 1, "", "Usage: corvid-check-rdb"},
		{ToolRDB, []string{"a", "b"}, 1, "", "Usage"},
		{ToolRDB, []string{"--version"}, 0, "corvid-check-rdb 1.2.3", ""},
		{ToolAOF, []string{"-v"}, 0, "corvid-check-aof 1.2.3", ""},
		{ToolAOF, []string{"--help"}, 0, "Usage: corvid-check-aof", ""},
		{ToolAOF, []string{aofPath}, 1, "verdict: fixable", ""},
		{ToolAOF, []string{"--truncate-to-timestamp"}, 1, "", "Usage"},
		{ToolAOF, []string{"--truncate-to-timestamp", "x1", aofPath}, 1, "", "invalid timestamp"},
		{ToolAOF, []string{"--bogus", aofPath}, 1, "", "Usage"},
		{ToolAOF, []string{aofPath, aofPath}, 1, "", "Usage"},
		{ToolAOF, []string{"--fix", "--truncate-to-timestamp=15", aofPath}, 0, "verdict: truncated", ""},
		{ToolAOF, []string{aofPath, "--fix"}, 0, "verdict: ok", ""},
		{"check-what", nil, 1, "", "unknown check tool"},
	} {
		code, out, errOut := runMain(tc.tool, tc.args...)
		if code != tc.code || !strings.Contains(out, tc.stdout) || !strings.Contains(errOut, tc.stderr) {
			t.Errorf("%s %q: %d\n%s\n%s", tc.tool, tc.args, code, out, errOut)
		}
	}
	if b, _ := os.ReadFile(aofPath); string(b) != string(cmdText("#TS:10", "SET a 1")) {
		t.Errorf("after the runs: %q", b)
	}
}
