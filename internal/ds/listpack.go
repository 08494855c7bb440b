package ds

import (
	"encoding/binary"
	"unsafe"
)

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

// lpEntryLen is the encoded size of an entry holding l bytes.
func lpEntryLen(l int) int { return 2*lpHdrLen(l) + l }

// lpPut encodes v at the start of dst, which must have room for
// lpEntryLen(len(v)) bytes, and returns the size written.
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

// Listpack is a sequence of byte strings packed in one allocation, the
// encoding of small hashes (field, value, field, value, ...). Lookups are
// linear scans; the owner keeps it small (hash-max-listpack-*).
//
// A *Listpack points to the start of its allocation: an 8-byte header
// (entry count, bytes used) followed by the entries, so a small hash costs
// exactly one allocation. The allocation is always exactly the size class
// of header+used bytes (allocSize), like a listpack realloc'ed to its size
// by jemalloc: its capacity is implied and need not be stored. Entries are
// hdr | data (listpack.go's header without the trailer: hashes are only
// ever scanned forwards).
//
// Methods that change the contents return the Listpack to use afterwards,
// which is a new one whenever the size class changed; the old one must not
// be used again. Positions are byte offsets of entries, invalidated by any
// change before them.
type Listpack struct {
	n    uint32 // entries
	used uint32 // bytes of entries
}

const lpHeader = 8 // unsafe.Sizeof(Listpack{})

// NewListpack returns an empty Listpack.
func NewListpack() *Listpack { return lpAlloc(0) }

// lpAlloc allocates a Listpack with room for used bytes of entries (used
// is recorded; n is 0).
func lpAlloc(used int) *Listpack {
	size := allocSize(lpHeader + used)
	words := make([]uint64, size/8) // 8-aligned and pointer-free
	lp := (*Listpack)(unsafe.Pointer(&words[0]))
	lp.used = uint32(used)
	return lp
}

// all returns the whole allocation.
func (lp *Listpack) all() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(lp)), allocSize(lpHeader+int(lp.used)))
}

// data returns the entries.
func (lp *Listpack) data() []byte { return lp.all()[lpHeader : lpHeader+lp.used] }

// Len returns the number of entries.
func (lp *Listpack) Len() int { return int(lp.n) }

// Size returns the bytes used by the entries.
func (lp *Listpack) Size() int { return int(lp.used) }

// MemUsage returns the heap bytes held: the one allocation.
func (lp *Listpack) MemUsage() int { return allocSize(lpHeader + int(lp.used)) }

// End is the offset just past the last entry: Next returns it at the end.
func (lp *Listpack) End() int { return int(lp.used) }

// Next returns the entry at pos and the offset of the following one.
func (lp *Listpack) Next(pos int) (v []byte, next int) { return lpfGet(lp.data(), pos) }

// Skip returns the offset of the entry after the one at pos.
func (lp *Listpack) Skip(pos int) int {
	_, next := lpfGet(lp.data(), pos)
	return next
}

// splice replaces bytes [pos, pos+oldLen) of the entries with room for
// newLen bytes, moving what follows, and returns the Listpack to use (the
// same one while the size class does not change) and the offset of the
// room, which the caller fills.
func (lp *Listpack) splice(pos, oldLen, newLen int) *Listpack {
	used := int(lp.used)
	nused := used - oldLen + newLen
	if allocSize(lpHeader+nused) == allocSize(lpHeader+used) {
		b := lp.all()[lpHeader:]
		copy(b[pos+newLen:nused], b[pos+oldLen:used])
		lp.used = uint32(nused)
		return lp
	}
	nl := lpAlloc(nused)
	nl.n = lp.n
	old, nb := lp.data(), nl.data()
	copy(nb, old[:pos])
	copy(nb[pos+newLen:], old[pos+oldLen:])
	return nl
}

// Append adds v at the end.
func (lp *Listpack) Append(v []byte) *Listpack {
	pos := int(lp.used)
	lp = lp.splice(pos, 0, lpfLen(len(v)))
	lpfPut(lp.data()[pos:], v)
	lp.n++
	return lp
}

// Replace overwrites the entry at pos with v.
func (lp *Listpack) Replace(pos int, v []byte) *Listpack {
	old := lp.Skip(pos) - pos
	lp = lp.splice(pos, old, lpfLen(len(v)))
	lpfPut(lp.data()[pos:], v)
	return lp
}

// Delete removes count consecutive entries starting at pos.
func (lp *Listpack) Delete(pos, count int) *Listpack {
	end := pos
	for i := 0; i < count; i++ {
		end = lp.Skip(end)
	}
	lp = lp.splice(pos, end-pos, 0)
	lp.n -= uint32(count)
	return lp
}

// Clone returns an independent copy.
func (lp *Listpack) Clone() *Listpack {
	c := lpAlloc(int(lp.used))
	c.n = lp.n
	copy(c.data(), lp.data())
	return c
}

// lpfLen is the encoded size of a forward-only entry of l bytes.
func lpfLen(l int) int { return lpHdrLen(l) + l }

// lpfPut encodes v (header and data, no trailer) at the start of dst.
func lpfPut(dst, v []byte) int {
	l := len(v)
	switch {
	case l < lpTiny:
		dst[0] = byte(l)
		copy(dst[1:], v)
		return l + 1
	case l < lpSmall:
		x := l - lpTiny
		dst[0], dst[1] = byte(lpTiny|x>>8), byte(x)
		copy(dst[2:], v)
		return l + 2
	}
	dst[0] = lpLarge
	binary.LittleEndian.PutUint32(dst[1:], uint32(l))
	copy(dst[5:], v)
	return l + 5
}

// lpfGet decodes the forward-only entry at pos.
func lpfGet(b []byte, pos int) (v []byte, next int) {
	h := b[pos]
	switch {
	case h < lpTiny:
		l := int(h)
		return b[pos+1 : pos+1+l], pos + 1 + l
	case h < lpLarge:
		l := int(h&0x0F)<<8 | int(b[pos+1]) + lpTiny
		return b[pos+2 : pos+2+l], pos + 2 + l
	}
	l := int(binary.LittleEndian.Uint32(b[pos+1:]))
	return b[pos+5 : pos+5+l], pos + 5 + l
}
