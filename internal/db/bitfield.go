package db

import "encoding/binary"

// BITFIELD treats a string as an array of integers of any width from 1 to
// 64 bits at any bit offset. Values are big-endian within the bitmap (the
// first bit of the field is its most significant), matching SETBIT's bit
// numbering.

const (
	errBitfieldType = "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is."
	errOverflowType = "ERR Invalid OVERFLOW type specified"
	errBitfieldRO   = "ERR BITFIELD_RO only supports the GET subcommand"
)

// Overflow behaviours of BITFIELD SET and INCRBY.
const (
	overflowWrap = iota
	overflowSat
	overflowFail
)

// BITFIELD operations.
const (
	bfGet = iota
	bfSet
	bfIncrBy
)

// bfOp is one parsed BITFIELD operation. All operations are parsed (and
// all argument errors reported) before any is executed.
type bfOp struct {
	offset   uint64
	value    int64 // SET value or INCRBY increment
	op       uint8
	overflow uint8
	width    uint8
	signed   bool
}

// BITFIELD key [GET encoding offset | [OVERFLOW WRAP | SAT | FAIL]
// SET encoding offset value | INCRBY encoding offset increment ...]
func bitfieldCommand(c *Ctx) { c.bitfield(false) }

// BITFIELD_RO key [GET encoding offset [GET encoding offset ...]]
func bitfieldROCommand(c *Ctx) { c.bitfield(true) }

func (c *Ctx) bitfield(readOnlyCmd bool) {
	var stack [8]bfOp
	ops := stack[:0]
	overflow := uint8(overflowWrap)
	readOnly := true
	var highest uint64 // last bit any SET/INCRBY touches
	argv := c.Argv
	for j := 2; j < len(argv); j++ {
		rem := len(argv) - j - 1
		sub := argv[j]
		var op uint8
		switch {
		case EqualFold(sub, "GET") && rem >= 2:
			op = bfGet
		case EqualFold(sub, "SET") && rem >= 3:
			op = bfSet
		case EqualFold(sub, "INCRBY") && rem >= 3:
			op = bfIncrBy
		case EqualFold(sub, "OVERFLOW") && rem >= 1:
			j++
			switch t := argv[j]; {
			case EqualFold(t, "WRAP"):
				overflow = overflowWrap
			case EqualFold(t, "SAT"):
				overflow = overflowSat
			case EqualFold(t, "FAIL"):
				overflow = overflowFail
			default:
				c.W.Error(errOverflowType)
				return
			}
			continue
		default:
			c.W.Error(ErrSyntax)
			return
		}
		signed, width, ok := parseBitfieldType(argv[j+1])
		if !ok {
			c.W.Error(errBitfieldType)
			return
		}
		off, ok := c.bitOffsetArg(j+2, true, width)
		if !ok {
			return
		}
		var val int64
		if op != bfGet {
			readOnly = false
			highest = max(highest, off+uint64(width)-1)
			if val, ok = c.IntArg(j + 3); !ok {
				return
			}
		}
		ops = append(ops, bfOp{offset: off, value: val, op: op, overflow: overflow, width: uint8(width), signed: signed})
		if op == bfGet {
			j += 2
		} else {
			j += 3
		}
	}

	var o *Object
	var grown bool
	if readOnly {
		o = c.LookupRead(argv[1])
		if o != nil && o.Type != TypeString {
			c.W.Error(ErrWrongType)
			return
		}
	} else {
		// Refused only now, so argument errors still come first.
		if readOnlyCmd {
			c.W.Error(errBitfieldRO)
			return
		}
		if o, grown = c.lookupForBitWrite(highest); o == nil {
			return
		}
	}

	c.W.ArrayLen(len(ops))
	changes := 0
	for i := range ops {
		p := &ops[i]
		width := uint(p.width)
		if p.op == bfGet {
			var s []byte
			if o != nil {
				s = o.Str()
			}
			u := getField(s, p.offset, width)
			if p.signed {
				c.W.Int(signExtend(u, width))
			} else {
				c.W.Int(int64(u))
			}
			continue
		}
		var oldU, newU uint64
		var reply int64
		var of int
		if p.signed {
			oldv := signExtend(getField(o.Str(), p.offset, width), width)
			var newv, limit int64
			if p.op == bfIncrBy {
				limit, of = signedOverflow(oldv, p.value, width, p.overflow)
				newv = oldv + p.value
				if of != 0 {
					newv = limit
				}
				reply = newv
			} else {
				newv = p.value
				if limit, of = signedOverflow(newv, 0, width, p.overflow); of != 0 {
					newv = limit
				}
				reply = oldv
			}
			oldU, newU = uint64(oldv), uint64(newv)
		} else {
			oldU = getField(o.Str(), p.offset, width)
			var limit uint64
			if p.op == bfIncrBy {
				limit, of = unsignedOverflow(oldU, p.value, width, p.overflow)
				newU = oldU + uint64(p.value)
				if of != 0 {
					newU = limit
				}
				reply = int64(newU)
			} else {
				newU = uint64(p.value)
				if limit, of = unsignedOverflow(newU, 0, width, p.overflow); of != 0 {
					newU = limit
				}
				reply = int64(oldU)
			}
		}
		if of != 0 && p.overflow == overflowFail {
			c.W.Null() // not written
			continue
		}
		c.W.Int(reply)
		setField(o.Str(), p.offset, width, newU)
		if grown || oldU != newU {
			changes++
		}
	}
	// As SETBIT, writes that change nothing are not counted as writes.
	if changes > 0 {
		c.touchN(argv[1], changes)
		c.Notify(NotifyString, "setbit", argv[1])
	}
}

// parseBitfieldType parses "i<bits>" (1..64) or "u<bits>" (1..63). The
// sign letter is case-sensitive, as in Valkey.
func parseBitfieldType(b []byte) (signed bool, width int, ok bool) {
	if len(b) == 0 || (b[0] != 'i' && b[0] != 'u') {
		return false, 0, false
	}
	signed = b[0] == 'i'
	n, ok := ParseInt(b[1:])
	limit := int64(63)
	if signed {
		limit = 64
	}
	if !ok || n < 1 || n > limit {
		return false, 0, false
	}
	return signed, int(n), true
}

// getField reads the width-bit unsigned integer at bit offset off. Bytes
// past the end of s read as zero, so GET works beyond a string's end.
func getField(s []byte, off uint64, width uint) uint64 {
	var buf [9]byte // a 64-bit field spans at most 9 bytes
	if b := off >> 3; b < uint64(len(s)) {
		copy(buf[:], s[b:])
	}
	sh := off & 7
	v := binary.BigEndian.Uint64(buf[:8])<<sh | uint64(buf[8])>>(8-sh)
	return v >> (64 - width)
}

// setField writes the low width bits of v at bit offset off. s must
// already hold every byte the field touches.
func setField(s []byte, off uint64, width uint, v uint64) {
	var buf [9]byte
	b := off >> 3
	n := copy(buf[:], s[b:])
	sh := off & 7
	mask := ^uint64(0) << (64 - width) // the field, top-aligned
	val := v << (64 - width)
	hi := binary.BigEndian.Uint64(buf[:8])
	hi = hi&^(mask>>sh) | val>>sh
	lo := buf[8]&^byte(mask<<(8-sh)) | byte(val<<(8-sh))
	binary.BigEndian.PutUint64(buf[:8], hi)
	buf[8] = lo
	copy(s[b:], buf[:n])
}

// signExtend interprets the low width bits of u as a two's complement
// integer.
func signExtend(u uint64, width uint) int64 {
	sh := 64 - width
	return int64(u<<sh) >> sh
}

// unsignedOverflow reports whether value+incr leaves the range of a
// width-bit unsigned integer: 1 above it, -1 below, 0 inside. On overflow
// limit is the value to store: the wrapped sum (WRAP) or the bound that was
// crossed (SAT). SET checks its value with incr 0, so a negative value,
// seen as a huge unsigned number, overflows upwards.
func unsignedOverflow(value uint64, incr int64, width uint, mode uint8) (limit uint64, of int) {
	maxv := ^uint64(0) >> (64 - width)
	maxIncr := int64(maxv - value)
	minIncr := -int64(value)
	switch {
	case value > maxv || (incr > 0 && incr > maxIncr):
		of, limit = 1, maxv
	case incr < 0 && incr < minIncr:
		of, limit = -1, 0
	default:
		return 0, 0
	}
	if mode == overflowWrap {
		limit = (value + uint64(incr)) & maxv
	}
	return limit, of
}

// signedOverflow is unsignedOverflow for width-bit two's complement
// integers. WRAP wraps towards the most negative value.
func signedOverflow(value, incr int64, width uint, mode uint8) (limit int64, of int) {
	maxv := int64(^uint64(0) >> (65 - width))
	minv := -maxv - 1
	// These may wrap; they are used only where value is in range, and
	// then they do not.
	maxIncr := int64(uint64(maxv) - uint64(value))
	minIncr := minv - value
	switch {
	case value > maxv || (width != 64 && incr > maxIncr) || (value >= 0 && incr > 0 && incr > maxIncr):
		of, limit = 1, maxv
	case value < minv || (width != 64 && incr < minIncr) || (value < 0 && incr < 0 && incr < minIncr):
		of, limit = -1, minv
	default:
		return 0, 0
	}
	if mode == overflowWrap {
		limit = signExtend(uint64(value)+uint64(incr), width)
	}
	return limit, of
}
