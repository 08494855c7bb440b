package config

import "strings"

// The directive table: Valkey 8.0.1's static_configs[] (src/config.c),
// transcribed row by row with the same names, aliases, flags, bounds and
// defaults. Rows added in 8.0 relative to Redis 7.2 are marked "8.0".
// Deliberate Corvid differences are marked "CORVID" (see doc.go).

func boolCfg(name, alias string, fl flag, def bool) *entry {
	e := &entry{name: name, alias: alias, flags: fl, kind: kindBool}
	if def {
		e.def = 1
	}
	return e
}

// strCfg: emptyIsNull selects EMPTY_STRING_IS_NULL; a nil default is passed
// as defNull=true.
func strCfg(name, alias string, fl flag, emptyIsNull bool, def string, defNull bool, valid func(string) string) *entry {
	return &entry{name: name, alias: alias, flags: fl, kind: kindString,
		emptyIsNull: emptyIsNull, defStr: def, defNull: defNull, validStr: valid}
}

func enumCfg(name, alias string, fl flag, items []enumItem, def int64, valid func(int64) string) *entry {
	return &entry{name: name, alias: alias, flags: fl, kind: kindEnum, enums: items, def: def, validInt: valid}
}

func numCfg(name, alias string, fl flag, t numType, lo, hi, def int64, nf numFlag) *entry {
	return &entry{name: name, alias: alias, flags: fl, kind: kindNumeric, ntype: t,
		lower: lo, upper: hi, def: def, nflags: nf}
}

func specialCfg(name, alias string, fl flag, sp *special) *entry {
	return &entry{name: name, alias: alias, flags: fl, kind: kindSpecial, special: sp}
}

func with(e *entry, f func(*entry)) *entry { f(e); return e }

const (
	mod = flag(0) // MODIFIABLE_CONFIG
	imm = fImmutable
)

var (
	maxmemoryPolicyEnum = []enumItem{
		{"volatile-lru", 0}, {"volatile-lfu", 1}, {"volatile-random", 2}, {"volatile-ttl", 3},
		{"allkeys-lru", 4}, {"allkeys-lfu", 5}, {"allkeys-random", 6}, {"noeviction", 7},
	}
	syslogFacilityEnum = []enumItem{
		{"user", 8}, {"local0", 128}, {"local1", 136}, {"local2", 144}, {"local3", 152},
		{"local4", 160}, {"local5", 168}, {"local6", 176}, {"local7", 184},
	}
	loglevelEnum       = []enumItem{{"debug", 0}, {"verbose", 1}, {"notice", 2}, {"warning", 3}, {"nothing", 4}}
	supervisedEnum     = []enumItem{{"upstart", 1}, {"systemd", 2}, {"auto", 3}, {"no", 0}}
	aofFsyncEnum       = []enumItem{{"everysec", 2}, {"always", 1}, {"no", 0}}
	shutdownOnSigEnum  = []enumItem{{"default", 0}, {"save", shutdownSave}, {"nosave", shutdownNoSave}, {"now", shutdownNow}, {"force", shutdownForce}}
	replDisklessLoad   = []enumItem{{"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}}
	tlsAuthClientsEnum = []enumItem{{"no", 0}, {"yes", 1}, {"optional", 2}}
	oomScoreAdjEnum    = []enumItem{{"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}}
	aclPubsubEnum      = []enumItem{{"allchannels", 1}, {"resetchannels", 0}}
	sanitizeDumpEnum   = []enumItem{{"no", 0}, {"yes", 1}, {"clients", 2}}
	protectedEnum      = []enumItem{{"no", 0}, {"yes", 1}, {"local", 2}}
	endpointTypeEnum   = []enumItem{{"ip", 0}, {"hostname", 1}, {"unknown-endpoint", 2}}
	propagationErrEnum = []enumItem{{"ignore", 0}, {"panic", 1}, {"panic-on-replicas", 2}}
	netEngineEnum      = []enumItem{{"io_uring", NetEngineIOURing}, {"epoll", NetEngineEpoll}, {"goroutine", NetEngineGoroutine}}
)

// Enum values exported for typed getters.
const (
	ProtectedNo    = 0
	ProtectedYes   = 1
	ProtectedLocal = 2

	// net-engine values.
	NetEngineIOURing   = 0
	NetEngineEpoll     = 1
	NetEngineGoroutine = 2
)

func staticConfigs() []*entry {
	return []*entry{
		// Bool configs.
		boolCfg("rdbchecksum", "", imm, true),
		boolCfg("daemonize", "", imm, false),
		boolCfg("io-threads-do-reads", "", fDebug|imm, true), // 8.0: default yes since async I/O threads
		boolCfg("always-show-logo", "", imm, false),
		boolCfg("protected-mode", "", mod, true),
		boolCfg("rdbcompression", "", mod, true),
		boolCfg("rdb-del-sync-files", "", mod, false),
		boolCfg("activerehashing", "", mod, true),
		boolCfg("stop-writes-on-bgsave-error", "", mod, true),
		boolCfg("set-proc-title", "", imm, true),
		boolCfg("dynamic-hz", "", mod, true),
		boolCfg("lazyfree-lazy-eviction", "", fDebug|mod, true), // 8.0: lazy freeing on by default
		boolCfg("lazyfree-lazy-expire", "", fDebug|mod, true),
		boolCfg("lazyfree-lazy-server-del", "", fDebug|mod, true),
		boolCfg("lazyfree-lazy-user-del", "", fDebug|mod, true),
		boolCfg("lazyfree-lazy-user-flush", "", fDebug|mod, true),
		boolCfg("repl-disable-tcp-nodelay", "", mod, false),
		boolCfg("repl-diskless-sync", "", fDebug|mod, true),
		boolCfg("dual-channel-replication-enabled", "", fDebug|mod, false), // 8.0
		boolCfg("aof-rewrite-incremental-fsync", "", mod, true),
		boolCfg("no-appendfsync-on-rewrite", "", mod, false),
		boolCfg("cluster-require-full-coverage", "", mod, true),
		boolCfg("rdb-save-incremental-fsync", "", mod, true),
		boolCfg("aof-load-truncated", "", mod, true),
		boolCfg("aof-use-rdb-preamble", "", mod, true),
		boolCfg("aof-timestamp-enabled", "", mod, false),
		boolCfg("cluster-replica-no-failover", "cluster-slave-no-failover", mod, false),
		boolCfg("replica-lazy-flush", "slave-lazy-flush", mod, true), // 8.0: default yes
		boolCfg("replica-serve-stale-data", "slave-serve-stale-data", mod, true),
		boolCfg("replica-read-only", "slave-read-only", fDebug|mod, true),
		boolCfg("replica-ignore-maxmemory", "slave-ignore-maxmemory", mod, true),
		boolCfg("jemalloc-bg-thread", "", mod, true),
		with(boolCfg("activedefrag", "", fDebug|mod, false), func(e *entry) { e.validInt = validActiveDefrag }),
		boolCfg("syslog-enabled", "", imm, false),
		boolCfg("cluster-enabled", "", imm, false),
		boolCfg("appendonly", "", mod|fDenyLoading, false),
		boolCfg("cluster-allow-reads-when-down", "", mod, false),
		boolCfg("cluster-allow-pubsubshard-when-down", "", mod, true),
		boolCfg("crash-log-enabled", "", mod, true),
		boolCfg("crash-memcheck-enabled", "", mod, true),
		boolCfg("use-exit-on-panic", "", mod|fHidden, false),
		boolCfg("disable-thp", "", imm, true),
		boolCfg("cluster-allow-replica-migration", "", mod, true),
		boolCfg("replica-announced", "", mod, true),
		boolCfg("latency-tracking", "", mod, true),
		boolCfg("aof-disable-auto-gc", "", mod|fHidden, false),
		boolCfg("replica-ignore-disk-write-errors", "", mod, false),
		boolCfg("extended-redis-compatibility", "", mod, false), // 8.0
		boolCfg("enable-debug-assert", "", imm|fHidden, false),  // 8.0
		boolCfg("cluster-slot-stats-enabled", "", mod, false),   // 8.0
		boolCfg("hide-user-data-from-log", "", mod, true),       // 8.0: default yes (PR #877)

		// String configs (C strings and sds behave identically here).
		strCfg("aclfile", "", imm, false, "", false, nil),
		strCfg("unixsocket", "", imm, true, "", true, nil),
		strCfg("unixsocketgroup", "", imm, true, "", true, nil), // 8.0
		strCfg("pidfile", "", imm, true, "", true, nil),
		strCfg("replica-announce-ip", "slave-announce-ip", mod, true, "", true, nil),
		strCfg("primaryuser", "masteruser", mod|fSensitive, true, "", true, nil), // 8.0 rename
		strCfg("cluster-announce-ip", "", mod, true, "", true, nil),
		strCfg("cluster-announce-client-ipv4", "", mod, true, "", true, validIPv4), // 8.0
		strCfg("cluster-announce-client-ipv6", "", mod, true, "", true, validIPv6), // 8.0
		strCfg("cluster-config-file", "", imm, false, "nodes.conf", false, validClusterConfigFile),
		strCfg("cluster-announce-hostname", "", mod, true, "", true, validHostname),
		strCfg("cluster-announce-human-nodename", "", mod, true, "", true, validNodename),
		strCfg("syslog-ident", "", imm, false, "valkey", false, nil),
		strCfg("dbfilename", "", mod|fProtected, false, "dump.rdb", false, validDBFilename),
		strCfg("appendfilename", "", imm, false, "appendonly.aof", false, validAOFFilename),
		strCfg("appenddirname", "", imm, false, "appendonlydir", false, validAOFDirname),
		strCfg("server-cpulist", "server_cpulist", imm, true, "", true, nil),
		strCfg("bio-cpulist", "bio_cpulist", imm, true, "", true, nil),
		strCfg("aof-rewrite-cpulist", "aof_rewrite_cpulist", imm, true, "", true, nil),
		strCfg("bgsave-cpulist", "bgsave_cpulist", imm, true, "", true, nil),
		strCfg("ignore-warnings", "", mod, false, "", false, nil),
		strCfg("proc-title-template", "", mod, false, "{title} {listen-addr} {server-mode}", false, validProcTitle),
		strCfg("bind-source-addr", "", mod, true, "", true, nil),
		strCfg("logfile", "", imm, false, "", false, nil),
		strCfg("locale-collate", "", mod, false, "", false, nil),
		strCfg("debug-context", "", mod|fDebug, false, "", false, nil),           // 8.0
		strCfg("primaryauth", "masterauth", mod|fSensitive, true, "", true, nil), // 8.0 rename
		strCfg("requirepass", "", mod|fSensitive, true, "", true, nil),
		strCfg("availability-zone", "", mod, false, "", false, nil), // 8.0

		// Enum configs.
		enumCfg("supervised", "", imm, supervisedEnum, 0, nil),
		enumCfg("syslog-facility", "", imm, syslogFacilityEnum, 128, nil),
		enumCfg("repl-diskless-load", "", fDebug|mod|fDenyLoading, replDisklessLoad, 0, nil),
		enumCfg("loglevel", "", mod, loglevelEnum, 2, nil),
		enumCfg("maxmemory-policy", "", mod, maxmemoryPolicyEnum, 7, nil),
		enumCfg("appendfsync", "", mod, aofFsyncEnum, 2, nil),
		enumCfg("oom-score-adj", "", mod, oomScoreAdjEnum, 0, nil),
		enumCfg("acl-pubsub-default", "", mod, aclPubsubEnum, 0, nil),
		enumCfg("sanitize-dump-payload", "", fDebug|mod, sanitizeDumpEnum, 0, nil),
		enumCfg("enable-protected-configs", "", imm, protectedEnum, ProtectedNo, nil),
		enumCfg("enable-debug-command", "", imm, protectedEnum, ProtectedNo, nil),
		enumCfg("enable-module-command", "", imm, protectedEnum, ProtectedNo, nil),
		enumCfg("cluster-preferred-endpoint-type", "", mod, endpointTypeEnum, 0, nil),
		enumCfg("propagation-error-behavior", "", mod, propagationErrEnum, 0, nil),
		enumCfg("shutdown-on-sigint", "", mod|fMultiArg, shutdownOnSigEnum, 0, validShutdownFlags),
		enumCfg("shutdown-on-sigterm", "", mod|fMultiArg, shutdownOnSigEnum, 0, validShutdownFlags),

		// Integer configs.
		numCfg("databases", "", imm, tInt, 1, intMax, 16, 0),
		numCfg("port", "", mod, tInt, 0, 65535, 6379, 0),
		// 8.0: IO_THREADS_MAX_NUM is 16 in 8.0.x (raised to 256 in 8.1).
		numCfg("io-threads", "", fDebug|imm, tInt, 1, 16, 1, 0),
		numCfg("events-per-io-thread", "", mod, tInt, 0, intMax, 2, 0),  // 8.0 (hidden from 8.1)
		numCfg("prefetch-batch-max-size", "", mod, tInt, 0, 128, 16, 0), // 8.0
		numCfg("auto-aof-rewrite-percentage", "", mod, tInt, 0, intMax, 100, 0),
		numCfg("cluster-replica-validity-factor", "cluster-slave-validity-factor", mod, tInt, 0, intMax, 10, 0),
		numCfg("list-max-listpack-size", "list-max-ziplist-size", mod, tInt, intMin, intMax, -2, 0),
		numCfg("tcp-keepalive", "", mod, tInt, 0, intMax, 300, 0),
		numCfg("cluster-migration-barrier", "", mod, tInt, 0, intMax, 1, 0),
		numCfg("active-defrag-cycle-min", "", mod, tInt, 1, 99, 1, 0),
		numCfg("active-defrag-cycle-max", "", mod, tInt, 1, 99, 25, 0),
		numCfg("active-defrag-threshold-lower", "", mod, tInt, 0, 1000, 10, 0),
		numCfg("active-defrag-threshold-upper", "", mod, tInt, 0, 1000, 100, 0),
		numCfg("lfu-log-factor", "", mod, tInt, 0, intMax, 10, 0),
		numCfg("lfu-decay-time", "", mod, tInt, 0, intMax, 1, 0),
		numCfg("replica-priority", "slave-priority", mod, tInt, 0, intMax, 100, 0),
		numCfg("repl-diskless-sync-delay", "", mod, tInt, 0, intMax, 5, 0),
		numCfg("maxmemory-samples", "", mod, tInt, 1, 64, 5, 0),
		numCfg("maxmemory-eviction-tenacity", "", mod, tInt, 0, 100, 10, 0),
		numCfg("timeout", "", mod, tInt, 0, intMax, 0, 0),
		numCfg("replica-announce-port", "slave-announce-port", mod, tInt, 0, 65535, 0, 0),
		numCfg("tcp-backlog", "", imm, tInt, 0, intMax, 511, 0),
		numCfg("cluster-port", "", imm, tInt, 0, 65535, 0, 0),
		numCfg("cluster-announce-bus-port", "", mod, tInt, 0, 65535, 0, 0),
		numCfg("cluster-announce-port", "", mod, tInt, 0, 65535, 0, 0),
		numCfg("cluster-announce-tls-port", "", mod, tInt, 0, 65535, 0, 0),
		numCfg("repl-timeout", "", mod, tInt, 1, intMax, 60, 0),
		numCfg("repl-ping-replica-period", "repl-ping-slave-period", mod, tInt, 1, intMax, 10, 0),
		numCfg("list-compress-depth", "", fDebug|mod, tInt, 0, intMax, 0, 0),
		numCfg("rdb-key-save-delay", "", mod|fHidden, tInt, intMin, intMax, 0, 0),
		numCfg("key-load-delay", "", mod|fHidden, tInt, intMin, intMax, 0, 0),
		numCfg("active-expire-effort", "", mod, tInt, 1, 10, 1, 0),
		with(numCfg("hz", "", mod, tInt, 0, intMax, 10, 0), func(e *entry) { e.normalize = clampHz }),
		numCfg("min-replicas-to-write", "min-slaves-to-write", mod, tInt, 0, intMax, 0, 0),
		numCfg("min-replicas-max-lag", "min-slaves-max-lag", mod, tInt, 0, intMax, 10, 0),
		numCfg("watchdog-period", "", mod|fHidden, tInt, 0, intMax, 0, 0),
		numCfg("shutdown-timeout", "", mod, tInt, 0, intMax, 10, 0),
		numCfg("repl-diskless-sync-max-replicas", "", mod, tInt, 0, intMax, 0, 0),

		// Unsigned int configs.
		numCfg("maxclients", "", mod, tUInt, 1, uintMax, 10000, 0),
		numCfg("unixsocketperm", "", imm, tUInt, 0, 0o777, 0, nOctal),
		numCfg("socket-mark-id", "", imm, tUInt, 0, uintMax, 0, 0),
		numCfg("max-new-connections-per-cycle", "", mod, tUInt, 1, 1000, 10, 0),
		numCfg("max-new-tls-connections-per-cycle", "", mod, tUInt, 1, 1000, 1, 0),

		// Unsigned long configs (bound-checked as signed, like upstream).
		numCfg("active-defrag-max-scan-fields", "", mod, tULong, 1, longMax, 1000, 0),
		numCfg("slowlog-max-len", "", mod, tULong, 0, longMax, 128, 0),
		numCfg("acllog-max-len", "", mod, tULong, 0, longMax, 128, 0),
		numCfg("cluster-blacklist-ttl", "", mod, tULong, 0, longMax, 60, 0), // 8.0

		// Long long configs.
		numCfg("busy-reply-threshold", "lua-time-limit", mod, tLongLong, 0, longMax, 5000, 0),
		numCfg("cluster-node-timeout", "", mod, tLongLong, 0, llongMax, 15000, 0),
		numCfg("cluster-ping-interval", "", mod|fHidden, tLongLong, 0, llongMax, 0, 0),
		numCfg("slowlog-log-slower-than", "", mod, tLongLong, -1, llongMax, 10000, 0),
		numCfg("latency-monitor-threshold", "", mod, tLongLong, 0, llongMax, 0, 0),
		numCfg("proto-max-bulk-len", "", fDebug|mod, tLongLong, 1024*1024, longMax, 512*1024*1024, nMemory),
		numCfg("stream-node-max-entries", "", mod, tLongLong, 0, llongMax, 100, 0),
		numCfg("repl-backlog-size", "", mod, tLongLong, 1, llongMax, 10*1024*1024, nMemory),

		// Unsigned long long configs.
		numCfg("maxmemory", "", mod, tULongLong, 0, ullongMax, 0, nMemory),
		numCfg("cluster-link-sendbuf-limit", "", mod, tULongLong, 0, ullongMax, 0, nMemory),

		// size_t configs.
		numCfg("hash-max-listpack-entries", "hash-max-ziplist-entries", mod, tSizeT, 0, longMax, 512, 0),
		numCfg("set-max-intset-entries", "", mod, tSizeT, 0, longMax, 512, 0),
		numCfg("set-max-listpack-entries", "", mod, tSizeT, 0, longMax, 128, 0),
		numCfg("set-max-listpack-value", "", mod, tSizeT, 0, longMax, 64, 0),
		numCfg("zset-max-listpack-entries", "zset-max-ziplist-entries", mod, tSizeT, 0, longMax, 128, 0),
		numCfg("active-defrag-ignore-bytes", "", mod, tSizeT, 1, llongMax, 100<<20, nMemory),
		numCfg("hash-max-listpack-value", "hash-max-ziplist-value", mod, tSizeT, 0, longMax, 64, nMemory),
		numCfg("stream-node-max-bytes", "", mod, tSizeT, 0, longMax, 4096, nMemory),
		numCfg("zset-max-listpack-value", "zset-max-ziplist-value", mod, tSizeT, 0, longMax, 64, nMemory),
		numCfg("hll-sparse-max-bytes", "", mod, tSizeT, 0, longMax, 3000, nMemory),
		numCfg("tracking-table-max-keys", "", mod, tSizeT, 0, longMax, 1000000, 0),
		numCfg("client-query-buffer-limit", "", fDebug|mod, tSizeT, 1024*1024, longMax, 1024*1024*1024, nMemory),
		numCfg("maxmemory-clients", "", mod, tSSizeT, -100, ssizeMax, 0, nMemory|nPercent),

		// Other numeric configs.
		numCfg("repl-backlog-ttl", "", mod, tTimeT, 0, longMax, 60*60, 0),
		numCfg("auto-aof-rewrite-min-size", "", mod, tOffT, 0, llongMax, 64*1024*1024, nMemory),
		numCfg("loading-process-events-interval-bytes", "", mod|fHidden, tOffT, 1024, intMax, 1024*1024*2, 0),

		// TLS configs (always present, whether or not TLS is built in).
		numCfg("tls-port", "", mod, tInt, 0, 65535, 0, 0),
		numCfg("tls-session-cache-size", "", mod, tInt, 0, intMax, 20*1024, 0),
		numCfg("tls-session-cache-timeout", "", mod, tInt, 0, intMax, 300, 0),
		boolCfg("tls-cluster", "", mod, false),
		boolCfg("tls-replication", "", mod, false),
		enumCfg("tls-auth-clients", "", mod, tlsAuthClientsEnum, 1, nil),
		boolCfg("tls-prefer-server-ciphers", "", mod, false),
		boolCfg("tls-session-caching", "", mod, true),
		strCfg("tls-cert-file", "", fVolatile|mod, true, "", true, nil),
		strCfg("tls-key-file", "", fVolatile|mod, true, "", true, nil),
		strCfg("tls-key-file-pass", "", mod|fSensitive, true, "", true, nil),
		strCfg("tls-client-cert-file", "", fVolatile|mod, true, "", true, nil),
		strCfg("tls-client-key-file", "", fVolatile|mod, true, "", true, nil),
		strCfg("tls-client-key-file-pass", "", mod|fSensitive, true, "", true, nil),
		strCfg("tls-dh-params-file", "", fVolatile|mod, true, "", true, nil),
		strCfg("tls-ca-cert-file", "", fVolatile|mod, true, "", true, nil),
		strCfg("tls-ca-cert-dir", "", fVolatile|mod, true, "", true, nil),
		strCfg("tls-protocols", "", mod, true, "", true, nil),
		strCfg("tls-ciphers", "", mod, true, "", true, nil),
		strCfg("tls-ciphersuites", "", mod, true, "", true, nil),

		// Special configs.
		specialCfg("dir", "", mod|fProtected|fDenyLoading, specialDir),
		specialCfg("save", "", mod|fMultiArg, specialSave),
		specialCfg("client-output-buffer-limit", "", mod|fMultiArg, specialObuf),
		specialCfg("oom-score-adj-values", "", mod|fMultiArg, specialOOM),
		specialCfg("notify-keyspace-events", "", mod, specialNotify),
		specialCfg("bind", "", mod|fMultiArg, specialBind),
		specialCfg("replicaof", "slaveof", imm|fMultiArg, specialReplicaOf),
		specialCfg("latency-tracking-info-percentiles", "", mod|fMultiArg, specialPercentiles),

		// CORVID: Corvid's own directives, for its network path (Valkey has
		// no such rows; see doc.go). Both are read once, at start-up.
		//   net-engine: event loops on io_uring (falling back to epoll where
		//   the kernel or a sandbox refuses io_uring), event loops on epoll,
		//   or one goroutine per connection on Go's netpoller.
		//   event-loops: how many loops; 0 derives it from io-threads and
		//   the number of cores (server.defaultLoops).
		enumCfg("net-engine", "", imm, netEngineEnum, NetEngineIOURing, nil),
		numCfg("event-loops", "", imm, tInt, 0, 1024, 0, 0),
		// CORVID: the Prometheus endpoint (internal/metrics): HTTP on
		// metrics-port (0, the default, is off) at each address of
		// metrics-bind (space-separated; "*" is every IPv4 address, "::*"
		// every IPv6 one). Both can be changed at run time.
		numCfg("metrics-port", "", mod, tInt, 0, 65535, 0, 0),
		strCfg("metrics-bind", "", mod, false, "127.0.0.1", false, validMetricsBind),
	}
}

// deprecatedDirectives are accepted in files (with exactly one argument)
// and ignored, as Valkey 8.0.1 does.
var deprecatedDirectives = map[string]bool{
	"list-max-ziplist-entries": true,
	"list-max-ziplist-value":   true,
	"lua-replicate-commands":   true,
}

// ref is what a registered name (canonical or alias) resolves to.
type ref struct {
	e     *entry
	name  string // the registered name: canonical, or the alias itself
	alias bool
}

type registry struct {
	entries []*entry
	names   []ref           // every registered name, in table order (name, then alias)
	byName  map[string]*ref // lower-case name -> ref
}

func buildRegistry() *registry {
	r := &registry{byName: map[string]*ref{}}
	for i, e := range staticConfigs() {
		e.idx = i
		r.entries = append(r.entries, e)
		r.names = append(r.names, ref{e: e, name: e.name})
		if e.alias != "" {
			r.names = append(r.names, ref{e: e, name: e.alias, alias: true})
		}
	}
	for i := range r.names {
		n := r.names[i].name
		if _, dup := r.byName[n]; dup {
			panic("config: duplicate directive " + n)
		}
		r.byName[n] = &r.names[i]
	}
	return r
}

// reg is the package's single, immutable directive table.
var reg = buildRegistry()

// lookup resolves a directive name case-insensitively.
func lookup(name string) *ref {
	if r, ok := reg.byName[name]; ok {
		return r
	}
	return reg.byName[strings.ToLower(name)]
}

func mustIdx(name string) int {
	r := lookup(name)
	if r == nil {
		panic("config: unknown directive " + name)
	}
	r.e.accessor = true
	return r.e.idx
}
