package config

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// These tests use a locally installed redis-server (7.0.x) as an oracle for
// behaviour Valkey 8.0.1 inherited unchanged: CONFIG SET error texts, CONFIG
// GET formatting and start-up error output. Only cases where Valkey 8.0.1
// is known to behave like Redis 7.0 are compared. They skip when
// redis-server is not installed.

func redisServerPath(t *testing.T) string {
	p, err := exec.LookPath("redis-server")
	if err != nil {
		t.Skip("redis-server not installed")
	}
	return p
}

type respConn struct {
	c net.Conn
	r *bufio.Reader
}

func (rc *respConn) do(args ...string) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(args))
	for _, a := range args {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	rc.c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := rc.c.Write([]byte(b.String())); err != nil {
		return "", err
	}
	return rc.read()
}

// read returns simple strings and errors with their type byte, bulk strings
// as-is and arrays as their elements joined by "\n".
func (rc *respConn) read() (string, error) {
	line, err := rc.r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	switch line[0] {
	case '+', '-', ':':
		return line, nil
	case '$':
		n, _ := strconv.Atoi(line[1:])
		if n < 0 {
			return "(nil)", nil
		}
		buf := make([]byte, n+2)
		if _, err := ioReadFull(rc.r, buf); err != nil {
			return "", err
		}
		return string(buf[:n]), nil
	case '*':
		n, _ := strconv.Atoi(line[1:])
		parts := make([]string, 0, n)
		for i := 0; i < n; i++ {
			s, err := rc.read()
			if err != nil {
				return "", err
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, "\n"), nil
	}
	return "", fmt.Errorf("bad reply %q", line)
}

func ioReadFull(r *bufio.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

func freePort(t *testing.T) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startRedis starts redis-server on a free loopback port and stops it (by
// its own pid) when the test ends.
func startRedis(t *testing.T) *respConn {
	bin := redisServerPath(t)
	port := freePort(t)
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "",
		"--appendonly", "no", "--dir", t.TempDir(), "--logfile", "")
	if err := cmd.Start(); err != nil {
		t.Skip("cannot start redis-server:", err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	deadline := time.Now().Add(30 * time.Second) // only a hang reaches it
	for {
		c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port))
		if err == nil {
			rc := &respConn{c: c, r: bufio.NewReader(c)}
			t.Cleanup(func() { c.Close() })
			if r, err := rc.do("PING"); err == nil && r == "+PONG" {
				return rc
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("redis-server did not start")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestCompatConfigSetWithRedis7(t *testing.T) {
	rc := startRedis(t)
	cases := [][]string{
		{"foo", "bar"},
		{"maxmemory", "abc"},
		{"maxmemory", "1.5gb"},
		{"daemonize", "yes"},
		{"maxmemory", "1", "maxmemory", "2"},
		{"maxmemory", "1", "daemonize", "yes", "foo", "3"},
		{"maxmemory", "1", "foo", "2"},
		{"port", "70000"},
		{"protected-mode", "maybe"},
		{"maxmemory-policy", "foo"},
		{"hz", "abc"},
		{"hz", "+1"},
		{"timeout", "-1"},
		{"maxclients", "0"},
		{"slowlog-max-len", "-1"},
		{"proto-max-bulk-len", "10"},
		{"save", "10"},
		{"save", "0 1"},
		{"client-output-buffer-limit", "foo"},
		{"client-output-buffer-limit", "master 1 1 1"},
		{"client-output-buffer-limit", "normal 1x 1 1"},
		{"maxmemory-clients", "-5%"},
		{"maxmemory-clients", "200%"},
		{"unixsocketperm", "999"},
		{"shutdown-on-sigint", "save nosave"},
		{"shutdown-on-sigint", ""},
		{"notify-keyspace-events", "Z"},
		{"oom-score-adj-values", "1 2"},
		{"oom-score-adj-values", "1 2 3000"},
		{"dir", "/tmp"},
		{"dbfilename", "x.rdb"},
		{"latency-tracking-info-percentiles", "101"},
		{"latency-tracking-info-percentiles", "abc"},
		{"slave-priority", "x"},
		{"SLAVE-PRIORITY", "1", "slave-priority", "2"},
		{"bind", strings.TrimSpace(strings.Repeat("127.0.0.1 ", 17))},
		{"cluster-announce-hostname", "a_b"},
	}
	for _, kv := range cases {
		want, err := rc.do(append([]string{"CONFIG", "SET"}, kv...)...)
		if err != nil {
			t.Fatal(err)
		}
		got := "+OK"
		if err := Default().Set(pairs(kv...)); err != nil {
			got = "-" + err.Error()
		}
		if got != want {
			t.Errorf("CONFIG SET %q:\n corvid %s\n  redis %s", kv, got, want)
		}
	}
}

func TestCompatConfigGetFormattingWithRedis7(t *testing.T) {
	rc := startRedis(t)
	sets := [][]string{
		{"maxmemory", "1GB"}, {"maxmemory", "3k"}, {"maxmemory", ""}, {"maxmemory-clients", "5%"},
		{"notify-keyspace-events", "AnKm"}, {"notify-keyspace-events", "g$nE"}, {"notify-keyspace-events", "Ex"},
		{"oom-score-adj", "relative"}, {"oom-score-adj", "absolute"},
		{"shutdown-on-sigint", "save now"}, {"shutdown-on-sigterm", "force nosave"},
		{"latency-tracking-info-percentiles", "50 99.99 100"}, {"latency-tracking-info-percentiles", ""},
		{"client-output-buffer-limit", "replica 1gb 2mb 30 pubsub 1 2 3"},
		{"bind", "127.0.0.1 -::1"}, {"hz", "1000"}, {"hz", "0"},
		{"maxmemory-policy", "ALLKEYS-LFU"}, {"save", "3600 1 300 100"}, {"save", ""},
		{"list-max-ziplist-size", "-3"}, {"hash-max-ziplist-value", "1kb"},
		{"requirepass", "p w"}, {"requirepass", ""},
	}
	c := Default()
	c.SetUnsupported("save", nil) // compare the formatting of real save rules
	for _, kv := range sets {
		if r, err := rc.do("CONFIG", "SET", kv[0], kv[1]); err != nil || r != "+OK" {
			t.Fatalf("redis CONFIG SET %q: %q %v", kv, r, err)
		}
		if err := c.Set(pairs(kv...)); err != nil {
			t.Errorf("corvid CONFIG SET %q: %v", kv, err)
			continue
		}
		want, err := rc.do("CONFIG", "GET", kv[0])
		if err != nil {
			t.Fatal(err)
		}
		g := c.Get(kv[0])
		got := ""
		if len(g) == 1 {
			got = g[0][0] + "\n" + g[0][1]
		}
		if got != want {
			t.Errorf("after CONFIG SET %q: corvid %q, redis %q", kv, got, want)
		}
	}
	// Glob matching includes aliases, case-insensitively.
	want, _ := rc.do("CONFIG", "GET", "SLAVE-*")
	var gotNames []string
	for _, p := range c.Get("SLAVE-*") {
		gotNames = append(gotNames, p[0])
	}
	var wantNames []string
	for i, s := range strings.Split(want, "\n") {
		if i%2 == 0 {
			wantNames = append(wantNames, s)
		}
	}
	if fmt.Sprint(sortStrings(gotNames)) != fmt.Sprint(sortStrings(wantNames)) {
		t.Errorf("CONFIG GET SLAVE-*: corvid %v, redis %v", gotNames, wantNames)
	}
}

func sortStrings(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestCompatStartupErrorsWithRedis7(t *testing.T) {
	bin := redisServerPath(t)
	cases := []struct {
		conf string
		args []string
	}{
		{conf: "port 7777\nfoo bar\n"},
		{conf: "maxmemory 102gb   // 80% of memory\n"},
		{conf: "port \"abc\n"},
		{conf: "port 'a'b\n"},
		{conf: "port 70000\n"},
		{conf: "maxmemory 1.5gb\n"},
		{conf: "maxmemory-clients 101%\n"},
		{conf: "protected-mode maybe\n"},
		{conf: "maxmemory-policy lru\n"},
		{conf: "save \"3600 1\" \"10\"\n"},
		{conf: "client-output-buffer-limit master 0 0 0\n"},
		{conf: "notify-keyspace-events KEZ\n"},
		{conf: "oom-score-adj-values 0 200 2001\n"},
		{conf: "# comment\n\n   \tbogus 1  \n"},
		{conf: "maxclients 0\n"},
		{conf: "unixsocketperm 999\n"},
		{conf: "unixsocketperm 1000\n"},
		{conf: "shutdown-on-sigint save nosave\n"},
		{conf: "dbfilename a/b\n"},
		{conf: "latency-tracking-info-percentiles 50 101\n"},
		{conf: "sentinel monitor m 127.0.0.1 6379 2\n"},
		{conf: "logfile /nonexistent-corvid-dir/x.log\n"},
		{conf: "port 1\n", args: []string{"--maxmemory", "1", "--port", "1x"}},
		{conf: "port 1\n", args: []string{"--hz", "abc"}},
	}
	for _, tc := range cases {
		path := writeConf(t, t.TempDir(), "r.conf", tc.conf)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		out, _ := exec.CommandContext(ctx, bin, append([]string{path}, tc.args...)...).CombinedOutput()
		cancel()
		want := strings.TrimRight(strings.Replace(string(out), "(Redis 7.0.15)", "(Version "+ValkeyVersion+")", 1), "\n")
		_, err := Load(path, tc.args)
		got := "<nil>"
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("conf %q args %q:\n corvid %q\n  redis %q", tc.conf, tc.args, got, want)
		}
	}
}
