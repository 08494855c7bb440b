package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// serverKind says how to start one kind of server.
type serverKind struct {
	Name string // "corvid" or "redis"
	Bin  string
	Args func(port int, dir string) []string
}

func corvidKind(bin string) serverKind {
	return serverKind{Name: "corvid", Bin: bin, Args: func(port int, _ string) []string {
		return []string{"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--maxmemory", "0",
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
type server struct{ *benchproc.Server }

// start launches a server on a free port and waits until it answers PING.
func start(k serverKind, dir string) (*server, error) {
	var lastErr error
	for range 3 { // a port may be taken between FreePort and the bind
		port, err := benchproc.FreePort()
		if err != nil {
			return nil, err
		}
		s, err := benchproc.Start(benchproc.Spec{Name: k.Name, Argv: append([]string{k.Bin}, k.Args(port, dir)...),
			Port: port, Dir: dir, Log: filepath.Join(dir, fmt.Sprintf("%s-%d.log", k.Name, port))})
		if err != nil {
			return nil, err
		}
		if lastErr = s.WaitReady(context.Background(), 10*time.Second); lastErr == nil {
			return &server{s}, nil
		}
		s.Stop()
		lastErr = fmt.Errorf("%s on port %d: %v; log: %s", k.Name, port, lastErr, s.LogTail(500))
	}
	return nil, lastErr
}

// rssKiB is VmRSS of the server, -1 if unknown.
func (s *server) rssKiB() int64 {
	n, err := s.RSSKiB()
	if err != nil {
		return -1
	}
	return n
}

// cpu is the server's utime+stime so far, -1 if unknown.
func (s *server) cpu() time.Duration {
	d, err := s.CPUTime()
	if err != nil {
		return -1
	}
	return d
}

// dial opens a control connection.
func dial(addr string) (*wire.Conn, error) { return wire.Dial("tcp", addr, 5*time.Second) }
