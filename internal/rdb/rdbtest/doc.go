// Package rdbtest has helpers for testing code that reads and writes RDB
// files with package rdb: comparison of entries regardless of the order of
// unordered collections, and generators of datasets that cover every
// encoding Valkey 8.0.1 writes.
//
// Invariants: generators are deterministic for a given *rand.Rand (or, for
// Coverage, always the same); they return fresh entries that the caller
// may modify; every collection they return is non-empty and has distinct
// members or fields, as a server would hold it.
package rdbtest
