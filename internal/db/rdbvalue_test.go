package db

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// rdbCase is one key built by commands, with the encoding Valkey gives it
// after a load (and before, if src is empty).
type rdbCase struct {
	key  string
	cmds [][]string
	enc  string
	src  string
}

func repeatArgs(prefix []string, n int, member func(i int) []string) []string {
	out := slices.Clone(prefix)
	for i := range n {
		out = append(out, member(i)...)
	}
	return out
}

// rdbCases covers every type in every encoding the keyspace uses, small
// and large.
func rdbCases() []rdbCase {
	long := strings.Repeat("x", 100)
	huge := strings.Repeat("y", 20000)
	num := func(i int) []string { return []string{strconv.Itoa(i*7 - 300)} }
	str := func(i int) []string { return []string{"m" + strconv.Itoa(i)} }
	return []rdbCase{
		{"s:int", [][]string{{"SET", "s:int", "-12345"}}, "int", ""},
		{"s:embstr", [][]string{{"SET", "s:embstr", "hello"}}, "embstr", ""},
		{"s:raw", [][]string{{"SET", "s:raw", long}}, "raw", ""},
		{"s:huge", [][]string{{"SET", "s:huge", huge}}, "raw", ""},
		{"s:bin", [][]string{{"SET", "s:bin", "a\x00b\xffc"}}, "embstr", ""},
		{"s:appended", [][]string{{"SET", "s:appended", "12"}, {"APPEND", "s:appended", "3"}}, "int", "raw"},
		{"l:small", [][]string{{"RPUSH", "l:small", "a", "1", "-7", "c"}}, "listpack", ""},
		{"l:big", [][]string{repeatArgs([]string{"RPUSH", "l:big"}, 2000, str)}, "quicklist", ""},
		{"l:plain", [][]string{{"RPUSH", "l:plain", "a", huge, "b"}}, "quicklist", ""},
		{"set:int", [][]string{repeatArgs([]string{"SADD", "set:int"}, 50, num)}, "intset", ""},
		{"set:lp", [][]string{{"SADD", "set:lp", "a", "b", "3", "c"}}, "listpack", ""},
		{"set:intbig", [][]string{repeatArgs([]string{"SADD", "set:intbig"}, 600, num)}, "hashtable", ""},
		{"set:strbig", [][]string{repeatArgs([]string{"SADD", "set:strbig"}, 200, str)}, "hashtable", ""},
		{"set:long", [][]string{{"SADD", "set:long", "a", long}}, "hashtable", ""},
		{"z:small", [][]string{{"ZADD", "z:small", "1", "a", "-2.5", "b", "1", "0", "inf", "c", "-0", "d"}}, "listpack", ""},
		{"z:big", [][]string{repeatArgs([]string{"ZADD", "z:big"}, 300, func(i int) []string {
			return []string{strconv.FormatFloat(float64(i%17)/3, 'g', -1, 64), "m" + strconv.Itoa(i)}
		})}, "skiplist", ""},
		{"z:long", [][]string{{"ZADD", "z:long", "1", long, "2", "b"}}, "skiplist", ""},
		{"h:small", [][]string{{"HSET", "h:small", "f1", "v1", "f2", "12", "f3", ""}}, "listpack", ""},
		{"h:big", [][]string{repeatArgs([]string{"HSET", "h:big"}, 600, func(i int) []string {
			return []string{"f" + strconv.Itoa(i), strconv.Itoa(i)}
		})}, "hashtable", ""},
		{"h:long", [][]string{{"HSET", "h:long", "f", long}}, "hashtable", ""},
	}
}

// canonical renders an exported entry independently of encoding order.
func canonical(e *rdb.Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s exp=%d: ", e.Kind, e.Key, e.ExpireMs)
	var parts []string
	switch e.Kind {
	case rdb.KindString:
		parts = []string{string(e.String)}
	case rdb.KindList:
		for _, v := range e.List {
			parts = append(parts, string(v))
		}
	case rdb.KindSet:
		for _, v := range e.Set {
			parts = append(parts, string(v))
		}
		slices.Sort(parts)
	case rdb.KindZSet:
		for _, m := range e.ZSet {
			parts = append(parts, fmt.Sprintf("%s=%v", m.Member, m.Score))
		}
	case rdb.KindHash:
		for _, f := range e.Hash {
			parts = append(parts, string(f.Field)+"="+string(f.Value))
		}
		slices.Sort(parts)
	}
	b.WriteString(strings.Join(parts, ","))
	return b.String()
}

// exportKey exports key of db under its stripe and renders it.
func exportKey(t *testing.T, ks *Keyspace, db int, key string) (string, *Object) {
	t.Helper()
	s := ks.StripeOf([]byte(key))
	ks.LockStripe(s)
	defer ks.UnlockStripe(s)
	sh := ks.stripes[s].shards[db]
	if sh == nil {
		return "", nil
	}
	o := sh.keys.Find([]byte(key))
	if o == nil {
		return "", nil
	}
	var e rdb.Entry
	ks.ExportEntry(db, []byte(key), o, &e)
	return canonical(&e), o
}

// saveAll writes every key of every database with ForEachInShard and
// ExportEntry, one stripe at a time, as a snapshot does.
func saveAll(t *testing.T, ks *Keyspace) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := rdb.NewWriter(&buf, ks.RDBOptions())
	var e rdb.Entry
	for db := range ks.Databases() {
		for s := range StripeCount {
			ks.LockStripe(s)
			err := ks.ForEachInShard(db, s, func(key []byte, o *Object) error {
				ks.ExportEntry(db, key, o, &e)
				return w.WriteEntry(&e)
			})
			ks.UnlockStripe(s)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func loadAll(t *testing.T, ks *Keyspace, file []byte, nowMs int64) (loaded, skipped int) {
	t.Helper()
	l := rdb.Loader{OnEntry: func(e *rdb.Entry) error {
		ok, err := ks.LoadEntry(e, nowMs)
		if ok {
			loaded++
		} else {
			skipped++
		}
		return err
	}}
	if _, err := l.Load(bytes.NewReader(file)); err != nil {
		t.Fatal(err)
	}
	return loaded, skipped
}

// TestRDBRoundTrip: keys of every type and encoding, with and without
// TTLs, in two databases, under no, LRU and LFU policies, saved through
// ExportEntry and rdb.Writer and loaded through rdb.Loader and LoadEntry
// into a fresh keyspace, come back with equal values, expiry times,
// OBJECT ENCODING, and idle time or frequency; the memory count of the
// loaded keyspace is exact.
func TestRDBRoundTrip(t *testing.T) {
	for _, pol := range []EvictionPolicy{PolicyNoEviction, PolicyAllkeysLRU, PolicyVolatileLFU} {
		t.Run(pol.String(), func(t *testing.T) {
			h := newMemHarness(t)
			h.advance(time.Now().UnixMilli() - h.now) // wall clock: idle times read it
			h.ks.SetEvictionPolicy(pol)
			cases := rdbCases()
			for db := range 2 {
				h.do("SELECT", strconv.Itoa(db))
				for i, c := range cases {
					for _, cmd := range c.cmds {
						h.do(cmd...)
					}
					if i%3 == db {
						h.do("PEXPIRE", c.key, strconv.Itoa(100000+i))
					}
				}
			}
			// Some access history for the hints.
			for range 20 {
				h.do("GET", "s:int")
			}
			file := saveAll(t, h.ks)

			h2 := newMemHarness(t)
			h2.ks.SetEvictionPolicy(pol)
			n, skipped := loadAll(t, h2.ks, file, time.Now().UnixMilli())
			if n != 2*len(cases) || skipped != 0 {
				t.Fatalf("loaded %d, skipped %d of %d", n, skipped, 2*len(cases))
			}
			h2.checkMem("load")
			for db := range 2 {
				for _, c := range cases {
					want, o1 := exportKey(t, h.ks, db, c.key)
					got, o2 := exportKey(t, h2.ks, db, c.key)
					if o2 == nil {
						t.Fatalf("db %d %s not loaded", db, c.key)
					}
					if want != got {
						t.Errorf("db %d %s:\n got %.200s\nwant %.200s", db, c.key, got, want)
					}
					src := cmp.Or(c.src, c.enc)
					if e1, e2 := ObjectEncoding(o1), ObjectEncoding(o2); e1 != src || e2 != c.enc {
						t.Errorf("db %d %s: encoding %s, loaded %s, want %s, %s", db, c.key, e1, e2, src, c.enc)
					}
					switch {
					case pol.lru():
						if d := IdleSeconds(o1.LRU) - IdleSeconds(o2.LRU); d < -1 || d > 1 {
							t.Errorf("%s: idle %d, loaded %d", c.key, IdleSeconds(o1.LRU), IdleSeconds(o2.LRU))
						}
					case pol.lfu():
						if f1, f2 := h.ks.LFUDecr(o1.LRU), h2.ks.LFUDecr(o2.LRU); f1 != f2 {
							t.Errorf("%s: freq %d, loaded %d", c.key, f1, f2)
						}
					}
				}
			}
		})
	}
}

// TestLoadEntryExpiredAndDuplicate: a key whose expiry passed is not
// loaded (nowMs <= 0 keeps it), and a key loaded twice is an error.
func TestLoadEntryExpiredAndDuplicate(t *testing.T) {
	ks := New(16)
	now := int64(1_700_000_000_000)
	e := rdb.NewEntry(3, []byte("k"), rdb.KindString)
	e.String = []byte("v")
	e.ExpireMs = now - 1
	if ok, err := ks.LoadEntry(e, now); ok || err != nil {
		t.Fatalf("expired key: loaded %v, %v", ok, err)
	}
	if ok, err := ks.LoadEntry(e, 0); !ok || err != nil {
		t.Fatalf("expired key with nowMs 0: loaded %v, %v", ok, err)
	}
	e.ExpireMs = now + 1000
	if _, err := ks.LoadEntry(e, now); !errors.Is(err, ErrDuplicateKey) {
		t.Fatalf("duplicate: %v", err)
	}
	if ks.DBSize(3, false) != 1 || ks.DBSize(0, false) != 0 {
		t.Fatal("keys in the wrong database")
	}
	e.DB = 16
	if _, err := ks.LoadEntry(e, now); err == nil {
		t.Fatal("database out of range accepted")
	}
	keys, expires := ks.ShardLen(3, ks.StripeOf([]byte("k")))
	if keys != 1 || expires != 1 {
		t.Fatalf("ShardLen %d %d", keys, expires)
	}
}

// TestLoadEncodings: the encoding chosen on load follows the settings as
// Valkey's loader does, whatever the writer's limits were.
func TestLoadEncodings(t *testing.T) {
	ints := func(n int) [][]byte {
		var out [][]byte
		for i := range n {
			out = append(out, []byte(strconv.Itoa(i)))
		}
		return out
	}
	strs := func(n int) [][]byte {
		var out [][]byte
		for i := range n {
			out = append(out, []byte("s"+strconv.Itoa(i)))
		}
		return out
	}
	cases := []struct {
		name string
		set  func(*Settings)
		e    *rdb.Entry
		enc  string
	}{
		{"ints", nil, &rdb.Entry{Kind: rdb.KindSet, Set: ints(512)}, "intset"},
		{"ints over intset max", nil, &rdb.Entry{Kind: rdb.KindSet, Set: ints(513)}, "hashtable"},
		{"ints then a string", nil, &rdb.Entry{Kind: rdb.KindSet, Set: append(ints(100), []byte("x"))}, "listpack"},
		{"strings at listpack max", nil, &rdb.Entry{Kind: rdb.KindSet, Set: strs(128)}, "listpack"},
		{"strings over listpack max", nil, &rdb.Entry{Kind: rdb.KindSet, Set: strs(129)}, "hashtable"},
		// Valkey's loader goes to a hashtable at once when there are more
		// members than set-max-intset-entries, though SADD would have
		// made a listpack.
		{"small intset max", func(s *Settings) { s.SetMaxIntsetEntries = 4 }, &rdb.Entry{Kind: rdb.KindSet, Set: strs(5)}, "hashtable"},
		{"hash at max", func(s *Settings) { s.HashMaxListpackEntries = 2 }, &rdb.Entry{Kind: rdb.KindHash,
			Hash: []rdb.HashField{{Field: []byte("a"), Value: []byte("1")}, {Field: []byte("b"), Value: []byte("2")}}}, "listpack"},
		{"hash over max", func(s *Settings) { s.HashMaxListpackEntries = 1 }, &rdb.Entry{Kind: rdb.KindHash,
			Hash: []rdb.HashField{{Field: []byte("a"), Value: []byte("1")}, {Field: []byte("b"), Value: []byte("2")}}}, "hashtable"},
		{"zset value over max", func(s *Settings) { s.ZSetMaxListpackValue = 2 }, &rdb.Entry{Kind: rdb.KindZSet,
			ZSet: []rdb.ZMember{{Member: []byte("abc"), Score: 1}}}, "skiplist"},
		{"zset unsorted", nil, &rdb.Entry{Kind: rdb.KindZSet,
			ZSet: []rdb.ZMember{{Member: []byte("b"), Score: 2}, {Member: []byte("c"), Score: 1}, {Member: []byte("a"), Score: 2}}}, "listpack"},
		{"list fill 2", func(s *Settings) { s.ListMaxListpackSize = 2 }, &rdb.Entry{Kind: rdb.KindList, List: strs(3)}, "quicklist"},
		{"list fill 3", func(s *Settings) { s.ListMaxListpackSize = 3 }, &rdb.Entry{Kind: rdb.KindList, List: strs(3)}, "listpack"},
	}
	for _, c := range cases {
		ks := New(1)
		st := DefaultSettings()
		if c.set != nil {
			c.set(&st)
		}
		ks.Configure(st)
		c.e.Key, c.e.ExpireMs, c.e.Idle, c.e.Freq = []byte("k"), -1, -1, -1
		if ok, err := ks.LoadEntry(c.e, 1); !ok || err != nil {
			t.Fatalf("%s: %v %v", c.name, ok, err)
		}
		s := ks.StripeOf([]byte("k"))
		o := ks.stripes[s].shards[0].keys.Find([]byte("k"))
		if got := ObjectEncoding(o); got != c.enc {
			t.Errorf("%s: encoding %s, want %s", c.name, got, c.enc)
		}
		if c.name == "zset unsorted" {
			var e rdb.Entry
			ks.ExportEntry(0, []byte("k"), o, &e)
			if got := canonical(&e); got != "zset k exp=-1: c=1,a=2,b=2" {
				t.Errorf("zset order: %s", got)
			}
		}
	}
}

// TestLoadClock: objectSetLRUOrLFU: an idle time under a non-LFU policy,
// a frequency under an LFU one, the other ignored.
func TestLoadClock(t *testing.T) {
	ks := New(1)
	now := time.Now().UnixMilli()
	if got := IdleSeconds(ks.loadClock(100, 7, now)); got < 100 || got > 101 {
		t.Errorf("idle 100: OBJECT IDLETIME %d", got)
	}
	if got := ks.loadClock(-1, 7, now); got != lruClockAt(now) {
		t.Errorf("no idle: clock %d, want now", got)
	}
	// An idle time longer than the clock's period wraps as in Valkey.
	if got := ks.loadClock(math.MaxInt64/1000, -1, now); got > lruClockMax {
		t.Errorf("huge idle: clock %d", got)
	}
	ks.SetEvictionPolicy(PolicyAllkeysLFU)
	if got := ks.loadClock(100, 7, now) & 0xff; got != 7 {
		t.Errorf("freq 7: counter %d", got)
	}
	if got := ks.loadClock(100, -1, now) & 0xff; got != lfuInitVal {
		t.Errorf("no freq: counter %d", got)
	}
}

// TestForEachInShard: every key of the stripe once, an error from fn
// stops the walk, and (with -tags invariants) an unlocked stripe panics.
func TestForEachInShard(t *testing.T) {
	ks := New(2)
	for i := range 2000 {
		e := rdb.NewEntry(1, []byte("k"+strconv.Itoa(i)), rdb.KindString)
		e.String = []byte("v")
		if _, err := ks.LoadEntry(e, 1); err != nil {
			t.Fatal(err)
		}
	}
	seen := 0
	for s := range StripeCount {
		ks.LockStripe(s)
		n, _ := ks.ShardLen(1, s)
		got := 0
		if err := ks.ForEachInShard(1, s, func(key []byte, o *Object) error {
			if ks.StripeOf(key) != s || string(o.Str()) != "v" {
				t.Fatalf("key %q in stripe %d", key, s)
			}
			got++
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		if got != n {
			t.Fatalf("stripe %d: walked %d of %d keys", s, got, n)
		}
		seen += got
		ks.UnlockStripe(s)
	}
	if seen != 2000 {
		t.Fatalf("walked %d keys", seen)
	}
	stop := errors.New("stop")
	s := ks.StripeOf([]byte("k1"))
	ks.LockStripe(s)
	calls := 0
	err := ks.ForEachInShard(1, s, func([]byte, *Object) error { calls++; return stop })
	ks.UnlockStripe(s)
	if err != stop || calls != 1 {
		t.Fatalf("error %v after %d calls", err, calls)
	}
	if !Invariants {
		return
	}
	defer func() {
		if recover() == nil {
			t.Fatal("ForEachInShard without the stripe's lock did not panic")
		}
	}()
	ks.ForEachInShard(1, s, func([]byte, *Object) error { return nil })
}
