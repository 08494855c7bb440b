package db

import (
	"encoding/binary"
	"math"
	"math/bits"
)

// The HyperLogLog representation, byte for byte Valkey 8.0.1's
// (hyperloglog.c), since an HLL is an ordinary string value that GET,
// DUMP and RDB files carry to other servers:
//
//	+------+---+-----+----------+---------------------------+
//	| HYLL | E | N/U | Cardin.  | registers (dense/sparse)  |
//	+------+---+-----+----------+---------------------------+
//
// E is the encoding (0 dense, 1 sparse), N/U three unused bytes (kept as
// found), Cardin. the cached cardinality, little endian, whose last
// byte's MSB set means "stale". Dense: 16384 6-bit registers packed from
// the LSB of each byte on. Sparse: run-length opcodes ZERO (00xxxxxx:
// 1..64 zero registers), XZERO (01xxxxxx yyyyyyyy: 1..16384 zero
// registers) and VAL (1vvvvvxx: 1..4 registers of value 1..32).
//
// Valkey reads one byte past the string at two places (the dense
// register 16383 and an XZERO opcode cut short at the string's end): it
// is the sds's NUL terminator there, so the byte reads as 0 here.

const (
	hllP            = 14
	hllQ            = 64 - hllP
	hllRegisters    = 1 << hllP
	hllPMask        = hllRegisters - 1
	hllBits         = 6
	hllRegisterMax  = 1<<hllBits - 1
	hllHdrSize      = 16
	hllDenseSize    = hllHdrSize + (hllRegisters*hllBits+7)/8
	hllDense        = 0
	hllSparse       = 1
	hllMaxEncoding  = 1
	hllSparseValMax = 32
	hllSparseValLen = 4
	hllZeroMaxLen   = 64
	hllXZeroMaxLen  = 16384
	hllAlphaInf     = 0.721347520444481703680 // 0.5/ln(2)

	// hllSparseMaxBytesDefault is Valkey's hll-sparse-max-bytes default.
	hllSparseMaxBytesDefault = 3000

	errHLLWrongType = "WRONGTYPE Key is not a valid HyperLogLog string value."
	errHLLInvalid   = "INVALIDOBJ Corrupted HLL object detected"
)

// murmurHash64A is Valkey's MurmurHash64A (MurmurHash2, 64-bit, read
// little endian whatever the host).
func murmurHash64A(key []byte, seed uint64) uint64 {
	const m = 0xc6a4a7935bd1e995
	const r = 47
	n := len(key)
	// len is an int in Valkey: len*m wraps as a 64-bit product of it.
	h := seed ^ (uint64(int64(int32(n))) * m)
	i := 0
	for ; i+8 <= n; i += 8 {
		k := binary.LittleEndian.Uint64(key[i:])
		k *= m
		k ^= k >> r
		k *= m
		h ^= k
		h *= m
	}
	tail := key[i:]
	switch len(tail) {
	case 7:
		h ^= uint64(tail[6]) << 48
		fallthrough
	case 6:
		h ^= uint64(tail[5]) << 40
		fallthrough
	case 5:
		h ^= uint64(tail[4]) << 32
		fallthrough
	case 4:
		h ^= uint64(tail[3]) << 24
		fallthrough
	case 3:
		h ^= uint64(tail[2]) << 16
		fallthrough
	case 2:
		h ^= uint64(tail[1]) << 8
		fallthrough
	case 1:
		h ^= uint64(tail[0])
		h *= m
	}
	h ^= h >> r
	h *= m
	h ^= h >> r
	return h
}

// hllPatLen returns the register an element hashes to and the length of
// its hash's 000..1 pattern (1..hllQ+1).
func hllPatLen(ele []byte) (index int, count uint8) {
	hash := murmurHash64A(ele, 0xadc83b19)
	index = int(hash & hllPMask)
	hash >>= hllP
	hash |= 1 << hllQ
	return index, uint8(1 + bits.TrailingZeros64(hash))
}

// hllDenseGet reads register i of the packed registers regs.
func hllDenseGet(regs []byte, i int) uint8 {
	b := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	b0 := uint(regs[b])
	var b1 uint
	if b+1 < len(regs) {
		b1 = uint(regs[b+1])
	}
	return uint8((b0>>fb | b1<<(8-fb)) & hllRegisterMax)
}

// hllDenseMerge raises max's registers to the packed registers regs',
// and hllDenseHisto counts regs's values: the loops of PFMERGE and of
// PFCOUNT over dense values, four registers (three bytes, little-endian
// 6-bit fields) at a time instead of hllDenseGet's per-register offsets.
func hllDenseMerge(max *[hllRegisters]uint8, regs []byte) {
	regs = regs[:hllRegisters*hllBits/8]
	for i, p := 0, 0; i < hllRegisters; i, p = i+4, p+3 {
		w := uint32(regs[p]) | uint32(regs[p+1])<<8 | uint32(regs[p+2])<<16
		m := max[i : i+4 : i+4]
		m[0] = maxU8(m[0], uint8(w&hllRegisterMax))
		m[1] = maxU8(m[1], uint8(w>>6&hllRegisterMax))
		m[2] = maxU8(m[2], uint8(w>>12&hllRegisterMax))
		m[3] = maxU8(m[3], uint8(w>>18))
	}
}

func maxU8(a, b uint8) uint8 {
	if b > a {
		return b
	}
	return a
}

func hllDenseHisto(regs []byte, h *[64]int32) {
	regs = regs[:hllRegisters*hllBits/8]
	for p := 0; p+2 < len(regs); p += 3 {
		w := uint32(regs[p]) | uint32(regs[p+1])<<8 | uint32(regs[p+2])<<16
		h[w&hllRegisterMax]++
		h[w>>6&hllRegisterMax]++
		h[w>>12&hllRegisterMax]++
		h[w>>18&hllRegisterMax]++
	}
}

// hllDenseSetReg writes register i of regs (val <= 63).
func hllDenseSetReg(regs []byte, i int, val uint8) {
	b := i * hllBits / 8
	fb := uint(i * hllBits & 7)
	fb8 := 8 - fb
	v := uint(val)
	regs[b] &^= byte(hllRegisterMax << fb)
	regs[b] |= byte(v << fb)
	if b+1 < len(regs) {
		regs[b+1] &^= byte(hllRegisterMax >> fb8)
		regs[b+1] |= byte(v >> fb8)
	}
}

// hllDenseSet raises register i to count, reporting whether it changed.
func hllDenseSet(regs []byte, i int, count uint8) bool {
	if count > hllDenseGet(regs, i) {
		hllDenseSetReg(regs, i, count)
		return true
	}
	return false
}

// sparse opcode helpers. at reads s[i], or the NUL terminator at len(s).
func at(s []byte, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

func spIsZero(b byte) bool  { return b&0xc0 == 0 }
func spIsXZero(b byte) bool { return b&0xc0 == 0x40 }
func spIsVal(b byte) bool   { return b&0x80 != 0 }
func spZeroLen(b byte) int  { return int(b&0x3f) + 1 }
func spValValue(b byte) int { return int(b>>2&0x1f) + 1 }
func spValLen(b byte) int   { return int(b&3) + 1 }
func spXZeroLen(s []byte, p int) int {
	return (int(s[p]&0x3f)<<8 | int(at(s, p+1))) + 1
}
func spVal(val, n int) byte { return byte((val-1)<<2|(n-1)) | 0x80 }

// hllSpan is the number of registers a one-byte opcode covers (ZERO,
// VAL), 0 for the first byte of an XZERO.
var hllSpan = func() (t [256]uint8) {
	for b := range t {
		switch c := byte(b); {
		case spIsZero(c):
			t[b] = uint8(spZeroLen(c))
		case spIsVal(c):
			t[b] = uint8(spValLen(c))
		}
	}
	return t
}()

func spZero(n int) byte { return byte(n - 1) }
func spXZero(n int) (byte, byte) {
	l := n - 1
	return byte(l>>8) | 0x40, byte(l)
}

// newHLL returns an empty sparse HLL, as Valkey's createHLLObject.
func newHLL() []byte {
	s := make([]byte, hllHdrSize+2, 64)
	copy(s, "HYLL")
	s[4] = hllSparse
	s[hllHdrSize], s[hllHdrSize+1] = spXZero(hllRegisters)
	return s
}

// isHLL is the shape check of Valkey's isHLLObjectOrReply (the type is
// checked by the caller).
func isHLL(s []byte) bool {
	if len(s) < hllHdrSize || s[0] != 'H' || s[1] != 'Y' || s[2] != 'L' || s[3] != 'L' {
		return false
	}
	if s[4] > hllMaxEncoding {
		return false
	}
	return s[4] != hllDense || len(s) == hllDenseSize
}

func hllInvalidateCache(s []byte) { s[15] |= 0x80 }
func hllValidCache(s []byte) bool { return s[15]&0x80 == 0 }

// Valkey 8.0.1 walks sparse opcodes in three places (the conversion to
// dense, the merge into a register array, the histogram) with int
// counters (wrapping at 2^31, as the compiled code does) and checks only
// VAL opcodes for running past register 16384: the walk stops there, and
// the representation is valid if exactly 16384 registers were covered
// by then, whatever follows. Zero runs are not checked: past 16384 they
// make the result invalid. A counter wrapped negative is where Valkey
// writes outside its array; here it is reported as corrupt.

// hllSparseToDense converts a sparse HLL to a new dense one, copying the
// header (magic, unused bytes, cached cardinality). ok is false when the
// opcodes are corrupt.
func hllSparseToDense(s []byte) (dense []byte, ok bool) {
	if s[4] == hllDense {
		return s, true
	}
	dense = make([]byte, hllDenseSize)
	copy(dense, s[:hllHdrSize])
	dense[4] = hllDense
	regs := dense[hllHdrSize:]
	var idx int32
	for p := hllHdrSize; p < len(s); {
		b := s[p]
		switch {
		case spIsZero(b):
			idx += int32(spZeroLen(b))
			p++
		case spIsXZero(b):
			idx += int32(spXZeroLen(s, p))
			p += 2
		default:
			n, v := spValLen(b), spValValue(b)
			if int64(n)+int64(idx) > hllRegisters {
				p = len(s) // overflow: stop
				continue
			}
			if idx < 0 {
				return nil, false
			}
			for ; n > 0; n-- {
				hllDenseSetReg(regs, int(idx), uint8(v))
				idx++
			}
			p++
		}
	}
	if idx != hllRegisters {
		return nil, false
	}
	return dense, true
}

// hllSparseSet raises register index of the sparse HLL s to count, as
// Valkey's hllSparseSet: it returns the (possibly moved, possibly
// promoted to dense) value and 1 when the register changed, 0 when not,
// -1 when the representation is corrupt (s may have been changed in
// place then, as in Valkey).
func hllSparseSet(s []byte, index int, count uint8, maxBytes int) ([]byte, int) {
	if count > hllSparseValMax {
		return hllPromote(s, index, count)
	}
	// Greedy room for the worst split (3 more bytes), as Valkey's
	// sdsResize: only the capacity depends on it, never the bytes.
	if cap(s) < maxBytes && cap(s)-len(s) < 3 {
		n := len(s) + 3
		n += min(n, 300)
		n = max(min(n, maxBytes), len(s)+3)
		ns := make([]byte, len(s), n)
		copy(ns, s)
		s = ns
	}

	// Step 1: find the opcode that covers index.
	end := len(s)
	p, first, prev, span := hllSparseSeek(s, index)
	if span == 0 || p >= end {
		return s, -1
	}
	b := s[p]
	next := p + 1
	if spIsXZero(b) {
		next = p + 2
	}
	if next >= end {
		next = -1
	}
	isZero, isXZero, isVal := spIsZero(b), spIsXZero(b), false
	var runlen int
	switch {
	case isZero:
		runlen = spZeroLen(b)
	case isXZero:
		runlen = spXZeroLen(s, p)
	default:
		isVal = true
		runlen = spValLen(b)
	}

	// Step 2: the trivial cases.
	if isVal {
		if spValValue(b) >= int(count) {
			return s, 0
		}
		if runlen == 1 {
			s[p] = spVal(int(count), 1)
			return hllSparseUpdated(s, prev, end), 1
		}
	}
	if isZero && runlen == 1 {
		s[p] = spVal(int(count), 1)
		return hllSparseUpdated(s, prev, end), 1
	}

	// The general case: split the opcode into up to three.
	var seq [5]byte
	n := 0
	last := first + span - 1
	if isZero || isXZero {
		zeros := func(l int) {
			if l > hllZeroMaxLen {
				seq[n], seq[n+1] = spXZero(l)
				n += 2
			} else {
				seq[n] = spZero(l)
				n++
			}
		}
		if index != first {
			zeros(index - first)
		}
		seq[n] = spVal(int(count), 1)
		n++
		if index != last {
			zeros(last - index)
		}
	} else {
		cur := spValValue(b)
		if index != first {
			seq[n] = spVal(cur, index-first)
			n++
		}
		seq[n] = spVal(int(count), 1)
		n++
		if index != last {
			seq[n] = spVal(cur, last-index)
			n++
		}
	}

	// Step 3: put the new sequence in place of the old opcode.
	oldlen := 1
	if isXZero {
		oldlen = 2
	}
	delta := n - oldlen
	if delta > 0 && len(s)+delta > maxBytes {
		return hllPromote(s, index, count)
	}
	newlen := len(s) + delta
	if delta > 0 {
		s = growZero(s, int64(newlen))
	}
	if delta != 0 && next >= 0 {
		copy(s[next+delta:], s[next:end])
	}
	s = s[:newlen]
	// An XZERO cut short at the end writes its last byte over the
	// terminator in Valkey: it is not part of the string.
	copy(s[p:], seq[:n])
	end += delta
	return hllSparseUpdated(s, prev, end), 1
}

// hllSparseSeek walks the sparse opcodes of s to the one covering
// register index: its offset p (len(s) if none), the first register it
// covers, the offset of the opcode before it (-1 if none) and its span
// (that of the last opcode read if none, 0 if none was read one by one).
//
// The walk is most of a PFADD's time on a sparse HLL of several hundred
// elements (Valkey's goes opcode by opcode), so it sums the spans of 8
// bytes at a time, word after word with no branch on the bytes read (an
// opcode-dependent stride costs a load's latency per step, a branch on
// the opcodes a misprediction every few bytes). All it carries from one
// word to the next is f, whether the word's byte 0 is the second byte of
// an XZERO begun in the last byte of the word before. The word's XZERO
// first bytes are found from those that look like one (01xxxxxx) with
// f (hllXZStarts); then a ZERO or VAL byte counts its span (b&0x3f+1,
// b&3+1), an XZERO's first byte hi*256+1 and its second byte its value,
// so that each word's sum is exact, an XZERO across two words included.
// At the word whose sum passes index, and for the last 7 bytes, the walk
// reads opcodes one at a time (ZERO and VAL spans from a table), from
// the word's first opcode (its byte -1 when f).
func hllSparseSeek(s []byte, index int) (p, first, prev, span int) {
	const (
		ones = 0x0101010101010101
		lo6  = 0x3f3f3f3f3f3f3f3f
	)
	p = hllHdrSize
	// f: byte p is an XZERO's second byte; R: the XZERO first bytes (0xff)
	// of the word before p.
	var f, R uint64
	for ; p+8 <= len(s); p += 8 {
		w := binary.LittleEndian.Uint64(s[p : p+8])
		// Bit 8j of c: byte j is 01xxxxxx; gathered into bit j of c8.
		c := w >> 6 &^ (w >> 7) & ones
		c8 := uint8(c * 0x0102040810204080 >> 56)
		r := hllXZStarts[c8&^uint8(f)] // XZERO first bytes
		S := r<<8 | f*0xff             // second bytes
		isVal := w >> 7 & ones
		one := w&(lo6-isVal*0x3c) + ones // VAL: b&3+1, ZERO: b&0x3f+1, XZERO: hi+1
		a := one ^ (one^w)&S             // second bytes: their value
		a = a&0x00ff00ff00ff00ff + a>>8&0x00ff00ff00ff00ff
		total := int(a*0x0001000100010001>>48) + 255*int(w&r&lo6*ones>>56)
		if index < first+total {
			break
		}
		first += total
		f = r >> 63
		R = r
	}
	// prev: byte p-1 unless it is an XZERO's second byte (then p-2).
	switch {
	case p == hllHdrSize:
		prev = -1
	case f == 0:
		prev = p - 1 - int(R>>48&1)
	default:
		// Back to the XZERO that ends in byte p.
		p--
		first -= int(s[p]&0x3f)<<8 + 1
		prev = p - 1 - int(R>>40&1)
	}
	for p < len(s) {
		b := s[p]
		span = int(hllSpan[b])
		oplen := 1
		if span == 0 {
			span = spXZeroLen(s, p)
			oplen = 2
		}
		if index <= first+span-1 {
			return p, first, prev, span
		}
		prev = p
		p += oplen
		first += span
	}
	return p, first, prev, span
}

// hllXZStarts[c] marks with 0xff the bytes j of an 8-byte run of sparse
// opcodes, the first starting one, that start an XZERO, given the set
// bits j of c of the bytes that look like one (01xxxxxx): the first such
// byte does, the byte after it is its second whatever its value, and so
// on.
var hllXZStarts = func() (t [256]uint64) {
	for c := range t {
		for j := 0; j < 8; j++ {
			if c>>j&1 == 1 {
				t[c] |= 0xff << (8 * j)
				j++
			}
		}
	}
	return t
}()

// hllSparseUpdated is step 4 of Valkey's hllSparseSet: merge adjacent
// VAL opcodes of the same value around the change, scanning up to five
// opcodes from prev, then invalidate the cached cardinality.
func hllSparseUpdated(s []byte, prev, end int) []byte {
	p := prev
	if p < 0 {
		p = hllHdrSize
	}
	for scan := 5; p < end; {
		if scan == 0 {
			break
		}
		scan--
		b := s[p]
		if spIsXZero(b) {
			p += 2
			continue
		}
		if spIsZero(b) {
			p++
			continue
		}
		if p+1 < end && spIsVal(s[p+1]) {
			v1, v2 := spValValue(b), spValValue(s[p+1])
			if v1 == v2 {
				if l := spValLen(b) + spValLen(s[p+1]); l <= hllSparseValLen {
					s[p+1] = spVal(v1, l)
					copy(s[p:], s[p+1:end])
					end--
					s = s[:end]
					continue
				}
			}
		}
		p++
	}
	hllInvalidateCache(s)
	return s
}

// hllPromote converts s to dense and sets the register there.
func hllPromote(s []byte, index int, count uint8) ([]byte, int) {
	d, ok := hllSparseToDense(s)
	if !ok {
		return s, -1
	}
	hllDenseSet(d[hllHdrSize:], index, count)
	return d, 1
}

// hllAdd adds one element to the HLL s (valid header), returning the
// new value and 1 (changed), 0 or -1 (corrupt).
func hllAdd(s []byte, ele []byte, maxBytes int) ([]byte, int) {
	index, count := hllPatLen(ele)
	switch s[4] {
	case hllDense:
		if hllDenseSet(s[hllHdrSize:], index, count) {
			return s, 1
		}
		return s, 0
	case hllSparse:
		return hllSparseSet(s, index, count, maxBytes)
	}
	return s, -1
}

// hllMerge raises max[i] to the HLL's register i for every register. It
// reports false when a sparse HLL is corrupt.
func hllMerge(max *[hllRegisters]uint8, s []byte) bool {
	if s[4] == hllDense {
		hllDenseMerge(max, s[hllHdrSize:])
		return true
	}
	var i int32
	for p := hllHdrSize; p < len(s); {
		b := s[p]
		switch {
		case spIsZero(b):
			i += int32(spZeroLen(b))
			p++
		case spIsXZero(b):
			i += int32(spXZeroLen(s, p))
			p += 2
		default:
			n, v := spValLen(b), uint8(spValValue(b))
			if int64(n)+int64(i) > hllRegisters {
				p = len(s) // overflow: stop
				continue
			}
			if i < 0 {
				return false
			}
			for ; n > 0; n-- {
				if v > max[i] {
					max[i] = v
				}
				i++
			}
			p++
		}
	}
	return i == hllRegisters
}

// hllHistoSparse is Valkey 8.0.1's hllSparseRegHisto: it counts every
// opcode, unchecked (int counters), and reports invalid when they do not
// add up to 16384 registers.
func hllHistoSparse(s []byte, h *[64]int32) (invalid bool) {
	var idx int32
	for p := hllHdrSize; p < len(s); {
		b := s[p]
		switch {
		case spIsZero(b):
			n := int32(spZeroLen(b))
			idx += n
			h[0] += n
			p++
		case spIsXZero(b):
			n := int32(spXZeroLen(s, p))
			idx += n
			h[0] += n
			p += 2
		default:
			n, v := int32(spValLen(b)), spValValue(b)
			idx += n
			h[v] += n
			p++
		}
	}
	return idx != hllRegisters
}

// hllCountValue is Valkey's hllCount for a stored HLL (dense or sparse).
func hllCountValue(s []byte) (card uint64, invalid bool) {
	var h [64]int32
	if s[4] == hllDense {
		hllDenseHisto(s[hllHdrSize:], &h)
	} else {
		invalid = hllHistoSparse(s, &h)
	}
	return hllEstimate(&h), invalid
}

// hllCountRaw is hllCount of one-byte-per-register registers (the union
// PFCOUNT builds).
func hllCountRaw(max *[hllRegisters]uint8) uint64 {
	var h [64]int32
	for _, v := range max {
		h[v&63]++
	}
	return hllEstimate(&h)
}

// hllSigma and hllTau are the helpers of Ertl's improved estimator
// ("New cardinality estimation algorithms for HyperLogLog sketches",
// arXiv:1702.01284), computed as Valkey computes them. The explicit
// float64 conversions keep the compiler from fusing multiply-adds, which
// Valkey's build does not do either.
func hllSigma(x float64) float64 {
	if x == 1 {
		return math.Inf(1)
	}
	y, z := 1.0, x
	for {
		x = float64(x * x)
		zPrime := z
		z += float64(x * y)
		y += y
		if zPrime == z {
			return z
		}
	}
}

func hllTau(x float64) float64 {
	if x == 0 || x == 1 {
		return 0
	}
	y, z := 1.0, 1-x
	for {
		x = math.Sqrt(x)
		zPrime := z
		y *= 0.5
		t := 1 - x
		z -= float64(float64(t*t) * y)
		if zPrime == z {
			return z / 3
		}
	}
}

// hllEstimate turns a register histogram into Valkey's estimate,
// including what x86-64 makes of an estimate llroundl cannot represent
// (a value past 2^63, or an infinity when every register is past 51):
// the "integer indefinite" 0x8000000000000000.
func hllEstimate(h *[64]int32) uint64 {
	m := float64(hllRegisters)
	z := float64(m * hllTau(float64(m-float64(h[hllQ+1]))/m))
	for j := hllQ; j >= 1; j-- {
		z += float64(h[j])
		z *= 0.5
	}
	z += float64(m * hllSigma(float64(h[0])/m))
	alpha := float64(hllAlphaInf)
	e := float64(float64(alpha*m)*m) / z
	r := math.Round(e) // llroundl: half away from zero
	var ll int64
	if math.IsNaN(r) || r >= 1<<63 || r < -(1<<63) {
		ll = math.MinInt64
	} else {
		ll = int64(r)
	}
	// E is a double holding llroundl's result; (uint64_t)E as gcc does it.
	f := float64(ll)
	switch {
	case f >= 1<<63:
		return uint64(int64(f-(1<<63))) ^ 1<<63
	case f < 0:
		return uint64(int64(f))
	}
	return uint64(f)
}

// hllCachedCard reads the header's cached cardinality.
func hllCachedCard(s []byte) uint64 { return binary.LittleEndian.Uint64(s[8:16]) }

// hllSetCachedCard stores card as the cached cardinality.
func hllSetCachedCard(s []byte, card uint64) { binary.LittleEndian.PutUint64(s[8:16], card) }
