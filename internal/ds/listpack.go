package ds

import "encoding/binary"

// Packed entries: the byte layout shared by Listpack (small hashes) and the
// nodes of Quicklist (lists). Each entry is
//
//	hdr | data | trl
//
// where hdr encodes L = len(data) and trl is hdr's bytes in reverse order, so
// that the last byte of every entry is hdr's lead byte and an entry can be
// read backwards from its end as easily as forwards from its start:
//
//	L < 240         1 byte:  L
//	L < 240+15*256  2 bytes: 0xF0 | (L-240)>>8, (L-240)&0xFF
//	otherwise       5 bytes: 0xFF, L as uint32 little endian
//
// A 128-byte value costs 130 bytes, two less than in a Valkey listpack; a
// short integer costs a byte more, because Valkey packs integers in binary.
// Values are at most 4 GiB (proto-max-bulk-len is far below).
const (
	lpTiny  = 0xF0                // 1-byte lengths are below this
	lpSmall = lpTiny + 0x0F*0x100 // 2-byte lengths are below this
	lpLarge = 0xFF                // lead byte of a 5-byte length
)

// lpHdrLen is the size of the header (and of the trailer) of an entry
// holding l bytes.
func lpHdrLen(l int) int {
	switch {
	case l < lpTiny:
		return 1
	case l < lpSmall:
		return 2
	}
	return 5
}

// LpEntryLen is the encoded size of an entry holding l bytes.
func LpEntryLen(l int) int { return 2*lpHdrLen(l) + l }

// lpPut encodes v at the start of dst, which must have room for
// LpEntryLen(len(v)) bytes, and returns the size written.
func lpPut(dst, v []byte) int {
	l := len(v)
	switch {
	case l < lpTiny:
		dst[0] = byte(l)
		copy(dst[1:], v)
		dst[1+l] = byte(l)
		return l + 2
	case l < lpSmall:
		x := l - lpTiny
		hi, lo := byte(lpTiny|x>>8), byte(x)
		dst[0], dst[1] = hi, lo
		copy(dst[2:], v)
		dst[2+l], dst[3+l] = lo, hi
		return l + 4
	}
	dst[0] = lpLarge
	binary.LittleEndian.PutUint32(dst[1:], uint32(l))
	copy(dst[5:], v)
	binary.BigEndian.PutUint32(dst[5+l:], uint32(l))
	dst[9+l] = lpLarge
	return l + 10
}

// lpGet decodes the entry starting at pos and returns its data (aliasing b)
// and the offset of the next entry.
func lpGet(b []byte, pos int) (v []byte, next int) {
	h := b[pos]
	switch {
	case h < lpTiny:
		l := int(h)
		return b[pos+1 : pos+1+l], pos + 2 + l
	case h < lpLarge:
		l := int(h&0x0F)<<8 | int(b[pos+1]) + lpTiny
		return b[pos+2 : pos+2+l], pos + 4 + l
	}
	l := int(binary.LittleEndian.Uint32(b[pos+1:]))
	return b[pos+5 : pos+5+l], pos + 10 + l
}

// lpGetBack decodes the entry ending just before end and returns its data
// and the offset where the entry starts.
func lpGetBack(b []byte, end int) (v []byte, start int) {
	t := b[end-1]
	switch {
	case t < lpTiny:
		l := int(t)
		start = end - 2 - l
		return b[start+1 : start+1+l], start
	case t < lpLarge:
		l := int(t&0x0F)<<8 | int(b[end-2]) + lpTiny
		start = end - 4 - l
		return b[start+2 : start+2+l], start
	}
	l := int(binary.BigEndian.Uint32(b[end-5:]))
	start = end - 10 - l
	return b[start+5 : start+5+l], start
}

// lpSkip returns the offset of the entry after the one at pos.
func lpSkip(b []byte, pos int) int {
	_, next := lpGet(b, pos)
	return next
}

// Listpack is a sequence of byte strings packed in one buffer, the encoding
// of small hashes (field, value, field, value, ...). Lookups are linear
// scans; the owner keeps it small (hash-max-listpack-*). Positions returned
// by its methods are byte offsets of entries, invalidated by any change
// before them. The zero value is an empty Listpack.
type Listpack struct {
	b []byte
	n int
}

// Len returns the number of entries.
func (lp *Listpack) Len() int { return lp.n }

// Size returns the encoded size in bytes.
func (lp *Listpack) Size() int { return len(lp.b) }

// MemUsage estimates the heap bytes held, the struct included.
func (lp *Listpack) MemUsage() int { return 32 + allocSize(cap(lp.b)) }

// End is the offset just past the last entry; Next returns it at the end.
func (lp *Listpack) End() int { return len(lp.b) }

// Next returns the entry at pos and the offset of the following one.
func (lp *Listpack) Next(pos int) (v []byte, next int) { return lpGet(lp.b, pos) }

// Skip returns the offset of the entry after the one at pos.
func (lp *Listpack) Skip(pos int) int { return lpSkip(lp.b, pos) }

// Append adds v at the end.
func (lp *Listpack) Append(v []byte) {
	n := LpEntryLen(len(v))
	at := len(lp.b)
	lp.b = growBytes(lp.b, n)
	lpPut(lp.b[at:], v)
	lp.n++
}

// Replace overwrites the entry at pos with v.
func (lp *Listpack) Replace(pos int, v []byte) {
	next := lpSkip(lp.b, pos)
	old := next - pos
	n := LpEntryLen(len(v))
	if n != old {
		lp.b = spliceGap(lp.b, pos+old, n-old)
	}
	lpPut(lp.b[pos:], v)
}

// Delete removes count consecutive entries starting at pos.
func (lp *Listpack) Delete(pos, count int) {
	end := pos
	for i := 0; i < count; i++ {
		end = lpSkip(lp.b, end)
	}
	lp.b = append(lp.b[:pos], lp.b[end:]...)
	lp.n -= count
	// A Listpack that lost most of its entries gives memory back, the way
	// a listpack is realloc'ed down in Valkey.
	if cap(lp.b) > 64 && len(lp.b) < cap(lp.b)/4 {
		lp.b = append(make([]byte, 0, len(lp.b)+len(lp.b)/8), lp.b...)
	}
}

// Clone returns an independent copy with a tight buffer.
func (lp *Listpack) Clone() *Listpack {
	return &Listpack{b: append(make([]byte, 0, len(lp.b)), lp.b...), n: lp.n}
}

// Grow makes room for about extra more bytes, so that a batch of inserts
// reallocates at most once.
func (lp *Listpack) Grow(extra int) {
	if cap(lp.b)-len(lp.b) < extra {
		nb := make([]byte, len(lp.b), len(lp.b)+extra)
		copy(nb, lp.b)
		lp.b = nb
	}
}

// growBytes extends b by n bytes (contents of the new bytes unspecified).
// Growth is geometric by 1.25x, not append's 2x: a small collection's
// buffer is most of its memory, and Valkey's realloc keeps it within the
// allocator's size-class spacing.
func growBytes(b []byte, n int) []byte {
	need := len(b) + n
	if need <= cap(b) {
		return b[:need]
	}
	c := max(need, cap(b)+cap(b)/4, 16)
	nb := make([]byte, need, allocSize(c))
	copy(nb, b)
	return nb
}

// spliceGap grows (delta > 0) or shrinks (delta < 0) b at offset at,
// moving the bytes from at onwards by delta.
func spliceGap(b []byte, at, delta int) []byte {
	if delta < 0 {
		return append(b[:at+delta], b[at:]...)
	}
	old := len(b)
	b = growBytes(b, delta)
	copy(b[at+delta:], b[at:old])
	return b
}
