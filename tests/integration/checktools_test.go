package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// The file checkers of the real binary: corvid-server --check-aof and
// --check-rdb, and the binary run as corvid-check-aof / corvid-check-rdb.

// runTool runs corvid-server under argv0 ("": its own name).
func runTool(t *testing.T, argv0 string, args ...string) (int, string) {
	t.Helper()
	return testutil.RunAs(t, testutil.ServerBinary(t), argv0, "", args...)
}

// lastIncr returns the path of the last incr file of dir/appendonlydir.
func lastIncr(t *testing.T, dir string) string {
	t.Helper()
	adir := filepath.Join(dir, "appendonlydir")
	man, err := os.ReadFile(filepath.Join(adir, "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	incr := ""
	for _, line := range strings.Split(string(man), "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[5] == "i" {
			incr = f[1]
		}
	}
	if incr == "" {
		t.Fatalf("no incr file in the manifest:\n%s", man)
	}
	return filepath.Join(adir, incr)
}

// TestCheckAOFFixThenStart: a server with appendfsync always is killed;
// its last incr file is cut inside its last command (a torn write). The
// server refuses it with aof-load-truncated no; --check-aof says it is
// fixable and changes nothing; corvid-check-aof --fix cuts it; the server
// then starts on it with every key but the torn one.
func TestCheckAOFFixThenStart(t *testing.T) {
	ctx := testCtx(t, 2*time.Minute)
	args := []string{"--save", "", "--appendonly", "yes", "--appendfsync", "always"}
	p := testutil.StartCorvid(t, args...)
	c := newClient(t, p.Addr, 2)
	for i := range 20 {
		if err := c.Set(ctx, fmt.Sprintf("k%d", i), i, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.TxPipelined(ctx, func(pipe redis.Pipeliner) error {
		pipe.Incr(ctx, "n")
		pipe.RPush(ctx, "l", "a", "b")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := c.Set(ctx, "torn", "vvvvvvvv", 0).Err(); err != nil {
		t.Fatal(err)
	}
	p.Stop() // SIGKILL
	incr := lastIncr(t, p.Dir)
	b, err := os.ReadFile(incr)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(string(b), "$4\r\ntorn\r\n$8\r\nvvvvvvvv\r\n") {
		t.Fatalf("the last command is not the SET of torn: %q", b[max(0, len(b)-60):])
	}
	torn := b[:len(b)-7]
	if err := os.WriteFile(incr, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	adir := filepath.Join(p.Dir, "appendonlydir")

	// The server refuses the file (it exits at once: the load fails).
	code, out := runTool(t, "", append(append([]string{}, args...), "--aof-load-truncated", "no", "--dir", p.Dir,
		"--port", strconv.Itoa(testutil.FreePort(t)), "--bind", "127.0.0.1")...)
	if code != 1 {
		t.Fatalf("the server on a torn AOF with aof-load-truncated no: exit %d\n%s", code, out)
	}

	code, out = runTool(t, "", "--check-aof", adir)
	if code != 1 || !strings.Contains(out, "verdict: fixable") {
		t.Fatalf("--check-aof: exit %d\n%s", code, out)
	}
	if now, _ := os.ReadFile(incr); string(now) != string(torn) {
		t.Fatal("--check-aof without --fix changed the file")
	}
	code, out = runTool(t, "corvid-check-aof", "--fix", filepath.Join(adir, "appendonly.aof.manifest"))
	if code != 0 || !strings.Contains(out, "verdict: fixed") {
		t.Fatalf("corvid-check-aof --fix: exit %d\n%s", code, out)
	}
	if now, _ := os.ReadFile(incr); string(now) != string(b[:strings.LastIndex(string(b), "*3\r\n")]) {
		t.Fatalf("--fix left %q", now[max(0, len(now)-60):])
	}
	if code, out = runTool(t, "", "--check-aof", adir); code != 0 || !strings.Contains(out, "verdict: ok") {
		t.Fatalf("after --fix: exit %d\n%s", code, out)
	}

	q := testutil.StartCorvidIn(t, p.Dir, append(append([]string{}, args...), "--aof-load-truncated", "no")...)
	qc := newClient(t, q.Addr, 2)
	if n := qc.DBSize(ctx).Val(); n != 22 {
		t.Errorf("dbsize %d after the fix, want 22 (k0..k19, n, l)\n%s", n, q.Output())
	}
	if v := qc.Get(ctx, "k19").Val(); v != "19" {
		t.Errorf("k19 = %q", v)
	}
	if n := qc.Exists(ctx, "torn").Val(); n != 0 {
		t.Error("the torn SET was loaded")
	}
}

// TestCheckRDBTool: --check-rdb and corvid-check-rdb on a dump the server
// saved, and on the same dump cut short.
func TestCheckRDBTool(t *testing.T) {
	ctx := testCtx(t, time.Minute)
	p := testutil.StartCorvid(t, "--save", "", "--appendonly", "no")
	c := newClient(t, p.Addr, 2)
	c.Set(ctx, "s", "v", 0)
	c.HSet(ctx, "h", "f", "v")
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	dump := filepath.Join(p.Dir, "dump.rdb")
	code, out := runTool(t, "", "--check-rdb", dump)
	if code != 0 || !strings.Contains(out, "verdict: ok") || !strings.Contains(out, "keys: 2") {
		t.Fatalf("--check-rdb: exit %d\n%s", code, out)
	}
	b, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "cut.rdb")
	os.WriteFile(cut, b[:len(b)-20], 0o644)
	code, out = runTool(t, "/usr/local/bin/corvid-check-rdb", cut)
	if code != 1 || !strings.Contains(out, "verdict: bad") || !strings.Contains(out, "problem at offset") {
		t.Fatalf("corvid-check-rdb on a cut file: exit %d\n%s", code, out)
	}
	if code, out = runTool(t, "corvid-check-rdb"); code != 1 || !strings.Contains(out, "Usage") {
		t.Fatalf("no file: exit %d\n%s", code, out)
	}
}
