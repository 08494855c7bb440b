package db

import (
	"fmt"
	"github.com/corvid-kv/corvid/internal/ds"
	"math/rand/v2"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/resp"
)

// memHarness runs any data command with every stripe locked (as EXEC
// does), on a keyspace whose clock the test controls.
type memHarness struct {
	t   testing.TB
	ks  *Keyspace
	c   *Ctx
	cmd map[string]Handler
	now int64
}

func newMemHarness(t testing.TB) *memHarness {
	t.Helper()
	ks := New(16)
	h := &memHarness{t: t, ks: ks, cmd: make(map[string]Handler), now: testNow}
	h.c = &Ctx{KS: ks, W: resp.NewWriter(256), Now: h.now}
	ks.ev.now = func() int64 { return h.now }
	for _, g := range [][]Handler{KeyCommands, StringCommands, ListCommands, HashCommands, SetCommands, ZSetCommands, SortCommands} {
		for _, hd := range g {
			h.cmd[hd.Spec.FullName] = hd
		}
	}
	return h
}

// advance moves the test clock.
func (h *memHarness) advance(ms int64) {
	h.now += ms
	h.c.Now = h.now
}

func (h *memHarness) do(args ...string) string {
	h.t.Helper()
	argv := make([][]byte, len(args))
	for i, a := range args {
		argv[i] = []byte(a)
	}
	name := strings.ToLower(args[0])
	if name == "select" { // a server command
		h.c.DB, _ = strconv.Atoi(args[1])
		return "+OK\r\n"
	}
	hd, ok := h.cmd[name]
	if !ok && len(args) > 1 {
		hd, ok = h.cmd[name+"|"+strings.ToLower(args[1])]
	}
	if !ok {
		h.t.Fatalf("no handler for %q", args[0])
	}
	c := h.c
	c.Argv, c.Dirty = argv, 0
	c.W.Reset()
	// Pin the first argument as the dispatcher pins a single-key
	// command's key, here for every command: the hash/object memo must
	// stay correct whichever argument it holds.
	c.Unpin()
	if len(argv) > 1 {
		c.PinKey(argv[1])
	}
	h.ks.LockAll()
	c.Locked = true
	hd.Proc(c)
	c.Locked = false
	h.ks.UnlockAll()
	return string(c.W.Bytes())
}

// checkMem recomputes every stripe's memory from scratch and reports the
// first stripe whose incremental count disagrees. Dict structure is
// settled first (a read's rehash step may have finished a resize since the
// last write), so what is checked is that every value change was
// accounted.
func (ks *Keyspace) checkMem() (stripe int, counted, actual int64, ok bool) {
	for i := range ks.stripes {
		st := &ks.stripes[i]
		st.mu.Lock()
		var sum int64
		for db, sh := range st.shards {
			if sh == nil {
				continue
			}
			ks.settle(db, sh)
			sum += int64(sh.keys.MemUsage() + sh.expires.MemUsage())
			sh.keys.Range(func(_ string, o *Object) bool {
				sum += encodeMem(valueMem(o)).bytes()
				return true
			})
		}
		m := st.mem
		st.mu.Unlock()
		if m != sum {
			return i, m, sum, false
		}
	}
	return 0, 0, 0, true
}

func (h *memHarness) checkMem(what string) {
	h.t.Helper()
	if s, counted, actual, ok := h.ks.checkMem(); !ok {
		h.t.Fatalf("after %s: stripe %d counts %d bytes, holds %d", what, s, counted, actual)
	}
	if err := h.ks.checkTTLs(); err != nil {
		h.t.Fatalf("after %s: %v", what, err)
	}
}

// checkTTLs checks that an object's TTL bit says whether its key is in the
// shard's expires dict, and that the dict holds no other key.
func (ks *Keyspace) checkTTLs() error {
	for i := range ks.stripes {
		st := &ks.stripes[i]
		st.mu.Lock()
		var err error
		for db, sh := range st.shards {
			if sh == nil || err != nil {
				continue
			}
			withTTL := 0
			sh.keys.Range(func(k string, o *Object) bool {
				in := sh.expires.PeekHashedString(ds.HashString(k), k) != nil
				if in != o.HasTTL() {
					err = fmt.Errorf("db %d key %q: HasTTL %v, in expires %v", db, k, o.HasTTL(), in)
					return false
				}
				if in {
					withTTL++
				}
				return true
			})
			if err == nil && withTTL != sh.expires.Len() {
				err = fmt.Errorf("db %d stripe %d: %d keys with a TTL, %d in expires", db, i, withTTL, sh.expires.Len())
			}
		}
		st.mu.Unlock()
		if err != nil {
			return err
		}
	}
	return nil
}

func TestMemCodeRoundTrip(t *testing.T) {
	for _, n := range []int64{0, 1, 100, 2047, 2048, 2049, 4095, 4096, 1 << 20, 1<<20 + 1, 123456789, 1 << 40} {
		c := encodeMem(n)
		got := c.bytes()
		if got < n || float64(got-n) > float64(n)/1024+1 {
			t.Errorf("encode(%d) decodes to %d", n, got)
		}
		if encodeMem(got) != c {
			t.Errorf("encode(%d) is not stable", n)
		}
	}
}

// TestMemAccountingRandomOps runs random writes of every type (encoding
// conversions, renames, moves, copies, TTLs, flushes included) and checks
// after each that the incremental count equals a recount from scratch.
func TestMemAccountingRandomOps(t *testing.T) {
	h := newMemHarness(t)
	r := rand.New(rand.NewPCG(7, 11))
	key := func() string { return "k" + strconv.Itoa(r.IntN(40)) }
	val := func() string {
		if r.IntN(20) == 0 {
			return strings.Repeat("v", 100+r.IntN(3000)) // forces hashtable/skiplist/plain nodes
		}
		return strconv.Itoa(r.IntN(1000))
	}
	ops := []func() []string{
		func() []string { return []string{"SET", key(), val()} },
		func() []string { return []string{"APPEND", key(), val()} },
		func() []string { return []string{"SETRANGE", key(), strconv.Itoa(r.IntN(50)), val()} },
		func() []string { return []string{"INCR", key()} },
		func() []string { return []string{"SETBIT", key(), strconv.Itoa(r.IntN(5000)), "1"} },
		func() []string { return []string{"DEL", key()} },
		func() []string { return []string{"EXPIRE", key(), "100"} },
		func() []string { return []string{"PERSIST", key()} },
		func() []string { return []string{"RENAME", key(), key()} },
		func() []string { return []string{"MOVE", key(), strconv.Itoa(r.IntN(3))} },
		func() []string { return []string{"COPY", key(), key(), "REPLACE"} },
		func() []string { return []string{"SELECT", strconv.Itoa(r.IntN(2))} },
		func() []string { return []string{"LPUSH", key(), val(), val()} },
		func() []string { return []string{"RPUSH", key(), val()} },
		func() []string { return []string{"LPOP", key()} },
		func() []string { return []string{"RPOP", key(), "2"} },
		func() []string { return []string{"LSET", key(), "0", val()} },
		func() []string { return []string{"LTRIM", key(), "1", "-2"} },
		func() []string { return []string{"LINSERT", key(), "BEFORE", val(), val()} },
		func() []string { return []string{"LREM", key(), "0", val()} },
		func() []string { return []string{"LMOVE", key(), key(), "LEFT", "RIGHT"} },
		func() []string { return []string{"HSET", key(), val(), val(), val(), val()} },
		func() []string { return []string{"HDEL", key(), val()} },
		func() []string { return []string{"HINCRBY", key(), "f", "3"} },
		func() []string { return []string{"HINCRBYFLOAT", key(), "g", "1.5"} },
		func() []string { return []string{"SADD", key(), val(), val()} },
		func() []string { return []string{"SREM", key(), val()} },
		func() []string { return []string{"SPOP", key()} },
		func() []string { return []string{"SINTERSTORE", key(), key(), key()} },
		func() []string { return []string{"SUNIONSTORE", key(), key(), key()} },
		func() []string { return []string{"SMOVE", key(), key(), val()} },
		func() []string { return []string{"ZADD", key(), strconv.Itoa(r.IntN(9)), val()} },
		func() []string { return []string{"ZINCRBY", key(), "2", val()} },
		func() []string { return []string{"ZREM", key(), val()} },
		func() []string { return []string{"ZPOPMIN", key()} },
		func() []string { return []string{"ZUNIONSTORE", key(), "2", key(), key()} },
		func() []string { return []string{"ZRANGESTORE", key(), key(), "0", "-1"} },
		func() []string { return []string{"ZREMRANGEBYRANK", key(), "0", "1"} },
		func() []string { return []string{"SORT", key(), "ALPHA", "STORE", key()} },
		func() []string { return []string{"GETDEL", key()} },
		func() []string { return []string{"GETEX", key(), "PX", "50"} },
		func() []string { return []string{"SWAPDB", "0", "1"} },
		// Reads: none may change a value's size unaccounted.
		func() []string { return []string{"SORT", key(), "ALPHA"} },
		func() []string { return []string{"SORT", key(), "BY", "nosort"} },
		func() []string { return []string{"GET", key()} },
		func() []string { return []string{"LRANGE", key(), "0", "-1"} },
		func() []string { return []string{"LPOS", key(), val()} },
		func() []string { return []string{"HGETALL", key()} },
		func() []string { return []string{"HRANDFIELD", key(), "-3", "WITHVALUES"} },
		func() []string { return []string{"SRANDMEMBER", key(), "-3"} },
		func() []string { return []string{"SMEMBERS", key()} },
		func() []string { return []string{"SINTER", key(), key()} },
		func() []string { return []string{"SUNION", key(), key()} },
		func() []string { return []string{"ZRANGE", key(), "0", "-1", "WITHSCORES"} },
		func() []string { return []string{"ZRANDMEMBER", key(), "-2"} },
		func() []string { return []string{"ZUNION", "2", key(), key()} },
		func() []string { return []string{"ZSCAN", key(), "0"} },
		func() []string { return []string{"SSCAN", key(), "0"} },
		func() []string { return []string{"HSCAN", key(), "0"} },
		func() []string { return []string{"GETRANGE", key(), "0", "5"} },
		// Member lookups and no-op removals: none may advance a resize of
		// the value's index unaccounted (ds.oIndex.find moves nothing).
		func() []string { return []string{"SISMEMBER", key(), val()} },
		func() []string { return []string{"SMISMEMBER", key(), val(), val()} },
		func() []string { return []string{"HGET", key(), val()} },
		func() []string { return []string{"HMGET", key(), val(), val()} },
		func() []string { return []string{"HEXISTS", key(), val()} },
		func() []string { return []string{"HSTRLEN", key(), val()} },
		func() []string { return []string{"ZSCORE", key(), val()} },
		func() []string { return []string{"ZMSCORE", key(), val(), val()} },
		func() []string { return []string{"ZRANK", key(), val()} },
		func() []string { return []string{"SREM", key(), "absent"} },
		func() []string { return []string{"HDEL", key(), "absent"} },
		func() []string { return []string{"ZREM", key(), "absent"} },
		func() []string { return []string{"BITCOUNT", key()} },
		func() []string { return []string{"OBJECT", "ENCODING", key()} },
	}
	var history []string
	for i := 0; i < 6000; i++ {
		args := ops[r.IntN(len(ops))]()
		if i%1500 == 1499 {
			args = []string{"FLUSHDB"}
		}
		reply := h.do(args...)
		if i%97 == 0 {
			h.advance(30) // lets short TTLs lapse: lazy expiry paths
		}
		history = append(history, fmt.Sprintf("db%d %s -> %.40q", h.c.DB, strings.Join(args, " "), reply))
		if len(history) > 30 {
			history = history[1:]
		}
		if _, _, _, ok := h.ks.checkMem(); !ok {
			t.Log(strings.Join(history, "\n"))
		}
		h.checkMem(strings.Join(args, " "))
	}
	if h.ks.DatasetBytes(false) <= 0 {
		t.Fatal("empty dataset at the end")
	}
	h.do("FLUSHALL")
	h.checkMem("FLUSHALL")
	if got := h.ks.DatasetBytes(false); got != 0 {
		t.Fatalf("FLUSHALL left %d bytes counted", got)
	}
	for db := range h.ks.mem.nonEmpty {
		if n := &h.ks.mem.nonEmpty[db]; n.keys.Load() != 0 || n.expires.Load() != 0 {
			t.Fatalf("db %d still counted non-empty", db)
		}
	}
}

// TestMemAccountingMatchesHeap compares the counted dataset with the live
// heap the Go runtime measures for the same data, per value type.
func TestMemAccountingMatchesHeap(t *testing.T) {
	cases := []struct {
		name string
		fill func(h *memHarness, i int)
	}{
		{"strings", func(h *memHarness, i int) { h.do("SET", "key:"+strconv.Itoa(i), strings.Repeat("x", 100)) }},
		{"lists", func(h *memHarness, i int) {
			h.do("LPUSH", "list:"+strconv.Itoa(i%50), strings.Repeat("y", 128))
		}},
		{"hashes", func(h *memHarness, i int) {
			h.do("HSET", "hash:"+strconv.Itoa(i%20), "field:"+strconv.Itoa(i), strings.Repeat("z", 40))
		}},
		{"sets", func(h *memHarness, i int) { h.do("SADD", "set:"+strconv.Itoa(i%20), "member:"+strconv.Itoa(i)) }},
		{"zsets", func(h *memHarness, i int) {
			h.do("ZADD", "zset:"+strconv.Itoa(i%20), strconv.Itoa(i), "member:"+strconv.Itoa(i))
		}},
		{"ttl", func(h *memHarness, i int) {
			h.do("SET", "key:"+strconv.Itoa(i), "v", "EX", "1000")
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newMemHarness(t)
			const n = 40000
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			counted0 := h.ks.DatasetBytes(false)
			for i := 0; i < n; i++ {
				tc.fill(h, i)
			}
			runtime.GC()
			runtime.ReadMemStats(&after)
			counted := h.ks.DatasetBytes(false) - counted0
			heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
			runtime.KeepAlive(h)
			ratio := float64(counted) / float64(heap)
			t.Logf("counted %d, heap grew %d (%.3f)", counted, heap, ratio)
			if ratio < 0.85 || ratio > 1.15 {
				t.Errorf("counted %d bytes for %d of live heap (ratio %.2f)", counted, heap, ratio)
			}
		})
	}
}

// fillEviction stores n string keys of size bytes at the current clock.
func (h *memHarness) fill(prefix string, n, size int, ttl func(i int) int) {
	v := strings.Repeat("v", size)
	for i := 0; i < n; i++ {
		k := prefix + strconv.Itoa(i)
		if ttl != nil && ttl(i) > 0 {
			h.do("SET", k, v, "EX", strconv.Itoa(ttl(i)))
		} else {
			h.do("SET", k, v)
		}
	}
}

func (h *memHarness) exists(k string) bool { return h.do("EXISTS", k) == ":1\r\n" }

func (h *memHarness) survivors(prefix string, n int) int {
	alive := 0
	for i := 0; i < n; i++ {
		// EXISTS does not touch the access clock in a way that matters
		// here: the test is over once survivors are counted.
		if h.exists(prefix + strconv.Itoa(i)) {
			alive++
		}
	}
	return alive
}

// limitTo sets maxmemory so that about frac of the current dataset fits.
func (h *memHarness) limitTo(frac float64) {
	h.ks.SetMaxMemory(int64(float64(h.ks.DatasetBytes(false)) * frac))
}

func (h *memHarness) evict() EvictResult {
	h.t.Helper()
	h.ks.SetEvictionTuning(5, 100) // no time limit: evict to the target in one call
	r := h.ks.PerformEvictions()
	if used, max := h.ks.UsedMemory(), h.ks.MaxMemory(); r == EvictOK && used > max {
		h.t.Fatalf("EvictOK with used %d > maxmemory %d", used, max)
	}
	return r
}

func setPolicy(t *testing.T, ks *Keyspace, name string) {
	t.Helper()
	p, ok := ParsePolicy(name)
	if !ok {
		t.Fatalf("bad policy %q", name)
	}
	ks.SetEvictionPolicy(p)
}

// The policy tests below fill the keyspace, set maxmemory below its size
// and check which class of keys went, statistically: eviction samples, so
// no single key's fate is asserted.

func TestEvictVolatileNeverTouchesPersistentKeys(t *testing.T) {
	for _, pol := range []string{"volatile-lru", "volatile-lfu", "volatile-random", "volatile-ttl"} {
		t.Run(pol, func(t *testing.T) {
			h := newMemHarness(t)
			setPolicy(t, h.ks, pol)
			h.fill("p:", 1000, 100, nil)
			h.fill("v:", 1000, 100, func(i int) int { return 1000 + i })
			h.limitTo(0.75)
			if r := h.evict(); r != EvictOK {
				t.Fatalf("result %v", r)
			}
			if got := h.survivors("p:", 1000); got != 1000 {
				t.Fatalf("%d keys without TTL evicted", 1000-got)
			}
			if got := h.survivors("v:", 1000); got > 700 {
				t.Fatalf("only %d volatile keys evicted", 1000-got)
			}
			// Once no key has a TTL, nothing can be evicted.
			h.do("FLUSHDB")
			h.fill("p:", 1000, 100, nil)
			h.limitTo(0.5)
			if r := h.evict(); r != EvictFail {
				t.Fatalf("result %v with no volatile keys, want EvictFail", r)
			}
			if got := h.survivors("p:", 1000); got != 1000 {
				t.Fatalf("%d keys without TTL evicted", 1000-got)
			}
		})
	}
}

func TestEvictLRUKeepsRecentlyRead(t *testing.T) {
	for _, pol := range []string{"allkeys-lru", "volatile-lru"} {
		t.Run(pol, func(t *testing.T) {
			h := newMemHarness(t)
			setPolicy(t, h.ks, pol)
			ttl := func(int) int { return 100000 }
			h.fill("k:", 2000, 100, ttl)
			h.advance(100_000)
			for i := 0; i < 2000; i += 10 { // the hot tenth
				h.do("GET", "k:"+strconv.Itoa(i))
			}
			h.advance(100_000)
			h.fill("new:", 1000, 100, ttl)
			h.limitTo(0.7)
			h.evict()
			hot, cold := h.hotCold()
			newAlive := h.survivors("new:", 1000)
			t.Logf("survivors: hot %d/200, cold %d/1800, new %d/1000", hot, cold, newAlive)
			if hot < 180 {
				t.Errorf("only %d of 200 recently read keys survived", hot)
			}
			if float64(cold)/1800 > 0.8*float64(hot)/200 {
				t.Errorf("cold keys survived as well as hot ones (%d/1800 vs %d/200)", cold, hot)
			}
			if newAlive < 900 {
				t.Errorf("only %d of 1000 new keys survived", newAlive)
			}
		})
	}
}

func TestEvictLFUKeepsFrequentlyRead(t *testing.T) {
	for _, pol := range []string{"allkeys-lfu", "volatile-lfu"} {
		t.Run(pol, func(t *testing.T) {
			h := newMemHarness(t)
			setPolicy(t, h.ks, pol)
			ttl := func(int) int { return 100000 }
			h.fill("k:", 2000, 100, ttl)
			for round := 0; round < 50; round++ { // the frequent tenth
				for i := 0; i < 2000; i += 10 {
					h.do("GET", "k:"+strconv.Itoa(i))
				}
			}
			h.limitTo(0.6)
			h.evict()
			hot, cold := h.hotCold()
			t.Logf("survivors: frequent %d/200, rare %d/1800", hot, cold)
			if hot < 180 {
				t.Errorf("only %d of 200 frequently read keys survived", hot)
			}
			if float64(cold)/1800 > 0.8*float64(hot)/200 {
				t.Errorf("rare keys survived as well as frequent ones")
			}
		})
	}
}

func TestEvictVolatileTTLShortestFirst(t *testing.T) {
	h := newMemHarness(t)
	setPolicy(t, h.ks, "volatile-ttl")
	h.fill("k:", 2000, 100, func(i int) int { return 1000 + i }) // TTL grows with i
	h.limitTo(0.6)
	h.evict()
	short, long := h.survivorsRange(0, 1000), h.survivorsRange(1000, 2000)
	t.Logf("survivors: shorter TTL half %d/1000, longer TTL half %d/1000", short, long)
	if long < 900 || short > long/2 {
		t.Errorf("shorter TTLs should go first: survivors %d short vs %d long", short, long)
	}
}

func (h *memHarness) survivorsRange(from, to int) int {
	n := 0
	for i := from; i < to; i++ {
		if h.exists("k:" + strconv.Itoa(i)) {
			n++
		}
	}
	return n
}

func TestEvictRandomIsRoughlyUniform(t *testing.T) {
	for _, pol := range []string{"allkeys-random", "volatile-random"} {
		t.Run(pol, func(t *testing.T) {
			h := newMemHarness(t)
			setPolicy(t, h.ks, pol)
			ttl := func(int) int { return 100000 }
			h.fill("a:", 3000, 100, ttl)
			h.advance(100_000)
			for i := 0; i < 3000; i++ { // reads must not protect keys
				h.do("GET", "a:"+strconv.Itoa(i))
			}
			h.fill("b:", 3000, 100, ttl)
			h.limitTo(0.5)
			h.evict()
			a, b := h.survivors("a:", 3000), h.survivors("b:", 3000)
			t.Logf("survivors: old %d/3000, new %d/3000", a, b)
			if a+b > 3300 || a+b < 2400 {
				t.Errorf("evicted to %d keys, want about 3000", a+b)
			}
			if d := a - b; d > 300 || d < -300 {
				t.Errorf("not uniform: %d old vs %d new survived", a, b)
			}
		})
	}
}

func TestEvictAcrossDatabases(t *testing.T) {
	h := newMemHarness(t)
	setPolicy(t, h.ks, "allkeys-random")
	for db := 0; db < 3; db++ {
		h.do("SELECT", strconv.Itoa(db))
		h.fill(fmt.Sprintf("d%d:", db), 1000, 100, nil)
	}
	h.limitTo(0.5)
	h.evict()
	for db := 0; db < 3; db++ {
		h.do("SELECT", strconv.Itoa(db))
		if got := h.survivors(fmt.Sprintf("d%d:", db), 1000); got < 300 || got > 700 {
			t.Errorf("db %d: %d of 1000 keys survived, want about half", db, got)
		}
	}
}

func TestEvictNoEvictionFails(t *testing.T) {
	h := newMemHarness(t)
	setPolicy(t, h.ks, "noeviction")
	h.fill("k:", 500, 100, nil)
	h.limitTo(0.5)
	if r := h.evict(); r != EvictFail {
		t.Fatalf("result %v, want EvictFail", r)
	}
	if got := h.survivors("k:", 500); got != 500 {
		t.Fatalf("noeviction evicted %d keys", 500-got)
	}
	// Raising the limit is enough to be OK again.
	h.ks.SetMaxMemory(h.ks.DatasetBytes(false) + 1)
	if r := h.evict(); r != EvictOK {
		t.Fatalf("result %v under the limit", r)
	}
}

func TestEvictCountsAndTouchesWatchers(t *testing.T) {
	h := newMemHarness(t)
	setPolicy(t, h.ks, "allkeys-lru")
	// Each eviction is propagated alone as a deletion (DEL here: the
	// lazyfree settings are off in a bare keyspace).
	h.ks.Effects = new(effects.Stream)
	var rec effects.Recorder
	h.ks.Effects.Attach(&rec)
	h.fill("k:", 200, 100, nil)
	rec = effects.Recorder{} // not the fill's SETs: only what follows
	var w Watch
	for i := 0; i < 200; i++ {
		h.ks.WatchKey(&w, 0, []byte("k:"+strconv.Itoa(i)))
	}
	h.limitTo(0.5)
	h.evict()
	n := h.ks.Stats.EvictedKeys.Load()
	ops := rec.Ops()
	if n == 0 || int(n) != len(ops) || int(n) != 200-h.survivors("k:", 200) {
		t.Fatalf("evicted_keys %d, %d ops propagated, keys gone %d", n, len(ops), 200-h.survivors("k:", 200))
	}
	for _, op := range ops {
		if !strings.HasPrefix(string(op.Cmd), "*2\r\n$3\r\nDEL\r\n$") {
			t.Fatalf("eviction propagated as %q", op.Cmd)
		}
	}
	if !w.Dirty.Load() {
		t.Fatal("eviction did not invalidate WATCH")
	}
	h.checkMem("eviction")
}

func TestEvictionTimeLimit(t *testing.T) {
	for _, c := range []struct {
		tenacity int
		want     float64 // microseconds
	}{{0, 0}, {1, 50}, {10, 500}, {11, 575}, {20, 500 * 4.0455577}} {
		got := float64(evictionTimeLimit(c.tenacity).Microseconds())
		if got < c.want*0.99-1 || got > c.want*1.01+1 {
			t.Errorf("tenacity %d: %v µs, want %v", c.tenacity, got, c.want)
		}
	}
}

// TestEvictionTenacityHandsOver checks that a call with a zero time budget
// stops early with EvictRunning and that the background job finishes.
func TestEvictionTenacityHandsOver(t *testing.T) {
	h := newMemHarness(t)
	setPolicy(t, h.ks, "allkeys-random")
	h.fill("k:", 3000, 100, nil)
	h.limitTo(0.3)
	h.ks.SetEvictionTuning(5, 0)
	if r := h.ks.PerformEvictions(); r != EvictRunning {
		t.Fatalf("result %v with tenacity 0, want EvictRunning", r)
	}
	if h.ks.UsedMemory() <= h.ks.MaxMemory() {
		t.Fatal("a zero budget evicted everything needed")
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { h.ks.RunEviction(stop); close(done) }()
	h.ks.kickEviction()
	for i := 0; h.ks.UsedMemory() > h.ks.MaxMemory(); i++ {
		if i > 5000 {
			t.Fatal("background eviction did not bring memory under the limit")
		}
		runtime.Gosched()
		h.ks.ev.mu.Lock() // wait for a slice to finish
		h.ks.ev.mu.Unlock()
		if i%10 == 9 {
			h.ks.kickEviction()
		}
		sleepBrief()
	}
	close(stop)
	<-done
	h.checkMem("background eviction")
}

func TestParsePolicy(t *testing.T) {
	for i, n := range policyNames {
		p, ok := ParsePolicy(strings.ToUpper(n))
		if !ok || int(p) != i || p.String() != n {
			t.Errorf("%s: %v %v", n, p, ok)
		}
	}
	if _, ok := ParsePolicy("lru"); ok {
		t.Error("accepted a bad name")
	}
}

// sleepBrief lets the background job run between polls.
func sleepBrief() { time.Sleep(time.Millisecond) }

// TestMemAccountingPinnedDelete: a write that deletes its own (pinned) key
// and then marks it touched must not re-measure the deleted object: the
// accounting stays exact after emptying commands of every type.
func TestMemAccountingPinnedDelete(t *testing.T) {
	h := newMemHarness(t)
	big := strings.Repeat("x", 5000) // plain quicklist nodes, hashtable/skiplist encodings
	for _, c := range [][]string{
		{"RPUSH", "l", big, big, big, "a", "b"},
		{"LTRIM", "l", "1", "0"},
		{"RPUSH", "l", big, big},
		{"RPOP", "l", "5"},
		{"SADD", "s", big, "m"},
		{"SPOP", "s", "5"},
		{"HSET", "h", "f", big, "g", big},
		{"HDEL", "h", "f", "g"},
		{"ZADD", "z", "1", big, "2", "m"},
		{"ZREMRANGEBYRANK", "z", "0", "-1"},
		{"SET", "k", big},
		{"GETDEL", "k"},
	} {
		h.do(c...)
		h.checkMem(strings.Join(c[:2], " "))
	}
	if n := h.ks.DBSize(0, true); n != 0 {
		t.Fatalf("%d keys left", n)
	}
}

// hotCold counts the surviving keys k:0..k:1999 of the eviction tests:
// hot are the tenth the test read (i%10 == 0), cold the rest.
func (h *memHarness) hotCold() (hot, cold int) {
	for i := 0; i < 2000; i++ {
		if h.exists("k:" + strconv.Itoa(i)) {
			if i%10 == 0 {
				hot++
			} else {
				cold++
			}
		}
	}
	return hot, cold
}
