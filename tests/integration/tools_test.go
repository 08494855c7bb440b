package integration

import (
	"context"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestRedisBenchmark runs the acceptance command against a server
// started from the seed config: every test must finish, report requests
// per second, and nothing may print an error or warning.
func TestRedisBenchmark(t *testing.T) {
	bench := lookTool(t, "redis-benchmark", "valkey-benchmark")
	srv := testutil.StartCorvid(t, abs(t, "testdata/seed-valkey.conf"), "--daemonize", "no")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bench, "-h", "127.0.0.1", "-p", strconv.Itoa(srv.Port),
		"-t", "ping,set,get,incr,mset", "-q", "-n", "20000", "-c", "20")
	out, err := cmd.CombinedOutput()
	text := string(out)
	if err != nil {
		t.Fatalf("%s: %v\n%s", bench, err, text)
	}
	// -q prints progress lines separated by \r; keep the final ones.
	results := map[string]bool{}
	re := regexp.MustCompile(`^([A-Z_]+(?: \(10 keys\))?): [0-9.]+ requests per second`)
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\r' || r == '\n' }) {
		line = strings.TrimSpace(line)
		if m := re.FindStringSubmatch(line); m != nil {
			results[m[1]] = true
		}
		low := strings.ToLower(line)
		if strings.Contains(low, "error") || strings.Contains(low, "warning") || strings.HasPrefix(line, "-ERR") {
			t.Errorf("%s printed: %s", bench, line)
		}
	}
	for _, name := range []string{"PING_INLINE", "PING_MBULK", "SET", "GET", "INCR", "MSET (10 keys)"} {
		if !results[name] {
			t.Errorf("no requests-per-second result for %s in:\n%s", name, text)
		}
	}
	// Without -r every request uses the literal key names: SET/MSET wrote
	// the 3-byte default payload, and 20 clients' INCRs all counted.
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, ":3", "STRLEN", "key:__rand_int__")
	expect(t, c, `"20000"`, "GET", "counter:__rand_int__")
}

// TestRedisCLI drives a basic redis-cli session: commands on stdin, and
// single commands as arguments, in RESP2 and RESP3 (-3).
func TestRedisCLI(t *testing.T) {
	cli := lookTool(t, "valkey-cli", "redis-cli")
	srv := testutil.StartCorvid(t)
	run := func(stdin string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		full := append([]string{"-h", "127.0.0.1", "-p", strconv.Itoa(srv.Port)}, args...)
		cmd := exec.CommandContext(ctx, cli, full...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", cli, args, err, out)
		}
		return string(out)
	}
	session := "SET greeting hello\nGET greeting\nINCR visits\nINCRBY visits 41\nEXISTS greeting nope\nGET nope\nMSET a 1 b 2\nMGET a b nope\nNOSUCHCMD x\nDEL greeting\nPING\n"
	want := "OK\nhello\n1\n42\n1\n\nOK\n1\n2\n\nERR unknown command 'NOSUCHCMD', with args beginning with: 'x' \n\n1\nPONG\n"
	if got := run(session); got != want {
		t.Errorf("piped session:\n got: %q\nwant: %q", got, want)
	}
	// As a terminal user sees it (--no-raw formats like the interactive shell).
	if got := run("", "--no-raw", "MGET", "a", "nope"); got != "1) \"1\"\n2) (nil)\n" {
		t.Errorf("--no-raw MGET: %q", got)
	}
	if got := run("", "--no-raw", "INCR", "visits"); got != "(integer) 43\n" {
		t.Errorf("--no-raw INCR: %q", got)
	}
	if got := run("", "--no-raw", "GET", "nope"); got != "(nil)\n" {
		t.Errorf("--no-raw GET missing: %q", got)
	}
	if got := run("", "-3", "--no-raw", "HELLO", "3"); !strings.Contains(got, "\"server\" => \"valkey\"") || !strings.Contains(got, "\"proto\" => (integer) 3") {
		t.Errorf("-3 HELLO 3:\n%s", got)
	}
	if got := run("", "-n", "5", "SET", "indb5", "x"); got != "OK\n" {
		t.Errorf("-n 5 SET: %q", got)
	}
	if got := run("", "-n", "5", "DBSIZE"); got != "1\n" {
		t.Errorf("-n 5 DBSIZE: %q", got)
	}
	// --scan uses SCAN with a cursor until it returns 0.
	got := strings.Fields(run("", "--scan", "--pattern", "[ab]"))
	if len(got) != 2 || !(got[0] == "a" && got[1] == "b" || got[0] == "b" && got[1] == "a") {
		t.Errorf("--scan --pattern [ab]: %v", got)
	}
}
