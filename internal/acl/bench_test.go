package acl

import (
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
)

// BenchmarkCheck: the default user's fast path (what the server tests
// before calling Check) and a user with five key patterns. Not timed on
// the shared machines; run it on a quiet one.
func BenchmarkCheck(b *testing.B) {
	r := New()
	r.SetUser("five", []string{"on", "+@all", "~a:*", "~b:*", "~c:*", "%R~d:*", "%W~e:*"})
	argv := [][]byte{[]byte("set"), []byte("e:key"), []byte("v")}
	b.Run("default", func(b *testing.B) {
		u := r.Default()
		for b.Loop() {
			if p := u.Perms(); !p.Unrestricted() {
				p.Check(command.Set, argv)
			}
		}
	})
	b.Run("five-patterns", func(b *testing.B) {
		u := r.Get("five")
		for b.Loop() {
			if p := u.Perms(); !p.Unrestricted() {
				if reason, _ := p.Check(command.Set, argv); reason != OK {
					b.Fatal(reason)
				}
			}
		}
	})
}
