package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// findBin is bench/lib.sh's find_bin: ../shared/bin beside the
// repository, /work/shared/bin, then PATH.
func findBin(name string) (string, error) {
	for _, p := range []string{"../shared/bin/" + name, "/work/shared/bin/" + name} {
		if st, err := os.Stat(p); err == nil && st.Mode()&0o111 != 0 {
			return filepath.Abs(p)
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s not found (../shared/bin, /work/shared/bin, PATH)", name)
	}
	return p, nil
}

// binaries resolves memtier and valkey-server, and builds corvid-server
// into tmp unless -corvid names one; what says which corvid it is.
func binaries(ctx context.Context, c *config, tmp string) (what string, err error) {
	if c.memtier == "" {
		if c.memtier, err = findBin("memtier_benchmark"); err != nil {
			return "", err
		}
	}
	if out, err := benchproc.Output("", c.memtier, "--version"); err != nil || !strings.Contains(out, "memtier") {
		return "", fmt.Errorf("%s does not run; it needs: apt-get install -y libevent-2.1-7 libevent-openssl-2.1-7", c.memtier)
	}
	if slices.Contains(c.kinds, "valkey") && c.valkey == "" {
		if c.valkey, err = findBin("valkey-server"); err != nil {
			return "", err
		}
	}
	if !slices.Contains(c.kinds, "corvid") {
		return "", nil
	}
	if c.corvid != "" {
		return "corvid-server " + c.corvid, nil
	}
	src := "."
	rev, dirty := benchproc.GitRevision("")
	what = "corvid from the working tree at " + rev
	if dirty {
		what += ", with uncommitted changes"
	}
	if c.rev != "" {
		src = filepath.Join(tmp, "src")
		if out, err := exec.CommandContext(ctx, "git", "worktree", "add", "-q", "--detach", src, c.rev).CombinedOutput(); err != nil {
			return "", fmt.Errorf("git worktree add %s: %v\n%s", c.rev, err, out)
		}
		defer exec.Command("git", "worktree", "remove", "--force", src).Run()
		short, _ := benchproc.Output("", "git", "rev-parse", "--short", c.rev)
		what = "corvid at " + short
	}
	c.corvid = filepath.Join(tmp, "corvid-server")
	fmt.Println("building corvid-server ...")
	if err := benchproc.Build(ctx, src, c.corvid, "./cmd/corvid-server", os.Stderr); err != nil {
		return "", err
	}
	return what, nil
}

// server is one running server with a control connection.
type server struct {
	*benchproc.Server
	kind string
	conn *wire.Conn
}

// startServer starts a fresh server of kind on a free port in dir and
// waits until it answers.
func startServer(ctx context.Context, c *config, kind, dir string) (*server, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	port, err := benchproc.FreePort()
	if err != nil {
		return nil, err
	}
	bin, extra := c.corvid, c.corvidArgs
	if kind == "valkey" {
		bin, extra = c.valkey, c.valkeyArgs
	}
	argv := []string{bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir}
	argv = append(append(argv, c.serverArgs...), extra...)
	s, err := benchproc.Start(benchproc.Spec{Name: kind, Argv: argv, Port: port, Dir: dir,
		Log: filepath.Join(dir, "log"), StopGrace: 20 * time.Second})
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(ctx, 30*time.Second); err != nil {
		s.Stop()
		return nil, fmt.Errorf("%w\n%s", err, s.LogTail(2000))
	}
	conn, err := wire.Dial("tcp", s.Addr, 5*time.Second)
	if err != nil {
		s.Stop()
		return nil, err
	}
	return &server{Server: s, kind: kind, conn: conn}, nil
}

func (s *server) stop() {
	if s.conn != nil {
		s.conn.Close()
	}
	s.Stop()
}

// do runs one command on the control connection; an error reply is an
// error.
func (s *server) do(args ...string) (wire.Value, error) {
	_ = s.conn.SetDeadline(time.Now().Add(60 * time.Second))
	v, err := benchproc.Do(s.conn, args...)
	if err != nil {
		return v, fmt.Errorf("%s: %w", s.Name, err)
	}
	return v, nil
}

// info is one INFO section.
func (s *server) info(section string) (map[string]string, error) {
	v, err := s.do("INFO", section)
	if err != nil {
		return nil, err
	}
	return benchproc.ParseInfo(v.Str), nil
}

func (s *server) infoInt(section, field string) (int64, error) {
	m, err := s.info(section)
	if err != nil {
		return 0, err
	}
	n, err := benchproc.InfoInt(m, field)
	if err != nil {
		return 0, fmt.Errorf("%s: %w", s.Name, err)
	}
	return n, nil
}

// errorStats is INFO errorstats on one line ("errorstat_ERR:count=3 ...").
func (s *server) errorStats() string {
	v, err := s.do("INFO", "errorstats")
	if err != nil {
		return err.Error()
	}
	var out []string
	for line := range strings.SplitSeq(v.Str, "\n") {
		if line = strings.TrimSpace(line); strings.HasPrefix(line, "errorstat_") {
			out = append(out, line)
		}
	}
	return strings.Join(out, " ")
}

// cpuSeconds is the server's utime+stime so far.
func (s *server) cpuSeconds() (float64, error) {
	d, err := s.CPUTime()
	return d.Seconds(), err
}
