package integration

import (
	"debug/elf"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// The operator's files in contrib/: the systemd unit passes systemd's own
// check, and the container recipe's build makes a static binary that
// runs.

// TestSystemdUnit runs systemd-analyze verify on contrib/systemd's unit
// (its ExecStart pointed at the binary under test), when systemd-analyze
// is installed.
func TestSystemdUnit(t *testing.T) {
	analyze, err := exec.LookPath("systemd-analyze")
	if err != nil {
		t.Skip("systemd-analyze not installed")
	}
	unit, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "contrib", "systemd", "corvid.service"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(unit), "Type=notify") || !strings.Contains(string(unit), "--supervised systemd") {
		t.Fatal("the unit must wait for the server's readiness (Type=notify, --supervised systemd)")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "corvid.service")
	text := strings.ReplaceAll(string(unit), "/usr/local/bin/corvid-server", testutil.ServerBinary(t))
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(analyze, "verify", path).CombinedOutput()
	if err != nil || len(strings.TrimSpace(string(out))) > 0 {
		t.Fatalf("systemd-analyze verify: %v\n%s", err, out)
	}
}

// TestContainerBuild builds the server as contrib/container/Containerfile
// does (CGO_ENABLED=0, -trimpath, stripped) and checks the binary is
// static (no ELF interpreter, so an empty image can run it) and starts.
func TestContainerBuild(t *testing.T) {
	recipe, err := os.ReadFile(filepath.Join(testutil.RepoRoot(), "contrib", "container", "Containerfile"))
	if err != nil {
		t.Fatal(err)
	}
	const build = `CGO_ENABLED=0 go build -trimpath -ldflags="-s -w"`
	if !strings.Contains(string(recipe), build) {
		t.Fatalf("the recipe no longer builds with %s: update this test with it", build)
	}
	bin := filepath.Join(t.TempDir(), "corvid-server")
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, "./cmd/corvid-server")
	cmd.Dir = testutil.RepoRoot()
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	f, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			t.Fatal("the binary has an ELF interpreter: it is not static")
		}
	}
	out, err := exec.Command(bin, "--version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "v=") {
		t.Fatalf("--version: %v %q", err, out)
	}
}

// TestSyslog: with syslog-enabled yes the log lines also go to syslog,
// under syslog-ident and syslog-facility, at their level's priority.
func TestSyslog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	sock, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer sock.Close()
	t.Setenv("CORVID_SYSLOG_SOCKET", path)
	testutil.StartCorvid(t, "--syslog-enabled", "yes", "--syslog-ident", "corvidtest", "--syslog-facility", "local3")
	buf := make([]byte, 4096)
	for {
		sock.SetReadDeadline(time.Now().Add(10 * time.Second))
		n, err := sock.Read(buf)
		if err != nil {
			t.Fatalf("no ready line in syslog: %v", err)
		}
		m := string(buf[:n])
		if !strings.Contains(m, "Ready to accept connections") {
			continue
		}
		// local3 (19) * 8 + notice (5) = 157.
		if !strings.HasPrefix(m, "<157>") || !strings.Contains(m, "corvidtest[") {
			t.Fatalf("syslog line %q", m)
		}
		return
	}
}

// TestRedisExporter: redis_exporter (Debian's prometheus-redis-exporter,
// what operators run beside Valkey) exports the same metric families from
// Corvid as from valkey-server 8.0.1 after the same commands, and the
// same label values for the commands and databases they touched, so
// dashboards and alerts built on it work unchanged.
func TestRedisExporter(t *testing.T) {
	exporter, err := exec.LookPath("prometheus-redis-exporter")
	if err != nil {
		if os.Getenv("CORVID_REQUIRE_EXPORTER") != "" {
			t.Fatal("prometheus-redis-exporter not installed but CORVID_REQUIRE_EXPORTER is set")
		}
		t.Skip("prometheus-redis-exporter not installed")
	}
	if !testutil.HaveValkey(t) {
		return
	}
	scrape := func(addr string) map[string]bool {
		port := testutil.FreePort(t)
		cmd := exec.Command(exporter, "-redis.addr", "redis://"+addr, "-web.listen-address", fmt.Sprintf("127.0.0.1:%d", port))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		url := fmt.Sprintf("http://127.0.0.1:%d/metrics", port)
		var body []byte
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			resp, err := http.Get(url)
			if err != nil {
				continue
			}
			body, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil && strings.Contains(string(body), "redis_up 1") {
				break
			}
		}
		if !strings.Contains(string(body), "redis_up 1") {
			t.Fatalf("the exporter did not reach %s:\n%.2000s", addr, body)
		}
		out := map[string]bool{}
		for _, line := range strings.Split(string(body), "\n") {
			if line == "" || line[0] == '#' {
				continue
			}
			name := line[:strings.IndexAny(line, "{ ")]
			out[name] = true
			// The label values that name what the commands touched.
			for _, l := range []string{`cmd="set"`, `cmd="get"`, `cmd="lpush"`, `cmd="hset"`, `db="db0"`, `db="db3"`} {
				if strings.Contains(line, l) {
					out[name+"{"+l+"}"] = true
				}
			}
		}
		return out
	}
	load := func(addr string) {
		c := testutil.Dial(t, addr)
		// Both servers answer while they load: wait for the end of the
		// load, and start the statistics from zero, so that no LOADING
		// error of a slow start shows as an error family.
		for deadline := time.Now().Add(10 * time.Second); !strings.Contains(c.Do("INFO", "persistence"), "loading:0"); {
			if time.Now().After(deadline) {
				t.Fatalf("%s still loading", addr)
			}
			time.Sleep(10 * time.Millisecond)
		}
		c.Do("CONFIG", "RESETSTAT")
		for _, args := range [][]string{{"SET", "a", "1"}, {"GET", "a"}, {"LPUSH", "l", "x"}, {"HSET", "h", "f", "v"},
			{"SELECT", "3"}, {"SET", "b", "2", "EX", "100"}} {
			if r := c.Do(args...); strings.HasPrefix(r, "-") {
				t.Fatalf("%s %q: %s", addr, args, r)
			}
		}
	}
	cv, vk := testutil.StartCorvid(t).Addr, testutil.StartValkey(t).Addr
	load(cv)
	load(vk)
	got, want := scrape(cv), scrape(vk)
	for name := range want {
		if !got[name] {
			t.Errorf("exported for Valkey, not for Corvid: %s", name)
		}
	}
	for name := range got {
		if !want[name] {
			t.Errorf("exported for Corvid, not for Valkey: %s", name)
		}
	}
}

// TestKeylessArgvLocks: a command whose argv the key specs find no key in
// (PFMERGE with its destination only, which Valkey's COMMAND GETKEYS
// calls invalid) still creates its key under that key's stripe: run many
// of them in fresh databases, so that they create the databases' shards
// while the background jobs (active expiry, rehashing) walk the stripes,
// and let the race detector (the server is built with -race when the
// tests are) report any access without the stripe.
func TestKeylessArgvLocks(t *testing.T) {
	p := testutil.StartCorvid(t, "--hz", "100")
	c := testutil.Dial(t, p.Addr)
	for db := 0; db < 16; db++ {
		c.Do("SELECT", strconv.Itoa(db))
		for i := 0; i < 200; i++ {
			if r := c.Do("PFMERGE", "d"+strconv.Itoa(i)); r != "+OK" {
				t.Fatalf("PFMERGE: %s", r)
			}
		}
	}
	if r := c.Do("DBSIZE"); r != ":200" {
		t.Fatalf("DBSIZE %s", r)
	}
	c.Do("PING")
	if out := p.Output(); strings.Contains(out, "DATA RACE") {
		t.Fatalf("the server reported a data race:\n%s", out)
	}
}
