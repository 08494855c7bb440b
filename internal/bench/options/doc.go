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
//
// Invariants: Parse never panics on any input; every rejection is a
// *UsageError whose text starts with "error: " like memtier's, and callers
// exit with status 2 on it. A Config returned without error is complete:
// defaults are filled and cross-flag rules have been checked.
package options
