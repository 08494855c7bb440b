package lualib

import (
	"testing"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// The decoders take arbitrary bytes from scripts: they must answer every
// input with a value or a Lua error, never a Go panic (gopher-lua turns
// one into an ApiErrorPanic), and what they return must encode and decode
// again.

// call runs fn(args) protected in L, failing the test on a Go panic; ok
// reports whether it returned without a Lua error, with its results on
// the stack above top.
func call(t *testing.T, L *lua.LState, fn lua.LValue, args ...lua.LValue) (ok bool) {
	t.Helper()
	L.Push(fn)
	for _, a := range args {
		L.Push(a)
	}
	err := L.PCall(len(args), lua.MultRet, nil)
	if err == nil {
		return true
	}
	if ae, isAPI := err.(*lua.ApiError); isAPI && ae.Type == lua.ApiErrorPanic {
		t.Fatalf("Go panic: %v", err)
	}
	return false
}

// results pops what the stack holds above top.
func results(L *lua.LState, top int) []lua.LValue {
	var out []lua.LValue
	for i := top + 1; i <= L.GetTop(); i++ {
		out = append(out, L.Get(i))
	}
	L.SetTop(top)
	return out
}

func FuzzCJSONDecode(f *testing.F) {
	for _, s := range []string{
		`null`, `true`, `-0.5e-3`, `"a\u00e9\ud83d\ude00\/"`, `[1,[2,[3]],{}]`,
		`{"a":{"b":[null,false,"x"]},"c":1e400}`, `0x1F`, `-Infinity`, `nan(12)`,
		`[1,2`, `{"a" 1}`, `"\ud800"`, "[1]\x00x", "\x00\x00", `[[[[[[[[[[]]]]]]]]]]`,
	} {
		f.Add(s)
	}
	L := newTestState()
	f.Cleanup(L.Close)
	cjson := L.GetGlobal("cjson")
	decode, encode := L.GetField(cjson, "decode"), L.GetField(cjson, "encode")
	f.Fuzz(func(t *testing.T, text string) {
		top := L.GetTop()
		defer L.SetTop(top)
		if !call(t, L, decode, lua.LString(text)) {
			return
		}
		v := results(L, top)[0]
		if !call(t, L, encode, v) {
			return // NaN or an infinity, which encode refuses
		}
		again := results(L, top)[0]
		if !call(t, L, decode, again) {
			t.Fatalf("%q decodes, encodes as %q, which does not decode", text, again)
		}
	})
}

func FuzzCmsgpackUnpack(f *testing.F) {
	for _, s := range []string{
		"\x93\x01\xa1a\xc3", "\x82\xa1k\xcb\x3f\xb9\x99\x99\x99\x99\x99\x9a\x01\x90",
		"\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
		"\xca\x7f\xc0\x00\x00", "\xd9\x03abc\xda\x00\x01z", "\xdc\x00\x02\xc0\x01",
		"\xde\x00\x01\xc2\xc3", "\x81\xc0\x01", "\xc1", "\xc4\x01x", "\x91\x91\x91\x91\x90",
		"\xdb\xff\xff\xff\xffab", "", "\xa5ab",
	} {
		f.Add(s)
	}
	// gopher-lua stores a positive integer key below MaxArrayIndex (2^26)
	// in its array part, padding it with nils: a map with one key near
	// 2^26 allocates a gigabyte and stalls the fuzzer for a minute (a cost
	// of gopher-lua's tables for any script, not of the decoder). Keep
	// the array part small while fuzzing.
	saved := lua.MaxArrayIndex
	lua.MaxArrayIndex = 1 << 14
	f.Cleanup(func() { lua.MaxArrayIndex = saved })
	L := newTestState()
	f.Cleanup(L.Close)
	mp := L.GetGlobal("cmsgpack")
	unpack, pack := L.GetField(mp, "unpack"), L.GetField(mp, "pack")
	unpackOne := L.GetField(mp, "unpack_one")
	f.Fuzz(func(t *testing.T, data string) {
		top := L.GetTop()
		defer L.SetTop(top)
		call(t, L, unpackOne, lua.LString(data), lua.LNumber(len(data)/2))
		L.SetTop(top)
		if !call(t, L, unpack, lua.LString(data)) {
			return
		}
		// Pack each value alone: pack refuses more than 4000 arguments,
		// as the C library does.
		var again []byte
		for _, v := range results(L, top) {
			if !call(t, L, pack, v) {
				t.Fatalf("%x unpacks but %v does not pack", data, v)
			}
			again = append(again, results(L, top)[0].(lua.LString)...)
		}
		if !call(t, L, unpack, lua.LString(again)) {
			t.Fatalf("%x unpacks, packs as %x, which does not unpack", data, again)
		}
	})
}
