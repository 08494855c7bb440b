package rdb

import (
	"encoding/binary"
)

// Ziplists (RDB 9 and older, ziplist.c), read only:
//
//	zlbytes uint32 LE | zltail uint32 LE | zllen uint16 LE | entry... | 0xFF
//
// where an entry is prevlen (1 byte, or 0xFE and 4 bytes LE), an encoding
// and the data.

// zlDecode validates a ziplist and calls fn with each element (integers
// as decimal strings; slices alias b or a shared buffer, as lpDecode's). It returns a description
// of the first problem, or "".
func zlDecode(b []byte, fn func(v []byte) string) string {
	const hdr = 10
	if len(b) < hdr+1 {
		return "ziplist shorter than its header"
	}
	if int(binary.LittleEndian.Uint32(b)) != len(b) {
		return "ziplist zlbytes does not match its length"
	}
	tail := int(binary.LittleEndian.Uint32(b[4:]))
	count := int(binary.LittleEndian.Uint16(b[8:]))
	p, n, prevLen, last := hdr, 0, 0, hdr
	var ints intText
	for {
		if p >= len(b) {
			return "ziplist without terminator"
		}
		if b[p] == 0xFF {
			break
		}
		start := p
		// prevlen
		var pl int
		if b[p] < 0xFE {
			pl = int(b[p])
			p++
		} else if b[p] == 0xFE {
			if p+5 > len(b) {
				return "ziplist entry past its end"
			}
			pl = int(binary.LittleEndian.Uint32(b[p+1:]))
			p += 5
		} else {
			return "ziplist entry with an invalid prevlen"
		}
		if pl != prevLen {
			return "ziplist entry with a wrong prevlen"
		}
		if p >= len(b) {
			return "ziplist entry past its end"
		}
		c := b[p]
		var v []byte
		str := -1
		switch c >> 6 {
		case 0:
			str = int(c & 0x3F)
			p++
		case 1:
			if p+2 > len(b) {
				return "ziplist entry past its end"
			}
			str = int(c&0x3F)<<8 | int(b[p+1])
			p += 2
		case 2:
			if c != 0x80 || p+5 > len(b) {
				return "ziplist entry with an invalid encoding"
			}
			str = int(binary.BigEndian.Uint32(b[p+1:]))
			p += 5
		default:
			var w int
			switch c {
			case 0xC0:
				w = 2
			case 0xD0:
				w = 4
			case 0xE0:
				w = 8
			case 0xF0:
				w = 3
			case 0xFE:
				w = 1
			default:
				if c >= 0xF1 && c <= 0xFD {
					v = ints.format(int64(c&0x0F) - 1)
					p++
				} else {
					return "ziplist entry with an invalid encoding"
				}
			}
			if w > 0 {
				if p+1+w > len(b) {
					return "ziplist entry past its end"
				}
				var u uint64
				for k := w - 1; k >= 0; k-- {
					u = u<<8 | uint64(b[p+1+k])
				}
				v = ints.format(int64(u<<(64-8*w)) >> (64 - 8*w))
				p += 1 + w
			}
		}
		if str >= 0 {
			if str > len(b)-p {
				return "ziplist entry past its end"
			}
			v = b[p : p+str : p+str]
			p += str
		}
		if msg := fn(v); msg != "" {
			return msg
		}
		prevLen = p - start
		last = start
		n++
	}
	if p != len(b)-1 {
		return "ziplist has bytes after its terminator"
	}
	if n > 0 && tail != last || n == 0 && tail != hdr {
		return "ziplist zltail does not point at its last entry"
	}
	if count != 0xFFFF && count != n {
		return "ziplist zllen does not match its entries"
	}
	return ""
}

// zipmapDecode validates a zipmap (RDB_TYPE_HASH_ZIPMAP, Redis before 2.6)
// and calls fn with each field and value (slices of b, capacity cut).
//
//	zmlen byte | (len field len free value free-bytes)... | 0xFF
//
// where len is one byte below 254, or 254 and 4 bytes LE.
func zipmapDecode(b []byte, fn func(f, v []byte) string) string {
	if len(b) < 2 {
		return "zipmap shorter than its header"
	}
	p := 1
	readLen := func() (int, bool) {
		if p >= len(b) {
			return 0, false
		}
		c := b[p]
		if c < 254 {
			p++
			return int(c), true
		}
		if c == 254 && p+5 <= len(b) {
			l := binary.LittleEndian.Uint32(b[p+1:])
			p += 5
			return int(l), true
		}
		return 0, false
	}
	for {
		if p >= len(b) {
			return "zipmap without terminator"
		}
		if b[p] == 0xFF {
			break
		}
		fl, ok := readLen()
		if !ok || fl > len(b)-p {
			return "zipmap entry past its end"
		}
		f := b[p : p+fl : p+fl]
		p += fl
		vl, ok := readLen()
		if !ok || p >= len(b) {
			return "zipmap entry past its end"
		}
		free := int(b[p])
		p++
		if vl > len(b)-p || free > len(b)-p-vl {
			return "zipmap entry past its end"
		}
		v := b[p : p+vl : p+vl]
		p += vl + free
		if msg := fn(f, v); msg != "" {
			return msg
		}
	}
	if p != len(b)-1 {
		return "zipmap has bytes after its terminator"
	}
	return ""
}
