package lualib

import (
	"encoding/binary"
	"math"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// cmsgpack: lua-cmsgpack 0.4.0 on Lua 5.1 and a 64-bit build, as Valkey
// bundles it.

// msgpackMaxNesting is LUACMSGPACK_MAX_NESTING: a table nested deeper is
// packed as nil (so cyclic tables pack).
const msgpackMaxNesting = 16

// newCmsgpack builds the cmsgpack module table.
func newCmsgpack(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	setFuncs(L, t, []libFunc{
		{"pack", msgpackPack},
		{"unpack", func(L *lua.LState) int { return msgpackUnpack(L, 0, 0, L.GetTop()) }},
		{"unpack_one", func(L *lua.LState) int {
			offset := optInteger(L, 2, 0)
			return msgpackUnpack(L, 1, offset, 1)
		}},
		{"unpack_limit", func(L *lua.LState) int {
			limit := checkInteger(L, 2)
			offset := optInteger(L, 3, 0)
			return msgpackUnpack(L, limit, offset, 1)
		}},
	})
	t.RawSetString("_NAME", lua.LString("cmsgpack"))
	t.RawSetString("_VERSION", lua.LString("lua-cmsgpack 0.4.0"))
	t.RawSetString("_COPYRIGHT", lua.LString("Copyright (C) 2012, Redis Ltd."))
	t.RawSetString("_DESCRIPTION", lua.LString("MessagePack C implementation for Lua"))
	return t
}

// msgpackPack is cmsgpack.pack(v, ...): the encodings of all arguments
// concatenated.
func msgpackPack(L *lua.LState) int {
	n := L.GetTop()
	if n == 0 {
		argError(L, 0, "MessagePack pack needs input.")
	}
	if n*2 > maxCStack {
		// lua_checkstack(L, nargs) with the nargs already there.
		argError(L, 0, "Too many arguments for MessagePack pack.")
	}
	var buf []byte
	for i := 1; i <= n; i++ {
		buf = appendMsgpack(buf, L.Get(i), 0)
	}
	L.Push(lua.LString(buf))
	return 1
}

// appendMsgpack appends the encoding of v at nesting level.
func appendMsgpack(b []byte, v lua.LValue, level int) []byte {
	switch v := v.(type) {
	case lua.LString:
		return appendMsgpackBytes(b, string(v))
	case lua.LBool:
		if v {
			return append(b, 0xc3)
		}
		return append(b, 0xc2)
	case lua.LNumber:
		return appendMsgpackNumber(b, float64(v))
	case *lua.LTable:
		if level == msgpackMaxNesting {
			return append(b, 0xc0)
		}
		return appendMsgpackTable(b, v, level)
	}
	// nil, functions, userdata (cjson.null), threads.
	return append(b, 0xc0)
}

// appendMsgpackBytes appends a str: fixstr, str8, str16 or str32.
func appendMsgpackBytes(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= 0xff:
		b = append(b, 0xd9, byte(n))
	case n <= 0xffff:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, s...)
}

// appendMsgpackNumber encodes a number as the smallest integer format
// when it has an int64 value, else as a float32 when that is exact, else
// as a float64.
func appendMsgpackNumber(b []byte, f float64) []byte {
	if !math.IsInf(f, 0) && float64(toInt64(f)) == f {
		return appendMsgpackInt(b, toInt64(f))
	}
	if f32 := float32(f); float64(f32) == f {
		return binary.BigEndian.AppendUint32(append(b, 0xca), math.Float32bits(f32))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xcb), math.Float64bits(f))
}

// appendMsgpackInt is mp_encode_int.
func appendMsgpackInt(b []byte, n int64) []byte {
	if n >= 0 {
		switch {
		case n <= 127:
			return append(b, byte(n))
		case n <= 0xff:
			return append(b, 0xcc, byte(n))
		case n <= 0xffff:
			return binary.BigEndian.AppendUint16(append(b, 0xcd), uint16(n))
		case n <= 0xffffffff:
			return binary.BigEndian.AppendUint32(append(b, 0xce), uint32(n))
		}
		return binary.BigEndian.AppendUint64(append(b, 0xcf), uint64(n))
	}
	switch {
	case n >= -32:
		return append(b, byte(n))
	case n >= -128:
		return append(b, 0xd0, byte(n))
	case n >= -32768:
		return binary.BigEndian.AppendUint16(append(b, 0xd1), uint16(n))
	case n >= -2147483648:
		return binary.BigEndian.AppendUint32(append(b, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(b, 0xd3), uint64(n))
}

// appendMsgpackTable packs a table as an array when its keys are exactly
// 1..n (table_is_an_array), else as a map in Lua's next() order.
func appendMsgpackTable(b []byte, t *lua.LTable, level int) []byte {
	es := tableEntries(t)
	count, max := 0, 0
	isArray := true
	for _, e := range es {
		k, ok := e.key.(lua.LNumber)
		if !ok || k <= 0 || float64(toInt32(float64(k))) != float64(k) {
			isArray = false
			break
		}
		if int(k) > max {
			max = int(k)
		}
		count++
	}
	if isArray && max == count {
		b = appendMsgpackHeader(b, uint64(count), 0x90, 0xdc)
		for i := 1; i <= count; i++ {
			b = appendMsgpack(b, t.RawGet(lua.LNumber(i)), level+1)
		}
		return b
	}
	es = orderEntries(es)
	b = appendMsgpackHeader(b, uint64(len(es)), 0x80, 0xde)
	for _, e := range es {
		b = appendMsgpack(b, e.key, level+1)
		b = appendMsgpack(b, e.val, level+1)
	}
	return b
}

// appendMsgpackHeader appends an array or map header: the fix form, or
// the 16- or 32-bit one (op16, op16+1).
func appendMsgpackHeader(b []byte, n uint64, fix, op16 byte) []byte {
	switch {
	case n <= 15:
		return append(b, fix|byte(n))
	case n <= 0xffff:
		return binary.BigEndian.AppendUint16(append(b, op16), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(b, op16+1), uint32(n))
}

// Decoding errors, as the cursor records them.
const (
	mpOK = iota
	mpEOF
	mpBadFormat
)

// msgpackDecoder is one unpack call.
type msgpackDecoder struct {
	L    *lua.LState
	data string
	pos  int
	err  int
	// used is the number of stack slots the C decoder holds, for its
	// luaL_checkstack before each value.
	used int
}

// msgpackUnpack is mp_unpack_full: decode up to limit values (all when
// limit and offset are both 0) from argument 1 starting at offset. With a
// limit, the offset of the next value (-1 at the end) comes first. base is
// the number of stack slots the arguments hold.
func msgpackUnpack(L *lua.LState, limit, offset int64, base int) int {
	s := checkString(L, 1)
	decodeAll := limit == 0 && offset == 0
	if offset < 0 || limit < 0 {
		raise(L, "Invalid request to unpack with offset of %d and limit of %d.", int32(offset), int32(len(s)))
	} else if offset > int64(len(s)) {
		raise(L, "Start offset %d greater than input length %d.", int32(offset), int32(len(s)))
	}
	if decodeAll {
		limit = math.MaxInt32
	}
	d := &msgpackDecoder{L: L, data: s, pos: int(offset), used: base}
	var out []lua.LValue
	for cnt := int64(0); d.pos < len(s) && cnt < limit; cnt++ {
		v := d.value()
		switch d.err {
		case mpEOF:
			raise(L, "Missing bytes in input.")
		case mpBadFormat:
			raise(L, "Bad data format in input.")
		}
		out = append(out, v)
		d.used++
	}
	if !decodeAll {
		next := int64(d.pos)
		if d.pos == len(s) {
			next = -1
		}
		L.Push(lua.LNumber(next))
	}
	for _, v := range out {
		L.Push(v)
	}
	if decodeAll {
		return len(out)
	}
	return len(out) + 1
}

// need reports whether n more bytes are there, recording EOF if not.
func (d *msgpackDecoder) need(n int) bool {
	if len(d.data)-d.pos < n {
		d.err = mpEOF
		return false
	}
	return true
}

// u reads the big-endian unsigned integer of n bytes at pos+off.
func (d *msgpackDecoder) u(off, n int) uint64 {
	var v uint64
	for i := 0; i < n; i++ {
		v = v<<8 | uint64(d.data[d.pos+off+i])
	}
	return v
}

// value decodes one value (mp_decode_to_lua_type); on error d.err is set
// and the value is meaningless.
func (d *msgpackDecoder) value() lua.LValue {
	if !d.need(1) {
		return lua.LNil
	}
	if d.used+1 > maxCStack {
		stackOverflow(d.L, "too many return values at once; use unpack_one or unpack_limit instead.")
	}
	c := d.data[d.pos]
	fixed := d.need
	switch c {
	case 0xcc, 0xd0:
		if !fixed(2) {
			return lua.LNil
		}
		v := d.u(1, 1)
		d.pos += 2
		if c == 0xd0 {
			return lua.LNumber(int8(v))
		}
		return lua.LNumber(v)
	case 0xcd, 0xd1:
		if !fixed(3) {
			return lua.LNil
		}
		v := d.u(1, 2)
		d.pos += 3
		if c == 0xd1 {
			return lua.LNumber(int16(v))
		}
		return lua.LNumber(v)
	case 0xce, 0xd2:
		if !fixed(5) {
			return lua.LNil
		}
		v := d.u(1, 4)
		d.pos += 5
		if c == 0xd2 {
			return lua.LNumber(int32(v))
		}
		return lua.LNumber(v)
	case 0xcf, 0xd3:
		if !fixed(9) {
			return lua.LNil
		}
		// uint 64 goes through lua_pushinteger: the top bit makes it
		// negative.
		v := d.u(1, 8)
		d.pos += 9
		return lua.LNumber(int64(v))
	case 0xc0:
		d.pos++
		return lua.LNil
	case 0xc3:
		d.pos++
		return lua.LTrue
	case 0xc2:
		d.pos++
		return lua.LFalse
	case 0xca:
		if !fixed(5) {
			return lua.LNil
		}
		v := math.Float32frombits(uint32(d.u(1, 4)))
		d.pos += 5
		return lua.LNumber(v)
	case 0xcb:
		if !fixed(9) {
			return lua.LNil
		}
		v := math.Float64frombits(d.u(1, 8))
		d.pos += 9
		return lua.LNumber(v)
	case 0xd9, 0xda, 0xdb:
		hdr := 1 << (c - 0xd9) // 1, 2 or 4 length bytes
		if !fixed(1 + hdr) {
			return lua.LNil
		}
		n := d.u(1, hdr)
		if uint64(len(d.data)-d.pos-1-hdr) < n {
			d.err = mpEOF
			return lua.LNil
		}
		start := d.pos + 1 + hdr
		d.pos = start + int(n)
		return lua.LString(d.data[start:d.pos])
	case 0xdc, 0xdd, 0xde, 0xdf:
		hdr := 2
		if c&1 == 1 {
			hdr = 4
		}
		if !fixed(1 + hdr) {
			return lua.LNil
		}
		n := d.u(1, hdr)
		d.pos += 1 + hdr
		if c <= 0xdd {
			return d.array(n)
		}
		return d.hash(n)
	}
	switch {
	case c&0x80 == 0: // positive fixint
		d.pos++
		return lua.LNumber(c)
	case c&0xe0 == 0xe0: // negative fixint
		d.pos++
		return lua.LNumber(int8(c))
	case c&0xe0 == 0xa0: // fixstr
		n := int(c & 0x1f)
		if !fixed(1 + n) {
			return lua.LNil
		}
		start := d.pos + 1
		d.pos = start + n
		return lua.LString(d.data[start:d.pos])
	case c&0xf0 == 0x90: // fixarray
		d.pos++
		return d.array(uint64(c & 0xf))
	case c&0xf0 == 0x80: // fixmap
		d.pos++
		return d.hash(uint64(c & 0xf))
	}
	d.err = mpBadFormat
	return lua.LNil
}

// array decodes n elements into a new table; nil elements leave holes.
func (d *msgpackDecoder) array(n uint64) lua.LValue {
	t := d.L.NewTable()
	// The table, then the index, sit on the stack under each element;
	// the C code checks for the index's slot once the table is there.
	d.used += 2
	defer func() { d.used -= 2 }()
	if d.used > maxCStack {
		stackOverflow(d.L, "in function mp_decode_to_lua_array")
	}
	for i := uint64(1); i <= n; i++ {
		v := d.value()
		if d.err != mpOK {
			return lua.LNil
		}
		if v != lua.LNil {
			t.RawSet(lua.LNumber(i), v)
		}
	}
	return t
}

// hash decodes n key/value pairs into a new table with lua_settable's
// errors for nil and NaN keys.
func (d *msgpackDecoder) hash(n uint64) lua.LValue {
	t := d.L.NewTable()
	d.used++
	defer func() { d.used-- }()
	for ; n > 0; n-- {
		k := d.value()
		if d.err != mpOK {
			return lua.LNil
		}
		d.used++
		v := d.value()
		d.used--
		if d.err != mpOK {
			return lua.LNil
		}
		switch {
		case k == lua.LNil:
			raiseBare(d.L, "table index is nil")
		case isNaNKey(k):
			raiseBare(d.L, "table index is NaN")
		}
		t.RawSet(k, v)
	}
	return t
}
