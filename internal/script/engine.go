package script

import (
	"crypto/sha1"
	"encoding/hex"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	lua "github.com/corvid-kv/corvid/internal/lua"
	"github.com/corvid-kv/corvid/internal/lua/parse"
)

// Flags are a script's shebang flags (#!lua flags=...).
type Flags uint16

const (
	FlagNoWrites       Flags = 1 << iota // no-writes
	FlagAllowOOM                         // allow-oom
	FlagAllowStale                       // allow-stale
	FlagNoCluster                        // no-cluster
	FlagAllowCrossSlot                   // allow-cross-slot-keys
	// FlagShebang: the script declared its flags (a #!lua line), so
	// Valkey's checks apply before it runs instead of EVAL's compatible
	// behaviour.
	FlagShebang
)

var flagNames = []struct {
	name string
	f    Flags
}{
	{"no-writes", FlagNoWrites},
	{"allow-oom", FlagAllowOOM},
	{"allow-stale", FlagAllowStale},
	{"no-cluster", FlagNoCluster},
	{"allow-cross-slot-keys", FlagAllowCrossSlot},
}

// Script is a compiled script of the cache.
type Script struct {
	SHA   string // 40 lower-case hex digits
	Body  string
	Flags Flags
	proto *lua.FunctionProto

	// Hints: Undeclared is set once a run touched a key outside the
	// stripes of its KEYS (the server runs it under every stripe from
	// then on); MayLoop: the code can run for long (it loops, defines
	// functions that may recurse, or compiles code at run time), so the
	// server runs it off its event loop until a run ended within
	// QuickRun (Quick, cleared again by a slower run).
	Hints
}

// QuickRun is how short a run must be for its script to count as quick.
const QuickRun = time.Millisecond

// mayLoop reports whether p can run for long: a backward jump (every Lua
// loop compiles to one), a nested function (which may recurse), or a
// call of load or loadstring (code made at run time).
func mayLoop(p *lua.FunctionProto) bool {
	if len(p.FunctionPrototypes) > 0 {
		return true
	}
	for _, inst := range p.Code {
		op := int(inst >> 26)
		switch op {
		case lua.OP_FORLOOP, lua.OP_TFORLOOP:
			return true
		case lua.OP_JMP:
			if int(inst&0x3ffff)-(0x3ffff>>1) < 0 {
				return true
			}
		}
	}
	for _, k := range p.Constants {
		if s, ok := k.(lua.LString); ok && (s == "load" || s == "loadstring") {
			return true
		}
	}
	return false
}

// Engine holds the script cache and the pool of Lua states.
type Engine struct {
	mu sync.RWMutex
	// scripts maps SHA1 to *Script: read without a lock on every
	// EVALSHA (a read-mostly sync.Map: no shared cache line written by
	// readers on different cores); written under mu, with nscripts and
	// memory (the bodies' bytes, INFO used_memory_scripts_eval).
	scripts  sync.Map
	nscripts atomic.Int64
	memory   atomic.Int64

	// Function libraries (function.go), under mu; fgen counts their
	// changes.
	libs    map[string]*Library
	funcs   map[string]*Function
	fmemory int64
	fgen    atomic.Uint64

	gen  atomic.Uint64 // bumped by Flush: States drop their closures
	pool sync.Pool     // *State

	// Running scripts, for BUSY and SCRIPT KILL: a State is listed from
	// its start to its end.
	runMu   sync.Mutex
	running map[*State]struct{}

	// BUSY: busyAfter is busy-reply-threshold (0: never); busy is set
	// while a script has run longer, by the watchdog goroutine that
	// lives while scripts run (watching).
	busyAfter atomic.Int64
	busy      atomic.Bool
	busyFn    atomic.Bool
	watching  atomic.Bool
}

// SetBusyThreshold sets busy-reply-threshold.
func (e *Engine) SetBusyThreshold(d time.Duration) { e.busyAfter.Store(int64(d)) }

// Busy reports whether a script has been running longer than the busy
// threshold: other clients then get -BUSY (the server's check).
func (e *Engine) Busy() bool { return e.busy.Load() }

// BusyFunction reports whether what made the engine busy is a function
// (FCALL): BUSY then names FUNCTION KILL.
func (e *Engine) BusyFunction() bool { return e.busyFn.Load() }

// RunningInfo describes the longest running script for FUNCTION STATS:
// its name (function name or SHA1), whether it is a function, how long it
// has run and a copy of the command that runs it. ok is false when none
// runs.
func (e *Engine) RunningInfo(now time.Time) (name string, function bool, d time.Duration, argv [][]byte, ok bool) {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	var best *State
	for st := range e.running {
		if st.run != nil && (best == nil || st.started.Before(best.started)) {
			best = st
		}
	}
	if best == nil {
		return "", false, 0, nil, false
	}
	r := best.run
	argv = make([][]byte, len(r.Argv))
	for i, a := range r.Argv {
		argv[i] = append([]byte(nil), a...)
	}
	return r.Name, r.Function != nil, now.Sub(best.started), argv, true
}

// watchInterval is how often the watchdog looks at the running scripts.
const watchInterval = 10 * time.Millisecond

// watch sets and clears busy while scripts run; it ends when none does.
func (e *Engine) watch() {
	t := time.NewTicker(watchInterval)
	defer t.Stop()
	for now := range t.C {
		e.runMu.Lock()
		n := len(e.running)
		var longest time.Duration
		fn := false
		for st := range e.running {
			if d := now.Sub(st.started); d > longest {
				longest = d
				fn = st.run != nil && st.run.Function != nil
			}
		}
		e.busyFn.Store(fn)
		if n == 0 {
			e.watching.Store(false)
		}
		e.runMu.Unlock()
		after := time.Duration(e.busyAfter.Load())
		e.busy.Store(n > 0 && after > 0 && longest > after)
		if n == 0 {
			return
		}
	}
}

// New returns an empty engine.
func New() *Engine {
	return &Engine{running: map[*State]struct{}{},
		libs: map[string]*Library{}, funcs: map[string]*Function{}}
}

// SHA1Hex is the script cache's key of a body.
func SHA1Hex(body []byte) string {
	sum := sha1.Sum(body)
	return hex.EncodeToString(sum[:])
}

// Get returns the cached script whose SHA1 is sha (either case), or nil.
func (e *Engine) Get(sha []byte) *Script {
	if len(sha) != 40 {
		return nil
	}
	var low [40]byte
	for i, c := range sha {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	if s, ok := e.scripts.Load(string(low[:])); ok {
		return s.(*Script)
	}
	return nil
}

// Load compiles body and caches it, or returns the cached script of the
// same body. The error is the reply's text: Valkey's shebang and
// compilation errors.
func (e *Engine) Load(body []byte) (*Script, string) {
	sha := SHA1Hex(body)
	if s, ok := e.scripts.Load(sha); ok {
		return s.(*Script), ""
	}
	src := string(body)
	flags, code, msg := parseShebang(src)
	if msg != "" {
		return nil, msg
	}
	proto, err := compile(code, "@user_script")
	if err != "" {
		return nil, "ERR Error compiling script (new function): " + err
	}
	s := &Script{SHA: sha, Body: src, Flags: flags, proto: proto}
	s.MayLoop = mayLoop(proto)
	e.mu.Lock()
	if old, ok := e.scripts.Load(sha); ok {
		s = old.(*Script)
	} else {
		e.scripts.Store(sha, s)
		e.nscripts.Add(1)
		e.memory.Add(int64(len(src)))
	}
	e.mu.Unlock()
	return s, ""
}

// Flush empties the cache.
func (e *Engine) Flush() {
	e.mu.Lock()
	e.scripts.Clear()
	e.nscripts.Store(0)
	e.memory.Store(0)
	e.mu.Unlock()
	e.gen.Add(1)
}

// Count is the number of cached scripts.
func (e *Engine) Count() int { return int(e.nscripts.Load()) }

// Memory is what the cached bodies take.
func (e *Engine) Memory() int64 { return e.memory.Load() }

// parseShebang reads a "#!lua flags=..." first line. It returns the flags,
// the code to compile (the shebang line blanked, so line numbers stay) and
// Valkey's error text if the line is malformed.
func parseShebang(src string) (Flags, string, string) {
	if !strings.HasPrefix(src, "#!") {
		return 0, src, ""
	}
	end := strings.IndexByte(src, '\n')
	line := src
	if end >= 0 {
		line = src[:end]
	}
	if end < 0 {
		return 0, "", "ERR Invalid script shebang"
	}
	parts := strings.Fields(line)
	if len(parts) == 0 || parts[0] != "#!lua" {
		engine := line
		if len(parts) > 0 {
			engine = parts[0]
		}
		return 0, "", "ERR Unexpected engine in script shebang: " + cString(engine)
	}
	flags := FlagShebang
	for _, p := range parts[1:] {
		v, ok := strings.CutPrefix(p, "flags=")
		if !ok {
			return 0, "", "ERR Unknown lua shebang option: " + cString(p)
		}
		for _, name := range strings.Split(v, ",") {
			if name == "" {
				continue
			}
			found := false
			for _, fn := range flagNames {
				if fn.name == name {
					flags |= fn.f
					found = true
				}
			}
			if !found {
				return 0, "", "ERR Unexpected flag in script shebang: " + cString(name)
			}
		}
	}
	code := ""
	if end >= 0 {
		code = src[end:]
	}
	return flags, code, ""
}

// compile parses and compiles a chunk named name (Lua's chunk name:
// "@user_script" is "user_script" in messages); the error is Lua 5.1's
// ("user_script:1: '=' expected near 'x'").
func compile(code, name string) (*lua.FunctionProto, string) {
	chunk, err := parse.ParseString(code, name)
	if err != nil {
		return nil, err.Error()
	}
	proto, err := lua.Compile(chunk, name)
	if err != nil {
		return nil, err.Error()
	}
	return proto, ""
}

// StopAll stops every running script, written or not (SHUTDOWN NOSAVE).
func (e *Engine) StopAll() {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	for st := range e.running {
		st.silenced.Store(true) // the server is going away: no reply
		st.killed.Store(true)
		st.cancel()
	}
}

// Kill stops the running scripts (functions: the running functions)
// that have made no writes. It reports whether one was running, and
// whether one could not be killed because it wrote.
func (e *Engine) Kill(functions bool) (running, unkillable bool) {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	for st := range e.running {
		if r := st.run; r == nil || (r.Function != nil) != functions {
			continue
		}
		running = true
		if st.run != nil && st.run.Host.Wrote() {
			unkillable = true
			continue
		}
		st.killed.Store(true)
		if st.cancel != nil {
			st.cancel()
		}
	}
	return running, unkillable
}

// cString is s as C's %s prints it into Valkey's error texts: up to its
// first NUL byte.
func cString(s string) string {
	if i := strings.IndexByte(s, 0); i >= 0 {
		return s[:i]
	}
	return s
}
