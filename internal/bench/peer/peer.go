package peer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// ServeEnv, when set in a process's environment, asks corvid-bench (or a
// test binary that supports it) to run as a Corvid server with its
// arguments as server options, so Corvid is measured as a child process
// exactly as the peers are.
const ServeEnv = "CORVID_BENCH_SERVE"

// Self is the Path of a Server that is this executable re-run with
// ServeEnv set.
const Self = "(self)"

// Server is a server to compare: a column name and the binary to run.
type Server struct {
	Name string
	Path string // an executable, or Self
}

// ParseServer reads "name=path".
func ParseServer(s string) (Server, error) {
	name, path, ok := strings.Cut(s, "=")
	if !ok || name == "" || path == "" {
		return Server{}, fmt.Errorf("--server must be name=/path/to/server-binary (or -s host), got %q", s)
	}
	return Server{Name: name, Path: path}, nil
}

// Discover finds valkey-server and redis-server: CORVID_VALKEY_SERVER,
// then each dir in order (e.g. ../shared/bin), then PATH. The first hit
// per name wins; a binary reached by two routes is listed once.
func Discover(dirs []string) []Server {
	var out []Server
	seen := map[string]bool{}
	for _, name := range []string{"valkey", "redis"} {
		bin := name + "-server"
		var cands []string
		if name == "valkey" {
			cands = append(cands, os.Getenv("CORVID_VALKEY_SERVER"))
		}
		for _, d := range dirs {
			cands = append(cands, filepath.Join(d, bin))
		}
		if p, err := exec.LookPath(bin); err == nil {
			cands = append(cands, p)
		}
		for _, c := range cands {
			if !isExec(c) {
				continue
			}
			real, err := filepath.EvalSymlinks(c)
			if err != nil {
				real = c
			}
			if abs, err := filepath.Abs(real); err == nil {
				real = abs
			}
			if seen[real] {
				break
			}
			seen[real] = true
			out = append(out, Server{Name: name, Path: c})
			break
		}
	}
	return out
}

func isExec(p string) bool {
	if p == "" {
		return false
	}
	st, err := os.Stat(p)
	return err == nil && !st.IsDir() && st.Mode()&0o111 != 0
}

// DefaultDirs are the directories Discover searches besides PATH:
// ../shared/bin from the working directory and from the executable's
// directory, and their parents' (the project's machines keep the
// reference binaries there).
func DefaultDirs() []string {
	var dirs []string
	add := func(base string) {
		for i := 0; i < 4 && base != "" && base != "/"; i++ {
			dirs = append(dirs, filepath.Join(base, "..", "shared", "bin"))
			base = filepath.Dir(base)
		}
	}
	if wd, err := os.Getwd(); err == nil {
		add(wd)
	}
	if exe, err := os.Executable(); err == nil {
		add(filepath.Dir(exe))
	}
	return dirs
}

// Options are the settings every server is started with.
type Options struct {
	IOThreads int // 0: leave the server's default
	Extra     []string
}

// Args are the command-line options for one server: loopback only, no
// persistence, no memory limit (noeviction), the io-threads setting.
func (o Options) Args(port int, dir string) []string {
	a := []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--dir", dir,
		"--save", "", "--appendonly", "no", "--daemonize", "no",
		"--maxmemory", "0", "--maxmemory-policy", "noeviction"}
	if o.IOThreads > 0 {
		a = append(a, "--io-threads", strconv.Itoa(o.IOThreads))
	}
	return append(a, o.Extra...)
}

// Proc is a running server.
type Proc struct {
	Server
	Addr string
	cmd  *exec.Cmd
	dir  string
	log  *lockedWriter
	done chan struct{}
	err  error
}

// PID of the server process.
func (p *Proc) PID() int { return p.cmd.Process.Pid }

// Start runs s on a free loopback port and waits until it answers PING.
func Start(ctx context.Context, s Server, o Options) (*Proc, error) {
	dir, err := os.MkdirTemp("", "corvid-bench-"+s.Name+"-")
	if err != nil {
		return nil, err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ { // a free port can be taken before the server binds it
		p, err := start(ctx, s, o, dir)
		if err == nil {
			return p, nil
		}
		lastErr = err
		if ctx.Err() != nil {
			break
		}
	}
	os.RemoveAll(dir)
	return nil, lastErr
}

func start(ctx context.Context, s Server, o Options, dir string) (*Proc, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	bin := s.Path
	var env []string
	if bin == Self {
		if bin, err = os.Executable(); err != nil {
			return nil, err
		}
		env = append(os.Environ(), ServeEnv+"=1")
	}
	cmd := exec.Command(bin, o.Args(port, dir)...)
	cmd.Dir = dir
	cmd.Env = env
	setDeathSig(cmd)
	p := &Proc{Server: s, Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd, dir: dir, log: &lockedWriter{b: &bytes.Buffer{}}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = p.log, p.log
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s (%s): %w", s.Name, s.Path, err)
	}
	go func() { p.err = cmd.Wait(); close(p.done) }()
	if err := p.waitReady(ctx, 20*time.Second); err != nil {
		p.kill()
		return nil, fmt.Errorf("%s (%s) did not start on %s: %v\n%s", s.Name, s.Path, p.Addr, err, tail(p.Log(), 800))
	}
	return p, nil
}

func (p *Proc) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-p.done:
			return fmt.Errorf("exited: %v", p.err)
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		if c, err := wire.Dial("tcp", p.Addr, time.Second); err == nil {
			_ = c.SetDeadline(time.Now().Add(2 * time.Second))
			v, err := c.Do("PING")
			c.Close()
			if err == nil && v.Err() == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Stop ends the server (SIGTERM, then SIGKILL after 5 s) and removes its
// directory.
func (p *Proc) Stop() {
	if p == nil {
		return
	}
	select {
	case <-p.done:
	default:
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			p.kill()
		}
	}
	os.RemoveAll(p.dir)
}

func (p *Proc) kill() {
	_ = p.cmd.Process.Kill()
	<-p.done
}

// Log is what the server printed so far.
func (p *Proc) Log() string { return p.log.String() }

// Usage is a process's resource use at one moment.
type Usage struct {
	CPU time.Duration // utime+stime, all threads
	RSS uint64        // bytes
}

// Sample reads the server's CPU time and RSS from /proc.
func (p *Proc) Sample() (Usage, error) { return SamplePID(p.PID()) }

// clockTicks is USER_HZ, 100 on every Linux architecture Go supports.
const clockTicks = 100

// SamplePID reads /proc/PID/stat (utime, stime) and /proc/PID/status
// (VmRSS).
func SamplePID(pid int) (Usage, error) {
	if runtime.GOOS != "linux" {
		return Usage{}, errors.New("needs /proc (Linux)")
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Usage{}, err
	}
	u, err := ParseStat(string(b))
	if err != nil {
		return Usage{}, err
	}
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid)); err == nil {
		u.RSS = ParseVmRSS(string(st))
	}
	return u, nil
}

// ParseStat reads utime+stime from a /proc/PID/stat line. The command
// name (field 2) may hold spaces and parentheses, so fields are counted
// from the last ')'.
func ParseStat(s string) (Usage, error) {
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return Usage{}, fmt.Errorf("malformed /proc stat %q", tail(s, 80))
	}
	f := strings.Fields(s[i+1:])
	// f[0] is field 3 (state); utime is field 14, stime field 15.
	if len(f) < 13 {
		return Usage{}, fmt.Errorf("short /proc stat %q", tail(s, 80))
	}
	ut, err1 := strconv.ParseUint(f[11], 10, 64)
	st, err2 := strconv.ParseUint(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return Usage{}, fmt.Errorf("malformed /proc stat times %q %q", f[11], f[12])
	}
	return Usage{CPU: time.Duration(ut+st) * time.Second / clockTicks}, nil
}

// ParseVmRSS reads the VmRSS line ("VmRSS:    1234 kB") of
// /proc/PID/status; 0 when absent.
func ParseVmRSS(s string) uint64 {
	for _, l := range strings.Split(s, "\n") {
		if rest, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) >= 1 {
				n, err := strconv.ParseUint(f[0], 10, 64)
				if err == nil {
					return n * 1024
				}
			}
		}
	}
	return 0
}

// FreePort asks the kernel for an unused loopback port.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// Version runs the binary with --version and returns its first line
// ("" when it fails); for Self it is "".
func Version(s Server) string {
	if s.Path == Self {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, s.Path, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
