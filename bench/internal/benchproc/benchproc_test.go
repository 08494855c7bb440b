package benchproc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// With BENCHPROC_FAKE set, the test binary is the server Start runs:
// "serve PORT" answers +PONG to every command on 127.0.0.1:PORT until
// SIGTERM; "fail" writes a line and exits 3.
func TestMain(m *testing.M) {
	switch mode := os.Getenv("BENCHPROC_FAKE"); {
	case mode == "fail":
		fmt.Println("fake server: cannot start")
		os.Exit(3)
	case strings.HasPrefix(mode, "serve "):
		l, err := net.Listen("tcp", "127.0.0.1:"+strings.TrimPrefix(mode, "serve "))
		if err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		fmt.Println("fake server: listening")
		for {
			nc, err := l.Accept()
			if err != nil {
				os.Exit(1)
			}
			go func() {
				defer nc.Close()
				c := wire.NewConn(nc, "")
				for {
					if _, err := c.ReadValue(); err != nil {
						return
					}
					if _, err := nc.Write([]byte("+PONG\r\n")); err != nil {
						return
					}
				}
			}()
		}
	}
	os.Exit(m.Run())
}

func fakeSpec(t *testing.T, mode string, port int) Spec {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("BENCHPROC_FAKE", mode)
	dir := t.TempDir()
	return Spec{Name: "fake", Argv: []string{exe, "-test.run=^$"}, Port: port, Dir: dir, Log: filepath.Join(dir, "fake.log"),
		StopGrace: 5 * time.Second}
}

func TestServerLifecycle(t *testing.T) {
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	s, err := Start(fakeSpec(t, fmt.Sprintf("serve %d", port), port))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if err := s.WaitReady(context.Background(), 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if s.Addr != fmt.Sprintf("127.0.0.1:%d", port) {
		t.Errorf("Addr = %s", s.Addr)
	}
	if pgid, err := syscall.Getpgid(s.PID()); err != nil || pgid != s.PID() {
		t.Errorf("process group %d (%v), want its own, %d", pgid, err, s.PID())
	}
	if kib, err := s.RSSKiB(); err != nil || kib <= 0 {
		t.Errorf("RSSKiB = %d, %v", kib, err)
	}
	if _, err := s.CPUTicks(); err != nil {
		t.Errorf("CPUTicks: %v", err)
	}
	if d, err := s.CPUTime(); err != nil || d < 0 {
		t.Errorf("CPUTime = %v, %v", d, err)
	}
	if !strings.Contains(s.LogTail(100), "listening") {
		t.Errorf("LogTail = %q", s.LogTail(100))
	}
	StopAll()
	if !s.Exited() {
		t.Fatal("StopAll left the server running")
	}
	s.Stop() // a second Stop is harmless
	if len(live.m) != 0 {
		t.Errorf("%d servers still tracked", len(live.m))
	}
}

func TestWaitReadyExited(t *testing.T) {
	s, err := Start(fakeSpec(t, "fail", 1))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	err = s.WaitReady(context.Background(), 10*time.Second)
	if err == nil || !strings.Contains(err.Error(), "fake exited before answering PING (exit status 3)") {
		t.Fatalf("WaitReady = %v", err)
	}
	if got := s.LogTail(100); got != "fake server: cannot start" {
		t.Errorf("LogTail = %q", got)
	}
}

func TestWaitReadyTimeoutAndCancel(t *testing.T) {
	// A process that never listens.
	port, err := FreePort()
	if err != nil {
		t.Fatal(err)
	}
	sp := fakeSpec(t, "", port)
	sp.Argv = []string{"sleep", "30"}
	s, err := Start(sp)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	if err := s.WaitReady(context.Background(), 200*time.Millisecond); err == nil || !strings.Contains(err.Error(), "does not answer PING on "+s.Addr) {
		t.Fatalf("WaitReady = %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.WaitReady(ctx, 10*time.Second); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitReady after cancel = %v", err)
	}
	s.Stop()
	if !s.Exited() {
		t.Fatal("Stop returned before the process ended")
	}
}

func TestStartError(t *testing.T) {
	dir := t.TempDir()
	_, err := Start(Spec{Name: "nothing", Argv: []string{filepath.Join(dir, "no-such-binary")}, Dir: dir, Log: filepath.Join(dir, "x.log")})
	if err == nil || !strings.HasPrefix(err.Error(), "starting nothing: ") {
		t.Fatalf("Start = %v", err)
	}
}

func TestFreePorts(t *testing.T) {
	ps, err := FreePorts(5)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[int]bool{}
	for _, p := range ps {
		if p <= 0 || p == 6379 || seen[p] {
			t.Fatalf("ports %v", ps)
		}
		seen[p] = true
	}
	l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", ps[0]))
	if err != nil {
		t.Fatalf("port %d not released: %v", ps[0], err)
	}
	l.Close()
}

func TestBuildAndModuleRoot(t *testing.T) {
	root, err := ModuleRoot()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatal(err)
	}
	err = Build(context.Background(), root, filepath.Join(t.TempDir(), "x"), "./bench/no-such-package", nil)
	if err == nil || !strings.HasPrefix(err.Error(), "go build ./bench/no-such-package: exit status 1\n") {
		t.Fatalf("Build = %v", err)
	}
	var log bytes.Buffer
	err = Build(context.Background(), root, filepath.Join(t.TempDir(), "x"), "./bench/no-such-package", &log)
	if err == nil || strings.Contains(err.Error(), "\n") || log.Len() == 0 {
		t.Fatalf("Build with a log = %v; log %q", err, log.String())
	}
}

func TestDo(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go func() {
		srv := wire.NewConn(a, "")
		for _, reply := range []string{":42\r\n", "-ERR no such thing\r\n", "+OK\r\n", "-ERR again\r\n"} {
			if _, err := srv.ReadValue(); err != nil {
				return
			}
			if _, err := a.Write([]byte(reply)); err != nil {
				return
			}
		}
	}()
	c := wire.NewConn(b, "pipe")
	if n, err := DoInt(c, "DBSIZE"); err != nil || n != 42 {
		t.Fatalf("DoInt = %d, %v", n, err)
	}
	_, err := Do(c, "DEBUG", "POPULATE", "0")
	if !wire.IsServerError(err) || err.Error() != "DEBUG POPULATE 0: ERR no such thing" {
		t.Fatalf("Do error reply = %v", err)
	}
	if _, err := DoInt(c, "PING"); err == nil || err.Error() != "PING: want an integer reply, got OK" {
		t.Fatalf("DoInt of +OK = %v", err)
	}
	if _, err := DoInt(c, "X"); !wire.IsServerError(err) {
		t.Fatalf("DoInt error reply = %v", err)
	}
}

func TestParseStatCPU(t *testing.T) {
	// Field 2 may contain spaces and parentheses; utime/stime are 14 and 15.
	line := "4242 (corvid (srv) x) S 1 4242 4242 0 -1 4194560 1000 0 0 0 1234 567 0 0 20 0 9 0 100 1000000 2000 18446744073709551615\n"
	u, s, err := parseStatCPU([]byte(line))
	if err != nil || u != 1234 || s != 567 {
		t.Fatalf("parseStatCPU = %d, %d, %v; want 1234, 567", u, s, err)
	}
	for _, bad := range []string{"", "12 (x) S 1 2", "12 (x) S 1 2 3 4 5 6 7 8 9 10 abc 5"} {
		if _, _, err := parseStatCPU([]byte(bad)); err == nil {
			t.Errorf("parseStatCPU(%q): no error", bad)
		}
	}
	if d := ticksDuration(250+75, 100); d != 3250*time.Millisecond {
		t.Errorf("ticksDuration = %v, want 3.25s", d)
	}
	if hz := ClockTicks(); hz <= 0 {
		t.Errorf("ClockTicks = %v", hz)
	}
}

func TestParseVmRSS(t *testing.T) {
	st := "Name:\tredis-server\nVmPeak:\t  100 kB\nVmRSS:\t   12345 kB\nThreads:\t5\n"
	if n, err := parseVmRSS([]byte(st)); err != nil || n != 12345 {
		t.Fatalf("parseVmRSS = %d, %v; want 12345", n, err)
	}
	for _, bad := range []string{"Name:\tx\n", "VmRSS:\t12 MB\n", "VmRSS:\n", "VmRSS:\tx kB\n"} {
		if _, err := parseVmRSS([]byte(bad)); err == nil {
			t.Errorf("parseVmRSS(%q): no error", bad)
		}
	}
}

func TestMachineFacts(t *testing.T) {
	if m := parseCPUModel([]byte("processor\t: 0\nmodel name\t: AMD EPYC 7B13\nflags\t: fpu\n")); m != "AMD EPYC 7B13" {
		t.Errorf("parseCPUModel = %q", m)
	}
	if m := parseCPUModel([]byte("processor\t: 0\n")); m != "" {
		t.Errorf("parseCPUModel without a model = %q", m)
	}
	mi := []byte("MemTotal:       24683520 kB\nMemFree:        22000000 kB\nMemAvailable:   20000000 kB\n")
	if got := parseMeminfoKiB(mi, "MemAvailable"); got != 20000000 {
		t.Errorf("MemAvailable = %d", got)
	}
	if got := parseMeminfoKiB(mi, "SwapTotal"); got != -1 {
		t.Errorf("absent field = %d", got)
	}
	if got := parseLoadAvg([]byte("0.52 0.58 0.59 1/189 12345\n")); got != "0.52 0.58 0.59" {
		t.Errorf("parseLoadAvg = %q", got)
	}
	if got := parseLoadAvg([]byte("0.5\n")); got != "" {
		t.Errorf("parseLoadAvg of a short line = %q", got)
	}
	if NProc() == "" || Kernel() == "" || LoadAvg() == "" || MeminfoKiB("MemTotal") <= 0 {
		t.Errorf("this machine: nproc %q, kernel %q, loadavg %q, MemTotal %d", NProc(), Kernel(), LoadAvg(), MeminfoKiB("MemTotal"))
	}
	if _, err := Output("", "false"); err == nil {
		t.Error("Output(false): no error")
	}
	if out, err := Output(t.TempDir(), "pwd"); err != nil || out == "" || strings.HasSuffix(out, "\n") {
		t.Errorf("Output(pwd) = %q, %v", out, err)
	}
	if rev, _ := GitRevision(t.TempDir()); rev != "" {
		t.Errorf("GitRevision outside a checkout = %q", rev)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"": "''", "a-b/c:d": "a-b/c:d", "10^3": "10^3", "a b": "'a b'", "it's": `'it'\''s'`, "$x": "'$x'"} {
		if got := ShellQuote(in); got != want {
			t.Errorf("ShellQuote(%q) = %s, want %s", in, got, want)
		}
	}
	got := ShellJoin([]string{"-n", "50000", "-out", "/tmp/x y", "", "it's", "-cases=list,set"})
	if want := `-n 50000 -out '/tmp/x y' '' 'it'\''s' -cases=list,set`; got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
	if got := ShellJoin(nil); got != "" {
		t.Errorf("ShellJoin(nil) = %q", got)
	}
}

func TestTailAndComments(t *testing.T) {
	if got := Tail([]byte("abc\ndef\n"), 6); got != "c\ndef" {
		t.Errorf("Tail = %q", got)
	}
	if got := Tail([]byte(" x "), 100); got != "x" {
		t.Errorf("Tail short = %q", got)
	}
	var b bytes.Buffer
	if err := WriteComments(&b, []string{"command: x", "nproc: 2"}); err != nil || b.String() != "# command: x\n# nproc: 2\n" {
		t.Errorf("WriteComments = %q, %v", b.String(), err)
	}
}
