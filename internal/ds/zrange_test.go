package ds_test

import (
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

func TestParseLexRange(t *testing.T) {
	tests := []struct {
		min, max string
		ok       bool
		empty    bool
	}{
		{"-", "+", true, false},
		{"+", "-", true, true},
		{"-", "-", true, true},
		{"+", "+", true, true},
		{"[a", "[a", true, false},
		{"(a", "[a", true, true},
		{"[a", "(a", true, true},
		{"[b", "[a", true, true},
		{"[", "+", true, false}, // empty member, inclusive
		{"(", "(", true, true},
		{"a", "+", false, false},
		{"", "+", false, false},
		{"-x", "+", false, false},
		{"-", "+\x00junk", true, false}, // C string compare stops at NUL
		{"[a", "++", false, false},
	}
	for _, tc := range tests {
		r, ok := ds.ParseLexRange([]byte(tc.min), []byte(tc.max))
		if ok != tc.ok || (ok && r.Empty() != tc.empty) {
			t.Errorf("ParseLexRange(%q, %q) = %+v,%v; want ok=%v empty=%v", tc.min, tc.max, r, ok, tc.ok, tc.empty)
		}
	}
}
