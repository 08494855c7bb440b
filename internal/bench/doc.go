// Package bench is corvid-bench: a memtier_benchmark-compatible load
// generator plus the seed study's methods as subcommands (matrix, report,
// sla). Main is the whole command line; cmd/corvid-bench only wires the
// embedded server and calls it. The pubsub subcommand measures pub/sub
// fan-out, which memtier cannot.
//
// Subpackages: options (memtier flags), keygen (key patterns, value
// sizes), wire (RESP client), loadgen (connections, pipelining, cluster
// mode), stats (histograms, memtier tables, JSON), report (the seed's
// table and its normalized rows), chart (SVG/PNG), matrix, sla, pubsub,
// peer (the servers a side-by-side matrix starts) and clusterup (a cluster
// of those servers, formed over the client protocol, for seed 003).
//
// Invariants: Main never panics on user input and never calls os.Exit; it
// returns the exit status (0 ok, 1 run failed, 2 bad command line).
// StartEmbedded is set once by the main package before Main runs and only
// read afterwards.
package bench
