package command_test

import (
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
)

func TestLookup(t *testing.T) {
	for _, name := range []string{"get", "GET", "gEt"} {
		if m := command.Lookup([]byte(name)); m == nil || m.Name != "get" {
			t.Errorf("Lookup(%q) = %v", name, m)
		}
	}
	for _, name := range []string{"", "nosuch", "get ", "client|list", strings.Repeat("x", 100)} {
		if m := command.Lookup([]byte(name)); m != nil {
			t.Errorf("Lookup(%q) = %s, want nil", name, m.FullName)
		}
	}
	client := command.Lookup([]byte("CLIENT"))
	if m := client.Sub([]byte("LiSt")); m == nil || m.FullName != "client|list" || m.Parent != client {
		t.Errorf("CLIENT LIST = %v", m)
	}
	if client.Sub([]byte("nosuch")) != nil || command.Lookup([]byte("get")).Sub([]byte("x")) != nil {
		t.Error("Sub of unknown names")
	}
}

func TestLookupFullName(t *testing.T) {
	tests := map[string]string{
		"get": "get", "GET": "get", "client|list": "client|list", "CLIENT|LIST": "client|list",
		"client|nosuch": "", "get|x": "", "client|list|x": "", "|list": "", "client|": "", "": "",
	}
	for name, want := range tests {
		got := ""
		if m := command.LookupFullName([]byte(name)); m != nil {
			got = m.FullName
		}
		if got != want {
			t.Errorf("LookupFullName(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestResolve(t *testing.T) {
	tests := []struct {
		argv string
		want string
	}{
		{"get k", "get"},
		{"CLIENT LIST", "client|list"},
		{"client nosuch", "client"}, // the container: caller reports the unknown subcommand
		{"client", "client"},
		{"nosuch x", ""},
	}
	for _, tt := range tests {
		got := ""
		if m := command.Resolve(argv(tt.argv)); m != nil {
			got = m.FullName
		}
		if got != tt.want {
			t.Errorf("Resolve(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
	if command.Resolve(nil) != nil {
		t.Error("Resolve(nil)")
	}
}

func TestLookupAllocs(t *testing.T) {
	name, sub := []byte("ZRangeByScore"), []byte("List")
	client := command.Lookup([]byte("client"))
	if n := testing.AllocsPerRun(1000, func() { command.Lookup(name) }); n != 0 {
		t.Errorf("Lookup allocates %v times", n)
	}
	if n := testing.AllocsPerRun(1000, func() { client.Sub(sub) }); n != 0 {
		t.Errorf("Sub allocates %v times", n)
	}
	full := []byte("CLIENT|LIST")
	if n := testing.AllocsPerRun(1000, func() { command.LookupFullName(full) }); n != 0 {
		t.Errorf("LookupFullName allocates %v times", n)
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, name := range []string{"GET", "set", "ZRANGEBYSCORE", "nosuchcommand"} {
		n := []byte(name)
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				command.Lookup(n)
			}
		})
	}
	client, sub := command.Lookup([]byte("client")), []byte("SETNAME")
	b.Run("client|setname", func(b *testing.B) {
		for b.Loop() {
			client.Sub(sub)
		}
	})
}

// The table is immutable, so concurrent readers need no locks (run with
// -race to check).
func TestConcurrentReads(t *testing.T) {
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			a := argv("ZUNIONSTORE d 2 a b")
			dst := make([]int, 0, 8)
			for range 1000 {
				m := command.Lookup(a[0])
				dst = m.KeyPositions(a, dst[:0])
				_ = m.ACL.Names()
				_ = command.LookupFullName([]byte("client|list")).Flags.Names()
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
