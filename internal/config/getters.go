package config

import (
	"math"
	"strings"
)

// Typed getters for values the server reads often. Each is one atomic
// pointer load plus an index: no locks, no allocation (except the slice
// getters, which return copies so callers cannot alter a snapshot).

var (
	idxPort                 = mustIdx("port")
	idxBind                 = mustIdx("bind")
	idxDatabases            = mustIdx("databases")
	idxRequirePass          = mustIdx("requirepass")
	idxMaxClients           = mustIdx("maxclients")
	idxMaxMemory            = mustIdx("maxmemory")
	idxMaxMemoryPolicy      = mustIdx("maxmemory-policy")
	idxSupervised           = mustIdx("supervised")
	idxMaxMemorySamples     = mustIdx("maxmemory-samples")
	idxMaxMemoryTenacity    = mustIdx("maxmemory-eviction-tenacity")
	idxMaxMemoryClients     = mustIdx("maxmemory-clients")
	idxProtoMaxBulkLen      = mustIdx("proto-max-bulk-len")
	idxClientQueryBufLimit  = mustIdx("client-query-buffer-limit")
	idxProtectedMode        = mustIdx("protected-mode")
	idxEnableDebugCommand   = mustIdx("enable-debug-command")
	idxEnableModuleCommand  = mustIdx("enable-module-command")
	idxEnableProtectedCfgs  = mustIdx("enable-protected-configs")
	idxIOThreads            = mustIdx("io-threads")
	idxIOThreadsDoReads     = mustIdx("io-threads-do-reads")
	idxNetEngine            = mustIdx("net-engine")
	idxEventLoops           = mustIdx("event-loops")
	idxMetricsPort          = mustIdx("metrics-port")
	idxMetricsBind          = mustIdx("metrics-bind")
	idxHz                   = mustIdx("hz")
	idxDynamicHz            = mustIdx("dynamic-hz")
	idxLogFile              = mustIdx("logfile")
	idxPidFile              = mustIdx("pidfile")
	idxDaemonize            = mustIdx("daemonize")
	idxLoglevel             = mustIdx("loglevel")
	idxDir                  = mustIdx("dir")
	idxDbfilename           = mustIdx("dbfilename")
	idxRDBCompression       = mustIdx("rdbcompression")
	idxRDBChecksum          = mustIdx("rdbchecksum")
	idxStopWritesOnBgsave   = mustIdx("stop-writes-on-bgsave-error")
	idxAppendOnly           = mustIdx("appendonly")
	idxAppendFsync          = mustIdx("appendfsync")
	idxAppendFilename       = mustIdx("appendfilename")
	idxAppendDirname        = mustIdx("appenddirname")
	idxAOFLoadTruncated     = mustIdx("aof-load-truncated")
	idxAOFUseRDBPreamble    = mustIdx("aof-use-rdb-preamble")
	idxAOFTimestamp         = mustIdx("aof-timestamp-enabled")
	idxAOFDisableAutoGC     = mustIdx("aof-disable-auto-gc")
	idxNoFsyncOnRewrite     = mustIdx("no-appendfsync-on-rewrite")
	idxAutoAOFRewritePerc   = mustIdx("auto-aof-rewrite-percentage")
	idxAutoAOFRewriteMin    = mustIdx("auto-aof-rewrite-min-size")
	idxSave                 = mustIdx("save")
	idxTimeout              = mustIdx("timeout")
	idxTCPKeepalive         = mustIdx("tcp-keepalive")
	idxTCPBacklog           = mustIdx("tcp-backlog")
	idxSlowlogSlowerThan    = mustIdx("slowlog-log-slower-than")
	idxSlowlogMaxLen        = mustIdx("slowlog-max-len")
	idxLatencyMonitor       = mustIdx("latency-monitor-threshold")
	idxLatencyTracking      = mustIdx("latency-tracking")
	idxLatencyPercentiles   = mustIdx("latency-tracking-info-percentiles")
	idxLFULogFactor         = mustIdx("lfu-log-factor")
	idxLFUDecayTime         = mustIdx("lfu-decay-time")
	idxActiveExpireEffort   = mustIdx("active-expire-effort")
	idxActiveRehashing      = mustIdx("activerehashing")
	idxListMaxListpackSize  = mustIdx("list-max-listpack-size")
	idxListCompressDepth    = mustIdx("list-compress-depth")
	idxHashMaxLPEntries     = mustIdx("hash-max-listpack-entries")
	idxHashMaxLPValue       = mustIdx("hash-max-listpack-value")
	idxSetMaxIntsetEntries  = mustIdx("set-max-intset-entries")
	idxSetMaxLPEntries      = mustIdx("set-max-listpack-entries")
	idxSetMaxLPValue        = mustIdx("set-max-listpack-value")
	idxZsetMaxLPEntries     = mustIdx("zset-max-listpack-entries")
	idxZsetMaxLPValue       = mustIdx("zset-max-listpack-value")
	idxStreamNodeMaxBytes   = mustIdx("stream-node-max-bytes")
	idxStreamNodeMaxEntries = mustIdx("stream-node-max-entries")
	idxHLLSparseMaxBytes    = mustIdx("hll-sparse-max-bytes")
	idxClusterEnabled       = mustIdx("cluster-enabled")
	idxReplicaOf            = mustIdx("replicaof")
	idxTLSPort              = mustIdx("tls-port")
	idxUnixSocket           = mustIdx("unixsocket")
	idxUnixSocketPerm       = mustIdx("unixsocketperm")
	idxNotifyKeyspace       = mustIdx("notify-keyspace-events")
	idxObufLimit            = mustIdx("client-output-buffer-limit")
	idxBusyReplyThreshold   = mustIdx("busy-reply-threshold")
	idxAclFile              = mustIdx("aclfile")
	idxAclLogMaxLen         = mustIdx("acllog-max-len")
	idxAclPubsubDefault     = mustIdx("acl-pubsub-default")
	idxTrackingMaxKeys      = mustIdx("tracking-table-max-keys")
	idxLazyEviction         = mustIdx("lazyfree-lazy-eviction")
	idxLazyExpire           = mustIdx("lazyfree-lazy-expire")
	idxLazyServerDel        = mustIdx("lazyfree-lazy-server-del")
	idxLazyUserDel          = mustIdx("lazyfree-lazy-user-del")
	idxLazyUserFlush        = mustIdx("lazyfree-lazy-user-flush")
	idxReplBacklogSize      = mustIdx("repl-backlog-size")
	idxMaxNewConnsPerCycle  = mustIdx("max-new-connections-per-cycle")
	idxAvailabilityZone     = mustIdx("availability-zone")
	idxExtendedRedisCompat  = mustIdx("extended-redis-compatibility")
	idxHideUserData         = mustIdx("hide-user-data-from-log")
	idxSyslogEnabled        = mustIdx("syslog-enabled")
	idxSyslogIdent          = mustIdx("syslog-ident")
	idxSyslogFacility       = mustIdx("syslog-facility")
	idxShutdownTimeout      = mustIdx("shutdown-timeout")
	idxPrefetchBatch        = mustIdx("prefetch-batch-max-size")
	idxEventsPerIOThread    = mustIdx("events-per-io-thread")
)

func (c *Config) n(i int) int64  { return c.snap().v[i].n }
func (c *Config) b(i int) bool   { return c.snap().v[i].n != 0 }
func (c *Config) s(i int) string { return c.snap().v[i].s }
func (c *Config) enum(i int) string {
	return reg.entries[i].enumName(c.snap().v[i].n)
}

// clampU64 converts an unsigned C value stored as int64 bits to int64,
// saturating instead of turning negative.
func clampU64(v int64) int64 {
	if v < 0 {
		return math.MaxInt64
	}
	return v
}

func (c *Config) Port() int      { return int(c.n(idxPort)) }
func (c *Config) TLSPort() int   { return int(c.n(idxTLSPort)) }
func (c *Config) Databases() int { return int(c.n(idxDatabases)) }

// Bind returns the bind addresses (default "*", "-::*"; a leading '-' marks
// an address that may fail to bind).
func (c *Config) Bind() []string { return append([]string(nil), bindAddrs(c.snap().v[idxBind])...) }

// RequirePass is "" when no password is set.
func (c *Config) RequirePass() string { return c.s(idxRequirePass) }
func (c *Config) MaxClients() int     { return int(c.n(idxMaxClients)) }

// MaxMemory is the byte limit, 0 meaning none.
func (c *Config) MaxMemory() int64 { return clampU64(c.n(idxMaxMemory)) }

// MaxMemoryPolicy is one of volatile-lru, ..., noeviction.
func (c *Config) MaxMemoryPolicy() string { return c.enum(idxMaxMemoryPolicy) }

// Supervised is the supervised directive: no, upstart, systemd or auto.
func (c *Config) Supervised() string             { return c.enum(idxSupervised) }
func (c *Config) MaxmemorySamples() int          { return int(c.n(idxMaxMemorySamples)) }
func (c *Config) MaxmemoryEvictionTenacity() int { return int(c.n(idxMaxMemoryTenacity)) }

// MaxmemoryClients returns the client memory limit: bytes when percent is
// false, or a percentage of maxmemory when percent is true.
func (c *Config) MaxmemoryClients() (v int64, percent bool) {
	n := c.n(idxMaxMemoryClients)
	if n < 0 {
		return -n, true
	}
	return n, false
}

func (c *Config) ProtoMaxBulkLen() int64        { return c.n(idxProtoMaxBulkLen) }
func (c *Config) ClientQueryBufferLimit() int64 { return clampU64(c.n(idxClientQueryBufLimit)) }
func (c *Config) ProtectedMode() bool           { return c.b(idxProtectedMode) }

// EnableDebugCommand is "no", "yes" or "local".
func (c *Config) EnableDebugCommand() string { return c.enum(idxEnableDebugCommand) }

// EnableModuleCommand is "no", "yes" or "local".
func (c *Config) EnableModuleCommand() string { return c.enum(idxEnableModuleCommand) }

// EnableProtectedConfigs is "no", "yes" or "local".
func (c *Config) EnableProtectedConfigs() string { return c.enum(idxEnableProtectedCfgs) }

func (c *Config) IOThreads() int { return int(c.n(idxIOThreads)) }

// NetEngine is net-engine: NetEngineIOURing, NetEngineEpoll or
// NetEngineGoroutine.
func (c *Config) NetEngine() int { return int(c.n(idxNetEngine)) }

// EventLoops is event-loops (0: derived from io-threads).
func (c *Config) EventLoops() int        { return int(c.n(idxEventLoops)) }
func (c *Config) IOThreadsDoReads() bool { return c.b(idxIOThreadsDoReads) }
func (c *Config) EventsPerIOThread() int { return int(c.n(idxEventsPerIOThread)) }
func (c *Config) PrefetchBatchMaxSize() int {
	return int(c.n(idxPrefetchBatch))
}

// Hz is the configured frequency, already clamped to 1..500.
func (c *Config) Hz() int         { return int(c.n(idxHz)) }
func (c *Config) DynamicHz() bool { return c.b(idxDynamicHz) }

// LogFile is "" for standard output.
func (c *Config) LogFile() string { return c.s(idxLogFile) }

// PidFile is "" when none is configured.
func (c *Config) PidFile() string { return c.s(idxPidFile) }
func (c *Config) Daemonize() bool { return c.b(idxDaemonize) }

// Loglevel is debug, verbose, notice, warning or nothing.
func (c *Config) Loglevel() string { return c.enum(idxLoglevel) }

// Dir is the absolute working directory for persistence files.
func (c *Config) Dir() string        { return c.s(idxDir) }
func (c *Config) Dbfilename() string { return c.s(idxDbfilename) }

// RDBCompression is rdbcompression: LZF-compress strings in RDB files.
func (c *Config) RDBCompression() bool { return c.n(idxRDBCompression) != 0 }

// RDBChecksum is rdbchecksum: end RDB files with their CRC64.
func (c *Config) RDBChecksum() bool { return c.n(idxRDBChecksum) != 0 }

// StopWritesOnBgsaveError is stop-writes-on-bgsave-error: refuse writes
// (MISCONF) while the last BGSAVE failed and save points are set.
func (c *Config) StopWritesOnBgsaveError() bool { return c.n(idxStopWritesOnBgsave) != 0 }

// AppendOnly is appendonly.
func (c *Config) AppendOnly() bool { return c.b(idxAppendOnly) }

// AppendFsync is everysec, always or no.
func (c *Config) AppendFsync() string { return c.enum(idxAppendFsync) }

// AppendFilename and AppendDirname name the multi-part AOF's files and
// their directory (inside dir).
func (c *Config) AppendFilename() string { return c.s(idxAppendFilename) }
func (c *Config) AppendDirname() string  { return c.s(idxAppendDirname) }

// AOFLoadTruncated is aof-load-truncated: load an AOF whose last file ends
// inside a command, up to the last complete one.
func (c *Config) AOFLoadTruncated() bool { return c.b(idxAOFLoadTruncated) }

// AOFUseRDBPreamble is aof-use-rdb-preamble: a rewrite's base is an RDB.
func (c *Config) AOFUseRDBPreamble() bool { return c.b(idxAOFUseRDBPreamble) }

// AOFTimestampEnabled is aof-timestamp-enabled: "#TS:" annotations.
func (c *Config) AOFTimestampEnabled() bool { return c.b(idxAOFTimestamp) }

// AOFDisableAutoGC is aof-disable-auto-gc: keep history files.
func (c *Config) AOFDisableAutoGC() bool { return c.b(idxAOFDisableAutoGC) }

// NoAppendfsyncOnRewrite is no-appendfsync-on-rewrite.
func (c *Config) NoAppendfsyncOnRewrite() bool { return c.b(idxNoFsyncOnRewrite) }

// AutoAOFRewritePercentage and AutoAOFRewriteMinSize start a rewrite when
// the AOF grew by that percentage since the last one and is at least that
// big (0 percent: never).
func (c *Config) AutoAOFRewritePercentage() int64 { return c.n(idxAutoAOFRewritePerc) }
func (c *Config) AutoAOFRewriteMinSize() int64    { return c.n(idxAutoAOFRewriteMin) }

// Save is the CONFIG GET form of the snapshot rules ("" for none).
func (c *Config) Save() string { return saveString(c.snap().v[idxSave]) }

// SavePoints returns the snapshot rules.
func (c *Config) SavePoints() []SavePoint {
	return append([]SavePoint(nil), savePoints(c.snap().v[idxSave])...)
}

// Timeout is the client idle timeout in seconds, 0 meaning none.
func (c *Config) Timeout() int      { return int(c.n(idxTimeout)) }
func (c *Config) TCPKeepalive() int { return int(c.n(idxTCPKeepalive)) }
func (c *Config) TCPBacklog() int   { return int(c.n(idxTCPBacklog)) }

// SlowlogLogSlowerThan is in microseconds; negative disables the slowlog.
func (c *Config) SlowlogLogSlowerThan() int64 { return c.n(idxSlowlogSlowerThan) }
func (c *Config) SlowlogMaxLen() int64        { return c.n(idxSlowlogMaxLen) }

// LatencyMonitorThreshold is in milliseconds, 0 disabling the monitor.
func (c *Config) LatencyMonitorThreshold() int64 { return c.n(idxLatencyMonitor) }
func (c *Config) LatencyTracking() bool          { return c.b(idxLatencyTracking) }
func (c *Config) LatencyTrackingInfoPercentiles() []float64 {
	return append([]float64(nil), percentiles(c.snap().v[idxLatencyPercentiles])...)
}

func (c *Config) LFULogFactor() int       { return int(c.n(idxLFULogFactor)) }
func (c *Config) LFUDecayTime() int       { return int(c.n(idxLFUDecayTime)) }
func (c *Config) ActiveExpireEffort() int { return int(c.n(idxActiveExpireEffort)) }
func (c *Config) ActiveRehashing() bool   { return c.b(idxActiveRehashing) }

// ListMaxListpackSize is positive for an entry count, -1..-5 for 4..64 KiB.
func (c *Config) ListMaxListpackSize() int      { return int(c.n(idxListMaxListpackSize)) }
func (c *Config) ListCompressDepth() int        { return int(c.n(idxListCompressDepth)) }
func (c *Config) HashMaxListpackEntries() int64 { return clampU64(c.n(idxHashMaxLPEntries)) }
func (c *Config) HashMaxListpackValue() int64   { return clampU64(c.n(idxHashMaxLPValue)) }
func (c *Config) SetMaxIntsetEntries() int64    { return clampU64(c.n(idxSetMaxIntsetEntries)) }
func (c *Config) SetMaxListpackEntries() int64  { return clampU64(c.n(idxSetMaxLPEntries)) }
func (c *Config) SetMaxListpackValue() int64    { return clampU64(c.n(idxSetMaxLPValue)) }
func (c *Config) ZsetMaxListpackEntries() int64 { return clampU64(c.n(idxZsetMaxLPEntries)) }
func (c *Config) ZsetMaxListpackValue() int64   { return clampU64(c.n(idxZsetMaxLPValue)) }
func (c *Config) StreamNodeMaxBytes() int64     { return clampU64(c.n(idxStreamNodeMaxBytes)) }
func (c *Config) StreamNodeMaxEntries() int64   { return c.n(idxStreamNodeMaxEntries) }
func (c *Config) HLLSparseMaxBytes() int64      { return clampU64(c.n(idxHLLSparseMaxBytes)) }

func (c *Config) ClusterEnabled() bool { return c.b(idxClusterEnabled) }

// ReplicaOf returns the primary this server replicates, nil for none.
func (c *Config) ReplicaOf() *Primary {
	if p := primaryOf(c.snap().v[idxReplicaOf]); p != nil {
		cp := *p
		return &cp
	}
	return nil
}

// SetReplicaOf records the primary REPLICAOF (or a failover) chose, nil
// for none, as CONFIG GET and CONFIG REWRITE show it; replicaof is
// immutable to CONFIG SET, so this is its only writer after start-up.
func (c *Config) SetReplicaOf(p *Primary) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ns := c.snap().clone()
	if p != nil {
		cp := *p
		p = &cp
	}
	ns.v[idxReplicaOf] = val{x: p}
	c.cur.Store(ns)
}

// UnixSocket is "" when no unix socket is configured.
func (c *Config) UnixSocket() string     { return c.s(idxUnixSocket) }
func (c *Config) UnixSocketPerm() uint32 { return uint32(c.n(idxUnixSocketPerm)) }

// NotifyKeyspaceEvents returns the Notify* class bits.
func (c *Config) NotifyKeyspaceEvents() int { return int(c.n(idxNotifyKeyspace)) }

// ClientOutputBufferLimits is indexed by ClientNormal, ClientReplica,
// ClientPubSub.
func (c *Config) ClientOutputBufferLimits() [3]OutputBufferLimit {
	return obufLimits(c.snap().v[idxObufLimit])
}

// BusyReplyThreshold is in milliseconds (alias lua-time-limit).
func (c *Config) BusyReplyThreshold() int64 { return c.n(idxBusyReplyThreshold) }
func (c *Config) AclFile() string           { return c.s(idxAclFile) }
func (c *Config) AclLogMaxLen() int64       { return c.n(idxAclLogMaxLen) }

// AclPubsubDefault reports acl-pubsub-default allchannels (new users and
// selectors may use every channel).
func (c *Config) AclPubsubDefault() bool { return c.n(idxAclPubsubDefault) != 0 }
func (c *Config) TrackingTableMaxKeys() int64 {
	return clampU64(c.n(idxTrackingMaxKeys))
}

func (c *Config) ReplBacklogSize() int64      { return c.n(idxReplBacklogSize) }
func (c *Config) LazyfreeLazyEviction() bool  { return c.b(idxLazyEviction) }
func (c *Config) LazyfreeLazyExpire() bool    { return c.b(idxLazyExpire) }
func (c *Config) LazyfreeLazyServerDel() bool { return c.b(idxLazyServerDel) }
func (c *Config) LazyfreeLazyUserDel() bool   { return c.b(idxLazyUserDel) }
func (c *Config) LazyfreeLazyUserFlush() bool { return c.b(idxLazyUserFlush) }

func (c *Config) MaxNewConnectionsPerCycle() int { return int(c.n(idxMaxNewConnsPerCycle)) }
func (c *Config) AvailabilityZone() string       { return c.s(idxAvailabilityZone) }
func (c *Config) ExtendedRedisCompatibility() bool {
	return c.b(idxExtendedRedisCompat)
}
func (c *Config) HideUserDataFromLog() bool { return c.b(idxHideUserData) }
func (c *Config) SyslogEnabled() bool       { return c.b(idxSyslogEnabled) }
func (c *Config) SyslogIdent() string       { return c.s(idxSyslogIdent) }

// SyslogFacility is the syslog-facility name (user, local0..local7).
func (c *Config) SyslogFacility() string { return c.enum(idxSyslogFacility) }
func (c *Config) ShutdownTimeout() int   { return int(c.n(idxShutdownTimeout)) }

// Replication (internal/server/repl_*.go). ReplDisklessLoad is 0
// disabled, 1 on-empty-db, 2 swapdb.
var (
	idxReplDisableTCPNoDelay       = mustIdx("repl-disable-tcp-nodelay")
	idxReplDisklessSync            = mustIdx("repl-diskless-sync")
	idxReplicaServeStaleData       = mustIdx("replica-serve-stale-data")
	idxReplicaReadOnly             = mustIdx("replica-read-only")
	idxReplicaIgnoreMaxmemory      = mustIdx("replica-ignore-maxmemory")
	idxReplicaAnnounced            = mustIdx("replica-announced")
	idxReplicaAnnounceIP           = mustIdx("replica-announce-ip")
	idxPrimaryUser                 = mustIdx("primaryuser")
	idxPrimaryAuth                 = mustIdx("primaryauth")
	idxBindSourceAddr              = mustIdx("bind-source-addr")
	idxReplDisklessLoad            = mustIdx("repl-diskless-load")
	idxReplicaPriority             = mustIdx("replica-priority")
	idxReplDisklessSyncDelay       = mustIdx("repl-diskless-sync-delay")
	idxReplicaAnnouncePort         = mustIdx("replica-announce-port")
	idxReplTimeout                 = mustIdx("repl-timeout")
	idxReplPingReplicaPeriod       = mustIdx("repl-ping-replica-period")
	idxMinReplicasToWrite          = mustIdx("min-replicas-to-write")
	idxMinReplicasMaxLag           = mustIdx("min-replicas-max-lag")
	idxReplDisklessSyncMaxReplicas = mustIdx("repl-diskless-sync-max-replicas")
	idxReplBacklogTTL              = mustIdx("repl-backlog-ttl")
)

func (c *Config) ReplDisableTCPNoDelay() bool        { return c.b(idxReplDisableTCPNoDelay) }
func (c *Config) ReplDisklessSync() bool             { return c.b(idxReplDisklessSync) }
func (c *Config) ReplicaServeStaleData() bool        { return c.b(idxReplicaServeStaleData) }
func (c *Config) ReplicaReadOnly() bool              { return c.b(idxReplicaReadOnly) }
func (c *Config) ReplicaIgnoreMaxmemory() bool       { return c.b(idxReplicaIgnoreMaxmemory) }
func (c *Config) ReplicaAnnounced() bool             { return c.b(idxReplicaAnnounced) }
func (c *Config) ReplicaAnnounceIP() string          { return c.s(idxReplicaAnnounceIP) }
func (c *Config) PrimaryUser() string                { return c.s(idxPrimaryUser) }
func (c *Config) PrimaryAuth() string                { return c.s(idxPrimaryAuth) }
func (c *Config) BindSourceAddr() string             { return c.s(idxBindSourceAddr) }
func (c *Config) ReplDisklessLoad() int64            { return c.n(idxReplDisklessLoad) }
func (c *Config) ReplicaPriority() int64             { return c.n(idxReplicaPriority) }
func (c *Config) ReplDisklessSyncDelay() int64       { return c.n(idxReplDisklessSyncDelay) }
func (c *Config) ReplicaAnnouncePort() int64         { return c.n(idxReplicaAnnouncePort) }
func (c *Config) ReplTimeout() int64                 { return c.n(idxReplTimeout) }
func (c *Config) ReplPingReplicaPeriod() int64       { return c.n(idxReplPingReplicaPeriod) }
func (c *Config) MinReplicasToWrite() int64          { return c.n(idxMinReplicasToWrite) }
func (c *Config) MinReplicasMaxLag() int64           { return c.n(idxMinReplicasMaxLag) }
func (c *Config) ReplDisklessSyncMaxReplicas() int64 { return c.n(idxReplDisklessSyncMaxReplicas) }
func (c *Config) ReplBacklogTTL() int64              { return c.n(idxReplBacklogTTL) }

// MetricsPort is metrics-port (CORVID): the Prometheus endpoint's port, 0
// for none.
func (c *Config) MetricsPort() int { return int(c.n(idxMetricsPort)) }

// MetricsBind is metrics-bind's addresses (CORVID).
func (c *Config) MetricsBind() []string { return strings.Fields(c.s(idxMetricsBind)) }
