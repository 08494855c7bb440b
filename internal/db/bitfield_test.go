package db

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

func rInts(ns ...int64) string {
	items := make([]string, len(ns))
	for i, n := range ns {
		items[i] = rInt(n)
	}
	return rArr(items...)
}

func TestBitfieldBasics(t *testing.T) {
	h := newKeyHarness(t)
	h.run([]step{
		st(rInts(0), "BITFIELD", "bf", "SET", "i8", "0", "100"),
		st(rInts(100), "BITFIELD", "bf", "GET", "i8", "0"),
		// Default overflow is WRAP: 100+100 = 200 wraps to -56.
		st(rInts(-56), "BITFIELD", "bf", "INCRBY", "i8", "0", "100"),
		st(rInts(-128), "BITFIELD", "bf", "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-100"),
		st(rArr(rNull), "BITFIELD", "bf", "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "-1"),
		st(rInts(-128), "BITFIELD", "bf", "GET", "i8", "0"),
		st(rInts(8), "BITFIELD", "bf", "GET", "u4", "0"),
		// Several operations, OVERFLOW applying to those after it.
		st(rInts(1, 0), "BITFIELD", "mk", "INCRBY", "i5", "100", "1", "GET", "u4", "0"),
		st(rInts(1, 1), "BITFIELD", "ov", "incrby", "u2", "100", "1", "OVERFLOW", "SAT", "incrby", "u2", "102", "1"),
		st(rInts(2, 2), "BITFIELD", "ov", "incrby", "u2", "100", "1", "OVERFLOW", "SAT", "incrby", "u2", "102", "1"),
		st(rInts(3, 3), "BITFIELD", "ov", "incrby", "u2", "100", "1", "OVERFLOW", "SAT", "incrby", "u2", "102", "1"),
		st(rInts(0, 3), "BITFIELD", "ov", "incrby", "u2", "100", "1", "OVERFLOW", "SAT", "incrby", "u2", "102", "1"),
		// The example from Valkey's source: u5 = 23 at offset 7.
		st(rInts(0), "BITFIELD", "ex", "SET", "u5", "7", "23"),
		st(rBulk("\x01\x70"), "GET", "ex"),
		st(rInts(23, 0, 0), "BITFIELD", "ex", "GET", "u5", "7", "GET", "u8", "100", "GET", "i64", "1000"),
		// # offsets are multiplied by the type's width.
		st(rInts(0), "BITFIELD", "h", "SET", "u8", "#1", "255"),
		st(rInts(255, 255, -1), "BITFIELD", "h", "GET", "u8", "8", "GET", "u16", "#0", "GET", "i8", "#1"),
		st(rInt(2), "STRLEN", "h"),
		st(rArr(), "BITFIELD", "h"),
		st(rArr(), "BITFIELD", "nokey"),
		st(rInt(0), "EXISTS", "nokey"),
		st(rInts(0), "BITFIELD", "nokey", "GET", "u8", "0"),
		st(rInt(0), "EXISTS", "nokey"),
		// GET on an integer-looking string reads its digits.
		st(rOK, "SET", "num", "1"),
		st(rInts(0x31), "BITFIELD", "num", "GET", "u8", "0"),
	})
}

func TestBitfieldWidths(t *testing.T) {
	h := newKeyHarness(t)
	maxI := strconv.FormatInt(math.MaxInt64, 10)
	minI := strconv.FormatInt(math.MinInt64, 10)
	h.run([]step{
		st(rInts(0), "BITFIELD", "w", "SET", "u63", "0", maxI),
		st(rInts(math.MaxInt64), "BITFIELD", "w", "GET", "u63", "0"),
		st(rInts(0), "BITFIELD", "w", "INCRBY", "u63", "0", "1"),
		st(rInts(0), "BITFIELD", "w", "SET", "i64", "0", "-1"),
		st(rInts(-1, math.MaxInt64), "BITFIELD", "w", "GET", "i64", "0", "GET", "u63", "0"),
		st(rInts(0), "BITFIELD", "w", "INCRBY", "i64", "0", "1"),
		st(rInts(math.MaxInt64), "BITFIELD", "w", "INCRBY", "i64", "0", maxI),
		st(rInts(math.MinInt64), "BITFIELD", "w", "INCRBY", "i64", "0", "1"),
		st(rInts(math.MinInt64), "BITFIELD", "w", "OVERFLOW", "SAT", "INCRBY", "i64", "0", "-1"),
		st(rArr(rNull), "BITFIELD", "w", "OVERFLOW", "FAIL", "INCRBY", "i64", "0", "-1"),
		st(rInts(math.MinInt64), "BITFIELD", "w", "OVERFLOW", "SAT", "INCRBY", "i64", "0", minI),
		st(rInts(math.MinInt64), "BITFIELD", "w", "OVERFLOW", "SAT", "SET", "i64", "0", maxI),
		st(rInts(math.MaxInt64), "BITFIELD", "w", "OVERFLOW", "SAT", "INCRBY", "i64", "0", "1"),
		// SET out of range: WRAP, SAT and FAIL.
		st(rInts(0), "BITFIELD", "s", "SET", "i8", "0", "200"),
		st(rInts(-56), "BITFIELD", "s", "GET", "i8", "0"),
		st(rInts(-56), "BITFIELD", "s", "OVERFLOW", "SAT", "SET", "i8", "0", "200"),
		st(rInts(127), "BITFIELD", "s", "OVERFLOW", "SAT", "SET", "i8", "0", "-200"),
		st(rInts(-128), "BITFIELD", "s", "GET", "i8", "0"),
		st(rArr(rNull), "BITFIELD", "s", "OVERFLOW", "FAIL", "SET", "i8", "0", "128"),
		// A negative value for an unsigned type counts as too large.
		st(rInts(128), "BITFIELD", "s", "SET", "u8", "0", "-1"),
		st(rInts(255), "BITFIELD", "s", "OVERFLOW", "SAT", "SET", "u8", "0", "-1"),
		st(rArr(rNull), "BITFIELD", "s", "OVERFLOW", "FAIL", "SET", "u8", "0", "-1"),
		st(rInts(255), "BITFIELD", "s", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "1"),
		st(rInts(0), "BITFIELD", "s", "OVERFLOW", "SAT", "INCRBY", "u8", "0", "-300"),
		st(rInts(44), "BITFIELD", "s", "INCRBY", "u8", "0", "300"),
		st(rInts(0, -1), "BITFIELD", "one", "SET", "i1", "0", "1", "GET", "i1", "0"),
		st(rInts(-1), "BITFIELD", "one", "OVERFLOW", "SAT", "SET", "i1", "0", "5"),
		st(rInts(0), "BITFIELD", "one", "GET", "i1", "0"),
	})
}

func TestBitfieldErrors(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	h.run([]step{
		st(rErr(errBitfieldType), "BITFIELD", "k", "GET", "u64", "0"),
		st(rErr(errBitfieldType), "BITFIELD", "k", "GET", "i65", "0"),
		st(rErr(errBitfieldType), "BITFIELD", "k", "GET", "i0", "0"),
		st(rErr(errBitfieldType), "BITFIELD", "k", "GET", "I8", "0"),
		st(rErr(errBitfieldType), "BITFIELD", "k", "GET", "x8", "0"),
		st(rErr(errBitfieldType), "BITFIELD", "k", "GET", "i08", "0"),
		st(rErr(errBitfieldType), "BITFIELD", "k", "GET", "", "0"),
		st(rErr(ErrBitOffset), "BITFIELD", "k", "GET", "i8", "-1"),
		st(rErr(ErrBitOffset), "BITFIELD", "k", "GET", "i8", "abc"),
		st(rErr(ErrBitOffset), "BITFIELD", "k", "GET", "i8", "4294967296"),
		st(rErr(ErrBitOffset), "BITFIELD", "k", "GET", "i8", "#536870912"),
		st(rErr(ErrBitOffset), "BITFIELD", "k", "GET", "i64", "#9223372036854775807"),
		st(rErr(ErrBitOffset), "BITFIELD", "k", "GET", "i8", "#-1"),
		st(rErr(ErrBitOffset), "BITFIELD", "k", "GET", "i8", "#"),
		st(rErr(ErrNotInt), "BITFIELD", "k", "SET", "i8", "0", "abc"),
		st(rErr(ErrNotInt), "BITFIELD", "k", "INCRBY", "i8", "0", "1.5"),
		st(rErr(errOverflowType), "BITFIELD", "k", "OVERFLOW", "FOO", "GET", "i8", "0"),
		st(rErr(ErrSyntax), "BITFIELD", "k", "FOO"),
		st(rErr(ErrSyntax), "BITFIELD", "k", "GET", "i8"),
		st(rErr(ErrSyntax), "BITFIELD", "k", "SET", "i8", "0"),
		st(rErr(ErrSyntax), "BITFIELD", "k", "OVERFLOW"),
		// Argument errors come before any write.
		st(rErr(ErrSyntax), "BITFIELD", "k", "SET", "i8", "0", "1", "BAD"),
		st(rInt(0), "EXISTS", "k"),
		st(rErr(ErrWrongType), "BITFIELD", "lst", "GET", "u8", "0"),
		st(rErr(ErrWrongType), "BITFIELD", "lst", "SET", "u8", "0", "1"),
		st(rErr(ErrWrongType), "BITFIELD", "lst"),
		st(rErr(errBitfieldType), "BITFIELD", "lst", "GET", "u64", "0"),
	})
}

func TestBitfieldRO(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	h.run([]step{
		st(rInts(0), "BITFIELD", "h", "SET", "u8", "#1", "255"),
		st(rInts(255, 0), "BITFIELD_RO", "h", "GET", "u8", "#1", "GET", "u8", "0"),
		st(rInts(0), "BITFIELD_RO", "nokey", "GET", "u8", "0"),
		st(rArr(), "BITFIELD_RO", "h"),
		st(rErr(errBitfieldRO), "BITFIELD_RO", "h", "SET", "u8", "0", "1"),
		st(rErr(errBitfieldRO), "BITFIELD_RO", "h", "GET", "u8", "0", "INCRBY", "u8", "0", "1"),
		st(rErr(ErrNotInt), "BITFIELD_RO", "h", "INCRBY", "u8", "0", "x"),
		st(rErr(ErrWrongType), "BITFIELD_RO", "lst", "GET", "u8", "0"),
		st(rErr(errBitfieldRO), "BITFIELD_RO", "lst", "SET", "u8", "0", "1"),
		st(rInts(0), "BITFIELD_RO", "h", "OVERFLOW", "SAT", "GET", "u8", "0"),
	})
}

func TestBitfieldDirtyAndCreate(t *testing.T) {
	h := newKeyHarness(t)
	cases := []struct {
		cmd   []string
		dirty int
	}{
		{[]string{"BITFIELD", "d", "SET", "u8", "0", "0"}, 1}, // creates
		{[]string{"BITFIELD", "d", "SET", "u8", "0", "0"}, 0},
		{[]string{"BITFIELD", "d", "SET", "u8", "0", "1", "INCRBY", "u8", "0", "1"}, 2},
		{[]string{"BITFIELD", "d", "GET", "u8", "0"}, 0},
		{[]string{"BITFIELD", "d", "OVERFLOW", "FAIL", "INCRBY", "u8", "0", "254"}, 0},
	}
	for _, tc := range cases {
		h.do(tc.cmd...)
		if h.c.Dirty != tc.dirty {
			t.Errorf("%v: dirty %d, want %d", tc.cmd, h.c.Dirty, tc.dirty)
		}
	}
	// A write whose every operation fails still creates the (zeroed) key,
	// as Valkey makes room before running the operations.
	h.run([]step{
		st(rArr(rNull), "BITFIELD", "f", "OVERFLOW", "FAIL", "SET", "u2", "0", "7"),
		st(rBulk("\x00"), "GET", "f"),
	})
}

// naiveGet and naiveSet are the bit-at-a-time definitions of a field.
func naiveGet(s []byte, off uint64, width uint) uint64 {
	var v uint64
	for j := uint64(0); j < uint64(width); j++ {
		bit := off + j
		var b byte
		if bit>>3 < uint64(len(s)) {
			b = (s[bit>>3] >> (7 - bit&7)) & 1
		}
		v = v<<1 | uint64(b)
	}
	return v
}

func naiveSet(s []byte, off uint64, width uint, v uint64) {
	for j := uint64(0); j < uint64(width); j++ {
		bit := off + j
		val := byte(v>>(uint64(width)-1-j)) & 1
		s[bit>>3] = s[bit>>3]&^(1<<(7-bit&7)) | val<<(7-bit&7)
	}
}

func TestBitfieldFieldsAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for range 5000 {
		n := 1 + r.IntN(20)
		s := make([]byte, n)
		for i := range s {
			s[i] = byte(r.Uint32())
		}
		width := uint(1 + r.IntN(64))
		off := uint64(r.IntN(n * 8))
		if got, want := getField(s, off, width), naiveGet(s, off, width); got != want {
			t.Fatalf("getField(%x, %d, %d) = %x, want %x", s, off, width, got, want)
		}
		if off+uint64(width) > uint64(n*8) {
			continue
		}
		v := r.Uint64()
		a := append([]byte(nil), s...)
		b := append([]byte(nil), s...)
		setField(a, off, width, v)
		naiveSet(b, off, width, v)
		if string(a) != string(b) {
			t.Fatalf("setField(%x, %d, %d, %x) = %x, want %x", s, off, width, v, a, b)
		}
	}
}
