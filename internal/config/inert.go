package config

// How a directive takes effect at run time. Valkey's config table gives
// each row an apply function or reads the value where it is used; in
// Corvid every row that CONFIG SET may change is one of:
//
//   - read where it is used: it has a typed accessor (getters.go: mustIdx
//     marks the row), which the server calls on every use or copies into
//     its hot state after every CONFIG SET (server.applyConfig); a few
//     also have an OnChange hook that acts at once (port, bind, dir);
//   - refused while its feature is missing: DefaultUnsupported accepts
//     only the off values (cluster-enabled, replicaof, ...);
//   - inert: stored, shown by CONFIG GET and written by CONFIG REWRITE,
//     so a valkey.conf loads unchanged, but nothing reads it yet. Each
//     such row is listed below with what it waits for or why it has no
//     effect in Corvid.
//
// TestEveryDirectiveApplies holds the table to this: a modifiable row
// with neither an accessor nor an entry here fails it, and so does a row
// listed here that gained an accessor (delete it from this list when its
// feature lands).

const (
	waitRDB     = "waits for RDB persistence"
	waitCluster = "not built yet in cluster mode"
	noJemalloc  = "no effect: Corvid's memory is Go's allocator (no jemalloc, no active defragmentation)"
	noCrashLog  = "no effect: a Go panic prints its own stack trace, and the server contains panics per client"
)

var inertDirectives = map[string]string{
	// RDB.
	// rdb-del-sync-files deletes the RDB a full sync wrote, in a server
	// that persists nothing: only replication writes such a file.
	"rdb-del-sync-files":         "not built: the RDB a disk-based full sync writes is kept",
	"rdb-save-incremental-fsync": waitRDB, "sanitize-dump-payload": waitRDB, "rdb-key-save-delay": waitRDB,
	"key-load-delay": waitRDB, "loading-process-events-interval-bytes": waitRDB,
	"shutdown-on-sigint":  "only its default is built: save when save points are set",
	"shutdown-on-sigterm": "only its default is built: save when save points are set",
	// AOF.
	"aof-rewrite-incremental-fsync": "no effect: the rewrite's base is written through a buffer and fsynced once, at its end",
	// Replication: the rest is live (internal/server/repl_*.go).
	"dual-channel-replication-enabled": "no effect: full syncs use one connection (dual-channel transfers are not offered)",
	"replica-lazy-flush":               "no effect: a full sync's flush drops the old dataset at once (Go's collector frees it)",
	"replica-ignore-disk-write-errors": "no effect: a replica always applies its primary's stream, whatever its disk state",
	"propagation-error-behavior":       "only its default is built: a command of the primary's stream that fails is logged and the stream goes on",
	// TLS: the rest is live (internal/tlsconf, internal/server/tls.go).
	"max-new-tls-connections-per-cycle": "no effect: each TLS handshake runs on its connection's own goroutine, not in a per-cycle budget",
	// Not applicable to a Go server, or not built.
	"jemalloc-bg-thread": noJemalloc, "activedefrag": noJemalloc, "active-defrag-cycle-min": noJemalloc,
	"active-defrag-cycle-max": noJemalloc, "active-defrag-threshold-lower": noJemalloc,
	"active-defrag-threshold-upper": noJemalloc, "active-defrag-max-scan-fields": noJemalloc,
	"active-defrag-ignore-bytes": noJemalloc,
	"crash-log-enabled":          noCrashLog, "crash-memcheck-enabled": noCrashLog, "use-exit-on-panic": noCrashLog,
	"watchdog-period":      "no effect: there is no SIGALRM watchdog; slow commands show in the slowlog and the latency monitor",
	"proc-title-template":  "no effect: the process title is not rewritten",
	"locale-collate":       "no effect: accepted without setlocale; string comparisons are bytewise",
	"oom-score-adj":        "not built yet: the OOM score is not adjusted",
	"oom-score-adj-values": "not built yet: the OOM score is not adjusted",
	"ignore-warnings":      "no effect: Corvid has no start-up warnings to silence",
	"debug-context":        "no effect: there is no crash report to annotate",
}

// Inert reports why directive name has no effect yet, or "" when it does
// (or is not a directive).
func Inert(name string) string {
	if r := lookup(name); r != nil {
		return inertDirectives[r.e.name]
	}
	return ""
}
