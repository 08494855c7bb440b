package rdb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
)

// Loader reads RDB files (versions 1 to 11; Redis 7.0 writes 10, Valkey
// 8.0 writes 11) and hands each key to OnEntry as it is decoded.
type Loader struct {
	// OnEntry receives every key in file order. The Entry and all its
	// slices are fresh allocations that the callee may keep. An error
	// stops the load and is returned as is.
	OnEntry func(e *Entry) error
	// OnAux, if set, receives every AUX field.
	OnAux func(key, val []byte) error
	// OnResizeDB, if set, receives RESIZEDB hints (for the current DB).
	OnResizeDB func(db int, keys, expires uint64) error
	// OnFunction, if set, receives the code of each function library
	// (RDB_OPCODE_FUNCTION2); without it libraries are skipped.
	OnFunction func(code []byte) error
	// IgnoreChecksum skips the CRC64 check (Valkey's
	// skip-checksum-validation); a zero trailer is never checked.
	IgnoreChecksum bool
}

// Info describes a loaded file.
type Info struct {
	Version  int    // the RDB version of the header
	Checksum uint64 // the trailer's CRC64 (0: none was stored)
	Keys     int    // entries delivered (empty collections are skipped)
}

// Load reads one RDB file from r up to and including its checksum. When r
// is an io.ByteReader (a bufio.Reader: small reads are cheap) it reads no
// byte past the trailer, so what follows (an old-style AOF's commands
// after its RDB preamble) stays in r; otherwise it reads r in 32 KiB
// chunks and may read past the end.
func (l *Loader) Load(r io.Reader) (Info, error) {
	return l.load(newInput(r))
}

// dec decodes values from an input. Valkey decodes every type the same
// whatever the file's version, and so does dec.
type dec struct {
	in *input
}

func (l *Loader) load(in *input) (Info, error) {
	var info Info
	magic, err := in.next(9, "header")
	if err != nil {
		return info, err
	}
	if !bytes.Equal(magic[:5], []byte("REDIS")) {
		return info, corrupt(0, "wrong signature (not an RDB file)")
	}
	ver := 0
	for _, c := range magic[5:] {
		if c < '0' || c > '9' {
			return info, corrupt(5, "bad RDB version number")
		}
		ver = ver*10 + int(c-'0')
	}
	if ver < 1 || ver > Version {
		return info, &FormatError{Offset: 5, Msg: fmt.Sprintf("can't handle RDB format version %d", ver), Err: ErrVersion}
	}
	info.Version = ver
	d := &dec{in: in}
	// The opcodes before a key (expiry, idle time, frequency) apply to
	// that key only; they are reset after each.
	db := 0
	expire, idle, freq := int64(-1), int64(-1), -1
	for {
		off := in.offset()
		t, err := in.readByte("type")
		if err != nil {
			return info, err
		}
		switch t {
		case opExpireTime: // seconds, int32 LE (RDB before 3)
			b, err := in.next(4, "expire time")
			if err != nil {
				return info, err
			}
			expire = int64(int32(binary.LittleEndian.Uint32(b))) * 1000
			continue
		case opExpireTimeMs: // milliseconds, int64 LE
			b, err := in.next(8, "expire time")
			if err != nil {
				return info, err
			}
			expire = int64(binary.LittleEndian.Uint64(b))
			continue
		case opFreq:
			c, err := in.readByte("LFU frequency")
			if err != nil {
				return info, err
			}
			freq = int(c)
			continue
		case opIdle:
			v, err := d.length("LRU idle time")
			if err != nil {
				return info, err
			}
			if v > math.MaxInt64 {
				return info, corrupt(off, "LRU idle time out of range")
			}
			idle = int64(v)
			continue
		case opEOF: // leaves the loop below
		case opSelectDB:
			v, err := d.length("database number")
			if err != nil {
				return info, err
			}
			if v > math.MaxInt32 {
				return info, corrupt(off, "database number out of range")
			}
			db = int(v)
			continue
		case opResizeDB:
			keys, err := d.length("RESIZEDB")
			if err != nil {
				return info, err
			}
			exp, err := d.length("RESIZEDB")
			if err != nil {
				return info, err
			}
			if l.OnResizeDB != nil {
				if err := l.OnResizeDB(db, keys, exp); err != nil {
					return info, err
				}
			}
			continue
		case opSlotInfo: // slot id, slot size, expires slot size: hints only
			for range 3 {
				if _, err := d.length("slot info"); err != nil {
					return info, err
				}
			}
			continue
		case opAux:
			k, err := d.str("AUX key")
			if err != nil {
				return info, err
			}
			v, err := d.str("AUX value")
			if err != nil {
				return info, err
			}
			if l.OnAux != nil {
				if err := l.OnAux(k, v); err != nil {
					return info, err
				}
			}
			continue
		case opFunction2: // one string: the library's code
			code, err := d.str("function library")
			if err != nil {
				return info, err
			}
			if l.OnFunction != nil {
				if err := l.OnFunction(code); err != nil {
					return info, err
				}
			}
			continue
		case opModuleAux, opFunctionPreGA:
			return info, &FormatError{Offset: off, Msg: rdbTypeName(t) + " data not supported", Err: ErrUnsupported}
		default: // a key: the byte was its value's RDB type
			key, err := d.str("key")
			if err != nil {
				return info, err
			}
			e, err := d.value(t, off)
			if err != nil {
				return info, err
			}
			if e != nil {
				e.DB, e.Key, e.ExpireMs, e.Idle, e.Freq = db, key, expire, idle, freq
				info.Keys++
				if err := l.OnEntry(e); err != nil {
					return info, err
				}
			}
			expire, idle, freq = -1, -1, -1
			continue
		}
		break // EOF
	}
	// RDB 5 added the CRC64 trailer. It covers every byte before it; a
	// zero trailer means the writer had rdbchecksum off.
	if ver < 5 {
		return info, nil
	}
	want := in.sum()
	b, err := in.next(8, "checksum")
	if err != nil {
		return info, err
	}
	got := binary.LittleEndian.Uint64(b)
	info.Checksum = got
	if got != 0 && got != want && !l.IgnoreChecksum {
		return info, &FormatError{Offset: in.offset() - 8,
			Msg: fmt.Sprintf("CRC64 %016x, computed %016x", got, want), Err: ErrChecksum}
	}
	return info, nil
}

// length reads an rdbSaveLen length; an encoded-string marker is an error.
func (d *dec) length(what string) (uint64, error) {
	v, enc, err := d.lengthOrEnc(what)
	if err == nil && enc {
		return 0, corrupt(d.in.offset()-1, "unexpected string encoding in "+what)
	}
	return v, err
}

// lengthOrEnc is rdbLoadLenByRef: a length, or (enc) an RDB_ENC_* kind.
func (d *dec) lengthOrEnc(what string) (uint64, bool, error) {
	in := d.in
	c, err := in.readByte(what)
	if err != nil {
		return 0, false, err
	}
	switch c >> 6 {
	case len6:
		return uint64(c & 0x3F), false, nil
	case len14:
		c2, err := in.readByte(what)
		if err != nil {
			return 0, false, err
		}
		return uint64(c&0x3F)<<8 | uint64(c2), false, nil
	case lenEnc:
		return uint64(c & 0x3F), true, nil
	}
	switch c {
	case len32:
		b, err := in.next(4, what)
		if err != nil {
			return 0, false, err
		}
		return uint64(binary.BigEndian.Uint32(b)), false, nil
	case len64:
		b, err := in.next(8, what)
		if err != nil {
			return 0, false, err
		}
		return binary.BigEndian.Uint64(b), false, nil
	}
	return 0, false, corrupt(in.offset()-1, fmt.Sprintf("unknown length encoding %#x in %s", c, what))
}

// str reads a string object (rdbGenericLoadStringObject) into a fresh
// slice: integer encodings come back as decimal strings.
func (d *dec) str(what string) ([]byte, error) {
	in := d.in
	off := in.offset()
	n, enc, err := d.lengthOrEnc(what)
	if err != nil {
		return nil, err
	}
	if !enc {
		return in.readN(n, what)
	}
	switch n {
	case encInt8:
		c, err := in.readByte(what)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int8(c)), 10), nil
	case encInt16:
		b, err := in.next(2, what)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int16(binary.LittleEndian.Uint16(b))), 10), nil
	case encInt32:
		b, err := in.next(4, what)
		if err != nil {
			return nil, err
		}
		return strconv.AppendInt(nil, int64(int32(binary.LittleEndian.Uint32(b))), 10), nil
	case encLZF:
		clen, err := d.length(what)
		if err != nil {
			return nil, err
		}
		ulen, err := d.length(what)
		if err != nil {
			return nil, err
		}
		if clen > math.MaxInt32 || ulen > clen*lzfMaxRatio {
			return nil, corrupt(off, "invalid LZF lengths in "+what)
		}
		c, err := in.readN(clen, what)
		if err != nil {
			return nil, err
		}
		out, ok := lzfDecompress(c, int(ulen))
		if !ok {
			return nil, corrupt(off, "invalid LZF compressed string in "+what)
		}
		return out, nil
	}
	return nil, corrupt(off, fmt.Sprintf("unknown string encoding %d in %s", n, what))
}
