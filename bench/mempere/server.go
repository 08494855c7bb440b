package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// start starts bin on a free loopback port with persistence off, in dir,
// logging to dir/<logName>.log, and waits until it answers PING.
func start(name, bin, dir, logName string) (*benchproc.Server, error) {
	port, err := benchproc.FreePort()
	if err != nil {
		return nil, err
	}
	s, err := benchproc.Start(benchproc.Spec{Name: name, Port: port, Dir: dir, Log: filepath.Join(dir, logName+".log"),
		Argv: []string{bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}})
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(context.Background(), 20*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%v; log: %s", err, s.Log)
	}
	return s, nil
}
