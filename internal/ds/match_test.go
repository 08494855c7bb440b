package ds_test

import (
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Expected results follow Valkey's stringmatchlen, worked through by hand
// for the malformed cases.
var matchTests = []struct {
	pattern, s string
	nocase     bool
	want       bool
}{
	{"", "", false, true},
	{"", "a", false, false},
	{"a", "a", false, true},
	{"a", "b", false, false},
	{"abc", "ab", false, false},
	// '*' against the empty string: the loop never runs, so "*" does not
	// match "" (KEYS and SCAN special-case a lone "*" before matching).
	{"*", "", false, false},
	{"**", "", false, false},
	{"*", "anything", false, true},
	{"a*", "a", false, true},
	{"a*", "", false, false},
	{"*a", "a", false, true},
	{"*a", "ba", false, true},
	{"*a", "ab", false, false},
	{"h*llo", "hllo", false, true},
	{"h*llo", "heeeello", false, true},
	{"abc***", "abc", false, true},
	{"abc*d", "abc", false, false},
	{"*a*b*c", "xaxbxc", false, true},
	{"*a*b*c", "xaxbx", false, false},
	{"a**b", "ab", false, true},
	// '?'
	{"h?llo", "hallo", false, true},
	{"h?llo", "hllo", false, false},
	{"?", "", false, false},
	{"???", "abc", false, true},
	// Classes.
	{"h[ae]llo", "hello", false, true},
	{"h[ae]llo", "hillo", false, false},
	{"h[^e]llo", "hallo", false, true},
	{"h[^e]llo", "hello", false, false},
	{"h[a-b]llo", "hbllo", false, true},
	{"[a-c]", "d", false, false},
	{"[c-a]", "b", false, true}, // reversed range
	{"[a-c-e]", "d", false, false},
	{"[a-c-e]", "-", false, true}, // after "a-c", "-" and "e" are literals
	{"[\\]]", "]", false, true},
	{"[\\-]", "-", false, true},
	{"[a\\-z]", "b", false, false},
	// "[]" is an empty class: it never matches. "[^]" matches any byte.
	{"[]", "]", false, false},
	{"[]", "", false, false},
	{"[]a]", "]", false, false},
	{"[]a]", "a]", false, false},
	{"[^]", "x", false, true},
	{"[^]", "]", false, true},
	// Unterminated classes end at the end of the pattern.
	{"a[", "a[", false, false},
	{"a[", "ab", false, false},
	{"[", "[", false, false},
	{"[abc", "a", false, true},
	{"[abc", "c", false, true},
	{"[abc", "ab", false, false},
	{"[^", "x", false, true},
	{"[^", "", false, false},
	// "[a-]": the range takes ']' as its end (']' < 'a', so ]..a) and the
	// class is then unterminated.
	{"[a-]", "-", false, false},
	{"[a-]", "^", false, true},
	{"[a-]", "a", false, true},
	{"[a-]", "]", false, true},
	// A trailing backslash inside a class is a literal.
	{"[a\\", "\\", false, true},
	{"[a\\", "a", false, true},
	// Escapes.
	{"\\", "\\", false, true},
	{"\\", "a", false, false},
	{"a\\", "a\\", false, true},
	{"a\\", "a", false, false},
	{"\\*", "*", false, true},
	{"\\*", "a", false, false},
	{"\\a", "a", false, true},
	{"\\?", "?", false, true},
	{"\\?", "x", false, false},
	{"\\[a]", "[a]", false, true},
	{"*\\*", "abc*", false, true},
	{"*\\*", "*", false, true},
	{"*\\*", "abc", false, false},
	{"*\\*", "**", false, true},
	// nocase folds ASCII letters, in ranges too, but not escaped class
	// members.
	{"HELLO", "hello", true, true},
	{"HELLO", "hello", false, false},
	{"h*O", "HELLo", true, true},
	{"[A-Z]", "b", true, true},
	{"[A-Z]", "b", false, false},
	{"[a-z]", "B", true, true},
	{"[B]", "b", true, true},
	{"[\\B]", "b", true, false},
	{"\\B", "b", true, true},
	{"é", "É", true, false},
	// Bytes >= 0x80 are signed chars in C, so they sort below '\x00' in
	// ranges.
	{"[\x00-\xff]", "\x80", false, false},
	{"[\x00-\xff]", "a", false, false},
	{"[\x00-\xff]", "\x00", false, true},
	{"[\x00-\xff]", "\xff", false, true},
	{"[a-\xff]", "0", false, true},
	{"[a-\xff]", "b", false, false},
	{"[\x80-\xff]", "\x90", false, true},
	{"\xff*", "\xff\xfe", false, true},
	// NUL bytes are ordinary.
	{"a\x00*", "a\x00b", false, true},
	{"a?c", "a\x00c", false, true},
	// Typical key patterns.
	{"user:*:name", "user:1000:name", false, true},
	{"user:*:name", "user:1000:email", false, false},
	{"{tag}*", "{tag}key", false, true},
}

func TestMatch(t *testing.T) {
	for _, tc := range matchTests {
		if got := ds.Match([]byte(tc.pattern), []byte(tc.s), tc.nocase); got != tc.want {
			t.Errorf("Match(%q, %q, nocase=%v) = %v, want %v", tc.pattern, tc.s, tc.nocase, got, tc.want)
		}
		if got := ds.MatchString(tc.pattern, tc.s, tc.nocase); got != tc.want {
			t.Errorf("MatchString(%q, %q) = %v, want %v", tc.pattern, tc.s, got, tc.want)
		}
	}
}

// TestMatchNesting checks the recursion limit: each non-adjacent '*' nests
// one level, and a sub-match deeper than 1000 levels fails even where the
// pattern would otherwise match.
func TestMatchNesting(t *testing.T) {
	for _, tc := range []struct {
		stars int
		want  bool
	}{{999, true}, {1000, true}, {1001, false}, {5000, false}} {
		pattern := strings.Repeat("*a", tc.stars)
		s := strings.Repeat("a", tc.stars)
		if got := ds.MatchString(pattern, s, false); got != tc.want {
			t.Errorf("%d stars: got %v, want %v", tc.stars, got, tc.want)
		}
	}
	// Depth counts stars, not bytes: a long literal pattern is fine, and
	// a final '*' matches without recursing.
	if !ds.MatchString(strings.Repeat("a", 3000)+"*", strings.Repeat("a", 3001), false) {
		t.Error("long literal + '*' should match")
	}
	// Even when the last star needs no recursion, 1001 earlier ones do.
	if ds.MatchString(strings.Repeat("a*", 1002), strings.Repeat("a", 1002), false) {
		t.Error("a* x 1002 should hit the nesting limit")
	}
}

// TestMatchPathological checks that the skip-longer-matches rule keeps
// patterns with many stars linear-ish instead of exponential.
func TestMatchPathological(t *testing.T) {
	start := time.Now()
	pattern := strings.Repeat("*a", 30) + "b"
	s := strings.Repeat("a", 200)
	if ds.MatchString(pattern, s, false) {
		t.Fatal("unexpected match")
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("took %v", d)
	}
}

// refMatch is a plain backtracking matcher with Valkey's token rules but
// none of its pruning, used to check that the pruning never changes a result.
func refMatch(p, s string, nocase bool) bool {
	if s == "" {
		return p == "" // Valkey only strips trailing stars after a token
	}
	return refStep(p, s, nocase)
}

func refStep(p, s string, nocase bool) bool {
	if p == "" {
		return false
	}
	eq := func(a, b byte) bool {
		if nocase && 'A' <= a && a <= 'Z' {
			a += 'a' - 'A'
		}
		if nocase && 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		return a == b
	}
	var rest string
	switch p[0] {
	case '*':
		p = "*" + strings.TrimLeft(p, "*")
		if len(p) == 1 {
			return true
		}
		for i := range len(s) {
			if refStep(p[1:], s[i:], nocase) {
				return true
			}
		}
		return false
	case '?':
		rest = p[1:]
	case '[':
		q := p[1:]
		not := strings.HasPrefix(q, "^")
		if not {
			q = q[1:]
		}
		match := false
		for {
			if len(q) >= 2 && q[0] == '\\' {
				match = match || q[1] == s[0]
				q = q[2:]
			} else if len(q) > 0 && q[0] == ']' {
				q = q[1:]
				break
			} else if q == "" {
				break // unterminated: the class ends with the pattern
			} else if len(q) >= 3 && q[1] == '-' {
				lo, hi, c := int(int8(q[0])), int(int8(q[2])), int(int8(s[0]))
				if lo > hi {
					lo, hi = hi, lo
				}
				if nocase {
					lo, hi, c = foldInt(lo), foldInt(hi), foldInt(c)
				}
				match = match || (lo <= c && c <= hi)
				q = q[3:]
			} else {
				match = match || eq(q[0], s[0])
				q = q[1:]
			}
		}
		if match == not {
			return false
		}
		rest = q
	case '\\':
		if len(p) >= 2 {
			p = p[1:]
		}
		fallthrough
	default:
		if !eq(p[0], s[0]) {
			return false
		}
		rest = p[1:]
	}
	if len(s) == 1 {
		return strings.TrimLeft(rest, "*") == ""
	}
	return refStep(rest, s[1:], nocase)
}

func foldInt(c int) int {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func TestMatchAgainstReference(t *testing.T) {
	for _, tc := range matchTests {
		if got := refMatch(tc.pattern, tc.s, tc.nocase); got != tc.want {
			t.Errorf("reference disagrees with table: (%q, %q) = %v", tc.pattern, tc.s, got)
		}
	}
}

// FuzzMatch compares Match with the unpruned reference on short inputs.
func FuzzMatch(f *testing.F) {
	for _, tc := range matchTests {
		f.Add(tc.pattern, tc.s, tc.nocase)
	}
	f.Fuzz(func(t *testing.T, pattern, s string, nocase bool) {
		if len(pattern) > 24 || len(s) > 24 {
			return // keep the exponential reference cheap
		}
		if got, want := ds.MatchString(pattern, s, nocase), refMatch(pattern, s, nocase); got != want {
			t.Fatalf("Match(%q, %q, %v) = %v, reference %v", pattern, s, nocase, got, want)
		}
	})
}
