package server

import (
	"sync/atomic"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/counter"
	"github.com/corvid-kv/corvid/internal/db"
)

// cmd is an implemented command: its spec from the command table, its
// procedure and lock mode (bound together in a db.Handler or srvHandler),
// and its statistics.
type cmd struct {
	meta *command.Meta
	name string // full name: "get", "client|list"
	// Exactly one of dbProc and proc is set: data commands live in package
	// db and see a db.Ctx; server commands see the whole Client.
	dbProc db.Proc
	proc   func(c *Client)
	lock   db.Lock
	subs   map[string]*cmd
	parent *cmd

	stats cmdStats
	// hist is the command's latency histogram (LATENCY HISTOGRAM, INFO
	// latencystats); a field rather than a map entry so that recording a
	// call costs no lookup.
	hist histSlot
}

// statShards spreads the per-command counters and latency histograms over
// cache lines: every call updates them, and with one shared line per
// command two event loops on two cores would bounce it on every command
// (a contended atomic add costs tens of nanoseconds, an uncontended one a
// few). A client always uses the shard of its ID; readers sum the shards.
const statShards = counter.Shards

type cmdStats struct {
	shard [statShards]cmdStatShard
}

type cmdStatShard struct {
	calls, usec, rejected, failed atomic.Int64
	_                             [32]byte // one cache line per shard
}

// total sums the shards (INFO commandstats).
func (st *cmdStats) total() (calls, usec, rejected, failed int64) {
	for i := range st.shard {
		sh := &st.shard[i]
		calls += sh.calls.Load()
		usec += sh.usec.Load()
		rejected += sh.rejected.Load()
		failed += sh.failed.Load()
	}
	return
}

// reset zeroes every shard (CONFIG RESETSTAT).
func (st *cmdStats) reset() {
	for i := range st.shard {
		sh := &st.shard[i]
		sh.calls.Store(0)
		sh.usec.Store(0)
		sh.rejected.Store(0)
		sh.failed.Store(0)
	}
}

// table maps lower-case command names to commands. It is built once at
// start-up and read without locks.
type table struct {
	cmds map[string]*cmd
	// byName is what clients call commands by: cmds itself, unless
	// rename-command renamed or removed some (rename.go).
	byName map[string]*cmd
}

// buildTable builds the table from the bindings: each db.Handler and
// srvHandler names its command by its spec variable (command.Get,
// command.ClientList), so the binding is checked by the compiler, and the
// command's name and container come from the spec. A container (CLIENT)
// enters the table with its first bound subcommand and lists only the
// bound ones. A command with metadata but no binding is simply not
// implemented and is answered with Valkey's unknown-command error. Binding
// no spec, or one spec twice, is a programming error (panic at start-up).
func buildTable(dbHandlers [][]db.Handler, srvHandlers []srvHandler) *table {
	t := &table{cmds: make(map[string]*cmd)}
	bind := func(m *command.Meta) *cmd {
		if m == nil {
			panic("server: a handler binds no command spec")
		}
		c := t.add(m)
		if c.dbProc != nil || c.proc != nil {
			panic("server: two procedures for " + m.FullName)
		}
		return c
	}
	for _, hs := range dbHandlers {
		for _, h := range hs {
			c := bind(h.Spec)
			c.dbProc, c.lock = h.Proc, h.Lock
		}
	}
	for _, h := range srvHandlers {
		c := bind(h.spec)
		c.proc, c.lock = h.proc, h.lock
	}
	t.byName = t.cmds
	return t
}

// add returns m's entry, creating it, and its container's, on first use.
func (t *table) add(m *command.Meta) *cmd {
	if m.Parent == nil {
		c := t.cmds[m.Name]
		if c == nil {
			c = &cmd{meta: m, name: m.FullName}
			t.cmds[m.Name] = c
		}
		return c
	}
	p := t.add(m.Parent)
	c := p.subs[m.Name]
	if c == nil {
		if p.subs == nil {
			p.subs = make(map[string]*cmd)
		}
		c = &cmd{meta: m, name: m.FullName, parent: p}
		p.subs[m.Name] = c
	}
	return c
}

// find returns the entry of spec m, or nil when m is nil or not
// implemented.
func (t *table) find(m *command.Meta) *cmd {
	switch {
	case m == nil:
		return nil
	case m.Parent == nil:
		return t.cmds[m.Name]
	}
	if p := t.cmds[m.Parent.Name]; p != nil {
		return p.subs[m.Name]
	}
	return nil
}

// lookupFullName finds an implemented command by "name" or
// "container|sub", case-insensitively, as COMMAND INFO/DOCS and LATENCY
// HISTOGRAM accept it.
func (s *Server) lookupFullName(name []byte) *cmd {
	return s.table.find(command.LookupFullName(name))
}

// srvHandler binds a server-level command (connection, admin,
// introspection) to its procedure, as db.Handler does for data commands.
type srvHandler struct {
	spec *command.Meta
	proc func(c *Client)
	lock db.Lock
}

// lookup finds a command by name, case-insensitively, without allocating:
// the name is folded into scratch and the map is indexed with string(scratch),
// which the compiler does not copy.
func (t *table) lookup(name []byte, scratch []byte) (*cmd, []byte) {
	scratch = foldLower(scratch, name)
	return t.byName[string(scratch)], scratch
}

// foldLower copies name into scratch in ASCII lower case; command and
// subcommand names are looked up that way without allocating.
func foldLower(scratch, name []byte) []byte {
	scratch = append(scratch[:0], name...)
	for i, ch := range scratch {
		if 'A' <= ch && ch <= 'Z' {
			scratch[i] = ch + 32
		}
	}
	return scratch
}

// all returns every implemented top-level command.
func (t *table) all() []*cmd {
	out := make([]*cmd, 0, len(t.cmds))
	for _, c := range t.cmds {
		out = append(out, c)
	}
	return out
}
