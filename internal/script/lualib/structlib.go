package lualib

import (
	"encoding/binary"
	"math"
	"strings"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// struct: the struct library (struct.c 1.7 with Valkey's fixes for integer
// sizes and offsets) on x86-64: little-endian native order, 2-byte short,
// 4-byte int and float, 8-byte long, size_t and double, maximum alignment
// 8.
//
// Format options: '>' '<' endianness, '![n]' alignment, ' ' ignored, 'x'
// one pad byte, 'b' 'B' 'h' 'H' 'l' 'L' 'T' 'i[n]' 'I[n]' integers, 'f' 'd'
// floats, 'c[n]' chars (n 0: the whole string when packing, the previous
// number as length when unpacking), 's' a zero-terminated string.

const (
	structMaxIntSize = 32
	structMaxAlign   = 8
)

// structHeader is the format's running state: byte order and alignment.
type structHeader struct {
	little bool
	align  int
}

// structFormat walks a format string. The format ends at a NUL byte, as the
// C string it is.
type structFormat struct {
	L   *lua.LState
	fmt string
	pos int
}

func newStructFormat(L *lua.LState, f string) *structFormat {
	if k := strings.IndexByte(f, 0); k >= 0 {
		f = f[:k]
	}
	return &structFormat{L: L, fmt: f}
}

// getnum reads a decimal number at the cursor, df when there is none; past
// INT_MAX is "integral size overflow".
func (sf *structFormat) getnum(df int) int {
	if sf.pos >= len(sf.fmt) || !isDigit(sf.fmt[sf.pos]) {
		return df
	}
	a := 0
	for sf.pos < len(sf.fmt) && isDigit(sf.fmt[sf.pos]) {
		d := int(sf.fmt[sf.pos] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			raise(sf.L, "integral size overflow")
		}
		a = a*10 + d
		sf.pos++
	}
	return a
}

// optSize is the size of option opt, reading its count if it takes one.
func (sf *structFormat) optSize(opt byte) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T', 'd':
		return 8
	case 'f':
		return 4
	case 'x':
		return 1
	case 'c':
		return sf.getnum(1)
	case 'i', 'I':
		sz := sf.getnum(4)
		if sz > structMaxIntSize {
			raise(sf.L, "integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	}
	return 0
}

// toAlign is gettoalign: the padding before an item of size at offset n.
// Sizes need not be powers of 2 ('i3'); the arithmetic is C's, on size_t.
func toAlign(n uint64, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	sz := uint64(size)
	if sz > uint64(h.align) {
		sz = uint64(h.align)
	}
	return int(int32((sz - (n & (sz - 1))) & (sz - 1)))
}

// control applies the options that set byte order and alignment, and
// rejects anything else.
func (sf *structFormat) control(opt byte, h *structHeader) {
	switch opt {
	case ' ':
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := sf.getnum(structMaxAlign)
		if a <= 0 || a&(a-1) != 0 {
			raise(sf.L, "alignment %d is not a power of 2", a)
		}
		h.align = a
	default:
		argError(sf.L, 1, "invalid format option '"+string([]byte{opt})+"'")
	}
}

func defaultHeader() structHeader { return structHeader{little: true, align: 1} }

// newStruct builds the struct module table.
func newStruct(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	setFuncs(L, t, []libFunc{
		{"pack", structPack},
		{"unpack", structUnpack},
		{"size", structSize},
	})
	return t
}

// structPack is struct.pack(fmt, v1, ...).
func structPack(L *lua.LState) int {
	sf := newStructFormat(L, checkString(L, 1))
	h := defaultHeader()
	arg := 2
	// The C code pushes a nil to separate the arguments from its buffer:
	// the first missing argument reads as nil, not "no value".
	L.Push(lua.LNil)
	var b []byte
	total := uint64(0)
	for sf.pos < len(sf.fmt) {
		opt := sf.fmt[sf.pos]
		sf.pos++
		size := sf.optSize(opt)
		pad := toAlign(total, &h, opt, size)
		total += uint64(pad)
		for ; pad > 0; pad-- {
			b = append(b, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			b = appendStructInt(b, checkNumber(L, arg), h.little, size)
			arg++
		case 'x':
			b = append(b, 0)
		case 'f':
			bits := math.Float32bits(float32(checkNumber(L, arg)))
			arg++
			if h.little {
				b = binary.LittleEndian.AppendUint32(b, bits)
			} else {
				b = binary.BigEndian.AppendUint32(b, bits)
			}
		case 'd':
			bits := math.Float64bits(checkNumber(L, arg))
			arg++
			if h.little {
				b = binary.LittleEndian.AppendUint64(b, bits)
			} else {
				b = binary.BigEndian.AppendUint64(b, bits)
			}
		case 'c', 's':
			s := checkString(L, arg)
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				// The C code checks after moving to the next argument.
				argError(L, arg, "string too short")
			}
			b = append(b, s[:size]...)
			if opt == 's' {
				b = append(b, 0)
				size++
			}
		default:
			sf.control(opt, &h)
		}
		total += uint64(size)
	}
	L.Push(lua.LString(b))
	return 1
}

// appendStructInt appends n as a size-byte integer: negative numbers as
// C's (unsigned long)(long)n, others as (unsigned long)n; bytes past the
// eighth are zero.
func appendStructInt(b []byte, n float64, little bool, size int) []byte {
	var v uint64
	if n < 0 {
		v = uint64(toInt64(n))
	} else {
		v = toUint64(n)
	}
	var buf [structMaxIntSize]byte
	for i := 0; i < size; i++ {
		j := i
		if !little {
			j = size - 1 - i
		}
		buf[j] = byte(v)
		v >>= 8
	}
	return append(b, buf[:size]...)
}

// structInt reads a size-byte integer as getinteger does: bytes past the
// eighth shift the first ones out, and the sign mask's shift count is
// taken modulo 64, as x86-64 does.
func structInt(data string, little, signed bool, size int) float64 {
	var l uint64
	for i := 0; i < size; i++ {
		j := i
		if little {
			j = size - 1 - i
		}
		l = l<<8 | uint64(data[j])
	}
	if !signed {
		return float64(l)
	}
	mask := ^uint64(0) << (uint(size*8-1) & 63)
	if l&mask != 0 {
		l |= mask
	}
	return float64(int64(l))
}

// structUnpack is struct.unpack(fmt, data [, pos]): the values and the
// position after them.
func structUnpack(L *lua.LState) int {
	sf := newStructFormat(L, checkString(L, 1))
	data := checkString(L, 2)
	ld := uint64(len(data))
	pos := uint64(optInteger(L, 3, 1))
	if pos == 0 {
		argError(L, 3, "offset must be 1 or greater")
	}
	pos--
	// The arguments hold their stack slots under the results.
	base := L.GetTop()
	h := defaultHeader()
	var out []lua.LValue
	for sf.pos < len(sf.fmt) {
		opt := sf.fmt[sf.pos]
		sf.pos++
		size := uint64(sf.optSize(opt))
		pos += uint64(toAlign(pos, &h, opt, int(size)))
		if !(size <= ld && pos <= ld-size) {
			argError(L, 2, "data string too short")
		}
		if base+len(out)+2 > maxCStack {
			stackOverflow(L, "too many results")
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a'
			out = append(out, lua.LNumber(structInt(data[pos:pos+size], h.little, signed, int(size))))
		case 'x':
		case 'f':
			var bits uint32
			if h.little {
				bits = binary.LittleEndian.Uint32([]byte(data[pos : pos+4]))
			} else {
				bits = binary.BigEndian.Uint32([]byte(data[pos : pos+4]))
			}
			out = append(out, lua.LNumber(math.Float32frombits(bits)))
		case 'd':
			var bits uint64
			if h.little {
				bits = binary.LittleEndian.Uint64([]byte(data[pos : pos+8]))
			} else {
				bits = binary.BigEndian.Uint64([]byte(data[pos : pos+8]))
			}
			out = append(out, lua.LNumber(math.Float64frombits(bits)))
		case 'c':
			if size == 0 {
				var n float64
				ok := false
				if len(out) > 0 {
					n, ok = toNumber(out[len(out)-1])
				}
				if !ok {
					raise(L, "format 'c0' needs a previous size")
				}
				size = toUint64(n)
				out = out[:len(out)-1]
				if !(size <= ld && pos <= ld-size) {
					argError(L, 2, "data string too short")
				}
			}
			out = append(out, lua.LString(data[pos:pos+size]))
		case 's':
			e := strings.IndexByte(data[pos:], 0)
			if e < 0 {
				raise(L, "unfinished string in data")
			}
			out = append(out, lua.LString(data[pos:pos+uint64(e)]))
			size = uint64(e) + 1
		default:
			sf.control(opt, &h)
		}
		pos += size
	}
	for _, v := range out {
		L.Push(v)
	}
	L.Push(lua.LNumber(int64(pos + 1)))
	return len(out) + 1
}

// structSize is struct.size(fmt): the size of a format without
// variable-length options.
func structSize(L *lua.LState) int {
	sf := newStructFormat(L, checkString(L, 1))
	h := defaultHeader()
	pos := uint64(0)
	for sf.pos < len(sf.fmt) {
		opt := sf.fmt[sf.pos]
		sf.pos++
		size := sf.optSize(opt)
		pos += uint64(toAlign(pos, &h, opt, size))
		if opt == 's' {
			argError(L, 1, "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "option 'c0' has no fixed size")
		}
		if !isAlnum(opt) {
			sf.control(opt, &h)
		}
		pos += uint64(size)
	}
	L.Push(lua.LNumber(int64(pos)))
	return 1
}
