package rdb

import (
	"encoding/binary"
	"slices"
)

// Intsets in Valkey's serialized layout (intset.c):
//
//	encoding uint32 LE (2, 4 or 8) | length uint32 LE | length sorted
//	distinct integers of encoding bytes each, little endian

// intsetBytes encodes sorted distinct values with the narrowest encoding
// that holds them all, as intsetAdd's upgrades leave it.
func intsetBytes(vals []int64) []byte {
	w := 2
	for _, v := range vals {
		switch {
		case v < -2147483648 || v > 2147483647:
			w = 8
		case (v < -32768 || v > 32767) && w < 4:
			w = 4
		}
	}
	b := make([]byte, 8, 8+w*len(vals))
	binary.LittleEndian.PutUint32(b, uint32(w))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(vals)))
	for _, v := range vals {
		switch w {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(v))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(v))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(v))
		}
	}
	return b
}

// intsetMembers returns the canonical integer values of members, sorted,
// or ok false if one is not a canonical integer.
func intsetMembers(members [][]byte) (vals []int64, ok bool) {
	vals = make([]int64, 0, len(members))
	for _, m := range members {
		v, ok := parseInt(m)
		if !ok {
			return nil, false
		}
		vals = append(vals, v)
	}
	slices.Sort(vals)
	return vals, true
}

// intsetDecode validates an intset (intsetValidateIntegrity with deep
// checks) and returns its members as decimal strings.
func intsetDecode(b []byte) ([][]byte, string) {
	if len(b) < 8 {
		return nil, "intset shorter than its header"
	}
	w := int(binary.LittleEndian.Uint32(b))
	if w != 2 && w != 4 && w != 8 {
		return nil, "intset with an invalid encoding"
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if n == 0 || (len(b)-8)/w != n || (len(b)-8)%w != 0 {
		return nil, "intset length does not match its size"
	}
	out := make([][]byte, 0, n)
	var prev int64
	var ints intText
	for i := range n {
		p := b[8+i*w:]
		var v int64
		switch w {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return nil, "intset not sorted or with duplicates"
		}
		prev = v
		out = append(out, ints.format(v))
	}
	return out, ""
}
