// Package filecheck checks, and where it can repairs, the files Corvid
// persists to: RDB files (CheckRDB, valkey-check-rdb's job) and
// append-only files (CheckAOF, valkey-check-aof's job). corvid-server runs
// them with --check-rdb and --check-aof, or when started under a name
// containing corvid-check-rdb or corvid-check-aof (ToolFor, Main).
//
// # RDB
//
// CheckRDB walks the whole file with rdb.Loader (so its verdict is the
// loader's by construction: a file it passes, the server loads), dropping
// each key once counted: per database, per type, with an expiry, already
// expired. The CRC64 is verified unless the trailer is 0. On bad input it
// names the byte offset the loader reports and what was being read: the
// header, the checksum, or the record after the last good one, whose key
// is recovered with rdb.ReadKeyHeader when it was read whole. A file that
// is well formed but holds what Corvid does not model (module values)
// is reported as Unsupported, not OK (valkey-check-rdb passes it).
//
// # AOF
//
// CheckAOF takes a manifest, a directory holding one, or a single file (an
// old-style AOF, with or without an RDB preamble, or one base or incr
// file), decided as valkey-check-aof decides (a manifest is a file whose
// first non-comment lines start with "file"; an RDB starts with "REDIS"
// and has at least 8 bytes). Each file is walked with valkey-check-aof's
// rules (walk.go, checkSingleAof): commands are "*<argc>" then "$<len>"
// and the bytes, every line and argument ending in CRLF; "#" lines are
// annotations; MULTI inside a transaction, EXEC outside one, and a file
// ending inside one are errors; the valid prefix ends after the last whole
// command outside a transaction. To those rules Corvid adds the loader's
// one: a command needs at least one argument. A file that passes the walk
// is then read by aof.LoadFile, the server's own loader, so that "valid"
// means the server will load it.
//
// Repairs follow valkey-check-aof: only the last file of a manifest may be
// cut, and only at its valid prefix (with --fix, whatever the error after
// it: a cut tail or corruption in the middle; without --fix nothing is
// written); an RDB preamble that is not sound, a problem in an earlier
// file, a missing file or a bad manifest cannot be repaired. With
// --truncate-to-timestamp T the last file is cut at its first "#TS:"
// annotation later than T. Unlike valkey-check-aof, --fix does not ask for
// confirmation, so it refuses two cuts valkey-check-aof would offer: of a
// file named *.manifest (always read as a manifest), and to nothing of a
// file that does not start with a command or an annotation (not an AOF).
// The two options may be given together.
//
// # Invariants
//
//   - Nothing is written to any file unless Fix or TruncateToTimestamp is
//     set, and then only os.Truncate of the last file at an offset where a
//     whole command (or, for the timestamp, an annotation) starts.
//   - Checking never panics on any input (FuzzWalk, FuzzCheckRDB) and never
//     allocates in proportion to a length read from a file: arguments are
//     skipped, not read, and RDB values go through rdb.Loader, which
//     allocates only for bytes it has read.
//   - A report's Verdict alone decides the exit status (Verdict.ExitCode).
//   - Main never calls os.Exit and never panics on user input: it returns
//     the exit status.
//
// The package has no state of its own; its functions are safe for
// concurrent use on different files.
package filecheck
