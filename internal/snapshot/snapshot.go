// Package snapshot writes a point-in-time RDB file of a keyspace while
// clients keep writing to it, without fork: Corvid's BGSAVE and SAVE.
//
// # How it stays a point in time
//
// The snapshot starts with every stripe held for an instant: it installs
// itself as the keyspace's PreWriter (db.PreWriter) and counts the keys;
// every write from then on tells it, before it changes a key and with the
// key's stripe held, the key's old value. The walker then goes through
// the keyspace one shard (one database's keys in one stripe) at a time,
// in chunks of a few hundred keys, holding that shard's stripe only while
// it serializes a chunk into memory, and writes the chunk to the file
// after releasing it.
//
// A shard is in one of three states, all read and changed under its
// stripe's mutex (so PreWrite, which runs under it, needs no lock of its
// own): not started, being walked (written: the keys already in the
// file), done. When a write announces a key of a shard that is not done
// and whose key is not yet in the file, the old value is copied aside
// (pre), or, for a key that did not exist at the start, a marker that it
// must not be written. The walker writes a key's copy instead of its
// current value, skips marked keys, and when the shard's walk ends
// writes the copies of keys deleted since the start. So every key is
// written once, as it was at the start.
//
// FLUSHDB and SWAPDB (db.PreWriter.PreWriteDB, every stripe held) copy
// aside every key of the databases concerned that is not written yet;
// FLUSHALL aborts the snapshot, as Valkey's FLUSHALL kills its saving
// child.
//
// # Costs
//
// Extra memory is the copies of keys changed before the walker reached
// them, plus one chunk; it is reported (Stats.PeakCopyBytes, INFO's
// current_cow_peak). A write waits for a stripe at most while one chunk
// of it is serialized (ChunkKeys keys, or one large value).
//
// # Ownership
//
// One goroutine runs Save. PreWrite and PreWriteDB run on writers'
// goroutines under stripe locks. The Entries kept aside are deep copies,
// owned by the snapshot until written.
package snapshot

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// Options configure a snapshot.
type Options struct {
	RDB rdb.Options
	// ChunkKeys is how many keys the walker serializes per stripe hold
	// (default 256).
	ChunkKeys int
	// Writer, if set, makes the writer Save writes entries through (an
	// AOF base without an RDB preamble: aof.CommandWriter); nil is an
	// rdb.Writer with RDB's options.
	Writer func(w io.Writer) EntryWriter
	// AtStart, if set, is called by Begin while every stripe is held, at
	// the snapshot's point in time: no unit commits to the effects stream
	// meanwhile (an AOF rewrite switches its incr file there).
	AtStart func()
	// Functions, if set, is called by Begin while every stripe is held
	// and returns the function libraries' code as of the snapshot's
	// point in time (the server changes them under every stripe); Save
	// writes them after the header, as Valkey does.
	Functions func() [][]byte
	// FunctionsOnly writes the header and the function libraries and no
	// keys (a replica's REPLCONF rdb-filter-only functions).
	FunctionsOnly bool
}

// FunctionWriter is an EntryWriter that can hold function libraries
// (rdb.Writer; aof.CommandWriter as FUNCTION LOAD commands).
type FunctionWriter interface {
	WriteFunction(code []byte) error
}

// EntryWriter is what Save writes the dataset through: rdb.Writer, or a
// writer of another format with its shape.
type EntryWriter interface {
	WriteHeader() error
	BeginDB(db int, keys, expires uint64) error
	WriteEntry(e *rdb.Entry) error
	Close() error
}

// Stats describe a finished (or failed) snapshot.
type Stats struct {
	Keys          int64         // keys written
	Copied        int64         // keys written from a copy taken before a write
	PeakCopyBytes int64         // the most memory copies held at once (approximate)
	MaxHold       time.Duration // the longest time a stripe was held by the walker
	Duration      time.Duration
}

// ErrAborted is returned by Save when FLUSHALL (or Abort) ended the snapshot.
var ErrAborted = errors.New("snapshot aborted")

// state of one shard (db, stripe); guarded by the stripe's mutex.
type shardState struct {
	done    bool
	walking bool
	// frozen: FLUSHDB or SWAPDB is about to change the shard wholesale,
	// so every key not in the file was copied into pre; the walker writes
	// pre and does not look at the dict again.
	frozen  bool
	written map[string]struct{}   // keys in the file (while walking)
	pre     map[string]*rdb.Entry // copies (nil: absent at the start)
}

// Snapshot is one snapshot in progress.
type Snapshot struct {
	ks        *db.Keyspace
	opts      Options
	shards    [][db.StripeCount]shardState
	functions [][]byte // the libraries' code at the point in time

	aborted   atomic.Bool
	copyBytes atomic.Int64
	peakCopy  atomic.Int64
	copied    atomic.Int64
	keysDone  atomic.Int64 // keys written so far (INFO current_save_keys_processed)
	keysTotal int64

	scratch rdb.Entry // the walker's export buffer
}

// Progress reports keys written so far and the total at the start.
func (s *Snapshot) Progress() (done, total int64) { return s.keysDone.Load(), s.keysTotal }

// CopyBytes is the memory the copies hold now.
func (s *Snapshot) CopyBytes() int64 { return s.copyBytes.Load() }

// Abort ends the snapshot; Save returns ErrAborted. Any goroutine.
func (s *Snapshot) Abort() { s.aborted.Store(true) }

// Begin starts a snapshot of ks: from its return on, every write is
// reported to it. Save must follow (on any goroutine). One snapshot at a
// time per keyspace (it occupies the keyspace's PreWriter): the caller
// (the server's BGSAVE/SAVE) ensures it.
func Begin(ks *db.Keyspace, opts Options) *Snapshot {
	if opts.ChunkKeys <= 0 {
		opts.ChunkKeys = 256
	}
	s := &Snapshot{ks: ks, opts: opts, shards: make([][db.StripeCount]shardState, ks.Databases())}
	ks.LockAll()
	keys, _ := ks.KeyCountsHeld()
	for _, n := range keys {
		s.keysTotal += int64(n)
	}
	ks.SetPreWriter(s)
	if opts.AtStart != nil {
		opts.AtStart()
	}
	if opts.Functions != nil {
		s.functions = opts.Functions()
	}
	ks.UnlockAll()
	return s
}

// PreWrite implements db.PreWriter: copy key's value aside unless it is
// in the file already or was copied before. The key's stripe is held.
func (s *Snapshot) PreWrite(dbi int, key []byte, old *db.Object) {
	st := &s.shards[dbi][s.ks.StripeOf(key)]
	if st.done || st.frozen {
		return
	}
	if !st.needsCopy(key) {
		return
	}
	if old == nil {
		st.pre[string(key)] = nil
		return
	}
	st.pre[string(key)] = s.copyOf(dbi, key, old)
}

// needsCopy reports whether key must be copied aside before it changes:
// it is neither in the file nor copied already. It makes pre when true.
func (st *shardState) needsCopy(key []byte) bool {
	if _, ok := st.written[string(key)]; ok {
		return false
	}
	if _, ok := st.pre[string(key)]; ok {
		return false
	}
	if st.pre == nil {
		st.pre = make(map[string]*rdb.Entry)
	}
	return true
}

// PreWriteDB implements db.PreWriter: every stripe is held.
func (s *Snapshot) PreWriteDB(dbi int) {
	if dbi < 0 {
		s.aborted.Store(true) // FLUSHALL
		return
	}
	for stripe := range db.StripeCount {
		st := &s.shards[dbi][stripe]
		if st.done || st.frozen {
			continue
		}
		s.ks.ScanShard(dbi, stripe, 0, 1<<62, func(k string, o *db.Object) {
			if st.needsCopy([]byte(k)) {
				st.pre[k] = s.copyOf(dbi, []byte(k), o)
			}
		})
		// Everything not in the file is now in pre: the walk of this
		// shard will not look at the dict again.
		st.frozen, st.walking, st.written = true, false, nil
	}
}

// copyOf is a deep copy of o as an Entry, counted in copyBytes.
func (s *Snapshot) copyOf(dbi int, key []byte, o *db.Object) *rdb.Entry {
	var e rdb.Entry
	s.ks.ExportEntry(dbi, key, o, &e)
	c := cloneEntry(&e)
	n := entryBytes(c)
	if now := s.copyBytes.Add(n); now > s.peakCopy.Load() {
		s.peakCopy.Store(now) // approximate under races; a statistic
	}
	return c
}

// Save writes the snapshot to w and ends it (the PreWriter is removed).
func (s *Snapshot) Save(w io.Writer) (Stats, error) {
	start := time.Now()
	defer s.ks.SetPreWriter(nil)
	bw := bufio.NewWriterSize(w, 1<<16)
	var chunk bytes.Buffer
	out := &chunkWriter{buf: &chunk}
	var rw EntryWriter
	if s.opts.Writer != nil {
		rw = s.opts.Writer(out)
	} else {
		rw = rdb.NewWriter(out, s.opts.RDB)
	}
	var stats Stats
	fail := func(err error) (Stats, error) {
		s.markAllDone()
		stats.Duration = time.Since(start)
		return stats, err
	}
	flush := func() error {
		if chunk.Len() == 0 {
			return nil
		}
		_, err := bw.Write(chunk.Bytes())
		chunk.Reset()
		return err
	}
	if err := rw.WriteHeader(); err != nil {
		return fail(err)
	}
	if fw, ok := rw.(FunctionWriter); ok {
		for _, code := range s.functions {
			if err := fw.WriteFunction(code); err != nil {
				return fail(err)
			}
		}
	}
	for dbi := range s.shards {
		keys, expires := s.countDB(dbi)
		if keys == 0 || s.opts.FunctionsOnly {
			s.markDBDone(dbi)
			continue
		}
		if err := rw.BeginDB(dbi, uint64(keys), uint64(expires)); err != nil {
			return fail(err)
		}
		for stripe := range db.StripeCount {
			if err := s.walkShard(rw, dbi, stripe, flush, &stats); err != nil {
				return fail(err)
			}
		}
	}
	if s.aborted.Load() {
		return fail(ErrAborted)
	}
	if err := rw.Close(); err != nil {
		return fail(err)
	}
	if err := flush(); err != nil {
		return fail(err)
	}
	if err := bw.Flush(); err != nil {
		return fail(err)
	}
	stats.Keys = s.keysDone.Load()
	stats.Copied = s.copied.Load()
	stats.PeakCopyBytes = s.peakCopy.Load()
	stats.Duration = time.Since(start)
	return stats, nil
}

// walkShard writes one shard, a chunk per stripe hold.
func (s *Snapshot) walkShard(rw EntryWriter, dbi, stripe int, flush func() error, stats *Stats) error {
	st := &s.shards[dbi][stripe]
	var cursor uint64
	var werr error
	for {
		if s.aborted.Load() {
			return ErrAborted
		}
		t0 := time.Now()
		s.ks.LockStripe(stripe)
		if st.frozen {
			// FLUSHDB/SWAPDB copied the rest aside: write the copies.
			werr = s.finishShard(rw, st)
			s.ks.UnlockStripe(stripe)
			s.noteHold(t0, stats)
			if werr != nil {
				return werr
			}
			return flush()
		}
		if !st.walking {
			st.walking = true
			// Sized for the shard: growing it key by key cost a third
			// of the walk (pprof, SAVE of 1M keys).
			keys, _ := s.ks.ShardCounts(dbi, stripe)
			st.written = make(map[string]struct{}, keys)
		}
		cursor = s.ks.ScanShard(dbi, stripe, cursor, s.opts.ChunkKeys, func(k string, o *db.Object) {
			if werr != nil {
				return
			}
			if _, ok := st.written[k]; ok {
				return
			}
			st.written[k] = struct{}{}
			if p, ok := st.pre[k]; ok {
				// Changed since the start: its copy, or nothing if it
				// did not exist then.
				delete(st.pre, k)
				if p != nil {
					werr = s.writeCopy(rw, p)
				}
				return
			}
			s.ks.ExportEntry(dbi, []byte(k), o, &s.scratch)
			s.scratch.DB = dbi
			werr = rw.WriteEntry(&s.scratch)
			s.keysDone.Add(1)
		})
		if werr == nil && cursor == 0 {
			werr = s.finishShard(rw, st)
		}
		s.ks.UnlockStripe(stripe)
		s.noteHold(t0, stats)
		if werr != nil {
			return werr
		}
		if err := flush(); err != nil {
			return err
		}
		if cursor == 0 {
			return nil
		}
	}
}

// finishShard writes the copies of keys deleted since the start (those
// still in pre) and marks the shard done. Its stripe is held.
func (s *Snapshot) finishShard(rw EntryWriter, st *shardState) error {
	for k, p := range st.pre {
		if p != nil {
			if err := s.writeCopy(rw, p); err != nil {
				return err
			}
		}
		delete(st.pre, k)
	}
	st.done, st.frozen, st.walking, st.written, st.pre = true, false, false, nil, nil
	return nil
}

func (s *Snapshot) writeCopy(rw EntryWriter, p *rdb.Entry) error {
	s.copyBytes.Add(-entryBytes(p))
	s.copied.Add(1)
	s.keysDone.Add(1)
	return rw.WriteEntry(p)
}

func (s *Snapshot) noteHold(t0 time.Time, stats *Stats) {
	if d := time.Since(t0); d > stats.MaxHold {
		stats.MaxHold = d
	}
}

// countDB is database dbi's key and expire counts at the start, for
// RESIZEDB: the keys counted by Begin, as the shards say now (copies
// included). An estimate is enough: RESIZEDB is a sizing hint.
func (s *Snapshot) countDB(dbi int) (keys, expires int) {
	for stripe := range db.StripeCount {
		s.ks.LockStripe(stripe)
		k, e := s.ks.ShardCounts(dbi, stripe)
		keys += k + len(s.shards[dbi][stripe].pre)
		expires += e
		s.ks.UnlockStripe(stripe)
	}
	return keys, expires
}

func (s *Snapshot) markDBDone(dbi int) {
	for stripe := range db.StripeCount {
		s.ks.LockStripe(stripe)
		st := &s.shards[dbi][stripe]
		for _, p := range st.pre {
			if p != nil {
				s.copyBytes.Add(-entryBytes(p))
			}
		}
		st.done, st.frozen, st.walking, st.written, st.pre = true, false, false, nil, nil
		s.ks.UnlockStripe(stripe)
	}
}

func (s *Snapshot) markAllDone() {
	for dbi := range s.shards {
		s.markDBDone(dbi)
	}
}

// chunkWriter collects the rdb.Writer's output in memory while a stripe
// is held; Save moves it to the file after releasing the stripe.
type chunkWriter struct{ buf *bytes.Buffer }

func (c *chunkWriter) Write(p []byte) (int, error) { return c.buf.Write(p) }

// cloneEntry is a deep copy of e.
func cloneEntry(e *rdb.Entry) *rdb.Entry {
	c := *e
	c.Key = bytes.Clone(e.Key)
	c.String = bytes.Clone(e.String)
	c.List = cloneSlices(e.List)
	c.Set = cloneSlices(e.Set)
	if e.ZSet != nil {
		c.ZSet = make([]rdb.ZMember, len(e.ZSet))
		for i, m := range e.ZSet {
			c.ZSet[i] = rdb.ZMember{Member: bytes.Clone(m.Member), Score: m.Score}
		}
	}
	if e.Hash != nil {
		c.Hash = make([]rdb.HashField, len(e.Hash))
		for i, f := range e.Hash {
			c.Hash[i] = rdb.HashField{Field: bytes.Clone(f.Field), Value: bytes.Clone(f.Value)}
		}
	}
	c.Stream = e.Stream.Clone()
	return &c
}

func cloneSlices(in [][]byte) [][]byte {
	if in == nil {
		return nil
	}
	out := make([][]byte, len(in))
	for i, b := range in {
		out[i] = bytes.Clone(b)
	}
	return out
}

// entryBytes approximates the heap an Entry copy holds.
func entryBytes(e *rdb.Entry) int64 {
	n := int64(len(e.Key) + len(e.String) + 96)
	for _, b := range e.List {
		n += int64(len(b)) + 24
	}
	for _, b := range e.Set {
		n += int64(len(b)) + 24
	}
	for _, m := range e.ZSet {
		n += int64(len(m.Member)) + 32
	}
	for _, f := range e.Hash {
		n += int64(len(f.Field)+len(f.Value)) + 48
	}
	return n + e.Stream.Size()
}
