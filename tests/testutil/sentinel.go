package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// SentinelLookup finds valkey-sentinel (Valkey 8.0.1's Sentinel, the
// server binary run under that name): it returns the file to execute and
// the argv[0] to give it, or "" when there is none. It looks, in order,
// at CORVID_VALKEY_SENTINEL, at ../shared/bin/valkey-sentinel beside the
// repository, and on PATH. valkey-sentinel is a link to valkey-server (the
// server picks its mode from its name); a link that was copied as a small
// text file naming its target (as some archive tools leave it) is
// followed by hand: the target runs with argv[0] "valkey-sentinel",
// exactly what executing the link does. Failing those, valkey-server
// itself (ValkeyServerLookup) runs under that name.
func SentinelLookup() (bin, argv0 string) {
	cands := []string{os.Getenv("CORVID_VALKEY_SENTINEL"),
		filepath.Join(RepoRoot(), "..", "shared", "bin", "valkey-sentinel")}
	if p, err := exec.LookPath("valkey-sentinel"); err == nil {
		cands = append(cands, p)
	}
	for _, p := range cands {
		if p == "" {
			continue
		}
		st, err := os.Stat(p)
		if err != nil || st.IsDir() {
			continue
		}
		if st.Mode()&0o111 != 0 {
			return p, ""
		}
		if st.Size() > 256 {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		target := strings.TrimSpace(string(b))
		if target == "" || strings.ContainsAny(target, "\n\x00") {
			continue
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(p), target)
		}
		if tst, err := os.Stat(target); err == nil && !tst.IsDir() && tst.Mode()&0o111 != 0 {
			return target, "valkey-sentinel"
		}
	}
	// Sentinel is valkey-server under another name: the server the other
	// differential tests use (CORVID_VALKEY_SERVER in CI) will do.
	if p := ValkeyServerLookup(); p != "" {
		return p, "valkey-sentinel"
	}
	return "", ""
}

// SentinelPath is SentinelLookup for a test: it skips the test when no
// valkey-sentinel is found (and fails it when CORVID_REQUIRE_VALKEY is
// set).
func SentinelPath(t testing.TB) (bin, argv0 string) {
	t.Helper()
	bin, argv0 = SentinelLookup()
	if bin != "" {
		return bin, argv0
	}
	if os.Getenv("CORVID_REQUIRE_VALKEY") != "" {
		t.Fatal("valkey-sentinel not found but CORVID_REQUIRE_VALKEY is set")
	}
	t.Skip("valkey-sentinel not found (CORVID_VALKEY_SENTINEL, ../shared/bin, PATH); sentinel test skipped")
	return "", ""
}

// SentinelConf is the configuration file of one test sentinel: it
// monitors masterName at 127.0.0.1:masterPort with quorum, listens on
// 127.0.0.1:port and works in dir; extra lines are appended.
func SentinelConf(port int, dir, masterName string, masterPort, quorum int, extra ...string) string {
	lines := []string{
		"port " + strconv.Itoa(port),
		"bind 127.0.0.1",
		"dir " + dir,
		"sentinel monitor " + masterName + " 127.0.0.1 " + strconv.Itoa(masterPort) + " " + strconv.Itoa(quorum),
	}
	lines = append(lines, extra...)
	return strings.Join(lines, "\n") + "\n"
}

// StartSentinel writes conf (which must set port, bind 127.0.0.1 and dir,
// as SentinelConf does) to dir/sentinel.conf, a file Sentinel can
// rewrite, runs valkey-sentinel on it in dir and waits until it answers
// PING. Its log (Sentinel logs to standard output) is the Proc's Output.
// It is killed in t.Cleanup.
func StartSentinel(t testing.TB, dir string, port int, conf string) *Proc {
	t.Helper()
	bin, argv0 := SentinelPath(t)
	path := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startAt(t, bin, argv0, []string{path}, dir, port)
	if err := waitReady(p, 10*time.Second); err != nil {
		t.Fatalf("sentinel did not start: %v\n%s", err, p.Output())
	}
	return p
}

// StartCorvidAt is StartCorvidIn on a port of the test's choosing: a
// server the test killed comes back at its address (Sentinel knows
// instances by address). A configuration file, if any, must be the first
// arg and an absolute path.
func StartCorvidAt(t testing.TB, dir string, port int, args ...string) *Proc {
	t.Helper()
	full := append(slices.Clip(WithNetEngine(args)), "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir)
	p := startAt(t, ServerBinary(t), "", full, dir, port)
	if err := waitReady(p, 10*time.Second); err != nil {
		t.Fatalf("server did not start on port %d: %v\n%s", port, err, p.Output())
	}
	return p
}

// startAt runs bin (as argv0 when not "") with args in dir, capturing its
// output, for a process listening on 127.0.0.1:port; it is killed in
// t.Cleanup.
func startAt(t testing.TB, bin, argv0 string, args []string, dir string, port int) *Proc {
	t.Helper()
	cmd := exec.Command(bin, args...)
	if argv0 != "" {
		cmd.Args[0] = argv0
	}
	p := spawn(t, cmd, dir, port)
	t.Cleanup(p.Stop)
	return p
}
