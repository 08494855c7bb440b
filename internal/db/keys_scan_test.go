package db

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// parseScanReply splits a SCAN reply into its cursor and keys, failing the
// test on anything that is not [bulk, [bulk...]].
func parseScanReply(t *testing.T, s string) (string, []string) {
	t.Helper()
	fail := func() { t.Fatalf("malformed SCAN reply %q", s) }
	line := func() string {
		i := strings.Index(s, "\r\n")
		if i < 0 {
			fail()
		}
		l := s[:i]
		s = s[i+2:]
		return l
	}
	bulk := func() string {
		h := line()
		if h == "" || h[0] != '$' {
			fail()
		}
		n, err := strconv.Atoi(h[1:])
		if err != nil || len(s) < n+2 {
			fail()
		}
		b := s[:n]
		s = s[n+2:]
		return b
	}
	if line() != "*2" {
		fail()
	}
	cur := bulk()
	h := line()
	if h == "" || h[0] != '*' {
		fail()
	}
	n, err := strconv.Atoi(h[1:])
	if err != nil {
		fail()
	}
	keys := make([]string, n)
	for i := range keys {
		keys[i] = bulk()
	}
	if s != "" {
		fail()
	}
	return cur, keys
}

// scanAll runs a full SCAN iteration with the given options, calling
// between (if set) after every call, and returns the set of keys seen.
func (h *keyHarness) scanAll(opts []string, between func(i int)) map[string]int {
	h.t.Helper()
	seen := map[string]int{}
	cur := "0"
	for i := 0; ; i++ {
		if i > 100000 {
			h.t.Fatalf("SCAN did not terminate")
		}
		next, keys := parseScanReply(h.t, h.do(append([]string{"SCAN", cur}, opts...)...))
		for _, k := range keys {
			seen[k]++
		}
		if next == "0" {
			return seen
		}
		cur = next
		if between != nil {
			between(i)
		}
	}
}

func TestGenericScanFullIteration(t *testing.T) {
	h := newKeyHarness(t)
	want := map[string]bool{}     // user:* strings
	wantHash := map[string]bool{} // all hashes
	all := map[string]bool{}
	for i := 0; i < 3000; i++ {
		var k string
		switch i % 3 {
		case 0:
			k = fmt.Sprintf("user:%d", i)
			h.do("SET", k, "v")
			want[k] = true
		case 1:
			k = fmt.Sprintf("user:%d", i)
			h.mkObj(0, k, TypeHash, nil)
			wantHash[k] = true
		default:
			k = fmt.Sprintf("other:%d", i)
			h.do("SET", k, "v")
		}
		all[k] = true
	}
	check := func(name string, seen map[string]int, want map[string]bool) {
		t.Helper()
		for k := range want {
			if seen[k] == 0 {
				t.Errorf("%s: key %q never returned", name, k)
			}
		}
		for k := range seen {
			if !want[k] {
				t.Errorf("%s: unexpected key %q", name, k)
			}
		}
	}
	check("plain", h.scanAll(nil, nil), all)
	check("count 7", h.scanAll([]string{"COUNT", "7"}, nil), all)
	check("match+type", h.scanAll([]string{"MATCH", "user:*", "COUNT", "13", "TYPE", "string"}, nil), want)
	check("type hash", h.scanAll([]string{"type", "HASH"}, nil), wantHash)
	check("match *", h.scanAll([]string{"MATCH", "*", "COUNT", "100"}, nil), all)
	check("no match", h.scanAll([]string{"MATCH", "nothing*"}, nil), map[string]bool{})

	// Keys present for the whole iteration are returned even while other
	// keys are added and removed between calls (the dicts grow and rehash).
	seen := h.scanAll([]string{"COUNT", "20"}, func(i int) {
		for j := 0; j < 40; j++ {
			h.do("SET", fmt.Sprintf("new:%d:%d", i, j), "v")
		}
		for j := 0; j < 40; j += 2 {
			h.do("DEL", fmt.Sprintf("new:%d:%d", i, j))
		}
	})
	for k := range all {
		if seen[k] == 0 {
			t.Errorf("under churn: key %q never returned", k)
		}
	}
}

func TestGenericScanShrinkingDB(t *testing.T) {
	h := newKeyHarness(t)
	keep := map[string]bool{}
	for i := 0; i < 2000; i++ {
		k := "k" + strconv.Itoa(i)
		h.do("SET", k, "v")
		if i%10 == 0 {
			keep[k] = true
		}
	}
	// Delete most keys during the walk, forcing the dicts to shrink.
	next := 0
	seen := h.scanAll([]string{"COUNT", "5"}, func(int) {
		for n := 0; n < 50 && next < 2000; next++ {
			k := "k" + strconv.Itoa(next)
			if !keep[k] {
				h.do("DEL", k)
				n++
			}
		}
	})
	for k := range keep {
		if seen[k] == 0 {
			t.Errorf("key %q never returned while the db shrank", k)
		}
	}
}

func TestGenericScanErrors(t *testing.T) {
	h := newKeyHarness(t)
	h.do("SET", "k", "v")
	one := rArr(rBulk("0"), rArr(rBulk("k")))
	h.run([]step{
		st(rArr(rBulk("0"), rArr()), "SCAN", "0", "MATCH", "zzz"),
		st(one, "SCAN", "0"),
		st(rErr("ERR invalid cursor"), "SCAN", "abc"),
		st(rErr("ERR invalid cursor"), "SCAN", "-1"),
		st(rErr("ERR invalid cursor"), "SCAN", ""),
		st(rErr("ERR invalid cursor"), "SCAN", "1 "),
		st(rErr("ERR invalid cursor"), "SCAN", "18446744073709551616"),
		st(rErr("ERR invalid cursor"), "SCAN", "0x10"),
		// The cursor is checked before the options.
		st(rErr("ERR invalid cursor"), "SCAN", "x", "COUNT", "0"),
		st(rErr(ErrSyntax), "SCAN", "0", "COUNT", "0"),
		st(rErr(ErrSyntax), "SCAN", "0", "COUNT", "-5"),
		st(rErr(ErrNotInt), "SCAN", "0", "COUNT", "abc"),
		st(rErr(ErrSyntax), "SCAN", "0", "COUNT"),
		st(rErr(ErrSyntax), "SCAN", "0", "MATCH"),
		st(rErr(ErrSyntax), "SCAN", "0", "TYPE"),
		st(rErr(ErrSyntax), "SCAN", "0", "foo"),
		st(rErr(ErrSyntax), "SCAN", "0", "MATCH", "*", "extra"),
		// Valkey 8 only: these would be a syntax error / an empty scan in 7.0.
		st(rErr("ERR unknown type name 'foo'"), "SCAN", "0", "TYPE", "foo"),
		// Valkey reads the cursor and the type name as C strings, up to
		// a NUL byte (found by tests/cmdfuzz).
		st(rErr("ERR unknown type name 'foo'"), "SCAN", "0", "TYPE", "foo\x00bar"),
		st(one, "SCAN", "0", "TYPE", "string\x00x"),
		st(one, "SCAN", "0\x00junk"),
		st(rErr("ERR invalid cursor"), "SCAN", "\x000"),
		st(rErr("ERR NOVALUES option can only be used in HSCAN"), "SCAN", "0", "NOVALUES"),
		st(rErr("ERR NOSCORES option can only be used in ZSCAN"), "SCAN", "0", "noscores"),
		// Leniencies of strtoull that Valkey 8 keeps.
		st(one, "SCAN", "+0"),
		st(one, "SCAN", "00"),
		st(one, "SCAN", " 0"),
		st(one, "SCAN", "-0"),
		// Options repeat; the last one wins.
		st(one, "SCAN", "0", "MATCH", "zzz", "MATCH", "k", "COUNT", "1", "COUNT", "100"),
		st(one, "SCAN", "0", "TYPE", "hash", "TYPE", "String"),
	})
	// An arbitrary cursor does not crash and ends the walk eventually.
	cur := "18446744073709551615"
	for i := 0; i < 1000 && cur != "0"; i++ {
		cur, _ = parseScanReply(t, h.do("SCAN", cur))
	}
	if cur != "0" {
		t.Errorf("SCAN from a huge cursor did not finish")
	}
}

func TestGenericParseScanCursor(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true},
		{"42", 42, true},
		{"18446744073709551615", 18446744073709551615, true},
		{"9223372036854775808", 9223372036854775808, true},
		{"18446744073709551616", 0, false},
		{"99999999999999999999", 0, false},
		{"", 0, false},
		{"-1", 0, false},
		{"-9223372036854775808", 0, false},
		{"-0", 0, true},
		{"+7", 7, true},
		{"007", 7, true},
		{" 7", 7, true},
		{"\t\n7", 7, true},
		{"7 ", 0, false},
		{" ", 0, false},
		{"+", 0, false},
		{"-", 0, false},
		{"1e3", 0, false},
		{"abc", 0, false},
		// strtoull negates an out-of-int64 magnitude modulo 2^64.
		{"-18446744073709551615", 1, true},
	} {
		got, ok := parseScanCursor([]byte(tc.in))
		if ok != tc.ok || (ok && got != tc.want) {
			t.Errorf("parseScanCursor(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestGenericKeys(t *testing.T) {
	h := newKeyHarness(t)
	if got := h.do("KEYS", "*"); got != rArr() {
		t.Errorf("KEYS on empty db = %q", got)
	}
	for _, k := range []string{"hello", "hallo", "hxllo", "hllo", "heeeello", "a*b", "Hello"} {
		h.do("SET", k, "v")
	}
	for _, tc := range []struct {
		pat  string
		want []string
	}{
		{"*", []string{"Hello", "a*b", "hallo", "heeeello", "hello", "hllo", "hxllo"}},
		{"h?llo", []string{"hallo", "hello", "hxllo"}},
		{"h*llo", []string{"hallo", "heeeello", "hello", "hllo", "hxllo"}},
		{"h[ae]llo", []string{"hallo", "hello"}},
		{"h[^e]llo", []string{"hallo", "hxllo"}},
		{"h[a-b]llo", []string{"hallo"}},
		{`a\*b`, []string{"a*b"}},
		{"nomatch", nil},
		{"hello", []string{"hello"}},
	} {
		cur, keys := parseScanReply(t, "*2\r\n$1\r\n0\r\n"+h.do("KEYS", tc.pat))
		_ = cur
		sort.Strings(keys)
		if strings.Join(keys, ",") != strings.Join(tc.want, ",") {
			t.Errorf("KEYS %q = %v, want %v", tc.pat, keys, tc.want)
		}
	}
	// Other databases are not listed.
	h.c.DB = 1
	if got := h.do("KEYS", "*"); got != rArr() {
		t.Errorf("KEYS in db 1 = %q", got)
	}
}
