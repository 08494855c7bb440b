package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/matrix"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// spec is a server to start: name, binary, arguments after --port P.
type spec struct {
	name string
	bin  string
	args func(port int) []string
	data bool // a real store: FLUSHALL before runs, prefill before GET
}

func serverSpecs(c *config, tmp string) []spec {
	redisArgs := func(port int) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--maxmemory", "4gb", "--maxmemory-policy", "allkeys-lru", "--dir", tmp}
	}
	specs := []spec{
		{name: "corvid", bin: filepath.Join(tmp, "corvid-server"), data: true, args: func(port int) []string {
			return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--maxmemory", "4gb", "--maxmemory-policy", "allkeys-lru"}
		}},
		{name: "redis", bin: "redis-server", data: true, args: redisArgs},
	}
	if c.redisIO2 {
		specs = append(specs, spec{name: "redis-io2", bin: "redis-server", data: true, args: func(port int) []string {
			return append(redisArgs(port), "--io-threads", "2", "--io-threads-do-reads", "yes")
		}})
	}
	if c.corvidIO2 {
		specs = append(specs, spec{name: "corvid-io2", bin: filepath.Join(tmp, "corvid-server"), data: true, args: func(port int) []string {
			return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--maxmemory", "4gb", "--maxmemory-policy", "allkeys-lru", "--io-threads", "2"}
		}})
	}
	if c.null {
		specs = append(specs, spec{name: "null", bin: filepath.Join(tmp, "nullserver"), args: func(port int) []string {
			// Corvid's default network path on this machine: one event
			// loop (io-threads 1 on 2 cores, see server.defaultLoops)
			// waiting in a raw epoll_wait.
			return []string{"-port", strconv.Itoa(port), "-mode", "epoll", "-loops", "1", "-rawblock"}
		}})
	}
	return specs
}

// freePorts picks n distinct free loopback ports (never 6379): it binds
// 127.0.0.1:0 n times, holding every listener until all are chosen, then
// closes them for the servers to reuse.
func freePorts(n int) ([]int, error) {
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

func goBuild(ctx context.Context, out, pkg string) error {
	cmd := exec.CommandContext(ctx, "go", "build", "-o", out, pkg)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %w", pkg, err)
	}
	return nil
}

// server is a started server process.
type server struct {
	name string
	port int
	pid  int
	data bool
	argv []string
	log  string
	cmd  *exec.Cmd
	done chan struct{} // closed when the process has exited
}

func (s *server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }

func startServer(sp spec, port int, tmp string) (*server, error) {
	argv := append([]string{sp.bin}, sp.args(port)...)
	logPath := filepath.Join(tmp, sp.name+".log")
	lf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = tmp
	cmd.Stdout, cmd.Stderr = lf, lf
	// Own process group: a terminal Ctrl-C reaches only this program, which
	// then stops the servers itself; Pdeathsig kills them if it dies.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	err = cmd.Start()
	lf.Close()
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", sp.name, err)
	}
	s := &server{name: sp.name, port: port, pid: cmd.Process.Pid, data: sp.data, argv: argv, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() { cmd.Wait(); close(s.done) }()
	return s, nil
}

func (s *server) exited() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// logTail is the end of the server's output, for error messages.
func (s *server) logTail() string {
	b, _ := os.ReadFile(s.log)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return strings.TrimSpace(string(b))
}

// waitReady waits until the server answers PING (the null server answers
// +OK, which counts).
func (s *server) waitReady(ctx context.Context, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		if s.exited() {
			return fmt.Errorf("%s exited at start:\n%s", s.name, s.logTail())
		}
		v, err := s.do(2*time.Second, "PING")
		if err == nil && v.Err() == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s does not answer PING on %s after %v (last error: %v):\n%s", s.name, s.addr(), limit, err, s.logTail())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// do sends one command on a fresh connection.
func (s *server) do(timeout time.Duration, args ...string) (wire.Value, error) {
	conn, err := wire.Dial("tcp", s.addr(), timeout)
	if err != nil {
		return wire.Value{}, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(timeout))
	return conn.Do(args...)
}

// flush empties the server: FLUSHALL SYNC, or plain FLUSHALL if refused.
func (s *server) flush() error {
	v, err := s.do(60*time.Second, "FLUSHALL", "SYNC")
	if err == nil && v.Err() != nil {
		v, err = s.do(60*time.Second, "FLUSHALL")
	}
	if err == nil {
		err = v.Err()
	}
	if err != nil {
		return fmt.Errorf("%s: FLUSHALL: %w", s.name, err)
	}
	return nil
}

// prefill writes prefix1..prefix500 with 128 random bytes each (the state a
// SET run leaves for the GET run), pipelined on one connection.
func (s *server) prefill(prefix string) error {
	conn, err := wire.Dial("tcp", s.addr(), 5*time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	val := make([]byte, 128)
	for i := 1; i <= 500; i++ {
		for j := range val {
			val[j] = byte('a' + rand.IntN(26))
		}
		conn.Out = wire.AppendCommand(conn.Out, "SET", prefix+strconv.Itoa(i), string(val))
	}
	if err := conn.Flush(); err != nil {
		return err
	}
	for i := 0; i < 500; i++ {
		v, err := conn.ReadValue()
		if err == nil {
			err = v.Err()
		}
		if err != nil {
			return fmt.Errorf("%s: prefill SET: %w", s.name, err)
		}
	}
	return nil
}

// cpuTicks is the server's utime+stime so far, in clock ticks.
func (s *server) cpuTicks() (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid))
	if err != nil {
		return 0, err
	}
	u, st, err := parseProcStat(b)
	return u + st, err
}

// rssKiB is the server's VmRSS.
func (s *server) rssKiB() (uint64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid))
	if err != nil {
		return 0, err
	}
	return parseVmRSS(b)
}

// stop ends the server: SIGTERM, then SIGKILL after 5 s.
func (s *server) stop() {
	if s.exited() {
		return
	}
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

func stopAll(ss []*server) {
	for _, s := range ss {
		s.stop()
	}
}

// dieWithParent asks the kernel for SIGTERM when the parent dies (the
// wrapper's `go run`, which does not pass SIGTERM on), so the servers are
// still stopped.
func dieWithParent() {
	ppid := os.Getppid()
	_, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGTERM), 0)
	if errno == 0 && os.Getppid() != ppid {
		_ = syscall.Kill(os.Getpid(), syscall.SIGTERM)
	}
}

// measure runs corvid-bench once against s and reads the server's CPU
// around it.
func measure(ctx context.Context, c *config, tmp string, s *server, sc matrix.SeedCommand, pipeline, round int, hz float64) (runResult, error) {
	rr := runResult{Pipeline: pipeline, Command: sc.Name, Round: round, Server: s.name}
	if s.data {
		if err := s.flush(); err != nil {
			return rr, err
		}
		if strings.EqualFold(sc.Name, "get") {
			if err := s.prefill(sc.KeyPrefix); err != nil {
				return rr, err
			}
		}
	}
	jsonFile := filepath.Join(tmp, "run.json")
	os.Remove(jsonFile)
	logFile := filepath.Join(tmp, "run.log")
	lf, err := os.Create(logFile)
	if err != nil {
		return rr, err
	}
	defer lf.Close()
	rctx, cancel := context.WithTimeout(ctx, time.Duration(c.testTime+60)*time.Second)
	defer cancel()
	cmd := exec.CommandContext(rctx, filepath.Join(tmp, "corvid-bench"), benchArgs(c, sc, strconv.Itoa(s.port), pipeline, jsonFile)...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	before, err := s.cpuTicks()
	if err != nil {
		return rr, fmt.Errorf("%s: %w", s.name, err)
	}
	runErr := cmd.Run()
	after, err := s.cpuTicks()
	if ctx.Err() != nil {
		return rr, ctx.Err()
	}
	if s.exited() {
		return rr, fmt.Errorf("%s died during %s pipeline %d:\n%s", s.name, sc.Name, pipeline, s.logTail())
	}
	if err != nil {
		return rr, fmt.Errorf("%s: %w", s.name, err)
	}
	if runErr != nil {
		out, _ := os.ReadFile(logFile)
		return rr, fmt.Errorf("corvid-bench against %s (%s, pipeline %d): %v\n%s", s.name, sc.Name, pipeline, runErr, tail(out, 2000))
	}
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		return rr, fmt.Errorf("corvid-bench against %s wrote no JSON: %w", s.name, err)
	}
	tot, err := parseBenchJSON(b)
	if err != nil {
		return rr, fmt.Errorf("corvid-bench JSON (%s, %s): %w", s.name, sc.Name, err)
	}
	rr.benchTotals = tot
	rr.CPUSec = float64(after-before) / hz
	return rr, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(bytes.TrimSpace(b))
}

// env is what the report says about the machine and the run.
type env struct {
	hz        float64 // clock ticks per second (getconf CLK_TCK)
	nproc     string
	model     string
	kernel    string
	loadavg   string
	redis     string
	goVersion string
	commit    string
	date      string
	command   string // the exact command line
	load      string // one run's corvid-bench command line
}

func machineInfo(c *config) env {
	e := env{hz: 100, goVersion: runtime.Version(), date: time.Now().UTC().Format("2006-01-02 15:04 UTC")}
	if out, err := exec.Command("getconf", "CLK_TCK").Output(); err == nil {
		if v, err := strconv.ParseFloat(strings.TrimSpace(string(out)), 64); err == nil && v > 0 {
			e.hz = v
		}
	}
	e.nproc = strconv.Itoa(runtime.NumCPU())
	if out, err := exec.Command("nproc").Output(); err == nil {
		e.nproc = strings.TrimSpace(string(out))
	}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		e.model = cpuModel(b)
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		e.kernel = strings.TrimSpace(string(b))
	}
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(b)); len(f) >= 3 {
			e.loadavg = strings.Join(f[:3], " ")
		}
	}
	if out, err := exec.Command("redis-server", "--version").Output(); err == nil {
		e.redis = strings.TrimSpace(string(out))
	}
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		e.commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
			e.commit += " (with uncommitted changes)"
		}
	}
	e.command = "bench/seed-side-by-side"
	if len(c.argv) > 0 {
		e.command += " " + shellQuote(c.argv)
	}
	e.load = benchTemplate(c, c.commands[0], c.pipelines[0])
	return e
}

func (e env) summary() string {
	return fmt.Sprintf("machine: %s cores (nproc), %s, kernel %s, loadavg %s; %s; %s; commit %s; CLK_TCK %g",
		e.nproc, orUnknown(e.model), orUnknown(e.kernel), orUnknown(e.loadavg), orUnknown(e.redis), e.goVersion, orUnknown(e.commit), e.hz)
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}
