package rdb

import (
	"encoding/binary"
	"errors"
	"io"
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Options configure a Writer and DumpPayload.
type Options struct {
	// Limits choose each value's encoding (DefaultLimits: Valkey's
	// defaults).
	Limits Limits
	// Compression is rdbcompression: LZF for strings over 20 bytes.
	Compression bool
	// Checksum is rdbchecksum: without it the trailer is 8 zero bytes.
	// DUMP payloads always carry a checksum.
	Checksum bool

	// The AUX fields of the header (rdbSaveInfoAuxFields).
	ServerVersion string    // valkey-ver; "" means "8.0.1"
	CTime         time.Time // ctime; zero means time.Now()
	UsedMem       int64     // used-mem
	AOFBase       bool      // aof-base: the file is an AOF preamble
	// Repl, if set, adds the replication AUX fields Valkey writes for a
	// full sync or a replica's own save (rdbSaveInfoAuxFields with rsi).
	Repl *ReplInfo
}

// ReplInfo are the replication AUX fields: repl-stream-db, repl-id and
// repl-offset.
type ReplInfo struct {
	StreamDB int
	ID       string
	Offset   int64
}

// DefaultOptions are Valkey 8.0.1's defaults: compression and checksum
// on, default limits.
func DefaultOptions() Options {
	return Options{Limits: DefaultLimits(), Compression: true, Checksum: true}
}

// Writer streams an RDB file: the header, then entries one at a time, then
// the trailer on Close. Entries of one database must be written together;
// a Writer never holds more than one serialized value in memory.
//
// A Writer is not safe for concurrent use. After an error every later
// call returns the same error.
type Writer struct {
	w      io.Writer
	opts   Options
	enc    encoder
	crc    uint64
	buf    []byte // pending output, flushed when it grows past flushAt
	db     int    // current database, -1 before the first
	header bool
	closed bool
	err    error
}

const flushAt = 64 << 10

// NewWriter returns a Writer that writes to w.
func NewWriter(w io.Writer, opts Options) *Writer {
	return &Writer{w: w, opts: opts, db: -1,
		enc: encoder{limits: opts.Limits, compress: opts.Compression}}
}

// WriteHeader writes the magic "REDIS0011" and the AUX fields Valkey
// 8.0.1 writes: valkey-ver, redis-bits, ctime, used-mem, aof-base. It is
// called by the first BeginDB or WriteEntry if not called before.
func (w *Writer) WriteHeader() error {
	if w.err != nil || w.header {
		return w.err
	}
	w.header = true
	w.buf = append(w.buf, "REDIS0011"...)
	ver := w.opts.ServerVersion
	if ver == "" {
		ver = "8.0.1"
	}
	ctime := w.opts.CTime
	if ctime.IsZero() {
		ctime = time.Now()
	}
	aofBase := 0
	if w.opts.AOFBase {
		aofBase = 1
	}
	w.AppendAux("valkey-ver", ver)
	w.AppendAux("redis-bits", "64")
	w.AppendAux("ctime", strconv.FormatInt(ctime.Unix(), 10))
	w.AppendAux("used-mem", strconv.FormatInt(w.opts.UsedMem, 10))
	if r := w.opts.Repl; r != nil {
		w.AppendAux("repl-stream-db", strconv.Itoa(r.StreamDB))
		w.AppendAux("repl-id", r.ID)
		w.AppendAux("repl-offset", strconv.FormatInt(r.Offset, 10))
	}
	w.AppendAux("aof-base", strconv.Itoa(aofBase))
	return w.maybeFlush()
}

// AppendAux writes one more AUX field after the header's. Values that
// are integers are integer-encoded, as rdbSaveAuxFieldStrInt does.
func (w *Writer) AppendAux(key, val string) {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, opAux)
	w.buf = w.enc.appendString(w.buf, []byte(key))
	w.buf = w.enc.appendString(w.buf, []byte(val))
}

// WriteFunction writes one function library (RDB_OPCODE_FUNCTION2 and
// its code, as rdbSaveFunctions). Valkey writes libraries after the
// header and before the first database.
func (w *Writer) WriteFunction(code []byte) error {
	if err := w.WriteHeader(); err != nil {
		return err
	}
	w.buf = append(w.buf, opFunction2)
	w.buf = w.enc.appendString(w.buf, code)
	return w.maybeFlush()
}

// BeginDB starts database db: SELECTDB, then RESIZEDB with the number of
// keys and of keys with an expiry that will follow (hints for the loader;
// Valkey writes them for every non-empty database).
func (w *Writer) BeginDB(db int, keys, expires uint64) error {
	if err := w.WriteHeader(); err != nil {
		return err
	}
	if db < 0 {
		return w.fail(errors.New("rdb: negative database number"))
	}
	w.db = db
	w.buf = append(w.buf, opSelectDB)
	w.buf = appendLen(w.buf, uint64(db))
	w.buf = append(w.buf, opResizeDB)
	w.buf = appendLen(w.buf, keys)
	w.buf = appendLen(w.buf, expires)
	return w.maybeFlush()
}

// WriteEntry writes one key: its expiry, idle time and frequency if set,
// then type, key and value. If e.DB is not the current database it starts
// it with SELECTDB alone (no RESIZEDB: call BeginDB to write the hints).
// The Writer does not retain e.
func (w *Writer) WriteEntry(e *Entry) error {
	if err := w.WriteHeader(); err != nil {
		return err
	}
	if w.closed {
		return errors.New("rdb: write after Close")
	}
	if e.DB != w.db {
		if e.DB < 0 {
			return w.fail(errors.New("rdb: negative database number"))
		}
		w.db = e.DB
		w.buf = append(w.buf, opSelectDB)
		w.buf = appendLen(w.buf, uint64(e.DB))
	}
	mark := len(w.buf)
	if e.ExpireMs != -1 {
		w.buf = append(w.buf, opExpireTimeMs)
		w.buf = binary.LittleEndian.AppendUint64(w.buf, uint64(e.ExpireMs))
	}
	if e.Idle >= 0 {
		w.buf = append(w.buf, opIdle)
		w.buf = appendLen(w.buf, uint64(e.Idle))
	}
	if e.Freq >= 0 {
		w.buf = append(w.buf, opFreq, byte(min(e.Freq, 255)))
	}
	tpos := len(w.buf)
	w.buf = append(w.buf, 0)
	w.buf = w.enc.appendString(w.buf, e.Key)
	var t byte
	var err error
	w.buf, t, err = w.enc.appendValue(w.buf, e)
	if err != nil {
		// The entry is dropped; the file so far is intact.
		w.buf = w.buf[:mark]
		return err
	}
	w.buf[tpos] = t
	return w.maybeFlush()
}

// Close writes the EOF opcode and the CRC64 trailer (zeros without
// Checksum) and flushes. It does not close the underlying writer.
func (w *Writer) Close() error {
	if err := w.WriteHeader(); err != nil {
		return err
	}
	if w.closed {
		return nil
	}
	w.closed = true
	w.enc.release()
	w.buf = append(w.buf, opEOF)
	w.crc = ds.CRC64(w.crc, w.buf)
	if w.opts.Checksum {
		w.buf = binary.LittleEndian.AppendUint64(w.buf, w.crc)
	} else {
		w.buf = append(w.buf, 0, 0, 0, 0, 0, 0, 0, 0)
	}
	if _, err := w.w.Write(w.buf); err != nil {
		return w.fail(err)
	}
	w.buf = w.buf[:0]
	return nil
}

func (w *Writer) maybeFlush() error {
	if len(w.buf) < flushAt {
		return nil
	}
	w.crc = ds.CRC64(w.crc, w.buf)
	if _, err := w.w.Write(w.buf); err != nil {
		return w.fail(err)
	}
	if cap(w.buf) > 4*flushAt {
		w.buf = nil // do not keep one huge value's buffer
	} else {
		w.buf = w.buf[:0]
	}
	return nil
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = err
	}
	return w.err
}
