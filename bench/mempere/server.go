package main

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// server is a corvid-server or redis-server process started by this program.
type server struct {
	name    string // "corvid" or "redis"
	port    int
	cmd     *exec.Cmd
	logPath string
	done    chan struct{} // closed when the process has exited
	waitErr error
}

// freePort asks the kernel for a free loopback port (never 6379).
func freePort() (int, error) {
	for range 10 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return 0, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		l.Close()
		if port != 6379 {
			return port, nil
		}
	}
	return 0, fmt.Errorf("no free port")
}

// startServer starts bin on a free loopback port with persistence off,
// in dir, logging to dir/<logName>.log, and waits until it answers PING.
func startServer(name, bin, dir, logName string) (*server, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	logPath := filepath.Join(dir, logName+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logf.Close()
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--save", "", "--appendonly", "no")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = logf, logf
	// If this program dies, so does the server.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &server{name: name, port: port, cmd: cmd, logPath: logPath, done: make(chan struct{})}
	go func() { s.waitErr = cmd.Wait(); close(s.done) }()
	if err := s.waitReady(20 * time.Second); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

func (s *server) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(s.port)) }
func (s *server) pid() int     { return s.cmd.Process.Pid }

// waitReady polls PING until the server answers +PONG.
func (s *server) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		select {
		case <-s.done:
			return fmt.Errorf("%s exited before answering PING (%v); log: %s", s.name, s.waitErr, s.logPath)
		default:
		}
		if c, err := dial(s.addr()); err == nil {
			rep, err := c.do("PING")
			c.Close()
			if err == nil && rep.str == "PONG" {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer PING within %v; log: %s", s.name, timeout, s.logPath)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop sends SIGTERM and waits for the process, killing it after 10 s.
func (s *server) stop() {
	select {
	case <-s.done:
		return
	default:
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}
