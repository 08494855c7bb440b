package db

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/resp"
)

// The keyspace events of every command family, as valkey-server 8.0.1
// emits them (each expected sequence was read off the real server with
// PSUBSCRIBE __key*__:*; tests/integration/notify_test.go compares the
// two servers directly).

// eventRecorder is an Observer that keeps every event it is given, and
// checks that each event comes with Valkey's class for its name.
type eventRecorder struct {
	t   *testing.T
	mu  sync.Mutex
	evs []string
}

// eventClass is the class Valkey gives each event.
var eventClass = map[string]int{
	"del": NotifyGeneric, "expire": NotifyGeneric, "persist": NotifyGeneric,
	"rename_from": NotifyGeneric, "rename_to": NotifyGeneric,
	"move_from": NotifyGeneric, "move_to": NotifyGeneric,
	"copy_to": NotifyGeneric, "restore": NotifyGeneric,
	"set": NotifyString, "setrange": NotifyString, "incrby": NotifyString,
	"incrbyfloat": NotifyString, "append": NotifyString, "setbit": NotifyString,
	"lpush": NotifyList, "rpush": NotifyList, "lpop": NotifyList, "rpop": NotifyList,
	"linsert": NotifyList, "lset": NotifyList, "ltrim": NotifyList, "lrem": NotifyList,
	"sortstore": NotifyList,
	"hset":      NotifyHash, "hdel": NotifyHash, "hincrby": NotifyHash, "hincrbyfloat": NotifyHash,
	"sadd": NotifySet, "srem": NotifySet, "spop": NotifySet,
	"sinterstore": NotifySet, "sunionstore": NotifySet, "sdiffstore": NotifySet,
	"zadd": NotifyZset, "zincr": NotifyZset, "zrem": NotifyZset,
	"zremrangebyscore": NotifyZset, "zremrangebyrank": NotifyZset, "zremrangebylex": NotifyZset,
	"zpopmin": NotifyZset, "zpopmax": NotifyZset,
	"zinterstore": NotifyZset, "zunionstore": NotifyZset, "zdiffstore": NotifyZset,
	"zrangestore": NotifyZset,
	"expired":     NotifyExpired, "evicted": NotifyEvicted,
	"new": NotifyNew, "keymiss": NotifyKeyMiss,
}

func (r *eventRecorder) KeyEvent(class int, event string, key []byte, db int, _ any) {
	if want, ok := eventClass[event]; !ok || want != class {
		r.t.Errorf("event %q of class %#x (want %#x)", event, class, want)
	}
	e := event + " " + string(key)
	if db != 0 {
		e += "@" + strconv.Itoa(db)
	}
	r.mu.Lock()
	r.evs = append(r.evs, e)
	r.mu.Unlock()
}

func (r *eventRecorder) KeyChanged(int, []byte, any) {}
func (r *eventRecorder) Flushed(int)                 {}

// take returns the events recorded since the last call.
func (r *eventRecorder) take() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	evs := r.evs
	r.evs = nil
	return evs
}

// notifyAll is every class, keyspace and keyevent channels ("KEAnm").
const notifyAll = NotifyKeyspace | NotifyKeyevent | NotifyGeneric | NotifyString |
	NotifyList | NotifySet | NotifyHash | NotifyZset | NotifyExpired |
	NotifyEvicted | NotifyStream | NotifyKeyMiss | NotifyModule | NotifyNew

// notifyHarness runs procedures as the dispatcher does (locks, then
// ServeReady before unlocking) on a clock the test moves.
type notifyHarness struct {
	t   *testing.T
	ks  *Keyspace
	rec *eventRecorder
	c   *Ctx
	cmd map[string]Handler
}

func newNotifyHarness(t *testing.T) *notifyHarness {
	t.Helper()
	ks := New(16)
	rec := &eventRecorder{t: t}
	ks.SetObserver(rec)
	ks.SetNotifyFlags(notifyAll)
	h := &notifyHarness{t: t, ks: ks, rec: rec,
		c:   &Ctx{KS: ks, W: resp.NewWriter(256), Now: testNow},
		cmd: make(map[string]Handler)}
	for _, g := range [][]Handler{KeyCommands, StringCommands, ListCommands, HashCommands, SetCommands, ZSetCommands, SortCommands} {
		for _, hd := range g {
			h.cmd[hd.Spec.FullName] = hd
		}
	}
	return h
}

// splitCmd splits a command line at spaces; a "quoted" argument is
// unquoted as a Go string (for binary payloads).
func splitCmd(t *testing.T, line string) []string {
	var out []string
	for line = strings.TrimLeft(line, " "); line != ""; line = strings.TrimLeft(line, " ") {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("bad quoting in %q", line)
			}
			u, _ := strconv.Unquote(q)
			out = append(out, u)
			line = line[len(q):]
			continue
		}
		i := strings.IndexByte(line, ' ')
		if i < 0 {
			i = len(line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out
}

// do runs one command line and returns its reply. "ADVANCE ms" moves the
// clock, "SELECT db" the database.
func (h *notifyHarness) do(line string) string {
	h.t.Helper()
	args := splitCmd(h.t, line)
	c := h.c
	switch strings.ToUpper(args[0]) {
	case "ADVANCE":
		n, _ := strconv.ParseInt(args[1], 10, 64)
		c.Now += n
		return rOK
	case "SELECT":
		c.DB, _ = strconv.Atoi(args[1])
		return rOK
	}
	name := strings.ToLower(args[0])
	hd, ok := h.cmd[name]
	if !ok && len(args) > 1 {
		hd, ok = h.cmd[name+"|"+strings.ToLower(args[1])]
	}
	if !ok {
		h.t.Fatalf("no handler for %q", args[0])
	}
	c.Argv = toArgv(args)
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
		var ls LockSet
		for _, a := range c.Argv[1:] {
			ls.Add(h.ks, a)
		}
		h.ks.Lock(&ls)
		hd.Proc(c)
		c.ServeReady(&ls)
		h.ks.Unlock(&ls)
	}
	return string(c.W.Bytes())
}

// nstep is a command line and the events it must emit.
type nstep struct {
	cmd    string
	events []string
}

func ev(cmd string, events ...string) nstep { return nstep{cmd, events} }

// run checks each step's events.
func (h *notifyHarness) run(steps []nstep) {
	h.t.Helper()
	for _, s := range steps {
		reply := h.do(s.cmd)
		if got := h.rec.take(); !slices.Equal(got, s.events) {
			h.t.Errorf("%s (reply %q):\n got: %q\nwant: %q", s.cmd, reply, got, s.events)
		}
	}
}

// setPX1 is a key that expires 1 ms later; the step after it advances
// the clock past that.
func setPX1(key string) []nstep {
	return []nstep{
		ev("SET "+key+" 1 PX 1", "new "+key, "set "+key, "expire "+key),
		ev("ADVANCE 5"),
	}
}

// runExpired runs each step on a fresh key k that has just expired.
func (h *notifyHarness) runExpired(k string, steps ...nstep) {
	h.t.Helper()
	for _, s := range steps {
		h.do("DEL " + k)
		h.rec.take()
		h.run(append(setPX1(k), s))
	}
}

func TestNotifyStrings(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("SET s 1", "new s", "set s"),
		ev("SET s 2 GET", "set s"),
		ev("SET s 3 NX"),
		ev("SET s 3 XX", "set s"),
		ev("SET s2 3 XX"),
		ev("SET s2 3 NX GET", "keymiss s2", "new s2", "set s2"),
		ev("SET s 5 EX 100", "set s", "expire s"),
		ev("SET s 5 KEEPTTL", "set s"),
		ev("SET s 6 PX 100 GET", "set s", "expire s"),
		ev("SETNX s 1"),
		ev("SETNX s3 1", "new s3", "set s3"),
		ev("SETEX s4 100 v", "new s4", "set s4", "expire s4"),
		ev("PSETEX s5 100000 v", "new s5", "set s5", "expire s5"),
		ev("GETSET s6 v", "keymiss s6", "new s6", "set s6"),
		ev("GETSET s6 w", "set s6"),
		ev("GETDEL s6", "del s6"),
		ev("GETDEL s6", "keymiss s6"),
		ev("GETEX s5 PERSIST", "persist s5"),
		ev("GETEX s5 PERSIST"),
		ev("GETEX s5 EX 100", "expire s5"),
		ev("GETEX s5 PXAT 1", "del s5"),
		ev("GETEX s4"),
		ev("GETEX nokey EX 10", "keymiss nokey"),
		ev("SET k v EXAT 1"),
		ev("SET k2 v", "new k2", "set k2"),
		ev("SET k2 w PXAT 1 GET", "del k2"),
		ev("SET k2 w PXAT 1 GET", "keymiss k2"),
		ev("MSET m1 a m2 b m1 c", "new m1", "set m1", "new m2", "set m2", "set m1"),
		ev("MSETNX m1 a m3 b"),
		ev("MSETNX m3 a m4 b", "new m3", "set m3", "new m4", "set m4"),
		ev("APPEND m1 xyz", "append m1"),
		ev("APPEND m5 xyz", "new m5", "append m5"),
		ev("INCR i", "new i", "incrby i"),
		ev("DECR i", "incrby i"),
		ev("INCRBY i 5", "incrby i"),
		ev("DECRBY i 5", "incrby i"),
		ev("INCRBYFLOAT i 1.5", "incrbyfloat i"),
		ev("INCRBYFLOAT f 1.5", "new f", "incrbyfloat f"),
		ev("INCR m1"),
		ev("SETRANGE r 0 abc", "new r", "setrange r"),
		ev("SETRANGE r 10 x", "setrange r"),
		ev(`SETRANGE r 0 ""`),
		ev(`SETRANGE r2 5 ""`),
		ev("STRLEN nokey", "keymiss nokey"),
		ev("GETRANGE nokey 0 1", "keymiss nokey"),
		ev("MGET nokey s nokey2", "keymiss nokey", "keymiss nokey2"),
		ev("LCS s nokey", "keymiss nokey"),
		ev("GET s"),
	})
}

func TestNotifyBits(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("SETBIT b 7 1", "new b", "setbit b"),
		ev("SETBIT b 7 1"),
		ev("SETBIT b 1000 0", "setbit b"),
		ev("SETBIT b2 0 0", "new b2", "setbit b2"),
		ev("GETBIT nokey 0", "keymiss nokey"),
		ev("BITCOUNT nokey", "keymiss nokey"),
		ev("BITPOS nokey 1", "keymiss nokey"),
		ev("BITOP AND d b nokey", "keymiss nokey", "new d", "set d"),
		ev("BITOP OR d b b2", "set d"),
		ev("BITOP AND d nokey nokey2", "keymiss nokey", "keymiss nokey2", "del d"),
		ev("BITOP AND d nokey", "keymiss nokey"),
		ev("BITFIELD bf SET u8 0 255", "new bf", "setbit bf"),
		ev("BITFIELD bf SET u8 0 255"),
		ev("BITFIELD bf SET u8 100 0", "setbit bf"),
		ev("BITFIELD bf GET u8 0"),
		ev("BITFIELD bf INCRBY u8 0 1", "setbit bf"),
		ev("BITFIELD bf OVERFLOW FAIL INCRBY u8 0 256"),
		ev("BITFIELD bf2 OVERFLOW FAIL INCRBY u8 0 256 GET u8 0", "new bf2"),
		ev("BITFIELD bf3 GET u8 0", "keymiss bf3"),
		ev("BITFIELD_RO bf3 GET u8 0", "keymiss bf3"),
	})
}

func TestNotifyKeys(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("SET a 1", "new a", "set a"),
		ev("SET b 2", "new b", "set b"),
		ev("RENAME a b", "new b", "rename_from a", "rename_to b"),
		ev("RENAME b b"),
		ev("RENAME nokey x"),
		ev("RENAMENX b c", "new c", "rename_from b", "rename_to c"),
		ev("SET d 1", "new d", "set d"),
		ev("RENAMENX c d"),
		ev("MOVE c 1", "new c@1", "move_from c", "move_to c@1"),
		ev("MOVE c 1"),
		ev("SET c 1", "new c", "set c"),
		ev("MOVE c 1"),
		ev("COPY d e", "new e", "copy_to e"),
		ev("COPY d e"),
		ev("COPY d e REPLACE", "new e", "copy_to e"),
		ev("COPY d e DB 1", "new e@1", "copy_to e@1"),
		ev("COPY d e DB 1 REPLACE", "new e@1", "copy_to e@1"),
		ev("COPY nokey e", "keymiss nokey"),
		ev("DEL d e nope", "del d", "del e"),
		ev("UNLINK c", "del c"),
		ev("EXPIRE nokey 10"),
		ev("SET k v", "new k", "set k"),
		ev("EXPIRE k 100", "expire k"),
		ev("PEXPIRE k 100000", "expire k"),
		ev("EXPIREAT k 99999999999", "expire k"),
		ev("PEXPIREAT k 99999999999999", "expire k"),
		ev("EXPIRE k 100 NX"),
		ev("PERSIST k", "persist k"),
		ev("PERSIST k"),
		ev("EXPIRE k 0", "del k"),
		ev("SET k v", "new k", "set k"),
		ev("PEXPIREAT k 1", "del k"),
		ev("EXISTS k", "keymiss k"),
		ev("TYPE k", "keymiss k"),
		ev("TTL k", "keymiss k"),
		ev("PTTL k", "keymiss k"),
		ev("EXPIRETIME k", "keymiss k"),
		ev("OBJECT ENCODING k"),
		ev("OBJECT FREQ k"),
		ev("TOUCH k", "keymiss k"),
		ev("DUMP k", "keymiss k"),
		ev("SET k v", "new k", "set k"),
		ev("FLUSHDB"),
		ev("SWAPDB 0 1"),
		ev("FLUSHALL"),
	})
}

func TestNotifyRestore(t *testing.T) {
	h := newNotifyHarness(t)
	h.do("SET a 1")
	h.rec.take()
	payload := strconv.Quote(strings.TrimSuffix(strings.SplitN(h.do("DUMP a"), "\r\n", 2)[1], "\r\n"))
	h.run([]nstep{
		ev("RESTORE b 0 "+payload, "new b", "restore b"),
		ev("RESTORE b 0 " + payload),
		ev("RESTORE b 0 "+payload+" REPLACE", "new b", "restore b"),
		ev("RESTORE b 100000 "+payload+" REPLACE IDLETIME 10", "new b", "restore b"),
		ev("RESTORE b 1 "+payload+" REPLACE ABSTTL", "del b"),
		ev("RESTORE b 1 " + payload + " REPLACE ABSTTL"),
		// An expired key: REPLACE deletes it unseen ("del" of the key,
		// no "expired"), a plain RESTORE looks it up first.
		ev("SET b 1 PX 1", "new b", "set b", "expire b"),
		ev("ADVANCE 5"),
		ev("RESTORE b 0 "+payload+" REPLACE", "new b", "restore b"),
		ev("SET b 1 PX 1", "set b", "expire b"),
		ev("ADVANCE 5"),
		ev("RESTORE b 1 "+payload+" REPLACE ABSTTL", "del b"),
		ev("SET b 1 PX 1", "new b", "set b", "expire b"),
		ev("ADVANCE 5"),
		ev("RESTORE b 0 "+payload, "expired b", "new b", "restore b"),
	})
}

// TestNotifyLazyExpiry: a key met expired by a command is announced as
// "expired" first; a read then misses, a write creates it anew.
func TestNotifyLazyExpiry(t *testing.T) {
	h := newNotifyHarness(t)
	h.runExpired("e",
		ev("GET e", "expired e", "keymiss e"),
		ev("SET e 2", "expired e", "new e", "set e"),
		ev("SET e 2 XX", "expired e"),
		ev("SET e 2 GET", "expired e", "keymiss e", "new e", "set e"),
		ev("MSET e 2", "expired e", "new e", "set e"),
		ev("SETNX e 1", "expired e", "new e", "set e"),
		ev("INCR e", "expired e", "new e", "incrby e"),
		ev("APPEND e x", "expired e", "new e", "append e"),
		ev("SETRANGE e 0 x", "expired e", "new e", "setrange e"),
		ev("SETBIT e 0 1", "expired e", "new e", "setbit e"),
		ev("GETEX e", "expired e", "keymiss e"),
		ev("GETDEL e", "expired e", "keymiss e"),
		ev("DEL e", "expired e"),
		ev("UNLINK e", "expired e"),
		ev("EXISTS e", "expired e", "keymiss e"),
		ev("TYPE e", "expired e", "keymiss e"),
		ev("TTL e", "expired e", "keymiss e"),
		ev("OBJECT ENCODING e", "expired e"),
		ev("TOUCH e", "expired e", "keymiss e"),
		ev("DUMP e", "expired e", "keymiss e"),
		ev("MGET e e", "expired e", "keymiss e", "keymiss e"),
		ev("EXPIRE e 100", "expired e"),
		ev("PERSIST e", "expired e"),
		ev("RENAME e x", "expired e"),
		ev("MOVE e 1", "expired e"),
		ev("COPY e x", "expired e", "keymiss e"),
		ev("LPUSH e x", "expired e", "new e", "lpush e"),
		ev("SADD e x", "expired e", "new e", "sadd e"),
		ev("HSET e f v", "expired e", "new e", "hset e"),
		ev("ZADD e 1 x", "expired e", "new e", "zadd e"),
		// An empty result deletes the expired destination unseen, as
		// Valkey's dbDelete: a "del", not an expiry.
		ev("BITOP NOT e s", "keymiss s", "del e"),
		ev("SINTERSTORE e nope", "keymiss nope", "del e"),
		ev("ZUNIONSTORE e 1 nope", "keymiss nope", "del e"),
		ev("SORT nope STORE e", "keymiss nope", "del e"),
		ev("ZRANGESTORE e nope 0 1", "keymiss nope", "del e"),
	)
	h.run([]nstep{
		ev("SET s 1", "new s", "set s"),
		ev("SET d 1 PX 1", "new d", "set d", "expire d"),
		ev("ADVANCE 5"),
		ev("BITOP NOT d s", "expired d", "new d", "set d"),
		ev("SET d 1 PX 1", "set d", "expire d"),
		ev("SET x 1 PX 1", "new x", "set x", "expire x"),
		ev("ADVANCE 5"),
		ev("COPY s d", "expired d", "new d", "copy_to d"),
		ev("RENAME s x", "expired x", "new x", "rename_from s", "rename_to x"),
	})
}

func TestNotifyLists(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("LPUSH l a b c", "new l", "lpush l"),
		ev("RPUSH l d", "rpush l"),
		ev("LPUSHX l e", "lpush l"),
		ev("RPUSHX l f", "rpush l"),
		ev("LPUSHX nl e"),
		ev("RPUSHX nl e"),
		ev("LPOP l", "lpop l"),
		ev("RPOP l", "rpop l"),
		ev("LPOP l 2", "lpop l"),
		ev("RPOP l 0"),
		ev("LPOP nl"),
		ev("LPOP nl 2"),
		ev("LSET l 0 z", "lset l"),
		ev("LSET l 99 z"),
		ev("LINSERT l BEFORE z y", "linsert l"),
		ev("LINSERT l AFTER nope y"),
		ev("LINSERT nl AFTER nope y"),
		ev("LREM l 0 nope"),
		ev("LREM l 1 y", "lrem l"),
		ev("LTRIM l 0 -1", "ltrim l"),
		ev("LTRIM l 0 0", "ltrim l"),
		ev("LTRIM l 1 0", "ltrim l", "del l"),
		ev("LTRIM nl 0 1"),
		ev("RPUSH l a b", "new l", "rpush l"),
		ev("LREM l 0 a", "lrem l"),
		ev("LREM l 0 b", "lrem l", "del l"),
		ev("RPUSH src a b", "new src", "rpush src"),
		ev("LMOVE src dst LEFT RIGHT", "new dst", "rpush dst", "lpop src"),
		ev("LMOVE src dst RIGHT LEFT", "lpush dst", "rpop src", "del src"),
		ev("RPUSH r1 x", "new r1", "rpush r1"),
		ev("LMOVE r1 r1 LEFT RIGHT", "rpush r1", "lpop r1"),
		ev("RPOPLPUSH r1 r1", "lpush r1", "rpop r1"),
		ev("RPOPLPUSH r1 r2", "new r2", "lpush r2", "rpop r1", "del r1"),
		ev("RPOPLPUSH nope r2"),
		ev("RPUSH m a b c", "new m", "rpush m"),
		ev("LMPOP 2 nope m LEFT COUNT 2", "lpop m"),
		ev("LMPOP 2 nope m RIGHT COUNT 2", "rpop m", "del m"),
		ev("LMPOP 1 nope LEFT"),
		ev("RPUSH bl a", "new bl", "rpush bl"),
		ev("BLPOP nope bl 0", "lpop bl", "del bl"),
		ev("RPUSH bl a b", "new bl", "rpush bl"),
		ev("BLMOVE bl bld LEFT LEFT 0", "new bld", "lpush bld", "lpop bl"),
		ev("BLMOVE bl bld RIGHT RIGHT 0", "rpush bld", "rpop bl", "del bl"),
		ev("RPUSH bm a b c", "new bm", "rpush bm"),
		ev("BLMPOP 0 1 bm LEFT COUNT 5", "lpop bm", "del bm"),
		ev("LPUSH ws x", "new ws", "lpush ws"),
		ev("SET str x", "new str", "set str"),
		ev("LMOVE ws str LEFT LEFT"),
		ev("LLEN nl", "keymiss nl"),
		ev("LRANGE nl 0 1", "keymiss nl"),
		ev("LINDEX nl 0", "keymiss nl"),
		ev("LPOS nl a", "keymiss nl"),
	})
}

func TestNotifyHashes(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("HSET h a 1 b 2", "new h", "hset h"),
		ev("HSET h a 1", "hset h"),
		ev("HMSET h c 3", "hset h"),
		ev("HSETNX h a 9"),
		ev("HSETNX h z 9", "hset h"),
		ev("HSETNX nh z 9", "new nh", "hset nh"),
		ev("HDEL h nope"),
		ev("HDEL h a b", "hdel h"),
		ev("HDEL h c z", "hdel h", "del h"),
		ev("HDEL h x"),
		ev("HINCRBY h2 f 1", "new h2", "hincrby h2"),
		ev("HINCRBY h2 f 1", "hincrby h2"),
		ev("HINCRBYFLOAT h2 g 1.5", "hincrbyfloat h2"),
		ev("HSET h2 s x", "hset h2"),
		ev("HINCRBY h2 s 1"),
		ev("HINCRBYFLOAT h2 s 1"),
		ev("HINCRBYFLOAT h3 s abc"),
		ev("HGET h2 nope"),
		ev("HGET nh2 f", "keymiss nh2"),
		ev("HGETALL nh2", "keymiss nh2"),
		ev("HRANDFIELD nh2", "keymiss nh2"),
		ev("HSCAN nh2 0", "keymiss nh2"),
	})
}

func TestNotifySets(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("SADD s a b", "new s", "sadd s"),
		ev("SADD s a"),
		ev("SREM s nope"),
		ev("SREM s a", "srem s"),
		ev("SREM s b c", "srem s", "del s"),
		ev("SADD s a b c d", "new s", "sadd s"),
		ev("SPOP s", "spop s"),
		ev("SPOP s 0"),
		ev("SPOP s 2", "spop s"),
		ev("SPOP s 5", "spop s", "del s"),
		ev("SPOP ns"),
		ev("SPOP ns 3"),
		ev("SADD s a", "new s", "sadd s"),
		ev("SPOP s", "spop s", "del s"),
		ev("SADD s a b c", "new s", "sadd s"),
		ev("SMOVE s t a", "srem s", "new t", "sadd t"),
		ev("SMOVE s t a"),
		ev("SADD t b", "sadd t"),
		ev("SMOVE s t b", "srem s"),
		ev("SMOVE s s c"),
		ev("SMOVE s t c", "srem s", "del s", "sadd t"),
		ev("SMOVE ns t c"),
		ev("SADD x1 a b", "new x1", "sadd x1"),
		ev("SADD x2 b c", "new x2", "sadd x2"),
		ev("SINTERSTORE d x1 x2", "new d", "sinterstore d"),
		ev("SINTERSTORE d x1 nope", "keymiss nope", "del d"),
		ev("SINTERSTORE d x1 nope", "keymiss nope"),
		ev("SUNIONSTORE d x1 x2", "new d", "sunionstore d"),
		ev("SUNIONSTORE d nope nope2", "keymiss nope", "keymiss nope2", "del d"),
		ev("SDIFFSTORE d x1 x2", "new d", "sdiffstore d"),
		ev("SDIFFSTORE d x1 x1", "del d"),
		ev("SDIFFSTORE d2 x1 x1"),
		ev("SINTERSTORE d x1 x1", "new d", "sinterstore d"),
		ev("SUNIONSTORE x1 x1 x2", "sunionstore x1"),
		ev("SINTER nk nk2", "keymiss nk", "keymiss nk2"),
		ev("SINTERCARD 2 nk nk2", "keymiss nk", "keymiss nk2"),
		ev("SMISMEMBER nk a", "keymiss nk"),
		ev("SRANDMEMBER nk", "keymiss nk"),
		ev("SSCAN nk 0", "keymiss nk"),
	})
}

func TestNotifyZsets(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("ZADD z 1 a 2 b", "new z", "zadd z"),
		ev("ZADD z 1 a"),
		ev("ZADD z 5 a", "zadd z"),
		ev("ZADD z NX 9 a"),
		ev("ZADD z XX 9 nope"),
		ev("ZADD nz XX 9 nope"),
		ev("ZADD z INCR 1 a", "zincr z"),
		ev("ZADD z GT 1 a"),
		ev("ZADD z GT INCR 1 a", "zincr z"),
		ev("ZINCRBY z 1 a", "zincr z"),
		ev("ZINCRBY z2 1 a", "new z2", "zincr z2"),
		ev("ZINCRBY z2 nan a"),
		ev("ZADD z3 NX 1 a", "new z3", "zadd z3"),
		ev("ZREM z nope"),
		ev("ZREM z a", "zrem z"),
		ev("ZREM z b c", "zrem z", "del z"),
		ev("ZADD z 1 a 2 b 3 c 4 d 5 e", "new z", "zadd z"),
		ev("ZREMRANGEBYSCORE z 10 20"),
		ev("ZREMRANGEBYSCORE z 1 1", "zremrangebyscore z"),
		ev("ZREMRANGEBYRANK z 0 0", "zremrangebyrank z"),
		ev("ZREMRANGEBYLEX z - +", "zremrangebylex z", "del z"),
		ev("ZREMRANGEBYRANK nz 0 1"),
		ev("ZADD z 1 a 2 b 3 c 4 d 5 e", "new z", "zadd z"),
		ev("ZPOPMIN z", "zpopmin z"),
		ev("ZPOPMAX z", "zpopmax z"),
		ev("ZPOPMIN z 0"),
		ev("ZPOPMIN z 2", "zpopmin z"),
		ev("ZPOPMAX z 5", "zpopmax z", "del z"),
		ev("ZPOPMIN nz"),
		ev("ZADD z 1 a 2 b", "new z", "zadd z"),
		ev("BZPOPMIN nz z 0", "zpopmin z"),
		ev("BZPOPMAX z 0", "zpopmax z", "del z"),
		ev("ZADD z 1 a 2 b 3 c", "new z", "zadd z"),
		ev("ZMPOP 2 nz z MIN COUNT 2", "zpopmin z"),
		ev("ZMPOP 1 z MAX COUNT 2", "zpopmax z", "del z"),
		ev("ZMPOP 1 z MAX"),
		ev("ZADD z 1 a 2 b 3 c", "new z", "zadd z"),
		ev("BZMPOP 0 1 z MAX COUNT 5", "zpopmax z", "del z"),
		ev("ZADD z1 1 a 2 b", "new z1", "zadd z1"),
		ev("ZADD z2 2 b 3 c", "zadd z2"),
		ev("ZINTERSTORE d 2 z1 z2", "new d", "zinterstore d"),
		ev("ZINTERSTORE d 2 z1 nope", "keymiss nope", "del d"),
		ev("ZINTERSTORE d 2 z1 nope", "keymiss nope"),
		ev("ZUNIONSTORE d 2 z1 z2", "new d", "zunionstore d"),
		ev("ZUNIONSTORE d 2 nope nope2", "keymiss nope", "keymiss nope2", "del d"),
		ev("ZDIFFSTORE d 2 z2 z1", "new d", "zdiffstore d"),
		ev("ZDIFFSTORE d 2 z1 z1", "del d"),
		ev("ZRANGESTORE d z1 0 -1", "new d", "zrangestore d"),
		ev("ZRANGESTORE d z1 5 10", "del d"),
		ev("ZRANGESTORE d z1 5 10"),
		ev("ZRANGESTORE d nope 0 1", "keymiss nope"),
		ev("ZUNIONSTORE z1 2 z1 z2", "zunionstore z1"),
		ev("ZINTER 2 z1 nope", "keymiss nope"),
		ev("ZSCORE nope a", "keymiss nope"),
		ev("ZRANGEBYLEX nope - +", "keymiss nope"),
		ev("ZLEXCOUNT nope - +", "keymiss nope"),
		ev("ZREVRANK nope a", "keymiss nope"),
		ev("ZRANDMEMBER nope", "keymiss nope"),
		ev("ZSCAN nope 0", "keymiss nope"),
	})
}

func TestNotifySort(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("RPUSH l 3 1 2", "new l", "rpush l"),
		ev("SORT l STORE d", "new d", "sortstore d"),
		ev("SORT l STORE d", "sortstore d"),
		ev("SORT nope STORE d", "keymiss nope", "del d"),
		ev("SORT nope STORE d", "keymiss nope"),
		ev("SET w_1 1", "new w_1", "set w_1"),
		ev("SORT l BY w_* GET o_* STORE d", "keymiss w_3", "keymiss w_2",
			"keymiss o_2", "keymiss o_3", "keymiss o_1", "new d", "sortstore d"),
		ev("SORT l BY w_*", "keymiss w_3", "keymiss w_2"),
		ev("SORT l GET # GET o_*", "keymiss o_1", "keymiss o_2", "keymiss o_3"),
		ev("SORT l BY nosort STORE d2", "new d2", "sortstore d2"),
		ev("HSET hh f 1", "new hh", "hset hh"),
		ev("SORT l BY hh->f GET hh->g"),
		ev("SORT_RO l BY w_*", "keymiss w_3", "keymiss w_2"),
		ev("SORT l LIMIT 5 10 STORE d2", "del d2"),
	})
}

// TestNotifyBlockedServed: a client blocked on a key is served right
// after the push that wakes it, and its pop is announced after the push.
func TestNotifyBlockedServed(t *testing.T) {
	h := newLHHarness(t)
	for _, g := range [][]Handler{SetCommands, ZSetCommands} {
		for _, hd := range g {
			h.cmd[hd.Spec.FullName] = hd
		}
	}
	rec := &eventRecorder{t: t}
	h.ks.SetObserver(rec)
	h.ks.SetNotifyFlags(notifyAll)
	a, b := h.client(), h.client()
	cases := []struct {
		block, push []string
		want        []string
	}{
		{[]string{"BLPOP", "l", "0"}, []string{"RPUSH", "l", "x"},
			[]string{"new l", "rpush l", "lpop l", "del l"}},
		{[]string{"BLMOVE", "l", "d", "LEFT", "RIGHT", "0"}, []string{"LPUSH", "l", "x", "y"},
			[]string{"new l", "lpush l", "new d", "rpush d", "lpop l"}},
		{[]string{"BZPOPMAX", "z", "0"}, []string{"ZADD", "z", "1", "a"},
			[]string{"new z", "zadd z", "zpopmax z", "del z"}},
		{[]string{"BLMPOP", "0", "1", "m", "RIGHT", "COUNT", "3"}, []string{"RPUSH", "m", "a", "b"},
			[]string{"new m", "rpush m", "rpop m", "del m"}},
	}
	for _, tc := range cases {
		ch := h.goDo(a, tc.block...)
		h.waitBlocked(a)
		if got := rec.take(); len(got) != 0 {
			t.Errorf("%v: blocking emitted %q", tc.block, got)
		}
		h.do(b, tc.push...)
		h.recv(ch)
		if got := rec.take(); !slices.Equal(got, tc.want) {
			t.Errorf("%v then %v:\n got: %q\nwant: %q", tc.block, tc.push, got, tc.want)
		}
	}
}

// TestNotifyExec: a transaction's events come in the order its commands
// ran.
func TestNotifyExec(t *testing.T) {
	h := newLHHarness(t)
	rec := &eventRecorder{t: t}
	h.ks.SetObserver(rec)
	h.ks.SetNotifyFlags(notifyAll)
	cl := h.client()
	h.exec(cl, []string{"SET", "x", "1"}, []string{"INCR", "x"}, []string{"LPUSH", "x", "y"},
		[]string{"GET", "nokey"}, []string{"DEL", "x"})
	want := []string{"new x", "set x", "incrby x", "keymiss nokey", "del x"}
	if got := rec.take(); !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestNotifyFlags: only the enabled classes reach the observer, and none
// without a K or E channel.
func TestNotifyFlags(t *testing.T) {
	script := []string{"SET a 1", "GET nokey", "LPUSH l x", "EXPIRE a 100", "DEL a l"}
	cases := []struct {
		flags int
		want  []string
	}{
		{notifyAll, []string{"new a", "set a", "keymiss nokey", "new l", "lpush l", "expire a", "del a", "del l"}},
		{NotifyKeyspace | NotifyGeneric, []string{"expire a", "del a", "del l"}},
		{NotifyKeyevent | NotifyString | NotifyList, []string{"set a", "lpush l"}},
		{NotifyKeyspace | NotifyNew | NotifyKeyMiss, []string{"new a", "keymiss nokey", "new l"}},
		// KEA: every class but n and m.
		{notifyAll &^ (NotifyNew | NotifyKeyMiss), []string{"set a", "lpush l", "expire a", "del a", "del l"}},
		{notifyAll &^ (NotifyKeyspace | NotifyKeyevent), nil},
		{0, nil},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%#x", tc.flags), func(t *testing.T) {
			h := newNotifyHarness(t)
			h.ks.SetNotifyFlags(tc.flags)
			for _, line := range script {
				h.do(line)
			}
			if got := h.rec.take(); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

// TestNotifyActiveExpiryAndEviction: the deletions nobody asked for.
func TestNotifyActiveExpiryAndEviction(t *testing.T) {
	h := newNotifyHarness(t)
	// The keys expire at testNow+1, long past for active expiry's clock.
	h.run([]nstep{
		ev("SET a 1 PX 1", "new a", "set a", "expire a"),
		ev("SET b 1 PX 1", "new b", "set b", "expire b"),
		ev("SET c 1", "new c", "set c"),
	})
	h.ks.ActiveExpire(time.Second, 10, &expireCycle{})
	got := h.rec.take()
	slices.Sort(got)
	if want := []string{"expired a", "expired b"}; !slices.Equal(got, want) {
		t.Errorf("active expiry: got %q, want %q", got, want)
	}

	const n = 200
	v := strings.Repeat("v", 100)
	for i := range n {
		h.do("SET k" + strconv.Itoa(i) + " " + v)
	}
	h.rec.take()
	setPolicy(t, h.ks, "allkeys-lru")
	h.ks.SetMaxMemory(h.ks.DatasetBytes(false) / 2)
	h.ks.SetEvictionTuning(5, 100)
	h.ks.PerformEvictions()
	evicted := h.rec.take()
	if len(evicted) == 0 {
		t.Fatal("nothing evicted")
	}
	for _, e := range evicted {
		key, ok := strings.CutPrefix(e, "evicted ")
		if !ok || h.do("EXISTS "+key) != rInt(0) {
			t.Errorf("event %q: not the eviction of a key now gone", e)
		}
	}
	h.rec.take()
	alive := 0
	for i := range n {
		if h.do("EXISTS k"+strconv.Itoa(i)) == rInt(1) {
			alive++
		}
	}
	if h.do("EXISTS c") == rInt(1) {
		alive++
	}
	if alive+len(evicted) != n+1 {
		t.Errorf("%d keys left and %d evicted of %d", alive, len(evicted), n+1)
	}
}

// TestNotifyScanRandomKey: SCAN deletes the expired keys it would have
// returned (those its MATCH and TYPE let through), RANDOMKEY the expired
// key it picks; KEYS deletes nothing.
func TestNotifyScanRandomKey(t *testing.T) {
	h := newNotifyHarness(t)
	h.run([]nstep{
		ev("SELECT 4"),
		ev("SET e 1 PX 1", "new e@4", "set e@4", "expire e@4"),
		ev("ADVANCE 5"),
		ev("RANDOMKEY", "expired e@4"),
		ev("SET e 1 PX 1", "new e@4", "set e@4", "expire e@4"),
		ev("SET f 1", "new f@4", "set f@4"),
		ev("ADVANCE 5"),
		ev("KEYS *"),
		ev("SCAN 0 MATCH nomatch"),
		ev("SCAN 0 TYPE list"),
		ev("SCAN 0 COUNT 100", "expired e@4"),
		ev("SCAN 0 COUNT 100"),
	})
}
