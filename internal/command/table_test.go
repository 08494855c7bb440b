package command_test

import (
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
)

var groups = map[string]bool{
	"bitmap": true, "cluster": true, "connection": true, "generic": true, "geo": true,
	"hash": true, "hyperloglog": true, "list": true, "pubsub": true, "scripting": true,
	"sentinel": true, "server": true, "set": true, "sorted-set": true, "stream": true,
	"string": true, "transactions": true,
}

var argTypes = map[string]bool{
	"string": true, "integer": true, "double": true, "key": true, "pattern": true,
	"unix-time": true, "pure-token": true, "oneof": true, "block": true,
}

func TestTableShape(t *testing.T) {
	all := command.All()
	if n := command.Count(); n != len(all) || n < 240 {
		t.Fatalf("Count() = %d, len(All()) = %d; want the full Valkey 8 table", n, len(all))
	}
	seen := map[string]bool{}
	subs := 0
	command.Walk(func(m *command.Meta) {
		if seen[m.FullName] {
			t.Errorf("duplicate command %s", m.FullName)
		}
		seen[m.FullName] = true
		if m.Parent != nil {
			subs++
		}
		checkMeta(t, m)
	})
	if len(seen) != 399 {
		t.Errorf("%d commands and subcommands, want the 399 of Valkey 8.0.1", len(seen))
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Name >= all[i].Name {
			t.Errorf("All() not sorted: %s before %s", all[i-1].Name, all[i].Name)
		}
	}
	if subs == 0 {
		t.Error("no subcommands")
	}
}

func checkMeta(t *testing.T, m *command.Meta) {
	t.Helper()
	if m.Name != strings.ToLower(m.Name) || m.Name == "" {
		t.Errorf("%s: name not lower case", m.FullName)
	}
	want := m.Name
	minArity := 1
	if m.Parent != nil {
		want = m.Parent.Name + "|" + m.Name
		minArity = 2
		if m.Parent.Sub([]byte(m.Name)) != m {
			t.Errorf("%s: not reachable from its parent", m.FullName)
		}
		if len(m.Subs) > 0 {
			t.Errorf("%s: nested subcommands", m.FullName)
		}
	}
	if m.FullName != want {
		t.Errorf("%s: FullName, want %s", m.FullName, want)
	}
	if a := max(m.Arity, -m.Arity); a < minArity {
		t.Errorf("%s: arity %d, want |arity| >= %d", m.FullName, m.Arity, minArity)
	}
	if m.IsContainer() && m.Arity >= 0 { // -2, or -1 for COMMAND
		t.Errorf("%s: container arity %d, want variadic", m.FullName, m.Arity)
	}
	if !groups[m.Group] || m.Since == "" {
		t.Errorf("%s: group %q since %q", m.FullName, m.Group, m.Since)
	}
	if fast, slow := m.ACL&command.ACLFast != 0, m.ACL&command.ACLSlow != 0; fast == slow {
		t.Errorf("%s: must be exactly one of @fast/@slow: %v", m.FullName, m.ACL.Names())
	}
	if m.Flags&command.FlagWrite != 0 && m.Flags&command.FlagReadonly != 0 {
		t.Errorf("%s: both write and readonly", m.FullName)
	}
	if m.Flags&command.FlagModule != 0 {
		t.Errorf("%s: module flag", m.FullName)
	}
	for i, ks := range m.KeySpecs {
		if ks.BeginKind < command.BeginIndex || ks.BeginKind > command.BeginUnknown ||
			ks.FindKind < command.FindRange || ks.FindKind > command.FindUnknown {
			t.Errorf("%s: key spec %d has invalid kinds", m.FullName, i)
		}
		if ks.BeginKind == command.BeginIndex && ks.Pos < 1 {
			t.Errorf("%s: key spec %d index %d", m.FullName, i, ks.Pos)
		}
		if ks.BeginKind == command.BeginIndex && m.Arity > 0 && ks.Pos >= m.Arity {
			t.Errorf("%s: key spec %d index %d beyond fixed arity %d", m.FullName, i, ks.Pos, m.Arity)
		}
		if (ks.FindKind == command.FindRange && ks.Step < 1) || (ks.FindKind == command.FindKeynum && ks.KeyStep < 1) {
			t.Errorf("%s: key spec %d step < 1", m.FullName, i)
		}
		if ks.Flags == 0 {
			t.Errorf("%s: key spec %d without flags", m.FullName, i)
		}
	}
	if len(m.KeySpecs) > 0 && !m.HasKeys() && m.Name != "spublish" && m.Name != "ssubscribe" && m.Name != "sunsubscribe" {
		t.Errorf("%s: key specs but HasKeys() is false", m.FullName)
	}
	checkArgs(t, m, m.Args)
}

func checkArgs(t *testing.T, m *command.Meta, args []command.Arg) {
	t.Helper()
	for _, a := range args {
		if !argTypes[a.Type] || a.Name == "" {
			t.Errorf("%s: argument %q of type %q", m.FullName, a.Name, a.Type)
		}
		// Keys always reference a spec; SORT's BY/GET patterns do too.
		if (a.Type == "key" && a.KeySpecIndex < 0) || (a.KeySpecIndex >= 0 && a.Type != "key" && a.Type != "pattern") {
			t.Errorf("%s: argument %s type %s key_spec_index %d", m.FullName, a.Name, a.Type, a.KeySpecIndex)
		}
		if a.KeySpecIndex >= len(m.KeySpecs) {
			t.Errorf("%s: argument %s key_spec_index %d out of range", m.FullName, a.Name, a.KeySpecIndex)
		}
		if nested := a.Type == "oneof" || a.Type == "block"; nested != (len(a.Args) > 0) {
			t.Errorf("%s: argument %s: %s with %d children", m.FullName, a.Name, a.Type, len(a.Args))
		}
		checkArgs(t, m, a.Args)
	}
}

func TestImplicitACL(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"get", "read string fast"},
		{"set", "write string slow"},
		{"mset", "write string slow"},
		{"del", "keyspace write slow"},
		{"blpop", "write list slow blocking"},
		{"eval", "slow scripting"},
		{"eval_ro", "slow scripting"}, // read-only but scripting: no @read
		{"flushall", "keyspace write slow dangerous"},
		{"publish", "pubsub fast"},
		{"client|kill", "admin slow dangerous connection"},
		{"client", "slow"}, // containers only get the implicit @slow
		{"sort", "write set sortedset list slow dangerous"},
	}
	for _, tt := range tests {
		m := command.LookupFullName([]byte(tt.name))
		if m == nil {
			t.Fatalf("%s not found", tt.name)
		}
		if got := strings.Join(m.ACL.Names(), " "); got != tt.want {
			t.Errorf("%s: ACL = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestFlagNames(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"get", "readonly fast"},
		{"set", "write denyoom"},
		{"sort", "write denyoom movablekeys"},
		{"zunionstore", "write denyoom movablekeys"},
		{"eval", "noscript stale skip_monitor no_mandatory_keys movablekeys"},
		{"client|list", "admin noscript loading stale"},
		{"multi", "noscript loading stale fast no_multi allow_busy"},
		{"auth", "noscript loading stale fast no_auth allow_busy"},
		{"xread", "readonly blocking movablekeys"},
		{"lmove", "write denyoom"},
		{"migrate", "write movablekeys"},
	}
	for _, tt := range tests {
		m := command.LookupFullName([]byte(tt.name))
		if got := strings.Join(m.Flags.Names(), " "); got != tt.want {
			t.Errorf("%s: flags = %q, want %q", tt.name, got, tt.want)
		}
	}
	// Hidden flags are in the set but not in Names.
	if m := command.Lookup([]byte("eval")); m.Flags&command.FlagMayReplicate == 0 ||
		!strings.Contains(m.Flags.String(), "may_replicate") {
		t.Errorf("eval: hidden may_replicate flag missing: %s", m.Flags)
	}
}

func TestFirstLastStep(t *testing.T) {
	tests := []struct {
		name              string
		first, last, step int
		movable           bool
	}{
		{"get", 1, 1, 1, false},
		{"mset", 1, -1, 2, false},
		{"mget", 1, -1, 1, false},
		{"del", 1, -1, 1, false},
		{"lmove", 1, 2, 1, false},
		{"blpop", 1, -2, 1, false},
		{"set", 1, 1, 1, false},
		{"zunionstore", 1, 1, 1, true},
		{"zunion", 0, 0, 0, true},
		{"eval", 0, 0, 0, true},
		{"xread", 0, 0, 0, true},
		{"migrate", 3, 3, 1, true},
		{"sort", 1, 1, 1, true},
		{"georadius", 1, 1, 1, true},
		{"object|encoding", 2, 2, 1, false},
		{"client|list", 0, 0, 0, false},
		{"ping", 0, 0, 0, false},
		{"spublish", 1, 1, 1, false},
	}
	for _, tt := range tests {
		m := command.LookupFullName([]byte(tt.name))
		f, l, s := command.FirstLastStep(m)
		if f != tt.first || l != tt.last || s != tt.step {
			t.Errorf("%s: FirstLastStep = %d %d %d, want %d %d %d", tt.name, f, l, s, tt.first, tt.last, tt.step)
		}
		if got := m.Flags&command.FlagMovableKeys != 0; got != tt.movable {
			t.Errorf("%s: movablekeys = %v, want %v", tt.name, got, tt.movable)
		}
	}
}

func TestCheckArity(t *testing.T) {
	get, mset := command.Lookup([]byte("get")), command.Lookup([]byte("mset"))
	for _, tt := range []struct {
		m    *command.Meta
		argc int
		want bool
	}{
		{get, 1, false}, {get, 2, true}, {get, 3, false},
		{mset, 2, false}, {mset, 3, true}, {mset, 4, true}, {mset, 10, true},
	} {
		if got := tt.m.CheckArity(tt.argc); got != tt.want {
			t.Errorf("%s.CheckArity(%d) = %v", tt.m.Name, tt.argc, got)
		}
	}
}

func TestACLCatByName(t *testing.T) {
	if command.ACLCatByName("SortedSet") != command.ACLSortedSet || command.ACLCatByName("nope") != 0 {
		t.Error("ACLCatByName")
	}
	names := command.ACLCategoryNames()
	if len(names) != 21 || names[0] != "keyspace" || names[20] != "scripting" {
		t.Errorf("ACLCategoryNames = %v", names)
	}
}

// TestSpecVariables checks that the exported spec variables, to which
// procedures are bound, are the table's own entries, complete with their
// derived facts by the time another package can read them.
func TestSpecVariables(t *testing.T) {
	for _, tc := range []struct {
		spec *command.Meta
		full string
	}{
		{command.Get, "get"},
		{command.SortRo, "sort_ro"},
		{command.Client, "client"},
		{command.ClientList, "client|list"},
		{command.ClientNoEvict, "client|no-evict"},
		{command.ObjectEncoding, "object|encoding"},
	} {
		if got := command.LookupFullName([]byte(tc.full)); got != tc.spec {
			t.Errorf("%s: the table holds %p, the variable is %p", tc.full, got, tc.spec)
		}
		if tc.spec.FullName != tc.full {
			t.Errorf("%s: FullName %q", tc.full, tc.spec.FullName)
		}
	}
	if command.ClientList.Parent != command.Client {
		t.Error("CLIENT LIST's parent is not CLIENT")
	}
	if command.Sort.Flags&command.FlagMovableKeys == 0 {
		t.Error("SORT lacks the derived movablekeys flag")
	}
}
