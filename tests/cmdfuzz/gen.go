package cmdfuzz

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
)

// Env is what generation depends on besides the seed. Both fields are
// facts of the Corvid build under test, read once at start-up, so a seed
// replays the same commands on the same tree.
type Env struct {
	// Implemented holds the full names ("get", "client|list") Corvid
	// serves, from its COMMAND LIST. The others answer "unknown command"
	// and are sent to the Corvid servers only.
	Implemented map[string]bool
	// SafeConfig are the safeConfig names Corvid accepts in CONFIG SET.
	SafeConfig []string
}

// Cmd is one generated command.
type Cmd struct {
	Argv []string
	// Name is the full name of the command argv resolves to ("" for an
	// unknown name).
	Name string
	// CorvidOnly marks a command Corvid does not implement: it goes to
	// the Corvid servers (to exercise the unknown-command path) and not
	// to the reference, whose state it would change.
	CorvidOnly bool
}

// Gen generates commands from the command table's argument grammar. It
// is deterministic: the same seed, batch and Env give the same commands,
// whatever the servers answer (it models MULTI itself instead of reading
// replies), so a batch can be replayed and minimized.
type Gen struct {
	r   *rand.Rand
	env *Env

	choices []choice
	total   float64

	first    [][]string // the first commands: HELLO 3, CONFIG SET of encoding thresholds
	inMulti  bool       // MULTI was sent and no EXEC/DISCARD since
	lastKeys int        // repetitions of the last multiple key argument
	depth    int        // COMMAND GETKEYS nesting
}

type choice struct {
	m      *command.Meta
	bare   bool // a container sent with a random (or no) subcommand
	weight float64
	cum    float64
}

// NewGen returns the generator for one batch of a run.
func NewGen(seed, batch uint64, env *Env) *Gen {
	g := &Gen{r: rand.New(rand.NewPCG(seed, batch^0x9e3779b97f4a7c15)), env: env}
	command.Walk(func(m *command.Meta) {
		if _, skip := skipped[m.FullName]; skip {
			return
		}
		w := 1.0
		if !env.Implemented[m.FullName] {
			w = 0.1
		}
		if m.IsContainer() {
			// The container itself: arity and unknown-subcommand errors.
			g.choices = append(g.choices, choice{m: m, bare: true, weight: w * 0.3})
			return
		}
		g.choices = append(g.choices, choice{m: m, weight: w})
	})
	for i := range g.choices {
		g.total += g.choices[i].weight
		g.choices[i].cum = g.total
	}
	if g.r.IntN(2) == 0 {
		// Half of the batches speak RESP3 from the start, so that every
		// reply writer is checked in both protocols.
		g.first = append(g.first, []string{"HELLO", "3"})
	}
	if g.r.IntN(3) == 0 {
		// A third start with tiny encoding thresholds, so that the
		// fuzzed commands convert encodings all the time.
		cfg := []string{"CONFIG", "SET"}
		for _, i := range g.r.Perm(len(thresholds))[:1+g.r.IntN(3)] {
			t := thresholds[i]
			if slices.Contains(env.SafeConfig, t.name) {
				cfg = append(cfg, t.name, t.values[g.r.IntN(len(t.values))])
			}
		}
		if len(cfg) > 2 {
			g.first = append(g.first, cfg)
		}
	}
	return g
}

// thresholds are the encoding directives a batch may start with, and
// small values for them.
var thresholds = []struct {
	name   string
	values []string
}{
	{"list-max-listpack-size", []string{"1", "2", "3", "-1", "-5", "0"}},
	{"list-compress-depth", []string{"1", "2"}},
	{"hash-max-listpack-entries", []string{"0", "1", "2", "3"}},
	{"hash-max-listpack-value", []string{"0", "1", "2", "4"}},
	{"set-max-intset-entries", []string{"0", "1", "2"}},
	{"set-max-listpack-entries", []string{"0", "1", "2", "3"}},
	{"set-max-listpack-value", []string{"0", "1", "2"}},
	{"zset-max-listpack-entries", []string{"0", "1", "2", "3"}},
	{"zset-max-listpack-value", []string{"0", "1", "2"}},
}

// Next returns the next command.
func (g *Gen) Next() Cmd {
	if len(g.first) > 0 {
		c := Cmd{Argv: g.first[0], Name: resolveName(g.first[0])}
		g.first = g.first[1:]
		return c
	}
	for {
		c, ok := g.next()
		if !ok {
			continue
		}
		g.model(c.Argv)
		return c
	}
}

func (g *Gen) next() (Cmd, bool) {
	var argv []string
	var m *command.Meta
	switch {
	case g.inMulti && g.r.IntN(8) == 0:
		argv = []string{g.pick("EXEC", "EXEC", "EXEC", "DISCARD")}
	case g.r.IntN(400) == 0:
		argv = append([]string{g.pick(unknownNames...)}, g.values(g.r.IntN(3))...)
	default:
		c := g.choose()
		m = c.m
		if c.bare {
			argv = []string{g.name(m.Name)}
			if g.r.IntN(4) != 0 {
				argv = append(argv, g.pick("nosuch", "", "help", "HELP", "LiSt", "x\x00y", strings.Repeat("s", 300)))
			}
			if g.r.IntN(2) == 0 {
				argv = append(argv, g.values(g.r.IntN(3))...)
			}
		} else {
			argv = g.command(m)
			if g.r.IntN(100) < 35 {
				argv = g.mutate(m, argv)
			}
		}
	}
	if skippedName(argv) || negativeRangeLimit(argv) {
		return Cmd{}, false
	}
	argv = guard(g.r, argv, g.inMulti, g.env.SafeConfig)
	c := Cmd{Argv: argv, Name: resolveName(argv)}
	c.CorvidOnly = c.Name != "" && !g.env.Implemented[c.Name]
	if g.inMulti && (c.Name == "hello" || c.Name == "auth") {
		// HELLO inside EXEC would switch the protocol in the middle of
		// EXEC's reply. A failing AUTH inside EXEC is a Valkey 8.0.1 bug:
		// its error is left out of EXEC's array (MULTI, AUTH nosuch x,
		// EXEC answers "*1" and nothing more; fixed in Valkey 8.1.3),
		// which stalls the lockstep.
		return Cmd{}, false
	}
	if c.CorvidOnly && g.inMulti {
		// Corvid would abort the transaction on the unknown command while
		// the reference queues it: the EXECs would differ for no bug.
		return Cmd{}, false
	}
	return c, true
}

// model follows MULTI/EXEC/DISCARD the way the servers will: MULTI with
// the right arity opens a transaction (a nested one is refused), EXEC
// and DISCARD with the right arity close it.
func (g *Gen) model(argv []string) {
	if len(argv) != 1 {
		return
	}
	switch strings.ToLower(argv[0]) {
	case "multi":
		g.inMulti = true
	case "exec", "discard":
		g.inMulti = false
	}
}

func resolveName(argv []string) string {
	bs := make([][]byte, len(argv))
	for i, a := range argv {
		bs[i] = []byte(a)
	}
	m := command.Resolve(bs)
	if m == nil {
		return ""
	}
	if m.IsContainer() {
		// An unknown or missing subcommand: the container answers.
		return m.Name
	}
	return m.FullName
}

func (g *Gen) choose() choice {
	x := g.r.Float64() * g.total
	lo, hi := 0, len(g.choices)-1
	for lo < hi {
		mid := (lo + hi) / 2
		if g.choices[mid].cum <= x {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return g.choices[lo]
}

// command builds a well-formed-looking argv for m from its argument
// grammar (tokens, oneofs, blocks, optional and multiple arguments), with
// a few values out of range.
func (g *Gen) command(m *command.Meta) []string {
	var argv []string
	if m.Parent != nil {
		argv = []string{g.name(m.Parent.Name), g.name(m.Name)}
	} else {
		argv = []string{g.name(m.Name)}
	}
	switch m.FullName {
	case "command|getkeys", "command|getkeysandflags":
		// The inner command is only analysed, never run: any command of
		// the table will do, skipped ones included.
		if g.depth == 0 && g.r.IntN(8) != 0 {
			g.depth++
			all := command.All()
			inner := all[g.r.IntN(len(all))]
			if subs := inner.Subcommands(); len(subs) > 0 && g.r.IntN(5) != 0 {
				inner = subs[g.r.IntN(len(subs))]
			}
			in := g.command(inner)
			if g.r.IntN(4) == 0 {
				in = g.mutate(inner, in)
			}
			g.depth--
			return append(argv, in...)
		}
	case "debug":
		// The spec declares no arguments. Both servers refuse DEBUG
		// (enable-debug-command no), whatever follows.
		argv = append(argv, g.pick("sleep", "segfault", "object", "reload", "digest", "help", "log",
			"set-active-expire", "protocol", "listpack", "quicklist", "populate", "change-repl-id", "nosuch"))
		return append(argv, g.values(g.r.IntN(3))...)
	}
	return g.args(m, m.Args, argv)
}

// args appends the values of a sequence of sibling arguments. A numkeys
// argument is filled in after the keys that follow it, with their count
// most of the time.
func (g *Gen) args(m *command.Meta, args []command.Arg, out []string) []string {
	numkeysAt := -1
	for i := range args {
		a := &args[i]
		if a.Type == "integer" && a.Name == "numkeys" && a.Token == "" {
			out = append(out, "")
			numkeysAt = len(out) - 1
			continue
		}
		var reps int
		out, reps = g.arg(m, a, out)
		if numkeysAt >= 0 && a.Type == "key" {
			out[numkeysAt] = g.count(reps)
			numkeysAt = -1
		}
	}
	if numkeysAt >= 0 {
		out[numkeysAt] = g.count(0)
	}
	return out
}

// count is a numkeys value for n keys: right most of the time.
func (g *Gen) count(n int) string {
	switch g.r.IntN(12) {
	case 0:
		return strconv.Itoa(n + 1)
	case 1:
		return strconv.Itoa(n - 1)
	case 2:
		return g.extreme()
	}
	return strconv.Itoa(n)
}

// arg appends one argument (with its token and repetitions) and returns
// how many times it was repeated.
func (g *Gen) arg(m *command.Meta, a *command.Arg, out []string) ([]string, int) {
	if a.Optional && g.r.IntN(2) == 0 {
		return out, 0
	}
	reps := 1
	if a.Multiple {
		reps = g.reps()
		if a.Name == "weight" && g.lastKeys > 0 && g.r.IntN(10) < 7 {
			reps = g.lastKeys
		}
	}
	for k := 0; k < reps; k++ {
		if a.Token != "" && (k == 0 || a.MultipleToken) {
			out = append(out, g.token(a.Token))
		}
		switch a.Type {
		case "pure-token":
			if a.Token == "" {
				// A few specs name the token instead of declaring it.
				out = append(out, g.token(strings.ToUpper(a.Name)))
			}
		case "oneof":
			if len(a.Args) > 0 {
				c := a.Args[g.r.IntN(len(a.Args))]
				c.Optional = false
				out, _ = g.arg(m, &c, out)
			}
		case "block":
			out = g.args(m, a.Args, out)
		default:
			out = append(out, g.value(m, a))
		}
	}
	if a.Type == "key" {
		g.lastKeys = reps
	}
	return out, reps
}

// reps is how many times a multiple argument repeats: mostly 1-3, now
// and then none (an arity or syntax error) or many.
func (g *Gen) reps() int {
	switch x := g.r.IntN(100); {
	case x < 3:
		return 0
	case x < 5:
		return 10 + g.r.IntN(30)
	case x < 50:
		return 1
	case x < 75:
		return 2
	case x < 88:
		return 3
	default:
		return 4 + g.r.IntN(5)
	}
}

func (g *Gen) token(t string) string {
	switch g.r.IntN(20) {
	case 0:
		return strings.ToLower(t)
	case 1:
		return mixedCase(t)
	}
	return t
}

func (g *Gen) name(n string) string {
	switch g.r.IntN(10) {
	case 0:
		return strings.ToUpper(n)
	case 1:
		return mixedCase(n)
	}
	return n
}

func mixedCase(s string) string {
	b := []byte(s)
	for i := range b {
		if i%2 == 0 && b[i] >= 'a' && b[i] <= 'z' {
			b[i] -= 'a' - 'A'
		} else if i%2 == 1 && b[i] >= 'A' && b[i] <= 'Z' {
			b[i] += 'a' - 'A'
		}
	}
	return string(b)
}

// value generates one argument value from its type and name.
func (g *Gen) value(m *command.Meta, a *command.Arg) string {
	switch x := g.r.IntN(1000); {
	case x < 70:
		return g.extreme()
	case x < 80:
		return g.binary()
	case x < 84:
		return g.long(4 << 10)
	case x < 85 && g.r.IntN(4) == 0:
		return g.long(1 << 20)
	}
	switch a.Type {
	case "key":
		return g.key()
	case "pattern":
		return g.pattern()
	case "integer":
		return g.integer(m, a.Name)
	case "double":
		return g.double(m, a.Name)
	case "unix-time":
		if strings.Contains(a.Name, "milli") {
			return g.pick("4102444800000", "1000", "1700000000000", "0", "-1", "253402300799999", "9223372036854775")
		}
		return g.pick("4102444800", "1", "1700000000", "0", "-1", "253402300799", "9223372036854775")
	}
	return g.str(m, a.Name)
}

// values returns n random values of any kind (extra arguments).
func (g *Gen) values(n int) []string {
	out := make([]string, n)
	for i := range out {
		switch g.r.IntN(5) {
		case 0:
			out[i] = g.key()
		case 1:
			out[i] = g.extreme()
		case 2:
			out[i] = g.pick(elements...)
		case 3:
			out[i] = strconv.Itoa(g.r.IntN(10))
		default:
			out[i] = g.pick(commonTokens...)
		}
	}
	return out
}

func (g *Gen) key() string {
	switch x := g.r.IntN(100); {
	case x < 88:
		return g.pick(keyNames...)
	case x < 95:
		return g.pick("missing2", "newkey", "{str}2", "dst2")
	case x < 98:
		return g.pick("", "\x00", "key with spaces", "\xff\xfe")
	default:
		return g.extreme()
	}
}

func (g *Gen) pattern() string {
	return g.pick("*", "*", "a*", "*a", "?", "m1*", "[a-c]*", "h?llo", `\*`, "[", "[^a]*", "str",
		"weight_*", "*->f1", "hash->f1", "#", "nosort", "", "[a-", `\`, "*[", "**",
		"*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b", strings.Repeat("*", 2000), strings.Repeat("?", 200),
		strings.Repeat("[a", 50), "*\x00*", "m[0-9]*", "[z-a]*")
}

func (g *Gen) integer(m *command.Meta, name string) string {
	switch name {
	case "count", "num-matches", "limit", "len":
		return g.pick("0", "1", "2", "3", "5", "10", "100", "-1", "-2", "-5")
	case "offset":
		if strings.HasPrefix(m.FullName, "bitfield") {
			return g.pick("0", "1", "7", "8", "63", "100", "#0", "#1", "#3", "#-1", "-1")
		}
		return g.pick("0", "1", "2", "5", "8", "64", "100", "-1")
	case "start", "stop", "end", "index", "rank":
		return strconv.Itoa(g.r.IntN(16) - 5)
	case "seconds", "milliseconds", "ttl", "ms", "min-idle-time":
		return g.pick("100", "1000", "100000", "86400000", "0", "-1")
	case "db", "destination-db", "index1", "index2":
		return g.pick("0", "1", "2", "15", "16", "-1")
	case "cursor":
		return g.pick("0", "0", "0", "1", "7", "123", "18446744073709551615")
	case "increment", "decrement", "value", "weight":
		return strconv.Itoa(g.r.IntN(7) - 3)
	case "bit":
		return g.pick("0", "1", "2", "-1")
	case "protover":
		return g.pick("2", "3", "3", "1", "4", "-1")
	case "version":
		return g.pick("5", "6", "1", "0", "7")
	case "bits":
		return g.pick("0", "1", "64", "256", "4096", "4097", "-1")
	case "client-id":
		return g.pick("1", "2", "3", "4", "0", "-1")
	case "numreplicas", "numlocal":
		return g.pick("0", "1", "-1")
	case "timeout":
		return g.pick("10", "1", "-1", "0")
	case "frequency":
		return g.pick("0", "1", "255", "256", "-1")
	case "min-match-len":
		return g.pick("0", "1", "2", "4", "-1")
	case "slot", "start-slot", "end-slot":
		return g.pick("0", "1", "16383", "16384", "-1")
	case "port":
		return g.pick("6379", "0", "65536")
	}
	return strconv.Itoa(g.r.IntN(14) - 3)
}

func (g *Gen) double(m *command.Meta, name string) string {
	switch name {
	case "timeout":
		return g.pick(blockingTimeouts...)
	case "increment":
		return g.pick("1", "-1.5", "0.1", "1e3", "3", "-0", "5.0e3")
	case "longitude", "latitude":
		return g.pick("13.361389", "38.115556", "-122.4", "0", "180", "-180", "85.05112878", "90")
	case "radius", "width", "height":
		return g.pick("1", "100", "1000", "0", "-1", "20000")
	}
	return g.pick("0", "1", "2", "1.5", "-2.5", "3", "100", "-inf", "+inf", "(1", "(2.5", "1e3", "(", "-1")
}

// str generates a string-typed argument, from a pool its name suggests.
func (g *Gen) str(m *command.Meta, name string) string {
	switch name {
	case "min", "max", "start", "stop":
		if strings.Contains(m.Name, "lex") || strings.HasPrefix(m.Name, "zrange") {
			return g.pick("-", "+", "[a", "(a", "[b", "(c", "[", "(", "a", "0", "1", "-1", "(1", "3", "-inf", "+inf", "[m1")
		}
	case "parameter":
		if g.r.IntN(3) == 0 {
			return g.pick("*", "hash-max-*", "maxmemory", "port", "save", "nosuch", "HZ", "appendonly", "bind")
		}
		return configName(g.r, g.env.SafeConfig)
	case "value":
		if m.FullName == "config|set" {
			return g.pick("0", "1", "2", "yes", "no", "-1", "128", "512", "allkeys-lru", "noeviction",
				"volatile-ttl", "allkeys-lfu", "-5", "abc", "1mb", "100", "", "10", "-2", "1000000")
		}
	case "type":
		return g.pick("string", "list", "set", "zset", "hash", "stream", "none", "STRING", "foo", "")
	case "section":
		return g.pick("server", "clients", "memory", "persistence", "stats", "replication", "cpu",
			"commandstats", "errorstats", "latencystats", "keyspace", "all", "everything", "default",
			"cluster", "modules", "foo", "SERVER", "keysizes")
	case "command-name", "command":
		return g.commandName()
	case "category":
		return g.pick("keyspace", "read", "write", "string", "dangerous", "nosuch", "ALL", "@all")
	case "encoding":
		return g.pick("u8", "i8", "u16", "i32", "u63", "i64", "u64", "i65", "u0", "i0", "x8", "8", "U8", "u", "i")
	case "connection-name", "clientname":
		return g.pick("fuzz", "my name", "", "a\nb", "name-1")
	case "libname", "libver":
		return g.pick("corvid-fuzz", "1.0", "a b", "", "x\ny")
	case "username":
		return g.pick("default", "nosuch", "", "alice")
	case "password", "auth":
		return g.pick("pw", "", "secret", "nopass")
	case "event":
		return g.pick("command", "fast-command", "expire-cycle", "nosuch", "")
	case "capability":
		return g.pick("redirect", "foo", "")
	case "sha1":
		return g.pick("e0e1f9fabfc9d4800c877a703b823ac0578ff8db", "x", "")
	case "subcommand":
		return g.pick("GETREG", "DECODE", "ENCODING", "TODENSE", "nosuch")
	case "id", "ID", "last-id", "threshold", "max-deleted-id", "group", "consumer":
		return g.pick("0", "0-1", "*", "$", ">", "+", "-", "1-1", "g1", "c1")
	}
	return g.pick(elements...)
}

// commandName returns a command name for COMMAND INFO/DOCS/GETKEYS.
func (g *Gen) commandName() string {
	all := command.All()
	m := all[g.r.IntN(len(all))]
	switch g.r.IntN(6) {
	case 0:
		if subs := m.Subcommands(); len(subs) > 0 {
			return subs[g.r.IntN(len(subs))].FullName
		}
	case 1:
		return g.pick("nosuch", "get|x", "client|", "|", "CLIENT|LIST", "a|b|c", "")
	}
	return m.Name
}

// extremes are the values every typed argument is tried with: integer
// and float boundaries, special floats, non-canonical numbers, empty,
// and range syntax.
var extremes = []string{
	"0", "-1", "1", "2147483647", "2147483648", "-2147483648", "-2147483649", "4294967295",
	"4294967296", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
	"-9223372036854775809", "9223372036854775806", "18446744073709551615", "18446744073709551616",
	"1e308", "-1e308", "1e309", "1e400", "4.9e-324", "1e-400", "inf", "-inf", "+inf", "nan", "NaN",
	"-nan", "Infinity", "0x10", " 1", "1 ", "01", "+1", "-0", "", "1.5", "1.", ".5", "1e3", "1E3",
	"100000000", "1000000", "99999999999999999999999", "1_000", "１", "\x001", "1\x00",
	"(1", "(", "[", "-", "+", "(inf", "(-inf", "(nan", "0.0", "-0.0", "5e-324", "1.7976931348623157e308",
}

// commonTokens are tokens of many commands, put where they do not belong.
var commonTokens = []string{
	"EX", "PX", "EXAT", "PXAT", "KEEPTTL", "GET", "NX", "XX", "GT", "LT", "CH", "INCR", "COUNT",
	"LIMIT", "WITHSCORES", "WITHSCORE", "REV", "BYSCORE", "BYLEX", "MATCH", "TYPE", "LEFT", "RIGHT",
	"MIN", "MAX", "WEIGHTS", "AGGREGATE", "SUM", "STORE", "BY", "ALPHA", "ASC", "DESC", "REPLACE",
	"DB", "BEFORE", "AFTER", "RANK", "MAXLEN", "LEN", "IDX", "MINMATCHLEN", "WITHMATCHLEN",
	"NOVALUES", "NOSCORES", "WITHVALUES", "PERSIST", "BIT", "BYTE", "OVERFLOW", "SAT", "WRAP", "FAIL",
	"SET", "INCRBY", "ASYNC", "SYNC", "SAMPLES", "ID", "SETNAME", "AUTH", "FILTERBY", "PATTERN",
}

// elements are members, fields, values and list elements: the ones the
// setup keys hold, new ones, numbers, and awkward ones.
var elements = []string{
	"a", "b", "c", "d", "x", "1", "2", "3", "100", "-1", "1.5", "f1", "f2", "f3", "v1", "hello",
	"m1", "m2", "m10", "m599", "e0", "e5", "3.5", "", " ", "a b", "\x00", "10000000000000000000",
}

// unknownNames are command names no server knows (never POST or Host:,
// which close the connection).
var unknownNames = []string{"nosuch", "GETT", "\x00", "", strings.Repeat("z", 300), "client|list", "get\r\n"}

func (g *Gen) extreme() string {
	if g.r.IntN(20) == 0 {
		// A token where a value goes.
		return g.pick(commonTokens...)
	}
	return g.pick(extremes...)
}

// binary returns 1-32 random bytes (CR, LF and NUL included).
func (g *Gen) binary() string {
	b := make([]byte, 1+g.r.IntN(32))
	for i := range b {
		b[i] = byte(g.r.IntN(256))
	}
	return string(b)
}

// long returns a string of about n bytes (a repeated pattern, now and
// then with a number in front).
func (g *Gen) long(n int) string {
	s := strings.Repeat(g.pick("x", "ab", "1", "*", "\x00"), n/2+g.r.IntN(n/2+1))
	if g.r.IntN(4) == 0 {
		s = "1" + strings.Repeat("0", len(s)-1)
	}
	return s
}

func (g *Gen) pick(s ...string) string { return s[g.r.IntN(len(s))] }

// mutate applies 1-3 mutations to argv (never to the command name, nor to
// a subcommand's name): wrong arity both ways, repeated or misplaced
// tokens, numbers where tokens go and tokens where numbers go, extreme
// values, swapped arguments, huge and empty strings.
func (g *Gen) mutate(m *command.Meta, argv []string) []string {
	fixed := 1
	if m.Parent != nil {
		fixed = 2
	}
	toks := tokensOf(m.Args, nil)
	for n := 1 + g.r.IntN(3); n > 0; n-- {
		free := len(argv) - fixed
		switch g.r.IntN(12) {
		case 0: // too few: drop one
			if free > 0 {
				i := fixed + g.r.IntN(free)
				argv = append(argv[:i:i], argv[i+1:]...)
			}
		case 1: // too few: cut
			if free > 0 {
				argv = argv[:fixed+g.r.IntN(free)]
			}
		case 2: // too many
			argv = append(argv, g.values(1+g.r.IntN(3))...)
		case 3: // repeat an argument (with its value when it is a token)
			if free > 0 {
				i := fixed + g.r.IntN(free)
				end := min(i+1+g.r.IntN(2), len(argv))
				dup := append([]string(nil), argv[i:end]...)
				argv = append(argv[:end:end], append(dup, argv[end:]...)...)
			}
		case 4: // a number where a token goes
			if i, ok := g.find(argv, fixed, func(s string) bool { return isToken(s, toks) }); ok {
				argv[i] = g.extreme()
			}
		case 5: // a token where a number goes
			if i, ok := g.find(argv, fixed, isNumeric); ok && len(toks) > 0 {
				argv[i] = g.token(toks[g.r.IntN(len(toks))])
			}
		case 6, 7: // an extreme value anywhere
			if free > 0 {
				argv[fixed+g.r.IntN(free)] = g.extreme()
			}
		case 8: // swap two arguments
			if free > 1 {
				i, j := fixed+g.r.IntN(free), fixed+g.r.IntN(free)
				argv[i], argv[j] = argv[j], argv[i]
			}
		case 9: // a token of this command anywhere
			if len(toks) > 0 {
				i := fixed + g.r.IntN(free+1)
				t := g.token(toks[g.r.IntN(len(toks))])
				argv = append(argv[:i:i], append([]string{t}, argv[i:]...)...)
			}
		case 10: // a key of another type
			if free > 0 {
				argv[fixed+g.r.IntN(free)] = g.pick(keyNames...)
			}
		case 11: // empty, binary or huge
			if free > 0 {
				i := fixed + g.r.IntN(free)
				switch g.r.IntN(8) {
				case 0:
					argv[i] = g.long(1 << 20)
				case 1, 2:
					argv[i] = g.binary()
				default:
					argv[i] = ""
				}
			}
		}
	}
	return argv
}

// find returns a random index at or after from whose argument satisfies f.
func (g *Gen) find(argv []string, from int, f func(string) bool) (int, bool) {
	var idx []int
	for i := from; i < len(argv); i++ {
		if f(argv[i]) {
			idx = append(idx, i)
		}
	}
	if len(idx) == 0 {
		return 0, false
	}
	return idx[g.r.IntN(len(idx))], true
}

func tokensOf(args []command.Arg, out []string) []string {
	for _, a := range args {
		if a.Token != "" {
			out = append(out, a.Token)
		}
		out = tokensOf(a.Args, out)
	}
	return out
}

func isToken(s string, toks []string) bool {
	for _, t := range toks {
		if strings.EqualFold(s, t) {
			return true
		}
	}
	return false
}

func isNumeric(s string) bool {
	_, err := strconv.ParseFloat(strings.TrimPrefix(s, "("), 64)
	return err == nil
}

// negativeRangeLimit reports a ZRANGE-family command with a negative LIMIT
// offset: on a skiplist Valkey 8.0.1 answers (and stores) elements counted
// from the other end (a bug Corvid does not copy, docs/compatibility.md),
// and what ZRANGESTORE stored differs from then on.
func negativeRangeLimit(argv []string) bool {
	if len(argv) == 0 || !strings.HasPrefix(strings.ToLower(argv[0]), "z") ||
		!strings.Contains(strings.ToLower(argv[0]), "range") {
		return false
	}
	for i := 1; i+1 < len(argv); i++ {
		if strings.EqualFold(argv[i], "limit") && strings.HasPrefix(argv[i+1], "-") {
			return true
		}
	}
	return false
}
