package command_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/command"
)

func argv(s string) [][]byte {
	var out [][]byte
	for _, f := range strings.Fields(s) {
		if f == `""` {
			f = ""
		}
		out = append(out, []byte(f))
	}
	return out
}

// resolve finds the meta for an argv (descending into subcommands).
func resolve(t testing.TB, a [][]byte) *command.Meta {
	t.Helper()
	m := command.Resolve(a)
	if m == nil {
		t.Fatalf("no command for %q", a[0])
	}
	return m
}

func TestKeyPositions(t *testing.T) {
	tests := []struct {
		cmd  string
		want []int
	}{
		{"GET k", []int{1}},
		{"get k", []int{1}},
		{"SET k v", []int{1}},
		{"SET k v NX GET", []int{1}},
		{"MSET k v k2 v2", []int{1, 3}},
		{"MGET a b c", []int{1, 2, 3}},
		{"DEL", nil}, // arity error: out of range spec, no keys
		{"LMOVE a b LEFT RIGHT", []int{1, 2}},
		{"BLPOP a b 0", []int{1, 2}},
		{"ZUNIONSTORE dst 2 a b WEIGHTS 1 2", []int{1, 3, 4}},
		{"ZUNIONSTORE dst 0", nil},
		{"ZUNIONSTORE dst 5 a b", nil},
		// Spec fails (string2ll), genericGetKeys' atoi accepts: store key last.
		{"ZUNIONSTORE dst 2x a b", []int{3, 4, 1}},
		{"ZUNION 2 a b WITHSCORES", []int{2, 3}},
		{"ZINTERCARD 2 a b", []int{2, 3}},
		{"SINTERCARD 2 a b LIMIT 1", []int{2, 3}},
		{"EVAL script 2 k1 k2 a", []int{3, 4}},
		{"EVAL script 0 a", nil},
		{"EVALSHA sha 1 k", []int{3}},
		{"FCALL f 1 k a", []int{3}},
		{"XREAD COUNT 1 STREAMS s1 s2 0 0", []int{4, 5}},
		{"XREAD STREAMS s1 0", []int{2}},
		{"XREAD COUNT 1 STREAMS s1 s2 0", []int{4}}, // spec path, as Valkey
		{"XREADGROUP GROUP g c COUNT 1 STREAMS s1 >", []int{7}},
		{"SORT k BY x STORE dst", []int{1, 5}},
		{"SORT k LIMIT 0 1 GET # STORE d1 STORE d2", []int{1, 10}},
		{"SORT k GET store", []int{1}},
		{"SORT_RO k BY x", []int{1}},
		{"LMPOP 2 a b LEFT", []int{2, 3}},
		{"BLMPOP 0 2 a b LEFT", []int{3, 4}},
		{"ZMPOP 1 z MIN", []int{2}},
		{"BZMPOP 1 1 z MIN", []int{3}},
		{"MIGRATE host 6379 k 0 5000", []int{3}},
		{`MIGRATE host 6379 "" 0 5000 COPY AUTH pw KEYS a b`, []int{10, 11}},
		{`MIGRATE host 6379 "" 0 5000 AUTH2 user KEYS KEYS a`, []int{10}}, // password "KEYS" skipped
		{"MIGRATE host 6379 k 0 5000 KEYS a b", nil},                      // syntax error left to MIGRATE
		{"GEORADIUS k 0 0 1 km STORE d", []int{1, 7}},
		{"GEORADIUSBYMEMBER k m 1 km STOREDIST d", []int{1, 6}},
		{"OBJECT ENCODING k", []int{2}},
		{"XINFO STREAM s FULL", []int{2}},
		{"CLIENT LIST", nil},
		{"PING", nil},
		{"PFMERGE dst", nil},     // the source spec is out of range: Valkey reports no keys either
		{"SPUBLISH ch msg", nil}, // NOT_KEY specs name channels, not keys
		{"BITFIELD k GET u8 0", []int{1}},
		{"PFCOUNT a b", []int{1, 2}},
		{"WATCH a b", []int{1, 2}},
	}
	for _, tt := range tests {
		a := argv(tt.cmd)
		m := resolve(t, a)
		got := m.KeyPositions(a, nil)
		if !reflect.DeepEqual(got, tt.want) && !(len(got) == 0 && len(tt.want) == 0) {
			t.Errorf("%s: KeyPositions = %v, want %v", tt.cmd, got, tt.want)
		}
		// The flagged variant finds the same positions.
		refs := m.KeyPositionsWithFlags(a)
		if len(refs) != len(got) {
			t.Errorf("%s: KeyPositionsWithFlags found %d keys, KeyPositions %d", tt.cmd, len(refs), len(got))
		}
		// Appending keeps what dst held.
		if got := m.KeyPositions(a, []int{-7}); got[0] != -7 || len(got) != 1+len(tt.want) {
			t.Errorf("%s: KeyPositions does not append: %v", tt.cmd, got)
		}
	}
}

func TestKeyPositionsWithFlags(t *testing.T) {
	tests := []struct {
		cmd  string
		want string
	}{
		{"GET k", "1:RO,access"},
		{"SET k v", "1:OW,update"},
		{"SET k v get", "1:RW,access,update"},
		{"SET k v EX 10", "1:OW,update"},
		{"BITFIELD k GET u8 0", "1:RO,access"},
		{"BITFIELD k GET u8 0 SET u8 0 1", "1:RW,access,update"},
		{"BITFIELD k BOGUS", "1:RW,access,update"},
		{"ZUNIONSTORE dst 2 a b", "1:OW,update 3:RO,access 4:RO,access"},
		{"SORT k STORE d", "1:RO,access 3:OW,update"},
		{"SORT_RO k", "1:RO,access"},
		{`MIGRATE h 1 "" 0 5 KEYS a`, "7:RW,access,delete"},
		{"EVAL s 2 a b", "3:RW,access,update 4:RW,access,update"},
		{"GEORADIUS k 0 0 1 km STORE d", "1:RO,access 7:OW,update"},
		{"LMOVE a b LEFT LEFT", "1:RW,access,delete 2:RW,insert"},
	}
	for _, tt := range tests {
		a := argv(tt.cmd)
		var parts []string
		for _, r := range resolve(t, a).KeyPositionsWithFlags(a) {
			parts = append(parts, fmt.Sprintf("%d:%s", r.Pos, strings.Join(r.Flags.Names(), ",")))
		}
		if got := strings.Join(parts, " "); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func TestSpecKeyPositions(t *testing.T) {
	spublish := command.Lookup([]byte("spublish"))
	if spublish.HasKeys() {
		t.Error("SPUBLISH HasKeys")
	}
	a := argv("SPUBLISH ch msg")
	if got, ok := spublish.SpecKeyPositions(a, nil, command.SearchIncludeNotKeys); !ok || !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("SPUBLISH with NOT_KEY: %v %v", got, ok)
	}
	sort := command.Lookup([]byte("sort"))
	if got, ok := sort.SpecKeyPositions(argv("SORT k"), nil, 0); ok || len(got) != 0 {
		t.Errorf("SORT raw specs: %v %v, want failure (unknown spec)", got, ok)
	}
	if got, ok := sort.SpecKeyPositions(argv("SORT k"), nil, command.SearchReturnPartial); !ok || !reflect.DeepEqual(got, []int{1}) {
		t.Errorf("SORT partial specs: %v %v", got, ok)
	}
	// MIGRATE's KEYS spec is incomplete: used, it fails the search (and
	// KeyPositions falls back to migrateGetKeys); absent, the specs suffice.
	migrate := command.Lookup([]byte("migrate"))
	if got, ok := migrate.SpecKeyPositions(argv(`MIGRATE h 1 "" 0 5 KEYS a`), nil, 0); ok || len(got) != 0 {
		t.Errorf("MIGRATE KEYS specs: %v %v, want failure", got, ok)
	}
	if got, ok := migrate.SpecKeyPositions(argv(`MIGRATE h 1 "" 0 5 KEYS a`), nil, command.SearchReturnPartial); !ok || !reflect.DeepEqual(got, []int{3, 7}) {
		t.Errorf("MIGRATE partial specs: %v %v", got, ok)
	}
	if got, ok := migrate.SpecKeyPositions(argv("MIGRATE h 1 k 0 5"), nil, 0); !ok || !reflect.DeepEqual(got, []int{3}) {
		t.Errorf("MIGRATE specs without KEYS: %v %v", got, ok)
	}
	if !command.Lookup([]byte("get")).HasKeys() || command.Lookup([]byte("ping")).HasKeys() {
		t.Error("HasKeys")
	}
}

// TestKeyPositionsGrammar builds the shortest argv the argument grammar of
// every command allows, with a marked value for each key argument, and
// checks it against the arity and the key specs: the key positions found
// must be exactly the marked ones.
func TestKeyPositionsGrammar(t *testing.T) {
	// Commands whose minimal grammar names no key although a key argument
	// exists (it sits in an optional or alternative branch), or that need
	// more than the grammar says.
	skip := map[string]string{
		"debug":                     "the grammar declares no arguments (arity -2)",
		"sentinel|simulate-failure": "the only argument is optional but arity is -3",
		"pfmerge":                   "PFMERGE dst: the source spec is out of range, no keys (as Valkey)",
	}
	n := 0
	command.Walk(func(m *command.Meta) {
		if m.IsContainer() || skip[m.FullName] != "" {
			return
		}
		a := [][]byte{[]byte(m.Name)}
		if m.Parent != nil {
			a = [][]byte{[]byte(m.Parent.Name), []byte(m.Name)}
		}
		a = minimalArgs(a, m.Args)
		if !m.CheckArity(len(a)) {
			t.Errorf("%s: minimal argv %q violates arity %d", m.FullName, a, m.Arity)
			return
		}
		var want []int
		for i, v := range a {
			if strings.HasPrefix(string(v), "key:") {
				want = append(want, i)
			}
		}
		got := m.KeyPositions(a, nil)
		if len(got) == 0 && len(want) == 0 {
			return
		}
		n++
		if !reflect.DeepEqual(sorted(got), want) {
			t.Errorf("%s: argv %q: keys at %v, want %v", m.FullName, a, got, want)
		}
	})
	if n < 150 {
		t.Errorf("only %d commands with keys checked", n)
	}
}

func sorted(s []int) []int {
	out := append([]int(nil), s...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// minimalArgs appends the required arguments of the grammar: tokens, one
// value per argument, the first alternative of a oneof.
func minimalArgs(dst [][]byte, args []command.Arg) [][]byte {
	for _, a := range args {
		if a.Optional {
			continue
		}
		dst = appendArg(dst, a)
	}
	return dst
}

func appendArg(dst [][]byte, a command.Arg) [][]byte {
	if a.Token != "" {
		dst = append(dst, []byte(a.Token))
	}
	switch a.Type {
	case "pure-token":
	case "key":
		dst = append(dst, []byte("key:"+a.Name))
	case "integer", "double", "unix-time":
		dst = append(dst, []byte("1")) // also a valid numkeys for one key
	case "oneof":
		dst = appendArg(dst, a.Args[0])
	case "block":
		dst = minimalArgs(dst, a.Args)
	default:
		dst = append(dst, []byte("v"))
	}
	return dst
}

// TestKeyPositionsRandom throws random argv at every command: key
// extraction must never panic and must stay inside argv.
func TestKeyPositionsRandom(t *testing.T) {
	words := []string{"k", "STREAMS", "STORE", "STOREDIST", "KEYS", "GET", "SET", "BY", "LIMIT",
		"GROUP", "COUNT", "BLOCK", "AUTH", "AUTH2", "0", "1", "2", "3", "-1", "99999999999999999999", "", "WEIGHTS"}
	r := rand.New(rand.NewPCG(1, 2))
	var dst []int
	command.Walk(func(m *command.Meta) {
		for range 200 {
			a := [][]byte{[]byte(m.Name)}
			if m.Parent != nil {
				a = [][]byte{[]byte(m.Parent.Name), []byte(m.Name)}
			}
			for range r.IntN(9) {
				a = append(a, []byte(words[r.IntN(len(words))]))
			}
			dst = m.KeyPositions(a, dst[:0])
			for _, p := range dst {
				if p < 1 || p >= len(a) {
					t.Fatalf("%s: argv %q: key position %d out of range", m.FullName, a, p)
				}
			}
			if refs := m.KeyPositionsWithFlags(a); len(refs) != len(dst) {
				t.Fatalf("%s: argv %q: %d flagged keys, %d keys", m.FullName, a, len(refs), len(dst))
			}
		}
	})
}

func TestKeyPositionsAllocs(t *testing.T) {
	for _, cmd := range []string{"GET k", "MSET a 1 b 2", "ZUNIONSTORE d 2 a b", "XREAD STREAMS a b 0 0",
		"SORT k STORE d", "SET k v GET", "MIGRATE h 1 \"\" 0 5 KEYS a b", "ZUNIONSTORE d 2x a b"} {
		a := argv(cmd)
		m := resolve(t, a)
		dst := make([]int, 0, 16)
		if n := testing.AllocsPerRun(100, func() { dst = m.KeyPositions(a, dst[:0]) }); n != 0 {
			t.Errorf("%s: KeyPositions allocates %v times", cmd, n)
		}
	}
}

func BenchmarkKeyPositions(b *testing.B) {
	for _, cmd := range []string{"GET k", "MSET a 1 b 2 c 3", "ZUNIONSTORE d 2 a b WEIGHTS 1 2", "XREAD COUNT 1 STREAMS a b 0 0", "SORT k STORE d"} {
		a := argv(cmd)
		m := resolve(b, a)
		dst := make([]int, 0, 16)
		b.Run(strings.Fields(cmd)[0], func(b *testing.B) {
			for b.Loop() {
				dst = m.KeyPositions(a, dst[:0])
			}
		})
	}
}
