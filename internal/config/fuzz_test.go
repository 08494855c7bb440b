package config

import (
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// The corpora are under testdata/fuzz/<FuzzName>; plain `go test` runs each
// target over its seeds and corpus.

// FuzzRepr: every value CONFIG REWRITE quotes reads back unchanged.
func FuzzRepr(f *testing.F) {
	for _, s := range []string{"", "a b", `"\`, "\x00\xff", "it's", "\\x41", "\"\"", "\r\n\t\a\b\v\f", "{title}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := splitArgs("k " + repr(s))
		if !ok || len(got) != 2 || got[1] != s {
			t.Fatalf("repr(%q) = %s read back as %q, %v", s, repr(s), got, ok)
		}
	})
}

// FuzzParsers: the C-style parsers never panic, and each result satisfies
// a property that pins it down independently of the parser.
func FuzzParsers(f *testing.F) {
	for _, s := range []string{
		"1gb", "-1", "[a-", "*?\\", "\"x\\", "'", "0", "-0", "01", "+1",
		"9223372036854775807", "-9223372036854775808", "9223372036854775808",
		"18446744073709551615kb", " 0x7f", "0777", "1e3", "inf", "-nan", "1_0",
		"KEA", "Ag$lshzxetmdn", "{title} {port}", "{{", "a\"b c\"", "'a'b",
	} {
		f.Add(s, s)
	}
	f.Add("h?llo", "hello")
	f.Add("[^a-c]*", "dog")
	f.Fuzz(func(t *testing.T, a, b string) {
		// splitArgs: when it succeeds, quoting its words and splitting
		// again gives the same words.
		if words, ok := splitArgs(a); ok {
			quoted := make([]string, len(words))
			for i, w := range words {
				quoted[i] = repr(w)
			}
			again, ok2 := splitArgs(strings.Join(quoted, " "))
			if !ok2 || strings.Join(again, "\x00") != strings.Join(words, "\x00") || len(again) != len(words) {
				t.Fatalf("splitArgs(%q) = %q; requoted gives %q, %v", a, words, again, ok2)
			}
		}

		// string2ll accepts exactly the canonical decimal form of an int64.
		v, ok := string2ll(a)
		pv, err := strconv.ParseInt(a, 10, 64)
		if canon := err == nil && strconv.FormatInt(pv, 10) == a; ok != canon || (ok && v != pv) {
			t.Fatalf("string2ll(%q) = %d, %v", a, v, ok)
		}

		// memtoull: digits (fewer than 128) and an optional unit, read
		// as a C string (up to a NUL), saturating at 2^64-1 before the
		// unit's multiplication (which wraps).
		if m, ok := memtoull(a); ok {
			c := a
			if i := strings.IndexByte(c, 0); i >= 0 {
				c = c[:i]
			}
			u := 0
			for u < len(c) && c[u] >= '0' && c[u] <= '9' {
				u++
			}
			mul := map[string]uint64{"": 1, "b": 1, "k": 1000, "kb": 1024, "m": 1e6, "mb": 1 << 20, "g": 1e9, "gb": 1 << 30}[strings.ToLower(c[u:])]
			d, err := strconv.ParseUint("0"+c[:u], 10, 64)
			if err != nil {
				d, err = math.MaxUint64, nil
			}
			if mul == 0 || u >= 128 || m != d*mul {
				t.Fatalf("memtoull(%q) = %d", a, m)
			}
		}

		// strtoll: the parsed prefix is blanks, a sign and octal digits.
		n, rest, inRange := strtoll(a, 8)
		if !strings.HasSuffix(a, rest) {
			t.Fatalf("strtoll(%q): rest %q is not a suffix", a, rest)
		}
		if rest == a {
			if n != 0 || !inRange {
				t.Fatalf("strtoll(%q) read nothing but returned %d, %v", a, n, inRange)
			}
		} else {
			num := strings.TrimLeft(a[:len(a)-len(rest)], " \t\n\v\f\r")
			sign := ""
			if num[0] == '+' || num[0] == '-' {
				sign, num = num[:1], num[1:]
			}
			if num == "" || strings.Trim(num, "01234567") != "" {
				t.Fatalf("strtoll(%q) consumed %q", a, a[:len(a)-len(rest)])
			}
			if want, err := strconv.ParseInt(sign+num, 8, 64); (err == nil) != inRange || (inRange && want != n) {
				t.Fatalf("strtoll(%q) = %d, %v; ParseInt says %d, %v", a, n, inRange, want, err)
			}
		}

		// string2d: no blanks around, no NaN, the value ParseFloat gives.
		if d, ok := string2d(a); ok {
			p, err := strconv.ParseFloat(a, 64)
			if math.IsNaN(d) || strings.Trim(a, " \t\n\v\f\r") != a || strings.Contains(a, "_") || err != nil || p != d {
				t.Fatalf("string2d(%q) = %v", a, d)
			}
		}

		// Glob: a pattern of b with every byte escaped matches b, and so
		// does one '?' per byte.
		var esc strings.Builder
		for i := 0; i < len(b); i++ {
			esc.WriteByte('\\')
			esc.WriteByte(b[i])
		}
		if !ds.MatchString(esc.String(), b, false) || !ds.MatchString(esc.String(), b, true) {
			t.Fatalf("escaped %q does not match itself", b)
		}
		if len(b) > 0 && !ds.MatchString(strings.Repeat("?", len(b)), b, false) {
			t.Fatalf("%d '?' do not match %q", len(b), b)
		}
		ds.MatchString(a, b, true)

		// proc-title-template: text without variables is valid unless
		// blank; a bad brace is always refused.
		msg := validProcTitle(a)
		if !strings.ContainsAny(a, "{}") && (msg == "") != (strings.Trim(a, " ") != "") {
			t.Fatalf("validProcTitle(%q) = %q", a, msg)
		}
		if strings.HasSuffix(a, "{") && !strings.HasSuffix(a, "{{") && msg == "" {
			t.Fatalf("validProcTitle(%q) accepted a trailing '{'", a)
		}

		// notify-keyspace-events: only the flag letters are accepted, and
		// the flags print back to an equivalent string ('n' is not printed
		// next to 'A', as upstream).
		fl, ok := notifyFlags(a)
		if ok != (strings.Trim(a, "Ag$lshzxeKEtmdn") == "") {
			t.Fatalf("notifyFlags(%q) ok = %v", a, ok)
		}
		if ok {
			again, ok2 := notifyFlags(notifyString(fl))
			want := fl
			if fl&NotifyAll == NotifyAll {
				want &^= NotifyNew
			}
			if !ok2 || again != want {
				t.Fatalf("notifyFlags(%q) = %b prints as %q = %b", a, fl, notifyString(fl), again)
			}
		}
	})
}
