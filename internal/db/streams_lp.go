package db

import (
	"encoding/binary"
	"strconv"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Stream nodes are listpacks in Valkey's own byte layout (listpack.c), so
// that a node costs what it costs in Valkey and an RDB or DUMP payload
// carries it unchanged:
//
//	total-bytes uint32 LE | num-elements uint16 LE | element... | 0xFF
//
// An element is encoding+data followed by backlen, the size of
// encoding+data in 1..5 bytes that read right to left. Integers (and
// strings that are canonical int64s, as lpAppend stores them) use the
// 7-, 13-, 16-, 24-, 32- or 64-bit encodings; strings a 6-, 12- or 32-bit
// length. num-elements saturates at 65535 ("unknown"), as in Valkey.
//
// Offsets into a listpack are ints; -1 means "none". Nothing here checks
// its input: node listpacks are built by this file or validated by the
// RDB loader (package rdb) before they are adopted.

const (
	vlpHdr     = 6
	vlpEOF     = 0xFF
	vlpUnknown = 65535
)

// vlpNew returns an empty listpack with room for hint more bytes.
func vlpNew(hint int) []byte {
	lp := make([]byte, vlpHdr+1, vlpHdr+1+hint)
	binary.LittleEndian.PutUint32(lp, vlpHdr+1)
	lp[vlpHdr] = vlpEOF
	return lp
}

// vlpCount is the header's element count (vlpUnknown once saturated).
func vlpCount(lp []byte) int { return int(binary.LittleEndian.Uint16(lp[4:])) }

func vlpSetCount(lp []byte, n int) {
	if n > vlpUnknown {
		n = vlpUnknown
	}
	binary.LittleEndian.PutUint16(lp[4:], uint16(n))
}

// vlpFirst is the offset of the first element, or -1.
func vlpFirst(lp []byte) int {
	if lp[vlpHdr] == vlpEOF {
		return -1
	}
	return vlpHdr
}

// vlpEncLen returns the sizes of the element at p: hdr is the encoding
// bytes (with an integer's value), data the string bytes after them.
func vlpEncLen(lp []byte, p int) (hdr, data int) {
	c := lp[p]
	switch {
	case c&0x80 == 0:
		return 1, 0
	case c&0xC0 == 0x80:
		return 1, int(c & 0x3F)
	case c&0xE0 == 0xC0:
		return 2, 0
	case c&0xF0 == 0xE0:
		return 2, int(c&0x0F)<<8 | int(lp[p+1])
	case c == 0xF0:
		return 5, int(binary.LittleEndian.Uint32(lp[p+1:]))
	case c == 0xF1:
		return 3, 0
	case c == 0xF2:
		return 4, 0
	case c == 0xF3:
		return 5, 0
	}
	return 9, 0 // 0xF4
}

// vlpBacklenSize is the size of the backlen of an element of l bytes.
func vlpBacklenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// vlpSize is the whole size of the element at p, backlen included.
func vlpSize(lp []byte, p int) int {
	h, d := vlpEncLen(lp, p)
	return h + d + vlpBacklenSize(h+d)
}

// vlpNext is the offset of the element after p, or -1.
func vlpNext(lp []byte, p int) int {
	p += vlpSize(lp, p)
	if lp[p] == vlpEOF {
		return -1
	}
	return p
}

// vlpPrev is the offset of the element before p (which may be the
// terminator's offset), or -1.
func vlpPrev(lp []byte, p int) int {
	if p <= vlpHdr {
		return -1
	}
	// Read the previous element's backlen right to left.
	var l, shift int
	i := p - 1
	for {
		b := lp[i]
		l |= int(b&127) << shift
		if b&128 == 0 {
			break
		}
		shift += 7
		i--
	}
	return i - l
}

// vlpLast is the offset of the last element, or -1.
func vlpLast(lp []byte) int { return vlpPrev(lp, len(lp)-1) }

// vlpGet reads the element at p: an integer (isInt) or a string aliasing
// lp.
func vlpGet(lp []byte, p int) (v int64, s []byte, isInt bool) {
	c := lp[p]
	switch {
	case c&0x80 == 0:
		return int64(c), nil, true
	case c&0xC0 == 0x80:
		n := int(c & 0x3F)
		return 0, lp[p+1 : p+1+n], false
	case c&0xE0 == 0xC0:
		u := uint64(c&0x1F)<<8 | uint64(lp[p+1])
		return int64(u<<51) >> 51, nil, true
	case c&0xF0 == 0xE0:
		n := int(c&0x0F)<<8 | int(lp[p+1])
		return 0, lp[p+2 : p+2+n], false
	case c == 0xF0:
		n := int(binary.LittleEndian.Uint32(lp[p+1:]))
		return 0, lp[p+5 : p+5+n], false
	case c == 0xF1:
		return int64(int16(binary.LittleEndian.Uint16(lp[p+1:]))), nil, true
	case c == 0xF2:
		u := uint32(lp[p+1]) | uint32(lp[p+2])<<8 | uint32(lp[p+3])<<16
		return int64(int32(u<<8) >> 8), nil, true
	case c == 0xF3:
		return int64(int32(binary.LittleEndian.Uint32(lp[p+1:]))), nil, true
	}
	return int64(binary.LittleEndian.Uint64(lp[p+1:])), nil, true
}

// vlpInt reads the element at p as an integer (lpGetInteger): a string
// element that is a canonical integer counts too; anything else reads 0.
func vlpInt(lp []byte, p int) int64 {
	v, s, isInt := vlpGet(lp, p)
	if isInt {
		return v
	}
	n, _ := ParseInt(s)
	return n
}

// vlpStr reads the element at p as bytes: a string aliases lp, an
// integer is formatted into buf.
func vlpStr(lp []byte, p int, buf []byte) []byte {
	v, s, isInt := vlpGet(lp, p)
	if isInt {
		return strconv.AppendInt(buf[:0], v, 10)
	}
	return s
}

// vlpEqual reports whether the element at p reads as b.
func vlpEqual(lp []byte, p int, b []byte) bool {
	v, s, isInt := vlpGet(lp, p)
	if !isInt {
		return string(s) == string(b)
	}
	var tmp [20]byte
	return string(strconv.AppendInt(tmp[:0], v, 10)) == string(b)
}

// vlpEncodeInt appends the encoding of integer v (without backlen).
func vlpEncodeInt(b []byte, v int64) []byte {
	switch {
	case v >= 0 && v <= 127:
		return append(b, byte(v))
	case v >= -4096 && v <= 4095:
		u := uint64(v) & (1<<13 - 1)
		return append(b, byte(u>>8)|0xC0, byte(u))
	case v >= -32768 && v <= 32767:
		return append(b, 0xF1, byte(v), byte(v>>8))
	case v >= -8388608 && v <= 8388607:
		return append(b, 0xF2, byte(v), byte(v>>8), byte(v>>16))
	case v >= -2147483648 && v <= 2147483647:
		b = append(b, 0xF3)
		return binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	b = append(b, 0xF4)
	return binary.LittleEndian.AppendUint64(b, uint64(v))
}

// vlpAppendBacklen appends the backlen of an element of l bytes.
func vlpAppendBacklen(b []byte, l int) []byte {
	switch {
	case l <= 127:
		return append(b, byte(l))
	case l < 16383:
		return append(b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		return append(b, byte(l>>14), byte(l>>7&127)|128, byte(l&127)|128)
	case l < 268435455:
		return append(b, byte(l>>21), byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	}
	return append(b, byte(l>>28), byte(l>>21&127)|128, byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
}

// vlpStrSize is the whole size of string s as an element (lpAppend's
// choice: an integer encoding when s is a canonical int64).
func vlpStrSize(s []byte) int {
	var h int
	if v, ok := ParseInt(s); ok && isCanonicalInt(s) {
		h = ds.ListpackIntSize(v)
	} else {
		switch l := len(s); {
		case l < 64:
			h = 1 + l
		case l < 4096:
			h = 2 + l
		default:
			h = 5 + l
		}
	}
	return h + vlpBacklenSize(h)
}

// vlpPush appends an element whose encoding+data is enc and fixes the
// header. It returns the grown listpack.
func vlpPush(lp []byte, enc func(b []byte) []byte) []byte {
	end := len(lp) - 1 // the terminator
	lp = enc(lp[:end])
	lp = vlpAppendBacklen(lp, len(lp)-end)
	lp = append(lp, vlpEOF)
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	if n := vlpCount(lp); n != vlpUnknown {
		vlpSetCount(lp, n+1)
	}
	return lp
}

// vlpAppendInt appends integer v (lpAppendInteger).
func vlpAppendInt(lp []byte, v int64) []byte {
	return vlpPush(lp, func(b []byte) []byte { return vlpEncodeInt(b, v) })
}

// vlpAppendStr appends s as lpAppend does: as an integer when it is a
// canonical int64, else as a string.
func vlpAppendStr(lp []byte, s []byte) []byte {
	if v, ok := ParseInt(s); ok && isCanonicalInt(s) {
		return vlpAppendInt(lp, v)
	}
	return vlpPush(lp, func(b []byte) []byte {
		switch l := len(s); {
		case l < 64:
			b = append(b, 0x80|byte(l))
		case l < 4096:
			b = append(b, 0xE0|byte(l>>8), byte(l))
		default:
			b = append(b, 0xF0)
			b = binary.LittleEndian.AppendUint32(b, uint32(l))
		}
		return append(b, s...)
	})
}

// vlpReplaceInt replaces the element at p with integer v
// (lpReplaceInteger), moving the rest when the size changes, and returns
// the listpack (p still addresses the new element).
func vlpReplaceInt(lp []byte, p int, v int64) []byte {
	old := vlpSize(lp, p)
	var tmp [16]byte
	enc := vlpEncodeInt(tmp[:0], v)
	enc = vlpAppendBacklen(enc, len(enc))
	if d := len(enc) - old; d > 0 {
		lp = append(lp, make([]byte, d)...)
		copy(lp[p+len(enc):], lp[p+old:len(lp)-d])
	} else if d < 0 {
		copy(lp[p+len(enc):], lp[p+old:])
		lp = lp[:len(lp)+d]
	}
	copy(lp[p:], enc)
	binary.LittleEndian.PutUint32(lp, uint32(len(lp)))
	return lp
}
