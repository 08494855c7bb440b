package integration

import (
	"debug/elf"
	"net"
	"os"
	"os/exec"
	"path/filepath"
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
