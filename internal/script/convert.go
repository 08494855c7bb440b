package script

import (
	"strconv"
	"strings"

	lua "github.com/corvid-kv/corvid/internal/lua"
	"github.com/corvid-kv/corvid/internal/resp"
	"github.com/corvid-kv/corvid/internal/script/lualib"
)

// replyDepth is how deep Valkey's Lua-to-RESP conversion goes before
// "reached lua stack limit" (its C stack of 8000 slots, 4 checked per
// level); maxDepth bounds the RESP-to-Lua conversion of a called
// command's reply.
const (
	replyDepth = 7995
	maxDepth   = 1000
)

// writeReply writes v as Valkey's luaReplyToRedisReply: in w's protocol
// (the caller's), with booleans by the script's (redis.setresp).
func (st *State) writeReply(w *resp.Writer, v lua.LValue, depth int) {
	if depth >= replyDepth {
		w.Error("ERR reached lua stack limit")
		return
	}
	switch x := v.(type) {
	case lua.LString:
		w.BulkString(string(x))
	case lua.LBool:
		if st.resp == 2 {
			if x {
				w.Int(1)
			} else {
				w.Null()
			}
		} else {
			w.Bool(bool(x))
		}
	case lua.LNumber:
		w.Int(lualib.ToInt64(float64(x)))
	case *lua.LTable:
		st.writeTable(w, x, depth)
	default:
		w.Null()
	}
}

func (st *State) writeTable(w *resp.Writer, t *lua.LTable, depth int) {
	if s, ok := t.RawGetString("err").(lua.LString); ok {
		if depth == 0 && t.RawGetString("ignore_error_stats_update") == lua.LTrue {
			st.run.ErrorCounted = true
		}
		w.Error(strings.TrimRight(string(s), "\r\n"))
		return
	}
	if s, ok := t.RawGetString("ok").(lua.LString); ok {
		w.Simple(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s)))
		return
	}
	if n, ok := t.RawGetString("double").(lua.LNumber); ok {
		w.Double(float64(n))
		return
	}
	if s, ok := t.RawGetString("big_number").(lua.LString); ok {
		w.BigNumber(strings.NewReplacer("\r", " ", "\n", " ").Replace(string(s)))
		return
	}
	if vt, ok := t.RawGetString("verbatim_string").(*lua.LTable); ok {
		f, fok := vt.RawGetString("format").(lua.LString)
		s, sok := vt.RawGetString("string").(lua.LString)
		if fok && sok {
			// The format is 3 bytes on the wire: Valkey copies 3.
			format := string(f)
			if len(format) > 3 {
				format = format[:3]
			}
			w.Verbatim(format, string(s))
			return
		}
	}
	if m, ok := t.RawGetString("map").(*lua.LTable); ok {
		keys, values := lualib.LuaOrder(m)
		w.MapLen(len(keys))
		for i := range keys {
			st.writeReply(w, keys[i], depth+1)
			st.writeReply(w, values[i], depth+1)
		}
		return
	}
	if s, ok := t.RawGetString("set").(*lua.LTable); ok {
		keys, _ := lualib.LuaOrder(s)
		w.SetLen(len(keys))
		for _, k := range keys {
			st.writeReply(w, k, depth+1)
		}
		return
	}
	n := 0
	for t.RawGetInt(n+1) != lua.LNil {
		n++
	}
	w.ArrayLen(n)
	for i := 1; i <= n; i++ {
		st.writeReply(w, t.RawGetInt(i), depth+1)
	}
}

// parseReply converts one RESP reply (in the script's protocol) to the
// Lua value redis.call returns, as Valkey's RESP-to-Lua conversion:
// errors and statuses become {err=...} and {ok=...}, RESP2's nulls false,
// RESP3's nil, maps {map=...}, sets {set=...}, doubles {double=...}, big
// numbers {big_number=...}, verbatim strings {verbatim_string=...}. It
// returns the value and the bytes after it.
func (st *State) parseReply(b []byte, depth int) (lua.LValue, []byte) {
	L := st.L
	if len(b) < 3 || depth > maxDepth {
		return lua.LNil, nil
	}
	line, rest := splitLine(b[1:])
	switch b[0] {
	case '+':
		t := L.NewTable()
		t.RawSetString("ok", lua.LString(line))
		return t, rest
	case '-':
		return st.errorTable("-" + string(line)), rest
	case ':':
		n, _ := strconv.ParseInt(string(line), 10, 64)
		return lua.LNumber(n), rest
	case '$':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, rest
		}
		if n > len(rest)-2 {
			return lua.LNil, nil
		}
		return lua.LString(rest[:n]), rest[n+2:]
	case '=':
		n, _ := strconv.Atoi(string(line))
		if n < 4 || n > len(rest)-2 {
			return lua.LNil, nil
		}
		s := rest[:n]
		vt := L.NewTable()
		vt.RawSetString("format", lua.LString(s[:3]))
		vt.RawSetString("string", lua.LString(s[4:]))
		t := L.NewTable()
		t.RawSetString("verbatim_string", vt)
		return t, rest[n+2:]
	case '*', '>':
		n, _ := strconv.Atoi(string(line))
		if n < 0 {
			return lua.LFalse, rest
		}
		// Every element takes 3 bytes or more: a count the bytes cannot
		// hold is a malformed reply, not a size to allocate.
		// Valkey makes it with lua_newtable (# of it with holes
		// depends on that); the room is only a hint.
		t := L.NewTableCap(min(n, len(rest)/3), 0)
		for i := 1; i <= n && rest != nil; i++ {
			var v lua.LValue
			v, rest = st.parseReply(rest, depth+1)
			t.RawSetInt(i, v)
		}
		return t, rest
	case '%', '~':
		n, _ := strconv.Atoi(string(line))
		inner := L.NewTable()
		for i := 0; i < n && rest != nil; i++ {
			var k, v lua.LValue
			k, rest = st.parseReply(rest, depth+1)
			if b[0] == '%' {
				v, rest = st.parseReply(rest, depth+1)
			} else {
				v = lua.LTrue
			}
			if k == lua.LNil {
				continue // Lua tables have no nil key
			}
			if n, ok := k.(lua.LNumber); ok && n != n {
				continue // nor NaN
			}
			inner.RawSet(k, v)
		}
		t := L.NewTable()
		if b[0] == '%' {
			t.RawSetString("map", inner)
		} else {
			t.RawSetString("set", inner)
		}
		return t, rest
	case '|':
		// Attributes are dropped; the reply follows.
		n, _ := strconv.Atoi(string(line))
		for i := 0; i < 2*n && rest != nil; i++ {
			_, rest = st.parseReply(rest, depth+1)
		}
		return st.parseReply(rest, depth)
	case '_':
		return lua.LNil, rest
	case '#':
		return lua.LBool(len(line) > 0 && line[0] == 't'), rest
	case ',':
		f, _ := strconv.ParseFloat(string(line), 64)
		t := L.NewTable()
		t.RawSetString("double", lua.LNumber(f))
		return t, rest
	case '(':
		t := L.NewTable()
		t.RawSetString("big_number", lua.LString(line))
		return t, rest
	}
	return lua.LNil, nil
}

func splitLine(b []byte) (line, rest []byte) {
	for i := 0; i+1 < len(b); i++ {
		if b[i] == '\r' && b[i+1] == '\n' {
			return b[:i], b[i+2:]
		}
	}
	return b, nil
}
