// Package resp implements the Redis serialization protocol (RESP2 and RESP3)
// for the server side: a zero-copy request Reader and an append-style reply
// Writer.
//
// # Buffer lifetime
//
// The argv slices returned by Reader.Next point into the reader's buffer.
// They stay valid until the next call to Reader.Fill, Reader.Feed,
// Reader.Release, Reader.Trim or Reader.Reset, which may compact the buffer
// (move the unparsed bytes to its front), grow it (copy them to a new one)
// or give it back. The outer [][]byte is reused by the next call to Next.
// The server executes every complete command in the buffer before it reads
// again, so commands never copy their arguments unless they store them.
//
// The exception is a big argument: a bulk of BigArg bytes (32 KiB, Valkey's
// PROTO_MBULK_BIG_ARG) or more that is not whole in the buffer when its
// length is parsed is read into a buffer of its own, of its length and
// CRLF rounded up to what Go's allocator hands out; its bytes so far move
// there, and Fill reads the rest of the bulk there (and nothing beyond
// it). Owned and TakeOwned report such arguments of the last command
// Next returned. The Reader never reads into, reuses or gives back such
// a buffer once the command is complete: its owner is the caller, who
// may keep it (a stored string adopts it instead of copying the
// argument, and may grow into its spare capacity) or drop it. Every
// other argument aliases the read buffer. A big bulk already whole in
// the buffer stays there (Valkey copies that one too).
//
// A Reader holds a buffer only while it has input: Fill takes one from a
// pool shared by every Reader of the process when it holds none, Release
// gives it back once no command is pending in it (so an idle connection
// holds none, as Valkey 8.0's shared query buffer), and a buffer given back
// is reused by another Reader: nothing may keep a slice of it.
//
// # Parse state
//
// A command that is not complete when Next runs is not parsed again from
// its start: the Reader keeps Valkey's state (the arguments still to read,
// the length of the bulk being read, where the search for a line's end
// resumes) and the offsets of the arguments already read, all relative to
// the start of the pending command, which Fill's compaction and growth keep
// valid. The state is cleared when a command completes, when Next returns
// an error (the error is then returned by every later call, and the
// buffered input is dropped) and by Reset. Work is linear in the input
// however it is split across reads; the unexported steps counter, checked
// by TestReaderLinearSteps, measures it.
//
// # Reads
//
// Fill reads at most Reader.ReadChunk bytes (DefaultReadChunk, 16 KiB, as
// Valkey's PROTO_IOBUF_LEN), so a client whose buffer was grown by one big
// command cannot hand the server megabytes of pipelined commands in one
// round. The exception is a pending bulk: Fill then reads up to the rest of
// that bulk, into a buffer grown once to hold it.
//
// # Limits and Valkey compatibility
//
// Requests are accepted and refused as Valkey 8.0.1 does (networking.c),
// with its error texts: counts are parsed like string2ll (no leading zeros,
// "+" or "-0"); a multibulk count is at most 2^31-1 (the argument list grows
// as arguments arrive, never preallocated beyond 1024 entries); a bulk is
// at most MaxBulk (proto-max-bulk-len); unauthenticated clients are held to
// 10 arguments, 16 KiB bulks and a 1 MB query buffer. Line ends are found
// as with C's strchr, so a NUL byte in a count or inline line hides the end
// of that line. A count or inline line must end within InlineMax (64 KiB)
// bytes of its start: Valkey refuses a longer one only if a read leaves
// more than 64 KiB of it buffered without its end, which depends on how
// the bytes arrive, so the Reader always refuses it; this is the one case
// where the Reader's answer does not depend on the split but Valkey's does.
//
// The whole pending command (its big arguments included) must fit in
// MaxQuery (client-query-buffer-limit): the Reader gives up with ErrQueryBufferLimit
// as soon as a declared bulk length makes the command longer than that,
// without allocating for it. (Valkey applies the limit to the bytes not yet
// parsed, so it accepts a command of several bulks whose total exceeds the
// limit; the Reader does not.) All length arithmetic compares against what
// remains instead of adding to an offset, so lengths up to 2^63-1 cannot
// overflow.
//
// # Reply blocks
//
// A Writer given a block size (SetBlockSize, 64 KiB for a client's
// writer) fills its buffer up to that size and then, instead of moving
// everything to a buffer twice as large, keeps the full buffer as a block
// and goes on in a new one: the output of a reply of millions of elements
// (SRANDMEMBER key -10000000, LRANGE of a huge list) is a list of blocks
// holding it once, as Valkey's reply list, not a buffer copied at each
// doubling with the old copies left to the garbage collector. Output that
// stays within the buffer is written exactly as without blocks (one
// capacity check per write). Every write reserves its whole encoding
// first, so a reply element never straddles two blocks, and a reply that
// starts in the last block is contiguous there (From).
//
// Ownership: a block is full once the writer has moved past it and is
// never written again. Blocks returns the full blocks; their owner (the
// client's flush) may hand them to the connection, which keeps them until
// the kernel has taken them, and then calls Reset, which forgets them. The
// writer keeps only the buffer being filled. Bytes, on a writer with
// blocks, copies them into one buffer (for the few callers that need one
// slice; the client's flush uses Blocks and Tail).
//
// Neither type is safe for concurrent use; each connection owns one of each.
package resp
