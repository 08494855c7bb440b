package rdb

import (
	"encoding/binary"

	"github.com/corvid-kv/corvid/internal/ds"
)

// FunctionsPayload is FUNCTION DUMP's payload (Valkey 8.0.1's
// functionDumpCommand): every library as an RDB file holds it
// (RDB_OPCODE_FUNCTION2, then its code as an RDB string), then the DUMP
// footer: the RDB version (2 bytes LE) and the CRC64 of all that.
func FunctionsPayload(codes [][]byte, opts Options) []byte {
	enc := encoder{limits: opts.Limits, compress: opts.Compression}
	var b []byte
	for _, c := range codes {
		b = append(b, opFunction2)
		b = enc.appendString(b, c)
	}
	enc.release()
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, ds.CRC64(0, b))
}

// FunctionsPayloadError is why FUNCTION RESTORE refuses a payload, in
// Valkey's words (the reply is "ERR " and the text).
type FunctionsPayloadError string

func (e FunctionsPayloadError) Error() string { return string(e) }

// ParseFunctionsPayload reads FUNCTION RESTORE's payload: the footer must
// check out, then every item must be a library (RDB_OPCODE_FUNCTION2).
// The codes do not alias p.
func ParseFunctionsPayload(p []byte) ([][]byte, error) {
	if len(p) < 10 {
		return nil, FunctionsPayloadError("DUMP payload version or checksum are wrong")
	}
	footer := p[len(p)-10:]
	if binary.LittleEndian.Uint16(footer) > Version ||
		ds.CRC64(0, p[:len(p)-8]) != binary.LittleEndian.Uint64(footer[2:]) {
		return nil, FunctionsPayloadError("DUMP payload version or checksum are wrong")
	}
	in := bytesInput(p[:len(p)-10])
	d := &dec{in: in}
	var codes [][]byte
	for in.pos < len(in.buf) {
		t, err := in.readByte("type")
		if err != nil {
			return nil, err
		}
		switch t {
		case opFunction2:
		case opFunctionPreGA:
			return nil, FunctionsPayloadError("Pre-GA function format not supported")
		default:
			return nil, FunctionsPayloadError("given type is not a function")
		}
		code, err := d.str("function library")
		if err != nil {
			return nil, FunctionsPayloadError("failed loading the given functions payload")
		}
		codes = append(codes, append([]byte(nil), code...))
	}
	return codes, nil
}
