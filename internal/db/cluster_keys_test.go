package db

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/keyslot"
	"github.com/corvid-kv/corvid/internal/rdb"
)

func newSlotHarness(t testing.TB) *memHarness {
	h := newMemHarness(t)
	h.ks.SetSlotStriping(true)
	return h
}

// scanSlots walks every shard of the keyspace and returns, per database,
// the keys of each slot; in slot mode it also checks that every key sits
// in its slot's stripe and that every shard's counters equal what it
// holds.
func scanSlots(t testing.TB, ks *Keyspace) []map[int][]string {
	t.Helper()
	by := make([]map[int][]string, ks.ndb)
	for d := range by {
		by[d] = map[int][]string{}
	}
	ks.LockAll()
	defer ks.UnlockAll()
	for i := range ks.stripes {
		for d, sh := range ks.stripes[i].shards {
			if sh == nil {
				continue
			}
			var want [SlotsPerStripe]int32
			sh.keys.Range(func(k string, _ *Object) bool {
				s := keyslot.Of([]byte(k))
				by[d][s] = append(by[d][s], k)
				if ks.slotStripes {
					if SlotStripe(s) != i {
						t.Errorf("key %q of slot %d in stripe %d, want %d", k, s, i, SlotStripe(s))
					}
					want[slotIndex(s)]++
				}
				return true
			})
			if !ks.slotStripes {
				if sh.slots != nil {
					t.Errorf("stripe %d db %d counts slots outside slot mode", i, d)
				}
				continue
			}
			if sh.slots == nil {
				t.Fatalf("stripe %d db %d: no slot counters in slot mode", i, d)
			}
			if *sh.slots != want {
				t.Errorf("stripe %d db %d: counters %v, keys %v", i, d, *sh.slots, want)
			}
		}
	}
	return by
}

// checkSlotAPI compares CountKeysInSlot, KeysInSlot and SlotKeyCounts with
// a full scan of database 0.
func checkSlotAPI(t testing.TB, ks *Keyspace, what string) {
	t.Helper()
	by := scanSlots(t, ks)[0]
	counts := ks.SlotKeyCounts(false)
	for s := range keyslot.Slots {
		if counts[s] != len(by[s]) {
			t.Fatalf("%s: SlotKeyCounts[%d] = %d, scan finds %d", what, s, counts[s], len(by[s]))
		}
	}
	// Every slot holding keys, and a few empty ones.
	slots := []int{0, 1, 255, 256, keyslot.Slots - 1}
	for s := range by {
		slots = append(slots, s)
	}
	for _, s := range slots {
		want := slices.Clone(by[s])
		slices.Sort(want)
		if n := ks.CountKeysInSlot(s, false); n != len(want) {
			t.Fatalf("%s: CountKeysInSlot(%d) = %d, want %d", what, s, n, len(want))
		}
		got := ks.KeysInSlot(s, 1<<30, false)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Fatalf("%s: KeysInSlot(%d) = %q, want %q", what, s, got, want)
		}
		for _, max := range []int{0, 1, 2} {
			got := ks.KeysInSlot(s, max, false)
			if len(got) != min(max, len(want)) {
				t.Fatalf("%s: KeysInSlot(%d, %d) gave %d keys, slot has %d", what, s, max, len(got), len(want))
			}
			for i, k := range got {
				if !slices.Contains(want, k) || slices.Contains(got[:i], k) {
					t.Fatalf("%s: KeysInSlot(%d, %d) = %q: not distinct keys of the slot %q", what, s, max, got, want)
				}
			}
		}
	}
}

// TestSlotStripes: in slot mode a key's stripe is its slot's, whichever
// way the stripe is derived (StripeOf, PinKey, LockSet), and keys sharing
// a hash tag share a stripe.
func TestSlotStripes(t *testing.T) {
	ks := New(1)
	ks.SetSlotStriping(true)
	c := &Ctx{KS: ks}
	for i := range 2000 {
		k := []byte("key:" + strconv.Itoa(i))
		want := keyslot.Of(k) % StripeCount
		if got := ks.StripeOf(k); got != want {
			t.Fatalf("StripeOf(%q) = %d, want %d", k, got, want)
		}
		if got := c.PinKey(k); got != want {
			t.Fatalf("PinKey(%q) = %d, want %d", k, got, want)
		}
		var l LockSet
		l.Add(ks, k)
		if !l.Has(want) {
			t.Fatalf("LockSet of %q lacks stripe %d", k, want)
		}
		if a, b := ks.StripeOf([]byte("{"+string(k)+"}a")), ks.StripeOf([]byte("x{"+string(k)+"}")); a != b || a != want {
			t.Fatalf("hash tag %q: stripes %d and %d, want %d", k, a, b, want)
		}
	}
	// Every stripe holds SlotsPerStripe slots.
	var per [StripeCount]int
	for s := range keyslot.Slots {
		per[SlotStripe(s)]++
	}
	for i, n := range per {
		if n != SlotsPerStripe {
			t.Fatalf("stripe %d holds %d slots", i, n)
		}
	}
}

func TestSetSlotStripingAfterKeysPanics(t *testing.T) {
	h := newMemHarness(t)
	h.do("SET", "k", "v")
	defer func() {
		if recover() == nil {
			t.Fatal("SetSlotStriping on a keyspace with keys did not panic")
		}
	}()
	h.ks.SetSlotStriping(true)
}

// TestSlotCounts: the per-slot counts stay exact through every way a key
// comes and goes.
func TestSlotCounts(t *testing.T) {
	h := newSlotHarness(t)
	load := func(key string, db int, replace bool) {
		e := rdb.NewEntry(db, []byte(key), rdb.KindString)
		e.String = []byte("loaded")
		var err error
		if replace {
			_, err = h.ks.MergeEntry(e, h.now)
		} else {
			_, err = h.ks.LoadEntry(e, h.now)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	count := func(key string) int { return h.ks.CountKeysInSlot(keyslot.Of([]byte(key)), false) }
	steps := []struct {
		name string
		run  func()
		want map[string]int // a key of the slot -> its count after the step
	}{
		{"SET", func() { h.do("SET", "foo", "1"); h.do("SET", "{foo}2", "1"); h.do("SET", "bar", "1") },
			map[string]int{"foo": 2, "bar": 1}},
		{"SET again", func() { h.do("SET", "foo", "2") }, map[string]int{"foo": 2}},
		{"DEL", func() { h.do("DEL", "{foo}2", "nokey") }, map[string]int{"foo": 1}},
		{"RENAME across slots", func() { h.do("RENAME", "foo", "bar") }, map[string]int{"foo": 0, "bar": 1}},
		{"RENAME over nothing", func() { h.do("RENAME", "bar", "{foo}x") }, map[string]int{"foo": 1, "bar": 0}},
		{"COPY", func() { h.do("COPY", "{foo}x", "bar") }, map[string]int{"foo": 1, "bar": 1}},
		{"MOVE out of db 0", func() { h.do("MOVE", "bar", "1") }, map[string]int{"bar": 0}},
		{"MOVE into db 0", func() {
			h.do("SELECT", "1")
			h.do("SET", "{bar}1", "x")
			h.do("MOVE", "{bar}1", "0")
			h.do("SELECT", "0")
		}, map[string]int{"bar": 1}},
		{"lazy expiry", func() {
			h.do("SET", "{baz}a", "1", "PX", "10")
			h.do("SET", "{baz}b", "1", "PX", "10")
			h.advance(20)
			h.do("GET", "{baz}a")
		}, map[string]int{"baz": 1}}, // {baz}b expired, not collected: counted, as in Valkey
		{"write over an expired key", func() { h.do("SET", "{baz}b", "2") }, map[string]int{"baz": 1}},
		{"EXPIRE in the past", func() { h.do("EXPIRE", "{baz}b", "-1") }, map[string]int{"baz": 0}},
		{"active expiry", func() {
			for i := range 50 {
				h.do("SET", "{exp}"+strconv.Itoa(i), "1", "PX", "1")
			}
			h.advance(10)
			// The harness clock is in the past: real time has every key expired.
			var cyc expireCycle
			for h.ks.CountKeysInSlot(keyslot.Of([]byte("exp")), false) > 0 {
				h.ks.ActiveExpire(time.Second, 10, &cyc)
			}
		}, map[string]int{"exp": 0}},
		{"collection emptied", func() {
			h.do("RPUSH", "{l}", "a", "b")
			h.do("LPOP", "{l}", "2")
			h.do("SADD", "{l}s", "a")
			h.do("SINTERSTORE", "{l}s", "{l}nothing")
		}, map[string]int{"l": 0}},
		{"RESTORE", func() {
			h.do("SET", "src", "v")
			p := bulkOf(t, h.do("DUMP", "src"))
			h.do("RESTORE", "{r}1", "0", p)
			h.do("RESTORE", "{r}1", "0", p, "REPLACE")
			h.do("RESTORE", "{r}2", "0", p)
		}, map[string]int{"r": 2}},
		{"RDB load", func() {
			load("{rdb}1", 0, false)
			load("{rdb}2", 0, false)
			load("{rdb}2", 0, true) // DEBUG RELOAD MERGE replaces
			load("{rdb}3", 1, false)
		}, map[string]int{"rdb": 2}},
		{"SWAPDB", func() { h.do("SWAPDB", "0", "1") }, map[string]int{"rdb": 1, "r": 0, "bar": 1}}, // db 1: bar (MOVEd), {rdb}3
		{"SWAPDB back", func() { h.do("SWAPDB", "1", "0") }, map[string]int{"rdb": 2, "r": 2, "bar": 1}},
		{"FLUSHDB 1", func() { h.do("SELECT", "1"); h.do("FLUSHDB"); h.do("SELECT", "0") }, map[string]int{"rdb": 2}},
		{"FLUSHALL", func() { h.do("FLUSHALL") }, map[string]int{"rdb": 0, "r": 0, "bar": 0}},
		{"after FLUSHALL", func() { h.do("SET", "{rdb}9", "1") }, map[string]int{"rdb": 1}},
	}
	for _, st := range steps {
		st.run()
		for k, want := range st.want {
			if got := count(k); got != want {
				t.Errorf("after %s: slot of %q counts %d, want %d", st.name, k, got, want)
			}
		}
		checkSlotAPI(t, h.ks, st.name)
	}
}

// TestSlotCountsEviction: evicted keys leave their slot's count.
func TestSlotCountsEviction(t *testing.T) {
	h := newSlotHarness(t)
	setPolicy(t, h.ks, "allkeys-random")
	h.fill("k", 3000, 100, nil)
	h.limitTo(0.5)
	if r := h.evict(); r != EvictOK {
		t.Fatalf("eviction: %v", r)
	}
	n := h.survivors("k", 3000)
	if n == 3000 || n == 0 {
		t.Fatalf("%d of 3000 keys survived eviction", n)
	}
	total := 0
	for _, c := range h.ks.SlotKeyCounts(false) {
		total += c
	}
	if total != n {
		t.Fatalf("slot counts sum to %d, %d keys left", total, n)
	}
	checkSlotAPI(t, h.ks, "eviction")
}

// TestSlotCountsRandom runs random commands on a slot-mode keyspace and
// on a plain one (where the slot calls walk the whole keyspace), checking
// each against a full scan, and the two against each other.
func TestSlotCountsRandom(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	slot, plain := newSlotHarness(t), newMemHarness(t)
	r := rand.New(rand.NewPCG(seed, 7))
	key := func() string {
		// Few tags, so that slots hold several keys; some untagged.
		if r.IntN(3) == 0 {
			return "k" + strconv.Itoa(r.IntN(40))
		}
		return fmt.Sprintf("{t%d}%d", r.IntN(8), r.IntN(10))
	}
	ops := []func() []string{
		func() []string { return []string{"SET", key(), "v"} },
		func() []string { return []string{"SET", key(), "v", "PX", strconv.Itoa(1 + r.IntN(30))} },
		func() []string { return []string{"DEL", key(), key()} },
		func() []string { return []string{"GETDEL", key()} },
		func() []string { return []string{"GET", key()} },
		func() []string { return []string{"RENAME", key(), key()} },
		func() []string { return []string{"COPY", key(), key(), "REPLACE"} },
		func() []string { return []string{"MOVE", key(), "1"} },
		func() []string { return []string{"RPUSH", key(), "a"} },
		func() []string { return []string{"LPOP", key()} },
		func() []string { return []string{"SADD", key(), "a"} },
		func() []string { return []string{"SINTERSTORE", key(), key(), key()} },
		func() []string { return []string{"EXPIRE", key(), strconv.Itoa(r.IntN(3) - 1)} },
		func() []string { return []string{"PERSIST", key()} },
		func() []string { return []string{"SWAPDB", "0", "1"} },
		func() []string {
			if r.IntN(10) == 0 {
				return []string{"FLUSHDB"}
			}
			return []string{"SET", key(), "w"}
		},
	}
	for i := range 3000 {
		cmd := ops[r.IntN(len(ops))]()
		adv := int64(r.IntN(5))
		for _, h := range []*memHarness{slot, plain} {
			h.advance(adv)
			h.do(cmd...)
		}
		if i%50 == 49 {
			checkSlotAPI(t, slot.ks, fmt.Sprintf("step %d %q", i, cmd))
			checkSlotAPI(t, plain.ks, fmt.Sprintf("plain, step %d %q", i, cmd))
			a, b := slot.ks.SlotKeyCounts(false), plain.ks.SlotKeyCounts(false)
			if !slices.Equal(a, b) {
				t.Fatalf("step %d: slot mode and plain keyspaces disagree", i)
			}
			sa, sb := slot.ks.KeysInSlots([]int{keyslot.Of([]byte("t1")), keyslot.Of([]byte("t2"))}), plain.ks.KeysInSlots([]int{keyslot.Of([]byte("t1")), keyslot.Of([]byte("t2"))})
			slices.Sort(sa)
			slices.Sort(sb)
			if !slices.Equal(sa, sb) {
				t.Fatalf("step %d: KeysInSlots %q, plain %q", i, sa, sb)
			}
		}
	}
}

// TestKeysInSlots: the keys of the given slots, from their stripes only.
func TestKeysInSlots(t *testing.T) {
	for _, slotMode := range []bool{true, false} {
		h := newMemHarness(t)
		h.ks.SetSlotStriping(slotMode)
		var want []string
		for i := range 300 {
			k := "key" + strconv.Itoa(i)
			h.do("SET", k, "v")
			if s := keyslot.Of([]byte(k)); s%3 == 0 {
				want = append(want, k)
			}
		}
		h.do("SELECT", "1")
		h.do("SET", "key0", "v") // another database: never listed
		h.do("SELECT", "0")
		var slots []int
		for s := 0; s < keyslot.Slots; s += 3 {
			slots = append(slots, s, s) // named twice: listed once
		}
		got := h.ks.KeysInSlots(slots)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Fatalf("slot mode %v: KeysInSlots = %d keys, want %d", slotMode, len(got), len(want))
		}
		if got := h.ks.KeysInSlots(nil); len(got) != 0 {
			t.Fatalf("slot mode %v: KeysInSlots(nil) = %q", slotMode, got)
		}
	}
}
