package script

import (
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// FuzzReplyToLua feeds arbitrary bytes to the RESP-to-Lua conversion a
// redis.call reply goes through, and the value back through the
// Lua-to-RESP conversion: neither may panic or loop, whatever a command
// (or a bug in one) writes.
func FuzzReplyToLua(f *testing.F) {
	for _, s := range []string{
		":1\r\n", "$3\r\nabc\r\n", "$-1\r\n", "*2\r\n:1\r\n$1\r\nx\r\n", "*-1\r\n", "+OK\r\n",
		"-ERR x\r\n", "%1\r\n$1\r\nf\r\n:1\r\n", "~2\r\n:1\r\n:2\r\n", ",1.5\r\n", ",inf\r\n",
		"#t\r\n", "_\r\n", "(123\r\n", "=6\r\ntxt:hi\r\n", "|1\r\n+a\r\n+b\r\n:1\r\n", "*3\r\n*1\r\n",
		"$10\r\nabc\r\n", "*99999999\r\n", "%-1\r\n",
	} {
		f.Add([]byte(s), uint8(2))
		f.Add([]byte(s), uint8(3))
	}
	e := New()
	f.Fuzz(func(t *testing.T, b []byte, proto uint8) {
		if len(b) > 1<<16 {
			return
		}
		st := e.state()
		defer e.pool.Put(st)
		st.resp = 2 + int(proto&1)
		st.run = &Run{Script: &Script{SHA: "x"}}
		v, _ := st.parseReply(b, 0)
		w := resp.NewWriter(64)
		w.Proto = 2 + int(proto>>1&1)
		st.writeReply(w, v, 0)
		st.L.SetTop(0)
	})
}

// FuzzLoad compiles arbitrary bodies: Load must answer with a script or
// an error text, never panic.
func FuzzLoad(f *testing.F) {
	for _, s := range []string{
		"return 1", "#!lua flags=no-writes\nreturn 1", "#!lua flags=bogus", "#!", "#!lua x=y",
		"return redis.call('get', KEYS[1])", "for i=1,10 do end", "local function f() end",
		"return {", "x = = 1", "\"unterminated", "--[[", "return 0x", "return 1e",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		e := New()
		sc, msg := e.Load(body)
		if (sc == nil) == (msg == "") {
			t.Fatalf("Load(%q): script %v, error %q", body, sc != nil, msg)
		}
	})
}
