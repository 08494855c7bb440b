// Package sla finds the highest throughput at which a latency percentile
// (default p99) stays at or under a bound (default 1 ms), the method of
// seed 002: first raise the number of connections against one instance
// until the bound is broken, then, with several targets (one server
// process per core, seed 001), add instances one at a time at the best
// connection count until any instance breaks the bound. The answer is the
// highest total ops/sec among the steps that kept the bound.
//
// Invariants: steps run one after another with a fresh configuration
// copy; a step that breaks the bound is run again (Config.Retries, one by
// default), and one that breaks it every time ends its phase (latency
// only grows with more load, so later steps would not qualify). Every
// run is a point of the curve; only runs within the bound can be the
// answer.
package sla
