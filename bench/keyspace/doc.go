// Command keyspace (run as bench/keyspace-scaling.sh) shows whether
// throughput and latency stay flat as the keyspace grows and while the
// main dict rehashes (issue 6, "Scaling").
//
// # Keyspace scaling
//
// For every size N (default 10^3 ... 10^7) and every server (corvid-server,
// and redis-server 7.0.15 beside it unless -redis=false) it starts a fresh
// server on a free loopback port with no memory limit, fills key:1 ..
// key:N with 128-byte string values, and runs corvid-bench for GET
// (--ratio 0:1), SET (--ratio 1:0) and ZADD with the load of the seed
// study: -t 2 -c 25, --key-minimum 1 --key-maximum N, -d 128 -R,
// --distinct-client-seed, -time seconds each. Before ZADD it also fills the
// sorted sets zkey:1 .. zkey:N (one member each, -zfill), which are
// separate from the strings; the ZADD load is the seed's command
// "zadd __key__ __key__ __data__" with those keys, so every ZADD looks up
// one of N existing sets. A fresh server per size keeps sizes independent
// and gives the RSS each size needs.
//
// The fill uses DEBUG POPULATE when the server accepts it (both are
// started with --enable-debug-command yes; POPULATE N+1 then DEL key:0), and
// otherwise pipelined SETs over one raw TCP connection in batches of
// -batch; the sorted sets are always pipelined ZADDs.
//
// With -rounds R the whole sweep runs R times (the servers in reverse order
// on even rounds) and the tables show, per row, the run of median ops/sec;
// the CSV keeps every run.
//
// Each row records ops/sec, p50/p99/p99.9/p99.99/max latency from
// corvid-bench's JSON output, the server's CPU time per operation
// (utime+stime of /proc/PID/stat around the run: steadier than ops/sec on a
// shared machine) and its RSS. Throughput is reported relative to the
// smallest size's row of the same command and server; "flat within 20%"
// holds when every ratio lies in [0.8, 1.2]. PASS/FAIL is printed as
// information only.
//
// # Rehash latency
//
// With -rehash (default on, corvid only) it fills 2^b-m keys (b is
// -rehash-bits, m -rehash-margin) and runs a steady GET load on those keys
// for -rehash-time seconds in three windows:
//
//   - quiet: the GET load alone;
//   - overwrite: plus a second connection that SETs existing keys
//     (cycling over them), 2^b+2m pipelined writes spread evenly over the
//     window (the same extra load as the next window, without growth);
//   - grow: plus the same writer inserting new keys from 2^b-m to
//     2^(b+1)+m, so the key count doubles and every dict crosses a power of
//     two and rehashes incrementally.
//
// Corvid splits the keyspace into 256 lock stripes, each with its own dict;
// doubling the key count still makes every stripe's dict cross one power of
// two. Before each window it brings the dicts to rest: idle dicts rehash
// only in the cron's 1 ms per tick (activerehashing, as Valkey's
// databasesCron), so a fill leaves many stripes half-rehashed; while
// MEMORY STATS reports dicts being rehashed it reads every key once with
// pipelined EXISTS, each lookup moving a rehash step along (up to 5
// passes). The report compares the GET latency of the grow window
// against the overwrite window (same writer load) and the quiet one, and
// records the dicts' bucket-table bytes (MEMORY STATS
// overhead.db.hashtable.lut) before and after each window to show the
// tables did grow.
//
// The report goes to stdout and to -out PREFIX.md and PREFIX.csv, headed by
// the exact command line and the machine (nproc, CPU model).
package main
