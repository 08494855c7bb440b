package acl

import (
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Each case is a user's rules, a command line, and valkey-server 8.0.1's
// ACL DRYRUN reply for them ("OK", the denial, or the error).
var dryRunCases = []struct{ rules, line, want string }{
	{"on +@all ~k*", "get k1", "OK"},
	{"on +@all ~k*", "get x", "User d has no permissions to access the 'x' key"},
	{"on +@all ~k*", "mset k1 v x v", "User d has no permissions to access the 'x' key"},
	{"on +@all ~k*", "mset x v k1 v", "User d has no permissions to access the 'x' key"},
	{"on +@all ~k*", "rename k1 x", "User d has no permissions to access the 'x' key"},
	{"on +@all ~k*", "sort k1 by x", "OK"},
	{"on +@all ~k*", "copy k1 k2", "OK"},
	{"on +@all %R~r* %W~w* ~b*", "get r1", "OK"},
	{"on +@all %R~r* %W~w* ~b*", "get w1", "User d has no permissions to access the 'w1' key"},
	{"on +@all %R~r* %W~w* ~b*", "set w1 v", "OK"},
	{"on +@all %R~r* %W~w* ~b*", "set r1 v", "User d has no permissions to access the 'r1' key"},
	{"on +@all %R~r* %W~w* ~b*", "set w1 v get", "User d has no permissions to access the 'w1' key"},
	{"on +@all %R~r* %W~w* ~b*", "copy r1 w1", "OK"},
	{"on +@all %R~r* %W~w* ~b*", "copy w1 r1", "User d has no permissions to access the 'w1' key"},
	{"on +@all %R~r* %W~w* ~b*", "lmove r1 w1 left right", "User d has no permissions to access the 'r1' key"},
	{"on +@all %R~r* %W~w* ~b*", "exists w1", "OK"},
	{"on +@all %R~r* %W~w* ~b*", "del r1", "User d has no permissions to access the 'r1' key"},
	{"on +@all %R~r* %W~w* ~b*", "del w1", "OK"},
	{"on +@all %R~r* %W~w* ~b*", "getdel w1", "User d has no permissions to access the 'w1' key"},
	{"on +@all %R~r* %W~w* ~b*", "incr w1", "User d has no permissions to access the 'w1' key"},
	{"on +@all %R~r* %W~w* ~b*", "append w1 x", "OK"},
	{"on -@all +get (+set ~s*) ~g*", "get g1", "OK"},
	{"on -@all +get (+set ~s*) ~g*", "get s1", "User d has no permissions to access the 's1' key"},
	{"on -@all +get (+set ~s*) ~g*", "set s1 v", "OK"},
	{"on -@all +get (+set ~s*) ~g*", "set g1 v", "User d has no permissions to access the 'g1' key"},
	{"on -@all +get (+set ~s*) ~g*", "del g1", "User d has no permissions to run the 'del' command"},
	{"on -@all +select|0 +client|list +config", "select 0", "OK"},
	{"on -@all +select|0 +client|list +config", "select 1", "User d has no permissions to run the 'select' command"},
	{"on -@all +select|0 +client|list +config", "client list", "OK"},
	{"on -@all +select|0 +client|list +config", "client kill 1", "User d has no permissions to run the 'client|kill' command"},
	{"on -@all +select|0 +client|list +config", "config get x", "OK"},
	{"on -@all +select|0 +client|list +config", "auth x y", "OK"},
	{"on -@all +select|0 +client|list +config", "hello", "OK"},
	{"on +@all &ch* ~*", "publish ch1 m", "OK"},
	{"on +@all &ch* ~*", "publish x m", "User d has no permissions to access the 'x' channel"},
	{"on +@all &ch* ~*", "subscribe ch1 x", "User d has no permissions to access the 'x' channel"},
	{"on +@all &ch* ~*", "psubscribe ch*", "OK"},
	{"on +@all &ch* ~*", "psubscribe ch1", "User d has no permissions to access the 'ch1' channel"},
	{"on +@all &ch* ~*", "ssubscribe ch2", "OK"},
	{"on +@all &ch* ~*", "spublish x m", "User d has no permissions to access the 'x' channel"},
	{"on +@all &ch* ~*", "unsubscribe x", "OK"},
	{"on +@all resetchannels ~* (+@all &x ~*)", "publish x m", "OK"},
	{"on +@all resetchannels ~* (+@all &x ~*)", "publish y m", "User d has no permissions to access the 'y' channel"},
	{"on +@all ~a (~b +@all) (%R~c +@all)", "mset a 1 b 2", "User d has no permissions to access the 'b' key"},
	{"on +@all ~a (~b +@all) (%R~c +@all)", "mget a b c", "User d has no permissions to access the 'b' key"},
	{"on +@all ~a (~b +@all) (%R~c +@all)", "mget c a", "User d has no permissions to access the 'a' key"},
	{"on +@all ~a (~b +@all) (%R~c +@all)", "set c 1", "User d has no permissions to access the 'c' key"},
	{"on -@all +@keyspace ~*", "config get x", "User d has no permissions to run the 'config|get' command"},
	{"on -@all +@keyspace ~*", "client|list", "ERR Command 'client|list' not found"},
	{"on -@all +@slow", "config set x y", "OK"},
	{"on ~*", "config nosuch", "ERR Command 'config' not found"},
	{"on ~*", "get", "ERR wrong number of arguments for 'get' command"},
}

func TestDryRun(t *testing.T) {
	for _, tt := range dryRunCases {
		r := New()
		argv, _ := resp.SplitArgs(nil, []byte(tt.rules))
		rules := make([]string, len(argv))
		for i, a := range argv {
			rules[i] = string(a)
		}
		if _, msg := r.SetUser("d", rules); msg != "" {
			t.Fatalf("SetUser %s: %s", tt.rules, msg)
		}
		line, _ := resp.SplitArgs(nil, []byte(tt.line))
		denial, errMsg := r.DryRun([]byte("d"), line)
		got := "OK"
		switch {
		case errMsg != "":
			got = "ERR " + errMsg
		case denial != "":
			got = denial
		}
		if got != tt.want {
			t.Errorf("%s / %s: got %q, want %q", tt.rules, tt.line, got, tt.want)
		}
	}
}

func TestCheckMessagesAndFastPath(t *testing.T) {
	r := New()
	p := r.Default().Perms()
	if !p.Unrestricted() {
		t.Fatal("default user not unrestricted")
	}
	if reason, _ := p.Check(command.Config, [][]byte{[]byte("config")}); reason != OK {
		t.Fatal("default user denied")
	}
	r.SetUser("u", []string{"+@all", "~*", "resetchannels"})
	if r.Get("u").Perms().Unrestricted() {
		t.Fatal("a user without &* is unrestricted")
	}
	if got := Message(DeniedCommand, "u", command.ConfigGet, nil, false); got != "User u has no permissions to run the 'config|get' command" {
		t.Error(got)
	}
	if got := Message(DeniedKey, "u", command.Get, []byte("k"), false); got != "No permissions to access a key" {
		t.Error(got)
	}
	if got := Message(DeniedChannel, "u", command.Publish, []byte("c"), false); got != "No permissions to access a channel" {
		t.Error(got)
	}
}

func TestUnrestrictedKeysAndRevokedSubscriptions(t *testing.T) {
	r := New()
	r.SetUser("s", []string{"+@all", "~k*", "(+sort %R~*)"})
	argv := [][]byte{[]byte("sort"), []byte("k1")}
	if !r.Get("s").Perms().UnrestrictedKeys(command.Sort, argv, command.KeyAccess) {
		t.Error("a selector with %R~* allowing SORT gives full read access")
	}
	r.SetUser("t", []string{"+@all", "~k*"})
	if r.Get("t").Perms().UnrestrictedKeys(command.Sort, argv, command.KeyAccess) {
		t.Error("~k* is not full key access")
	}

	ch, _ := r.SetUser("p", []string{"on", "&a*", "&b"})
	old := ch.New
	ch, _ = r.SetUser("p", []string{"&c"})
	if RevokedSubscriptions(old, ch.New) != nil {
		t.Error("adding a channel revokes nothing")
	}
	ch2, _ := r.SetUser("p", []string{"resetchannels", "&a*"})
	revoked := RevokedSubscriptions(ch.New, ch2.New)
	if revoked == nil {
		t.Fatal("removing &b revokes")
	}
	if revoked([]byte("a1"), false) || !revoked([]byte("b"), false) || !revoked([]byte("a*x"), true) || revoked([]byte("a*"), true) {
		t.Error("revoked: wrong channels")
	}
	ch3, _ := r.SetUser("p", []string{"allchannels"})
	if RevokedSubscriptions(ch2.New, ch3.New) != nil {
		t.Error("allchannels revokes nothing")
	}
}

func TestCategoryCommands(t *testing.T) {
	names, ok := CategoryCommands("ADMIN")
	if !ok {
		t.Fatal("admin unknown")
	}
	has := map[string]bool{}
	for _, n := range names {
		has[n] = true
	}
	for _, n := range []string{"config|set", "debug", "shutdown", "monitor", "save", "replicaof", "acl|setuser"} {
		if !has[n] {
			t.Errorf("@admin lacks %s", n)
		}
	}
	for n := range has {
		if strings.HasPrefix(n, "sentinel") {
			t.Errorf("@admin lists sentinel-only %s", n)
		}
	}
	if _, ok := CategoryCommands("nosuch"); ok {
		t.Error("unknown category accepted")
	}
}

func TestLog(t *testing.T) {
	var l Log
	e := LogEntry{Reason: DeniedAuth, Context: Toplevel, Object: "auth", Username: "u", ClientInfo: "id=1"}
	l.Add(e, 1000, 3)
	e.ClientInfo = "id=2"
	l.Add(e, 2000, 3) // grouped
	got := l.Entries(10)
	if len(got) != 1 || got[0].Count != 2 || got[0].ClientInfo != "id=2" || got[0].Created != 1000 || got[0].Updated != 2000 {
		t.Fatalf("grouping: %+v", got)
	}
	l.Add(e, 2000+groupWindow+1, 3) // too late: a new entry
	for i := 0; i < 5; i++ {
		e.Username = string(rune('a' + i))
		l.Add(e, 100000, 3)
	}
	got = l.Entries(10)
	if len(got) != 3 || got[0].Username != "e" || got[0].EntryID != 6 {
		t.Fatalf("capped log: %+v", got)
	}
	if l.AuthFailures.Load() != 8 {
		t.Fatalf("auth failures %d", l.AuthFailures.Load())
	}
	l.Reset()
	if len(l.Entries(10)) != 0 {
		t.Fatal("reset")
	}
	l.Add(e, 1, 0) // acllog-max-len 0 keeps nothing
	if len(l.Entries(10)) != 0 {
		t.Fatal("max len 0")
	}
}
