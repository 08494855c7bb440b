// Package keygen produces the key indices and value sizes that
// corvid-bench puts into requests, with memtier_benchmark's semantics:
//
//   - R: uniform over [min, max]
//   - S: sequential min, min+1, ..., max, then wraps (per generator)
//   - G: Gaussian around a median (default: centre of the range) with a
//     standard deviation (default: range/6), redrawn until it lands in range
//   - P: parallel — sequential over the client's own slice of the range, the
//     range being split evenly among all clients
//   - Z: Zipf with exponent s in (0, 5); rank 1 is key min (the hottest key)
//
// Invariants:
//   - A Gen is owned by exactly one goroutine (one client connection); it is
//     not safe for concurrent use and never locks.
//   - Next and the size functions never allocate: they are on the hot path.
//   - The same seed gives the same sequence, so tests and runs are
//     reproducible; memtier's rule is kept: without --distinct-client-seed
//     every client starts from the same seed.
package keygen
