package main

import (
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// freePort returns a loopback TCP port that was free a moment ago (never
// 6379).
func freePort() (int, error) {
	for range 10 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		p := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if p != 6379 {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free port")
}

// serverKind says how to start one kind of server.
type serverKind struct {
	Name string // "corvid" or "redis"
	Bin  string
	Args func(port int, dir string) []string
}

func corvidKind(bin string) serverKind {
	return serverKind{Name: "corvid", Bin: bin, Args: func(port int, _ string) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--maxmemory", "0",
			"--enable-debug-command", "yes"}
	}}
}

func redisKind(bin string) serverKind {
	return serverKind{Name: "redis", Bin: bin, Args: func(port int, dir string) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
			"--maxmemory", "0", "--enable-debug-command", "yes", "--dir", dir}
	}}
}

// server is one running server process.
type server struct {
	Kind serverKind
	Addr string
	Port int
	Cmd  []string // the exact command line
	cmd  *exec.Cmd
	done chan struct{}
}

// start launches a server on a free port and waits until it answers PING.
func start(k serverKind, dir string) (*server, error) {
	var lastErr error
	for range 3 { // a port may be taken between freePort and the bind
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		args := k.Args(port, dir)
		logf, err := os.Create(filepath.Join(dir, fmt.Sprintf("%s-%d.log", k.Name, port)))
		if err != nil {
			return nil, err
		}
		cmd := exec.Command(k.Bin, args...)
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = logf, logf
		cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			logf.Close()
			return nil, err
		}
		s := &server{Kind: k, Port: port, Addr: "127.0.0.1:" + strconv.Itoa(port), cmd: cmd,
			Cmd: append([]string{k.Bin}, args...), done: make(chan struct{})}
		go func() { cmd.Wait(); logf.Close(); close(s.done) }()
		if lastErr = s.waitReady(10 * time.Second); lastErr == nil {
			live.add(s)
			return s, nil
		}
		s.stop()
		log, _ := os.ReadFile(logf.Name())
		lastErr = fmt.Errorf("%s on port %d: %v; log: %s", k.Name, port, lastErr, tail(log, 500))
	}
	return nil, lastErr
}

func (s *server) waitReady(limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-s.done:
			return fmt.Errorf("exited")
		default:
		}
		c, err := dial(s.Addr)
		if err == nil {
			_, err = c.do("PING")
			c.Close()
			if err == nil {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop ends the server with SIGTERM (SIGKILL after 10 s) and waits.
func (s *server) stop() {
	live.remove(s)
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

func (s *server) pid() int { return s.cmd.Process.Pid }

// rssKiB is VmRSS of the server.
func (s *server) rssKiB() int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.pid()))
	if err != nil {
		return -1
	}
	return parseVmRSS(b)
}

// cpu is the server's utime+stime so far.
func (s *server) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.pid()))
	if err != nil {
		return -1
	}
	d, _ := parseStatCPU(b)
	return d
}

// parseVmRSS reads the VmRSS line of /proc/PID/status, in KiB.
func parseVmRSS(b []byte) int64 {
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				n, err := strconv.ParseInt(f[0], 10, 64)
				if err == nil {
					return n
				}
			}
		}
	}
	return -1
}

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// parseStatCPU returns utime+stime (fields 14 and 15) of /proc/PID/stat.
// The command name in field 2 may contain spaces, so fields are counted
// after its closing parenthesis.
func parseStatCPU(b []byte) (time.Duration, error) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("stat: no ')'")
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state); utime is field 14 -> f[11], stime f[12].
	if len(f) < 13 {
		return 0, fmt.Errorf("stat: %d fields", len(f))
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	s, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("stat: bad utime/stime %q %q", f[11], f[12])
	}
	return time.Duration(u+s) * time.Second / clockTicks, nil
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return strings.TrimSpace(string(b))
}

// liveSet holds the servers to stop when the program exits early.
type liveSet struct {
	mu sync.Mutex
	m  map[*server]bool
}

var live = liveSet{m: map[*server]bool{}}

func (l *liveSet) add(s *server) {
	l.mu.Lock()
	l.m[s] = true
	l.mu.Unlock()
}

func (l *liveSet) remove(s *server) {
	l.mu.Lock()
	delete(l.m, s)
	l.mu.Unlock()
}

// stopAll stops every server still running.
func (l *liveSet) stopAll() {
	l.mu.Lock()
	var all []*server
	for s := range l.m {
		all = append(all, s)
	}
	l.mu.Unlock()
	for _, s := range all {
		s.stop()
	}
}
