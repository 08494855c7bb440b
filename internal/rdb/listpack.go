package rdb

import (
	"encoding/binary"
	"strconv"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Listpacks in Valkey's serialized layout (listpack.c):
//
//	total-bytes uint32 LE | num-elements uint16 LE | entry... | 0xFF
//
// where each entry is encoding+data followed by backlen, the size of
// encoding+data in 1..5 bytes read right to left. Strings that are
// canonical 64-bit integers are stored as integers, as lpAppend does.

const (
	lpHeaderSize = 6
	lpEOF        = 0xFF
	// lpMaxCount is the num-elements value meaning "count them".
	lpMaxCount = 65535
)

// listpack builds a listpack; the zero value is not ready: use newListpack.
type listpack struct {
	b     []byte
	count int
}

func newListpack(sizeHint int) *listpack {
	b := make([]byte, lpHeaderSize, lpHeaderSize+sizeHint+1)
	return &listpack{b: b}
}

// bytes finishes the listpack (header and terminator) and returns it. The
// listpack must not be appended to afterwards.
func (lp *listpack) bytes() []byte {
	b := append(lp.b, lpEOF)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	n := lp.count
	if n > lpMaxCount-1 {
		n = lpMaxCount
	}
	binary.LittleEndian.PutUint16(b[4:], uint16(n))
	return b
}

// size is lpBytes of the finished listpack.
func (lp *listpack) size() int { return len(lp.b) + 1 }

// lpEntrySize is the encoded size of v as a listpack entry, backlen included.
func lpEntrySize(v []byte) int {
	n := lpEncodedSize(v)
	return n + lpBacklenSize(n)
}

func lpEncodedSize(v []byte) int {
	if i, ok := parseInt(v); ok {
		return ds.ListpackIntSize(i)
	}
	switch l := len(v); {
	case l < 64:
		return 1 + l
	case l < 4096:
		return 2 + l
	default:
		return 5 + l
	}
}

func lpBacklenSize(l int) int {
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

// append adds v at the end.
func (lp *listpack) append(v []byte) {
	b := lp.b
	start := len(b)
	if i, ok := parseInt(v); ok {
		switch {
		case i >= 0 && i <= 127:
			b = append(b, byte(i))
		case i >= -4096 && i <= 4095:
			u := uint64(i) & (1<<13 - 1)
			b = append(b, byte(u>>8)|0xC0, byte(u))
		case i >= -32768 && i <= 32767:
			b = append(b, 0xF1, byte(i), byte(i>>8))
		case i >= -8388608 && i <= 8388607:
			b = append(b, 0xF2, byte(i), byte(i>>8), byte(i>>16))
		case i >= -2147483648 && i <= 2147483647:
			b = append(b, 0xF3)
			b = binary.LittleEndian.AppendUint32(b, uint32(i))
		default:
			b = append(b, 0xF4)
			b = binary.LittleEndian.AppendUint64(b, uint64(i))
		}
	} else {
		switch l := len(v); {
		case l < 64:
			b = append(b, 0x80|byte(l))
		case l < 4096:
			b = append(b, 0xE0|byte(l>>8), byte(l))
		default:
			b = append(b, 0xF0)
			b = binary.LittleEndian.AppendUint32(b, uint32(l))
		}
		b = append(b, v...)
	}
	l := uint64(len(b) - start)
	switch {
	// backlen: 7 bits per byte, most significant first, the high bit set
	// on every byte but the first so it can be read right to left.
	case l <= 127:
		b = append(b, byte(l))
	case l < 16383:
		b = append(b, byte(l>>7), byte(l&127)|128)
	case l < 2097151:
		b = append(b, byte(l>>14), byte(l>>7&127)|128, byte(l&127)|128)
	case l < 268435455:
		b = append(b, byte(l>>21), byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	default:
		b = append(b, byte(l>>28), byte(l>>21&127)|128, byte(l>>14&127)|128, byte(l>>7&127)|128, byte(l&127)|128)
	}
	lp.b = b
	lp.count++
}

// lpDecode validates a serialized listpack completely and calls fn with
// each element in order (integers as their decimal strings). The slices
// passed to fn alias b (strings) or a buffer shared by the blob's
// integers, with capacities cut so none can grow into another. It returns a description of the first
// problem, or "".
func lpDecode(b []byte, fn func(v []byte) string) string {
	if len(b) < lpHeaderSize+1 {
		return "listpack shorter than its header"
	}
	if int(binary.LittleEndian.Uint32(b)) != len(b) {
		return "listpack total-bytes does not match its length"
	}
	count := int(binary.LittleEndian.Uint16(b[4:]))
	p, n := lpHeaderSize, 0
	var ints intText
	// Each step decodes the encoding byte into hdr (bytes before the
	// data) and dlen (data bytes; 0 for integers, whose value is in the
	// header), then checks the backlen against the entry's size.
	for {
		if p >= len(b) {
			return "listpack without terminator"
		}
		c := b[p]
		if c == lpEOF {
			break
		}
		var hdr, dlen int
		var iv int64
		isInt := true
		switch {
		case c&0x80 == 0:
			hdr, iv = 1, int64(c)
		case c&0xC0 == 0x80:
			hdr, dlen, isInt = 1, int(c&0x3F), false
		case c&0xE0 == 0xC0:
			if p+2 > len(b) {
				return "listpack entry past its end"
			}
			hdr = 2
			u := uint64(c&0x1F)<<8 | uint64(b[p+1])
			iv = int64(u<<51) >> 51
		case c&0xF0 == 0xE0:
			if p+2 > len(b) {
				return "listpack entry past its end"
			}
			hdr, dlen, isInt = 2, int(c&0x0F)<<8|int(b[p+1]), false
		case c == 0xF0:
			if p+5 > len(b) {
				return "listpack entry past its end"
			}
			hdr, dlen, isInt = 5, int(binary.LittleEndian.Uint32(b[p+1:])), false
		case c == 0xF1, c == 0xF2, c == 0xF3, c == 0xF4:
			w := [...]int{2, 3, 4, 8}[c-0xF1]
			if p+1+w > len(b) {
				return "listpack entry past its end"
			}
			var u uint64
			for k := w - 1; k >= 0; k-- {
				u = u<<8 | uint64(b[p+1+k])
			}
			hdr = 1 + w
			iv = int64(u<<(64-8*w)) >> (64 - 8*w)
		default:
			return "listpack entry with an invalid encoding"
		}
		elen := hdr + dlen
		if dlen > len(b) || p+elen > len(b) {
			return "listpack entry past its end"
		}
		bl := lpBacklenSize(elen)
		if p+elen+bl > len(b) {
			return "listpack entry past its end"
		}
		// The backlen must encode elen exactly (lpValidateNext).
		var got uint64
		for k := 0; k < bl; k++ {
			x := b[p+elen+bl-1-k]
			got |= uint64(x&127) << (7 * k)
			if (k < bl-1) != (x&128 != 0) {
				return "listpack entry with a bad backlen"
			}
		}
		if got != uint64(elen) {
			return "listpack entry with a bad backlen"
		}
		var v []byte
		if isInt {
			v = ints.format(iv)
		} else {
			v = b[p+hdr : p+elen : p+elen]
		}
		if msg := fn(v); msg != "" {
			return msg
		}
		n++
		p += elen + bl
	}
	if p != len(b)-1 {
		return "listpack has bytes after its terminator"
	}
	if count != lpMaxCount && count != n {
		return "listpack num-elements does not match its entries"
	}
	return ""
}

// intText formats the integers of one blob into a shared buffer, so that
// decoding a blob of integers costs a few allocations, not one each.
type intText struct{ buf []byte }

// format returns v in decimal, capacity cut to its length.
func (t *intText) format(v int64) []byte {
	if cap(t.buf)-len(t.buf) < 20 {
		t.buf = make([]byte, 0, 1024)
	}
	s := len(t.buf)
	t.buf = strconv.AppendInt(t.buf, v, 10)
	return t.buf[s:len(t.buf):len(t.buf)]
}

// parseInt reports whether v is the canonical decimal form of an int64
// (Valkey's string2ll and lpStringToInt64: no sign but a leading '-', no
// leading zeros, no spaces, at most 20 bytes) and returns the value.
func parseInt(v []byte) (int64, bool) {
	if len(v) == 0 || len(v) > 20 {
		return 0, false
	}
	if len(v) == 1 && v[0] == '0' {
		return 0, true
	}
	p, neg := 0, false
	if v[0] == '-' {
		neg, p = true, 1
		if len(v) == 1 {
			return 0, false
		}
	}
	if v[p] < '1' || v[p] > '9' {
		return 0, false
	}
	var u uint64
	for ; p < len(v); p++ {
		c := v[p]
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (1<<64-1)/10 {
			return 0, false
		}
		u *= 10
		if u > 1<<64-1-uint64(c-'0') {
			return 0, false
		}
		u += uint64(c - '0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return int64(-u), true
	}
	if u > 1<<63-1 {
		return 0, false
	}
	return int64(u), true
}
