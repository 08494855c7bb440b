// Package repl holds the parts of replication that know nothing of the
// keyspace: the replication buffer (the stream a primary sends its
// replicas, and the backlog partial resyncs are served from), the
// replication history (the IDs and offsets PSYNC is answered by), and the
// framing of a full sync's RDB payload (a length, or Valkey's $EOF: mark
// for a diskless transfer). The server wires them (internal/server
// repl_primary.go and repl_replica.go; docs/architecture.md,
// "Replication").
//
// # Offsets
//
// Offsets are Valkey's: the stream's bytes are numbered from 1, a
// server's master_repl_offset is the number of its last byte, and PSYNC
// asks for the next byte it lacks (offset+1). A Buffer made at offset n
// holds bytes n+1 onwards.
//
// # Ownership and locks
//
// A Buffer is appended to under its mutex by whoever produces the stream
// (the effects sink of a primary, with the unit's stripes held; the link
// goroutine of a replica) and read by one Reader per replica on that
// replica's sender goroutine. Blocks are never reused: a slice Next
// returned stays valid (and unchanged) after the Reader moved on and the
// block was trimmed. The Buffer's mutex is a leaf (taken after the
// keyspace stripes and the effects stream's mutex); nothing blocks under
// it: an append copies and signals readers without waiting.
package repl
