package config

import (
	"os"
	"strings"
	"sync"
	"sync/atomic"
)

// Config is the server configuration. It is safe for concurrent use:
//
//   - Readers (typed getters, Int/String/Bool, Get) never lock: they load
//     one immutable snapshot through an atomic pointer, so a multi-directive
//     CONFIG SET becomes visible to them all at once.
//   - Writers (Set, SetUnsupported, OnChange, Rewrite) serialise on mu and
//     publish a fresh snapshot (copy-on-write; snapshots are never mutated).
//   - OnChange hooks run with mu held and must not call Set or Rewrite.
type Config struct {
	cur atomic.Pointer[state]

	mu          sync.Mutex
	hooks       map[int][]func(*Config) error
	unsupported map[string]func(string) string

	// Start-up facts, written by Load before the Config is returned and
	// read-only afterwards.
	path      string // absolute config file path, "" without one
	renames   []Rename
	users     [][]string
	userLines func() []string // provider for CONFIG REWRITE, see SetUsersForRewrite
}

// Rename is one rename-command directive; To is "" for a removed command.
type Rename struct {
	From, To string
}

// Default returns a configuration holding Valkey 8.0.1's defaults (with
// Corvid's deliberate differences, see doc.go) and Corvid's Unsupported
// hooks. "dir" defaults to the process working directory.
func Default() *Config {
	return newConfig(nil)
}

func newConfig(unsupported map[string]func(string) string) *Config {
	dir, err := os.Getwd()
	if err != nil {
		dir = "/"
	}
	if unsupported == nil {
		unsupported = DefaultUnsupported()
	}
	c := &Config{hooks: map[int][]func(*Config) error{}, unsupported: map[string]func(string) string{}}
	for k, fn := range unsupported {
		c.unsupported[strings.ToLower(k)] = fn
	}
	st := &state{v: make([]val, len(reg.entries))}
	for _, e := range reg.entries {
		st.v[e.idx] = e.defaultVal(dir)
	}
	c.cur.Store(st)
	return c
}

func (c *Config) snap() *state { return c.cur.Load() }

// SetUnsupported installs (fn != nil) or removes (fn == nil) the refusal
// hook of a directive for this Config; name may be an alias.
func (c *Config) SetUnsupported(name string, fn func(value string) string) {
	key := strings.ToLower(name)
	if r := lookup(key); r != nil {
		key = r.e.name
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if fn == nil {
		delete(c.unsupported, key)
	} else {
		c.unsupported[key] = fn
	}
}

// checkUnsupported runs the refusal hook of canonical directive name.
// Callers hold mu or own c exclusively (Load).
func (c *Config) checkUnsupported(name, value string) string {
	if fn := c.unsupported[name]; fn != nil {
		return fn(value)
	}
	return ""
}

// OnChange registers fn to run after a CONFIG SET changed directive name
// (canonical or alias). Hooks of one directive run in registration order;
// when a hook fails, every value of that CONFIG SET is restored, the hooks
// that were due run again against the restored values, and CONFIG SET
// fails with the hook's error text. An unknown name is a programming error
// and panics.
func (c *Config) OnChange(name string, fn func(c *Config) error) {
	r := lookup(name)
	if r == nil {
		panic("config: OnChange for unknown directive " + name)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.hooks[r.e.idx] = append(c.hooks[r.e.idx], fn)
}

// ConfigFile is the absolute path of the loaded configuration file, "" if
// the server runs without one (INFO's config_file).
func (c *Config) ConfigFile() string { return c.path }

// RenamedCommands lists rename-command directives in file order; the
// command table applies them.
func (c *Config) RenamedCommands() []Rename { return append([]Rename(nil), c.renames...) }

// Users lists the arguments of each "user" directive (without "user"), in
// file order, for the ACL layer to apply and validate.
func (c *Config) Users() [][]string {
	out := make([][]string, len(c.users))
	for i, u := range c.users {
		out[i] = append([]string(nil), u...)
	}
	return out
}

// SetUsersForRewrite lets the ACL layer supply the current "user" lines
// (without the "user " prefix) that CONFIG REWRITE writes when no aclfile is
// set. Without a provider the users read at start-up are written back.
func (c *Config) SetUsersForRewrite(fn func() []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.userLines = fn
}

// Known reports whether name (canonical or alias, any case) is a directive.
func Known(name string) bool { return lookup(name) != nil }

// IsSensitive reports whether the value of directive name must be redacted
// from logs, SLOWLOG and MONITOR (requirepass, primaryauth, ...).
func IsSensitive(name string) bool {
	r := lookup(name)
	return r != nil && r.e.has(fSensitive)
}

// CanonicalName maps an alias (slaveof, masterauth, ...) to its primary
// name; ok is false for unknown directives.
func CanonicalName(name string) (string, bool) {
	r := lookup(name)
	if r == nil {
		return "", false
	}
	return r.e.name, true
}

// Lookup returns the CONFIG GET text of one directive.
func (c *Config) Lookup(name string) (string, bool) {
	r := lookup(name)
	if r == nil {
		return "", false
	}
	return r.e.format(c.snap().v[r.e.idx]), true
}

// Int returns a numeric, bool (1/0) or enum (internal code) directive.
// Percent values are negative, as Valkey stores them (maxmemory-clients 5%
// is -5). The server reads its settings through the typed getters
// (getters.go); the name-based accessors serve tests and tools, and an
// unknown name or a directive of another kind is a programming error:
// they panic rather than read as zero.
func (c *Config) Int(name string) int64 {
	r := mustLookup(name)
	switch r.e.kind {
	case kindBool, kindEnum, kindNumeric:
		return c.snap().v[r.e.idx].n
	}
	panic("config: Int of non-numeric directive " + name)
}

// String returns the CONFIG GET text of a directive.
func (c *Config) String(name string) string {
	r := mustLookup(name)
	return r.e.format(c.snap().v[r.e.idx])
}

// Bool returns a yes/no directive.
func (c *Config) Bool(name string) bool {
	r := mustLookup(name)
	if r.e.kind != kindBool {
		panic("config: Bool of non-bool directive " + name)
	}
	return c.snap().v[r.e.idx].n != 0
}

func mustLookup(name string) *ref {
	r := lookup(name)
	if r == nil {
		panic("config: unknown directive " + name)
	}
	return r
}
