// Package stats turns what the load generator counted into memtier-style
// results: the "ALL STATS" table (Type, Ops/sec, Hits/sec, Misses/sec,
// MOVED/sec and ASK/sec in cluster mode, Avg. Latency, the chosen
// percentiles, KB/sec), BEST/WORST/AGGREGATED AVERAGE over runs, the
// latency distribution, HDR percentile files, and a JSON document laid out
// like memtier's --json-out-file.
//
// Latencies are recorded in HDR histograms in nanoseconds (lowest
// discernible value 1µs, 3 significant digits, up to 100 s) and printed in
// milliseconds like memtier.
//
// Ownership: a Result is built by one goroutine (the run's collector) after
// all client goroutines have stopped; it is read-only afterwards. Nothing
// here locks.
package stats
