// Package wire is corvid-bench's own RESP client: command templates encoded
// straight into a write buffer, and a reply scanner that walks replies in
// the read buffer without building values.
//
// Hot-path rules (the load generator's inner loop):
//   - Template.Append and Scan never allocate; Conn.Flush writes the whole
//     pending batch with one Write call (one syscall per pipeline batch).
//     Over TLS (DialTLS) that one Write on the tls.Conn seals the batch
//     into one TLS record, sent with one syscall, up to TLS's 16 KB record
//     limit (a larger batch becomes one record and one syscall per 16 KB):
//     DialTLS turns crypto/tls's dynamic record sizing off, which would
//     otherwise cut a new connection's first writes into ~1 KB records.
//     What corvid-bench measures over TLS is therefore one record per
//     batch, as it sends one TCP write per batch in plaintext; memtier
//     writes each pipelined request as its own record.
//   - Conn.LastRead is taken once per read syscall; every reply parsed from
//     that read shares the timestamp, which is when its bytes arrived.
//
// Buffer lifetime: the message slice Scan returns for an error reply points
// into the read buffer and is valid only until the next Conn.Next or
// Conn.Fill call; copy it (only the MOVED/ASK path does) to keep it.
//
// Ownership: a Conn belongs to one goroutine. Only Close may be called from
// another goroutine (to unblock a read at shutdown; a tls.Conn allows that
// too). A TLS Conn is never handed over as a raw socket (NetConn refuses).
//
// The slow path (Parse, Conn.Do) builds Values and allocates; it is for
// handshakes and control commands (HELLO, AUTH, CLUSTER SLOTS, CONFIG SET).
package wire
