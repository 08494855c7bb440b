package testutil

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
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

// ServerBinary builds cmd/corvid-server once per test process.
func ServerBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
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
}

// Output returns what the process printed so far.
func (p *Proc) Output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Log.String()
}

// StartCorvid runs corvid-server with args (plus --port, --bind) in a temp
// dir and waits until it answers PING.
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

func start(t testing.TB, bin string, args []string, corvid bool) *Proc {
	t.Helper()
	dir := t.TempDir()
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := FreePort(t)
		full := append([]string{}, args...)
		full = append(full, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir)
		cmd := exec.Command(bin, full...)
		cmd.Dir = dir
		p := &Proc{Cmd: cmd, Port: port, Addr: "127.0.0.1:" + strconv.Itoa(port), Dir: dir, Log: &strings.Builder{}, mu: &sync.Mutex{}}
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = cmd.Stdout
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() {
			sc := bufio.NewScanner(stdout)
			for sc.Scan() {
				p.mu.Lock()
				p.Log.WriteString(sc.Text() + "\n")
				p.mu.Unlock()
			}
		}()
		if err := waitReady(p.Addr, 10*time.Second); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			lastErr = fmt.Errorf("%v\n%s", err, p.Output())
			continue
		}
		t.Cleanup(func() { p.Stop() })
		return p
	}
	t.Fatalf("server did not start: %v", lastErr)
	return nil
}

// Stop kills the process and waits for it.
func (p *Proc) Stop() {
	if p.Cmd.ProcessState != nil {
		return
	}
	p.Cmd.Process.Kill()
	p.Cmd.Wait()
}

func waitReady(addr string, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		conn, err := net.DialTimeout("tcp", addr, 200*time.Millisecond)
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
	return fmt.Errorf("no PONG from %s within %v", addr, timeout)
}
