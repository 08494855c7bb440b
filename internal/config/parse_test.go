package config

import (
	"reflect"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

func TestSplitArgs(t *testing.T) {
	tests := []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", []string{}, true},
		{"   \t ", []string{}, true},
		{"port 6379", []string{"port", "6379"}, true},
		{"  bind   127.0.0.1\t::1  ", []string{"bind", "127.0.0.1", "::1"}, true},
		{`requirepass "a b"`, []string{"requirepass", "a b"}, true},
		{`x "a\nb\tc\r\\\"\a\b"`, []string{"x", "a\nb\tc\r\\\"\a\b"}, true},
		{`x "\x41\x6a\x4z"`, []string{"x", "Aj" + "x4z"}, true},
		{`x 'it\'s' 'a\nb'`, []string{"x", "it's", `a\nb`}, true},
		{`x ""`, []string{"x", ""}, true},
		{`x ''`, []string{"x", ""}, true},
		{`foo"bar baz"`, []string{"foobar baz"}, true},
		{`x "unterminated`, nil, false},
		{`x 'unterminated`, nil, false},
		{`x "a"b`, nil, false},
		{`x 'a'b`, nil, false},
		{"x \"a\"\tb", []string{"x", "a", "b"}, true},
		{"a\x00b c", []string{"a"}, true},
	}
	for _, tc := range tests {
		got, ok := splitArgs(tc.in)
		if ok != tc.ok || (ok && !reflect.DeepEqual(got, tc.want)) {
			t.Errorf("splitArgs(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestReprRoundTrip(t *testing.T) {
	for _, s := range []string{"", "plain", "a b", `q"uo\te`, "nl\n\r\t\a\b", "\x00\x01\xff\x7f é"} {
		r := repr(s)
		got, ok := splitArgs("x " + r)
		if !ok || len(got) != 2 || got[1] != s {
			t.Errorf("repr(%q) = %s read back as %q, %v", s, r, got, ok)
		}
	}
	if got := repr("a\"b\x01"); got != `"a\"b\x01"` {
		t.Errorf("repr = %s", got)
	}
}

func TestMemtoull(t *testing.T) {
	tests := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"", 0, true}, // as in C: no digits parse as 0
		{"100", 100, true},
		{"100b", 100, true},
		{"1k", 1000, true},
		{"1K", 1000, true},
		{"1kb", 1024, true},
		{"1KB", 1024, true},
		{"1kB", 1024, true},
		{"2m", 2000000, true},
		{"2mb", 2 << 20, true},
		{"3g", 3000000000, true},
		{"102gb", 102 << 30, true},
		{"102GB", 102 << 30, true},
		{"18446744073709551615", 18446744073709551615, true},
		{"18446744073709551616", 18446744073709551615, true},      // saturates, as strtoull
		{"99999999999999999999999kb", 18446744073709550592, true}, // and wraps: (2^64-1)*1024 mod 2^64
		{"1\x00x", 1, true}, // a C string: up to the NUL
		{"\x001", 0, true},
		{"-1", 0, false},
		{"+1", 0, false},
		{" 1", 0, false},
		{"1 gb", 0, false},
		{"1.5gb", 0, false},
		{"1tb", 0, false},
		{"1kbb", 0, false},
		{"0x10", 0, false},
	}
	for _, tc := range tests {
		got, ok := memtoull(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("memtoull(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestString2ll(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true},
		{"1", 1, true},
		{"-1", -1, true},
		{"9223372036854775807", 9223372036854775807, true},
		{"-9223372036854775808", -9223372036854775808, true},
		{"9223372036854775808", 0, false},
		{"-0", 0, false},
		{"01", 0, false},
		{"+1", 0, false},
		{" 1", 0, false},
		{"1 ", 0, false},
		{"", 0, false},
		{"-", 0, false},
		{"1e3", 0, false},
	}
	for _, tc := range tests {
		got, ok := string2ll(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("string2ll(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestStrtoll(t *testing.T) {
	tests := []struct {
		in, rest string
		base     int
		want     int64
		inRange  bool
	}{
		{"12", "", 10, 12, true},
		{"  -7x", "x", 10, -7, true},
		{"", "", 10, 0, true},
		{"+", "+", 10, 0, true},
		{"777", "", 8, 511, true},
		{"778", "8", 8, 63, true},
		{"99999999999999999999", "", 10, 9223372036854775807, false},
	}
	for _, tc := range tests {
		v, rest, ok := strtoll(tc.in, tc.base)
		if v != tc.want || rest != tc.rest || ok != tc.inRange {
			t.Errorf("strtoll(%q,%d) = %d, %q, %v", tc.in, tc.base, v, rest, ok)
		}
	}
}

func TestFormatHelpers(t *testing.T) {
	for in, want := range map[int64]string{0: "0", 1023: "1023", 1024: "1kb", 1536: "1536",
		1 << 20: "1mb", 3 << 30: "3gb", 100 << 20: "100mb", 1025 << 20: "1025mb"} {
		if got := formatMemory(in); got != want {
			t.Errorf("formatMemory(%d) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[float64]string{50: "50", 99.9: "99.9", 99.99: "99.99", 0: "0", 100: "100"} {
		if got := trimDouble(in); got != want {
			t.Errorf("trimDouble(%v) = %q, want %q", in, got, want)
		}
	}
}

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		pat, s string
		want   bool
	}{
		{"*", "maxmemory", true},
		{"max*", "maxmemory", true},
		{"MAX*", "maxmemory", true},
		{"*memory", "maxmemory", true},
		{"*mem*", "maxmemory-policy", true},
		{"max?emory", "maxmemory", true},
		{"max?emory", "maxxmemory", false},
		{"[mn]axmemory", "maxmemory", true},
		{"[^m]axmemory", "maxmemory", false},
		{"[a-z]ort", "port", true},
		{"[A-Z]ort", "port", true}, // nocase applies to ranges
		{"p\\ort", "port", true},
		{"p[o", "po", true}, // unterminated class: C treats the end as "]"
		{"hash-*-entries", "hash-max-listpack-entries", true},
		{"*-entries", "hash-max-ziplist-value", false},
		{"a*a*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", false},
		{"", "", true},
		{"", "x", false},
		{"x*", "x", true},
		{"x**", "x", true},
	}
	for _, tc := range tests {
		if got := ds.MatchString(tc.pat, tc.s, true); got != tc.want {
			t.Errorf("MatchString(%q, %q) = %v, want %v", tc.pat, tc.s, got, tc.want)
		}
	}
	if ds.MatchString("MAX*", "maxmemory", false) {
		t.Error("case-sensitive glob matched")
	}
}
