package db

import (
	"github.com/corvid-kv/corvid/internal/ds"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// keyHarness runs procedures the way the dispatcher does: it looks the
// handler up by name, takes the locks the handler asks for, and returns the
// exact reply bytes. Arity is the dispatcher's job and is not checked.
type keyHarness struct {
	t   *testing.T
	ks  *Keyspace
	c   *Ctx
	cmd map[string]Handler
}

const testNow = int64(1_700_000_000_000)

func newKeyHarness(t *testing.T) *keyHarness {
	t.Helper()
	ks := New(16)
	h := &keyHarness{
		t:   t,
		ks:  ks,
		c:   &Ctx{KS: ks, W: resp.NewWriter(256), Now: testNow},
		cmd: make(map[string]Handler),
	}
	for _, group := range [][]Handler{KeyCommands, StringCommands, ListCommands, HashCommands} {
		for _, hd := range group {
			h.cmd[hd.Spec.FullName] = hd
		}
	}
	return h
}

// do runs one command and returns its reply.
func (h *keyHarness) do(args ...string) string {
	h.t.Helper()
	return h.doArgv(nil, args...)
}

// doArgv is do with a hook that may change argv (point arguments at
// buffers of the test's) before the command runs.
func (h *keyHarness) doArgv(fix func(argv [][]byte), args ...string) string {
	h.t.Helper()
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	if fix != nil {
		fix(argv)
	}
	name := strings.ToLower(args[0])
	hd, ok := h.cmd[name]
	if !ok && len(args) > 1 {
		name += "|" + strings.ToLower(args[1])
		hd, ok = h.cmd[name]
	}
	if !ok {
		h.t.Fatalf("no handler for %q", args[0])
	}
	c := h.c
	c.Argv = argv
	c.Dirty = 0
	c.W.Reset()
	switch hd.Lock {
	case LockNone:
		hd.Proc(c)
	case LockAll:
		h.ks.LockAll()
		c.Locked = true
		hd.Proc(c)
		c.Locked = false
		h.ks.UnlockAll()
	default:
		// Lock the stripes of every argument: a superset of the keys.
		var ls LockSet
		for _, a := range argv[1:] {
			ls.Add(h.ks, a)
		}
		h.ks.Lock(&ls)
		hd.Proc(c)
		h.ks.Unlock(&ls)
	}
	return string(c.W.Bytes())
}

// run executes a table of commands and expected replies in order.
func (h *keyHarness) run(steps []step) {
	h.t.Helper()
	for _, s := range steps {
		if got := h.do(s.cmd...); got != s.want {
			h.t.Errorf("%s: got %q, want %q", strings.Join(s.cmd, " "), got, s.want)
		}
	}
}

type step struct {
	cmd  []string
	want string
}

func st(want string, cmd ...string) step { return step{cmd: cmd, want: want} }

// Reply builders.
func rInt(n int64) string     { return ":" + strconv.FormatInt(n, 10) + "\r\n" }
func rErr(s string) string    { return "-" + s + "\r\n" }
func rBulk(s string) string   { return "$" + strconv.Itoa(len(s)) + "\r\n" + s + "\r\n" }
func rSimple(s string) string { return "+" + s + "\r\n" }

const (
	rOK   = "+OK\r\n"
	rNull = "$-1\r\n"
)

func rArr(items ...string) string {
	return "*" + strconv.Itoa(len(items)) + "\r\n" + strings.Join(items, "")
}

// mkObj creates a key of a collection type holding val, or for a string
// placeholder or nil an empty value of that type.
func (h *keyHarness) mkObj(db int, key string, t Type, val any) {
	if _, ok := val.(string); ok || val == nil {
		val = map[Type]any{TypeList: ds.NewQuicklist(), TypeSet: &ds.Pack{}, TypeZSet: &ds.ZPack{}, TypeHash: ds.NewListpack(), TypeStream: newStream()}[t]
	}
	h.ks.LockAll()
	o := h.c.CreateDB(db, []byte(key), t)
	o.SetValue(val)
	h.ks.UnlockAll()
}

// expireOf returns the raw Expire field of a key (0: none, -1: missing).
func (h *keyHarness) expireOf(db int, key string) int64 {
	h.ks.LockAll()
	defer h.ks.UnlockAll()
	o := h.c.LookupDB(db, []byte(key))
	if o == nil {
		return -1
	}
	return h.c.ExpireOfDB(db, []byte(key), o)
}

func TestGenericDelExistsType(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "h", TypeHash, "placeholder")
	h.run([]step{
		st(rOK, "SET", "a", "1"),
		st(rOK, "SET", "b", "2"),
		st(rInt(3), "EXISTS", "a", "a", "b", "nosuch"),
		st(rInt(0), "EXISTS", "nosuch"),
		st(rSimple("string"), "TYPE", "a"),
		st(rSimple("hash"), "type", "h"),
		st(rSimple("none"), "TYPE", "nosuch"),
		// A key named twice is deleted once.
		st(rInt(2), "DEL", "a", "a", "b", "nosuch"),
		st(rInt(0), "DEL", "a"),
		st(rInt(1), "UNLINK", "h"),
		st(rInt(0), "EXISTS", "a", "b", "h"),
	})
	// DEL counts one change per deleted key.
	h.do("SET", "x", "1")
	h.do("SET", "y", "1")
	h.do("DEL", "x", "y", "z")
	if h.c.Dirty != 2 {
		t.Errorf("DEL dirty = %d, want 2", h.c.Dirty)
	}
	// EXISTS/TYPE count keyspace hits and misses.
	hits, misses := h.ks.Stats.KeyspaceHits.Load(), h.ks.Stats.KeyspaceMisses.Load()
	h.do("SET", "k", "v")
	h.do("EXISTS", "k", "nope")
	if h.ks.Stats.KeyspaceHits.Load() != hits+1 || h.ks.Stats.KeyspaceMisses.Load() != misses+1 {
		t.Errorf("EXISTS did not count one hit and one miss")
	}
}

func TestGenericExpireErrors(t *testing.T) {
	h := newKeyHarness(t)
	h.do("SET", "k", "v")
	const (
		nxErr = "ERR NX and XX, GT or LT options at the same time are not compatible"
		gtErr = "ERR GT and LT options at the same time are not compatible"
	)
	h.run([]step{
		st(rErr(nxErr), "EXPIRE", "k", "10", "NX", "XX"),
		st(rErr(nxErr), "EXPIRE", "k", "10", "nx", "gt"),
		st(rErr(nxErr), "EXPIRE", "k", "10", "LT", "NX"),
		st(rErr(gtErr), "EXPIRE", "k", "10", "GT", "LT"),
		st(rErr("ERR Unsupported option foo"), "EXPIRE", "k", "10", "foo"),
		// %s stops at a NUL (found by tests/cmdfuzz).
		st(rErr("ERR Unsupported option foo"), "EXPIRE", "k", "10", "foo\x00bar"),
		st(rErr("ERR Unsupported option Bar"), "PEXPIRE", "k", "10", "NX", "Bar"),
		// Options are checked before the time argument.
		st(rErr(nxErr), "EXPIRE", "k", "abc", "NX", "XX"),
		st(rErr(ErrNotInt), "EXPIRE", "k", "abc"),
		st(rErr(ErrNotInt), "EXPIRE", "k", "+10"),
		st(rErr(ErrNotInt), "EXPIRE", "k", "9223372036854775808"),
		// Overflow by unit conversion or by adding the base time.
		st(rErr("ERR invalid expire time in 'expire' command"), "EXPIRE", "k", "9223372036854775807"),
		st(rErr("ERR invalid expire time in 'expire' command"), "EXPIRE", "k", "-9223372036854775808"),
		st(rErr("ERR invalid expire time in 'pexpire' command"), "PEXPIRE", "k", "9223372036854775807"),
		st(rErr("ERR invalid expire time in 'expireat' command"), "EXPIREAT", "k", "9223372036854775807"),
		st(rErr("ERR invalid expire time in 'expireat' command"), "EXPIREAT", "k", "9223372036854776"),
		// Nothing above touched the key.
		st(rInt(-1), "TTL", "k"),
		// The largest absolute time is accepted.
		st(rInt(1), "PEXPIREAT", "k", "9223372036854775807"),
		st(rInt(9223372036854775807), "PEXPIRETIME", "k"),
		// Rounded without overflow, as redis-server 7.0.15 replies.
		st(rInt(9223372036854776), "EXPIRETIME", "k"),
		st(rInt(1), "PERSIST", "k"),
		// Missing key: 0, after parsing.
		st(rInt(0), "EXPIRE", "nosuch", "10"),
		st(rErr(ErrNotInt), "EXPIRE", "nosuch", "x"),
	})
}

func TestGenericExpireSemantics(t *testing.T) {
	h := newKeyHarness(t)
	now := testNow
	h.run([]step{
		st(rOK, "SET", "k", "v"),
		// GT against no TTL (infinite) fails; LT succeeds.
		st(rInt(0), "EXPIRE", "k", "100", "GT"),
		st(rInt(0), "EXPIRE", "k", "100", "XX"),
		st(rInt(1), "EXPIRE", "k", "100", "LT"),
		st(rInt(100), "TTL", "k"),
		st(rInt(100000), "PTTL", "k"),
		st(rInt(0), "EXPIRE", "k", "200", "NX"),
		st(rInt(0), "EXPIRE", "k", "50", "GT"),
		st(rInt(0), "EXPIRE", "k", "100", "GT"),
		st(rInt(1), "EXPIRE", "k", "200", "GT"),
		st(rInt(0), "EXPIRE", "k", "300", "LT"),
		st(rInt(1), "EXPIRE", "k", "150", "LT"),
		st(rInt(1), "PEXPIRE", "k", "150000", "XX"),
		st(rInt(0), "EXPIRE", "k", "10", "nx", "NX"), // repeating is fine
		st(rInt(1), "EXPIRE", "k", "151", "XX", "GT"),
		st(rInt(1), "EXPIRE", "k", "150", "xx", "lt"),
		st(rInt(now/1000+150), "EXPIRETIME", "k"),
		st(rInt(now+150000), "PEXPIRETIME", "k"),
		// Rounding to the nearest second.
		st(rInt(1), "PEXPIRE", "k", "1499"),
		st(rInt(1), "TTL", "k"),
		st(rInt(1), "PEXPIRE", "k", "1500"),
		st(rInt(2), "TTL", "k"),
		st(rInt(1500), "PTTL", "k"),
		st(rInt(1), "EXPIREAT", "k", strconv.FormatInt(now/1000+10, 10)),
		st(rInt(10), "TTL", "k"),
		// PERSIST.
		st(rInt(1), "PERSIST", "k"),
		st(rInt(0), "PERSIST", "k"),
		st(rInt(-1), "TTL", "k"),
		st(rInt(-1), "PTTL", "k"),
		st(rInt(-1), "EXPIRETIME", "k"),
		st(rInt(-1), "PEXPIRETIME", "k"),
		st(rInt(0), "PERSIST", "nosuch"),
		st(rInt(-2), "TTL", "nosuch"),
		st(rInt(-2), "PTTL", "nosuch"),
		st(rInt(-2), "EXPIRETIME", "nosuch"),
		st(rInt(-2), "PEXPIRETIME", "nosuch"),
		// A time that is not in the future deletes the key and says 1.
		st(rInt(1), "EXPIRE", "k", "-1"),
		st(rInt(0), "EXISTS", "k"),
		st(rOK, "SET", "k", "v"),
		st(rInt(1), "PEXPIREAT", "k", strconv.FormatInt(now, 10)),
		st(rInt(0), "EXISTS", "k"),
		st(rOK, "SET", "k", "v"),
		st(rInt(1), "EXPIRE", "k", "0"),
		st(rInt(0), "EXISTS", "k"),
		st(rOK, "SET", "k", "v"),
		st(rInt(1), "PEXPIRE", "k", "-9223372036854775807"),
		st(rInt(0), "EXISTS", "k"),
		// LT against an existing TTL with a past time also deletes.
		st(rOK, "SET", "k", "v"),
		st(rInt(1), "EXPIRE", "k", "100"),
		st(rInt(1), "EXPIRE", "k", "-5", "LT"),
		st(rInt(0), "EXISTS", "k"),
	})

	// Dirty and WATCH: setting a TTL is one change.
	h.do("SET", "w", "v")
	var w Watch
	h.ks.WatchKey(&w, 0, []byte("w"))
	h.do("EXPIRE", "w", "10")
	if h.c.Dirty != 1 || !w.Dirty.Load() {
		t.Errorf("EXPIRE: dirty=%d watch=%v", h.c.Dirty, w.Dirty.Load())
	}
	h.ks.Unwatch(&w)
	h.do("EXPIRE", "w", "10", "NX")
	if h.c.Dirty != 0 {
		t.Errorf("refused EXPIRE counted a change")
	}
}

func TestGenericExpireOnReplica(t *testing.T) {
	h := newKeyHarness(t)
	h.do("SET", "k", "v")
	// Applying a primary's stream, a past time keeps the key (the primary
	// sends the DEL).
	h.c.Replica = true
	defer func() { h.c.Replica = false }()
	if got := h.do("PEXPIREAT", "k", "1000"); got != rInt(1) {
		t.Fatalf("got %q", got)
	}
	if e := h.expireOf(0, "k"); e != 1000 {
		t.Errorf("expire = %d, want 1000", e)
	}
	if got := h.do("PEXPIREAT", "k", "0"); got != rInt(1) {
		t.Fatalf("got %q", got)
	}
	if e := h.expireOf(0, "k"); e == 0 {
		t.Errorf("PEXPIREAT 0 on a replica made the key persistent")
	}
}

func TestGenericExpiryHidesKeys(t *testing.T) {
	h := newKeyHarness(t)
	h.run([]step{
		st(rOK, "SET", "gone", "v"),
		st(rOK, "SET", "stay", "v"),
		st(rInt(1), "PEXPIRE", "gone", "100"),
	})
	h.c.Now += 100 // the TTL is reached exactly: the key still exists (Valkey's keyIsExpired: now > when)
	h.run([]step{
		st(rInt(1), "EXISTS", "gone"),
		st(rInt(0), "PTTL", "gone"),
	})
	h.c.Now++ // past it
	h.run([]step{
		st(rArr(rBulk("stay")), "KEYS", "*"),
		st(rArr(rBulk("0"), rArr(rBulk("stay"))), "SCAN", "0", "COUNT", "1000"),
		st(rInt(0), "EXISTS", "gone"),
		st(rInt(-2), "TTL", "gone"),
		st(rSimple("none"), "TYPE", "gone"),
		st(rNull, "OBJECT", "ENCODING", "gone"),
		st(rErr(ErrNoSuchKey), "RENAME", "gone", "x"),
		st(rInt(0), "MOVE", "gone", "1"),
		st(rInt(0), "COPY", "gone", "x"),
		st(rInt(0), "PERSIST", "gone"),
		st(rInt(0), "DEL", "gone"),
		st(rInt(1), "DBSIZE"),
		st(rBulk("stay"), "RANDOMKEY"),
	})
	// RANDOMKEY on a database holding only expired keys.
	h.do("SET", "e", "v")
	h.do("PEXPIRE", "e", "1")
	h.do("DEL", "stay")
	h.c.Now += 2
	if got := h.do("RANDOMKEY"); got != rNull {
		t.Errorf("RANDOMKEY = %q", got)
	}
}

func TestGenericRename(t *testing.T) {
	h := newKeyHarness(t)
	h.run([]step{
		st(rErr(ErrNoSuchKey), "RENAME", "nosuch", "x"),
		st(rErr(ErrNoSuchKey), "RENAME", "nosuch", "nosuch"),
		st(rErr(ErrNoSuchKey), "RENAMENX", "nosuch", "x"),
		st(rOK, "SET", "a", "1"),
		st(rOK, "RENAME", "a", "a"),
		st(rInt(0), "RENAMENX", "a", "a"),
		st(rInt(1), "PEXPIRE", "a", "5000"),
		st(rOK, "RENAME", "a", "b"),
		st(rInt(0), "EXISTS", "a"),
		st(rBulk("1"), "GET", "b"),
		st(rInt(5000), "PTTL", "b"), // the TTL moves with the value
		// Overwriting a key with a TTL: the destination's TTL is dropped.
		st(rOK, "SET", "c", "2"),
		st(rInt(1), "EXPIRE", "c", "100"),
		st(rOK, "SET", "d", "3"),
		st(rOK, "RENAME", "d", "c"),
		st(rBulk("3"), "GET", "c"),
		st(rInt(-1), "TTL", "c"),
		st(rInt(0), "RENAMENX", "b", "c"),
		st(rBulk("1"), "GET", "b"),
		st(rInt(1), "RENAMENX", "b", "e"),
		st(rInt(5000), "PTTL", "e"),
		st(rInt(0), "EXISTS", "b"),
	})
	// RENAMENX onto an expired key succeeds.
	h.do("SET", "old", "x")
	h.do("PEXPIRE", "old", "10")
	h.c.Now += 11
	if got := h.do("RENAMENX", "e", "old"); got != rInt(1) {
		t.Errorf("RENAMENX onto expired = %q", got)
	}
	// Collections are renamed by reference, type intact.
	ql := ds.NewQuicklist()
	h.mkObj(0, "l", TypeList, ql)
	h.do("RENAME", "l", "l2")
	h.ks.LockAll()
	o := h.c.LookupDB(0, []byte("l2"))
	h.ks.UnlockAll()
	if o == nil || o.Type != TypeList || o.Value() != any(ql) {
		t.Errorf("renamed list = %+v", o)
	}
	// One change, both keys' watchers invalidated.
	var w1, w2 Watch
	h.ks.WatchKey(&w1, 0, []byte("l2"))
	h.ks.WatchKey(&w2, 0, []byte("l3"))
	h.do("RENAME", "l2", "l3")
	if h.c.Dirty != 1 || !w1.Dirty.Load() || !w2.Dirty.Load() {
		t.Errorf("RENAME dirty=%d watches=%v,%v", h.c.Dirty, w1.Dirty.Load(), w2.Dirty.Load())
	}
}

func TestGenericMove(t *testing.T) {
	h := newKeyHarness(t)
	h.run([]step{
		st(rOK, "SET", "a", "1"),
		st(rErr(ErrSameObject), "MOVE", "a", "0"),
		st(rErr(ErrSameObject), "MOVE", "nosuch", "0"),
		st(rErr(ErrDBIndex), "MOVE", "a", "16"),
		st(rErr(ErrDBIndex), "MOVE", "a", "-1"),
		st(rErr(ErrNotInt), "MOVE", "a", "abc"),
		st(rErr("ERR value is out of range, value must between -2147483648 and 2147483647"), "MOVE", "a", "99999999999"),
		st(rInt(0), "MOVE", "nosuch", "1"),
		st(rInt(1), "PEXPIRE", "a", "7000"),
		st(rInt(1), "MOVE", "a", "1"),
		st(rInt(0), "EXISTS", "a"),
	})
	h.c.DB = 1
	h.run([]step{
		st(rBulk("1"), "GET", "a"),
		st(rInt(7000), "PTTL", "a"),
		st(rOK, "SET", "b", "db1"),
	})
	h.c.DB = 0
	h.run([]step{
		st(rOK, "SET", "b", "db0"),
		st(rInt(0), "MOVE", "b", "1"), // the destination exists
		st(rBulk("db0"), "GET", "b"),
	})
	// MOVE onto a destination that has expired succeeds.
	h.c.DB = 1
	h.do("PEXPIRE", "b", "5")
	h.c.DB = 0
	h.c.Now += 6
	if got := h.do("MOVE", "b", "1"); got != rInt(1) {
		t.Errorf("MOVE onto expired = %q", got)
	}
}

func TestGenericCopy(t *testing.T) {
	h := newKeyHarness(t)
	h.run([]step{
		st(rOK, "SET", "a", "hello"),
		st(rErr(ErrSameObject), "COPY", "a", "a"),
		st(rErr(ErrSameObject), "COPY", "a", "a", "DB", "0"),
		st(rErr(ErrSyntax), "COPY", "a", "x", "DB"),
		st(rErr(ErrSyntax), "COPY", "a", "x", "foo"),
		st(rErr(ErrDBIndex), "COPY", "a", "x", "DB", "16"),
		st(rErr(ErrDBIndex), "COPY", "nosuch", "x", "db", "-1"),
		st(rErr(ErrNotInt), "COPY", "a", "x", "DB", "abc"),
		st(rInt(0), "COPY", "nosuch", "x"),
		st(rInt(1), "PEXPIRE", "a", "9000"),
		st(rInt(1), "COPY", "a", "b"),
		st(rBulk("hello"), "GET", "b"),
		st(rInt(9000), "PTTL", "b"),
		st(rInt(0), "COPY", "a", "b"),
		st(rOK, "SET", "a", "v2"),
		st(rInt(1), "COPY", "a", "b", "REPLACE", "replace"),
		st(rBulk("v2"), "GET", "b"),
		st(rInt(-1), "TTL", "b"),
		st(rInt(1), "COPY", "a", "a", "DB", "1"),
	})
	// The copy is deep: changing the source leaves it alone.
	h.do("APPEND", "a", "-more")
	if got := h.do("GET", "b"); got != rBulk("v2") {
		t.Errorf("copy shares bytes with source: %q", got)
	}
	h.c.DB = 1
	if got := h.do("GET", "a"); got != rBulk("v2") {
		t.Errorf("copy in db 1 = %q", got)
	}
	h.c.DB = 0

	// A collection is copied deeply: the copy is a hash of its own.
	h.run([]step{
		st(rInt(1), "HSET", "h", "f", "orig"),
		st(rInt(1), "COPY", "h", "h2", "DB", "3"),
		st(rInt(0), "HSET", "h", "f", "changed"),
	})
	h.c.DB = 3
	if got := h.do("HGET", "h2", "f"); got != rBulk("orig") {
		t.Errorf("copied hash field = %q", got)
	}
	h.c.DB = 0
	h.mkObj(0, "s", TypeStream, newStream())
	if got := h.do("COPY", "s", "s2"); got != rInt(1) {
		t.Errorf("COPY of a stream = %q", got)
	}
}

func TestGenericSwapFlushDBSize(t *testing.T) {
	h := newKeyHarness(t)
	h.run([]step{
		st(rErr("ERR invalid first DB index"), "SWAPDB", "abc", "0"),
		st(rErr("ERR invalid second DB index"), "SWAPDB", "0", "abc"),
		st(rErr("ERR invalid first DB index"), "SWAPDB", "99999999999", "0"),
		st(rErr("ERR invalid first DB index"), "SWAPDB", "abc", "def"),
		st(rErr(ErrDBIndex), "SWAPDB", "0", "16"),
		st(rErr(ErrDBIndex), "SWAPDB", "-1", "0"),
		st(rOK, "SWAPDB", "0", "0"),
		st(rOK, "SET", "a", "in0"),
		st(rOK, "SET", "b", "in0"),
		st(rInt(2), "DBSIZE"),
		st(rOK, "SWAPDB", "0", "5"),
		st(rInt(0), "DBSIZE"),
		st(rNull, "GET", "a"),
	})
	h.c.DB = 5
	h.run([]step{
		st(rInt(2), "DBSIZE"),
		st(rBulk("in0"), "GET", "a"),
		st(rErr(ErrSyntax), "FLUSHDB", "foo"),
		st(rErr(ErrSyntax), "FLUSHDB", "SYNC", "ASYNC"),
		st(rErr(ErrSyntax), "FLUSHALL", "now"),
		st(rOK, "FLUSHDB", "async"),
		st(rInt(0), "DBSIZE"),
		st(rOK, "SET", "x", "1"),
	})
	h.c.DB = 0
	h.run([]step{
		st(rOK, "SET", "y", "1"),
		st(rOK, "FLUSHDB", "SYNC"),
		st(rInt(0), "DBSIZE"),
		st(rOK, "SET", "y", "1"),
		st(rOK, "FLUSHALL"),
		st(rInt(0), "DBSIZE"),
	})
	h.c.DB = 5
	if got := h.do("DBSIZE"); got != rInt(0) {
		t.Errorf("FLUSHALL left db 5 with %q", got)
	}
	h.c.DB = 0
	// SWAPDB and FLUSHDB invalidate a watcher when its key exists on
	// either side (Valkey's touchAllWatchedKeysInDb); a key missing
	// before and after is no change.
	var w Watch
	h.ks.WatchKey(&w, 7, []byte("k"))
	h.do("SWAPDB", "7", "8")
	if w.Dirty.Load() {
		t.Errorf("SWAPDB of a missing watched key touched its watcher")
	}
	h.c.DB = 8
	h.do("SET", "k", "v") // k only in db 8: swapped into db 7
	h.do("SWAPDB", "7", "8")
	if !w.Dirty.Load() {
		t.Errorf("SWAPDB bringing the watched key did not touch its watcher")
	}
	var w2 Watch
	h.ks.WatchKey(&w2, 7, []byte("gone"))
	h.ks.WatchKey(&w2, 8, []byte("k")) // k is in db 7 now, not 8
	h.c.DB = 8
	h.do("FLUSHDB")
	if w2.Dirty.Load() {
		t.Errorf("FLUSHDB of a database without the watched key touched its watcher")
	}
	h.c.DB = 7
	h.do("FLUSHDB")
	if w2.Dirty.Load() {
		t.Errorf("FLUSHDB touched a watcher of another database's key")
	}
	var w3 Watch
	h.do("SET", "k", "v")
	h.ks.WatchKey(&w3, 7, []byte("k"))
	h.do("FLUSHALL")
	if !w3.Dirty.Load() {
		t.Errorf("FLUSHALL of the watched key did not touch its watcher")
	}
	h.c.DB = 0
}

func TestGenericObject(t *testing.T) {
	h := newKeyHarness(t)
	long := strings.Repeat("x", 45)
	h.mkObj(0, "l", TypeStream, nil) // a stream: its one encoding
	h.run([]step{
		st(rOK, "SET", "i", "12345"),
		st(rOK, "SET", "s", "hello"),
		st(rOK, "SET", "r", long),
		st(rBulk("int"), "OBJECT", "ENCODING", "i"),
		st(rBulk("embstr"), "object", "encoding", "s"),
		st(rBulk("raw"), "OBJECT", "ENCODING", "r"),
		st(rNull, "OBJECT", "ENCODING", "nosuch"),
		st(rBulk("stream"), "OBJECT", "ENCODING", "l"),
		st(rOK, "SET", "small", "100"),
		st(rInt(2147483647), "OBJECT", "REFCOUNT", "small"),
		st(rInt(1), "OBJECT", "REFCOUNT", "i"),
		st(rInt(1), "OBJECT", "REFCOUNT", "s"),
		st(rNull, "OBJECT", "REFCOUNT", "nosuch"),
		st(rErr("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."), "OBJECT", "FREQ", "s"),
		st(rNull, "OBJECT", "FREQ", "nosuch"),
		st(rNull, "OBJECT", "IDLETIME", "nosuch"),
	})
	h.run([]step{
		st(rInt(1), "RPUSH", "list", "a"),
		st(rBulk("listpack"), "OBJECT", "ENCODING", "list"),
	})

	// IDLETIME reads the clock without moving it.
	h.ks.LockAll()
	o := h.c.LookupDB(0, []byte("s"))
	o.LRU = (LRUClock() - 100) & lruClockMax
	before := o.LRU
	h.ks.UnlockAll()
	if got := h.do("OBJECT", "IDLETIME", "s"); got != rInt(100) && got != rInt(101) {
		t.Errorf("IDLETIME = %q", got)
	}
	h.do("OBJECT", "ENCODING", "s")
	h.do("TYPE", "s")
	h.do("EXISTS", "s")
	h.do("TTL", "s")
	if o.LRU != before {
		t.Errorf("OBJECT/TYPE/EXISTS/TTL touched the access clock")
	}

	h.ks.SetEvictionPolicy(PolicyAllkeysLFU)
	h.do("SET", "f", "v")
	h.run([]step{
		st(rErr("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust."), "OBJECT", "IDLETIME", "f"),
		st(rInt(lfuInitVal), "OBJECT", "FREQ", "f"),
	})
}

func TestGenericObjectHelp(t *testing.T) {
	h := newKeyHarness(t)
	want := rArr(
		rSimple("OBJECT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"),
		rSimple("ENCODING <key>"),
		rSimple("    Return the kind of internal representation used in order to store the value"),
		rSimple("    associated with a <key>."),
		rSimple("FREQ <key>"),
		rSimple("    Return the access frequency index of the <key>. The returned integer is"),
		rSimple("    proportional to the logarithm of the recent access frequency of the key."),
		rSimple("IDLETIME <key>"),
		rSimple("    Return the idle time of the <key>, that is the approximated number of"),
		rSimple("    seconds elapsed since the last access to the key."),
		rSimple("REFCOUNT <key>"),
		rSimple("    Return the number of references of the value associated with the specified"),
		rSimple("    <key>."),
		rSimple("HELP"),
		rSimple("    Print this help."),
	)
	if got := h.do("OBJECT", "HELP"); got != want {
		t.Errorf("OBJECT HELP:\n got %q\nwant %q", got, want)
	}
}

func TestGenericTouch(t *testing.T) {
	h := newKeyHarness(t)
	h.do("SET", "a", "1")
	h.ks.LockAll()
	o := h.c.LookupDB(0, []byte("a"))
	o.LRU = 0
	h.ks.UnlockAll()
	// TOUCH updates the clock even for a CLIENT NO-TOUCH connection.
	h.c.NoTouch = true
	if got := h.do("TOUCH", "a", "a", "nosuch"); got != rInt(2) {
		t.Errorf("TOUCH = %q", got)
	}
	if !h.c.NoTouch {
		t.Errorf("TOUCH cleared NoTouch")
	}
	h.c.NoTouch = false
	if o.LRU == 0 {
		t.Errorf("TOUCH left the access clock")
	}
	if h.c.Dirty != 0 {
		t.Errorf("TOUCH counted a change")
	}
}

func TestGenericRandomKey(t *testing.T) {
	h := newKeyHarness(t)
	if got := h.do("RANDOMKEY"); got != rNull {
		t.Errorf("RANDOMKEY on empty db = %q", got)
	}
	seen := map[string]bool{}
	for _, k := range []string{"a", "b", "c"} {
		h.do("SET", k, "v")
	}
	for i := 0; i < 300; i++ {
		seen[h.do("RANDOMKEY")] = true
	}
	for _, k := range []string{"a", "b", "c"} {
		if !seen[rBulk(k)] {
			t.Errorf("RANDOMKEY never returned %q", k)
		}
	}
}
