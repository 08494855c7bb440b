package server

import (
	"sync/atomic"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/counter"
	"github.com/corvid-kv/corvid/internal/db"
)

// cmd is an implemented command: its metadata from the command table, its
// procedure, and its statistics.
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
}

// buildTable joins the generated metadata with the procedures. A handler
// whose name has no metadata is a programming error (panic at start-up); a
// command with metadata but no handler is simply not implemented and is
// answered with Valkey's unknown-command error.
func buildTable(dbHandlers [][]db.Handler, srvHandlers []srvHandler) *table {
	t := &table{cmds: make(map[string]*cmd)}
	get := func(full string) *cmd {
		parent, sub, isSub := cutPipe(full)
		if !isSub {
			if c := t.cmds[full]; c != nil {
				return c
			}
			m := command.Lookup([]byte(full))
			if m == nil {
				panic("server: no command metadata for " + full)
			}
			c := &cmd{meta: m, name: full}
			t.cmds[full] = c
			return c
		}
		p := t.cmds[parent]
		if p == nil {
			m := command.Lookup([]byte(parent))
			if m == nil {
				panic("server: no command metadata for " + parent)
			}
			p = &cmd{meta: m, name: parent}
			t.cmds[parent] = p
		}
		if p.subs == nil {
			p.subs = make(map[string]*cmd)
		}
		if c := p.subs[sub]; c != nil {
			return c
		}
		m := p.meta.Sub([]byte(sub))
		if m == nil {
			panic("server: no subcommand metadata for " + full)
		}
		c := &cmd{meta: m, name: full, parent: p}
		p.subs[sub] = c
		return c
	}
	for _, hs := range dbHandlers {
		for _, h := range hs {
			c := get(h.Name)
			c.dbProc, c.lock = h.Proc, h.Lock
		}
	}
	for _, h := range srvHandlers {
		c := get(h.name)
		c.proc, c.lock = h.proc, h.lock
	}
	return t
}

// srvHandler is a server-level command (connection, admin, introspection).
type srvHandler struct {
	name string
	proc func(c *Client)
	lock db.Lock
}

func cutPipe(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == '|' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// lookup finds a command by name, case-insensitively, without allocating:
// the name is folded into scratch and the map is indexed with string(scratch),
// which the compiler does not copy.
func (t *table) lookup(name []byte, scratch []byte) (*cmd, []byte) {
	scratch = foldLower(scratch, name)
	return t.cmds[string(scratch)], scratch
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
