package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/matrix"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// spec is a server to start: name, binary, arguments after --port P.
type spec struct {
	name string
	bin  string
	args func(port int) []string
	data bool     // a real store: FLUSHALL before runs, prefill before GET
	env  []string // extra environment
}

func serverSpecs(c *config, tmp string) []spec {
	redisArgs := func(port int) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--maxmemory", "4gb", "--maxmemory-policy", "allkeys-lru", "--dir", tmp}
	}
	specs := []spec{
		{name: "corvid", bin: filepath.Join(tmp, "corvid-server"), data: true, args: func(port int) []string {
			return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--maxmemory", "4gb", "--maxmemory-policy", "allkeys-lru"}
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
			return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--maxmemory", "4gb", "--maxmemory-policy", "allkeys-lru", "--io-threads", "2"}
		}})
	}
	withEngine := func(engine string) func(int) []string {
		return func(port int) []string { return append(specs[0].args(port), "--net-engine", engine) }
	}
	if c.corvidURing {
		specs = append(specs, spec{name: nCURing, bin: filepath.Join(tmp, "corvid-server"), data: true, args: withEngine("io_uring")})
	}
	if c.corvidEpoll {
		specs = append(specs, spec{name: nCEpoll, bin: filepath.Join(tmp, "corvid-server"), data: true, args: withEngine("epoll")})
	}
	if c.null {
		specs = append(specs, spec{name: "null", bin: filepath.Join(tmp, "nullserver"), args: func(port int) []string {
			// Corvid's default network path on this machine: one event
			// loop (io-threads 1 on 2 cores, see server.defaultLoops) on
			// an io_uring, waiting in a raw io_uring_enter; with
			// -null-epoll, the epoll loop Corvid falls back to.
			if c.nullEpoll {
				return []string{"-port", strconv.Itoa(port), "-mode", "epoll", "-loops", "1", "-raw", "-rawblock", "-deferwrite", "-lockthread"}
			}
			return []string{"-port", strconv.Itoa(port), "-mode", "uring", "-raw"}
		}})
	}
	return specs
}

// server is a started server process.
type server struct {
	*benchproc.Server
	data bool // a real store: FLUSHALL before runs, prefill before GET
}

func startServer(sp spec, port int, tmp string) (*server, error) {
	s, err := benchproc.Start(benchproc.Spec{Name: sp.name, Argv: append([]string{sp.bin}, sp.args(port)...), Port: port, Env: sp.env,
		Dir: tmp, Log: filepath.Join(tmp, sp.name+".log"), StopGrace: 5 * time.Second})
	if err != nil {
		return nil, err
	}
	return &server{Server: s, data: sp.data}, nil
}

// logTail is the end of the server's output, for error messages.
func (s *server) logTail() string { return s.LogTail(2000) }

// waitReady waits until the server answers PING (the null server answers
// +OK, which counts).
func (s *server) waitReady(ctx context.Context, limit time.Duration) error {
	err := s.WaitReady(ctx, limit)
	if err != nil && ctx.Err() == nil {
		err = fmt.Errorf("%w:\n%s", err, s.logTail())
	}
	return err
}

// do sends one command on a fresh connection.
func (s *server) do(timeout time.Duration, args ...string) (wire.Value, error) {
	conn, err := wire.Dial("tcp", s.Addr, timeout)
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
		return fmt.Errorf("%s: FLUSHALL: %w", s.Name, err)
	}
	return nil
}

// prefill writes prefix1..prefix500 with 128 random bytes each (the state a
// SET run leaves for the GET run), pipelined on one connection.
func (s *server) prefill(prefix string) error {
	conn, err := wire.Dial("tcp", s.Addr, 5*time.Second)
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
			return fmt.Errorf("%s: prefill SET: %w", s.Name, err)
		}
	}
	return nil
}

// measure runs corvid-bench once against s and reads the server's CPU
// around it.
func measure(ctx context.Context, c *config, tmp string, s *server, sc matrix.SeedCommand, pipeline, round int, hz float64) (runResult, error) {
	rr := runResult{Pipeline: pipeline, Command: sc.Name, Round: round, Server: s.Name}
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
	cmd := exec.CommandContext(rctx, filepath.Join(tmp, "corvid-bench"), benchArgs(c, sc, strconv.Itoa(s.Port), pipeline, jsonFile)...)
	cmd.Stdout, cmd.Stderr = lf, lf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}

	before, err := s.CPUTicks()
	if err != nil {
		return rr, fmt.Errorf("%s: %w", s.Name, err)
	}
	runErr := cmd.Run()
	after, err := s.CPUTicks()
	if ctx.Err() != nil {
		return rr, ctx.Err()
	}
	if s.Exited() {
		return rr, fmt.Errorf("%s died during %s pipeline %d:\n%s", s.Name, sc.Name, pipeline, s.logTail())
	}
	if err != nil {
		return rr, fmt.Errorf("%s: %w", s.Name, err)
	}
	if runErr != nil {
		out, _ := os.ReadFile(logFile)
		return rr, fmt.Errorf("corvid-bench against %s (%s, pipeline %d): %v\n%s", s.Name, sc.Name, pipeline, runErr, benchproc.Tail(out, 2000))
	}
	b, err := os.ReadFile(jsonFile)
	if err != nil {
		return rr, fmt.Errorf("corvid-bench against %s wrote no JSON: %w", s.Name, err)
	}
	tot, err := parseBenchJSON(b)
	if err != nil {
		return rr, fmt.Errorf("corvid-bench JSON (%s, %s): %w", s.Name, sc.Name, err)
	}
	rr.benchTotals = tot
	rr.CPUSec = float64(after-before) / hz
	return rr, nil
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
	e := env{hz: benchproc.ClockTicks(), goVersion: runtime.Version(), date: time.Now().UTC().Format("2006-01-02 15:04 UTC"),
		nproc: benchproc.NProc(), model: benchproc.CPUModel(), kernel: benchproc.Kernel(), loadavg: benchproc.LoadAvg()}
	if out, err := benchproc.Output("", "redis-server", "--version"); err == nil {
		e.redis = out
	}
	if rev, dirty := benchproc.GitRevision(""); rev != "" {
		e.commit = rev
		if dirty {
			e.commit += " (with uncommitted changes)"
		}
	}
	e.command = "bench/seed-side-by-side"
	if len(c.argv) > 0 {
		e.command += " " + benchproc.ShellJoin(c.argv)
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
