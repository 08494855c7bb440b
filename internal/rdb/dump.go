package rdb

import (
	"encoding/binary"
	"fmt"

	"github.com/corvid-kv/corvid/internal/ds"
)

// DumpPayload serializes e's value as Valkey 8.0.1's DUMP does
// (createDumpPayload): the RDB type byte, the value as in an RDB file,
// the RDB version (2 bytes LE) and the CRC64 of all that (8 bytes LE).
// Key, DB, expiry, idle time and frequency are not part of a payload.
// Only opts.Limits and opts.Compression matter.
func DumpPayload(e *Entry, opts Options) ([]byte, error) {
	enc := encoder{limits: opts.Limits, compress: opts.Compression}
	b, t, err := enc.appendValue([]byte{0}, e)
	enc.release()
	if err != nil {
		return nil, err
	}
	b[0] = t
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, ds.CRC64(0, b)), nil
}

// ParseDumpPayload decodes a DUMP payload as RESTORE does in Valkey
// 8.0.1: it requires the 10-byte footer, an RDB version no greater than
// Version (verifyDumpPayload), and a matching CRC64, then decodes the
// value (bytes after the value, before the footer, are ignored, as
// RESTORE ignores them). The Entry has no key, DB 0 and no expiry; it
// does not alias p. An empty collection is an error ("Bad data format").
func ParseDumpPayload(p []byte) (*Entry, error) {
	if len(p) < 10 {
		return nil, corrupt(0, "DUMP payload shorter than its footer")
	}
	footer := p[len(p)-10:]
	ver := binary.LittleEndian.Uint16(footer)
	if ver > Version {
		return nil, &FormatError{Offset: int64(len(p) - 10),
			Msg: fmt.Sprintf("DUMP payload RDB version %d is newer than %d", ver, Version), Err: ErrVersion}
	}
	if crc := ds.CRC64(0, p[:len(p)-8]); crc != binary.LittleEndian.Uint64(footer[2:]) {
		return nil, &FormatError{Offset: int64(len(p) - 8), Msg: "DUMP payload CRC64 mismatch", Err: ErrChecksum}
	}
	in := bytesInput(p[:len(p)-10])
	d := &dec{in: in}
	t, err := in.readByte("type")
	if err != nil {
		return nil, err
	}
	if t >= opSlotInfo {
		return nil, corrupt(0, fmt.Sprintf("DUMP payload type %d is an opcode", t))
	}
	e, err := d.value(t, 0)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, corrupt(1, "DUMP payload holds an empty collection")
	}
	return e, nil
}
