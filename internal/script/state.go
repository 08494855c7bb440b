package script

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	lua "github.com/corvid-kv/corvid/internal/lua"
	"github.com/corvid-kv/corvid/internal/resp"
	"github.com/corvid-kv/corvid/internal/script/lualib"
)

// Host runs what a script asks of the server. Its methods are called on
// the goroutine running the script.
type Host interface {
	// Call runs argv as a command called from the script and returns its
	// reply as RESP in protocol proto (2 or 3): an error reply ("-...")
	// when the command failed or was refused; ran is false when the
	// command was refused before it ran (its error is the script's to
	// count). A nil reply abandons the run. The bytes are valid until the
	// next Call.
	Call(argv [][]byte, proto int) (reply []byte, ran bool)
	// Log writes a redis.log line at a Valkey level (LogDebug..LogWarning).
	Log(level int, msg string)
	// Wrote reports whether the run has written (SCRIPT KILL refuses
	// to stop a script that has). Any goroutine.
	Wrote() bool
	// Known reports whether argv names a command (with its subcommand)
	// that exists, for acl_check_cmd.
	Known(argv [][]byte) bool
	// Allowed reports whether the calling client's ACL user may run
	// argv (a known command), for acl_check_cmd.
	Allowed(argv [][]byte) bool
}

// Log levels of redis.log, Valkey's LL_*.
const (
	LogDebug = iota
	LogVerbose
	LogNotice
	LogWarning
)

// Replication flags of redis.set_repl, Valkey's PROPAGATE_*.
const (
	ReplNone    = 0
	ReplAOF     = 1
	ReplReplica = 2
	ReplAll     = ReplAOF | ReplReplica
)

// Run is one invocation of a script (Script) or of a function
// (Function).
type Run struct {
	Script   *Script
	Function *Function
	Keys     [][]byte
	Args     [][]byte
	Host     Host
	// W is the caller's reply writer; the script's value (or error) is
	// written to it in W.Proto.
	W *resp.Writer
	// Repl is what redis.set_repl left (ReplAll unless the script
	// changed it).
	Repl int
	// ErrorCounted: the run replied with an error a command it called
	// replied (already counted in the error statistics).
	ErrorCounted bool
	// Name is what errors call the run: the script's SHA1 or the
	// function's name (set by Run).
	Name string
	// Argv is the command that runs it (FUNCTION STATS); it must not
	// change while the run lasts.
	Argv [][]byte
}

// State is one Lua interpreter with Valkey's sandbox. See the package
// invariants.
type State struct {
	e  *Engine
	L  *lua.LState
	gt *lua.LTable // the real globals, behind the read-only proxy env

	env     *lua.LTable // the proxy the chunks see as _G
	fenv    *lua.LTable // functions' globals (no KEYS, ARGV)
	fapi    *lua.LTable // functions' server table
	libs    map[*Library]map[string]*lua.LFunction
	proxies map[*lua.LTable]*lua.LTable // proxy -> the table it guards
	fns     map[*Script]*lua.LFunction  // this State's closures
	gen     uint64                      // e.gen the closures belong to
	errfn   *lua.LFunction              // the error handler of a run
	keysT   *lua.LTable                 // KEYS, refilled for every run
	argvT   *lua.LTable                 // ARGV
	argBuf  []byte                      // redis.call's arguments, reused (commands keep no argv)
	argv    [][]byte
	rand    uint64 // redisLrand48's state

	ctx      context.Context
	cancel   context.CancelFunc
	killed   atomic.Bool
	silenced atomic.Bool // stopped by StopAll: the run ends without a reply
	// aborted: the host abandoned the run (Host.Call returned nil).
	aborted bool

	born    uint64 // e.gen when the State was made
	libGen  uint64 // e.fgen the library closures belong to
	run     *Run
	resp    int // redis.setresp
	started time.Time
}

func (e *Engine) state() *State {
	if st, _ := e.pool.Get().(*State); st != nil {
		if st.born == e.gen.Load() {
			return st
		}
		st.L.Close() // made before SCRIPT FLUSH: Valkey starts a new Lua
	}
	return e.newState()
}

func (e *Engine) newState() *State {
	L := lua.NewState(lua.Options{SkipOpenLibs: true, RegistrySize: 1024 * 16, RegistryMaxSize: 1024 * 256})
	st := &State{e: e, L: L, proxies: map[*lua.LTable]*lua.LTable{}, fns: map[*Script]*lua.LFunction{},
		libs: map[*Library]map[string]*lua.LFunction{}, born: e.gen.Load()}
	for _, lib := range []struct {
		name string
		fn   lua.LGFunction
	}{
		{lua.BaseLibName, lua.OpenBase},
		{lua.TabLibName, lua.OpenTable},
		{lua.StringLibName, lua.OpenString},
		{lua.MathLibName, lua.OpenMath},
		{lua.CoroutineLibName, lua.OpenCoroutine},
	} {
		L.Push(L.NewFunction(lib.fn))
		L.Push(lua.LString(lib.name))
		L.Call(1, 0)
	}
	lualib.Open(L)
	g := L.G.Global
	st.gt = g
	// What Valkey's sandbox leaves out of the base library.
	for _, name := range []string{"print", "dofile", "loadfile", "module", "require", "_printregs", "package", "_GOPHER_LUA_VERSION"} {
		g.RawSetString(name, lua.LNil)
	}
	// os: only clock.
	osT := L.NewTable()
	osT.RawSetString("clock", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LNumber(float64(processCPU()) / 1e9))
		return 1
	}))
	g.RawSetString("os", osT)
	st.openBase(g)
	st.openMath(g.RawGetString("math").(*lua.LTable))
	st.rand = srand48(int32(rand.Uint32()))
	api := st.newAPI()
	g.RawSetString("redis", api)
	g.RawSetString("server", api)
	// pairs and next see through the read-only proxies. The wrappers
	// here run the function they wrap in their own call (GFunction), so
	// that its argument errors name the function as the script called
	// it ("bad argument #1 to 'next'").
	baseNext := g.RawGetString("next").(*lua.LFunction)
	next := L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		if real := st.proxies[t]; real != nil {
			L.Replace(1, real)
		}
		return baseNext.GFunction(L)
	})
	g.RawSetString("next", next)
	g.RawSetString("pairs", L.NewFunction(func(L *lua.LState) int {
		t := L.CheckTable(1)
		if real := st.proxies[t]; real != nil {
			t = real
		}
		L.Push(baseNext)
		L.Push(t)
		L.Push(lua.LNil)
		return 3
	}))
	// Library tables and the globals become read-only.
	for _, name := range []string{"string", "table", "math", "coroutine", "os", "cjson", "cmsgpack", "bit", "struct"} {
		if t, ok := g.RawGetString(name).(*lua.LTable); ok {
			g.RawSetString(name, st.readOnly(t))
		}
	}
	p := st.readOnly(api)
	g.RawSetString("redis", p)
	g.RawSetString("server", p)
	// Functions see the same globals but a server table without the
	// EVAL-only entries.
	st.fapi = L.NewTable()
	api.ForEach(func(k, v lua.LValue) {
		switch k.String() {
		case "breakpoint", "debug", "replicate_commands":
		default:
			st.fapi.RawSet(k, v)
		}
	})
	missing := L.NewTable()
	missing.RawSetString("__index", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Script attempted to access nonexistent global variable '%s'", L.ToString(2))
		return 0
	}))
	L.SetMetatable(g, missing)
	st.env = st.readOnly(g)
	g.RawSetString("_G", st.env)
	fg := L.NewTable()
	fp := st.readOnly(st.fapi)
	fg.RawSetString("redis", fp)
	fg.RawSetString("server", fp)
	fmt := L.NewTable()
	fmt.RawSetString("__index", g)
	L.SetMetatable(fg, fmt)
	st.fenv = st.readOnly(fg)
	st.errfn = L.NewFunction(st.errorHandler)
	L.LoadErrorFunc = st.errfn
	st.keysT, st.argvT = L.NewTable(), L.NewTable()
	g.RawSetString("KEYS", st.keysT)
	g.RawSetString("ARGV", st.argvT)
	g.RawSetString("__redis__err__handler", st.errfn)
	// Strings' methods go through the read-only string table too.
	if smt, ok := L.GetMetatable(lua.LString("")).(*lua.LTable); ok {
		smt.RawSetString("__index", g.RawGetString("string"))
	}
	st.guardBase(g)
	st.ctx, st.cancel = context.WithCancel(context.Background())
	L.SetContext(st.ctx)
	return st
}

// readOnly returns a proxy of t: reads go to t, writes raise Valkey's
// error.
func (st *State) readOnly(t *lua.LTable) *lua.LTable {
	L := st.L
	p := L.NewTable()
	mt := L.NewTable()
	mt.RawSetString("__index", t)
	mt.RawSetString("__newindex", L.NewFunction(func(L *lua.LState) int {
		L.RaiseError("Attempt to modify a readonly table")
		return 0
	}))
	L.SetMetatable(p, mt)
	st.proxies[p] = t
	return p
}

// closure returns this State's function for s.
func (st *State) closure(s *Script) *lua.LFunction {
	if g := st.e.gen.Load(); g != st.gen {
		clear(st.fns)
		st.gen = g
	}
	fn := st.fns[s]
	if fn == nil {
		fn = st.L.NewFunctionFromProto(s.proto)
		fn.Env = st.env
		st.fns[s] = fn
	}
	return fn
}

// Run runs r.Script and writes its reply to r.W.
func (e *Engine) Run(r *Run) {
	st := e.state()
	L := st.L
	r.Repl = ReplAll
	r.ErrorCounted = false
	st.run = r
	st.resp = 2
	if st.libGen != e.fgen.Load() {
		// A library was loaded, replaced or deleted: closures of the
		// libraries as they were are dropped (and made again on use).
		clear(st.libs)
		st.libGen = e.fgen.Load()
	}
	var fn *lua.LFunction
	nargs := 0
	if r.Function != nil {
		r.Name = r.Function.Name
		var msg string
		if fn, msg = st.functionClosure(r.Function); fn == nil {
			if msg == "" {
				msg = "ERR Function not found"
			}
			r.W.Error(msg)
			st.run = nil
			e.pool.Put(st)
			return
		}
		// A function gets its keys and arguments as parameters, and no
		// KEYS or ARGV global.
		st.gt.RawSetString("KEYS", lua.LNil)
		st.gt.RawSetString("ARGV", lua.LNil)
		L.Push(fn)
		L.Push(fillArgs(st.keysT, r.Keys))
		L.Push(fillArgs(st.argvT, r.Args))
		nargs = 2
	} else {
		r.Name = r.Script.SHA
		// KEYS and ARGV stay bound to the State's two tables; their
		// contents change.
		fillArgs(st.keysT, r.Keys)
		fillArgs(st.argvT, r.Args)
		fn = st.closure(r.Script)
		L.Push(fn)
	}
	st.started = time.Now()
	e.runMu.Lock()
	e.running[st] = struct{}{}
	if !e.watching.Load() {
		e.watching.Store(true)
		go e.watch()
	}
	e.runMu.Unlock()

	err := L.PCall(nargs, 1, st.errfn)

	e.runMu.Lock()
	delete(e.running, st)
	killed := st.killed.Load()
	if len(e.running) == 0 {
		e.busy.Store(false) // not at the watchdog's next tick
	}
	e.runMu.Unlock()
	if h := r.hints(); h.MayLoop {
		h.Quick.Store(time.Since(st.started) < QuickRun)
	}
	if st.aborted || st.silenced.Load() {
		// Nothing is written: the host runs the script again, or the
		// server is shutting down.
	} else if err != nil {
		var v lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			v = ae.Object
		}
		if s, ok := v.(lua.LString); ok && !killed {
			// The handler could not run (the Lua stack overflowed):
			// build its table from the message's position.
			t := L.NewTable()
			t.RawSetString("err", lua.LString("ERR "+luaMessage(string(s))))
			if rest, ok := strings.CutPrefix(string(s), "user_script:"); ok {
				if n, _, ok := strings.Cut(rest, ":"); ok {
					t.RawSetString("source", lua.LString("@user_script"))
					t.RawSetString("line", lua.LString(n))
				}
			}
			v = t
		}
		if killed {
			// Whatever the script raised (or caught) after the kill.
			t, ok := v.(*lua.LTable)
			if !ok {
				t = L.NewTable()
			}
			t.RawSetString("err", lua.LString(killedError))
			v = t
		}
		st.writeError(v)
	} else {
		st.writeReply(r.W, L.Get(-1), 0)
	}
	L.SetTop(0)
	clearArgs(st.keysT)
	clearArgs(st.argvT)
	if r.Function != nil {
		st.gt.RawSetString("KEYS", st.keysT)
		st.gt.RawSetString("ARGV", st.argvT)
	}
	st.run = nil
	if killed || st.aborted {
		st.silenced.Store(false)
		st.killed.Store(false)
		st.aborted = false
		st.ctx, st.cancel = context.WithCancel(context.Background())
		L.SetContext(st.ctx)
	}
	e.pool.Put(st)
}

// hints returns the run's script's or function's Hints.
func (r *Run) hints() *Hints {
	if r.Function != nil {
		return &r.Function.Hints
	}
	return &r.Script.Hints
}

// fillArgs makes the empty table t the list of args.
func fillArgs(t *lua.LTable, args [][]byte) *lua.LTable {
	for i, a := range args {
		t.RawSetInt(i+1, lua.LString(a))
	}
	return t
}

// clearArgs empties t after a run (the run's arguments are not kept
// alive by the State; whatever the script added to the table goes too).
// To Lua the table is a new one again, as Valkey makes KEYS and ARGV
// for every run (lua_newtable), so # of them answers as there.
func clearArgs(t *lua.LTable) {
	t.Clear()
	t.Metatable = lua.LNil
}

// killedError is the error of a run stopped by SCRIPT KILL.
const killedError = "ERR Script killed by user with SCRIPT KILL..."

// errorHandler is Valkey's __server__err__handler: it turns what the
// script raised into an error table ({err=...}) and adds where it was
// raised (source and line of the innermost Lua function).
func (st *State) errorHandler(L *lua.LState) int {
	v := L.Get(1)
	t, ok := v.(*lua.LTable)
	if !ok {
		s := "nil"
		switch x := v.(type) {
		case lua.LString:
			s = luaMessage(string(x))
		case lua.LNumber:
			s = lualib.NumberToString(float64(x))
		case *lua.LNilType:
			s = "nil"
		default:
			s = v.String()
		}
		t = L.NewTable()
		t.RawSetString("err", lua.LString("ERR "+s))
	}
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if _, err := L.GetInfo("Sl", dbg, lua.LNil); err != nil {
			break
		}
		if dbg.What == "G" {
			continue
		}
		t.RawSetString("source", lua.LString(dbg.Source))
		t.RawSetString("line", lua.LNumber(dbg.CurrentLine))
		break
	}
	L.Push(t)
	return 1
}

// errorTable is luaPushErrorBuff's table for an error text: "-CODE msg"
// keeps its code, a text without one gets ERR.
func (st *State) errorTable(text string) *lua.LTable {
	t := st.L.NewTable()
	t.RawSetString("err", lua.LString(errorText(text)))
	return t
}

func errorText(text string) string {
	var code, msg string
	if strings.HasPrefix(text, "-") {
		if i := strings.IndexByte(text, ' '); i < 0 {
			code, msg = "ERR", text[1:]
		} else {
			code, msg = text[1:i], text[i+1:]
		}
	} else {
		code, msg = "ERR", text
	}
	return code + " " + strings.Trim(msg, "\r\n")
}

// writeError writes the error a run ended with, as Valkey's
// luaCallFunction does.
func (st *State) writeError(v lua.LValue) {
	w := st.run.W
	t, ok := v.(*lua.LTable)
	if !ok {
		msg := "execution failure"
		if s, ok := v.(lua.LString); ok {
			msg = string(s)
		}
		if len(msg) > 100 {
			msg = msg[:100]
		}
		w.Error("ERR Error running script " + st.run.Name + ", " + msg)
		return
	}
	// luaExtractErrorInformation: lua_getfield (the table's __index
	// too, run protected here: an __index that fails reads the fields
	// raw), strings and numbers (lua_isstring) as text.
	L := st.L
	get := func(name string) lua.LValue { return t.RawGetString(name) }
	if mt, ok := L.GetMetatable(t).(*lua.LTable); ok && mt.RawGetString("__index") != lua.LNil {
		vals := map[string]lua.LValue{}
		read := L.NewFunction(func(L *lua.LState) int {
			for _, name := range []string{"err", "source", "line", "ignore_error_stats_update"} {
				vals[name] = L.GetField(t, name)
			}
			return 0
		})
		L.Push(read)
		if err := L.PCall(0, 0, nil); err == nil {
			get = func(name string) lua.LValue { return vals[name] }
		}
	}
	field := func(name string) (string, bool) {
		switch x := get(name).(type) {
		case lua.LString:
			return string(x), true
		case lua.LNumber:
			return lualib.NumberToString(float64(x)), true
		}
		return "", false
	}
	out, _ := field("err")
	if b, ok := get("ignore_error_stats_update").(lua.LBool); ok && bool(b) {
		st.run.ErrorCounted = true
	}
	src, sok := field("source")
	line, lok := field("line")
	if sok && lok {
		out += " script: " + st.run.Name + ", on " + src + ":" + line + "."
	}
	w.Error(out)
}

func luaToString(v lua.LValue) string {
	if n, ok := v.(lua.LNumber); ok {
		return lualib.NumberToString(float64(n))
	}
	return v.String()
}

// processCPU is the process's CPU time in nanoseconds (os.clock).
func processCPU() int64 { return cpuTime() }

// openBase replaces the base functions whose behaviour Valkey changed or
// gopher-lua words differently: pcall (an error table with a string err
// field is caught as that string, Valkey's luaRedisPcall) and error
// (Lua 5.1 prefixes numbers with the position too, and raises nil when
// called without a value).
func (st *State) openBase(g *lua.LTable) {
	L := st.L
	g.RawSetString("tonumber", L.NewFunction(luaTonumber))
	// gcinfo: Lua 5.1's deprecated collectgarbage("count") in whole KB
	// (gopher-lua's count is the Go heap's).
	collect := g.RawGetString("collectgarbage").(*lua.LFunction)
	g.RawSetString("gcinfo", L.NewFunction(func(L *lua.LState) int {
		L.Push(collect)
		L.Push(lua.LString("count"))
		L.Call(1, 1)
		n, _ := L.Get(-1).(lua.LNumber)
		L.Pop(1)
		L.Push(lua.LNumber(math.Floor(float64(n))))
		return 1
	}))
	str := g.RawGetString("string").(*lua.LTable)
	str.RawSetString("format", L.NewFunction(luaFormat))
	str.RawSetString("char", L.NewFunction(luaChar))
	basePcall := g.RawGetString("pcall").(*lua.LFunction)
	g.RawSetString("pcall", L.NewFunction(func(L *lua.LState) int {
		if L.GetTop() == 0 {
			// Valkey's luaRedisPcall calls the true it pushed first
			L.Push(lua.LFalse)
			L.Push(lua.LString("attempt to call a boolean value"))
			return 2
		}
		n := basePcall.GFunction(L) // its n results are on top
		first := L.GetTop() - n + 1
		if ok, _ := L.Get(first).(lua.LBool); !ok && n >= 2 {
			switch e := L.Get(first + 1).(type) {
			case *lua.LTable:
				// lua_getfield: the table's __index too
				switch s := L.GetField(e, "err").(type) {
				case lua.LString:
					L.Replace(first+1, s)
				case lua.LNumber:
					L.Replace(first+1, s)
				}
			case lua.LString:
				L.Replace(first+1, lua.LString(luaMessage(string(e))))
			}
		}
		return n
	}))
	g.RawSetString("error", L.NewFunction(func(L *lua.LState) int {
		v := L.Get(1)
		level := L.OptInt(2, 1)
		if level > 0 {
			where := L.Where(level)
			if strings.HasPrefix(where, "[G]") {
				where = "" // a Go function (Lua's C level) has no position
			}
			switch x := v.(type) {
			case lua.LString:
				v = lua.LString(where + " " + string(x))
			case lua.LNumber:
				v = lua.LString(where + " " + lualib.NumberToString(float64(x)))
			}
			if s, ok := v.(lua.LString); ok && len(s) > 0 && s[0] == ' ' {
				v = s[1:] // no position at that level
			}
		}
		L.Error(v, 0)
		return 0
	}))
}

// guardBase keeps the raw and metatable functions and the chunk loaders
// from reaching around the read-only proxies: rawset and setmetatable on
// a proxy raise Valkey's error, and functions made by load and
// loadstring see the proxy globals, as the script does.
func (st *State) guardBase(g *lua.LTable) {
	L := st.L
	readonly := func(L *lua.LState) int {
		L.Error(lua.LString("Attempt to modify a readonly table"), 0)
		return 0
	}
	wrap := func(name string, guard func(L *lua.LState) bool, after func(L *lua.LState, first int)) {
		base := g.RawGetString(name).(*lua.LFunction)
		g.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			if guard != nil && guard(L) {
				return readonly(L)
			}
			n := base.GFunction(L) // its n results are on top
			if after != nil && n > 0 {
				after(L, L.GetTop()-n+1)
			}
			return n
		}))
	}
	isProxy := func(L *lua.LState) bool {
		t, ok := L.Get(1).(*lua.LTable)
		return ok && st.proxies[t] != nil
	}
	wrap("rawset", isProxy, nil)
	wrap("setmetatable", isProxy, nil)
	setEnv := func(L *lua.LState, first int) {
		if fn, ok := L.Get(first).(*lua.LFunction); ok {
			fn.Env = st.env
		}
	}
	wrap("loadstring", nil, setEnv)
	wrap("load", nil, setEnv)
}

// luaMessage rewords the runtime error messages of gopher-lua's libraries
// that the fork (internal/lua) has not made Lua 5.1's yet.
func luaMessage(s string) string {
	for _, r := range messageRewrites {
		if i := strings.Index(s, r.from); i >= 0 {
			s = s[:i] + r.to(s[i+len(r.from):])
		}
	}
	return s
}

var messageRewrites = []struct {
	from string
	to   func(rest string) string
}{
	{"unfinished capture at EOS", func(rest string) string {
		return "unfinished capture" + rest
	}},
	// "bad argument #2 to assert (" -> "bad argument #2 to 'assert' ("
	{"bad argument #", func(rest string) string {
		n, rest, ok := strings.Cut(rest, " to ")
		if !ok {
			return "bad argument #" + n
		}
		name, rest, _ := strings.Cut(rest, " ")
		if !strings.HasPrefix(name, "'") {
			name = "'" + name + "'"
		}
		return "bad argument #" + n + " to " + name + " " + rest
	}},
}
