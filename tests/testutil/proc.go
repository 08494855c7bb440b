package testutil

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// RepoRoot finds the module root from this source file's location.
func RepoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// ServerBinary builds cmd/corvid-server once per test process. The
// environment variable CORVID_SERVER_BIN names a prebuilt binary to use
// instead (to test a release build, or a snapshot while the tree is being
// edited).
func ServerBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		if p := os.Getenv("CORVID_SERVER_BIN"); p != "" {
			if _, err := os.Stat(p); err != nil {
				buildErr = fmt.Errorf("CORVID_SERVER_BIN: %v", err)
			}
			binPath = p
			return
		}
		dir, err := os.MkdirTemp("", "corvid-bin-")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "corvid-server")
		args := []string{"build", "-o", binPath}
		if raceEnabled {
			args = append(args, "-race")
		}
		args = append(args, "./cmd/corvid-server")
		cmd := exec.Command("go", args...)
		cmd.Dir = RepoRoot()
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// Proc is a running server process.
type Proc struct {
	Cmd  *exec.Cmd
	Port int
	Addr string
	Dir  string
	Log  *strings.Builder
	mu   *sync.Mutex

	// done is closed once the process has exited and its output has been
	// fully captured; exitErr is Wait's result (read only after done).
	done    chan struct{}
	exitErr error
}

// Output returns what the process printed so far (stdout and stderr).
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Log.String()
}

// logWriter appends process output to the Proc's log under its mutex.
type logWriter struct{ p *Proc }

func (w logWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	w.p.Log.Write(b)
	w.p.mu.Unlock()
	return len(b), nil
}

// WithNetEngine adds "--net-engine E" to a Corvid server's arguments when
// the environment variable CORVID_TEST_NET_ENGINE names one (io_uring,
// epoll or goroutine) and args do not choose one already: CI runs the
// server and integration tests a second time with "goroutine", the path
// the event loops are checked against. A setting of the test harness, not
// of the server, which has none in its environment.
func WithNetEngine(args []string) []string {
	e := os.Getenv("CORVID_TEST_NET_ENGINE")
	if e == "" || slices.Contains(args, "--net-engine") {
		return args
	}
	return append(slices.Clip(args), "--net-engine", e)
}

// StartCorvid runs corvid-server with args (plus --port, --bind) in a temp
// dir and waits until it answers PING. A configuration file, if any, must
// be the first arg and an absolute path (the process runs in its temp dir).
func StartCorvid(t testing.TB, args ...string) *Proc {
	t.Helper()
	return start(t, ServerBinary(t), args, true)
}

// RedisServerPath returns the path of redis-server, or skips the test.
func RedisServerPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("redis-server")
	if err != nil {
		if os.Getenv("CORVID_REQUIRE_REDIS") != "" {
			t.Fatal("redis-server not installed but CORVID_REQUIRE_REDIS is set")
		}
		t.Skip("redis-server not installed; differential test skipped")
	}
	return p
}

// StartRedis runs redis-server with no persistence on a free port.
func StartRedis(t testing.TB, args ...string) *Proc {
	t.Helper()
	bin := RedisServerPath(t)
	base := []string{"--save", "", "--appendonly", "no", "--daemonize", "no"}
	return start(t, bin, append(base, args...), false)
}

// ValkeyServerPath returns the path of valkey-server 8.0.1, Corvid's
// reference peer, or skips the test. It looks, in order, at
// CORVID_VALKEY_SERVER, at ../shared/bin/valkey-server beside the
// repository (where the project's machines and CI keep the reference
// binaries), and on PATH. With CORVID_REQUIRE_VALKEY set a missing peer
// fails the test instead of skipping it.
func ValkeyServerPath(t testing.TB) string {
	t.Helper()
	if p := ValkeyServerLookup(); p != "" {
		return p
	}
	if os.Getenv("CORVID_REQUIRE_VALKEY") != "" {
		t.Fatal("valkey-server not found but CORVID_REQUIRE_VALKEY is set")
	}
	t.Skip("valkey-server not found (CORVID_VALKEY_SERVER, ../shared/bin, PATH); differential test skipped")
	return ""
}

// HaveValkey reports whether valkey-server is found, for a test whose
// Valkey part is optional (Corvid's part runs either way). A missing peer
// fails the test when CORVID_REQUIRE_VALKEY is set, and is logged
// otherwise.
func HaveValkey(t testing.TB) bool {
	t.Helper()
	if ValkeyServerLookup() != "" {
		return true
	}
	if os.Getenv("CORVID_REQUIRE_VALKEY") != "" {
		t.Fatal("valkey-server not found but CORVID_REQUIRE_VALKEY is set")
	}
	t.Log("valkey-server not found (CORVID_VALKEY_SERVER, ../shared/bin, PATH): the comparison with Valkey is skipped")
	return false
}

// ValkeyServerLookup is ValkeyServerPath without a test: "" when absent.
func ValkeyServerLookup() string {
	cands := []string{os.Getenv("CORVID_VALKEY_SERVER"),
		filepath.Join(RepoRoot(), "..", "shared", "bin", "valkey-server")}
	if p, err := exec.LookPath("valkey-server"); err == nil {
		cands = append(cands, p)
	}
	for _, p := range cands {
		if p == "" {
			continue
		}
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// StartValkey runs valkey-server with no persistence on a free port.
func StartValkey(t testing.TB, args ...string) *Proc {
	t.Helper()
	bin := ValkeyServerPath(t)
	base := []string{"--save", "", "--appendonly", "no", "--daemonize", "no"}
	return start(t, bin, append(base, args...), false)
}

// launch starts bin with args plus loopback-only --port/--bind/--dir
// overrides (so a process never listens anywhere but 127.0.0.1, whatever
// its configuration file says) and captures its output.
func launch(t testing.TB, bin string, args []string, dir string) *Proc {
	t.Helper()
	port := FreePort(t)
	full := append([]string{}, args...)
	full = append(full, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir)
	return spawn(t, exec.Command(bin, full...), dir, port)
}

func start(t testing.TB, bin string, args []string, corvid bool) *Proc {
	t.Helper()
	return startIn(t, t.TempDir(), bin, args, corvid)
}

// StartCorvidIn is StartCorvid with dir as the server's working directory
// and dir (where it saves and loads dump.rdb): a test that restarts a
// server on its files starts the second one in the first one's Dir.
func StartCorvidIn(t testing.TB, dir string, args ...string) *Proc {
	t.Helper()
	return startIn(t, dir, ServerBinary(t), args, true)
}

// StartValkeyIn is StartValkey in dir, with save points off unless args
// set them.
func StartValkeyIn(t testing.TB, dir string, args ...string) *Proc {
	t.Helper()
	base := []string{"--save", "", "--appendonly", "no", "--daemonize", "no"}
	return startIn(t, dir, ValkeyServerPath(t), append(base, args...), false)
}

func startIn(t testing.TB, dir, bin string, args []string, corvid bool) *Proc {
	t.Helper()
	if corvid {
		args = WithNetEngine(args)
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		p := launch(t, bin, args, dir)
		if err := waitReady(p, 10*time.Second); err != nil {
			p.Stop()
			lastErr = fmt.Errorf("%v\n%s", err, p.Output())
			continue
		}
		t.Cleanup(func() { p.Stop() })
		return p
	}
	t.Fatalf("server did not start: %v", lastErr)
	return nil
}

// Stop kills the process (if it is still running) and waits for it.
func (p *Proc) Stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.Cmd.Process.Kill()
	<-p.done
}

// Exited reports whether the process has exited.
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) error { return p.Cmd.Process.Signal(sig) }

// WaitExit waits up to timeout for the process to exit by itself and
// returns its exit code (-1 if it was killed by a signal). ok is false on
// timeout; the process is then left running (t.Cleanup kills it).
func (p *Proc) WaitExit(timeout time.Duration) (code int, ok bool) {
	select {
	case <-p.done:
		return exitCode(p.exitErr), true
	case <-time.After(timeout):
		return 0, false
	}
}

func exitCode(err error) int {
	if err == nil {
		return 0
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return -1
		}
		return ee.ExitCode()
	}
	return -1
}

// LaunchCorvid starts corvid-server like StartCorvid but returns at once,
// without waiting for it to answer, for tests of start-up failures and
// daemonization. The process is killed in t.Cleanup if still running.
func LaunchCorvid(t testing.TB, args ...string) *Proc {
	t.Helper()
	p := launch(t, ServerBinary(t), args, t.TempDir())
	t.Cleanup(p.Stop)
	return p
}

// LaunchCorvidIn is LaunchCorvid in dir (its working directory and
// dir), for a test that watches a server start on files already there.
func LaunchCorvidIn(t testing.TB, dir string, args ...string) *Proc {
	t.Helper()
	p := launch(t, ServerBinary(t), WithNetEngine(args), dir)
	t.Cleanup(p.Stop)
	return p
}

// RunCorvid runs corvid-server with args (plus loopback --port/--bind/--dir
// overrides, as StartCorvid) and waits up to timeout for it to exit, for
// tests of start-up failures. It returns everything the process printed
// and its exit code; if the process is still running after timeout it is
// killed and the test fails.
func RunCorvid(t testing.TB, timeout time.Duration, args ...string) (output string, code int) {
	t.Helper()
	p := LaunchCorvid(t, args...)
	code, ok := p.WaitExit(timeout)
	if !ok {
		p.Stop()
		t.Fatalf("corvid-server %v still running after %v; output:\n%s", args, timeout, p.Output())
	}
	return p.Output(), code
}

// waitReady polls until the server answers PING (or NOAUTH when a password
// is set), the process exits, or timeout passes.
func waitReady(p *Proc, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if p.Exited() {
			return fmt.Errorf("process exited before answering PING: %v", p.exitErr)
		}
		conn, err := net.DialTimeout("tcp", p.Addr, 200*time.Millisecond)
		if err == nil {
			conn.SetDeadline(time.Now().Add(time.Second))
			conn.Write([]byte("PING\r\n"))
			buf := make([]byte, 64)
			n, _ := conn.Read(buf)
			conn.Close()
			if n > 0 && (strings.HasPrefix(string(buf[:n]), "+PONG") || strings.HasPrefix(string(buf[:n]), "-NOAUTH")) {
				return nil
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("no PONG from %s within %v", p.Addr, timeout)
}

// RunAs runs bin with argv[0] set to argv0 ("" keeps bin's path; tools
// that pick their mode from their name, as valkey-server run as
// valkey-check-aof does), stdin fed from stdin, and waits up to a minute.
// It returns the exit status and everything printed; a binary that does
// not run or exit fails the test.
func RunAs(t testing.TB, bin, argv0, stdin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	if argv0 != "" {
		cmd.Args[0] = argv0
	}
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0, string(out)
	case errors.As(err, &ee) && ee.ExitCode() > 0:
		return ee.ExitCode(), string(out)
	}
	t.Fatalf("%s %q: %v\n%s", argv0, args, err, out)
	return 0, ""
}

// spawn starts cmd in dir for a process that will listen on
// 127.0.0.1:port, capturing its output (complete once it exited).
func spawn(t testing.TB, cmd *exec.Cmd, dir string, port int) *Proc {
	t.Helper()
	cmd.Dir = dir
	p := &Proc{Cmd: cmd, Port: port, Addr: "127.0.0.1:" + strconv.Itoa(port), Dir: dir,
		Log: &strings.Builder{}, mu: &sync.Mutex{}, done: make(chan struct{})}
	// An io.Writer (not a pipe we read ourselves) makes Wait return only
	// after all output was copied, so Output is complete after exit.
	cmd.Stdout = logWriter{p}
	cmd.Stderr = logWriter{p}
	setDeathSig(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		p.exitErr = cmd.Wait()
		close(p.done)
	}()
	return p
}
