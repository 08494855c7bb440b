package config

import (
	"fmt"
	"os"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

func getMap(kv [][2]string) map[string]string {
	m := map[string]string{}
	for _, p := range kv {
		m[p[0]] = p[1]
	}
	return m
}

// TestDefaultsAgainstRedis7 compares CONFIG GET * with the output of a real
// redis-server 7.0.15 (testdata, captured with default settings). Every
// shared directive must agree except where Valkey 8.0.1 (or Corvid, on
// purpose) differs; the differences are listed explicitly.
func TestDefaultsAgainstRedis7(t *testing.T) {
	data, err := os.ReadFile("testdata/redis-7.0.15-defaults.tsv")
	if err != nil {
		t.Fatal(err)
	}
	redis := map[string]string{}
	for _, line := range strings.Split(strings.TrimRight(string(data), "\n"), "\n") {
		k, v, _ := strings.Cut(line, "\t")
		redis[k] = v
	}
	valkeyDiffers := map[string]string{
		// Valkey 8.0 made lazy freeing the default.
		"lazyfree-lazy-eviction": "yes", "lazyfree-lazy-expire": "yes", "lazyfree-lazy-server-del": "yes",
		"lazyfree-lazy-user-del": "yes", "lazyfree-lazy-user-flush": "yes",
		"replica-lazy-flush": "yes", "slave-lazy-flush": "yes",
		// Valkey 8.0 async I/O threads: reads are always threaded.
		"io-threads-do-reads": "yes",
		"syslog-ident":        "valkey",
		// Valkey 8.0 raised the backlog's default from 1mb to 10mb.
		"repl-backlog-size": "10485760",
	}
	// Present in Redis 7.0 but hidden in Valkey 8.0.
	hiddenInValkey := map[string]bool{"aof-disable-auto-gc": true}

	got := getMap(Default().Get("*"))
	for k, rv := range redis {
		want := rv
		if v, ok := valkeyDiffers[k]; ok {
			want = v
		}
		gv, ok := got[k]
		switch {
		case hiddenInValkey[k]:
			if ok {
				t.Errorf("%s should be hidden", k)
			}
		case !ok:
			t.Errorf("missing directive %s", k)
		case gv != want:
			t.Errorf("%s = %q, want %q (redis 7.0.15: %q)", k, gv, want, rv)
		}
	}

	// Directives Valkey 8.0.1 has beyond Redis 7.0, with their defaults.
	newer := map[string]string{
		"aof-rewrite-cpulist": "", "bgsave-cpulist": "", "bio-cpulist": "", "server-cpulist": "",
		"availability-zone": "", "cluster-announce-client-ipv4": "", "cluster-announce-client-ipv6": "",
		"cluster-announce-human-nodename": "", "cluster-blacklist-ttl": "60", "cluster-slot-stats-enabled": "no",
		"debug-context": "", "dual-channel-replication-enabled": "no", "events-per-io-thread": "2",
		"extended-redis-compatibility": "no", "hide-user-data-from-log": "yes", "locale-collate": "",
		"max-new-connections-per-cycle": "10", "max-new-tls-connections-per-cycle": "1",
		"prefetch-batch-max-size": "16", "primaryauth": "", "primaryuser": "",
		"set-max-listpack-entries": "128", "set-max-listpack-value": "64", "unixsocketgroup": "",
	}
	for k, want := range newer {
		if gv, ok := got[k]; !ok || gv != want {
			t.Errorf("%s = %q (present %v), want %q", k, gv, ok, want)
		}
	}
	// Corvid's own (doc.go).
	corvid := map[string]string{"net-engine": "io_uring", "event-loops": "0", "metrics-port": "0", "metrics-bind": "127.0.0.1"}
	for k, want := range corvid {
		if gv, ok := got[k]; !ok || gv != want {
			t.Errorf("%s = %q (present %v), want %q", k, gv, ok, want)
		}
	}
	wd, _ := os.Getwd()
	if got["dir"] != wd {
		t.Errorf("dir = %q, want %q", got["dir"], wd)
	}
	for k := range got {
		if _, ok := redis[k]; !ok && newer[k] == "" && k != "dir" {
			if _, ok := newer[k]; !ok && corvid[k] == "" {
				t.Errorf("unexpected directive %s", k)
			}
		}
	}
}

func TestGetPatterns(t *testing.T) {
	c := Default()
	names := func(kv [][2]string) []string {
		var out []string
		for _, p := range kv {
			out = append(out, p[0])
		}
		sort.Strings(out)
		return out
	}
	tests := []struct {
		patterns []string
		want     []string
	}{
		{[]string{"maxmemory"}, []string{"maxmemory"}},
		{[]string{"MAXMEMORY"}, []string{"MAXMEMORY"}}, // exact names echo as typed
		{[]string{"nosuch"}, nil},
		{[]string{"maxmemory*"}, []string{"maxmemory", "maxmemory-clients", "maxmemory-eviction-tenacity", "maxmemory-policy", "maxmemory-samples"}},
		{[]string{"MAXMEMORY-P*"}, []string{"maxmemory-policy"}},
		{[]string{"slave*"}, []string{"slave-announce-ip", "slave-announce-port", "slave-ignore-maxmemory", "slave-lazy-flush", "slave-priority", "slave-read-only", "slave-serve-stale-data", "slaveof"}},
		{[]string{"*ziplist*"}, []string{"hash-max-ziplist-entries", "hash-max-ziplist-value", "list-max-ziplist-size", "zset-max-ziplist-entries", "zset-max-ziplist-value"}},
		{[]string{"port", "port", "PORT", "po?t"}, []string{"port"}},
		{[]string{"maxmemory", "maxmemory*"}, []string{"maxmemory", "maxmemory-clients", "maxmemory-eviction-tenacity", "maxmemory-policy", "maxmemory-samples"}},
		{[]string{"[pq]ort", "tls-[p]ort"}, []string{"port", "tls-port"}},
		// Hidden directives need their exact name.
		{[]string{"enable-debug-assert"}, []string{"enable-debug-assert"}},
		{[]string{"enable-debug-*"}, []string{"enable-debug-command"}},
		{[]string{"*delay*"}, []string{"repl-disable-tcp-nodelay", "repl-diskless-sync-delay"}}, // not rdb-key-save-delay, key-load-delay
	}
	for _, tc := range tests {
		if got := names(c.Get(tc.patterns...)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("CONFIG GET %q = %q, want %q", tc.patterns, got, tc.want)
		}
	}
	// Valkey 8.0.1's 215, and Corvid's net-engine, event-loops,
	// metrics-port and metrics-bind.
	if n := len(c.Get("*")); n != 219 {
		t.Errorf("CONFIG GET * returned %d directives, want 219", n)
	}
}

func TestTypedGettersAndGeneric(t *testing.T) {
	c := Default()
	checks := []struct {
		name      string
		got, want any
	}{
		{"Port", c.Port(), 6379},
		{"Bind", c.Bind(), []string{"*", "-::*"}},
		{"Databases", c.Databases(), 16},
		{"MaxClients", c.MaxClients(), 10000},
		{"MaxMemoryPolicy", c.MaxMemoryPolicy(), "noeviction"},
		{"ProtoMaxBulkLen", c.ProtoMaxBulkLen(), int64(512 << 20)},
		{"ClientQueryBufferLimit", c.ClientQueryBufferLimit(), int64(1 << 30)},
		{"ProtectedMode", c.ProtectedMode(), true},
		{"EnableDebugCommand", c.EnableDebugCommand(), "no"},
		{"IOThreads", c.IOThreads(), 1},
		{"Hz", c.Hz(), 10},
		{"Loglevel", c.Loglevel(), "notice"},
		{"Dbfilename", c.Dbfilename(), "dump.rdb"},
		{"AppendFsync", c.AppendFsync(), "everysec"},
		{"TCPKeepalive", c.TCPKeepalive(), 300},
		{"SlowlogLogSlowerThan", c.SlowlogLogSlowerThan(), int64(10000)},
		{"SlowlogMaxLen", c.SlowlogMaxLen(), int64(128)},
		{"MaxmemorySamples", c.MaxmemorySamples(), 5},
		{"LFULogFactor", c.LFULogFactor(), 10},
		{"LFUDecayTime", c.LFUDecayTime(), 1},
		{"MaxmemoryEvictionTenacity", c.MaxmemoryEvictionTenacity(), 10},
		{"ActiveExpireEffort", c.ActiveExpireEffort(), 1},
		{"ListMaxListpackSize", c.ListMaxListpackSize(), -2},
		{"HashMaxListpackEntries", c.HashMaxListpackEntries(), int64(512)},
		{"SetMaxListpackEntries", c.SetMaxListpackEntries(), int64(128)},
		{"ZsetMaxListpackValue", c.ZsetMaxListpackValue(), int64(64)},
		{"ClientOutputBufferLimits", c.ClientOutputBufferLimits()[ClientReplica], OutputBufferLimit{256 << 20, 64 << 20, 60}},
		{"LatencyTrackingInfoPercentiles", c.LatencyTrackingInfoPercentiles(), []float64{50, 99, 99.9}},
		{"ReplicaOf", c.ReplicaOf() == nil, true},
		{"Int maxmemory-samples", c.Int("maxmemory-samples"), int64(5)},
		{"Bool slave-read-only", c.Bool("slave-read-only"), true},
		{"String oom-score-adj-values", c.String("oom-score-adj-values"), "0 200 800"},
	}
	for _, ck := range checks {
		if !reflect.DeepEqual(ck.got, ck.want) {
			t.Errorf("%s = %#v, want %#v", ck.name, ck.got, ck.want)
		}
	}
	// A name that is not a directive, or a directive read as another
	// kind, is a bug in the caller: it panics instead of reading as zero.
	for name, read := range map[string]func(){
		"Int unknown":     func() { c.Int("nope") },
		"Bool unknown":    func() { c.Bool("nope") },
		"String unknown":  func() { c.String("nope") },
		"Bool of numeric": func() { c.Bool("maxmemory-samples") },
		"Int of string":   func() { c.Int("logfile") },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s did not panic", name)
				}
			}()
			read()
		}()
	}
	if err := c.Set(pairs("maxmemory", "18446744073709551615", "maxmemory-clients", "7%")); err != nil {
		t.Fatal(err)
	}
	if c.MaxMemory() != 1<<63-1 {
		t.Errorf("huge maxmemory = %d", c.MaxMemory())
	}
	if v, pct := c.MaxmemoryClients(); v != 7 || !pct {
		t.Errorf("MaxmemoryClients = %d %v", v, pct)
	}
	if !IsSensitive("masterauth") || !IsSensitive("requirepass") || IsSensitive("port") {
		t.Error("IsSensitive")
	}
	if n, ok := CanonicalName("SLAVEOF"); !ok || n != "replicaof" {
		t.Errorf("CanonicalName = %q %v", n, ok)
	}
	if got := c.DebugInfo(); !strings.Contains(got, "io-threads-do-reads yes\n") || !strings.Contains(got, "proto-max-bulk-len 512mb\n") {
		t.Errorf("DebugInfo = %q", got)
	}
}

// TestGettersMatchDirectives sets every directive behind a typed getter to a
// non-default value and checks the getter reads that directive.
func TestGettersMatchDirectives(t *testing.T) {
	dir := t.TempDir()
	conf := strings.Join([]string{
		"port 7001", "tls-port 7002", "databases 3", "requirepass pw", "maxclients 77", "maxmemory 5mb",
		"maxmemory-policy volatile-ttl", "maxmemory-samples 7", "maxmemory-eviction-tenacity 11",
		"proto-max-bulk-len 2mb", "client-query-buffer-limit 3mb", "protected-mode no",
		"enable-debug-command yes", "enable-module-command local", "enable-protected-configs local",
		"io-threads 4", "io-threads-do-reads no", "events-per-io-thread 3", "prefetch-batch-max-size 8",
		"hz 42", "dynamic-hz no", "logfile " + dir + "/v.log", "pidfile /tmp/v.pid", "daemonize yes",
		"loglevel warning", "dir " + dir, "dbfilename d.rdb", "appendonly yes", "appendfsync always",
		"save 900 1", "timeout 9", "tcp-keepalive 8", "tcp-backlog 7", "slowlog-log-slower-than -1",
		"slowlog-max-len 6", "latency-monitor-threshold 5", "latency-tracking no",
		"latency-tracking-info-percentiles 90", "lfu-log-factor 4", "lfu-decay-time 3",
		"active-expire-effort 2", "activerehashing no", "list-max-listpack-size 9", "list-compress-depth 1",
		"hash-max-listpack-entries 11", "hash-max-listpack-value 12", "set-max-intset-entries 13",
		"set-max-listpack-entries 14", "set-max-listpack-value 15", "zset-max-listpack-entries 16",
		"zset-max-listpack-value 17", "stream-node-max-bytes 18", "stream-node-max-entries 19",
		"hll-sparse-max-bytes 20", "cluster-enabled yes", "databases 1", "unixsocket /tmp/v.sock",
		"unixsocketperm 700", "notify-keyspace-events Kx", "busy-reply-threshold 21", "aclfile /tmp/u.acl",
		"acllog-max-len 22", "tracking-table-max-keys 23", "lazyfree-lazy-eviction no",
		"lazyfree-lazy-expire no", "lazyfree-lazy-server-del no", "lazyfree-lazy-user-del no",
		"lazyfree-lazy-user-flush no", "max-new-connections-per-cycle 24", "availability-zone az1",
		"extended-redis-compatibility yes", "hide-user-data-from-log no", "syslog-enabled yes",
		"syslog-ident vk", "shutdown-timeout 25", "maxmemory-clients 26",
	}, "\n")
	c, err := LoadWith(LoadOptions{Path: writeConf(t, dir, "v.conf", conf), Unsupported: map[string]func(string) string{}})
	if err != nil {
		t.Fatal(err)
	}
	s := fmt.Sprint
	checks := []struct {
		name string
		got  string
	}{
		{"port", s(c.Port())}, {"tls-port", s(c.TLSPort())}, {"databases", s(c.Databases())},
		{"requirepass", c.RequirePass()}, {"maxclients", s(c.MaxClients())}, {"maxmemory", s(c.MaxMemory())},
		{"maxmemory-policy", c.MaxMemoryPolicy()}, {"maxmemory-samples", s(c.MaxmemorySamples())},
		{"maxmemory-eviction-tenacity", s(c.MaxmemoryEvictionTenacity())},
		{"proto-max-bulk-len", s(c.ProtoMaxBulkLen())}, {"client-query-buffer-limit", s(c.ClientQueryBufferLimit())},
		{"protected-mode", yn(c.ProtectedMode())}, {"enable-debug-command", c.EnableDebugCommand()},
		{"enable-module-command", c.EnableModuleCommand()}, {"enable-protected-configs", c.EnableProtectedConfigs()},
		{"io-threads", s(c.IOThreads())}, {"io-threads-do-reads", yn(c.IOThreadsDoReads())},
		{"events-per-io-thread", s(c.EventsPerIOThread())}, {"prefetch-batch-max-size", s(c.PrefetchBatchMaxSize())},
		{"hz", s(c.Hz())}, {"dynamic-hz", yn(c.DynamicHz())}, {"logfile", c.LogFile()}, {"pidfile", c.PidFile()},
		{"daemonize", yn(c.Daemonize())}, {"loglevel", c.Loglevel()}, {"dir", c.Dir()}, {"dbfilename", c.Dbfilename()},
		{"appendonly", yn(c.AppendOnly())}, {"appendfsync", c.AppendFsync()}, {"save", c.Save()},
		{"save", s(c.SavePoints()[0].Seconds, " ", c.SavePoints()[0].Changes)},
		{"timeout", s(c.Timeout())}, {"tcp-keepalive", s(c.TCPKeepalive())}, {"tcp-backlog", s(c.TCPBacklog())},
		{"slowlog-log-slower-than", s(c.SlowlogLogSlowerThan())}, {"slowlog-max-len", s(c.SlowlogMaxLen())},
		{"latency-monitor-threshold", s(c.LatencyMonitorThreshold())}, {"latency-tracking", yn(c.LatencyTracking())},
		{"latency-tracking-info-percentiles", s(c.LatencyTrackingInfoPercentiles()[0])},
		{"lfu-log-factor", s(c.LFULogFactor())}, {"lfu-decay-time", s(c.LFUDecayTime())},
		{"active-expire-effort", s(c.ActiveExpireEffort())}, {"activerehashing", yn(c.ActiveRehashing())},
		{"list-max-listpack-size", s(c.ListMaxListpackSize())}, {"list-compress-depth", s(c.ListCompressDepth())},
		{"hash-max-listpack-entries", s(c.HashMaxListpackEntries())}, {"hash-max-listpack-value", s(c.HashMaxListpackValue())},
		{"set-max-intset-entries", s(c.SetMaxIntsetEntries())}, {"set-max-listpack-entries", s(c.SetMaxListpackEntries())},
		{"set-max-listpack-value", s(c.SetMaxListpackValue())}, {"zset-max-listpack-entries", s(c.ZsetMaxListpackEntries())},
		{"zset-max-listpack-value", s(c.ZsetMaxListpackValue())}, {"stream-node-max-bytes", s(c.StreamNodeMaxBytes())},
		{"stream-node-max-entries", s(c.StreamNodeMaxEntries())}, {"hll-sparse-max-bytes", s(c.HLLSparseMaxBytes())},
		{"cluster-enabled", yn(c.ClusterEnabled())}, {"unixsocket", c.UnixSocket()},
		{"unixsocketperm", strconv.FormatUint(uint64(c.UnixSocketPerm()), 8)},
		{"notify-keyspace-events", notifyString(int64(c.NotifyKeyspaceEvents()))},
		{"busy-reply-threshold", s(c.BusyReplyThreshold())}, {"aclfile", c.AclFile()},
		{"acllog-max-len", s(c.AclLogMaxLen())}, {"tracking-table-max-keys", s(c.TrackingTableMaxKeys())},
		{"lazyfree-lazy-eviction", yn(c.LazyfreeLazyEviction())}, {"lazyfree-lazy-expire", yn(c.LazyfreeLazyExpire())},
		{"lazyfree-lazy-server-del", yn(c.LazyfreeLazyServerDel())}, {"lazyfree-lazy-user-del", yn(c.LazyfreeLazyUserDel())},
		{"lazyfree-lazy-user-flush", yn(c.LazyfreeLazyUserFlush())},
		{"max-new-connections-per-cycle", s(c.MaxNewConnectionsPerCycle())}, {"availability-zone", c.AvailabilityZone()},
		{"extended-redis-compatibility", yn(c.ExtendedRedisCompatibility())},
		{"hide-user-data-from-log", yn(c.HideUserDataFromLog())}, {"syslog-enabled", yn(c.SyslogEnabled())},
		{"syslog-ident", c.SyslogIdent()}, {"shutdown-timeout", s(c.ShutdownTimeout())},
	}
	for _, ck := range checks {
		want := c.String(ck.name)
		if ck.got != want {
			t.Errorf("getter for %s = %q, CONFIG GET = %q", ck.name, ck.got, want)
		}
		if e := lookup(ck.name).e; ck.name != "databases" && e.format(e.defaultVal("/")) == want {
			t.Errorf("%s still has its default %q: the test does not exercise it", ck.name, want)
		}
	}
	if v, pct := c.MaxmemoryClients(); v != 26 || pct {
		t.Errorf("MaxmemoryClients = %d %v", v, pct)
	}
	if !Known("SLAVEOF") || Known("nope") {
		t.Error("Known")
	}
	if err := c.Set(pairs("cluster-announce-port", "1")); err != nil { // nothing else changes
		t.Fatal(err)
	}
	c2, _ := LoadWith(LoadOptions{Args: []string{"--replicaof", "10.0.0.1", "6380"}, Unsupported: map[string]func(string) string{}})
	if p := c2.ReplicaOf(); p == nil || *p != (Primary{"10.0.0.1", 6380}) {
		t.Errorf("ReplicaOf = %v", p)
	}
}

func yn(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// TestEveryDirectiveApplies: every directive CONFIG SET may change takes
// effect (a typed accessor reads it), is refused while its feature is
// missing (DefaultUnsupported), or says why it is inert; never more than
// one of the first and the last (inert.go).
func TestEveryDirectiveApplies(t *testing.T) {
	unsupported := DefaultUnsupported()
	for _, e := range reg.entries {
		inert := inertDirectives[e.name]
		_, refused := unsupported[e.name]
		switch {
		case e.has(fImmutable):
			if inert != "" {
				t.Errorf("%s is immutable and listed as inert", e.name)
			}
		case e.accessor && inert != "":
			t.Errorf("%s has an accessor and is listed as inert (%q): delete it from inertDirectives", e.name, inert)
		case !e.accessor && inert == "" && !refused:
			t.Errorf("%s can be set at run time but nothing reads it: give it an accessor or list it in inertDirectives", e.name)
		}
	}
	for name := range inertDirectives {
		if r := lookup(name); r == nil || r.e.name != name {
			t.Errorf("inertDirectives names %q, not a canonical directive", name)
		}
	}
	if Inert("jemalloc-bg-thread") == "" || Inert("maxmemory") != "" || Inert("no-such") != "" {
		t.Error("Inert answers wrongly")
	}
}
