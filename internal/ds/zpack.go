package ds

import (
	"encoding/binary"
	"math"
)

// ZPack is a small sorted set in one buffer, Valkey's listpack encoding of
// a zset: (score, member) pairs kept in ascending (score, member) order, so
// ranges and ranks are walks from either end and lookups by member are
// linear scans. Each Pack entry is the score's 8 bytes followed by the
// member. Scores must not be NaN. The zero value is empty.
type ZPack struct {
	p Pack
}

const zpScore = 8 // bytes of the score prefix

// Len returns the number of members.
func (z *ZPack) Len() int { return z.p.Len() }

// Bytes returns the encoded size (for the listpack size limit).
func (z *ZPack) Bytes() int { return z.p.Bytes() }

// MemUsage estimates the heap bytes of the ZPack's buffer (the struct,
// a Pack, is its holder's).
func (z *ZPack) MemUsage() int { return z.p.MemUsage() }

// Clone returns an independent copy.
func (z *ZPack) Clone() *ZPack { return &ZPack{p: *z.p.Clone()} }

// At returns the member and score of the entry at off and the next offset.
// The member aliases the ZPack until its next mutation.
func (z *ZPack) At(off int) (member []byte, score float64, next int) {
	v, next := z.p.Entry(off)
	return v[zpScore:], math.Float64frombits(binary.LittleEndian.Uint64(v)), next
}

// First returns the offset of the lowest entry, or -1.
func (z *ZPack) First() int {
	if z.p.End() == 0 {
		return -1
	}
	return 0
}

// Last returns the offset of the highest entry, or -1.
func (z *ZPack) Last() int { return z.p.Last() }

// Next returns the offset after off, or -1 at the end.
func (z *ZPack) Next(off int) int {
	n := z.p.Next(off)
	if n >= z.p.End() {
		return -1
	}
	return n
}

// Prev returns the offset before off, or -1 at the start.
func (z *ZPack) Prev(off int) int { return z.p.Prev(off) }

// Seek returns the offset of the entry of 0-based rank i (negative counts
// from the highest), or -1.
func (z *ZPack) Seek(i int) int { return z.p.Seek(i) }

// Find returns the offset and score of member, or -1.
func (z *ZPack) Find(member []byte) (int, float64) {
	buf := z.p.bytes()
	for off := 0; off < z.p.End(); {
		n, k := binary.Uvarint(buf[off:])
		start := off + k
		end := start + int(n)
		if int(n)-zpScore == len(member) && string(buf[start+zpScore:end]) == string(member) {
			return off, math.Float64frombits(binary.LittleEndian.Uint64(buf[start:]))
		}
		off = end + backlenSize(int(n))
	}
	return -1, 0
}

// Insert adds member, which must not be present, at its sorted place.
func (z *ZPack) Insert(member []byte, score float64) {
	off := 0
	for off < z.p.End() {
		m, s, next := z.At(off)
		if s > score || (s == score && string(m) > string(member)) {
			break
		}
		off = next
	}
	var sb [zpScore]byte
	binary.LittleEndian.PutUint64(sb[:], math.Float64bits(score))
	z.p.InsertParts(off, sb[:], member)
}

// ZPackEntrySize is the bytes a member of n bytes takes in a ZPack, for
// Reserve.
func ZPackEntrySize(n int) int { return PackEntrySize(zpScore + n) }

// Reserve makes room for size more bytes of entries (ZPackEntrySize
// each): Pack.Reserve.
func (z *ZPack) Reserve(size int) { z.p.Reserve(size) }

// Delete removes the entry at off.
func (z *ZPack) Delete(off int) { z.p.Delete(off) }

// DeleteRange removes count entries starting at off.
func (z *ZPack) DeleteRange(off, count int) { z.p.DeleteRange(off, count) }

// ShrinkToFit drops excess capacity.
func (z *ZPack) ShrinkToFit() { z.p.ShrinkToFit() }

// Rank returns the 0-based ascending rank and score of member.
func (z *ZPack) Rank(member []byte) (rank int, score float64, ok bool) {
	for off := z.First(); off >= 0; off = z.Next(off) {
		m, s, _ := z.At(off)
		if string(m) == string(member) {
			return rank, s, true
		}
		rank++
	}
	return 0, 0, false
}

// Append adds (member, score) after every entry; the caller guarantees it
// sorts last (converting from an ordered source).
func (z *ZPack) Append(member []byte, score float64) {
	var sb [zpScore]byte
	binary.LittleEndian.PutUint64(sb[:], math.Float64bits(score))
	z.p.InsertParts(z.p.End(), sb[:], member)
}
