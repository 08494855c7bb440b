package lualib

import (
	"math"
	"strconv"
	"strings"
	"testing"

	lua "github.com/corvid-kv/corvid/internal/lua"
	"github.com/corvid-kv/corvid/internal/lua/parse"
)

// Benchmarks for the scripting engine decision: what gopher-lua costs for
// the pure-Lua part of a typical script (a token-bucket rate limiter, the
// most common EVAL workload), next to the same logic in Go, plus the fixed
// costs around it (a sandbox state, the libraries). No thresholds: these
// inform, they do not gate. Run with e.g.
//
//	go test -run '^$' -bench . -benchtime 2s ./internal/script/lualib/

// rateLimiter is the body of a token-bucket limiter with the server calls
// taken out: the stored token count and timestamp arrive as the strings a
// GET would return, the new state leaves as the reply.
const rateLimiter = `
local rate = tonumber(ARGV[1])
local capacity = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local requested = tonumber(ARGV[4])
local fill_time = capacity / rate
local ttl = math.floor(fill_time * 2)
local last_tokens = tonumber(ARGV[5])
if last_tokens == nil then last_tokens = capacity end
local last_refreshed = tonumber(ARGV[6])
if last_refreshed == nil then last_refreshed = 0 end
local delta = math.max(0, now - last_refreshed)
local filled_tokens = math.min(capacity, last_tokens + (delta * rate))
local allowed = filled_tokens >= requested
local new_tokens = filled_tokens
local allowed_num = 0
if allowed then
  new_tokens = filled_tokens - requested
  allowed_num = 1
end
return { allowed_num, tostring(new_tokens), ttl }
`

// compileScript compiles src once, as an engine caches scripts by SHA.
func compileScript(b *testing.B, src string) *lua.FunctionProto {
	chunk, err := parse.Parse(strings.NewReader(src), "user_script")
	if err != nil {
		b.Fatal(err)
	}
	proto, err := lua.Compile(chunk, "user_script")
	if err != nil {
		b.Fatal(err)
	}
	return proto
}

// BenchmarkRateLimiterLua runs the compiled limiter in one long-lived
// state with fresh ARGV each call, as EVALSHA would.
func BenchmarkRateLimiterLua(b *testing.B) {
	L := newTestState()
	defer L.Close()
	fn := L.NewFunctionFromProto(compileScript(b, rateLimiter))
	argv := L.NewTable()
	now := 1700000000
	for b.Loop() {
		now++
		argv.RawSetInt(1, lua.LString("10"))
		argv.RawSetInt(2, lua.LString("100"))
		argv.RawSetInt(3, lua.LString(strconv.Itoa(now)))
		argv.RawSetInt(4, lua.LString("1"))
		argv.RawSetInt(5, lua.LString("42"))
		argv.RawSetInt(6, lua.LString(strconv.Itoa(now-3)))
		L.SetGlobal("ARGV", argv)
		L.Push(fn)
		if err := L.PCall(0, 1, nil); err != nil {
			b.Fatal(err)
		}
		L.Pop(1)
	}
}

// BenchmarkRateLimiterGo is the same logic in Go: the floor for the
// engine's overhead.
func BenchmarkRateLimiterGo(b *testing.B) {
	now := 1700000000
	var sink []string
	for b.Loop() {
		now++
		argv := []string{"10", "100", strconv.Itoa(now), "1", "42", strconv.Itoa(now - 3)}
		num := func(s string) (float64, bool) { f, err := strconv.ParseFloat(s, 64); return f, err == nil }
		rate, _ := num(argv[0])
		capacity, _ := num(argv[1])
		t, _ := num(argv[2])
		requested, _ := num(argv[3])
		ttl := math.Floor(capacity / rate * 2)
		last, ok := num(argv[4])
		if !ok {
			last = capacity
		}
		refreshed, ok := num(argv[5])
		if !ok {
			refreshed = 0
		}
		filled := math.Min(capacity, last+math.Max(0, t-refreshed)*rate)
		allowed, tokens := 0, filled
		if filled >= requested {
			allowed, tokens = 1, filled-requested
		}
		sink = append(sink[:0], strconv.Itoa(allowed), strconv.FormatFloat(tokens, 'g', 14, 64), strconv.FormatFloat(ttl, 'g', -1, 64))
	}
	_ = sink
}

// BenchmarkNewState is the cost of a fresh sandbox: a state with the base
// libraries and these four (Valkey builds one per script VM reset, an
// engine might pool them).
func BenchmarkNewState(b *testing.B) {
	for b.Loop() {
		newTestState().Close()
	}
}

// BenchmarkCJSONEncode encodes a small object, as scripts returning JSON
// do (the Lua-order replay included).
func BenchmarkCJSONEncode(b *testing.B) {
	L := newTestState()
	defer L.Close()
	fn := L.NewFunctionFromProto(compileScript(b,
		`local t = {} t.id = 42 t.name = "limiter" t.tokens = 99.5 t.tags = {"a", "b", "c"} return t`))
	L.Push(fn)
	L.Call(0, 1)
	v := L.Get(-1)
	L.Pop(1)
	encode := L.GetField(L.GetGlobal("cjson"), "encode")
	for b.Loop() {
		L.Push(encode)
		L.Push(v)
		L.Call(1, 1)
		L.Pop(1)
	}
}

// BenchmarkCJSONDecode decodes the same object.
func BenchmarkCJSONDecode(b *testing.B) {
	L := newTestState()
	defer L.Close()
	decode := L.GetField(L.GetGlobal("cjson"), "decode")
	text := lua.LString(`{"id":42,"name":"limiter","tokens":99.5,"tags":["a","b","c"]}`)
	for b.Loop() {
		L.Push(decode)
		L.Push(text)
		L.Call(1, 1)
		L.Pop(1)
	}
}

// BenchmarkCmsgpackRoundTrip packs and unpacks a small array of mixed
// values.
func BenchmarkCmsgpackRoundTrip(b *testing.B) {
	L := newTestState()
	defer L.Close()
	fn := L.NewFunctionFromProto(compileScript(b,
		`return cmsgpack.unpack(cmsgpack.pack({1, 2.5, "three", true, {4, 5}}))`))
	for b.Loop() {
		L.Push(fn)
		L.Call(0, 1)
		L.Pop(1)
	}
}
