package integration

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

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
