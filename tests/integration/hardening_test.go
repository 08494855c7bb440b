package integration

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// Hardening: inputs a hostile or careless client can send with nothing
// but loopback access and no password must not kill, stall or blow up the
// server (issue 23). Each test here failed before its fix.

// bothNetPaths runs f once on the default network path (event loops) and
// once with one goroutine per connection (net-engine goroutine).
func bothNetPaths(t *testing.T, f func(t *testing.T, start func(args ...string) *testutil.Proc)) {
	for _, p := range []struct{ name, engine string }{{"loops", "io_uring"}, {"goroutines", "goroutine"}} {
		t.Run(p.name, func(t *testing.T) {
			f(t, func(args ...string) *testutil.Proc {
				return testutil.StartCorvid(t, append(args, "--net-engine", p.engine)...)
			})
		})
	}
}

// alive fails the test unless p is running and answers PING with its data
// intact (the key "canary" set by the test beforehand).
func alive(t *testing.T, p *testutil.Proc) {
	t.Helper()
	if p.Exited() {
		t.Fatalf("server exited:\n%s", tail(p.Output(), 3000))
	}
	c := testutil.Dial(t, p.Addr)
	if got := c.Do("PING"); got != "+PONG" {
		t.Fatalf("PING: %s\n%s", got, tail(p.Output(), 3000))
	}
	if got := c.Do("GET", "canary"); got != `"alive"` {
		t.Fatalf("GET canary: %s", got)
	}
	if strings.Contains(p.Output(), "PANIC") || strings.Contains(p.Output(), "panic:") {
		t.Fatalf("server log shows a panic:\n%s", tail(p.Output(), 3000))
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// TestNumkeysOverflow: a numkeys near 2^63 used to overflow the index of
// the argument after the keys and panic, and on the event-loop path the
// panic killed the process. Valkey answers a syntax error; so must Corvid,
// the same text, with the connection and the data kept.
func TestNumkeysOverflow(t *testing.T) {
	cmds := [][]string{
		{"LMPOP", "9223372036854775807", "l", "LEFT"},
		{"LMPOP", "9223372036854775806", "l", "LEFT"},
		{"LMPOP", "2147483648", "l", "LEFT"},
		{"ZMPOP", "9223372036854775807", "z", "MIN"},
		{"BLMPOP", "0", "9223372036854775807", "l", "LEFT"},
		{"BZMPOP", "0", "9223372036854775807", "z", "MIN"},
		{"SINTERCARD", "9223372036854775807", "a"},
		{"ZINTERCARD", "9223372036854775807", "a"},
		{"ZUNION", "9223372036854775807", "a"},
		{"ZUNIONSTORE", "d", "9223372036854775807", "a"},
		{"ZDIFFSTORE", "d", "9223372036854775807", "a"},
		{"LMPOP", "-9223372036854775808", "l", "LEFT"},
		{"ZMPOP", "1", "z", "MIN", "COUNT", "9223372036854775807"},
		{"LMPOP", "1", "l", "LEFT", "COUNT", "9223372036854775807"},
	}
	var want []string
	if testutil.HaveValkey(t) {
		v := testutil.StartValkey(t)
		c := testutil.Dial(t, v.Addr)
		for _, cmd := range cmds {
			want = append(want, c.Do(cmd...))
		}
	}
	bothNetPaths(t, func(t *testing.T, start func(...string) *testutil.Proc) {
		p := start()
		c := testutil.Dial(t, p.Addr)
		expect(t, c, "+OK", "SET", "canary", "alive")
		for i, cmd := range cmds {
			got := c.Do(cmd...)
			if !strings.HasPrefix(got, "-ERR ") && got != "(nil-array)" {
				t.Errorf("%v: %s", cmd, got)
			}
			if want != nil && got != want[i] {
				t.Errorf("%v: got %s, valkey-server %s", cmd, got, want[i])
			}
		}
		alive(t, p)
	})
}

// TestSignalsIgnoredAndUnderLoad: SIGHUP and SIGPIPE are ignored (and SIGHUP logged), as
// valkey-server ignores them; SIGSTOP/SIGCONT only pause the server;
// SIGTERM under load shuts it down cleanly (exit 0) with Valkey's log
// lines, and a second SIGINT during a shutdown that cannot finish exits
// at once with status 1.
func TestSignalsIgnoredAndUnderLoad(t *testing.T) {
	p := testutil.StartCorvid(t)
	c := testutil.Dial(t, p.Addr)
	expect(t, c, "+OK", "SET", "canary", "alive")

	for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGPIPE} {
		if err := p.Signal(sig); err != nil {
			t.Fatal(err)
		}
		alive(t, p)
	}
	waitLog(t, p, "Received SIGHUP")

	// STOP: a request waits; CONT: it is answered.
	if err := p.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitProcState(t, p.Cmd.Process.Pid, 'T') // the signal is asynchronous
	c.Send("GET", "canary")
	if got := c.ReadWithin(200 * time.Millisecond); got != "<TIMEOUT>" {
		t.Fatalf("a stopped server answered: %s", got)
	}
	if err := p.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if got := c.Read(); got != `"alive"` {
		t.Fatalf("after SIGCONT: %s", got)
	}

	// TERM while clients pipeline writes as fast as they can. The load is
	// on once they have had 10000 replies (counted by the writers: a
	// client of its own asking for the counter may wait behind them).
	stop := make(chan struct{})
	done := make(chan int, 4)
	var replies atomic.Int64
	for range 4 {
		go func() {
			conn, err := net.Dial("tcp", p.Addr)
			if err != nil {
				done <- 0
				return
			}
			defer conn.Close()
			go func() { // drain replies so the server never blocks on us
				buf := make([]byte, 64<<10)
				for {
					n, err := conn.Read(buf)
					replies.Add(int64(bytes.Count(buf[:n], []byte("\n")))) // a line each
					if err != nil {
						return
					}
				}
			}()
			req := strings.Repeat(testutil.Command("INCR", "counter"), 200)
			n := 0
			for {
				select {
				case <-stop:
					done <- n
					return
				default:
				}
				if _, err := conn.Write([]byte(req)); err != nil {
					done <- n
					return
				}
				n++
			}
		}()
	}
	if !waitFor(hangTimeout, func() bool { return replies.Load() >= 10000 }) {
		t.Fatalf("%d replies to the writers after %v", replies.Load(), hangTimeout)
	}
	if err := p.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	code, ok := p.WaitExit(20 * time.Second)
	close(stop)
	for range 4 {
		<-done
	}
	if !ok {
		t.Fatalf("SIGTERM under load: still running after 20 s\n%s", tail(p.Output(), 3000))
	}
	if code != 0 {
		t.Fatalf("SIGTERM under load: exit %d\n%s", code, tail(p.Output(), 3000))
	}
	for _, line := range []string{"Received SIGTERM scheduling shutdown...", "User requested shutdown...", "ready to exit, bye bye"} {
		if !strings.Contains(p.Output(), line) {
			t.Errorf("log lacks %q:\n%s", line, tail(p.Output(), 2000))
		}
	}
}

// TestShutdownDuringDebugSleep: a client sleeping in DEBUG SLEEP with
// every stripe held (an operator's typo: a billion seconds) does not keep
// SIGINT's shutdown from finishing.
func TestShutdownDuringDebugSleep(t *testing.T) {
	p := testutil.StartCorvid(t, "--enable-debug-command", "yes")
	c := testutil.Dial(t, p.Addr)
	expect(t, c, "+OK", "SET", "canary", "alive")
	// 1e9 s fits Valkey's microsecond long long: a real (endless) sleep.
	c.Send("DEBUG", "SLEEP", "1000000000")
	waitBlockedInDebug(t, p.Addr)
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, ok := p.WaitExit(20 * time.Second)
	if !ok {
		t.Fatalf("DEBUG SLEEP kept the shutdown from finishing\n%s", tail(p.Output(), 2000))
	}
	if code != 0 || !strings.Contains(p.Output(), "Received SIGINT scheduling shutdown...") {
		t.Fatalf("SIGINT: exit %d\n%s", code, tail(p.Output(), 2000))
	}
}

// waitBlockedInDebug waits until some client's current command is DEBUG.
func waitBlockedInDebug(t *testing.T, addr string) {
	t.Helper()
	c := testutil.Dial(t, addr)
	if !waitFor(hangTimeout, func() bool { return strings.Contains(c.Do("CLIENT", "LIST"), "cmd=debug") }) {
		t.Fatalf("no client in DEBUG after %v", hangTimeout)
	}
}

// TestDebugSleepBounds: DEBUG SLEEP with a duration Valkey's conversion to
// microseconds cannot hold (1e308, inf, 1e13) or that is not positive
// returns at once, as Valkey's does; a long one ends when the sleeping
// client is killed, releasing the stripes it held.
func TestDebugSleepBounds(t *testing.T) {
	p := testutil.StartCorvid(t, "--enable-debug-command", "yes")
	c := testutil.Dial(t, p.Addr)
	expect(t, c, "+OK", "SET", "canary", "alive")
	for _, d := range []string{"1e308", "inf", "1e13", "nan", "-1", "abc", "0"} {
		c.Send("DEBUG", "SLEEP", d)
		if got := c.ReadWithin(hangTimeout); got != "+OK" {
			t.Fatalf("DEBUG SLEEP %s: %s (Valkey returns at once)", d, got)
		}
	}
	sleeper := testutil.Dial(t, p.Addr)
	id := strings.TrimPrefix(sleeper.Do("CLIENT", "ID"), ":")
	sleeper.Send("DEBUG", "SLEEP", "1000000000")
	waitBlockedInDebug(t, p.Addr)
	expect(t, c, ":1", "CLIENT", "KILL", "ID", id)
	if got := sleeper.ReadWithin(hangTimeout); got != "<EOF>" {
		t.Fatalf("killed sleeper: %s", got)
	}
	alive(t, p) // GET needs canary's stripe: the sleeper released it
}

// TestDeadLogPipe: with its log going to a pipe whose reader has gone,
// the server must not die of SIGPIPE at its next log line.
func TestDeadLogPipe(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	port := testutil.FreePort(t)
	cmd := exec.Command(testutil.ServerBinary(t), "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--dir", t.TempDir(), "--enable-debug-command", "yes")
	cmd.Stdout, cmd.Stderr = w, w
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	w.Close()
	// Read the start-up lines, then hang up.
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("server log ended before it was ready: %v", err)
		}
		if strings.Contains(line, "Ready to accept connections") {
			break
		}
	}
	r.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c := testutil.Dial(t, addr)
	expect(t, c, "+OK", "SET", "canary", "alive")
	for i := range 3 {
		expect(t, c, "+OK", "DEBUG", "LOG", "line "+strconv.Itoa(i))
	}
	cmd.Process.Signal(syscall.SIGHUP) // logged too
	expect(t, c, "+OK", "DEBUG", "LOG", "after SIGHUP")
	select {
	case err := <-exited:
		t.Fatalf("server died writing to a dead log pipe: %v", err)
	default:
	}
	expect(t, c, `"alive"`, "GET", "canary")
}

func waitLog(t *testing.T, p *testutil.Proc, s string) {
	t.Helper()
	if !waitFor(hangTimeout, func() bool { return strings.Contains(p.Output(), s) }) {
		t.Fatalf("log lacks %q after %v:\n%s", s, hangTimeout, tail(p.Output(), 2000))
	}
}

// waitProcState waits until every thread of pid is in state want ('T':
// stopped), from /proc/PID/task/*/stat's third field: a group stop
// reaches the threads one by one.
func waitProcState(t *testing.T, pid int, want byte) {
	t.Helper()
	all := func() bool {
		tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
		if err != nil {
			t.Fatal(err)
		}
		for _, task := range tasks {
			b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/stat", pid, task.Name()))
			if err != nil {
				return false // a thread that just exited: look again
			}
			// tid (comm) S ...: the state follows the last ')'.
			if i := strings.LastIndexByte(string(b), ')'); i < 0 || i+2 >= len(b) || b[i+2] != want {
				return false
			}
		}
		return true
	}
	if !waitFor(hangTimeout, all) {
		t.Fatalf("process %d never had every thread in state %c", pid, want)
	}
}

// rss is the resident set size of pid in bytes.
func rss(t *testing.T, pid int) int64 { return procStatusBytes(t, pid, "VmRSS") }

// procStatusBytes is a kB field of /proc/PID/status (VmRSS, VmHWM) in
// bytes.
func procStatusBytes(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, field+":") {
			kb, _ := strconv.ParseInt(strings.Fields(line)[1], 10, 64)
			return kb << 10
		}
	}
	t.Fatalf("no %s", field)
	return 0
}
