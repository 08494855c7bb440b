package cmdfuzz

import (
	"bufio"
	"errors"
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
)

var (
	flagSeed       = flag.Uint64("cmdfuzz.seed", 0, "seed of the run (default: derived from the time, and printed)")
	flagDuration   = flag.Duration("cmdfuzz.duration", 0, "how long to fuzz (default 60s, 15s with -short)")
	flagBatch      = flag.Int64("cmdfuzz.batch", -1, "run only this batch of the seed, to reproduce a failure")
	flagBatchLen   = flag.Int("cmdfuzz.batchlen", DefaultBatchLen, "fuzzed commands per batch (part of what a seed means)")
	flagTrace      = flag.Bool("cmdfuzz.trace", false, "log every command and every server's reply")
	flagGoroutines = flag.Bool("cmdfuzz.goroutines", true, "also fuzz a Corvid with net-engine goroutine in lockstep")
)

// TestCommandFuzz fuzzes every command of the table against corvid-server
// (and valkey-server 8.0.1 when at hand) for -cmdfuzz.duration. See the
// package doc for what it checks; bench/cmdfuzz.sh runs it for longer.
func TestCommandFuzz(t *testing.T) {
	seed := *flagSeed
	seedSet := false
	flag.Visit(func(f *flag.Flag) { seedSet = seedSet || f.Name == "cmdfuzz.seed" })
	if !seedSet {
		seed = uint64(time.Now().UnixNano()) % 1_000_000_007
	}
	d := *flagDuration
	if d == 0 {
		d = 60 * time.Second
		if testing.Short() {
			d = 15 * time.Second
		}
	}
	t.Logf("cmdfuzz: seed %d (-cmdfuzz.seed %d reproduces), duration %v", seed, seed, d)
	f := New(t, Config{Seed: seed, Duration: d, Batch: *flagBatch, BatchLen: *flagBatchLen,
		Goroutines: *flagGoroutines, Trace: *flagTrace || *flagBatch >= 0})
	f.Run()
}

// TestGenerator checks, without servers, that the generator reaches every
// command it may send, produces argvs of the right arity for each often
// enough, never produces a skipped command, and is deterministic.
func TestGenerator(t *testing.T) {
	env := &Env{Implemented: map[string]bool{}}
	command.Walk(func(m *command.Meta) { env.Implemented[m.FullName] = true })
	for _, sc := range safeConfig {
		env.SafeConfig = append(env.SafeConfig, sc.name)
	}
	seen := map[string]int{}
	arityOK := map[string]int{}
	for b := uint64(0); b < 400; b++ {
		g := NewGen(1, b, env)
		for range 100 {
			c := g.Next()
			if skippedName(c.Argv) {
				t.Fatalf("skipped command generated: %q", c.Argv)
			}
			seen[c.Name]++
			bs := make([][]byte, len(c.Argv))
			for i, a := range c.Argv {
				bs[i] = []byte(a)
			}
			if m := command.Resolve(bs); m != nil && m.CheckArity(len(c.Argv)) {
				arityOK[c.Name]++
			}
		}
	}
	command.Walk(func(m *command.Meta) {
		if _, skip := skipped[m.FullName]; skip || m.IsContainer() {
			return
		}
		if seen[m.FullName] == 0 {
			t.Errorf("%s never generated", m.FullName)
		} else if arityOK[m.FullName]*4 < seen[m.FullName] {
			t.Errorf("%s: only %d of %d generated with a valid arity", m.FullName, arityOK[m.FullName], seen[m.FullName])
		}
	})
	a, b := NewGen(7, 3, env), NewGen(7, 3, env)
	for i := range 500 {
		x, y := a.Next(), b.Next()
		if strings.Join(x.Argv, "\x00") != strings.Join(y.Argv, "\x00") {
			t.Fatalf("command %d differs between two generators of one seed: %q vs %q", i, x.Argv, y.Argv)
		}
	}
}

// TestGuard checks the rewrites that keep the servers responsive.
func TestGuard(t *testing.T) {
	g := NewGen(1, 1, &Env{SafeConfig: []string{"hz"}})
	cases := []struct {
		argv    []string
		inMulti bool
		check   func(out []string) bool
	}{
		{[]string{"BLPOP", "k", "0"}, false, func(o []string) bool { return o[2] != "0" }},
		{[]string{"BLPOP", "k", "0"}, true, func(o []string) bool { return o[2] == "0" }},
		{[]string{"BLMPOP", "5", "1", "k", "LEFT"}, false, func(o []string) bool { return o[1] != "5" }},
		{[]string{"WAIT", "1", "0"}, false, func(o []string) bool { return o[2] != "0" }},
		{[]string{"XREAD", "BLOCK", "0", "STREAMS", "s", "$"}, false, func(o []string) bool { return o[2] != "0" }},
		{[]string{"SRANDMEMBER", "s", "-9223372036854775807"}, false, func(o []string) bool { return o[2] != "-9223372036854775807" }},
		{[]string{"SRANDMEMBER", "s", "-9223372036854775808"}, false, func(o []string) bool { return o[2] == "-9223372036854775808" }},
		{[]string{"CONFIG", "SET", "port", "1", "hz", "5"}, false, func(o []string) bool { return o[2] != "port" && o[4] == "hz" }},
		{[]string{"CLIENT", "REPLY", "off"}, false, func(o []string) bool { return o[2] == "ON" }},
	}
	for _, c := range cases {
		for range 20 {
			in := append([]string(nil), c.argv...)
			if out := guard(g.r, in, c.inMulti, g.env.SafeConfig); !c.check(out) {
				t.Errorf("guard(%q, multi=%v) = %q", c.argv, c.inMulti, out)
			}
		}
	}
	if !skippedName([]string{"client", "KILL", "ID", "1"}) || !skippedName([]string{"Shutdown"}) || skippedName([]string{"get", "k"}) {
		t.Error("skippedName")
	}
}

// TestReadReply checks the strict reader on well-formed and malformed
// replies.
func TestReadReply(t *testing.T) {
	good := []struct {
		in    string
		proto int
		want  string
	}{
		{"+OK\r\n", 2, "+OK"},
		{"-ERR x\r\n", 2, "-ERR x"},
		{":-12\r\n", 2, ":-12"},
		{"$3\r\nabc\r\n", 2, `"abc"`},
		{"$-1\r\n", 2, "(nil)"},
		{"*-1\r\n", 2, "(nil-array)"},
		{"*2\r\n$1\r\na\r\n:1\r\n", 2, `*["a", :1]`},
		{"%1\r\n+a\r\n#t\r\n", 3, "%[+a, #t]"},
		{",1.5\r\n", 3, ",1.5"},
		{",-inf\r\n", 3, ",-inf"},
		{"_\r\n", 3, "(null)"},
		{"(123\r\n", 3, "(123"},
		{"=7\r\ntxt:abc\r\n", 3, `"txt:abc"`},
		{"|1\r\n+k\r\n+v\r\n:5\r\n", 3, ":5"},
		{"~1\r\n:1\r\n", 3, "~[:1]"},
		{">2\r\n+a\r\n+b\r\n", 3, ">[+a, +b]"},
	}
	for _, c := range good {
		r, err := ReadReply(bufio.NewReader(strings.NewReader(c.in)), c.proto)
		if err != nil || r.String() != c.want {
			t.Errorf("ReadReply(%q) = %v, %v; want %s", c.in, r, err, c.want)
		}
	}
	bad := []struct {
		in    string
		proto int
	}{
		{"+OK\n", 2},
		{"+O\rK\r\n", 2},
		{"-\r\n", 2},
		{":01\r\n", 2},
		{":+1\r\n", 2},
		{":-0\r\n", 2},
		{":99999999999999999999\r\n", 2},
		{":\r\n", 2},
		{"$3\r\nabcd\r\n", 2},
		{"$-2\r\n", 2},
		{"$03\r\nabc\r\n", 2},
		{"*1\r\n?x\r\n", 2},
		{"_\r\n", 2},
		{",1.5\r\n", 2},
		{"%1\r\n+a\r\n", 2},
		{",1.5x\r\n", 3},
		{",\r\n", 3},
		{"#x\r\n", 3},
		{"_x\r\n", 3},
		{"=3\r\nabc\r\n", 3},
		{"%-1\r\n", 3},
		{"\r\n", 2},
	}
	for _, c := range bad {
		_, err := ReadReply(bufio.NewReader(strings.NewReader(c.in)), c.proto)
		if !errors.Is(err, errMalformed) {
			t.Errorf("ReadReply(%q, resp%d) = %v; want a malformed-reply error", c.in, c.proto, err)
		}
	}
	if _, err := ReadReply(bufio.NewReader(strings.NewReader("$5\r\nab")), 2); err == nil || errors.Is(err, errMalformed) {
		t.Errorf("truncated bulk: %v; want an I/O error", err)
	}
}
