package ds

import (
	"encoding/binary"
	"unsafe"
)

// Pack is a compact list of byte strings held in one buffer, the role
// Valkey's listpack plays for small sets and sorted sets: one allocation for
// the whole collection, no per-element headers beyond a length.
//
// Layout: each entry is uvarint(len) | bytes | backlen, where backlen is len
// again written backwards (see appendBacklen) so that the entry before any
// offset can be found without scanning from the start. An entry's offset is
// the index of its first byte; len(buf) is the end offset.
//
// Operations that look for a value are linear scans, as in a listpack: the
// caller keeps a Pack small (the *-max-listpack-* thresholds). Offsets are
// invalidated by any insert or delete before them. The zero value is empty.
type Pack struct {
	// ptr, blen and bcap are the buffer: a []byte in 16 bytes instead of
	// 24, so a Pack is 24 bytes (PackMem), the size class of a small
	// set's or sorted set's header.
	ptr        *byte
	blen, bcap uint32
	n          int
}

// PackMem is the heap of a Pack (or ZPack) struct, its buffer aside.
const PackMem = 24

// bytes returns the buffer, its capacity included.
func (p *Pack) bytes() []byte {
	if p.ptr == nil {
		return nil
	}
	return unsafe.Slice(p.ptr, p.bcap)[:p.blen]
}

// setBuf makes b the buffer (a listpack is limited to 4 GB well before
// its lengths would leave 32 bits).
func (p *Pack) setBuf(b []byte) {
	if cap(b) == 0 {
		p.ptr, p.blen, p.bcap = nil, 0, 0
		return
	}
	p.ptr, p.blen, p.bcap = unsafe.SliceData(b[:cap(b)]), uint32(len(b)), uint32(cap(b))
}

// Len returns the number of entries.
func (p *Pack) Len() int { return p.n }

// Bytes returns the size of the encoded entries.
func (p *Pack) Bytes() int { return len(p.bytes()) }

// End is the offset just past the last entry: where Append inserts.
func (p *Pack) End() int { return len(p.bytes()) }

// MemUsage estimates the heap bytes of the Pack's buffer.
func (p *Pack) MemUsage() int { return allocSize(cap(p.bytes())) }

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

// entrySize is the encoded size of an entry holding n bytes.
func packEntrySize(n int) int {
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
	n, k := binary.Uvarint(p.bytes()[off:])
	start := off + k
	end := start + int(n)
	return p.bytes()[start:end:end], end + backlenSize(int(n))
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
func (p *Pack) Last() int { return p.Prev(len(p.bytes())) }

// Seek returns the offset of entry i (0-based; negative counts from the
// end, -1 being the last), or -1 when out of range. It walks from the
// nearer end.
func (p *Pack) Seek(i int) int {
	if i < 0 {
		i += p.n
	}
	if i < 0 || i >= p.n {
		return -1
	}
	if i <= p.n/2 {
		off := 0
		for ; i > 0; i-- {
			off = p.Next(off)
		}
		return off
	}
	off := len(p.bytes())
	for j := p.n - i; j > 0; j-- {
		off = p.Prev(off)
	}
	return off
}

// Append adds val at the end.
func (p *Pack) Append(val []byte) { p.Insert(len(p.bytes()), val) }

// Insert adds val before the entry at off (off == End() appends).
func (p *Pack) Insert(off int, val []byte) {
	size := packEntrySize(len(val))
	old := len(p.bytes())
	p.grow(size)
	p.setBuf(p.bytes()[:old+size])
	copy(p.bytes()[off+size:], p.bytes()[off:old])
	w := binary.PutUvarint(p.bytes()[off:], uint64(len(val)))
	w += copy(p.bytes()[off+w:], val)
	appendBacklen(p.bytes()[off+w:off+w], len(val))
	p.n++
}

// InsertParts is Insert for a value given as a fixed prefix and a suffix
// (a sorted set's score and member), avoiding a temporary concatenation.
func (p *Pack) InsertParts(off int, prefix, suffix []byte) {
	n := len(prefix) + len(suffix)
	size := packEntrySize(n)
	old := len(p.bytes())
	p.grow(size)
	p.setBuf(p.bytes()[:old+size])
	copy(p.bytes()[off+size:], p.bytes()[off:old])
	w := binary.PutUvarint(p.bytes()[off:], uint64(n))
	w += copy(p.bytes()[off+w:], prefix)
	w += copy(p.bytes()[off+w:], suffix)
	appendBacklen(p.bytes()[off+w:off+w], n)
	p.n++
}

// grow makes room for size more bytes. Small Packs grow by a quarter rather
// than doubling: they are many, and each holds few elements.
func (p *Pack) grow(size int) {
	need := len(p.bytes()) + size
	if need <= cap(p.bytes()) {
		return
	}
	// The size class's slack is room too: make would leave it unused.
	c := allocSize(max(need, len(p.bytes())+len(p.bytes())/4, 16))
	nb := make([]byte, len(p.bytes()), c)
	copy(nb, p.bytes())
	p.setBuf(nb)
}

// Delete removes the entry at off and returns off, which is now the offset
// of the entry that followed it.
func (p *Pack) Delete(off int) int {
	next := p.Next(off)
	p.setBuf(append(p.bytes()[:off], p.bytes()[next:]...))
	p.n--
	return off
}

// DeleteRange removes count entries starting at off.
func (p *Pack) DeleteRange(off, count int) {
	end := off
	for i := 0; i < count && end < len(p.bytes()); i++ {
		end = p.Next(end)
		p.n--
	}
	p.setBuf(append(p.bytes()[:off], p.bytes()[end:]...))
}

// ShrinkToFit drops unused capacity when it exceeds a quarter of the size.
func (p *Pack) ShrinkToFit() {
	if cap(p.bytes())-len(p.bytes()) > len(p.bytes())/4 {
		p.setBuf(append([]byte(nil), p.bytes()...))
	}
}

// Clone returns an independent copy with no spare capacity.
func (p *Pack) Clone() *Pack {
	c := &Pack{n: p.n}
	c.setBuf(append([]byte(nil), p.bytes()...))
	return c
}

// Find returns the offset of the first entry equal to val, or -1.
func (p *Pack) Find(val []byte) int {
	for off := 0; off < len(p.bytes()); {
		n, k := binary.Uvarint(p.bytes()[off:])
		start := off + k
		end := start + int(n)
		if int(n) == len(val) && string(p.bytes()[start:end]) == string(val) {
			return off
		}
		off = end + backlenSize(int(n))
	}
	return -1
}
