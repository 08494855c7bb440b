package ds

import (
	"encoding/binary"
	"errors"
	"iter"
	"math"
)

// ErrCorruptIntSet is returned by IntSetFromBlob for a malformed blob.
var ErrCorruptIntSet = errors.New("ds: corrupt intset")

// IntSet is a sorted set of distinct int64 stored as Valkey's intset: every
// element with the same width (2, 4 or 8 bytes, little-endian) in one byte
// slice, widened for all elements when a value needs more bytes ("upgrade")
// and never narrowed again. Lookups are binary searches; Add and Remove move
// the tail, so they are O(n). It suits the small integer sets Valkey keeps in
// this encoding (set-max-intset-entries). The zero value is an empty set.
type IntSet struct {
	width int    // bytes per element: 2, 4 or 8 (0 in the zero value: 2)
	data  []byte // len(data) == width*Len()
}

// NewIntSet returns an empty set of 2-byte width.
func NewIntSet() *IntSet { return &IntSet{width: 2} }

// widthOf is the smallest encoding that holds v.
func widthOf(v int64) int {
	switch {
	case v < math.MinInt32 || v > math.MaxInt32:
		return 8
	case v < math.MinInt16 || v > math.MaxInt16:
		return 4
	}
	return 2
}

// Len returns the number of elements.
func (s *IntSet) Len() int {
	if s.width == 0 {
		return 0
	}
	return len(s.data) / s.width
}

// Width returns the bytes per element (the encoding): 2, 4 or 8.
func (s *IntSet) Width() int { return max(s.width, 2) }

// Get returns the i-th smallest element, 0 <= i < Len().
func (s *IntSet) Get(i int) int64 { return getAt(s.data, s.width, i) }

func getAt(data []byte, width, i int) int64 {
	switch width {
	case 2:
		return int64(int16(binary.LittleEndian.Uint16(data[2*i:])))
	case 4:
		return int64(int32(binary.LittleEndian.Uint32(data[4*i:])))
	}
	return int64(binary.LittleEndian.Uint64(data[8*i:]))
}

func setAt(data []byte, width, i int, v int64) {
	switch width {
	case 2:
		binary.LittleEndian.PutUint16(data[2*i:], uint16(v))
	case 4:
		binary.LittleEndian.PutUint32(data[4*i:], uint32(v))
	default:
		binary.LittleEndian.PutUint64(data[8*i:], uint64(v))
	}
}

// search returns the position of v, or where it would be inserted.
func (s *IntSet) search(v int64) (int, bool) {
	lo, hi := 0, s.Len()
	// The ends are checked first: sets built in order append at the end.
	if hi == 0 {
		return 0, false
	}
	if v > s.Get(hi-1) {
		return hi, false
	}
	if v < s.Get(0) {
		return 0, false
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		switch x := s.Get(mid); {
		case x == v:
			return mid, true
		case x < v:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return lo, false
}

// Contains reports whether v is in the set.
func (s *IntSet) Contains(v int64) bool {
	if widthOf(v) > s.width {
		return false
	}
	_, ok := s.search(v)
	return ok
}

// Add inserts v and reports whether it was absent.
func (s *IntSet) Add(v int64) bool {
	if s.width == 0 {
		s.width = 2
	}
	if w := widthOf(v); w > s.width {
		s.upgradeAndAdd(v, w)
		return true
	}
	i, ok := s.search(v)
	if ok {
		return false
	}
	n := s.Len()
	s.data = append(s.data, make([]byte, s.width)...)
	copy(s.data[(i+1)*s.width:], s.data[i*s.width:n*s.width])
	setAt(s.data, s.width, i, v)
	return true
}

// upgradeAndAdd widens every element to w bytes and adds v, which does not
// fit the old width and so is either below or above every element.
func (s *IntSet) upgradeAndAdd(v int64, w int) {
	n := s.Len()
	data := make([]byte, (n+1)*w, (n+1)*w+(n+1)*w/4)
	prepend := 0
	if v < 0 {
		prepend = 1
	}
	for i := range n {
		setAt(data, w, i+prepend, s.Get(i))
	}
	if prepend == 1 {
		setAt(data, w, 0, v)
	} else {
		setAt(data, w, n, v)
	}
	s.width, s.data = w, data
}

// Remove deletes v and reports whether it was present. The width is kept.
func (s *IntSet) Remove(v int64) bool {
	if widthOf(v) > s.width {
		return false
	}
	i, ok := s.search(v)
	if !ok {
		return false
	}
	copy(s.data[i*s.width:], s.data[(i+1)*s.width:])
	s.data = s.data[:len(s.data)-s.width]
	return true
}

// Random returns a uniformly chosen element; ok is false if the set is
// empty. r may be nil for the global generator.
func (s *IntSet) Random(r Source) (v int64, ok bool) {
	n := s.Len()
	if n == 0 {
		return 0, false
	}
	return s.Get(int(rnd(r) % uint64(n))), true
}

// Min returns the smallest element; the set must not be empty.
func (s *IntSet) Min() int64 { return s.Get(0) }

// Max returns the largest element; the set must not be empty.
func (s *IntSet) Max() int64 { return s.Get(s.Len() - 1) }

// All iterates the elements in ascending order. The set must not be
// modified during the iteration.
func (s *IntSet) All() iter.Seq[int64] {
	return func(yield func(int64) bool) {
		for i := range s.Len() {
			if !yield(s.Get(i)) {
				return
			}
		}
	}
}

// MemUsage estimates the heap bytes of the set.
func (s *IntSet) MemUsage() int { return 32 + cap(s.data) }

// intsetHeader is the blob header: encoding and length, both uint32 LE.
const intsetHeader = 8

// AppendBlob appends the set in Valkey's intset layout (uint32 width,
// uint32 count, elements little-endian), as stored in RDB files.
func (s *IntSet) AppendBlob(dst []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(s.Width()))
	dst = binary.LittleEndian.AppendUint32(dst, uint32(s.Len()))
	return append(dst, s.data...)
}

// IntSetFromBlob parses Valkey's intset layout, checking it as Valkey's
// deep integrity check does: a valid width, a length that matches the blob,
// and strictly ascending elements. Empty sets are rejected (Valkey never
// stores one). b is copied.
func IntSetFromBlob(b []byte) (*IntSet, error) {
	if len(b) < intsetHeader {
		return nil, ErrCorruptIntSet
	}
	w := int(binary.LittleEndian.Uint32(b))
	if w != 2 && w != 4 && w != 8 {
		return nil, ErrCorruptIntSet
	}
	n := uint64(binary.LittleEndian.Uint32(b[4:]))
	if n == 0 || n*uint64(w) != uint64(len(b)-intsetHeader) {
		return nil, ErrCorruptIntSet
	}
	data := append([]byte(nil), b[intsetHeader:]...)
	for i := 1; i < int(n); i++ {
		if getAt(data, w, i-1) >= getAt(data, w, i) {
			return nil, ErrCorruptIntSet
		}
	}
	return &IntSet{width: w, data: data}, nil
}
