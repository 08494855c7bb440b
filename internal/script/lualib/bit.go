package lualib

import (
	"math"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// bit: LuaBitOp 1.0.2 on Lua 5.1 with double numbers. Every operation works
// on 32-bit integers and returns a signed 32-bit result as a number.

// newBit builds the bit module table.
func newBit(L *lua.LState) *lua.LTable {
	t := L.NewTable()
	setFuncs(L, t, []libFunc{
		{"tobit", func(L *lua.LState) int { return bitReturn(L, bitArg(L, 1)) }},
		{"bnot", func(L *lua.LState) int { return bitReturn(L, ^bitArg(L, 1)) }},
		{"band", bitFold(func(a, b uint32) uint32 { return a & b })},
		{"bor", bitFold(func(a, b uint32) uint32 { return a | b })},
		{"bxor", bitFold(func(a, b uint32) uint32 { return a ^ b })},
		{"lshift", bitShift(func(b, n uint32) uint32 { return b << n })},
		{"rshift", bitShift(func(b, n uint32) uint32 { return b >> n })},
		{"arshift", bitShift(func(b, n uint32) uint32 { return uint32(int32(b) >> n) })},
		{"rol", bitShift(func(b, n uint32) uint32 { return b<<n | b>>((32-n)&31) })},
		{"ror", bitShift(func(b, n uint32) uint32 { return b<<((32-n)&31) | b>>n })},
		{"bswap", func(L *lua.LState) int {
			b := bitArg(L, 1)
			return bitReturn(L, b>>24|b>>8&0xff00|(b&0xff00)<<8|b<<24)
		}},
		{"tohex", bitToHex},
	})
	return t
}

// bitArg converts argument i as LuaBitOp's barg does: add 2^52+2^51 to the
// number and keep the low 32 bits of the double, which rounds to the
// nearest integer and wraps modulo 2^32. A non-number is an error only
// when its conversion gives 0 (lua_tonumber gives 0 for non-numbers).
func bitArg(L *lua.LState, i int) uint32 {
	n, ok := toNumber(L.Get(i))
	b := uint32(math.Float64bits(n + 6755399441055744.0))
	if b == 0 && !ok {
		typeError(L, i, "number")
	}
	return b
}

// bitReturn pushes b as a signed 32-bit number.
func bitReturn(L *lua.LState, b uint32) int {
	L.Push(lua.LNumber(int32(b)))
	return 1
}

// bitFold is band/bor/bxor over all arguments (the first is required).
func bitFold(op func(a, b uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1)
		for i := L.GetTop(); i > 1; i-- {
			b = op(b, bitArg(L, i))
		}
		return bitReturn(L, b)
	}
}

// bitShift is a shift or rotation by the second argument modulo 32.
func bitShift(op func(b, n uint32) uint32) lua.LGFunction {
	return func(L *lua.LState) int {
		b := bitArg(L, 1)
		n := bitArg(L, 2) & 31
		return bitReturn(L, op(b, n))
	}
}

// bitToHex is bit.tohex(x [, n]): the low |n| hex digits of x (8 by
// default), upper case when n is negative.
func bitToHex(L *lua.LState) int {
	b := bitArg(L, 1)
	n := int32(8)
	if L.GetTop() >= 2 {
		n = int32(bitArg(L, 2))
	}
	digits := "0123456789abcdef"
	if n == math.MinInt32 {
		n = math.MinInt32 + 1
	}
	if n < 0 {
		n = -n
		digits = "0123456789ABCDEF"
	}
	if n > 8 {
		n = 8
	}
	buf := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		buf[i] = digits[b&15]
		b >>= 4
	}
	L.Push(lua.LString(buf))
	return 1
}
