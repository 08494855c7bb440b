package acl

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/resp"
)

// FuzzSetUser feeds arbitrary ACL SETUSER rules (one argument per line)
// to the rule parser. It must never panic, an error must leave the user
// unchanged, and what it accepts must hold Valkey's own sanity check: a
// selector's rendered command rules rebuild its command bitmap. The check
// of a few commands against the result must not panic either.
func FuzzSetUser(f *testing.F) {
	for _, s := range []string{
		"on\n>pw\n~k*\n&ch*\n+get",
		"+@all\n-@dangerous\n+config|get",
		"(+get ~a)\n(-@all +set %W~b &c)",
		"(+get\n~a)",
		"%RW~x\n%R\n%W~",
		"+select|0\n+select|1\n-select",
		"+client\n-client|kill\n+@admin\n-@slow",
		"reset\nnopass\nallkeys\nallchannels\nallcommands",
		"#5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8\n!5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8",
		"(\"~a b\")",
		"clearselectors\nresetkeys\nresetchannels",
	} {
		f.Add(s)
	}
	probes := [][][]byte{
		{[]byte("get"), []byte("k1")},
		{[]byte("mset"), []byte("a"), []byte("1"), []byte("k"), []byte("2")},
		{[]byte("publish"), []byte("ch1"), []byte("m")},
		{[]byte("psubscribe"), []byte("ch*")},
		{[]byte("select"), []byte("0")},
		{[]byte("config"), []byte("get"), []byte("x")},
	}
	f.Fuzz(func(t *testing.T, data string) {
		rules := strings.Split(data, "\n")
		r := New()
		r.SetUser("u", []string{"on", "~k"})
		before := r.Get("u").Perms()
		_, msg := r.SetUser("u", rules)
		p := r.Get("u").Perms()
		if msg != "" {
			if p != before {
				t.Fatalf("%q: refused (%s) but changed the user", rules, msg)
			}
			return
		}
		checkRoundTrip(t, p)
		if p.Description() != p.describe() {
			t.Fatalf("%q: description not deterministic", rules)
		}
		for _, argv := range probes {
			m := Resolve(argv)
			reason, pos := p.Check(m, argv)
			if reason != OK && (pos < 0 || pos >= len(argv)) {
				t.Fatalf("%q: %v at %d", rules, reason, pos)
			}
		}
	})
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "users.acl")
	r := New()
	r.SetUser("old", []string{"on", "nopass"})
	r.SetUser("keep", []string{"on", "nopass", "&a"})
	keep := r.Get("keep")

	os.WriteFile(path, []byte("user keep on nopass &b ~*\nuser bad on +nosuch\nfoo\nuser keep off\n"), 0o644)
	_, _, msg := r.LoadFile(path)
	want := path + ":2: Error in applying operation '+nosuch': Unknown command or category name in ACL. " +
		path + ":3 should start with user keyword followed by the username. " +
		"WARNING: Duplicate user 'keep' found on line 4. " +
		"WARNING: ACL errors detected, no change to the previously active ACL rules was performed"
	if msg != want {
		t.Fatalf("errors:\n got %s\nwant %s", msg, want)
	}
	if r.Get("old") == nil {
		t.Fatal("a failed load changed the users")
	}

	os.WriteFile(path, []byte("user keep on nopass &b ~* +@all\n\n  user x on >p (+get ~a)  \n"), 0o644)
	gone, changed, msg := r.LoadFile(path)
	if msg != "" {
		t.Fatal(msg)
	}
	if len(gone) != 1 || gone[0].Name() != "old" || r.Get("old") != nil {
		t.Fatalf("gone = %v", gone)
	}
	if r.Get("keep") != keep || len(changed) != 2 {
		t.Fatalf("keep must stay the same user; changed = %d", len(changed))
	}
	if got := r.List(); len(got) != 3 || got[0] != "user default on nopass sanitize-payload ~* &* +@all" ||
		got[1] != "user keep on nopass sanitize-payload ~* resetchannels &b +@all" ||
		got[2] != "user x on sanitize-payload #"+hashPassword([]byte("p"))+" resetchannels -@all (~a resetchannels -@all +get)" {
		t.Fatalf("List = %q", got)
	}
	if err := r.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	r2 := New()
	if _, _, msg := r2.LoadFile(path); msg != "" {
		t.Fatal(msg)
	}
	if strings.Join(r2.List(), "\n") != strings.Join(r.List(), "\n") {
		t.Fatalf("SAVE then LOAD:\n%q\n%q", r2.List(), r.List())
	}
	if _, _, msg := r.LoadFile(filepath.Join(dir, "nosuch")); msg != "Error loading ACLs, opening file '"+filepath.Join(dir, "nosuch")+"': No such file or directory" {
		t.Fatal(msg)
	}
}

func TestLoadConfigured(t *testing.T) {
	r := New()
	err := r.LoadConfigured([][]string{{"default", "on", ">pw", "~*", "+@all"}, {"app", "on", ">x", "~app:*", "+@read"}})
	if err != nil {
		t.Fatal(err)
	}
	if !r.AuthRequired() {
		t.Fatal("default has a password: AUTH required")
	}
	if got := r.List()[1]; got != "user default on sanitize-payload #"+hashPassword([]byte("pw"))+" ~* resetchannels +@all" {
		t.Fatal(got)
	}
	if i, msg := ValidateConfigUser([]string{"u", "on", "bogus"}); i != 1 || msg != "Syntax error" {
		t.Fatal(i, msg)
	}
	if i, _ := ValidateConfigUser([]string{"u", "on", "+nosuch"}); i != -1 {
		t.Fatal("unknown commands are checked at loading, not when the file is read")
	}
	_ = command.Get
	_ = resp.SplitArgs
}
