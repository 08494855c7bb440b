package ds

import (
	"encoding/binary"
	"unsafe"
)

// Pack is a compact list of byte strings held in one buffer, the role
// Valkey's listpack plays for small sets and sorted sets: one allocation for
// the whole collection, no per-element headers beyond a length.
//
// Layout: entries, then the number of entries as 4 bytes (little endian),
// the trailer. Each entry is uvarint(len) | bytes | backlen, where backlen
// is len again written backwards (see appendBacklen) so that the entry
// before any offset can be found without scanning from the start. An
// entry's offset is the index of its first byte; the first entry is at 0
// and End() is the trailer's offset. An empty Pack may have no buffer.
//
// The struct is a pointer and two 32-bit lengths, 16 bytes, and has that
// layout so that package db can hold it inside its Object instead of
// behind a pointer (the count being in the buffer is what lets it fit):
// its fields must stay in this order and these types.
//
// Operations that look for a value are linear scans, as in a listpack: the
// caller keeps a Pack small (the *-max-listpack-* thresholds). Offsets are
// invalidated by any insert or delete before them. The zero value is empty.
type Pack struct {
	// ptr, blen and bcap are the buffer: a []byte in 16 bytes instead of
	// 24 (a listpack is limited to 4 GB well before its lengths would
	// leave 32 bits).
	ptr        *byte
	blen, bcap uint32
}

// packTrailer is the size of the entry count at the end of the buffer.
const packTrailer = 4

// bytes returns the buffer, trailer included, its capacity too.
func (p *Pack) bytes() []byte {
	if p.ptr == nil {
		return nil
	}
	return unsafe.Slice(p.ptr, p.bcap)[:p.blen]
}

// setBuf makes b the buffer.
func (p *Pack) setBuf(b []byte) {
	if cap(b) == 0 {
		p.ptr, p.blen, p.bcap = nil, 0, 0
		return
	}
	p.ptr, p.blen, p.bcap = unsafe.SliceData(b[:cap(b)]), uint32(len(b)), uint32(cap(b))
}

// setLen writes n as the entry count. The buffer must exist.
func (p *Pack) setLen(n int) {
	b := p.bytes()
	binary.LittleEndian.PutUint32(b[len(b)-packTrailer:], uint32(n))
}

// Len returns the number of entries.
func (p *Pack) Len() int {
	if p.blen == 0 {
		return 0
	}
	b := p.bytes()
	return int(binary.LittleEndian.Uint32(b[len(b)-packTrailer:]))
}

// Bytes returns the size of the buffer in use, trailer included.
func (p *Pack) Bytes() int { return int(p.blen) }

// End is the offset just past the last entry: where Append inserts.
func (p *Pack) End() int {
	if p.blen == 0 {
		return 0
	}
	return int(p.blen) - packTrailer
}

// MemUsage estimates the heap bytes of the Pack's buffer (the struct is
// its holder's).
func (p *Pack) MemUsage() int { return allocSize(int(p.bcap)) }

// backlenSize is the number of bytes backlen uses for n.
func backlenSize(n int) int {
	s := 1
	for n >= 0x80 {
		n >>= 7
		s++
	}
	return s
}

// appendBacklen appends n so that it can be read backwards: the last byte
// holds the low 7 bits, and every byte but the first has the high bit set
// to say that more (higher) bits precede it.
func appendBacklen(dst []byte, n int) []byte {
	s := backlenSize(n)
	for i := s - 1; i >= 0; i-- {
		b := byte(n>>(7*i)) & 0x7f
		if i != s-1 {
			b |= 0x80
		}
		dst = append(dst, b)
	}
	return dst
}

// readBacklen decodes the backlen that ends just before end and returns the
// value and the offset where the backlen starts.
func readBacklen(buf []byte, end int) (n, start int) {
	shift := 0
	for {
		end--
		b := buf[end]
		n |= int(b&0x7f) << shift
		shift += 7
		if b&0x80 == 0 {
			return n, end
		}
	}
}

// PackEntrySize is the encoded size of an entry holding n bytes: what
// Reserve is given per value.
func PackEntrySize(n int) int {
	return uvarintSize(n) + n + backlenSize(n)
}

func uvarintSize(n int) int {
	s := 1
	for n >= 0x80 {
		n >>= 7
		s++
	}
	return s
}

// Entry returns the value at off and the offset of the next entry. The
// value aliases the Pack and is valid until the next mutation.
func (p *Pack) Entry(off int) (val []byte, next int) {
	b := p.bytes()
	n, k := binary.Uvarint(b[off:])
	start := off + k
	end := start + int(n)
	return b[start:end:end], end + backlenSize(int(n))
}

// Next returns the offset after the entry at off.
func (p *Pack) Next(off int) int {
	n, k := binary.Uvarint(p.bytes()[off:])
	return off + k + int(n) + backlenSize(int(n))
}

// Prev returns the offset of the entry before off, or -1 if off is the
// first entry.
func (p *Pack) Prev(off int) int {
	if off <= 0 {
		return -1
	}
	n, start := readBacklen(p.bytes(), off)
	return start - n - uvarintSize(n)
}

// Last returns the offset of the last entry, or -1 if the Pack is empty.
func (p *Pack) Last() int { return p.Prev(p.End()) }

// Seek returns the offset of entry i (0-based; negative counts from the
// end, -1 being the last), or -1 when out of range. It walks from the
// nearer end.
func (p *Pack) Seek(i int) int {
	n := p.Len()
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return -1
	}
	if i <= n/2 {
		off := 0
		for ; i > 0; i-- {
			off = p.Next(off)
		}
		return off
	}
	off := p.End()
	for j := n - i; j > 0; j-- {
		off = p.Prev(off)
	}
	return off
}

// Append adds val at the end.
func (p *Pack) Append(val []byte) { p.Insert(p.End(), val) }

// Insert adds val before the entry at off (off == End() appends).
func (p *Pack) Insert(off int, val []byte) { p.InsertParts(off, val, nil) }

// InsertParts is Insert for a value given as a fixed prefix and a suffix
// (a sorted set's score and member), avoiding a temporary concatenation.
func (p *Pack) InsertParts(off int, prefix, suffix []byte) {
	n := len(prefix) + len(suffix)
	size := PackEntrySize(n)
	count := p.Len()
	p.grow(size)
	old := len(p.bytes())
	b := p.bytes()[:old+size]
	p.setBuf(b)
	copy(b[off+size:], b[off:old]) // the entries after off, and the trailer
	w := binary.PutUvarint(b[off:], uint64(n))
	w += copy(b[off+w:], prefix)
	w += copy(b[off+w:], suffix)
	appendBacklen(b[off+w:off+w], n)
	p.setLen(count + 1)
}

// grow makes room for size more bytes. Small Packs grow by a quarter rather
// than doubling: they are many, and each holds few elements.
func (p *Pack) grow(size int) {
	b := p.bytes()
	if len(b) == 0 {
		p.Reserve(size) // the trailer and room for size, nothing more
		return
	}
	need := len(b) + size
	if need <= cap(b) {
		return
	}
	// The size class's slack is room too: make would leave it unused.
	nb := make([]byte, len(b), allocSize(max(need, len(b)+len(b)/4, 16)))
	copy(nb, b)
	p.setBuf(nb)
}

// Reserve makes room for size more bytes of entries (PackEntrySize each),
// growing the buffer to the size class of just what they need when it
// has not the room: a command adding several values at once knows them
// all, so they get one allocation with no spare beyond the class, where
// adding them one by one would grow it a quarter at a time.
func (p *Pack) Reserve(size int) {
	b := p.bytes()
	need := max(len(b), packTrailer) + size
	if need <= cap(b) {
		return
	}
	nb := make([]byte, max(len(b), packTrailer), allocSize(need))
	copy(nb, b)
	p.setBuf(nb)
}

// Delete removes the entry at off and returns off, which is now the offset
// of the entry that followed it.
func (p *Pack) Delete(off int) int {
	next := p.Next(off)
	count := p.Len()
	b := p.bytes()
	p.setBuf(append(b[:off], b[next:]...))
	p.setLen(count - 1)
	return off
}

// DeleteRange removes count entries starting at off.
func (p *Pack) DeleteRange(off, count int) {
	end, n := off, p.Len()
	for i := 0; i < count && end < p.End(); i++ {
		end = p.Next(end)
		n--
	}
	b := p.bytes()
	p.setBuf(append(b[:off], b[end:]...))
	if len(b) > 0 {
		p.setLen(n)
	}
}

// ShrinkToFit drops unused capacity when it exceeds a quarter of the size.
func (p *Pack) ShrinkToFit() {
	if b := p.bytes(); cap(b)-len(b) > len(b)/4 {
		p.setBuf(append([]byte(nil), b...))
	}
}

// Clone returns an independent copy with no spare capacity.
func (p *Pack) Clone() *Pack {
	c := &Pack{}
	c.setBuf(append([]byte(nil), p.bytes()...))
	return c
}

// Find returns the offset of the first entry equal to val, or -1.
func (p *Pack) Find(val []byte) int {
	b := p.bytes()
	for off := 0; off < p.End(); {
		n, k := binary.Uvarint(b[off:])
		start := off + k
		end := start + int(n)
		if int(n) == len(val) && string(b[start:end]) == string(val) {
			return off
		}
		off = end + backlenSize(int(n))
	}
	return -1
}
