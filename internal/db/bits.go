package db

import (
	"encoding/binary"
	"math/bits"
)

// This file holds the bitmap commands that work bit by bit or on whole
// strings: SETBIT, GETBIT, BITCOUNT, BITPOS and BITOP. BITFIELD lives in
// bitfield.go.
//
// Bit numbering is Valkey's: bit 0 is the most significant bit of byte 0,
// so a bitmap reads left to right as its bytes are written.

const (
	errBitValue = "ERR bit is not an integer or out of range"
	errBitArg   = "ERR The bit argument must be 1 or 0."
	errBitopNot = "ERR BITOP NOT must be called with a single source key."
)

// bitOffsetArg parses a bit offset as Valkey's getBitOffsetFromArgument.
// With hash set and width > 0, "#n" means n*width (BITFIELD). Offsets whose
// byte would lie at or beyond proto-max-bulk-len are refused, so no command
// can grow a string past the limit. It writes the error reply itself.
func (c *Ctx) bitOffsetArg(i int, hash bool, width int) (uint64, bool) {
	p := c.Argv[i]
	useHash := hash && width > 0 && len(p) > 0 && p[0] == '#'
	if useHash {
		p = p[1:]
	}
	n, ok := ParseInt(p)
	if ok && useHash {
		n *= int64(width) // may wrap negative, as in C; refused below
	}
	if !ok || n < 0 || n>>3 >= c.cfg().maxStringLen.Load() {
		c.W.Error(ErrBitOffset)
		return 0, false
	}
	return uint64(n), true
}

// lookupForBitWrite finds or creates the string key at argv[1] and grows
// it with zero bytes so that bit maxbit exists (lookupStringForBitCommand).
// changed reports whether the key was created or lengthened. On a type
// error it replies and returns nil.
func (c *Ctx) lookupForBitWrite(maxbit uint64) (o *Object, changed bool) {
	key := c.Argv[1]
	n := int64(maxbit>>3) + 1
	o = c.LookupWrite(key)
	if o == nil {
		o = c.Create(key, TypeString)
		o.SetStr(newStr(int(n), int(n)))
		o.SetForm(StrRaw)
		return o, true
	}
	if o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return nil, false
	}
	old := len(o.Str())
	o.SetStr(growZero(o.Str(), n))
	o.SetForm(StrRaw)
	return o, len(o.Str()) != old
}

// SETBIT key offset value
func setbitCommand(c *Ctx) {
	off, ok := c.bitOffsetArg(2, false, 0)
	if !ok {
		return
	}
	on, ok := ParseInt(c.Argv[3])
	if !ok || on&^1 != 0 {
		c.W.Error(errBitValue)
		return
	}
	o, changed := c.lookupForBitWrite(off)
	if o == nil {
		return
	}
	byteIdx, shift := off>>3, 7-off&7
	s := o.Str()
	old := int64(s[byteIdx]>>shift) & 1
	// Setting a bit to the value it already has is not a write: no dirty
	// count, no WATCH invalidation (Valkey since Redis 7.0).
	if changed || old != on {
		s[byteIdx] = s[byteIdx]&^(1<<shift) | byte(on)<<shift
		c.Touch(c.Argv[1])
		c.Notify(NotifyString, "setbit", c.Argv[1])
	}
	c.W.Int(old)
}

// GETBIT key offset
func getbitCommand(c *Ctx) {
	off, ok := c.bitOffsetArg(2, false, 0)
	if !ok {
		return
	}
	o := c.LookupRead(c.Argv[1])
	if o == nil {
		c.W.Int(0)
		return
	}
	if o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	var v int64
	if byteIdx := off >> 3; byteIdx < uint64(len(o.Str())) {
		v = int64(o.Str()[byteIdx]>>(7-off&7)) & 1
	}
	c.W.Int(v)
}

// bitRangeArgs is the optional [start [end [BYTE | BIT]]] tail of BITCOUNT
// and BITPOS as given, before it is resolved against a string's length.
type bitRangeArgs struct {
	start, end int64
	hasStart   bool
	endGiven   bool // BITPOS: the caller bounded the range
	isBit      bool
}

// parseBitRange parses the range arguments at argv[first:], writing the
// error reply when they are malformed. Arguments are parsed in Valkey's
// order (start, then unit, then end), so a command that is wrong in two
// ways fails with the same error. Callers look the key up only after the
// arguments parse, as Valkey does since Redis 7.2 (Redis 7.0 looked the key
// up first and answered 0 for a missing key whatever the arguments).
func (c *Ctx) parseBitRange(first int) (r bitRangeArgs, ok bool) {
	argc := len(c.Argv)
	if argc <= first {
		return r, true
	}
	if argc > first+3 {
		c.W.Error(ErrSyntax)
		return r, false
	}
	r.hasStart = true
	if r.start, ok = c.IntArg(first); !ok {
		return r, false
	}
	if argc == first+3 {
		switch u := c.Argv[first+2]; {
		case EqualFold(u, "BIT"):
			r.isBit = true
		case EqualFold(u, "BYTE"):
		default:
			c.W.Error(ErrSyntax)
			return r, false
		}
	}
	if argc >= first+2 {
		if r.end, ok = c.IntArg(first + 1); !ok {
			return r, false
		}
		r.endGiven = true
	}
	return r, true
}

// resolve converts the parsed range to inclusive bit positions within a
// string of n bytes. empty is set when no position is in range.
func (r bitRangeArgs) resolve(n int64) (from, to int64, empty bool) {
	if !r.hasStart {
		return 0, n*8 - 1, n == 0
	}
	start, end := r.start, r.end
	total := n
	if !r.endGiven {
		end = total - 1
	}
	if r.isBit {
		total <<= 3
	}
	if start < 0 {
		start += total
	}
	if end < 0 {
		end += total
	}
	start = max(start, 0)
	end = max(end, 0)
	if end >= total {
		end = total - 1
	}
	if start > end {
		return 0, 0, true
	}
	if r.isBit {
		return start, end, false
	}
	return start * 8, end*8 + 7, false
}

// BITCOUNT key [start [end [BYTE | BIT]]]
//
// Valkey 8 accepts a start without an end (the end is then the last byte);
// Redis 7.0 refused that with a syntax error.
func bitcountCommand(c *Ctx) {
	r, ok := c.parseBitRange(2)
	if !ok {
		return
	}
	o := c.LookupRead(c.Argv[1])
	if o != nil && o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	var s []byte
	if o != nil {
		s = o.Str()
	}
	// Both ends negative and crossed count nothing, before clamping could
	// make them overlap (checked on the byte/bit values as given).
	end := r.end
	if !r.endGiven {
		end = int64(len(s)) - 1
	}
	if o == nil || (r.hasStart && r.start < 0 && end < 0 && r.start > end) {
		c.W.Int(0)
		return
	}
	from, to, empty := r.resolve(int64(len(s)))
	if empty {
		c.W.Int(0)
		return
	}
	c.W.Int(countBits(s, from, to))
}

// countBits counts the set bits at positions from..to (inclusive).
func countBits(s []byte, from, to int64) int64 {
	b0, b1 := from>>3, to>>3
	n := popcount(s[b0 : b1+1])
	// Subtract the bits of the edge bytes that lie outside the range.
	if head := byte(0xff) << (8 - from&7); from&7 != 0 {
		n -= int64(bits.OnesCount8(s[b0] & head))
	}
	if tail := byte(0xff) >> (to&7 + 1); to&7 != 7 {
		n -= int64(bits.OnesCount8(s[b1] & tail))
	}
	return n
}

// popcount counts the set bits of s, 32 bytes per iteration.
func popcount(s []byte) int64 {
	var n int
	for len(s) >= 32 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(s)) +
			bits.OnesCount64(binary.LittleEndian.Uint64(s[8:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(s[16:])) +
			bits.OnesCount64(binary.LittleEndian.Uint64(s[24:]))
		s = s[32:]
	}
	for len(s) >= 8 {
		n += bits.OnesCount64(binary.LittleEndian.Uint64(s))
		s = s[8:]
	}
	for _, b := range s {
		n += bits.OnesCount8(b)
	}
	return int64(n)
}

// BITPOS key bit [start [end [BYTE | BIT]]]
func bitposCommand(c *Ctx) {
	bit, ok := c.IntArg(2)
	if !ok {
		return
	}
	if bit != 0 && bit != 1 {
		c.W.Error(errBitArg)
		return
	}
	r, ok := c.parseBitRange(3)
	if !ok {
		return
	}
	o := c.LookupRead(c.Argv[1])
	if o == nil {
		// A missing key is an endless run of zeros.
		if bit == 1 {
			c.W.Int(-1)
		} else {
			c.W.Int(0)
		}
		return
	}
	if o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	from, to, empty := r.resolve(int64(len(o.Str())))
	if empty {
		c.W.Int(-1)
		return
	}
	pos := findBit(o.Str(), from, to, byte(bit))
	if pos < 0 && bit == 0 && !r.endGiven {
		// Looking for a clear bit without an explicit end: the string is
		// taken as zero-padded on the right, so the answer is the first
		// bit past the range. With an explicit end it is -1.
		pos = to + 1
	}
	c.W.Int(pos)
}

// findBit returns the position of the first bit equal to bit (0 or 1) at
// positions from..to inclusive, or -1. Whole bytes and words that cannot
// hold the bit are skipped at once.
func findBit(s []byte, from, to int64, bit byte) int64 {
	var flip byte // xor mask turning the wanted bit into a 1
	var flip64 uint64
	if bit == 0 {
		flip, flip64 = 0xff, ^uint64(0)
	}
	i := from
	for i <= to {
		if i&7 == 0 {
			if i+63 <= to {
				w := binary.BigEndian.Uint64(s[i>>3:]) ^ flip64
				if w == 0 {
					i += 64
					continue
				}
				return i + int64(bits.LeadingZeros64(w))
			}
			if i+7 <= to {
				b := s[i>>3] ^ flip
				if b == 0 {
					i += 8
					continue
				}
				return i + int64(bits.LeadingZeros8(b))
			}
		}
		if (s[i>>3]>>(7-i&7))&1 == bit {
			return i
		}
		i++
	}
	return -1
}

// Bit operations of BITOP.
const (
	bitopAnd = iota
	bitopOr
	bitopXor
	bitopNot
)

// BITOP AND | OR | XOR | NOT destkey key [key ...]
func bitopCommand(c *Ctx) {
	var op int
	switch name := c.Argv[1]; {
	case EqualFold(name, "AND"):
		op = bitopAnd
	case EqualFold(name, "OR"):
		op = bitopOr
	case EqualFold(name, "XOR"):
		op = bitopXor
	case EqualFold(name, "NOT"):
		op = bitopNot
	default:
		c.W.Error(ErrSyntax)
		return
	}
	if op == bitopNot && len(c.Argv) != 4 {
		c.W.Error(errBitopNot)
		return
	}
	dest := c.Argv[2]
	// Gather the sources first: a non-string source fails the command
	// before anything is written. Missing keys are empty strings.
	var stack [8][]byte
	srcs := stack[:0]
	maxLen := 0
	for _, k := range c.Argv[3:] {
		o := c.LookupRead(k)
		if o == nil {
			srcs = append(srcs, nil)
			continue
		}
		if o.Type != TypeString {
			c.W.Error(ErrWrongType)
			return
		}
		srcs = append(srcs, o.Str())
		maxLen = max(maxLen, len(o.Str()))
	}
	if maxLen == 0 {
		// An empty result deletes the destination.
		c.dropStored(dest)
		c.W.Int(0)
		return
	}
	res := make([]byte, maxLen)
	copy(res, srcs[0]) // the zero tail is the padding of a short source
	switch op {
	case bitopNot:
		notBytes(res)
	case bitopAnd:
		for _, s := range srcs[1:] {
			andBytes(res[:len(s)], s)
			clear(res[len(s):])
		}
	case bitopOr:
		for _, s := range srcs[1:] {
			orBytes(res, s)
		}
	case bitopXor:
		for _, s := range srcs[1:] {
			xorBytes(res, s)
		}
	}
	// The sources were read in full before the destination is replaced,
	// so a destination that is also a source is handled correctly.
	o := c.Create(dest, TypeString)
	o.SetStr(res)
	o.SetForm(StrRaw)
	c.Touch(dest)
	c.Notify(NotifyString, "set", dest)
	c.W.Int(int64(maxLen))
}

// notBytes inverts b in place, a word at a time.
func notBytes(b []byte) {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		binary.LittleEndian.PutUint64(b[i:], ^binary.LittleEndian.Uint64(b[i:]))
	}
	for ; i < len(b); i++ {
		b[i] = ^b[i]
	}
}

// andBytes, orBytes and xorBytes combine src into dst[:len(src)] a word at
// a time; dst must be at least as long as src.
func andBytes(dst, src []byte) {
	n := len(src)
	i := 0
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])&binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < n; i++ {
		dst[i] &= src[i]
	}
}

func orBytes(dst, src []byte) {
	n := len(src)
	i := 0
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])|binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < n; i++ {
		dst[i] |= src[i]
	}
}

func xorBytes(dst, src []byte) {
	n := len(src)
	i := 0
	for ; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(dst[i:])^binary.LittleEndian.Uint64(src[i:]))
	}
	for ; i < n; i++ {
		dst[i] ^= src[i]
	}
}
