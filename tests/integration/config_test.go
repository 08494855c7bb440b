package integration

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestSeedConfig starts corvid-server with the seed article's valkey.conf
// (its "// ..." annotations removed). The test overrides port, bind and
// daemonize so that it controls a foreground process on loopback; every
// other directive is the article's.
func TestSeedConfig(t *testing.T) {
	srv := testutil.StartCorvid(t, abs(t, "testdata/seed-valkey.conf"), "--daemonize", "no")
	ctx := testCtx(t, 10*time.Second)
	c := newClient(t, srv.Addr, 2)
	want := map[string]string{
		"maxmemory":           "109521666048", // 102gb = 102 * 1024^3
		"maxmemory-policy":    "allkeys-lru",
		"io-threads":          "14",
		"io-threads-do-reads": "yes",
		"protected-mode":      "no",
		"daemonize":           "no",
		"bind":                "127.0.0.1",
	}
	for k, v := range want {
		got, err := c.ConfigGet(ctx, k).Result()
		if err != nil {
			t.Fatalf("CONFIG GET %s: %v", k, err)
		}
		if got[k] != v {
			t.Errorf("CONFIG GET %s = %q, want %q", k, got[k], v)
		}
	}
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	if v := c.Get(ctx, "k").Val(); v != "v" {
		t.Fatalf("GET k = %q", v)
	}
}

// TestSeedConfigDaemonize runs the seed config as written (daemonize yes):
// the launching process exits 0 at once, a detached server keeps serving,
// writes its pidfile, and removes it when SHUTDOWN stops it.
func TestSeedConfigDaemonize(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "corvid.pid")
	launcher := testutil.LaunchCorvid(t, abs(t, "testdata/seed-valkey.conf"), "--pidfile", pidfile)
	code, ok := launcher.WaitExit(10 * time.Second)
	if !ok || code != 0 {
		t.Fatalf("daemonizing parent: exited=%v status=%d\n%s", ok, code, launcher.Output())
	}
	var pid int
	if !waitFor(10*time.Second, func() bool {
		b, err := os.ReadFile(pidfile)
		if err != nil {
			return false
		}
		pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
		return err == nil && pid > 0
	}) {
		t.Fatal("no pidfile from the daemon")
	}
	// The daemon is not our child: make sure it does not outlive the test.
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
	})
	addr := launcher.Addr
	if !waitFor(10*time.Second, func() bool {
		conn, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return false
		}
		conn.Close()
		return true
	}) {
		t.Fatal("daemon not listening")
	}
	c := testutil.Dial(t, addr)
	expect(t, c, "+PONG", "PING")
	expect(t, c, `*["daemonize", "yes"]`, "CONFIG", "GET", "daemonize")
	expect(t, c, `*["maxmemory", "109521666048"]`, "CONFIG", "GET", "maxmemory")
	expect(t, c, "<EOF>", "SHUTDOWN", "NOSAVE")
	if !waitFor(10*time.Second, func() bool {
		_, err := os.Stat(pidfile)
		return os.IsNotExist(err)
	}) {
		t.Error("pidfile still present 10s after SHUTDOWN")
	}
}

// TestSeedConfigAnnotatedFails: the article's file as printed, with the
// "// ..." remarks, is refused as valkey-server refuses it: Valkey's
// FATAL CONFIG FILE ERROR naming the first bad line, exit status 1.
func TestSeedConfigAnnotatedFails(t *testing.T) {
	out, code := testutil.RunCorvid(t, 10*time.Second, abs(t, "testdata/seed-valkey-annotated.conf"), "--daemonize", "no")
	if code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	want := "\n*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***\n" +
		"Reading the configuration file, at line 6\n" +
		">>> 'maxmemory 102gb   // 4xlarge 实例内存容量的80%'\n" +
		"wrong number of arguments\n"
	if !strings.Contains(out, want) {
		t.Errorf("output:\n%s\nwant it to contain:\n%s", out, want)
	}
}

// TestStartupRefusals: persistence and other features Corvid does not have
// are refused at start-up when switched on (from a file or the command
// line) with a message saying so; their off values are accepted; unknown
// directives fail like Valkey's.
func TestStartupRefusals(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		args []string
		want []string // substrings of the output
	}{
		{"loadmodule in file", []string{write("module.conf", "# modules\nloadmodule /x.so\n")},
			[]string{"*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***", "at line 2", ">>> 'loadmodule /x.so'", "loadmodule is not supported"}},
		{"replicaof with a bad port", []string{"--replicaof", "127.0.0.1 70000"},
			[]string{"FATAL CONFIG FILE ERROR", "Invalid primary port"}},
		{"unknown directive", []string{write("bad.conf", "port 6379\nnot-a-directive yes\n")},
			[]string{"*** FATAL CONFIG FILE ERROR (Version 8.0.1) ***", "Reading the configuration file, at line 2", ">>> 'not-a-directive yes'", "Bad directive or wrong number of arguments"}},
		{"bad value", []string{"--maxmemory-policy", "sometimes"},
			[]string{"FATAL CONFIG FILE ERROR", "argument(s) must be one of the following"}},
		{"missing file", []string{filepath.Join(dir, "nope.conf")},
			[]string{"Fatal error, can't open config file '" + filepath.Join(dir, "nope.conf") + "': No such file or directory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, code := testutil.RunCorvid(t, 10*time.Second, tc.args...)
			if code != 1 {
				t.Errorf("exit status %d, want 1; output:\n%s", code, out)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}

	// Off values are accepted and reported.
	srv := testutil.StartCorvid(t, write("off.conf", "save \"\"\nappendonly no\n"))
	ctx := testCtx(t, 10*time.Second)
	c := newClient(t, srv.Addr, 2)
	got, err := c.ConfigGet(ctx, "*").Result()
	if err != nil {
		t.Fatal(err)
	}
	if got["save"] != "" || got["appendonly"] != "no" {
		t.Errorf("CONFIG GET save/appendonly = %q/%q", got["save"], got["appendonly"])
	}
	// The AOF turns on and off at run time.
	for _, v := range []string{"yes", "no"} {
		if err := c.ConfigSet(ctx, "appendonly", v).Err(); err != nil {
			t.Errorf("CONFIG SET appendonly %s: %v", v, err)
		}
	}
	if err := c.ConfigSet(ctx, "save", "900 1").Err(); err != nil {
		t.Errorf("CONFIG SET save 900 1: %v", err)
	}
	if err := c.ConfigSet(ctx, "maxmemory", "1gb").Err(); err != nil {
		t.Errorf("CONFIG SET maxmemory 1gb: %v", err)
	}
	if v := c.ConfigGet(ctx, "maxmemory").Val()["maxmemory"]; v != "1073741824" {
		t.Errorf("maxmemory after CONFIG SET 1gb = %q", v)
	}
}

// TestProtectedModeLoopback: with protected mode on and no password,
// loopback clients are still served (the refusal of other peers is
// unit-tested in internal/server: a non-loopback peer cannot be made here).
func TestProtectedModeLoopback(t *testing.T) {
	srv := testutil.StartCorvid(t, "--protected-mode", "yes")
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, "+PONG", "PING")
	expect(t, c, "*[\"protected-mode\", \"yes\"]", "CONFIG", "GET", "protected-mode")
}
