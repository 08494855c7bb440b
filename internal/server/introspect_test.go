package server

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// startIntroServer runs an in-process server on a free loopback port.
func startIntroServer(t *testing.T, args ...string) (*Server, string) {
	t.Helper()
	s := listenServer(t, "", append([]string{"--port", "0", "--bind", "127.0.0.1"}, args...)...)
	go s.Serve()
	t.Cleanup(s.Close)
	return s, s.Addr()
}

// listenServer makes an in-process server from a config file (path, may
// be "") and overrides, listening but not serving yet.
func listenServer(t *testing.T, path string, args ...string) *Server {
	t.Helper()
	s, err := tryListenServer(t, path, args...)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// tryListenServer is listenServer returning Listen's error.
func tryListenServer(t *testing.T, path string, args ...string) (*Server, error) {
	t.Helper()
	if !slices.Contains(args, "--dir") {
		// Saves (SHUTDOWN, DEBUG RELOAD, save points) go to a directory
		// of the test's, never into the package.
		args = append(slices.Clip(args), "--dir", t.TempDir())
	}
	cfg, err := config.Load(path, testutil.WithNetEngine(args))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s, s.Listen()
}

// startOnFreePort is startIntroServer with the port of flag (a
// directive taking a port: --metrics-port) picked free at run time. A
// port found free can be taken by another process before the server
// binds it; then it picks another, up to five times.
func startOnFreePort(t *testing.T, flag string, args ...string) (*Server, string, int) {
	t.Helper()
	for try := 0; ; try++ {
		p := testutil.FreePort(t)
		s, err := tryListenServer(t, "", append([]string{"--port", "0", "--bind", "127.0.0.1", flag, strconv.Itoa(p)}, args...)...)
		if err != nil {
			if try < 4 && strings.Contains(err.Error(), "address already in use") {
				continue
			}
			t.Fatal(err)
		}
		go s.Serve()
		t.Cleanup(s.Close)
		return s, s.Addr(), p
	}
}

// TestIntrospectMatchesRedis sends the same commands to Corvid and to
// redis-server 7.0.15 and compares the replies exactly. Only cases where
// Valkey 8.0.1 behaves like Redis 7.0 are here; the Valkey-8-only
// behaviour is tested against fixed expectations further down.
func TestIntrospectMatchesRedis(t *testing.T) {
	red := testutil.StartRedis(t, "--enable-debug-command", "yes")
	_, addr := startIntroServer(t, "--enable-debug-command", "yes")
	cv := testutil.Dial(t, addr)
	rd := testutil.Dial(t, red.Addr)

	cases := [][]string{
		// CLIENT
		{"CLIENT", "SETNAME", "a b"},
		{"CLIENT", "SETNAME", "a\nb"},
		{"CLIENT", "GETNAME"},
		{"CLIENT", "SETNAME", "worker"},
		{"CLIENT", "GETNAME"},
		{"CLIENT", "SETNAME", ""},
		{"CLIENT", "GETNAME"},
		{"CLIENT", "LIST", "TYPE", "bogus"},
		{"CLIENT", "LIST", "TYPE"},
		{"CLIENT", "LIST", "ID", "abc"},
		{"CLIENT", "LIST", "ID", "999999"},
		{"CLIENT", "LIST", "foo"},
		{"CLIENT", "LIST", "TYPE", "normal", "x"},
		{"CLIENT", "KILL", "1.2.3.4:5"},
		{"CLIENT", "KILL", "ID", "0"},
		{"CLIENT", "KILL", "ID", "-3"},
		{"CLIENT", "KILL", "ID", "abc"},
		{"CLIENT", "KILL", "ID", "999999"},
		{"CLIENT", "KILL", "TYPE", "bogus"},
		{"CLIENT", "KILL", "TYPE", "master"},
		{"CLIENT", "KILL", "TYPE", "pubsub"},
		{"CLIENT", "KILL", "USER", "nobody"},
		{"CLIENT", "KILL", "SKIPME", "maybe"},
		{"CLIENT", "KILL", "ADDR", "1.2.3.4:5", "SKIPME"},
		{"CLIENT", "KILL", "ADDR", "1.2.3.4:5", "SKIPME", "no"},
		{"CLIENT", "KILL", "LADDR", "1.2.3.4:5"},
		{"CLIENT", "KILL", "BOGUS", "x"},
		{"CLIENT", "PAUSE", "abc"},
		{"CLIENT", "PAUSE", "-1"},
		{"CLIENT", "PAUSE", "10", "BOGUS"},
		{"CLIENT", "PAUSE", "10", "WRITE", "x"},
		{"CLIENT", "PAUSE", "0"},
		{"CLIENT", "UNPAUSE"},
		{"CLIENT", "UNBLOCK", "1", "BOGUS"},
		{"CLIENT", "UNBLOCK", "abc"},
		{"CLIENT", "UNBLOCK", "999999"},
		{"CLIENT", "UNBLOCK", "999999", "ERROR"},
		{"CLIENT", "UNBLOCK", "1", "TIMEOUT", "x"},
		{"CLIENT", "REPLY", "BOGUS"},
		{"CLIENT", "NO-EVICT", "maybe"},
		{"CLIENT", "NO-EVICT", "on"},
		{"CLIENT", "NO-EVICT", "off"},
		{"CLIENT", "BOGUS"},
		{"CLIENT", "CACHING", "yes"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "GETREDIR"},
		{"CLIENT"},
		// CONFIG
		{"CONFIG", "SET", "maxmemory"},
		{"CONFIG", "SET", "maxmemory", "1", "x"},
		{"CONFIG", "SET", "nosuchoption", "1"},
		{"CONFIG", "SET", "maxmemory", "abc"},
		{"CONFIG", "GET", "maxmemory"},
		{"CONFIG", "GET", "nosuchoption"},
		{"CONFIG", "SET", "hz", "20", "maxmemory-policy", "allkeys-lru"},
		{"CONFIG", "GET", "hz"},
		{"CONFIG", "SET", "hz", "10", "maxmemory-policy", "noeviction"},
		{"CONFIG", "REWRITE"},
		{"CONFIG", "RESETSTAT"},
		{"CONFIG", "BOGUS"},
		// SLOWLOG
		{"SLOWLOG", "GET", "-2"},
		{"SLOWLOG", "GET", "abc"},
		{"SLOWLOG", "GET", "1", "2"},
		{"SLOWLOG", "RESET"},
		{"SLOWLOG", "LEN"},
		{"SLOWLOG", "GET"},
		{"SLOWLOG", "GET", "-1"},
		// LATENCY
		{"LATENCY", "HISTORY", "foo"},
		{"LATENCY", "GRAPH", "foo"},
		{"LATENCY", "RESET"},
		{"LATENCY", "RESET", "foo", "bar"},
		{"LATENCY", "LATEST"},
		{"LATENCY", "HISTOGRAM", "nosuchcommand"},
		// COMMAND
		{"COMMAND", "GETKEYS"},
		{"COMMAND", "GETKEYS", "get", "a", "b"},
		{"COMMAND", "GETKEYS", "set", "a", "b"},
		{"COMMAND", "GETKEYS", "mset", "a", "1", "b", "2"},
		{"COMMAND", "GETKEYS", "object", "encoding", "k"},
		{"COMMAND", "GETKEYS", "object", "bogus", "k"},
		{"COMMAND", "GETKEYSANDFLAGS", "set", "a", "b"},
		{"COMMAND", "GETKEYSANDFLAGS", "getdel", "a"},
		{"COMMAND", "GETKEYSANDFLAGS", "copy", "a", "b"},
		{"COMMAND", "INFO", "get"},
		{"COMMAND", "INFO", "config|get"},
		{"COMMAND", "INFO", "config|bogus"},
		{"COMMAND", "INFO", "get", "bogus", "TIME", "echo"},
		{"COMMAND", "LIST", "FILTERBY"},
		{"COMMAND", "LIST", "FILTERBY", "bogus", "x"},
		{"COMMAND", "LIST", "FILTERBY", "pattern", "getd*"},
		{"COMMAND", "LIST", "FILTERBY", "module", "x"},
		{"COMMAND", "LIST", "bogus"},
		{"COMMAND", "DOCS", "bogus"},
		{"COMMAND", "BOGUS"},
		// Admin
		{"SHUTDOWN", "ABORT"},
		{"SHUTDOWN", "BOGUS"},
		{"SHUTDOWN", "NOSAVE", "SAVE"},
		{"SHUTDOWN", "ABORT", "NOW"},
		{"INFO", "nosuchsection"},
		{"LASTSAVE", "x"},
		{"TIME", "x"},
		// DEBUG
		{"DEBUG"},
		{"DEBUG", "BOGUS"},
		{"DEBUG", "SLEEP", "0"},
		{"DEBUG", "SET-ACTIVE-EXPIRE", "1"},
		{"DEBUG", "OBJECT", "nosuchkey"},
		{"DEBUG", "DIGEST"},
		{"DEBUG", "DIGEST-VALUE"},
		{"DEBUG", "DIGEST-VALUE", "nosuchkey"},
		{"DEBUG", "PROTOCOL", "bogus"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "5gb"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "abc"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "1mb"},
		{"DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0"},
		{"DEBUG", "CHANGE-REPL-ID"},
		{"DEBUG", "LISTPACK", "nosuchkey"},
		{"DEBUG", "ERROR", "FOO bar"},
		{"DEBUG", "LOG", "hello"},
		{"DEBUG", "POPULATE", "abc"},
		{"DEBUG", "POPULATE", "-1"},
	}
	for _, args := range cases {
		got, want := cv.Do(args...), rd.Do(args...)
		if got != want {
			t.Errorf("%q:\n corvid %s\n redis  %s", args, got, want)
		}
	}
}

// TestDebugDigestMatchesRedis builds the same dataset on both servers and
// compares DEBUG DIGEST and DEBUG DIGEST-VALUE, which hash the keys and
// values with Valkey's algorithm.
func TestDebugDigestMatchesRedis(t *testing.T) {
	red := testutil.StartRedis(t, "--enable-debug-command", "yes")
	_, addr := startIntroServer(t, "--enable-debug-command", "yes")
	cv := testutil.Dial(t, addr)
	rd := testutil.Dial(t, red.Addr)
	both := func(args ...string) {
		t.Helper()
		if got, want := cv.Do(args...), rd.Do(args...); got != want {
			t.Fatalf("%q: corvid %s, redis %s", args, got, want)
		}
	}
	both("DEBUG", "DIGEST")
	both("SET", "foo", "bar")
	both("DEBUG", "DIGEST")
	both("SET", "n", "12345")
	both("SET", "ttl", "v", "EX", "1000")
	both("SET", "big", strings.Repeat("xyz", 100))
	both("DEBUG", "DIGEST")
	both("DEBUG", "DIGEST-VALUE", "foo", "n", "ttl", "nosuchkey")
	both("SELECT", "3")
	both("SET", "foo", "bar")
	both("DEBUG", "DIGEST")
	both("DEBUG", "POPULATE", "50")
	both("DEBUG", "POPULATE", "10", "pfx", "20")
	both("DBSIZE")
	both("GET", "pfx:3")
	both("DEBUG", "DIGEST")
	both("FLUSHALL")
	both("DEBUG", "DIGEST")
}

// TestDebugObjectMatchesRedis compares DEBUG OBJECT's fields other than
// the address and the clock.
func TestDebugObjectMatchesRedis(t *testing.T) {
	red := testutil.StartRedis(t, "--enable-debug-command", "yes")
	_, addr := startIntroServer(t, "--enable-debug-command", "yes")
	cv := testutil.Dial(t, addr)
	rd := testutil.Dial(t, red.Addr)
	// The address and clocks differ; lfu_* are Valkey 8 additions.
	mask := regexp.MustCompile(`Value at:0x[0-9a-f]+|lru:\d+|lru_seconds_idle:\d+| lfu_freq:\d+ lfu_access_time_minutes:\d+`)
	values := []string{"bar", "1", "-128", "300", "-40000", "100000", "12345678901", "007",
		strings.Repeat("a", 20), "q8Wz1Lk0vYx3Rt9Mn2Bc7Hd5Fg4Js6Pe8Ua0Io1", // 40 bytes, embstr
		"x9K2mP4qL7vN1bR8tY3wZ6cF5hJ0dS2gA4eU7iO9kM1nB3vC5xZ8lQ0pW2rT4yU6"} // raw, incompressible
	for i, v := range values {
		k := "k" + strconv.Itoa(i)
		cv.Do("SET", k, v)
		rd.Do("SET", k, v)
		got := mask.ReplaceAllString(cv.Do("DEBUG", "OBJECT", k), "")
		want := mask.ReplaceAllString(rd.Do("DEBUG", "OBJECT", k), "")
		if got != want {
			t.Errorf("DEBUG OBJECT %q: corvid %s, redis %s", v, got, want)
		}
	}
	if got := cv.Do("DEBUG", "OBJECT", "k0", "fast"); !regexp.MustCompile(`^\+Value at:0x[0-9a-f]+ refcount:1 encoding:embstr lru:\d+ lru_seconds_idle:\d+ lfu_freq:\d+ lfu_access_time_minutes:\d+$`).MatchString(got) {
		t.Errorf("DEBUG OBJECT fast: %s", got)
	}
}

// TestDebugProtocolMatchesRedis compares the exact bytes of every DEBUG
// PROTOCOL type in RESP2 and RESP3.
func TestDebugProtocolMatchesRedis(t *testing.T) {
	red := testutil.StartRedis(t, "--enable-debug-command", "yes")
	_, addr := startIntroServer(t, "--enable-debug-command", "yes")
	for _, proto := range []string{"2", "3"} {
		cv := testutil.Dial(t, addr)
		rd := testutil.Dial(t, red.Addr)
		cv.Do("HELLO", proto)
		rd.Do("HELLO", proto)
		for _, typ := range []string{"string", "integer", "double", "bignum", "null", "array", "set", "map", "attrib", "push", "verbatim", "true", "false"} {
			cv.Send("DEBUG", "PROTOCOL", typ)
			rd.Send("DEBUG", "PROTOCOL", typ)
			got, want := cv.ReadExact(), rd.ReadExact()
			if got != want {
				t.Errorf("RESP%s DEBUG PROTOCOL %s: corvid %q, redis %q", proto, typ, got, want)
			}
			if (typ == "push" || typ == "attrib") && proto == "3" {
				// Both are followed by a normal reply.
				if got, want := cv.ReadExact(), rd.ReadExact(); got != want {
					t.Errorf("RESP3 DEBUG PROTOCOL %s second reply: corvid %q, redis %q", typ, got, want)
				}
			}
		}
	}
}

func TestDebugGate(t *testing.T) {
	const refusal = "-ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", you can run it from a local connection, otherwise you need to set this option in the configuration file, and then restart the server."
	tests := []struct {
		setting, want string
	}{
		{"no", refusal},
		{"local", "+OK"}, // the test connects over loopback
		{"yes", "+OK"},
	}
	for _, tc := range tests {
		_, addr := startIntroServer(t, "--enable-debug-command", tc.setting)
		cv := testutil.Dial(t, addr)
		if got := cv.Do("DEBUG", "SLEEP", "0"); got != tc.want {
			t.Errorf("enable-debug-command %s: %s, want %s", tc.setting, got, tc.want)
		}
	}
}

func TestDebugSubcommands(t *testing.T) {
	s, addr := startIntroServer(t, "--enable-debug-command", "yes")
	cv := testutil.Dial(t, addr)
	tests := []struct {
		args []string
		want string // regexp
	}{
		// Valkey 8 words it "Valkey"; Redis 7.0 says "Redis".
		{[]string{"DEBUG", "STRINGMATCH-LEN"}, `^\+Apparently Valkey did not crash: test passed$`},
		{[]string{"DEBUG", "SET-ACTIVE-EXPIRE", "0"}, `^\+OK$`},
		{[]string{"DEBUG", "SLEEP", "0.01"}, `^\+OK$`},
		{[]string{"DEBUG", "SLEEP", "junk"}, `^\+OK$`},
		{[]string{"DEBUG", "RELOAD"}, `^\+OK$`},
		{[]string{"DEBUG", "RELOAD", "MERGE"}, `^\+OK$`},
		{[]string{"DEBUG", "RELOAD", "SOON"}, `^-ERR DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options\.$`},
		{[]string{"DEBUG", "HELP"}, `^\*\[\+DEBUG <subcommand> \[<arg> \[value\] \[opt\] \.\.\.\]\. Subcommands are:, .*\+HELP, \+    Print this help\.\]$`},
		{[]string{"SET", "s", "v"}, `^\+OK$`},
		{[]string{"DEBUG", "RELOAD", "NOFLUSH"}, `^-ERR Error trying to load the RDB dump, check server logs\.$`}, // every key twice
		{[]string{"DEBUG", "LISTPACK", "s"}, `^-ERR Not a listpack encoded object\.$`},
		{[]string{"DEBUG", "QUICKLIST", "s"}, `^-ERR Not a quicklist encoded object\.$`},
	}
	for _, tc := range tests {
		if got := cv.Do(tc.args...); !regexp.MustCompile(tc.want).MatchString(got) {
			t.Errorf("%q: %s, want /%s/", tc.args, got, tc.want)
		}
	}
	if s.expire.Load() {
		t.Error("DEBUG SET-ACTIVE-EXPIRE 0 did not switch active expiry off")
	}
	if got := s.QuicklistPackedThreshold(); got != 1<<30 {
		t.Errorf("packed threshold %d, want default", got)
	}
	cv.Do("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "4kb")
	if got := s.QuicklistPackedThreshold(); got != 4096 {
		t.Errorf("packed threshold %d, want 4096", got)
	}
	cv.Do("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0") // process-wide, as Valkey's: restore it
	if got := s.QuicklistPackedThreshold(); got != 1<<30 {
		t.Errorf("packed threshold %d after 0, want the default", got)
	}
	before := infoField(t, cv.Do("INFO", "replication"), "master_replid")
	cv.Do("DEBUG", "CHANGE-REPL-ID")
	if after := infoField(t, cv.Do("INFO", "replication"), "master_replid"); after == before || len(after) != 40 {
		t.Errorf("master_replid %q -> %q", before, after)
	}
}

// infoField extracts one field from a canonical (quoted) INFO reply.
func infoField(t *testing.T, reply, field string) string {
	t.Helper()
	text, err := strconv.Unquote(reply)
	if err != nil {
		t.Fatalf("INFO reply %s: %v", reply, err)
	}
	for _, line := range strings.Split(text, "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	return ""
}

// clientListKeys is the field order of Valkey 8.0's CLIENT LIST line.
var clientListKeys = []string{"id", "addr", "laddr", "fd", "name", "age", "idle", "flags", "db", "sub", "psub", "ssub",
	"multi", "watch", "qbuf", "qbuf-free", "argv-mem", "multi-mem", "rbs", "rbp", "obl", "oll", "omem", "tot-mem",
	"events", "cmd", "user", "redir", "resp", "lib-name", "lib-ver", "tot-net-in", "tot-net-out", "tot-cmds"}

func parseClientLine(t *testing.T, line string) map[string]string {
	t.Helper()
	fields := strings.Split(line, " ")
	if len(fields) != len(clientListKeys) {
		t.Fatalf("CLIENT line has %d fields, want %d: %s", len(fields), len(clientListKeys), line)
	}
	m := map[string]string{}
	for i, f := range fields {
		k, v, _ := strings.Cut(f, "=")
		if k != clientListKeys[i] {
			t.Fatalf("field %d is %q, want %q: %s", i, k, clientListKeys[i], line)
		}
		m[k] = v
	}
	return m
}

func clientLines(t *testing.T, reply string) []map[string]string {
	t.Helper()
	text, err := strconv.Unquote(reply)
	if err != nil {
		t.Fatalf("CLIENT LIST reply %s", reply)
	}
	var out []map[string]string
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		out = append(out, parseClientLine(t, l))
	}
	return out
}

func TestClientListAndInfo(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	b := testutil.Dial(t, addr)
	idA := strings.TrimPrefix(a.Do("CLIENT", "ID"), ":")
	idB := strings.TrimPrefix(b.Do("CLIENT", "ID"), ":")

	for _, tc := range []struct{ args []string }{
		{[]string{"CLIENT", "SETNAME", "alpha"}},
		{[]string{"CLIENT", "SETINFO", "LIB-NAME", "corvid-test"}},
		{[]string{"CLIENT", "SETINFO", "lib-ver", "1.2.3"}},
		{[]string{"CLIENT", "NO-TOUCH", "on"}},
		{[]string{"CLIENT", "NO-EVICT", "on"}},
		{[]string{"SELECT", "2"}},
	} {
		if got := a.Do(tc.args...); got != "+OK" {
			t.Fatalf("%q: %s", tc.args, got)
		}
	}
	info := clientLines(t, a.Do("CLIENT", "INFO"))[0]
	want := map[string]string{"id": idA, "name": "alpha", "flags": "eT", "db": "2", "multi": "-1", "cmd": "client|info",
		"user": "default", "resp": "2", "lib-name": "corvid-test", "lib-ver": "1.2.3", "events": "r", "redir": "-1",
		"argv-mem": "10", "sub": "0"}
	for k, v := range want {
		if info[k] != v {
			t.Errorf("CLIENT INFO %s=%q, want %q", k, info[k], v)
		}
	}
	if info["addr"] == "" || info["laddr"] != addr {
		t.Errorf("addr=%q laddr=%q (server %s)", info["addr"], info["laddr"], addr)
	}

	all := clientLines(t, b.Do("CLIENT", "LIST"))
	if len(all) != 2 || all[0]["id"] != idA || all[1]["id"] != idB {
		t.Fatalf("CLIENT LIST: %v", all)
	}
	if all[1]["cmd"] != "client|list" || all[0]["name"] != "alpha" || all[0]["db"] != "2" {
		t.Errorf("CLIENT LIST lines: %v", all)
	}
	if got := clientLines(t, b.Do("CLIENT", "LIST", "ID", idB, "999", idA)); len(got) != 2 || got[0]["id"] != idB || got[1]["id"] != idA {
		t.Errorf("CLIENT LIST ID keeps the order given: %v", got)
	}
	if got := clientLines(t, b.Do("CLIENT", "LIST", "TYPE", "normal")); len(got) != 2 {
		t.Errorf("CLIENT LIST TYPE normal: %v", got)
	}
	if got := b.Do("CLIENT", "LIST", "TYPE", "replica"); got != `""` {
		t.Errorf("CLIENT LIST TYPE replica: %s", got)
	}

	// The caller's own MULTI state.
	a.Do("MULTI")
	a.Do("PING")
	if got := a.Do("CLIENT", "INFO"); got != "+QUEUED" {
		t.Fatalf("CLIENT INFO in MULTI: %s", got)
	}
	a.Do("DISCARD")

	// Valkey 8 only (Redis 7.0 has no SETINFO): validation texts.
	if got := a.Do("CLIENT", "SETINFO", "lib-name", "a b"); got != "-ERR lib-name cannot contain spaces, newlines or special characters." {
		t.Errorf("SETINFO bad value: %s", got)
	}
	if got := a.Do("CLIENT", "SETINFO", "foo", "x"); got != "-ERR Unrecognized option 'foo'" {
		t.Errorf("SETINFO bad option: %s", got)
	}
	if got := a.Do("CLIENT", "NO-TOUCH", "maybe"); got != "-ERR syntax error" {
		t.Errorf("NO-TOUCH bad arg: %s", got)
	}

	// RESP3: CLIENT INFO and LIST are verbatim strings.
	c := testutil.Dial(t, addr)
	c.Do("HELLO", "3")
	c.Send("CLIENT", "INFO")
	if got := c.ReadExact(); !strings.HasPrefix(got, "=") || !strings.Contains(got, "txt:id=") || !strings.Contains(got, " resp=3 ") {
		t.Errorf("RESP3 CLIENT INFO: %q", got)
	}
}

func TestClientKill(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	b := testutil.Dial(t, addr)
	idB := strings.TrimPrefix(b.Do("CLIENT", "ID"), ":")
	bAddr := clientLines(t, b.Do("CLIENT", "INFO"))[0]["addr"]

	if got := a.Do("CLIENT", "KILL", "ID", idB); got != ":1" {
		t.Fatalf("KILL ID: %s", got)
	}
	if got := b.Do("PING"); got != "<EOF>" {
		t.Errorf("killed client still answers: %s", got)
	}

	c := testutil.Dial(t, addr)
	cAddr := clientLines(t, c.Do("CLIENT", "INFO"))[0]["addr"]
	if got := a.Do("CLIENT", "KILL", bAddr); got != "-ERR No such client" {
		t.Errorf("old form, gone client: %s", got)
	}
	if got := a.Do("CLIENT", "KILL", cAddr); got != "+OK" {
		t.Errorf("old form: %s", got)
	}
	if got := c.Do("PING"); got != "<EOF>" {
		t.Errorf("client killed by address still answers: %s", got)
	}

	// SKIPME yes (the default) spares the caller; MAXAGE (Valkey 8 only)
	// filters by age.
	d := testutil.Dial(t, addr)
	d.Do("PING")
	if got := a.Do("CLIENT", "KILL", "MAXAGE", "1000"); got != ":0" {
		t.Errorf("MAXAGE 1000: %s", got)
	}
	if got := a.Do("CLIENT", "KILL", "MAXAGE", "abc"); got != "-ERR maxage is not an integer or out of range" {
		t.Errorf("MAXAGE abc: %s", got)
	}
	if got := a.Do("CLIENT", "KILL", "MAXAGE", "0"); got != "-ERR maxage should be greater than 0" {
		t.Errorf("MAXAGE 0: %s", got)
	}
	if got := a.Do("CLIENT", "KILL", "USER", "default"); got != ":1" {
		t.Errorf("KILL USER default: %s", got)
	}
	if got := d.Do("PING"); got != "<EOF>" {
		t.Errorf("client killed by user still answers: %s", got)
	}
	// SKIPME no kills the caller too, after its reply.
	if got := a.Do("CLIENT", "KILL", "USER", "default", "SKIPME", "no"); got != ":1" {
		t.Errorf("KILL SKIPME no: %s", got)
	}
	if got := a.Do("PING"); got != "<EOF>" {
		t.Errorf("caller survived SKIPME no: %s", got)
	}
}

// TestClientPauseWrite: a WRITE pause holds writes and not reads, an ALL
// pause holds reads too, both until their time is up, and UNPAUSE ends a
// pause early. Only lower bounds on time are checked (a held command
// cannot answer before its pause ends); the rest is the order of replies.
func TestClientPauseWrite(t *testing.T) {
	s, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	b := testutil.Dial(t, addr)
	pausedAt := time.Now()
	if got := a.Do("CLIENT", "PAUSE", "300", "WRITE"); got != "+OK" {
		t.Fatal(got)
	}
	if got := b.Do("GET", "k"); got != "(nil)" {
		t.Errorf("read during WRITE pause: %s", got)
	}
	if got := b.Do("SET", "k", "v"); got != "+OK" || time.Since(pausedAt) < 300*time.Millisecond {
		t.Errorf("write during WRITE pause: %s after %v", got, time.Since(pausedAt))
	}
	// ALL holds back every command, reads included (and, as in Valkey,
	// a CLIENT UNPAUSE from a normal client too).
	pausedAt = time.Now()
	a.Do("CLIENT", "PAUSE", "300", "ALL")
	if got := b.Do("GET", "k"); got != `"v"` || time.Since(pausedAt) < 300*time.Millisecond {
		t.Errorf("read during ALL pause: %s after %v", got, time.Since(pausedAt))
	}
	// UNPAUSE (not a write) ends a WRITE pause early: this one would
	// outlast the test's read deadline.
	a.Do("CLIENT", "PAUSE", "600000", "WRITE")
	set := testutil.Command("SET", "k", "w")
	base := s.stats.netInput.Load()
	b.WriteRaw(set)
	inputRead(t, s, base+int64(len(set))) // the SET is held
	if got := a.Do("GET", "k"); got != `"v"` {
		t.Errorf("read while the SET is held: %s", got)
	}
	if got := a.Do("CLIENT", "UNPAUSE"); got != "+OK" {
		t.Fatal(got)
	}
	if got := b.Read(); got != "+OK" {
		t.Errorf("SET after UNPAUSE: %s", got)
	}
	if got := a.Do("GET", "k"); got != `"w"` {
		t.Errorf("GET after UNPAUSE: %s", got)
	}
}

func TestClientReply(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	a.Send("CLIENT", "REPLY", "OFF")
	a.Send("PING")
	a.Send("CLIENT", "REPLY", "BOGUS") // silenced while OFF
	a.Send("CLIENT", "REPLY", "ON")
	if got := a.Read(); got != "+OK" {
		t.Fatalf("first reply after OFF/ON: %s", got)
	}
	a.Send("CLIENT", "REPLY", "SKIP")
	a.Send("ECHO", "skipped")
	a.Send("ECHO", "shown")
	if got := a.Read(); got != `"shown"` {
		t.Errorf("after SKIP: %s", got)
	}
}

func TestClientUnblock(t *testing.T) {
	s, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	b := testutil.Dial(t, addr)
	idB, _ := strconv.ParseInt(strings.TrimPrefix(b.Do("CLIENT", "ID"), ":"), 10, 64)
	target := s.clientByID(idB)
	if got := a.Do("CLIENT", "UNBLOCK", strconv.FormatInt(idB, 10)); got != ":0" {
		t.Errorf("UNBLOCK of a client that is not blocked: %s", got)
	}
	// Mark the client blocked as a blocking command would, without
	// SetBlocked's socket watcher: that belongs to the client's own
	// goroutine, and the test runs on another one.
	target.blocked.Store(true)
	if flags := clientLines(t, a.Do("CLIENT", "LIST", "ID", strconv.FormatInt(idB, 10)))[0]["flags"]; flags != "b" {
		t.Errorf("blocked client flags=%s", flags)
	}
	if got := infoField(t, a.Do("INFO", "clients"), "blocked_clients"); got != "1" {
		t.Errorf("blocked_clients:%s", got)
	}
	if got := a.Do("CLIENT", "UNBLOCK", strconv.FormatInt(idB, 10), "ERROR"); got != ":1" {
		t.Errorf("UNBLOCK ERROR: %s", got)
	}
	// CLIENT UNBLOCK sends the wake-up before it replies.
	select {
	case r := <-target.UnblockChan():
		if r != db.UnblockError {
			t.Errorf("reason %d, want UnblockError", r)
		}
	default:
		t.Fatal("no wake-up sent")
	}
	a.Do("CLIENT", "UNBLOCK", strconv.FormatInt(idB, 10))
	if r := <-target.UnblockChan(); r != db.UnblockTimeout {
		t.Errorf("reason %d, want UnblockTimeout", r)
	}
	target.blocked.Store(false)
}

func TestClientHelpShape(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	for _, cmd := range []string{"CLIENT", "CONFIG", "SLOWLOG", "LATENCY", "COMMAND"} {
		got := a.Do(cmd, "HELP")
		if !strings.HasPrefix(got, "*") || !strings.Contains(got, "[+"+cmd+" <subcommand> [<arg> [value] [opt] ...]. Subcommands are:, ") ||
			!strings.HasSuffix(got, ", +HELP, +    Print this help.]") {
			t.Errorf("%s HELP: %s", cmd, got)
		}
	}
}

// TestClientPublishedState checks how another connection's MULTI/WATCH
// state and last command appear once the owner published them.
func TestClientPublishedState(t *testing.T) {
	c := newTestClient(t)
	line := parseClientLine(t, c.infoLine(nil, ""))
	if line["flags"] != "N" || line["multi"] != "-1" || line["cmd"] != "NULL" {
		t.Errorf("fresh client: %v", line)
	}
	c.multi = &multiState{cmds: make([]queued, 2)}
	c.closeAfter = true
	c.publishState(c.srv.table.cmds["ping"])
	line = parseClientLine(t, c.infoLine(nil, ""))
	if line["flags"] != "xc" || line["multi"] != "2" || line["cmd"] != "ping" {
		t.Errorf("published: %v", line)
	}
	// The owner itself sees its live state and the running command.
	self := parseClientLine(t, c.infoLine(c, "client|info"))
	if self["flags"] != "xc" || self["multi"] != "2" || self["cmd"] != "client|info" {
		t.Errorf("self: %v", self)
	}
}

// TestCommandTiming: the command clock (package tsc) measures a command's
// duration in real microseconds: DEBUG SLEEP 0.05 is recorded in
// commandstats and the slowlog with at least 50 ms and at most the
// round trip the client measured around it.
func TestCommandTiming(t *testing.T) {
	_, addr := startIntroServer(t, "--enable-debug-command", "yes", "--slowlog-log-slower-than", "20000")
	cv := testutil.Dial(t, addr)
	start := time.Now()
	if got := cv.Do("DEBUG", "SLEEP", "0.05"); got != "+OK" {
		t.Fatalf("DEBUG SLEEP: %s", got)
	}
	roundTrip := time.Since(start).Microseconds()
	info := cv.Do("INFO", "commandstats")
	m := regexp.MustCompile(`cmdstat_debug:calls=1,usec=(\d+),`).FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("no cmdstat_debug line in %q", info)
	}
	usec, _ := strconv.ParseInt(m[1], 10, 64)
	if usec < 50000 || usec > roundTrip {
		t.Errorf("commandstats usec = %d, want between 50000 and the client's %d", usec, roundTrip)
	}
	if got := cv.Do("SLOWLOG", "LEN"); got != ":1" {
		t.Errorf("SLOWLOG LEN = %s, want :1", got)
	}
}

// TestDebugObjectExpiredKey: DEBUG OBJECT reports a key that has expired
// but is still stored and leaves it there, as Valkey's dbFind does.
func TestDebugObjectExpiredKey(t *testing.T) {
	_, addr := startIntroServer(t, "--enable-debug-command", "yes")
	cv := testutil.Dial(t, addr)
	cv.Do("DEBUG", "SET-ACTIVE-EXPIRE", "0")
	cv.Do("SET", "dk", "v", "PX", "1")
	// Past its expiry by the server's clock (DEBUG SLEEP waits on it);
	// DBSIZE counts what is stored without expiring anything.
	cv.Do("DEBUG", "SLEEP", "0.01")
	if got := cv.Do("DBSIZE"); got != ":1" {
		t.Fatalf("DBSIZE before: %s", got)
	}
	if got := cv.Do("DEBUG", "OBJECT", "dk"); !strings.HasPrefix(got, "+Value at:") {
		t.Fatalf("DEBUG OBJECT: %s", got)
	}
	if got := cv.Do("DBSIZE"); got != ":1" {
		t.Fatalf("DBSIZE after DEBUG OBJECT: %s (the key was expired)", got)
	}
}

// TestClientTotNetIn: tot-net-in counts the bytes read so far, the
// running command's included, as Valkey's does (26 for a first CLIENT
// INFO), on every network path.
func TestClientTotNetIn(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	info := clientLines(t, a.Do("CLIENT", "INFO"))[0]
	if info["tot-net-in"] != "26" {
		t.Errorf("first CLIENT INFO: tot-net-in=%s, want 26", info["tot-net-in"])
	}
	info = clientLines(t, a.Do("CLIENT", "INFO"))[0]
	if info["tot-net-in"] != "52" || info["tot-cmds"] != "1" || info["tot-net-out"] == "0" {
		t.Errorf("second CLIENT INFO: tot-net-in=%s tot-net-out=%s tot-cmds=%s, want 52, the first reply's bytes and 1",
			info["tot-net-in"], info["tot-net-out"], info["tot-cmds"])
	}
}
