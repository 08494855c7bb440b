package peer

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestParseStat(t *testing.T) {
	// Fields 14 and 15 are utime and stime in clock ticks (1/100 s).
	tail := " 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0"
	cases := []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"1234 (valkey-server) S 1 1234 1234 0 -1 4194560 100 0 0 0 250 50 0 0 20 0 5 0 1000 100000 500" + tail, 3 * time.Second, true},
		{"77 (a b) c)) R 1 2 3 4 5 6 7 8 9 10 7 3 0 0" + tail, 100 * time.Millisecond, true}, // name with spaces and ')'
		{"no parenthesis", 0, false},
		{"1 (x) S 1 2", 0, false},
		{"1 (x) S 1 2 3 4 5 6 7 8 9 10 u s", 0, false},
	}
	for _, c := range cases {
		u, err := ParseStat(c.in)
		if (err == nil) != c.ok || u.CPU != c.want {
			t.Errorf("%q: %v %v, want %v ok=%v", c.in[:min(len(c.in), 30)], u.CPU, err, c.want, c.ok)
		}
	}
}

func TestParseVmRSS(t *testing.T) {
	cases := map[string]uint64{
		"Name:\tx\nVmPeak:\t  9 kB\nVmRSS:\t    1234 kB\nThreads: 3\n": 1234 * 1024,
		"VmRSS: 0 kB":       0,
		"Name: kernel\n":    0,
		"VmRSS:\tgarbage\n": 0,
	}
	for in, want := range cases {
		if got := ParseVmRSS(in); got != want {
			t.Errorf("%q: %d, want %d", in, got, want)
		}
	}
}

func TestParseServer(t *testing.T) {
	good := map[string]Server{
		"valkey=/work/shared/bin/valkey-server": {"valkey", "/work/shared/bin/valkey-server"},
		"redis=/usr/bin/redis-server":           {"redis", "/usr/bin/redis-server"},
		"v8=./a=b":                              {"v8", "./a=b"},
	}
	for in, want := range good {
		if got, err := ParseServer(in); err != nil || got != want {
			t.Errorf("%q: %+v %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "valkey", "=path", "name="} {
		if _, err := ParseServer(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestArgs(t *testing.T) {
	got := Options{IOThreads: 4, Extra: []string{"--hz", "10"}}.Args(7000, "/tmp/x")
	want := []string{"--port", "7000", "--bind", "127.0.0.1", "--dir", "/tmp/x", "--save", "", "--appendonly", "no", "--daemonize", "no",
		"--maxmemory", "0", "--maxmemory-policy", "noeviction", "--io-threads", "4", "--hz", "10"}
	if len(got) != len(want) {
		t.Fatalf("%q", got)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("arg %d: %q, want %q", i, got[i], want[i])
		}
	}
	if a := (Options{}).Args(1, "d"); a[len(a)-1] == "--io-threads" || a[len(a)-2] == "--io-threads" {
		t.Fatalf("io-threads 0 passed: %q", a)
	}
}

func TestDiscover(t *testing.T) {
	t.Setenv("PATH", "")
	t.Setenv("CORVID_VALKEY_SERVER", "")
	a, b := t.TempDir(), t.TempDir()
	mk := func(dir, name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	mk(a, "valkey-server", 0o644) // not executable: skipped
	vb := mk(b, "valkey-server", 0o755)
	rb := mk(b, "redis-server", 0o755)
	got := Discover([]string{a, b})
	if len(got) != 2 || got[0] != (Server{"valkey", vb}) || got[1] != (Server{"redis", rb}) {
		t.Fatalf("%+v", got)
	}
	// CORVID_VALKEY_SERVER comes first.
	env := mk(t.TempDir(), "valkey-8", 0o755)
	t.Setenv("CORVID_VALKEY_SERVER", env)
	if got := Discover([]string{b}); got[0].Path != env {
		t.Fatalf("%+v", got)
	}
	// The same binary under both names is listed once.
	c := t.TempDir()
	v := mk(c, "valkey-server", 0o755)
	if err := os.Symlink(v, filepath.Join(c, "redis-server")); err != nil {
		t.Fatal(err)
	}
	t.Setenv("CORVID_VALKEY_SERVER", "")
	if got := Discover([]string{c}); len(got) != 1 || got[0].Name != "valkey" {
		t.Fatalf("%+v", got)
	}
	if got := Discover(nil); len(got) != 0 {
		t.Fatalf("%+v", got)
	}
}

func TestSampleSelf(t *testing.T) {
	u, err := SamplePID(os.Getpid())
	if err != nil {
		t.Skip("no /proc:", err)
	}
	if u.RSS == 0 {
		t.Fatalf("RSS 0: %+v", u)
	}
}

func TestStartFailsCleanly(t *testing.T) {
	_, err := Start(t.Context(), Server{Name: "false", Path: "/bin/false"}, Options{})
	if err == nil {
		t.Fatal("a server that exits at once was reported started")
	}
}
