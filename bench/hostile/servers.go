package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
)

// target is a server binary the scenarios run against.
type target struct {
	name    string // corvid, valkey, redis
	bin     string // "" when absent
	version string // its --version, for the header
	note    string // why it is skipped, or a version warning
}

// wantVersion is the version each comparison is meant against.
var wantVersion = map[string]string{"valkey": "v=8.0.1", "redis": "v=7.0.15"}

// resolveTargets finds (or for Corvid builds) each server of c.servers.
// A missing valkey-server or redis-server is a target with no binary and
// a note, not an error.
func resolveTargets(ctx context.Context, c *config, root, tmp string) ([]target, error) {
	var out []target
	for _, name := range c.servers {
		t := target{name: name}
		switch name {
		case "corvid":
			t.bin = c.corvidBin
			if t.bin == "" {
				t.bin = filepath.Join(tmp, "corvid-server")
				logf("building corvid-server in %s", tmp)
				if err := benchproc.Build(ctx, root, t.bin, "./cmd/corvid-server", os.Stderr); err != nil {
					return nil, err
				}
			}
		case "valkey":
			p := c.valkeyBin
			if p == "" {
				p = filepath.Join(root, "..", "shared", "bin", "valkey-server")
			}
			if st, err := os.Stat(p); err != nil || st.IsDir() {
				t.note = fmt.Sprintf("valkey-server not found at %s: skipped", p)
			} else {
				t.bin = p
			}
		case "redis":
			if p, err := exec.LookPath(c.redisBin); err != nil {
				t.note = fmt.Sprintf("%s not found in PATH: skipped", c.redisBin)
			} else {
				t.bin = p
			}
		}
		if t.bin != "" {
			v, err := benchproc.Output("", t.bin, "--version")
			if err != nil {
				return nil, fmt.Errorf("%s --version: %w", t.bin, err)
			}
			t.version = v
			if w := wantVersion[name]; w != "" && !strings.Contains(v, w) {
				t.note = fmt.Sprintf("%s is not %s: %s", name, w, v)
			}
		}
		out = append(out, t)
	}
	return out, nil
}

// start starts t on a free loopback port with persistence off, working in
// dir and logging to dir/<name>-<scenario>.log, and waits until it answers
// PING.
func start(t target, dir, scenario string) (*benchproc.Server, error) {
	port, err := benchproc.FreePort()
	if err != nil {
		return nil, err
	}
	s, err := benchproc.Start(benchproc.Spec{Name: t.name, Port: port, Dir: dir,
		Log:       filepath.Join(dir, t.name+"-"+scenario+".log"),
		Argv:      serverArgv(t.bin, strconv.Itoa(port)),
		StopGrace: 10 * time.Second})
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(context.Background(), 20*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%v; log:\n%s", err, s.LogTail(2000))
	}
	return s, nil
}

// serverArgv is the command line every server gets.
func serverArgv(bin, port string) []string {
	return []string{bin, "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}
}
