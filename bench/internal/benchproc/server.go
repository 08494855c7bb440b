package benchproc

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// FreePorts picks n distinct loopback TCP ports that were free a moment
// ago, never 6379: it binds 127.0.0.1:0 until it has n, holding every
// listener until all are chosen, then closes them for the servers to use.
func FreePorts(n int) ([]int, error) {
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	var ports []int
	for len(ports) < n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("picking a free port: %w", err)
		}
		lns = append(lns, l)
		if p := l.Addr().(*net.TCPAddr).Port; p != 6379 {
			ports = append(ports, p)
		}
	}
	return ports, nil
}

// FreePort is a loopback TCP port that was free a moment ago (never 6379).
func FreePort() (int, error) {
	ps, err := FreePorts(1)
	if err != nil {
		return 0, err
	}
	return ps[0], nil
}

// Build runs `go build -o out pkg` in dir ("" for the current directory).
// The compiler's output goes to log; with a nil log it is kept and added to
// the error instead.
func Build(ctx context.Context, dir, out, pkg string, log io.Writer) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Dir = dir
	var buf bytes.Buffer
	if log == nil {
		log = &buf
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Run(); err != nil {
		if buf.Len() > 0 {
			return fmt.Errorf("go build %s: %w\n%s", pkg, err, buf.Bytes())
		}
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// ModuleRoot is the directory of the main module's go.mod.
func ModuleRoot() (string, error) {
	mod, err := Output("", "go", "env", "GOMOD")
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	if mod == "" || mod == os.DevNull {
		return "", fmt.Errorf("not inside the corvid module")
	}
	return filepath.Dir(mod), nil
}

// Spec says how to start a server.
type Spec struct {
	Name string   // for messages: "corvid", "redis", ...
	Argv []string // the binary and its arguments
	Port int      // the 127.0.0.1 port Argv makes it listen on
	Dir  string   // its working directory
	Log  string   // the file its stdout and stderr go to (created)
	Env  []string // added to this process's environment ("K=V")
	// StopGrace is how long Stop waits after SIGTERM before it sends
	// SIGKILL; 0 means 10 s.
	StopGrace time.Duration
}

// Server is a server process started by Start.
type Server struct {
	Spec
	Addr    string // 127.0.0.1:Port
	cmd     *exec.Cmd
	done    chan struct{} // closed when the process has exited
	waitErr error         // what Wait returned; read after done is closed
}

// Start starts sp.Argv in its own process group, with SIGKILL should this
// program die (Pdeathsig), and returns without waiting for it to listen
// (see WaitReady). StopAll stops it unless Stop did.
func Start(sp Spec) (*Server, error) {
	if len(sp.Argv) == 0 {
		return nil, fmt.Errorf("starting %s: no command", sp.Name)
	}
	lf, err := os.Create(sp.Log)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(sp.Argv[0], sp.Argv[1:]...)
	cmd.Dir = sp.Dir
	if len(sp.Env) > 0 {
		cmd.Env = append(os.Environ(), sp.Env...)
	}
	cmd.Stdout, cmd.Stderr = lf, lf
	// Own session, as a server run as a service has: the kernel schedules
	// it in its own group (autogroup; systemd gives each service a cgroup)
	// rather than as threads of the load generator's group, which changes
	// who preempts whom on a 2-core machine by 10-30% for pipeline 1
	// (docs/benchmarks-archive.md, "Scheduling groups"); every server is started
	// the same way. The new session is also a new process group, so a
	// terminal's Ctrl-C reaches only this program, which then stops the
	// servers itself; Pdeathsig kills them if it dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	lf.Close() // the child has its own copy
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", sp.Name, err)
	}
	s := &Server{Spec: sp, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(sp.Port)), cmd: cmd, done: make(chan struct{})}
	go func() { s.waitErr = cmd.Wait(); close(s.done) }()
	live.add(s)
	return s, nil
}

// PID is the server's process id.
func (s *Server) PID() int { return s.cmd.Process.Pid }

// Exited reports whether the process has ended.
func (s *Server) Exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// WaitReady polls PING every 50 ms until the server answers with anything
// but an error reply (a null server's +OK counts), the process exits, ctx
// ends or limit has passed.
func (s *Server) WaitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		if s.Exited() {
			return fmt.Errorf("%s exited before answering PING (%v)", s.Name, s.waitErr)
		}
		err := ping(s.Addr, 2*time.Second)
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not answer PING on %s after %v (last error: %v)", s.Name, s.Addr, limit, err)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func ping(addr string, timeout time.Duration) error {
	c, err := wire.Dial("tcp", addr, timeout)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(timeout))
	_, err = Do(c, "PING")
	return err
}

// Stop ends the server with SIGTERM, SIGKILL after StopGrace, and waits
// for it. It may be called more than once, also concurrently.
func (s *Server) Stop() {
	live.remove(s)
	if s.Exited() {
		return
	}
	grace := s.StopGrace
	if grace <= 0 {
		grace = 10 * time.Second
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(grace):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// LogTail is the last n bytes of the server's output, for error messages.
func (s *Server) LogTail(n int) string {
	b, _ := os.ReadFile(s.Log)
	return Tail(b, n)
}

// RSSKiB is the server's VmRSS in KiB.
func (s *Server) RSSKiB() (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.PID()))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(b)
}

// CPUTicks is the server's utime+stime so far, in clock ticks (see
// ClockTicks).
func (s *Server) CPUTicks() (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.PID()))
	if err != nil {
		return 0, err
	}
	u, st, err := parseStatCPU(b)
	return u + st, err
}

// CPUTime is CPUTicks as a duration.
func (s *Server) CPUTime() (time.Duration, error) {
	t, err := s.CPUTicks()
	return ticksDuration(t, ClockTicks()), err
}

// liveSet holds the started servers not stopped yet.
type liveSet struct {
	mu sync.Mutex
	m  map[*Server]bool
}

var live = liveSet{m: map[*Server]bool{}}

func (l *liveSet) add(s *Server) {
	l.mu.Lock()
	l.m[s] = true
	l.mu.Unlock()
}

func (l *liveSet) remove(s *Server) {
	l.mu.Lock()
	delete(l.m, s)
	l.mu.Unlock()
}

// StopAll stops every server Start started that is not stopped yet.
func StopAll() {
	live.mu.Lock()
	var all []*Server
	for s := range live.m {
		all = append(all, s)
	}
	live.mu.Unlock()
	for _, s := range all {
		s.Stop()
	}
}

// Do sends one command on c and reads its reply. An error reply is
// returned as the error, "<command line>: <message>" wrapping the
// *wire.ServerError (see wire.IsServerError).
func Do(c *wire.Conn, args ...string) (wire.Value, error) {
	v, err := c.Do(args...)
	if err != nil {
		return v, err
	}
	if e := v.Err(); e != nil {
		return v, fmt.Errorf("%s: %w", strings.Join(args, " "), e)
	}
	return v, nil
}

// DoInt is Do for a command that replies with an integer.
func DoInt(c *wire.Conn, args ...string) (int64, error) {
	v, err := Do(c, args...)
	if err != nil {
		return 0, err
	}
	if v.Type != ':' {
		return 0, fmt.Errorf("%s: want an integer reply, got %s", strings.Join(args, " "), v.Text())
	}
	return v.Int, nil
}

// FindValkey resolves the valkey-server binary the way the tests do
// (testutil.ValkeyServerPath): flagged if given (an error if it is not
// there), else $CORVID_VALKEY_SERVER, else ../shared/bin/valkey-server
// beside the module root, else PATH.
func FindValkey(flagged, root string) (string, error) {
	for _, p := range []string{flagged, os.Getenv("CORVID_VALKEY_SERVER"), filepath.Join(root, "..", "shared", "bin", "valkey-server")} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		if flagged != "" {
			return "", fmt.Errorf("valkey-server %s not found", flagged)
		}
	}
	return exec.LookPath("valkey-server")
}
