package script

import (
	"context"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// Functions (FUNCTION LOAD, FCALL): libraries of named Lua functions.
// A library's code runs once when it is loaded, in an environment that
// holds only the server table's register_function, log and constants;
// the callbacks it registers run later, in the scripts' sandbox without
// KEYS and ARGV (they get keys and arguments as parameters).
//
// The compiled library is shared; each State runs the library's code
// once, the first time it calls one of its functions (and again after
// the library changed), to make its own closures. A library's local
// variables therefore live per State, where Valkey's single Lua state
// has one copy of them: libraries that keep state in upvalues across
// calls see it per State (docs/compatibility.md).

// Hints are what the server learns about a script or function across
// runs (see Script).
type Hints struct {
	Undeclared atomic.Bool
	Quick      atomic.Bool
	MayLoop    bool
}

// Library is a loaded function library.
type Library struct {
	Name      string
	Code      string
	Functions map[string]*Function
	proto     *lua.FunctionProto
	gen       uint64 // the engine's function generation it was loaded in
	order     []string
}

// Function is a registered function.
type Function struct {
	Name  string
	Desc  *string // nil when none was given
	Flags Flags
	Lib   *Library
	Hints
}

// FunctionNames is the flags' names in Valkey's order, for FUNCTION LIST.
func (f Flags) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if f&fn.f != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// validName is Valkey's check of library and function names.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

const badName = "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long"

// libraryMeta parses a library's "#!lua name=<name>" first line.
func libraryMeta(code string) (name, body, msg string) {
	if !strings.HasPrefix(code, "#!") {
		return "", "", "ERR Missing library metadata"
	}
	end := strings.IndexByte(code, '\n')
	if end < 0 {
		return "", "", "ERR Invalid library metadata"
	}
	parts := strings.Split(code[:end], " ")
	engine := strings.TrimPrefix(parts[0], "#!")
	if !strings.EqualFold(engine, "lua") {
		return "", "", "ERR Engine '" + cString(engine) + "' not found"
	}
	for _, p := range parts[1:] {
		if p == "" {
			continue
		}
		v, ok := strings.CutPrefix(p, "name=")
		if !ok {
			return "", "", "ERR Invalid metadata value given: " + cString(p)
		}
		if name != "" {
			return "", "", "ERR Invalid metadata value, name argument was given multiple times"
		}
		name = v
	}
	if name == "" {
		return "", "", "ERR Library name was not given"
	}
	if !validName(name) {
		return "", "", "ERR " + badName
	}
	return name, code[end:], ""
}

// InstallLibrary installs a compiled library (FUNCTION LOAD); replace
// allows replacing the library of its name. The error is the reply's
// text.
func (e *Engine) InstallLibrary(lib *Library, replace bool) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if msg := e.installable(lib, replace, true); msg != "" {
		return msg
	}
	e.install(lib)
	return ""
}

// loadTimeout bounds a library's load code (Valkey's FUNCTION LOAD
// timeout).
const loadTimeout = 500 * time.Millisecond

// CompileLibrary parses, compiles and runs a library's code, collecting
// what it registers, without installing it. The error is the reply's
// text.
func (e *Engine) CompileLibrary(code []byte) (*Library, string) {
	return e.compileLibrary(string(code))
}

func (e *Engine) compileLibrary(code string) (*Library, string) {
	name, body, msg := libraryMeta(code)
	if msg != "" {
		return nil, msg
	}
	proto, err := compile(body, "@user_function")
	if err != "" {
		return nil, "ERR Error compiling function: " + err
	}
	lib := &Library{Name: name, Code: code, proto: proto, Functions: map[string]*Function{}}
	st := e.state()
	defer e.pool.Put(st)
	// The closures made here are dropped: installing the library
	// changes the function generation, and States make theirs on use.
	if _, msg := st.registerLibrary(lib, true); msg != "" {
		return nil, "ERR Error registering functions: " + msg
	}
	if len(lib.Functions) == 0 {
		return nil, "ERR No functions registered"
	}
	may := mayLoop(proto)
	for _, f := range lib.Functions {
		f.MayLoop = may
	}
	return lib, ""
}

// installable checks lib against the installed libraries (Valkey quotes
// the library's name for FUNCTION LOAD, not for RESTORE). e.mu is held.
func (e *Engine) installable(lib *Library, replace, quote bool) string {
	if old := e.libs[lib.Name]; old != nil && !replace {
		if !quote {
			return "ERR Library " + cString(lib.Name) + " already exists"
		}
		return "ERR Library '" + cString(lib.Name) + "' already exists"
	}
	for _, name := range lib.order {
		if f := e.funcs[strings.ToLower(name)]; f != nil && f.Lib.Name != lib.Name {
			return "ERR Function " + cString(name) + " already exists"
		}
	}
	return ""
}

// install puts lib in place of the library of its name. e.mu is held.
func (e *Engine) install(lib *Library) {
	if old := e.libs[lib.Name]; old != nil {
		for name := range old.Functions {
			delete(e.funcs, strings.ToLower(name))
		}
		e.fmemory -= int64(len(old.Code))
	}
	e.libs[lib.Name] = lib
	for name, f := range lib.Functions {
		e.funcs[strings.ToLower(name)] = f
	}
	e.fmemory += int64(len(lib.Code))
	lib.gen = e.fgen.Add(1)
}

// DeleteLibrary removes a library (FUNCTION DELETE).
func (e *Engine) DeleteLibrary(name string) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	old := e.libs[name]
	if old == nil {
		return false
	}
	for fn := range old.Functions {
		delete(e.funcs, strings.ToLower(fn))
	}
	delete(e.libs, name)
	e.fmemory -= int64(len(old.Code))
	e.fgen.Add(1)
	return true
}

// FlushFunctions removes every library (FUNCTION FLUSH).
func (e *Engine) FlushFunctions() {
	e.mu.Lock()
	e.libs = map[string]*Library{}
	e.funcs = map[string]*Function{}
	e.fmemory = 0
	e.mu.Unlock()
	e.fgen.Add(1)
}

// Function returns the function of that name (either case), or nil.
func (e *Engine) Function(name string) *Function {
	e.mu.RLock()
	f := e.funcs[name]
	e.mu.RUnlock()
	if f == nil {
		if low := strings.ToLower(name); low != name {
			e.mu.RLock()
			f = e.funcs[low]
			e.mu.RUnlock()
		}
	}
	return f
}

// Libraries returns the installed libraries sorted by name.
func (e *Engine) Libraries() []*Library {
	e.mu.RLock()
	out := make([]*Library, 0, len(e.libs))
	for _, l := range e.libs {
		out = append(out, l)
	}
	e.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// FunctionCounts is FUNCTION STATS' libraries_count and functions_count.
func (e *Engine) FunctionCounts() (libs, funcs int) {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return len(e.libs), len(e.funcs)
}

// FunctionsMemory is what the libraries' code takes (INFO).
func (e *Engine) FunctionsMemory() int64 {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.fmemory
}

// CompileLibraries compiles the libraries of codes (FUNCTION RESTORE, an
// RDB file's functions) for RestoreLibraries.
func (e *Engine) CompileLibraries(codes [][]byte) ([]*Library, string) {
	libs := make([]*Library, 0, len(codes))
	for _, c := range codes {
		lib, msg := e.compileLibrary(string(c))
		if lib == nil {
			return nil, msg
		}
		libs = append(libs, lib)
	}
	return libs, ""
}

// RestoreLibraries installs compiled libraries: policy "FLUSH" replaces
// every library, "APPEND" refuses a library that exists, "REPLACE"
// replaces those of the same name. Nothing is installed if one fails.
func (e *Engine) RestoreLibraries(libs []*Library, policy string) string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if policy == "FLUSH" {
		e.libs = map[string]*Library{}
		e.funcs = map[string]*Function{}
		e.fmemory = 0
	}
	// Check the whole set first: against what is installed (minus what
	// REPLACE drops) and against itself.
	seenLib := map[string]bool{}
	seenFn := map[string]string{}
	for _, lib := range libs {
		if seenLib[lib.Name] {
			return "ERR Library " + cString(lib.Name) + " already exists"
		}
		seenLib[lib.Name] = true
		if msg := e.installable(lib, policy != "APPEND", false); msg != "" {
			return msg
		}
		for _, fn := range lib.order {
			if other, ok := seenFn[strings.ToLower(fn)]; ok && other != lib.Name {
				return "ERR Function " + cString(fn) + " already exists"
			}
			seenFn[strings.ToLower(fn)] = lib.Name
		}
	}
	for _, lib := range libs {
		e.install(lib)
	}
	return ""
}

// LibraryCodes returns every library's code (FUNCTION DUMP, RDB files),
// in name order.
func (e *Engine) LibraryCodes() [][]byte {
	var out [][]byte
	for _, l := range e.Libraries() {
		out = append(out, []byte(l.Code))
	}
	return out
}

// registerLibrary runs lib's code in st with the load environment and
// returns the closures it registered. When define is set it also fills
// lib.Functions (at FUNCTION LOAD); otherwise the registrations must be
// the library's (a State making its own closures later).
func (st *State) registerLibrary(lib *Library, define bool) (map[string]*lua.LFunction, string) {
	L := st.L
	closures := map[string]*lua.LFunction{}
	reg := L.NewFunction(func(L *lua.LState) int {
		name, cb, desc, flags, msg := registerArgs(L)
		if msg != "" {
			return st.raise(msg)
		}
		if _, dup := closures[strings.ToLower(name)]; dup {
			return st.raise("Function already exists in the library")
		}
		cb.Env = st.fenv
		closures[strings.ToLower(name)] = cb
		if define {
			lib.Functions[name] = &Function{Name: name, Desc: desc, Flags: flags, Lib: lib}
			lib.order = append(lib.order, name)
		}
		return 0
	})
	api := L.NewTable()
	api.RawSetString("register_function", reg)
	api.RawSetString("log", st.fapi.RawGetString("log"))
	for _, k := range []string{"LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING",
		"REDIS_VERSION", "REDIS_VERSION_NUM", "VALKEY_VERSION", "VALKEY_VERSION_NUM", "SERVER_NAME"} {
		api.RawSetString(k, st.fapi.RawGetString(k))
	}
	// Reading anything else of the table at load time is an error, as
	// reading a missing global is.
	missing := L.NewTable()
	missing.RawSetString("__index", st.gt.Metatable.(*lua.LTable).RawGetString("__index"))
	L.SetMetatable(api, missing)
	g := L.NewTable()
	apiProxy := st.readOnly(api)
	g.RawSetString("redis", apiProxy)
	g.RawSetString("server", g.RawGetString("redis"))
	g.RawSetString("__redis__err__handler", st.errfn)
	L.SetMetatable(g, missing)
	env := st.readOnly(g)
	fn := L.NewFunctionFromProto(lib.proto)
	fn.Env = env
	prev := st.run
	st.run = &Run{Name: "", Host: loadHost{}}
	ctx, cancel := context.WithTimeout(st.ctx, loadTimeout)
	L.SetContext(ctx)
	L.Push(fn)
	err := L.PCall(0, 0, st.errfn)
	timedOut := ctx.Err() == context.DeadlineExceeded
	cancel()
	L.SetContext(st.ctx)
	st.run = prev
	delete(st.proxies, env)
	delete(st.proxies, apiProxy)
	L.SetTop(0)
	if timedOut {
		return nil, "ERR FUNCTION LOAD timeout"
	}
	if err != nil {
		v := err.(*lua.ApiError).Object
		if t, ok := v.(*lua.LTable); ok {
			s, _ := t.RawGetString("err").(lua.LString)
			return nil, string(s)
		}
		return nil, "ERR " + v.String()
	}
	return closures, ""
}

// registerArgs reads register_function's two forms.
func registerArgs(L *lua.LState) (name string, cb *lua.LFunction, desc *string, flags Flags, msg string) {
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			return "", nil, nil, 0, "calling server.register_function with a single argument is only applicable to Lua table (representing named arguments)."
		}
		var bad string
		t.ForEach(func(k, v lua.LValue) {
			if bad != "" {
				return
			}
			key, _ := k.(lua.LString)
			switch key {
			case "function_name":
				if s, ok := luaStringOf(v); ok {
					name = s
				} else {
					bad = "function_name argument given to server.register_function must be a string"
				}
			case "description":
				if s, ok := luaStringOf(v); ok {
					desc = &s
				} else {
					bad = "description argument given to server.register_function must be a string"
				}
			case "callback":
				if f, ok := v.(*lua.LFunction); ok {
					cb = f
				} else {
					bad = "callback argument given to server.register_function must be a function"
				}
			case "flags":
				ft, ok := v.(*lua.LTable)
				if !ok {
					bad = "flags argument to server.register_function must be a table representing function flags"
					return
				}
				for i := 1; ; i++ {
					fv := ft.RawGetInt(i)
					if fv == lua.LNil {
						break
					}
					s, _ := fv.(lua.LString)
					found := false
					for _, fn := range flagNames {
						if fn.name == string(s) {
							flags |= fn.f
							found = true
						}
					}
					if !found {
						bad = "unknown flag given"
						return
					}
				}
			default:
				bad = "unknown argument given to server.register_function"
			}
		})
		if bad != "" {
			return "", nil, nil, 0, bad
		}
		if name == "" {
			return "", nil, nil, 0, "server.register_function must get a function name argument"
		}
		if cb == nil {
			return "", nil, nil, 0, "server.register_function must get a callback argument"
		}
	case 2:
		s, ok := luaStringOf(L.Get(1))
		if !ok {
			return "", nil, nil, 0, "first argument to server.register_function must be a string"
		}
		f, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			return "", nil, nil, 0, "second argument to server.register_function must be a function"
		}
		name, cb = s, f
	default:
		return "", nil, nil, 0, "wrong number of arguments to server.register_function"
	}
	if !validName(name) {
		return "", nil, nil, 0, badName
	}
	return name, cb, desc, flags | FlagShebang, ""
}

func luaStringOf(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return luaToString(x), true
	}
	return "", false
}

// loadHost is the Host while a library's code runs: it has no commands
// to call (the load environment has no call), only the log.
type loadHost struct{}

func (loadHost) Call([][]byte, int) ([]byte, bool) { return nil, false }
func (loadHost) Log(int, string)                   {}
func (loadHost) Wrote() bool                       { return false }
func (loadHost) Known([][]byte) bool               { return false }
func (loadHost) Allowed([][]byte) bool             { return false }

// functionClosure returns this State's closure of f, running f's library
// in this State first if it has not yet (or changed since).
func (st *State) functionClosure(f *Function) (*lua.LFunction, string) {
	lib := f.Lib
	cl := st.libs[lib]
	if cl == nil {
		var msg string
		cl, msg = st.registerLibrary(lib, false)
		if msg != "" {
			return nil, msg
		}
		if len(st.libs) > 256 {
			clear(st.libs) // libraries replaced many times: start over
		}
		st.libs[lib] = cl
	}
	return cl[strings.ToLower(f.Name)], ""
}
