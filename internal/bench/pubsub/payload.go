package pubsub

import (
	"encoding/binary"
)

// HeaderSize is the fixed part of every message: magic, publisher, sequence
// number and send time. --data-size may not be smaller.
const HeaderSize = 24

// magic marks a message as ours, so a stray publisher on the same server
// (or a corrupted frame) is counted as foreign instead of checked.
var magic = [4]byte{'c', 'v', 'p', 's'}

// Header is what a message carries besides its padding.
type Header struct {
	Publisher uint32 // index of the publishing connection
	Seq       uint64 // 1, 2, 3... per publisher, across its channels
	Sent      int64  // ns since the run's base time, when the batch was written
}

// AppendPayload appends a message of HeaderSize + len(pad) bytes: h in
// little endian after the magic, then pad.
func AppendPayload(dst []byte, h Header, pad []byte) []byte {
	dst = append(dst, magic[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, h.Publisher)
	dst = binary.LittleEndian.AppendUint64(dst, h.Seq)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(h.Sent))
	return append(dst, pad...)
}

// DecodePayload reads the header of a message; ok is false for a payload
// that is not ours (too short or without the magic).
func DecodePayload(b []byte) (h Header, ok bool) {
	if len(b) < HeaderSize || [4]byte(b[:4]) != magic {
		return Header{}, false
	}
	h.Publisher = binary.LittleEndian.Uint32(b[4:])
	h.Seq = binary.LittleEndian.Uint64(b[8:])
	h.Sent = int64(binary.LittleEndian.Uint64(b[16:]))
	return h, true
}
