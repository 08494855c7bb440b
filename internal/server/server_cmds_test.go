package server

import (
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// infoSections returns the section titles of an INFO reply, in order.
func infoSections(t *testing.T, reply string) []string {
	t.Helper()
	text, err := strconv.Unquote(reply)
	if err != nil {
		t.Fatalf("INFO reply %s", reply)
	}
	var out []string
	for _, l := range strings.Split(text, "\r\n") {
		if title, ok := strings.CutPrefix(l, "# "); ok {
			out = append(out, title)
		}
	}
	return out
}

func TestInfoSections(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	defaults := []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Errorstats", "Cluster", "Keyspace"}
	all := []string{"Server", "Clients", "Memory", "Persistence", "Stats", "Replication", "CPU", "Modules", "Commandstats", "Errorstats", "Latencystats", "Cluster", "Keyspace"}
	tests := []struct {
		args []string
		want []string
	}{
		{nil, defaults},
		{[]string{"default"}, defaults},
		{[]string{"all"}, all},
		{[]string{"everything"}, all},
		{[]string{"SERVER"}, []string{"Server"}},
		{[]string{"keyspace", "server", "keyspace"}, []string{"Server", "Keyspace"}},
		{[]string{"commandstats"}, []string{"Commandstats"}},
		{[]string{"latencystats"}, []string{"Latencystats"}},
		{[]string{"modules"}, []string{"Modules"}},
		{[]string{"nosuchsection"}, nil},
	}
	for _, tc := range tests {
		got := infoSections(t, a.Do(append([]string{"INFO"}, tc.args...)...))
		if !slices.Equal(got, tc.want) {
			t.Errorf("INFO %v: sections %v, want %v", tc.args, got, tc.want)
		}
	}
	// Sections are separated by one empty line and every line ends in CRLF.
	text, _ := strconv.Unquote(a.Do("INFO", "server", "clients"))
	if !strings.HasPrefix(text, "# Server\r\n") || !strings.Contains(text, "\r\n\r\n# Clients\r\n") || !strings.HasSuffix(text, "\r\n") || strings.HasSuffix(text, "\r\n\r\n") {
		t.Errorf("INFO layout: %q", text)
	}
}

func TestInfoFields(t *testing.T) {
	s, addr := startIntroServer(t, "--maxmemory", "100mb", "--maxmemory-policy", "allkeys-lru")
	a := testutil.Dial(t, addr)
	a.Do("SET", "k1", "v")
	a.Do("SET", "k2", "v", "EX", "100")
	a.Do("SELECT", "5")
	a.Do("SET", "k3", "v")
	a.Do("GET", "k3")
	a.Do("GET", "nosuchkey")
	a.Do("INCR", "k3") // an error reply

	info := a.Do("INFO", "everything")
	exact := map[string]string{
		"redis_version":          RedisVersion,
		"server_name":            "valkey",
		"valkey_version":         Version,
		"corvid_version":         CorvidVersion,
		"server_mode":            "standalone",
		"tcp_port":               strconv.FormatInt(s.port.Load(), 10),
		"run_id":                 s.runID,
		"connected_clients":      "1",
		"maxclients":             "10000",
		"maxmemory":              "104857600",
		"maxmemory_human":        "100.00M",
		"maxmemory_policy":       "allkeys-lru",
		"role":                   "master",
		"connected_slaves":       "0",
		"master_replid2":         zeroReplID,
		"cluster_enabled":        "0",
		"keyspace_hits":          "1",
		"keyspace_misses":        "1",
		"aof_enabled":            "0",
		"db0":                    "keys=2,expires=1,avg_ttl=0",
		"db5":                    "keys=1,expires=0,avg_ttl=0",
		"errorstat_ERR":          "count=1",
		"total_error_replies":    "1",
		"process_id":             strconv.Itoa(os.Getpid()),
		"listener0":              "name=tcp,bind=127.0.0.1,port=" + strconv.FormatInt(s.port.Load(), 10),
		"rdb_last_bgsave_status": "ok",
	}
	for k, v := range exact {
		if got := infoField(t, info, k); got != v {
			t.Errorf("%s:%q, want %q", k, got, v)
		}
	}
	patterns := map[string]string{
		"uptime_in_seconds":          `^\d+$`,
		"used_memory":                `^[1-9]\d*$`,
		"used_memory_human":          `^\d+\.\d\d[KMG]$`,
		"used_memory_rss":            `^[1-9]\d*$`,
		"used_memory_peak":           `^[1-9]\d*$`,
		"mem_fragmentation_ratio":    `^\d+\.\d\d$`,
		"total_system_memory":        `^[1-9]\d*$`,
		"used_cpu_sys":               `^\d+\.\d{6}$`,
		"used_cpu_user":              `^\d+\.\d{6}$`,
		"master_replid":              `^[0-9a-f]{40}$`,
		"total_commands_processed":   `^[1-9]\d*$`,
		"total_connections_received": `^[1-9]\d*$`,
		"total_net_input_bytes":      `^[1-9]\d*$`,
		"instantaneous_ops_per_sec":  `^\d+$`,
		"lru_clock":                  `^\d+$`,
		"cmdstat_set":                `^calls=3,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,failed_calls=0$`,
		"cmdstat_incr":               `^calls=1,usec=\d+,usec_per_call=\d+\.\d\d,rejected_calls=0,failed_calls=1$`,
	}
	for k, p := range patterns {
		if got := infoField(t, info, k); !regexp.MustCompile(p).MatchString(got) {
			t.Errorf("%s:%q, want /%s/", k, got, p)
		}
	}
	// A rejected command counts as rejected, not as a call.
	a.Do("GET")
	if got := infoField(t, a.Do("INFO", "commandstats"), "cmdstat_get"); !strings.Contains(got, "calls=1,") || !strings.Contains(got, "rejected_calls=1,") {
		t.Errorf("cmdstat_get:%s", got)
	}

	// RESP3: a verbatim string.
	b := testutil.Dial(t, addr)
	b.Do("HELLO", "3")
	b.Send("INFO", "server")
	if got := b.ReadExact(); !strings.HasPrefix(got, "=") || !strings.Contains(got, "\r\ntxt:# Server\r\n") {
		t.Errorf("RESP3 INFO: %q", got[:min(len(got), 60)])
	}
}

// TestInfoInsideExec checks that INFO and other server commands that read
// the keyspace work inside EXEC, where every stripe is already held.
func TestInfoInsideExec(t *testing.T) {
	_, addr := startIntroServer(t, "--enable-debug-command", "yes")
	a := testutil.Dial(t, addr)
	a.Do("SET", "k", "v", "EX", "100")
	a.Do("SET", "j", "v")
	a.Do("MULTI")
	for _, cmd := range [][]string{{"INFO", "keyspace"}, {"DEBUG", "DIGEST"}, {"DEBUG", "DIGEST-VALUE", "k"},
		{"DEBUG", "OBJECT", "k"}, {"DEBUG", "SLEEP", "0"}, {"DEBUG", "POPULATE", "3"}, {"CLIENT", "LIST"},
		// Enough keys that POPULATE sizes the dicts first (Keyspace.Expand).
		{"DEBUG", "POPULATE", "5000", "big"}} {
		if got := a.Do(cmd...); got != "+QUEUED" {
			t.Fatalf("%v: %s", cmd, got)
		}
	}
	done := make(chan string, 1)
	go func() { done <- a.Do("EXEC") }()
	select {
	case got := <-done:
		if !strings.Contains(got, `db0:keys=2,expires=1,avg_ttl=0`) || strings.Contains(got, "-ERR") {
			t.Errorf("EXEC: %s", got)
		}
	case <-time.After(hangTimeout):
		t.Fatal("EXEC with INFO deadlocked")
	}
	if got := a.Do("DBSIZE"); got != ":5005" {
		t.Errorf("DBSIZE after POPULATE in EXEC: %s", got)
	}
}

func TestInstantaneousOps(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	deadline := time.Now().Add(3 * time.Second)
	for time.Now().Before(deadline) {
		for i := 0; i < 50; i++ {
			a.Do("PING")
		}
		if v := infoField(t, a.Do("INFO", "stats"), "instantaneous_ops_per_sec"); v != "0" {
			return
		}
	}
	t.Error("instantaneous_ops_per_sec stayed 0 under load")
}

func TestConfigCommands(t *testing.T) {
	s, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	// maxmemory stays far above used_memory: the start-up base is measured
	// from the whole test process's runtime memory, which other tests'
	// servers (and their memory releases after FLUSHALL) move by megabytes.
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"CONFIG", "SET", "maxmemory", "100mb", "slowlog-max-len", "5"}, "+OK"},
		{[]string{"CONFIG", "GET", "maxmemory"}, `*["maxmemory", "104857600"]`},
		{[]string{"CONFIG", "GET", "slowlog-max-len", "maxmemory"}, `*["slowlog-max-len", "5", "maxmemory", "104857600"]`},
		{[]string{"CONFIG", "SET", "maxmemory", "1", "hz"}, "-ERR syntax error"},
		{[]string{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"}, "+OK"},
		{[]string{"SET", "k", "v"}, "+OK"},
		{[]string{"OBJECT", "FREQ", "k"}, ":5"}, // the LFU clock is in force
		{[]string{"CONFIG", "SET", "maxmemory-policy", "noeviction"}, "+OK"},
		{[]string{"OBJECT", "FREQ", "k"}, "-ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."},
		{[]string{"CONFIG", "REWRITE"}, "-ERR The server is running without a config file"},
	}
	for _, tc := range tests {
		if got := a.Do(tc.args...); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.args, got, tc.want)
		}
	}
	if s.cfg.MaxMemory() != 100<<20 {
		t.Errorf("maxmemory not applied: %d", s.cfg.MaxMemory())
	}
	// RESP3: CONFIG GET is a map.
	b := testutil.Dial(t, addr)
	b.Do("HELLO", "3")
	if got := b.Do("CONFIG", "GET", "maxmemory"); got != `%["maxmemory", "104857600"]` {
		t.Errorf("RESP3 CONFIG GET: %s", got)
	}
	// CONFIG RESETSTAT zeroes what INFO counts.
	a.Do("INCR", "k") // error
	if got := a.Do("CONFIG", "RESETSTAT"); got != "+OK" {
		t.Fatal(got)
	}
	info := a.Do("INFO", "everything")
	for k, want := range map[string]string{"total_commands_processed": "1", "total_error_replies": "0", "keyspace_hits": "0",
		"errorstat_ERR": "", "cmdstat_set": "", "total_connections_received": "0"} {
		if got := infoField(t, info, k); got != want {
			t.Errorf("after RESETSTAT %s:%q, want %q", k, got, want)
		}
	}
}

func TestConfigRewrite(t *testing.T) {
	dir := t.TempDir()
	path := dir + "/corvid.conf"
	if err := os.WriteFile(path, []byte("port 0\nbind 127.0.0.1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := listenServer(t, path)
	go s.Serve()
	t.Cleanup(s.Close)
	a := testutil.Dial(t, s.Addr())
	a.Do("CONFIG", "SET", "maxmemory", "1mb")
	if got := a.Do("CONFIG", "REWRITE"); got != "+OK" {
		t.Fatalf("CONFIG REWRITE: %s", got)
	}
	text, _ := os.ReadFile(path)
	if !strings.Contains(string(text), "maxmemory 1mb") {
		t.Errorf("rewritten file:\n%s", text)
	}
}

func TestSlowlog(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	a.Do("CLIENT", "SETNAME", "slowpoke")
	a.Do("CONFIG", "SET", "slowlog-log-slower-than", "0")
	a.Do("SET", "key", strings.Repeat("x", 200))
	got := a.Do("SLOWLOG", "GET", "1")
	re := regexp.MustCompile(`^\*\[\*\[:(\d+), :(\d+), :\d+, \*\["SET", "key", "x{128}\.\.\. \(72 more bytes\)"\], "127\.0\.0\.1:\d+", "slowpoke"\]\]$`)
	m := re.FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("SLOWLOG GET 1: %s", got)
	}
	if ts, _ := strconv.ParseInt(m[2], 10, 64); time.Now().Unix()-ts > 5 {
		t.Errorf("entry time %d", ts)
	}
	if got := a.Do("SLOWLOG", "LEN"); got == ":0" {
		t.Errorf("SLOWLOG LEN: %s", got)
	}
	// Newest first.
	a.Do("ECHO", "last")
	if got := a.Do("SLOWLOG", "GET", "2"); !strings.Contains(got, `*["ECHO", "last"]`) || strings.Index(got, "ECHO") > strings.Index(got, "SLOWLOG") {
		t.Errorf("SLOWLOG GET 2 order: %s", got)
	}
	if got := a.Do("SLOWLOG", "RESET"); got != "+OK" {
		t.Fatal(got)
	}
	a.Do("CONFIG", "SET", "slowlog-log-slower-than", "-1")
	if got := a.Do("SLOWLOG", "LEN"); got != ":1" { // the CONFIG SET itself
		t.Errorf("SLOWLOG LEN after RESET: %s", got)
	}
}

func TestLatencyMonitor(t *testing.T) {
	s, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	a.Do("CONFIG", "SET", "latency-monitor-threshold", "1")
	// Drive observeCall directly: a real command would need a slow proc.
	s.observeCall(s.table.cmds["set"], 0, int64(5*time.Millisecond))
	s.observeCall(s.table.cmds["set"], 1, int64(3*time.Millisecond))
	s.observeCall(s.table.cmds["get"], 2, int64(7*time.Millisecond))
	s.observeCall(s.table.cmds["get"], 3, int64(500*time.Microsecond)) // under the threshold

	now := time.Now().Unix()
	got := a.Do("LATENCY", "LATEST")
	m := regexp.MustCompile(`^\*\[\*\["command", :(\d+), :5, :5\], \*\["fast-command", :(\d+), :7, :7\]\]$`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("LATENCY LATEST: %s", got)
	}
	if ts, _ := strconv.ParseInt(m[1], 10, 64); now-ts > 2 {
		t.Errorf("sample time %d, now %d", ts, now)
	}
	if got := a.Do("LATENCY", "HISTORY", "command"); !regexp.MustCompile(`^\*\[\*\[:\d+, :5\]\]$`).MatchString(got) {
		t.Errorf("LATENCY HISTORY: %s", got)
	}
	graph := a.Do("LATENCY", "GRAPH", "command")
	if !strings.HasPrefix(graph, `"command - high 5 ms, low 5 ms (all time high 5 ms)\n`+strings.Repeat("-", 80)+`\n`) {
		t.Errorf("LATENCY GRAPH: %s", graph)
	}
	if got := a.Do("LATENCY", "DOCTOR"); !strings.Contains(got, "command") {
		t.Errorf("LATENCY DOCTOR: %s", got)
	}
	if got := a.Do("LATENCY", "RESET", "command", "nosuch"); got != ":1" {
		t.Errorf("LATENCY RESET command: %s", got)
	}
	if got := a.Do("LATENCY", "RESET"); got != ":1" {
		t.Errorf("LATENCY RESET: %s", got)
	}
	if got := a.Do("LATENCY", "LATEST"); got != "*[]" {
		t.Errorf("LATENCY LATEST after RESET: %s", got)
	}
}

func TestLatencyHistogram(t *testing.T) {
	s, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	set := s.table.cmds["set"]
	// Spread over the stats shards: the reply must merge them.
	for i, ns := range []int64{500, 1500, 1500, 40_000, 3_000_000_000} {
		s.observeCall(set, i%statShards, ns)
	}
	s.observeCall(s.table.cmds["client"].subs["id"], 5, 900)
	// Buckets are hdr's log buckets from 1024 ns (reported as the highest
	// value of the bucket in µs) with cumulative counts; values above 1 s
	// are clamped to 1 s.
	want := `*["set", *["calls", :5, "histogram_usec", *[:1, :1, :2, :3, :66, :4, :1073741, :5]]]`
	if got := a.Do("LATENCY", "HISTOGRAM", "SET", "nosuch"); got != want {
		t.Errorf("LATENCY HISTOGRAM SET:\n got %s\nwant %s", got, want)
	}
	if got := a.Do("LATENCY", "HISTOGRAM", "client"); got != `*["client|id", *["calls", :1, "histogram_usec", *[:1, :1]]]` {
		t.Errorf("LATENCY HISTOGRAM client: %s", got)
	}
	all := a.Do("LATENCY", "HISTOGRAM")
	if !strings.Contains(all, `"set"`) || !strings.Contains(all, `"client|id"`) {
		t.Errorf("LATENCY HISTOGRAM: %s", all)
	}
	b := testutil.Dial(t, addr)
	b.Do("HELLO", "3")
	if got := b.Do("LATENCY", "HISTOGRAM", "client|id"); got != `%["client|id", %["calls", :1, "histogram_usec", %[:1, :1]]]` {
		t.Errorf("RESP3 LATENCY HISTOGRAM: %s", got)
	}
	// Percentiles in INFO latencystats, in µs with 3 decimals.
	if got := infoField(t, a.Do("INFO", "latencystats"), "latency_percentiles_usec_client|id"); got != "p50=0.903,p99=0.903,p99.9=0.903" {
		t.Errorf("latencystats client|id: %s", got)
	}
	a.Do("CONFIG", "RESETSTAT")
	if got := a.Do("LATENCY", "HISTOGRAM", "set"); got != "*[]" {
		t.Errorf("after RESETSTAT: %s", got)
	}
}

func TestHistogramBuckets(t *testing.T) {
	tests := []struct{ v, highest int64 }{
		{1, 1}, {255, 255}, {256, 257}, {1024, 1031}, {1500, 1503}, {2048, 2063}, {1_000_000_000, 1_002_438_655},
	}
	for _, tc := range tests {
		if got := histHighestEquivalent(histValueAtIndex(histCountsIndex(tc.v))); got != tc.highest {
			t.Errorf("highest equivalent of %d: %d, want %d", tc.v, got, tc.highest)
		}
	}
	var h latencyHist
	for i := int64(1); i <= 100; i++ {
		h.record(i * 1000)
	}
	if p := h.valueAtPercentile(50); p < 49_000 || p > 51_000 {
		t.Errorf("p50 %d", p)
	}
	if p := h.valueAtPercentile(100); p < 99_000 || p > 101_000 {
		t.Errorf("p100 %d", p)
	}
}

func TestCommandIntrospection(t *testing.T) {
	s, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	if got := a.Do("COMMAND", "COUNT"); got != ":"+strconv.Itoa(len(s.table.cmds)) {
		t.Errorf("COMMAND COUNT: %s", got)
	}
	all := a.Do("COMMAND")
	if strings.Count(all, `*["`) < len(s.table.cmds) || !strings.Contains(all, `*["get", :2,`) {
		t.Errorf("COMMAND: %s", all[:200])
	}
	// Only implemented subcommands appear (every CLIENT subcommand is).
	info := a.Do("COMMAND", "INFO", "client")
	if !strings.Contains(info, `"client|list"`) || !strings.Contains(info, `"client|tracking"`) || !strings.HasPrefix(info, `*[*["client", :-2, *[], :0, :0, :0, *[+@slow], *[], *[], *[*["client|caching", :3,`) {
		t.Errorf("COMMAND INFO client: %s", info)
	}
	if got := a.Do("COMMAND", "INFO", "client|tracking"); got != `*[*["client|tracking", :-3, *[+noscript, +loading, +stale], :0, :0, :0, *[+@slow, +@connection], *[], *[], *[]]]` {
		t.Errorf("COMMAND INFO client|tracking: %s", got)
	}
	list := a.Do("COMMAND", "LIST")
	for _, name := range []string{`"get"`, `"client|list"`, `"config|get"`, `"debug"`} {
		if !strings.Contains(list, name) {
			t.Errorf("COMMAND LIST lacks %s", name)
		}
	}
	if got := a.Do("COMMAND", "LIST", "FILTERBY", "PATTERN", "config|*"); got != `*["config|get", "config|help", "config|resetstat", "config|rewrite", "config|set"]` {
		t.Errorf("COMMAND LIST PATTERN: %s", got)
	}
	if got := a.Do("COMMAND", "LIST", "FILTERBY", "ACLCAT", "connection"); !strings.Contains(got, `"client|id"`) || strings.Contains(got, `"get"`) {
		t.Errorf("COMMAND LIST ACLCAT: %s", got)
	}
	docs := a.Do("COMMAND", "DOCS", "client", "nosuch")
	if !strings.HasPrefix(docs, `*["client", *["summary", "`+command.Client.Summary+`", "since", "2.4.0", "group", "connection", "complexity", "Depends on subcommand.", "subcommands", *["client|caching", *[`) || !strings.Contains(docs, `"client|tracking"`) {
		t.Errorf("COMMAND DOCS client: %s", docs[:min(300, len(docs))])
	}

	// Valkey 8's COMMAND GETKEYS has arity -3 (Redis 7.0: -4), so these
	// reach the command lookup and get Valkey's own errors.
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"COMMAND", "GETKEYS", "bogus"}, "-ERR Invalid command specified"},
		{[]string{"COMMAND", "GETKEYS", "get"}, "-ERR Invalid number of arguments specified for command"},
		{[]string{"COMMAND", "GETKEYS", "ping"}, "-ERR The command has no key arguments"},
		{[]string{"COMMAND", "GETKEYS", "client"}, "-ERR The command has no key arguments"},
		{[]string{"COMMAND", "GETKEYS", "client", "tracking", "on"}, "-ERR The command has no key arguments"},
		{[]string{"COMMAND", "GETKEYS", "MGET", "a", "b"}, `*["a", "b"]`},
	} {
		if got := a.Do(tc.args...); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.args, got, tc.want)
		}
	}
}

func TestTimeAndLastsave(t *testing.T) {
	s, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	m := regexp.MustCompile(`^\*\["(\d+)", "(\d+)"\]$`).FindStringSubmatch(a.Do("TIME"))
	if m == nil {
		t.Fatal("TIME shape")
	}
	sec, _ := strconv.ParseInt(m[1], 10, 64)
	usec, _ := strconv.ParseInt(m[2], 10, 64)
	if d := time.Now().Unix() - sec; d < -1 || d > 1 || usec >= 1e6 {
		t.Errorf("TIME %d %d", sec, usec)
	}
	if got := a.Do("LASTSAVE"); got != ":"+strconv.FormatInt(s.start.Unix(), 10) {
		t.Errorf("LASTSAVE: %s", got)
	}
}

func TestShutdown(t *testing.T) {
	tests := []struct {
		args  []string
		reply string // "" means the connection closes without a reply
	}{
		{[]string{"SHUTDOWN", "SAVE"}, ""},
		{[]string{"SHUTDOWN", "NOSAVE"}, ""},
		{[]string{"SHUTDOWN"}, ""},
		{[]string{"SHUTDOWN", "SAVE", "FORCE"}, ""},
		{[]string{"SHUTDOWN", "NOW", "FORCE"}, ""},
	}
	for _, tc := range tests {
		s, addr := startIntroServer(t)
		a := testutil.Dial(t, addr)
		got := a.Do(tc.args...)
		if tc.reply != "" {
			if got != tc.reply {
				t.Errorf("%q: %s, want %s", tc.args, got, tc.reply)
			}
			continue
		}
		if got != "<EOF>" {
			t.Errorf("%q: %s, want the connection closed", tc.args, got)
		}
		select {
		case <-s.stop:
		case <-time.After(hangTimeout):
			t.Errorf("%q: server still running", tc.args)
		}
	}
	// A save that fails (nothing can be created in /proc) keeps the
	// server running, as Valkey's; FORCE exits anyway.
	for _, force := range []bool{false, true} {
		s, addr := startIntroServer(t, "--dir", "/proc")
		args, want := []string{"SHUTDOWN", "SAVE"}, "-ERR Errors trying to SHUTDOWN. Check logs."
		if force {
			args, want = append(args, "FORCE"), "<EOF>"
		}
		c := testutil.Dial(t, addr)
		if got := c.Do(args...); got != want {
			t.Errorf("%q in /proc: %s, want %s", args, got, want)
		}
		if !force {
			if got := c.Do("PING"); got != "+PONG" {
				t.Errorf("after a failed SHUTDOWN SAVE: %s", got)
			}
		} else {
			<-s.stop
		}
	}
	// Run's shutdownFn is used when set.
	s, addr := startIntroServer(t)
	called := make(chan struct{})
	s.shutdownFn = func() { close(called) }
	testutil.Dial(t, addr).Send("SHUTDOWN")
	select {
	case <-called:
	case <-time.After(hangTimeout):
		t.Error("SHUTDOWN did not call shutdownFn")
	}
}

func TestBytesToHuman(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0B"}, {1023, "1023B"}, {1024, "1.00K"}, {1536, "1.50K"}, {100 << 20, "100.00M"}, {3 << 30, "3.00G"}, {5 << 40, "5.00T"},
	}
	for _, tc := range tests {
		if got := bytesToHuman(tc.n); got != tc.want {
			t.Errorf("bytesToHuman(%d) = %s, want %s", tc.n, got, tc.want)
		}
	}
}

func TestMemToBytes(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"100", 100, true}, {"1k", 1000, true}, {"1kb", 1024, true}, {"2MB", 2 << 20, true}, {"1g", 1e9, true},
		{"4gb", 4 << 30, true}, {"abc", 0, false}, {"-1", 0, false}, {"", 0, false}, {"1tb", 0, false},
	}
	for _, tc := range tests {
		got, ok := memToBytes(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("memToBytes(%q) = %d, %v", tc.in, got, ok)
		}
	}
}

// TestLookupMemo: the per-connection memo of the last command name never
// answers for another name: case variants, unknown names and commands of
// the same length in a row each resolve on their own.
func TestLookupMemo(t *testing.T) {
	_, addr := startIntroServer(t)
	a := testutil.Dial(t, addr)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "k", "v"}, "+OK"},
		{[]string{"SET", "k", "w"}, "+OK"},
		{[]string{"set", "k", "x"}, "+OK"},
		{[]string{"GET", "k"}, `"x"`},
		{[]string{"GEX", "k"}, "-ERR unknown command 'GEX', with args beginning with: 'k' "},
		{[]string{"GET", "k"}, `"x"`},
		{[]string{"DEL", "k"}, ":1"},
		{[]string{"GET", "k"}, "(nil)"},
		{[]string{"SETNX", "k", "y"}, ":1"},
		{[]string{"SET"}, "-ERR wrong number of arguments for 'set' command"},
	} {
		if got := a.Do(c.args...); got != c.want {
			t.Errorf("%q: %s, want %s", c.args, got, c.want)
		}
	}
}

// TestCloseWhileServeStarts: Close racing the start of Serve must neither
// add to the server's WaitGroup while Close waits on it (the race
// detector reports that) nor leave Serve running.
func TestCloseWhileServeStarts(t *testing.T) {
	for i := range 100 {
		s := listenServer(t, "", "--port", "0", "--bind", "127.0.0.1")
		done := make(chan error, 1)
		go func() { done <- s.Serve() }()
		time.Sleep(time.Duration(i%20) * 5 * time.Microsecond) // vary the overlap
		s.Close()
		select {
		case <-done:
		case <-time.After(hangTimeout):
			t.Fatal("Serve still running after Close")
		}
	}
}
