// Package config is Corvid's configuration: a data-driven table of every
// Valkey 8.0.1 directive (table.go, transcribed from static_configs[] in
// Valkey's src/config.c) plus the machinery around it: valkey.conf and
// command-line parsing (Load), CONFIG GET (Get), CONFIG SET (Set/SetWith),
// CONFIG REWRITE (Rewrite) and typed getters for the server.
//
// # The table
//
// Each row has a name, an optional alias (slaveof/replicaof,
// masterauth/primaryauth, hash-max-ziplist-*/hash-max-listpack-*, ...), a
// kind (bool, string, enum, numeric with bounds and memory/percent/octal
// syntax, or special), a default, and flags: immutable, sensitive (must be
// redacted from logs), hidden (only exact CONFIG GET finds it), protected
// (CONFIG SET needs enable-protected-configs), deny-loading, multi-arg,
// debug. Parsing, formatting, bounds and every error text follow Valkey:
// memory units b, k (1000), kb (1024), m, mb, g, gb in any case; bools
// yes/no; enums case-insensitive, shown lower-case; memory values shown in
// bytes; percentages "N%". The special directives are save,
// client-output-buffer-limit, oom-score-adj-values, notify-keyspace-events,
// bind, replicaof, latency-tracking-info-percentiles and dir; the file-only
// directives are include, rename-command, user, loadmodule and sentinel.
//
// # Concurrency and ownership
//
// All values live in one immutable snapshot reached through an atomic
// pointer. Readers (typed getters, Int/String/Bool/Lookup, Get) never lock
// and always see a consistent snapshot, so the values of a multi-directive
// CONFIG SET appear together. Writers (Set, OnChange, SetUnsupported,
// SetUsersForRewrite, Rewrite) serialise on one mutex and publish a new
// snapshot; nothing is ever mutated after publication. Lock order: the
// config mutex is a leaf except that OnChange hooks run while it is held,
// so hooks may read the Config but must not call Set or Rewrite. Slices
// returned by getters are copies owned by the caller.
//
// # Apply hooks and Unsupported hooks
//
// OnChange hooks are the server's apply functions (re-listen on port/bind,
// resize for maxclients, start eviction for maxmemory...). They run after a
// CONFIG SET published its values and only for directives whose value
// changed; if one fails, the previous snapshot is restored, the hooks run
// again and CONFIG SET fails with the hook's text, as Valkey does. Hooks do
// not run at Load: the server reads the loaded values when it starts.
//
// Unsupported hooks (unsupported.go) refuse values Corvid cannot honour yet
// so that nobody believes data is persisted or replicated when it is not:
// replicaof, unixsocket and
// loadmodule (the server adds its own at run time: appendonly and the AOF
// writer's settings cannot change once it runs). The "off" values are
// accepted. A refused value fails start-up with the usual FATAL CONFIG FILE
// ERROR naming the line, and CONFIG SET with "CONFIG SET failed (possibly
// related to argument 'x') - <reason>". Relax them as features land.
//
// # How a directive applies
//
// Every directive CONFIG SET may change is read where it is used (a typed
// accessor), refused while its feature is missing (DefaultUnsupported), or
// listed in inert.go with what it waits for; TestEveryDirectiveApplies
// keeps it so. Immutable directives are refused by CONFIG SET with
// Valkey's "can't set immutable config".
//
// # Deliberate differences from Valkey 8.0.1
//
//   - Two directives of Corvid's own, immutable: net-engine (io_uring,
//     epoll or goroutine; default io_uring) and event-loops (default 0:
//     derived from io-threads). CONFIG GET * lists them after Valkey's.
//   - Two more of Corvid's own, for its Prometheus endpoint, mutable:
//     metrics-port (default 0: off) and metrics-bind (default 127.0.0.1),
//     listed after those.
//   - dir does not chdir the process: the absolute directory is stored and
//     the server applies it (os.Chdir at start-up or an OnChange hook).
//   - OnChange hooks run once per changed directive; Valkey deduplicates
//     identical apply functions shared by several directives.
//   - "user" lines are stored, not validated: the ACL layer validates them
//     (Users) and can supply rewritten lines (SetUsersForRewrite).
//   - rename-command is checked only when LoadOptions.CommandExists is set.
//   - CONFIG REWRITE keeps the old file's permission bits instead of
//     applying 0644 minus the start-up umask, and appends options in table
//     order (Valkey's order follows its hash table).
//   - CONFIG GET returns matches in table order (Valkey: hash order).
//   - locale-collate is accepted without calling setlocale.
//   - activedefrag yes is refused with Valkey's own message for builds
//     without its jemalloc, which is Corvid's situation.
//
// Facts that are version-specific and were checked against Valkey history:
// in 8.0.1 io-threads is bounded 1..16, io-threads-do-reads is a real
// (immutable, default yes) directive, the lazyfree-* and replica-lazy-flush
// directives default to yes, and events-per-io-thread is not hidden yet.
package config
