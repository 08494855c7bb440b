// Package options parses memtier_benchmark's command line into a Config.
//
// Flag names, short forms, defaults and error texts follow memtier_benchmark
// (RedisLabs/memtier_benchmark, memtier_benchmark.cpp): getopt_long style,
// so "--name=value", "--name value", "-t 4", "-t4" and bundled argument-less
// short flags ("-RD") all work. Departures, each deliberate:
//
//   - -s/--server takes a comma-separated list and may be repeated: every
//     entry (host or host:port) is driven at once, as seed 001 does with one
//     server process per core.
//   - With no -s, -S or -p at all, Config.Embedded is true: the caller starts
//     an in-process corvid-server instead of dialling localhost:6379.
//   - --test-time also accepts Go durations ("500ms") so tests stay short.
//   - TLS (tls.go): --cert, --key, --cacert, --tls-skip-verify,
//     --tls-protocols and --sni without --tls, and --key without --cert,
//     are errors (memtier ignores them silently); --tls-protocols must name
//     consecutive versions (crypto/tls takes a range); --tls with the
//     embedded server or with --client-io epoll|uring is refused. As in
//     memtier, --cert without --key reads the key from the --cert file and
//     the server's chain is verified but not its host name.
//   - --uri (memtier's redis:// and rediss:// URIs) is not implemented.
//
// Invariants: Parse never panics on any input; every rejection is a
// *UsageError whose text starts with "error: " like memtier's, and callers
// exit with status 2 on it. A Config returned without error is complete:
// defaults are filled and cross-flag rules have been checked.
package options
