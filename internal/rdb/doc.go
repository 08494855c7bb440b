// Package rdb reads and writes Valkey's RDB format: whole files (RDB 11
// as Valkey 8.0.1 writes them; RDB 1 to 11 on reading, so files from
// Redis 7.0, which writes 10, and older) and DUMP/RESTORE payloads.
//
// The package is independent of the keyspace: values travel as Entry, a
// plain description of one key (strings, lists, sets, sorted sets,
// hashes, streams, with expiry and LRU/LFU hints). The server adapts its own
// objects to and from Entry.
//
// # Writing
//
// Writer streams: WriteHeader (magic and the AUX fields Valkey writes,
// with the replication ones if Options.Repl is set), WriteFunction per
// function library, BeginDB per database (SELECTDB and RESIZEDB),
// WriteEntry per key in any order within its database, Close (EOF opcode
// and CRC64). Only one
// serialized value is held at a time, so a snapshot can feed keys as it
// walks the keyspace. Each value gets the encoding Valkey 8.0.1 would
// have given it under the configured Limits (as if lists had been built
// with RPUSH one element at a time and other types with one SADD, ZADD
// or HSET): intset, listpack or hashtable sets; listpack or skiplist
// sorted sets; listpack or hashtable hashes; quicklists of listpack nodes
// with PLAIN nodes for large elements (with Entry.ListCompress, the
// interior nodes Valkey holds compressed written as LZF blobs even with
// compression off, as Valkey writes them); streams as
// RDB_TYPE_STREAM_LISTPACKS_3 with their nodes' listpacks as given
// (stream.go). Strings are integer-encoded and
// LZF-compressed by Valkey's rules (rdbSaveRawString), with Valkey's own
// LZF algorithm, and listpack scores are formatted by a transcription of
// Valkey's fpconv_dtoa (Grisu2), so that for deterministic encodings (everything but
// hashtable sets and hashes, whose order in Valkey depends on its hash
// table) DumpPayload is byte-equal to Valkey's DUMP; tests/rdbcompat
// checks this against valkey-server 8.0.1.
//
// # Reading
//
// Loader.Load reads a file from an io.Reader and hands each key to
// OnEntry as soon as it is decoded; AUX fields, RESIZEDB hints and
// function libraries go to optional callbacks. Every encoding of strings,
// lists, sets, sorted sets and hashes that RDB 1 to 11 can contain is
// decoded, including ziplists, zipmaps, quicklists of ziplists and
// string-scored sorted sets, and the three stream types (validated
// completely, see stream.go). Module values, module AUX data and
// pre-release function data are reported as ErrUnsupported naming the
// type and its offset. Keys are delivered whatever their expiry: dropping
// expired keys is the caller's decision (Valkey drops them on a primary).
// Empty collections, which Valkey skips, are skipped (empty streams,
// which Valkey keeps, are kept). Duplicate keys are
// not detected (that takes a set of every key; the keyspace notices on
// insert, where Valkey fails the load).
//
// The writer trusts its input: collections must be non-empty (ErrEmpty
// otherwise), set members, hash fields and sorted-set members distinct,
// and scores not NaN, as the keyspace guarantees; it does not check the
// last three.
//
// Invariants on bad input: Load and ParseDumpPayload never panic, and
// every error about the input is a *FormatError with the byte offset
// where the problem was found (for truncation, the input's length),
// wrapping ErrCorrupt (ErrChecksum for a CRC64 mismatch), ErrUnsupported
// or ErrVersion. Errors returned by callbacks and by the io.Reader are
// returned unwrapped. Serialized structures (listpack, ziplist, intset,
// zipmap) are validated completely: lengths, back-lengths, terminators,
// element counts, intset order; duplicate set members, hash fields and
// sorted-set members, and NaN scores, are corrupt as with Valkey's deep
// sanitization. No length field causes an allocation before the data it
// announces has arrived: strings grow as bytes are read, element slices
// reserve at most 1024 elements up front, and an LZF string may claim at
// most 88 times its compressed size (the format's maximum expansion).
// A file's CRC64 trailer is checked unless it is zero (rdbchecksum no) or
// Loader.IgnoreChecksum is set; the CRC covers every byte before it.
//
// Buffer ownership: an Entry delivered by Load or returned by
// ParseDumpPayload never aliases the input or the Loader's buffers; the
// Entry and all its slices belong to the receiver. Elements decoded from
// one listpack, ziplist, intset or zipmap share that blob's memory, each
// with its capacity cut to its length, so appending to one element never
// changes another (and keeping one element keeps its blob alive). Writer and DumpPayload
// do not retain the Entry given to them.
//
// Concurrency: a Writer or Loader is used by one goroutine at a time;
// package functions are safe for concurrent use.
package rdb
