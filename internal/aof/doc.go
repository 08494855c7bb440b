// Package aof owns Valkey 8.0.1's multi-part append-only file on disk:
// the manifest, the incr file being appended to, the base a rewrite
// installs, and loading all of them back. Wiring it to the server (an
// effects.Sink on Server.Effects(), loading through Server.Replay) is the
// caller's job.
//
// # Files
//
// A directory (appenddirname) holds, for appendfilename "appendonly.aof":
//
//	appendonly.aof.manifest       the list below, one "file <name> seq <n> type <b|h|i>" line each
//	appendonly.aof.<n>.base.rdb   the last rewrite's snapshot (.base.aof without an RDB preamble)
//	appendonly.aof.<n>.incr.aof   the commands since, in order; the last is being written
//	temp-...                      files being written (a manifest, a rewrite's base)
//
// Enable starts an AOF for a dataset that already exists (CONFIG SET
// appendonly yes): appends go to temp-<name>.incr, listed nowhere, until
// the first rewrite commits and renames it to the next incr file.
//
// A single-file AOF of the old kind (dataDir/appendonly.aof) is moved in
// as base seq 1 by UpgradeOldStyle, as Valkey does before loading.
//
// History files (type h, a base or incr made obsolete by a rewrite) are
// deleted after each rewrite and at Open, unless DisableAutoGC. The
// manifest is only ever replaced whole (WriteManifest: temp file, fsync,
// rename, fsync of the directory), and a change (a new incr, a new base)
// is made on a copy that is installed only once persisted, as in Valkey.
// A Writer owns its directory: two Writers, or a Writer and a Load, on
// one directory at once are a bug (Valkey has one server per dir).
//
// # Concurrency and locks
//
// Append, AppendUnit and Write (the effects.Sink) may be called from any
// goroutine and never do I/O: they copy the bytes into a buffer under
// Writer.mu, a short leaf lock, so they may run under effects.Stream.mu
// with the keyspace stripes held. Bytes appended by one goroutine keep
// their order; the order between goroutines is the order of their calls
// (the effects stream already serializes its sinks).
//
// Rewrite.Switch, like Append, only takes Writer.mu and does no I/O: a
// server calls it with its effects stream locked, where its snapshot
// starts, so that the new base plus the new incr file replay exactly the
// dataset (bytes appended before Switch go to the old incr file, later
// ones to the new, at the next flush).
//
// WaitDurable, Sync, Flush, PrepareRewrite, StartRewrite,
// Rewrite.Commit/Abort, Stats, Manifest and Close may be called from any
// goroutine. File I/O happens under Writer.wmu, which serializes writes,
// the fsync of the always policy, incr switching and manifest updates.
// Lock order: wmu, then mu; mu is never held across I/O. Background
// fsyncs (everysec) and the fsync-and-close of a replaced incr file run
// on one worker goroutine, in order, like Valkey's bio AOF thread; a
// background goroutine flushes every FlushInterval what no caller waited
// for. Close stops both.
//
// One rewrite at a time: PrepareRewrite (the next incr file, listed in a
// persisted manifest), Switch, the caller's snapshot into Rewrite.File,
// then Commit (new base, old files to history, history deleted) or Abort
// (the new incr file stays, as after a failed rewrite in Valkey). A
// Rewrite belongs to the goroutine that writes its snapshot; Close may
// abort it concurrently.
//
// # When a write is durable
//
// Append returns a Ticket. WaitDurable(ctx, t) returns nil once the bytes
// up to t are:
//   - always: written and fsynced (fdatasync). Group commit: the first
//     waiter to find no flush running takes the whole buffer, writes it
//     and fsyncs while holding wmu; waiters that arrive meanwhile wait for
//     it and, if it did not cover them, one of them does the next flush
//     for all. One fsync thus covers every append made before it began.
//     A failed write or fsync is final (Valkey exits): every later wait
//     returns it.
//   - everysec: written to the OS; an fsync follows within about a
//     second in the background. While a background fsync runs, the write
//     is postponed (for up to two seconds, then done anyway and counted
//     in Stats.DelayedFsync), and WaitDurable returns at once, exactly
//     when Valkey would reply.
//   - no: written to the OS.
//
// A server must call WaitDurable (or Sync) after committing a write and
// before replying, as Valkey flushes its AOF buffer before it replies.
//
// # Loading
//
// Load reads the manifest and its base and incr files in order and
// delivers each command to a callback (argv valid during the call only),
// an RDB base (or preamble) to another. It follows Valkey's
// loadSingleAppendOnlyFile byte for byte (the same lines accepted, the
// same messages), with four deliberate differences: a declared length is
// never allocated before the file is known to hold that many bytes; a
// truncated file that is not the last is reported but not cut; a cut
// inside a transaction (even in the middle of a command) goes back to
// before its first MULTI (Valkey cuts after the last complete command and
// reverts the transaction on the next load; it also moves the revert
// point on a nested MULTI); a cut never removes an RDB preamble (Valkey's
// valid_up_to starts at 0 after it). Load never panics on any input
// (FuzzLoader). Load and ParseManifest are safe for concurrent use on
// different directories.
package aof
