package config

import (
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// FuzzRepr: every value CONFIG REWRITE quotes reads back unchanged.
func FuzzRepr(f *testing.F) {
	for _, s := range []string{"", "a b", `"\`, "\x00\xff", "it's"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := splitArgs("k " + repr(s))
		if !ok || len(got) != 2 || got[1] != s {
			t.Fatalf("repr(%q) read back as %q, %v", s, got, ok)
		}
	})
}

// FuzzParsers: the C-style parsers never panic on arbitrary input.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{"1gb", "-1", "[a-", "*?\\", "\"x\\", "'"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		splitArgs(a)
		memtoull(a)
		string2ll(a)
		strtoll(a, 8)
		string2d(a)
		ds.MatchString(a, b, true)
		validProcTitle(a)
		notifyFlags(a)
	})
}
