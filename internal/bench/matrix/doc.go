// Package matrix reproduces seed 000's measurement: the seven commands
// (SET, GET, INCR, LPUSH, SADD, ZADD, HSET) with the article's exact
// memtier --command strings and key prefixes, keys 1..500, 128-byte random
// data, against each named target and each io-threads setting, producing a
// report.Table (ops/sec per command per target per scenario).
//
// io-threads is applied with CONFIG SET where the target allows it; where
// it does not (Redis and Valkey treat io-threads as immutable, so it is
// normally set in the config file before the server starts) the value is
// recorded as the scenario's label and a note says so.
//
// Side is the side-by-side form: it starts every server itself (package
// peer) for each io-threads scenario, runs each row (a seed command, or a
// pipeline depth for seed 001) once per server per round, alternating the
// servers within a round, and keeps each cell's median round together
// with its latency percentiles and the server's CPU per op and RSS. With
// SideConfig.Cluster (seed 003) each server is a cluster of primaries
// (package clusterup), each row a cluster-mode load, each run starts from
// an empty cluster, and the cells also carry the mean latency and the
// MOVED and ASK rates.
//
// Invariants: targets are measured one after another, never at once, so
// they do not share the client machine's CPU; every run gets its own copy
// of the base configuration; Side stops every server it started before it
// returns, on error too.
package matrix
