package script

import (
	"crypto/sha1"
	"encoding/hex"
	"math"
	"strconv"
	"syscall"

	lua "github.com/corvid-kv/corvid/internal/lua"
	"github.com/corvid-kv/corvid/internal/resp"
	"github.com/corvid-kv/corvid/internal/script/lualib"
)

// The version fields of the server table, Valkey 8.0.1's.
const (
	valkeyVersion    = "8.0.1"
	valkeyVersionNum = 0x080001
	redisVersion     = "7.2.4"
	redisVersionNum  = 0x070204
)

// newAPI builds the server table (also named redis).
func (st *State) newAPI() *lua.LTable {
	L := st.L
	t := L.NewTable()
	fns := map[string]lua.LGFunction{
		"call":               func(L *lua.LState) int { return st.call(L, true) },
		"pcall":              func(L *lua.LState) int { return st.call(L, false) },
		"error_reply":        st.errorReply,
		"status_reply":       st.statusReply,
		"sha1hex":            st.sha1hex,
		"log":                st.log,
		"setresp":            st.setresp,
		"set_repl":           st.setRepl,
		"replicate_commands": func(L *lua.LState) int { L.Push(lua.LTrue); return 1 },
		"breakpoint":         func(L *lua.LState) int { L.Push(lua.LFalse); return 1 },
		"debug":              func(L *lua.LState) int { return 0 },
		"acl_check_cmd":      st.aclCheckCmd,
	}
	for name, fn := range fns {
		t.RawSetString(name, L.NewFunction(fn))
	}
	for name, v := range map[string]lua.LValue{
		"SERVER_NAME":        lua.LString("valkey"),
		"REDIS_VERSION":      lua.LString(redisVersion),
		"REDIS_VERSION_NUM":  lua.LNumber(redisVersionNum),
		"VALKEY_VERSION":     lua.LString(valkeyVersion),
		"VALKEY_VERSION_NUM": lua.LNumber(valkeyVersionNum),
		"LOG_DEBUG":          lua.LNumber(LogDebug),
		"LOG_VERBOSE":        lua.LNumber(LogVerbose),
		"LOG_NOTICE":         lua.LNumber(LogNotice),
		"LOG_WARNING":        lua.LNumber(LogWarning),
		"REPL_NONE":          lua.LNumber(ReplNone),
		"REPL_AOF":           lua.LNumber(ReplAOF),
		"REPL_SLAVE":         lua.LNumber(ReplReplica),
		"REPL_REPLICA":       lua.LNumber(ReplReplica),
		"REPL_ALL":           lua.LNumber(ReplAll),
	} {
		t.RawSetString(name, v)
	}
	return t
}

// raise raises Valkey's error table for text (luaPushError + luaError).
func (st *State) raise(text string) int {
	st.L.Error(st.errorTable(text), 0)
	return 0
}

// call is redis.call (raise) and redis.pcall.
func (st *State) call(L *lua.LState, raise bool) int {
	fail := func(text string) int {
		if raise {
			return st.raise(text)
		}
		L.Push(st.errorTable(text))
		return 1
	}
	if st.killed.Load() {
		return st.raise("Script killed by user with SCRIPT KILL...")
	}
	n := L.GetTop()
	if n == 0 {
		return fail("Please specify at least one argument for this call")
	}
	size := 0
	for i := 1; i <= n; i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			size += len(v)
		case lua.LNumber:
			size += 24
		default:
			return fail("Command arguments must be strings or integers")
		}
	}
	// One buffer for every argument, the State's: a command keeps no
	// argv once it has returned (the server's invariant: argv aliases a
	// read buffer), so the next call may reuse it.
	if cap(st.argBuf) < size || cap(st.argBuf) > 1<<20 && size < 1<<16 {
		st.argBuf = make([]byte, 0, max(size, 256))
	}
	buf := st.argBuf[:0]
	if cap(st.argv) < n {
		st.argv = make([][]byte, n)
	}
	argv := st.argv[:n]
	for i := 1; i <= n; i++ {
		start := len(buf)
		switch v := L.Get(i).(type) {
		case lua.LString:
			buf = append(buf, v...)
		case lua.LNumber:
			buf = appendArgNumber(buf, float64(v))
		}
		argv[i-1] = buf[start:len(buf):len(buf)]
	}
	reply, ran := st.run.Host.Call(argv, st.resp)
	if reply == nil {
		// The host abandons the run (to run it again): stop it as
		// SCRIPT KILL does, without a reply.
		st.aborted = true
		st.cancel()
		L.RaiseError("run abandoned")
		return 0
	}
	if st.killed.Load() {
		return st.raise("Script killed by user with SCRIPT KILL...")
	}
	v, _ := st.parseReply(reply, 0)
	if t, ok := v.(*lua.LTable); ok && len(reply) > 0 && reply[0] == '-' {
		if ran {
			// The command's error was counted when it was replied:
			// the script's reply made of it is not counted again.
			t.RawSetString("ignore_error_stats_update", lua.LTrue)
		}
		if raise {
			L.Error(t, 0)
			return 0
		}
	}
	L.Push(v)
	return 1
}

// appendArgNumber converts a number argument as Valkey's
// luaArgsToRedisArgv: as an integer when the double is one (double2ll),
// else fpconv_dtoa's shortest digits (resp.AppendDouble's layout).
func appendArgNumber(b []byte, f float64) []byte {
	if f == 0 {
		return append(b, '0') // double2ll takes -0 as 0
	}
	return resp.AppendDouble(b, f)
}

func (st *State) singleField(L *lua.LState, field string) int {
	if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
		L.Push(st.errorTable("wrong number or type of arguments"))
		return 1
	}
	t := L.NewTable()
	t.RawSetString(field, L.Get(1))
	L.Push(t)
	return 1
}

func (st *State) statusReply(L *lua.LState) int { return st.singleField(L, "ok") }

func (st *State) errorReply(L *lua.LState) int {
	if L.GetTop() != 1 || L.Get(1).Type() != lua.LTString {
		L.Push(st.errorTable("wrong number or type of arguments"))
		return 1
	}
	s := string(L.Get(1).(lua.LString))
	if len(s) == 0 || s[0] != '-' {
		s = "-" + s
	}
	L.Push(st.errorTable(s))
	return 1
}

func (st *State) sha1hex(L *lua.LState) int {
	if L.GetTop() != 1 {
		return st.raise("wrong number of arguments")
	}
	var s string
	switch v := L.Get(1).(type) {
	case lua.LString:
		s = string(v)
	case lua.LNumber:
		s = lualib.NumberToString(float64(v))
	}
	sum := sha1.Sum([]byte(s))
	L.Push(lua.LString(hex.EncodeToString(sum[:])))
	return 1
}

func (st *State) log(L *lua.LState) int {
	n := L.GetTop()
	if n < 2 {
		return st.raise("server.log() requires two arguments or more.")
	}
	lv, ok := toNumber(L.Get(1))
	if !ok {
		return st.raise("First argument must be a number (log level).")
	}
	if lv < LogDebug || lv > LogWarning {
		return st.raise("Invalid log level.")
	}
	var msg []byte
	for i := 2; i <= n; i++ {
		var s string
		switch v := L.Get(i).(type) {
		case lua.LString:
			s = string(v)
		case lua.LNumber:
			s = lualib.NumberToString(float64(v))
		default:
			continue
		}
		if i != 2 {
			msg = append(msg, ' ')
		}
		msg = append(msg, s...)
	}
	st.run.Host.Log(int(lv), string(msg))
	return 0
}

func (st *State) setresp(L *lua.LState) int {
	if L.GetTop() != 1 {
		return st.raise("server.setresp() requires one argument.")
	}
	n, _ := toNumber(L.Get(1))
	v := int(n)
	if v != 2 && v != 3 {
		return st.raise("RESP version must be 2 or 3.")
	}
	st.resp = v
	return 0
}

func (st *State) setRepl(L *lua.LState) int {
	if L.GetTop() != 1 {
		return st.raise("server.set_repl() requires one argument.")
	}
	n, _ := toNumber(L.Get(1))
	f := int(n)
	if f&^ReplAll != 0 {
		return st.raise("Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.")
	}
	st.run.Repl = f
	return 0
}

// aclCheckCmd answers whether the calling user may run the command
// (Valkey's acl_check_cmd): a boolean for a known command, Valkey's error
// for an unknown one.
func (st *State) aclCheckCmd(L *lua.LState) int {
	if L.GetTop() < 1 {
		return st.raise("Please specify at least one argument for this call")
	}
	var argv [][]byte
	for i := 1; i <= L.GetTop(); i++ {
		switch v := L.Get(i).(type) {
		case lua.LString:
			argv = append(argv, []byte(v))
		case lua.LNumber:
			argv = append(argv, appendArgNumber(nil, float64(v)))
		default:
			return st.raise("Command arguments must be strings or integers")
		}
	}
	if !st.run.Host.Known(argv) {
		return st.raise("Invalid command passed to server.acl_check_cmd()")
	}
	L.Push(lua.LBool(st.run.Host.Allowed(argv)))
	return 1
}

// toNumber is lua_tonumber: numbers, and strings that read as one.
func toNumber(v lua.LValue) (float64, bool) {
	switch x := v.(type) {
	case lua.LNumber:
		return float64(x), true
	case lua.LString:
		f, err := strconv.ParseFloat(string(x), 64)
		return f, err == nil
	}
	return 0, false
}

// openMath replaces math.random and math.randomseed with Valkey's
// (redisLrand48: math.randomseed(n) gives the same numbers as on Valkey;
// unseeded, each State starts from a random seed, as Valkey 8 no longer
// reseeds before each script), and sets math.huge to infinity
// (gopher-lua's is the largest finite double).
func (st *State) openMath(m *lua.LTable) {
	L := st.L
	m.RawSetString("huge", lua.LNumber(math.Inf(1)))
	m.RawSetString("random", L.NewFunction(func(L *lua.LState) int {
		const max = 2147483647
		var x uint64
		st.rand, x = lrand48(st.rand)
		r := float64(x%max) / max
		switch L.GetTop() {
		case 0:
			L.Push(lua.LNumber(r))
		case 1:
			u := L.CheckNumber(1)
			if !(1 <= u) {
				L.ArgError(1, "interval is empty")
			}
			L.Push(lua.LNumber(math.Floor(r*float64(u)) + 1))
		case 2:
			l, u := L.CheckNumber(1), L.CheckNumber(2)
			if !(l <= u) {
				L.ArgError(2, "interval is empty")
			}
			L.Push(lua.LNumber(math.Floor(r*float64(u-l+1)) + float64(l)))
		default:
			L.RaiseError("wrong number of arguments")
		}
		return 1
	}))
	m.RawSetString("randomseed", L.NewFunction(func(L *lua.LState) int {
		st.rand = srand48(int32(lualib.ToInt64(float64(L.CheckNumber(1)))))
		return 0
	}))
}

// srand48 and lrand48 are Valkey's rand.c (the 48-bit generator of
// drand48, kept so scripts see the same numbers everywhere).
func srand48(seed int32) uint64 {
	return (uint64(uint32(seed))<<16 | 0x330e) & (1<<48 - 1)
}

func lrand48(x uint64) (uint64, uint64) {
	x = (0x5deece66d*x + 0xb) & (1<<48 - 1)
	return x, x >> 17
}

// cpuTime is the process's user+system CPU time in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
