package lualib

import (
	"strconv"
	"strings"
	"sync"
	"testing"

	lua "github.com/corvid-kv/corvid/internal/lua"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// The differential harness: an expression runs as "return <expr>" through
// gopher-lua with these libraries and through Valkey 8.0.1's EVAL, and
// both results are rendered in testutil.Raw's canonical reply form.

// wrap makes the script both sides run: the expression under pcall, an
// error becoming a two-element array so its text compares as a string,
// after a prelude of helpers the cases use.
func wrap(expr string) string {
	return prelude + "local ok, r = pcall(function() return " + expr + " end)\n" +
		"if not ok then return {'<error>', tostring(r)} end\nreturn r\n"
}

// prelude defines helpers for the cases: F shows a number's exact bits,
// I builds a table key by key (Lua 5.1's order for such tables is what
// luaOrder models), L makes a list of its arguments, NZ is -0 (a -0
// constant can merge with 0 in gopher-lua's constant table), D writes a value as a
// string that does not depend on the order of next() (pairs sorted).
const prelude = `local function F(x) return struct.pack('>d', x) end local function I(...) local t = {} local a = {...} for i = 1, #a, 2 do t[a[i]] = a[i+1] end return t end
local function L(...) return {...} end local NZ = (struct.unpack('>d', '\128\0\0\0\0\0\0\0'))
local function D(v) local t = type(v) if t == 'table' then local e = {} for k, x in pairs(v) do e[#e+1] = D(k) .. '=' .. D(x) end table.sort(e) return '{' .. table.concat(e, ',') .. '}' elseif t == 'number' then return 'n' .. struct.pack('>d', v) elseif t == 'string' then return 's' .. string.len(v) .. ':' .. v end return t .. ':' .. tostring(v) end
`

// newTestState opens what Valkey's sandbox has that the cases use (base,
// table, string, math) and the libraries.
func newTestState() *lua.LState {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, RegistrySize: 1024 * 16, RegistryMaxSize: 1024 * 256})
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine}, // part of Lua 5.1's base
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	Open(L)
	return L
}

// runLocal runs a script in L as Valkey's EVAL would and renders the
// reply.
func runLocal(L *lua.LState, script string) string {
	fn, err := L.Load(strings.NewReader(script), "user_script")
	if err != nil {
		return "-compile: " + err.Error()
	}
	L.Push(fn)
	if err := L.PCall(0, 1, nil); err != nil {
		if ae, ok := err.(*lua.ApiError); ok {
			return "-" + ae.Object.String()
		}
		return "-" + err.Error()
	}
	v := L.Get(-1)
	L.Pop(1)
	return reply(v)
}

// reply renders a Lua value as Valkey's Lua-to-RESP2 conversion, in
// testutil.Raw's canonical text: strings as bulk strings, numbers
// truncated to integers, true as 1 and false as nil, tables as arrays up
// to the first nil (or a status or error for an ok or err field).
func reply(v lua.LValue) string {
	switch v := v.(type) {
	case lua.LString:
		return strconv.Quote(string(v))
	case lua.LNumber:
		return ":" + strconv.FormatInt(toInt64(float64(v)), 10)
	case lua.LBool:
		if v {
			return ":1"
		}
		return "(nil)"
	case *lua.LTable:
		if e, ok := v.RawGetString("err").(lua.LString); ok {
			return "-" + string(e)
		}
		if s, ok := v.RawGetString("ok").(lua.LString); ok {
			return "+" + string(s)
		}
		var parts []string
		for i := 1; ; i++ {
			e := v.RawGetInt(i)
			if e == lua.LNil {
				break
			}
			parts = append(parts, reply(e))
		}
		return "*[" + strings.Join(parts, ", ") + "]"
	}
	return "(nil)"
}

// peer is a running valkey-server shared by a test's subtests.
type peer struct {
	mu  sync.Mutex
	raw *testutil.Raw
}

// startPeer starts Valkey 8.0.1, or returns nil when it is absent and not
// required (testutil.HaveValkey decides).
func startPeer(t *testing.T) *peer {
	t.Helper()
	if !testutil.HaveValkey(t) {
		return nil
	}
	p := testutil.StartValkey(t)
	return &peer{raw: testutil.Dial(t, p.Addr)}
}

// eval runs a script through EVAL with no keys.
func (p *peer) eval(script string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.raw.Do("EVAL", script, "0")
}

// differ runs each case through both engines and reports the ones whose
// replies differ; want, when not empty, is also checked against the local
// reply (so the table documents what Valkey answers).
type differ struct {
	t    *testing.T
	L    *lua.LState
	peer *peer
	n    int // cases compared with Valkey
}

func newDiffer(t *testing.T, p *peer) *differ {
	L := newTestState()
	d := &differ{t: t, L: L, peer: p}
	t.Cleanup(func() {
		L.Close()
		if p != nil {
			t.Logf("%d cases compared with Valkey", d.n)
		}
	})
	return d
}

// check compares one expression; it returns the local reply.
func (d *differ) check(expr, want string) string {
	d.t.Helper()
	script := wrap(expr)
	got := runLocal(d.L, script)
	if want != "" && got != want {
		d.t.Errorf("%s\n  local: %s\n  want:  %s", expr, got, want)
	}
	if d.peer != nil {
		d.n++
		if vk := d.peer.eval(script); vk != got {
			d.t.Errorf("%s\n  local:  %s\n  valkey: %s", expr, got, vk)
		}
	}
	return got
}
