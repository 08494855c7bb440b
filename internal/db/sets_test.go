package db

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/resp"
)

// collHarness runs the collection commands the way the dispatcher does,
// including serving blocked clients after each command (ServeReady), on
// any number of client contexts sharing one keyspace.
type collHarness struct {
	t   *testing.T
	ks  *Keyspace
	c   *Ctx // the default client
	cmd map[string]Handler
}

func newCollHarness(t *testing.T) *collHarness {
	t.Helper()
	ks := New(16)
	h := &collHarness{t: t, ks: ks, cmd: make(map[string]Handler)}
	h.c = h.client()
	for _, group := range [][]Handler{KeyCommands, StringCommands, ListCommands, HashCommands, SetCommands, ZSetCommands, SortCommands} {
		for _, hd := range group {
			h.cmd[hd.Spec.FullName] = hd
		}
	}
	return h
}

// client returns a new connection context on the keyspace.
func (h *collHarness) client() *Ctx {
	return &Ctx{KS: h.ks, W: resp.NewWriter(256), Now: testNow}
}

// do runs a command on the default client and returns its reply.
func (h *collHarness) do(args ...string) string {
	h.t.Helper()
	return h.doOn(h.c, args...)
}

// doOn runs a command on client c. It locks the stripes of every argument
// (a superset of the keys), or everything for LockAll, or nothing for
// LockNone, then serves clients the command made ready.
func (h *collHarness) doOn(c *Ctx, args ...string) string {
	h.t.Helper()
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	name := strings.ToLower(args[0])
	hd, ok := h.cmd[name]
	if !ok && len(args) > 1 {
		hd, ok = h.cmd[name+"|"+strings.ToLower(args[1])]
	}
	if !ok {
		h.t.Fatalf("no handler for %q", args[0])
	}
	c.Argv = argv
	c.Dirty = 0
	c.W.Reset()
	var ls LockSet
	switch hd.Lock {
	case LockNone:
		hd.Proc(c)
		return string(c.W.Bytes())
	case LockAll:
		ls.All()
		h.ks.LockAll()
		c.Locked = true
		hd.Proc(c)
		c.ServeReady(&ls)
		c.Locked = false
		h.ks.UnlockAll()
	default:
		for _, a := range argv[1:] {
			ls.Add(h.ks, a)
		}
		h.ks.Lock(&ls)
		hd.Proc(c)
		c.ServeReady(&ls)
		h.ks.Unlock(&ls)
	}
	return string(c.W.Bytes())
}

// run executes steps in order and reports every mismatch.
func (h *collHarness) run(steps []step) {
	h.t.Helper()
	for _, s := range steps {
		if got := h.do(s.cmd...); got != s.want {
			h.t.Errorf("%s:\n got %q\nwant %q", strings.Join(s.cmd, " "), got, s.want)
		}
	}
}

// line splits a command written on one line (no quoting).
func line(s string) []string { return strings.Fields(s) }

// sl is a step written as one line.
func sl(want, cmd string) step { return step{cmd: line(cmd), want: want} }

// Reply builders for RESP3 and bulk arrays.
func rBulks(items ...string) string {
	out := make([]string, len(items))
	for i, it := range items {
		out[i] = rBulk(it)
	}
	return rArr(out...)
}

func rSet3(items ...string) string {
	var b strings.Builder
	b.WriteString("~" + strconv.Itoa(len(items)) + "\r\n")
	for _, it := range items {
		b.WriteString(rBulk(it))
	}
	return b.String()
}

func rDbl3(s string) string { return "," + s + "\r\n" }

const (
	rNoItems   = "*0\r\n"
	rNullArr   = "*-1\r\n"
	rNull3     = "_\r\n"
	rWrongType = "-" + ErrWrongType + "\r\n"
	rSyntax    = "-" + ErrSyntax + "\r\n"
)

func TestSetBasics(t *testing.T) {
	h := newCollHarness(t)
	h.run([]step{
		sl(rInt(3), "SADD s 3 1 2"),
		sl(rInt(1), "SADD s 2 3 4"),
		sl(rBulks("1", "2", "3", "4"), "SMEMBERS s"),
		sl(rInt(4), "SCARD s"),
		sl(rInt(0), "SCARD nokey"),
		sl(rInt(1), "SISMEMBER s 4"),
		sl(rInt(0), "SISMEMBER s 5"),
		sl(rInt(0), "SISMEMBER s x"),
		sl(rInt(0), "SISMEMBER s 04"),
		sl(rInt(0), "SISMEMBER nokey 1"),
		sl(rArr(rInt(1), rInt(0), rInt(1)), "SMISMEMBER s 1 x 2"),
		sl(rArr(rInt(0), rInt(0)), "SMISMEMBER nokey a b"),
		sl(rInt(2), "SREM s 1 9 2"),
		sl(rInt(0), "SREM nokey a"),
		sl(rNoItems, "SMEMBERS nokey"),
		sl(rInt(2), "SREM s 3 4 5"),
		sl(rInt(0), "EXISTS s"),
		// Wrong type everywhere.
		sl(rOK, "SET str x"),
		sl(rWrongType, "SADD str a"),
		sl(rWrongType, "SREM str a"),
		sl(rWrongType, "SCARD str"),
		sl(rWrongType, "SISMEMBER str a"),
		sl(rWrongType, "SMISMEMBER str a"),
		sl(rWrongType, "SMEMBERS str"),
		sl(rWrongType, "SPOP str"),
		sl(rWrongType, "SPOP str 2"),
		sl(rWrongType, "SRANDMEMBER str"),
		sl(rWrongType, "SRANDMEMBER str -2"),
		sl(rWrongType, "SINTER str"),
		sl(rWrongType, "SINTERCARD 1 str"),
		sl(rWrongType, "SUNION str"),
		sl(rWrongType, "SDIFF str"),
		sl(rWrongType, "SSCAN str 0"),
		// A listpack keeps insertion order, as Valkey's does.
		sl(rInt(4), "SADD lp b a 10 c"),
		sl(rBulks("b", "a", "10", "c"), "SMEMBERS lp"),
		sl(rInt(1), "SREM lp a"),
		sl(rBulks("b", "10", "c"), "SMEMBERS lp"),
		// Becoming a listpack keeps the intset's ascending order first.
		sl(rInt(3), "SADD mix 5 -1 3"),
		sl(rInt(1), "SADD mix z"),
		sl(rBulks("-1", "3", "5", "z"), "SMEMBERS mix"),
		sl(rBulk("listpack"), "OBJECT ENCODING mix"),
	})
}

func TestSetPopAndRandom(t *testing.T) {
	h := newCollHarness(t)
	h.run([]step{
		sl(rNull, "SPOP nokey"),
		sl(rNoItems, "SPOP nokey 3"),
		sl("-"+ErrNotPositive+"\r\n", "SPOP nokey -1"),
		sl("-"+ErrNotPositive+"\r\n", "SPOP nokey x"),
		sl(rSyntax, "SPOP nokey 1 2"),
		sl(rInt(3), "SADD p 30 10 20"),
		sl(rNoItems, "SPOP p 0"),
		sl(rBulks("10", "20", "30"), "SPOP p 3"), // all: the intset's order
		sl(rInt(0), "EXISTS p"),
		sl(rNull, "SRANDMEMBER nokey"),
		sl(rNoItems, "SRANDMEMBER nokey 5"),
		sl(rNoItems, "SRANDMEMBER nokey -5"),
		sl("-"+ErrNotInt+"\r\n", "SRANDMEMBER nokey x"),
		sl("-"+errRangeLong+"\r\n", "SRANDMEMBER nokey -9223372036854775808"),
		sl(rSyntax, "SRANDMEMBER nokey 1 2"),
		sl(rInt(1), "SADD one m"),
		sl(rBulk("m"), "SRANDMEMBER one"),
		sl(rBulks("m", "m", "m"), "SRANDMEMBER one -3"),
		sl(rBulks("m"), "SRANDMEMBER one 3"),
		sl(rNoItems, "SRANDMEMBER one 0"),
		sl(rInt(3), "SADD p 3 2 1"),
		sl(rBulks("1", "2", "3"), "SRANDMEMBER p 10"),
		sl(rBulks("1", "2", "3"), "SRANDMEMBER p 9223372036854775807"),
	})

	// Random draws: right sizes, members of the set, distinct when asked.
	members := func(reply string) []string {
		var out []string
		for _, part := range strings.Split(reply, "\r\n") {
			if part != "" && part[0] != '*' && part[0] != '$' && part[0] != '~' {
				out = append(out, part)
			}
		}
		return out
	}
	for _, enc := range []struct{ name, add string }{
		{"intset", "SADD r 1 2 3 4 5 6 7 8 9 10"},
		{"listpack", "SADD r a b c d e f g h i j"},
		{"hashtable", "SADD r " + strings.Repeat("x", 70) + " b c d e f g h i j"},
	} {
		h.do("DEL", "r")
		h.do(line(enc.add)...)
		if got := h.do("OBJECT", "ENCODING", "r"); got != rBulk(enc.name) {
			t.Fatalf("%s: encoding %q", enc.name, got)
		}
		for _, count := range []int{1, 2, 5, 7, 9, 10, 11} {
			got := members(h.do("SRANDMEMBER", "r", strconv.Itoa(count)))
			if want := min(count, 10); len(got) != want {
				t.Errorf("%s: SRANDMEMBER %d gave %d members", enc.name, count, len(got))
			}
			if len(slices.Compact(slices.Sorted(slices.Values(got)))) != len(got) {
				t.Errorf("%s: SRANDMEMBER %d repeated a member: %v", enc.name, count, got)
			}
			if got := members(h.do("SRANDMEMBER", "r", strconv.Itoa(-count))); len(got) != count {
				t.Errorf("%s: SRANDMEMBER -%d gave %d members", enc.name, count, len(got))
			}
		}
		// SPOP with each strategy: few, most (rebuild the rest), all.
		for _, count := range []int{2, 7, 1} {
			before := h.do("SCARD", "r")
			got := members(h.do("SPOP", "r", strconv.Itoa(count)))
			after := h.do("SCARD", "r")
			n, _ := strconv.Atoi(strings.Trim(before, ":\r\n"))
			m, _ := strconv.Atoi(strings.Trim(after, ":\r\n"))
			if len(got) != count || n-m != count {
				t.Errorf("%s: SPOP %d: got %d members, card %d -> %d", enc.name, count, len(got), n, m)
			}
			for _, g := range got {
				if h.do("SISMEMBER", "r", g) != rInt(0) {
					t.Errorf("%s: popped %q still a member", enc.name, g)
				}
			}
		}
	}
}

func TestSetMove(t *testing.T) {
	h := newCollHarness(t)
	h.run([]step{
		sl(rInt(3), "SADD src 1 2 3"),
		sl(rInt(1), "SADD dst 3"),
		sl(rInt(1), "SMOVE src dst 1"),
		sl(rInt(1), "SMOVE src dst 3"), // already there: still moved out
		sl(rInt(0), "SMOVE src dst 9"),
		sl(rBulks("2"), "SMEMBERS src"),
		sl(rBulks("1", "3"), "SMEMBERS dst"),
		sl(rInt(1), "SMOVE src src 2"),
		sl(rInt(0), "SMOVE src src 9"),
		sl(rInt(0), "SMOVE nokey dst 1"),
		sl(rInt(1), "SMOVE src fresh 2"),
		sl(rInt(0), "EXISTS src"),
		sl(rBulk("intset"), "OBJECT ENCODING fresh"),
		sl(rOK, "SET str x"),
		sl(rWrongType, "SMOVE str dst 1"),
		sl(rWrongType, "SMOVE dst str 1"),
		sl(rInt(0), "SMOVE nokey str 1"),
	})
}

func TestSetAlgebra(t *testing.T) {
	h := newCollHarness(t)
	h.run([]step{
		sl(rInt(5), "SADD a 1 2 3 4 5"),
		sl(rInt(4), "SADD b 2 4 6 8"),
		sl(rInt(3), "SADD c 4 5 6"),
		sl(rBulks("2", "4"), "SINTER a b"),
		sl(rBulks("4"), "SINTER a b c"),
		sl(rNoItems, "SINTER a nokey"),
		sl(rInt(2), "SINTERSTORE out a b"),
		sl(rBulk("intset"), "OBJECT ENCODING out"),
		sl(rInt(0), "SINTERSTORE out a nokey"),
		sl(rInt(0), "EXISTS out"),
		sl(rInt(2), "SINTERCARD 2 a b"),
		sl(rInt(1), "SINTERCARD 2 a b LIMIT 1"),
		sl(rInt(2), "SINTERCARD 2 a b LIMIT 0"),
		sl("-ERR LIMIT can't be negative\r\n", "SINTERCARD 2 a b LIMIT -1"),
		sl("-ERR LIMIT can't be negative\r\n", "SINTERCARD 2 a b LIMIT x"),
		sl(rSyntax, "SINTERCARD 2 a b LIMIT"),
		sl("-ERR numkeys should be greater than 0\r\n", "SINTERCARD 0 a"),
		sl("-ERR numkeys should be greater than 0\r\n", "SINTERCARD x a"),
		sl("-ERR Number of keys can't be greater than number of args\r\n", "SINTERCARD 3 a b"),
		sl(rBulks("1", "2", "3", "4", "5", "6", "8"), "SUNION a b"),
		sl(rBulks("1", "3", "5"), "SDIFF a b"),
		sl(rBulks("1", "3"), "SDIFF a b c"),
		sl(rNoItems, "SDIFF a a"),
		sl(rNoItems, "SDIFF nokey a"),
		sl(rInt(7), "SUNIONSTORE u a b c"),
		sl(rInt(2), "SDIFFSTORE d a b c"),
		sl(rBulks("1", "3"), "SMEMBERS d"),
		sl(rInt(0), "SDIFFSTORE d a a"),
		sl(rInt(0), "EXISTS d"),
		sl(rInt(2), "SDIFFSTORE d2 a b c"),
		// A union becomes a listpack at the first string; the intset's
		// members come first, ascending.
		sl(rInt(3), "SADD s1 z 3 x"),
		sl(rBulks("1", "2", "3", "4", "5", "z", "x"), "SUNION a s1"),
		sl(rBulks("z", "3", "x", "1", "2", "4", "5"), "SUNION s1 a"),
		sl(rInt(7), "SUNIONSTORE u2 s1 a"),
		sl(rBulk("listpack"), "OBJECT ENCODING u2"),
		// SINTERSTORE of integers found in a listpack stores an intset.
		sl(rInt(1), "SINTERSTORE i2 s1 a"),
		sl(rBulk("intset"), "OBJECT ENCODING i2"),
	})
	h.c.W.Proto = 3
	h.run([]step{
		sl(rSet3("2", "4"), "SINTER a b"),
		sl("~0\r\n", "SINTER a nokey"),
		sl("~0\r\n", "SMEMBERS nokey"),
		sl(rSet3("1", "3", "5"), "SDIFF a b"),
		sl(rSet3("1", "3"), "SPOP d2 10"),
		sl(rNull3, "SPOP nokey"),
		sl("~0\r\n", "SPOP nokey 1"),
		sl(rNoItems, "SRANDMEMBER nokey 1"),
		sl(rInt(1), "SISMEMBER a 1"),
	})
}

func TestSetEncodings(t *testing.T) {
	h := newCollHarness(t)
	configure(h.ks, func(s *Settings) {
		s.SetMaxIntsetEntries = 4
		s.SetMaxListpackEntries = 3
		s.SetMaxListpackValue = 5
	})
	enc := func(e string) string { return rBulk(e) }
	h.run([]step{
		// intset up to 4 ints, then a hashtable (never a listpack).
		sl(rInt(4), "SADD i 1 2 3 4"),
		sl(enc("intset"), "OBJECT ENCODING i"),
		sl(rInt(1), "SADD i 5"),
		sl(enc("hashtable"), "OBJECT ENCODING i"),
		// A first string: listpack while within 3 entries of 5 bytes.
		sl(rInt(2), "SADD l 1 2"),
		sl(rInt(1), "SADD l abc"),
		sl(enc("listpack"), "OBJECT ENCODING l"),
		sl(rInt(1), "SADD l 7"),
		sl(enc("hashtable"), "OBJECT ENCODING l"),
		// Intset of 3 becomes a hashtable: no room for a 4th in a listpack.
		sl(rInt(3), "SADD l3 1 2 3"),
		sl(rInt(1), "SADD l3 x"),
		sl(enc("hashtable"), "OBJECT ENCODING l3"),
		// An integer too long for a listpack value.
		sl(rInt(1), "SADD big 123456"),
		sl(rInt(1), "SADD big x"),
		sl(enc("hashtable"), "OBJECT ENCODING big"),
		// A long string goes straight to a hashtable.
		sl(rInt(1), "SADD long abcdef"),
		sl(enc("hashtable"), "OBJECT ENCODING long"),
		sl(rInt(1), "SADD long2 abcde"),
		sl(enc("listpack"), "OBJECT ENCODING long2"),
		// The size hint: 5 arguments > 4 intset entries (even duplicates).
		sl(rInt(1), "SADD hint 1 1 1 1 1"),
		sl(enc("hashtable"), "OBJECT ENCODING hint"),
		sl(rInt(1), "SADD hint2 a"),
		sl(rInt(0), "SADD hint2 a a a a"),
		sl(enc("hashtable"), "OBJECT ENCODING hint2"),
		// SINTERSTORE: from a hashtable, a listpack or intset result.
		sl(rInt(4), "SADD h abcdefgh 1 2 b"),
		sl(rInt(4), "SINTERSTORE r1 h h"),
		sl(enc("hashtable"), "OBJECT ENCODING r1"),
		sl(rInt(2), "SADD ints 1 2"),
		sl(rInt(2), "SINTERSTORE r2 h ints"),
		sl(enc("intset"), "OBJECT ENCODING r2"),
		sl(rInt(2), "SADD sb b 1"),
		sl(rInt(2), "SINTERSTORE r3 h sb"),
		sl(enc("listpack"), "OBJECT ENCODING r3"),
	})
	// SPOP rebuilding the rest of a hashtable makes a listpack.
	configure(h.ks, func(s *Settings) {
		s.SetMaxListpackValue = 64
		s.SetMaxListpackEntries = 128
	})
	h.do(append([]string{"SADD", "sp", strings.Repeat("y", 70)}, strings.Fields("a b c d e f g h i j")...)...)
	if got := h.do("OBJECT", "ENCODING", "sp"); got != enc("hashtable") {
		t.Fatalf("sp: %q", got)
	}
	h.do("SPOP", "sp", "10")
	// SPOP keeps a random member. A short survivor is rebuilt into a
	// listpack; the 70-byte one is over set-max-listpack-value, so the
	// rebuilt set is a hashtable again, as in Valkey.
	want := enc("listpack")
	if h.do("SISMEMBER", "sp", strings.Repeat("y", 70)) == rInt(1) {
		want = enc("hashtable")
	}
	if got := h.do("OBJECT", "ENCODING", "sp"); got != want {
		t.Errorf("after SPOP rebuilding one member: %q, want %q", got, want)
	}
}

func TestSetScan(t *testing.T) {
	h := newCollHarness(t)
	h.run([]step{
		sl(rArr(rBulk("0"), rNoItems), "SSCAN nokey 0"),
		sl(rArr(rBulk("0"), rNoItems), "SSCAN nokey 0 BADOPT"),
		sl("-ERR invalid cursor\r\n", "SSCAN nokey x"),
		sl(rInt(4), "SADD s 1 2 10 11"),
		sl(rArr(rBulk("0"), rBulks("1", "2", "10", "11")), "SSCAN s 0"),
		sl(rArr(rBulk("0"), rBulks("1", "10", "11")), "SSCAN s 0 MATCH 1*"),
		sl(rArr(rBulk("0"), rBulks("1", "2", "10", "11")), "SSCAN s 99 COUNT 1"),
		sl(rSyntax, "SSCAN s 0 COUNT 0"),
		sl("-"+ErrNotInt+"\r\n", "SSCAN s 0 COUNT x"),
		sl(rSyntax, "SSCAN s 0 COUNT"),
		sl(rSyntax, "SSCAN s 0 TYPE set"),
		sl("-ERR NOVALUES option can only be used in HSCAN\r\n", "SSCAN s 0 NOVALUES"),
		sl("-ERR NOSCORES option can only be used in ZSCAN\r\n", "SSCAN s 0 NOSCORES"),
	})
	// A hashtable is scanned with a cursor; every member comes back.
	args := []string{"SADD", "big"}
	for i := range 1000 {
		args = append(args, fmt.Sprintf("m%d", i))
	}
	h.do(args...)
	seen := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		if calls > 1000 {
			t.Fatal("SSCAN did not finish")
		}
		reply := h.do("SSCAN", "big", cursor, "COUNT", "50")
		parts := strings.Split(reply, "\r\n")
		cursor = parts[2]
		for _, p := range parts[4:] {
			if strings.HasPrefix(p, "m") {
				seen[p] = true
			}
		}
		if cursor == "0" {
			break
		}
	}
	if len(seen) != 1000 {
		t.Errorf("SSCAN saw %d of 1000 members", len(seen))
	}
}

// TestPackReserved: SADD and ZADD of several members to a listpack give
// it one buffer of the size class of what they need (Pack.Reserve), not a
// quarter's growth per class crossed; one member at a time still grows.
func TestPackReserved(t *testing.T) {
	h := newCollHarness(t)
	members := make([]string, 10)
	zargs := []string{"ZADD", "z"}
	for i := range members {
		members[i] = fmt.Sprintf("member-%09d", i) // 16 bytes
		zargs = append(zargs, strconv.Itoa(i), members[i])
	}
	h.do(append([]string{"SADD", "s"}, members...)...)
	h.do(zargs...)
	for i, m := range members {
		h.do("SADD", "one", m)
		h.do("ZADD", "zone", strconv.Itoa(i), m)
	}
	mem := func(key string) int {
		switch v := h.c.LookupDB(0, []byte(key)).Value().(type) {
		case *ds.Pack:
			return v.MemUsage()
		case *ds.ZPack:
			return v.MemUsage()
		}
		t.Fatalf("%s is not a listpack", key)
		return 0
	}
	// 10 entries of 1 + 16 + 1 bytes (+ 8 of score), and the 4-byte count.
	if got, want := mem("s"), ds.AllocSize(10*18+4); got != want {
		t.Errorf("SADD of 10: buffer %d bytes, want %d", got, want)
	}
	if got, want := mem("z"), ds.AllocSize(10*26+4); got != want {
		t.Errorf("ZADD of 10: buffer %d bytes, want %d", got, want)
	}
	if got := h.do("SCARD", "s"); got != ":10\r\n" {
		t.Errorf("SCARD %s", got)
	}
	if mem("one") < mem("s") || mem("zone") < mem("z") {
		t.Errorf("one by one: set %d, zset %d bytes: not more than reserved at once", mem("one"), mem("zone"))
	}
}
