package script

import (
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// fakeHost answers every call with a canned reply per command name.
type fakeHost struct {
	replies map[string]string
	calls   [][]string
	logs    []string
}

func (h *fakeHost) Call(argv [][]byte, proto int) ([]byte, bool) {
	var a []string
	for _, b := range argv {
		a = append(a, string(b))
	}
	h.calls = append(h.calls, a)
	if r, ok := h.replies[strings.ToLower(a[0])]; ok {
		return []byte(r), true
	}
	return []byte("-ERR Unknown command called from script\r\n"), false
}

func (h *fakeHost) Log(level int, msg string) { h.logs = append(h.logs, msg) }
func (h *fakeHost) Wrote() bool               { return false }
func (h *fakeHost) Known(argv [][]byte) bool {
	_, ok := h.replies[strings.ToLower(string(argv[0]))]
	return ok
}

// Allowed: the fake host's user may run everything.
func (h *fakeHost) Allowed(argv [][]byte) bool { return true }

func run(t *testing.T, e *Engine, h *fakeHost, body string, proto int, keys, args []string) string {
	t.Helper()
	sc, msg := e.Load([]byte(body))
	if sc == nil {
		return "-" + msg + "\r\n"
	}
	w := resp.NewWriter(64)
	w.Proto = proto
	bs := func(ss []string) (out [][]byte) {
		for _, s := range ss {
			out = append(out, []byte(s))
		}
		return out
	}
	e.Run(&Run{Script: sc, Keys: bs(keys), Args: bs(args), Host: h, W: w})
	return string(w.Bytes())
}

func TestRunReplies(t *testing.T) {
	e := New()
	h := &fakeHost{replies: map[string]string{
		"incr":    ":7\r\n",
		"get":     "$3\r\nabc\r\n",
		"nil":     "$-1\r\n",
		"arr":     "*2\r\n:1\r\n$1\r\nx\r\n",
		"ok":      "+OK\r\n",
		"err":     "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n",
		"map3":    "%1\r\n$1\r\nf\r\n$1\r\nv\r\n",
		"double3": ",1.5\r\n",
	}}
	for _, tc := range []struct {
		body  string
		proto int
		want  string
	}{
		{"return 1", 2, ":1\r\n"},
		{"return 3.99", 2, ":3\r\n"},
		{"return -3.99", 2, ":-3\r\n"},
		{"return 'x'", 2, "$1\r\nx\r\n"},
		{"return true", 2, ":1\r\n"},
		{"return false", 2, "$-1\r\n"},
		{"return false", 3, "_\r\n"},
		{"return nil", 2, "$-1\r\n"},
		{"return {1, 'a', {2}}", 2, "*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n"},
		{"return {1, nil, 3}", 2, "*1\r\n:1\r\n"},
		{"return {ok='fine'}", 2, "+fine\r\n"},
		{"return {err='CODE msg'}", 2, "-CODE msg\r\n"},
		{"return redis.error_reply('boom')", 2, "-ERR boom\r\n"},
		{"return redis.error_reply('-MY boom')", 2, "-MY boom\r\n"},
		{"return redis.status_reply('fine')", 2, "+fine\r\n"},
		{"return {double=1.5}", 2, "$3\r\n1.5\r\n"},
		{"return {double=1.5}", 3, ",1.5\r\n"},
		{"redis.setresp(3) return true", 3, "#t\r\n"},
		{"redis.setresp(3) return true", 2, ":1\r\n"},
		{"return {map={a=1}}", 3, "%1\r\n$1\r\na\r\n:1\r\n"},
		{"return {map={a=1}}", 2, "*2\r\n$1\r\na\r\n:1\r\n"},
		{"return {set={a=true}}", 3, "~1\r\n$1\r\na\r\n"},
		{"return {big_number='123'}", 3, "(123\r\n"},
		{"return {verbatim_string={format='txt', string='hi'}}", 3, "=6\r\ntxt:hi\r\n"},
		{"return redis.call('incr', KEYS[1])", 2, ":7\r\n"},
		{"return redis.call('get', 'k')", 2, "$3\r\nabc\r\n"},
		{"return redis.call('nil') == false", 2, ":1\r\n"},
		{"return redis.call('arr')", 2, "*2\r\n:1\r\n$1\r\nx\r\n"},
		{"return redis.call('ok')", 2, "+OK\r\n"},
		{"return type(redis.call('ok'))", 2, "$5\r\ntable\r\n"},
		{"return redis.pcall('err')", 2, "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"},
		{"redis.setresp(3) return redis.call('map3').map.f", 2, "$1\r\nv\r\n"},
		{"redis.setresp(3) return redis.call('double3').double * 2", 2, ":3\r\n"},
		{"return KEYS[1] .. ARGV[1]", 2, "$2\r\nka\r\n"},
		{"return tostring(1/3)", 2, "$16\r\n0.33333333333333\r\n"},
		{"return tostring(math.huge)", 2, "$3\r\ninf\r\n"},
		{"return redis.sha1hex('')", 2, "$40\r\nda39a3ee5e6b4b0d3255bfef95601890afd80709\r\n"},
		{"return pcall(function() x = 1 end)", 2, "$-1\r\n"},
		{"local t = {} for k in pairs(redis) do t[#t+1] = k end return #t > 10", 2, ":1\r\n"},
	} {
		if got := run(t, e, h, tc.body, tc.proto, []string{"k"}, []string{"a"}); got != tc.want {
			t.Errorf("%s (RESP%d): got %q, want %q", tc.body, tc.proto, got, tc.want)
		}
	}
}

func TestRunErrors(t *testing.T) {
	e := New()
	h := &fakeHost{replies: map[string]string{"err": "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"}}
	sha := func(body string) string { return SHA1Hex([]byte(body)) }
	for _, tc := range []struct{ body, want string }{
		{"return redis.call('err')", "-WRONGTYPE Operation against a key holding the wrong kind of value script: %s, on @user_script:1.\r\n"},
		{"return redis.call('nosuch')", "-ERR Unknown command called from script script: %s, on @user_script:1.\r\n"},
		{"error('boom')", "-ERR user_script:1: boom script: %s, on @user_script:1.\r\n"},
		{"\nerror({err='MY code'})", "-MY code script: %s, on @user_script:2.\r\n"},
		{"return x", "-ERR user_script:1: Script attempted to access nonexistent global variable 'x' script: %s, on @user_script:1.\r\n"},
		{"x = 1", "-ERR user_script:1: Attempt to modify a readonly table script: %s, on @user_script:1.\r\n"},
		{"string.foo = 1", "-ERR user_script:1: Attempt to modify a readonly table script: %s, on @user_script:1.\r\n"},
		{"return redis.call()", "-ERR Please specify at least one argument for this call script: %s, on @user_script:1.\r\n"},
		{"return redis.call({})", "-ERR Command arguments must be strings or integers script: %s, on @user_script:1.\r\n"},
		{"redis.setresp(4)", "-ERR RESP version must be 2 or 3. script: %s, on @user_script:1.\r\n"},
		{"redis.log(9, 'x')", "-ERR Invalid log level. script: %s, on @user_script:1.\r\n"},
		{"return print", "-ERR user_script:1: Script attempted to access nonexistent global variable 'print' script: %s, on @user_script:1.\r\n"},
		{"#!lua flags=bogus\nreturn 1", "-ERR Unexpected flag in script shebang: bogus\r\n"},
		{"#!python\nreturn 1", "-ERR Unexpected engine in script shebang: #!python\r\n"},
	} {
		want := tc.want
		if strings.Contains(want, "%s") {
			want = strings.Replace(want, "%s", sha(tc.body), 1)
		}
		if got := run(t, e, h, tc.body, 2, nil, nil); got != want {
			t.Errorf("%q: got %q, want %q", tc.body, got, want)
		}
	}
}

func TestStateIsolation(t *testing.T) {
	// A run cannot leave anything for the next one in the same State.
	e := New()
	h := &fakeHost{}
	run(t, e, h, "redis.setresp(3) pcall(function() string.rep = nil end)", 2, nil, nil)
	if got := run(t, e, h, "return {string.rep('a', 2), true}", 2, nil, nil); got != "*2\r\n$2\r\naa\r\n:1\r\n" {
		t.Fatalf("got %q", got)
	}
}

func TestMathRandomMatchesValkey(t *testing.T) {
	// Valkey 8.0.1: math.randomseed(0) then two math.random(1000000).
	e := New()
	got := run(t, e, &fakeHost{}, "math.randomseed(0) return {math.random(1000000), math.random(1000000)}", 2, nil, nil)
	if want := "*2\r\n:170829\r\n:749902\r\n"; got != want {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestMayLoop(t *testing.T) {
	for body, want := range map[string]bool{
		"return redis.call('incr', KEYS[1])":         false,
		"if ARGV[1] then return 1 else return 2 end": false,
		"for i = 1, 10 do end":                       true,
		"while true do end":                          true,
		"repeat until false":                         true,
		"for k, v in pairs(KEYS) do end":             true,
		"local function f() return 1 end return f()": true,
		"return loadstring('return 1')()":            true,
	} {
		sc, msg := New().Load([]byte(body))
		if sc == nil {
			t.Fatalf("%s: %s", body, msg)
		}
		if sc.MayLoop != want {
			t.Errorf("%s: MayLoop %v, want %v", body, sc.MayLoop, want)
		}
	}
}

func BenchmarkRunRateLimiter(b *testing.B) {
	e := New()
	h := &fakeHost{replies: map[string]string{"incr": ":2\r\n", "expire": ":1\r\n"}}
	sc, _ := e.Load([]byte("local c = redis.call('INCR', KEYS[1]) if c == 1 then redis.call('EXPIRE', KEYS[1], ARGV[1]) end return c"))
	w := resp.NewWriter(64)
	r := &Run{Script: sc, Keys: [][]byte{[]byte("rl:1")}, Args: [][]byte{[]byte("60")}, Host: h, W: w}
	b.ReportAllocs()
	for b.Loop() {
		h.calls = h.calls[:0]
		w.Reset()
		e.Run(r)
	}
}

func TestFunctions(t *testing.T) {
	e := New()
	load := func(code string, replace bool) string {
		lib, msg := e.CompileLibrary([]byte(code))
		if lib == nil {
			return msg
		}
		if msg := e.InstallLibrary(lib, replace); msg != "" {
			return msg
		}
		return "OK " + lib.Name
	}
	for _, tc := range []struct{ code, want string }{
		{"#!lua name=a\nredis.register_function('f', function(keys, args) return {keys[1], args[1]} end)", "OK a"},
		{"#!lua name=a\nredis.register_function('g', function() end)", "ERR Library 'a' already exists"},
		{"#!lua name=b\nredis.register_function('F', function() end)", "ERR Function F already exists"},
		{"return 1", "ERR Missing library metadata"},
		{"#!lua name=c\nlocal x = 1", "ERR No functions registered"},
		{"#!lua name=c\nredis.call('ping')", "ERR Error registering functions: ERR user_function:2: Script attempted to access nonexistent global variable 'call'"},
		{"#!lua name=c\nwhile true do end", "ERR Error registering functions: ERR FUNCTION LOAD timeout"},
	} {
		if got := load(tc.code, false); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.code, got, tc.want)
		}
	}
	f := e.Function("F") // names are case-insensitive
	if f == nil || f.Name != "f" {
		t.Fatalf("Function(F) = %v", f)
	}
	w := resp.NewWriter(64)
	e.Run(&Run{Function: f, Keys: [][]byte{[]byte("k")}, Args: [][]byte{[]byte("a")}, Host: &fakeHost{}, W: w})
	if got := string(w.Bytes()); got != "*2\r\n$1\r\nk\r\n$1\r\na\r\n" {
		t.Errorf("FCALL f: %q", got)
	}
	// Replacing the library changes what every State runs.
	if got := load("#!lua name=a\nredis.register_function('f', function() return 'new' end)", true); got != "OK a" {
		t.Fatal(got)
	}
	w.Reset()
	e.Run(&Run{Function: e.Function("f"), Host: &fakeHost{}, W: w})
	if got := string(w.Bytes()); got != "$3\r\nnew\r\n" {
		t.Errorf("after REPLACE: %q", got)
	}
	if libs, funcs := e.FunctionCounts(); libs != 1 || funcs != 1 {
		t.Errorf("counts %d %d", libs, funcs)
	}
}
