package server

import (
	"slices"
	"sort"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
)

// TestLockModes ties each data command's lock mode to its key specs. The
// dispatcher locks the stripes of the keys a LockKeys command's specs
// name, so such a command must name keys (a procedure reaching a key its
// specs do not name would race; -tags invariants catches that at run
// time). Every other mode is an exception listed here with its reason,
// so a new command cannot take one by accident.
func TestLockModes(t *testing.T) {
	lockAll := map[string]string{
		"flushall": "drops every database",
		"flushdb":  "drops a whole database",
		"swapdb":   "swaps two whole databases",
		"keys":     "an atomic view of the whole database",
		"sort":     "BY and GET patterns read keys the specs cannot name",
		"sort_ro":  "BY and GET patterns read keys the specs cannot name",
	}
	lockNone := map[string]string{
		"dbsize":      "sums the stripes one at a time",
		"randomkey":   "samples stripes one at a time",
		"scan":        "walks the stripes one at a time",
		"object|help": "touches no key",
		"xgroup|help": "touches no key",
		"xinfo|help":  "touches no key",
		"pfselftest":  "touches no key",
	}
	tb := buildTable(dataHandlers(), serverHandlers())
	var all, none []string
	for _, c := range tb.all() {
		for _, x := range append([]*cmd{c}, subsOf(c)...) {
			if x.dbProc == nil {
				continue
			}
			blocking := x.meta.Flags&command.FlagBlocking != 0
			switch x.lock {
			case db.LockKeys:
				if !x.meta.HasKeys() {
					t.Errorf("%s locks the keys its specs name, and its specs name none", x.name)
				}
				if blocking {
					t.Errorf("%s blocks: it must lock for itself (LockNone) and release before it waits", x.name)
				}
			case db.LockAll:
				all = append(all, x.name)
				if lockAll[x.name] == "" {
					t.Errorf("%s locks every stripe without a listed reason", x.name)
				}
			case db.LockNone:
				none = append(none, x.name)
				if lockNone[x.name] == "" && !blocking {
					t.Errorf("%s locks nothing, is not blocking and has no listed reason", x.name)
				}
			}
		}
	}
	sort.Strings(all)
	for name := range lockAll {
		if !slices.Contains(all, name) {
			t.Errorf("%s is listed as locking every stripe but does not", name)
		}
	}
	for name := range lockNone {
		if !slices.Contains(none, name) {
			t.Errorf("%s is listed as locking nothing but does lock", name)
		}
	}
}

func subsOf(c *cmd) []*cmd {
	var out []*cmd
	for _, s := range c.subs {
		out = append(out, s)
	}
	return out
}

// TestBuildTable checks that the table is built from the specs the
// handlers bind: names and containers come from the spec, a container
// holds only its bound subcommands, and binding no spec or one spec twice
// panics at start-up.
func TestBuildTable(t *testing.T) {
	noop := func(*Client) {}
	tb := buildTable([][]db.Handler{{{Spec: command.Get, Proc: func(*db.Ctx) {}}}},
		[]srvHandler{{spec: command.ClientList, proc: noop}, {spec: command.Ping, proc: noop}})
	if len(tb.cmds) != 3 {
		t.Errorf("table has %d commands, want get, client, ping", len(tb.cmds))
	}
	client := tb.cmds["client"]
	if client == nil || client.meta != command.Client || client.proc != nil || len(client.subs) != 1 {
		t.Fatalf("client = %+v, want the bare CLIENT container with one subcommand", client)
	}
	list := client.subs["list"]
	if list == nil || list.meta != command.ClientList || list.name != "client|list" || list.parent != client {
		t.Errorf("client|list = %+v", list)
	}
	if get := tb.cmds["get"]; get == nil || get.dbProc == nil || get.name != "get" {
		t.Errorf("get = %+v", get)
	}
	for i, tc := range []struct {
		m    *command.Meta
		want *cmd
	}{{command.ClientList, list}, {command.Client, client}, {command.ClientInfo, nil}, {command.Set, nil}, {nil, nil}} {
		if got := tb.find(tc.m); got != tc.want {
			t.Errorf("find #%d = %p, want %p", i, got, tc.want)
		}
	}

	for name, hs := range map[string][]srvHandler{
		"no spec": {{proc: noop}},
		"twice":   {{spec: command.Ping, proc: noop}, {spec: command.Ping, proc: noop}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: buildTable did not panic", name)
				}
			}()
			buildTable(nil, hs)
		}()
	}
}
