package rdb

import (
	"encoding/binary"
	"io"
)

// What file checkers (corvid-server --check-rdb, internal/filecheck)
// need beyond Load: where each record ends, and the key of a record whose
// value is bad. Loading itself is Load's: a checker's verdict is the
// loader's by construction.

// Progress follows a load started with LoadProgress.
type Progress struct{ in *input }

// Offset is the input offset of the next byte the Loader will read
// (0 before the load starts). Inside a Loader callback it is the end of
// the record being delivered: the entry, AUX field, RESIZEDB hint or
// function library. After Load returned without error it is the end of
// the RDB (just past the checksum); the Loader may have read further
// from its io.Reader.
func (p *Progress) Offset() int64 {
	if p == nil || p.in == nil {
		return 0
	}
	return p.in.offset()
}

// LoadProgress is Load, with p following the input so that callbacks can
// learn where each record ends.
func (l *Loader) LoadProgress(r io.Reader, p *Progress) (Info, error) {
	in := newInput(r)
	p.in = in
	return l.load(in)
}

// KeyHeader is the start of a key record: what the loader reads before
// the value.
type KeyHeader struct {
	Offset      int64  // input offset of the type byte
	Type        string // the RDB type's name ("string", "hash-listpack", ...)
	DB          int    // the database last selected before it, or -1
	ExpireMs    int64  // its expiry in Unix ms, or -1
	Key         []byte
	ValueOffset int64 // input offset of the first byte of the value
}

// ReadKeyHeader reads r, which must start at a record boundary of an RDB
// file (not at its header), up to the end of the next key: the opcodes
// that may come first (SELECTDB, RESIZEDB, expiry, LRU, LFU, slot info,
// AUX, function libraries) are skipped, and Offset, ValueOffset, DB and
// ExpireMs count from r's start. A checker uses it to name the key whose
// value Load could not read. It returns a *FormatError if the input ends
// or is malformed before the key is read whole, or if a record other than
// a key comes first (the EOF opcode, module AUX data); the header's
// fields read by then are set.
func ReadKeyHeader(r io.Reader) (KeyHeader, error) {
	in := newInput(r)
	d := &dec{in: in}
	h := KeyHeader{Offset: -1, DB: -1, ExpireMs: -1}
	for {
		off := in.offset()
		t, err := in.readByte("type")
		if err != nil {
			return h, err
		}
		switch t {
		case opExpireTime:
			b, err := in.next(4, "expire time")
			if err != nil {
				return h, err
			}
			h.ExpireMs = int64(int32(binary.LittleEndian.Uint32(b))) * 1000
		case opExpireTimeMs:
			b, err := in.next(8, "expire time")
			if err != nil {
				return h, err
			}
			h.ExpireMs = int64(binary.LittleEndian.Uint64(b))
		case opFreq:
			if _, err := in.readByte("LFU frequency"); err != nil {
				return h, err
			}
		case opIdle:
			if _, err := d.length("LRU idle time"); err != nil {
				return h, err
			}
		case opSelectDB:
			v, err := d.length("database number")
			if err != nil {
				return h, err
			}
			h.DB = int(min(v, 1<<31-1))
		case opResizeDB, opSlotInfo:
			n := 2
			if t == opSlotInfo {
				n = 3
			}
			for range n {
				if _, err := d.length(rdbOpName(t)); err != nil {
					return h, err
				}
			}
		case opAux:
			for _, what := range []string{"AUX key", "AUX value"} {
				if _, err := d.str(what); err != nil {
					return h, err
				}
			}
		case opFunction2:
			if _, err := d.str("function library"); err != nil {
				return h, err
			}
		case opEOF, opModuleAux, opFunctionPreGA:
			return h, corrupt(off, "no key record before "+rdbOpName(t))
		default:
			h.Offset, h.Type = off, rdbTypeName(t)
			h.Key, err = d.str("key")
			h.ValueOffset = in.offset()
			return h, err
		}
	}
}

// rdbOpName names an opcode for ReadKeyHeader's messages.
func rdbOpName(t byte) string {
	switch t {
	case opEOF:
		return "the EOF opcode"
	case opResizeDB:
		return "RESIZEDB"
	case opSlotInfo:
		return "slot info"
	}
	return rdbTypeName(t)
}
