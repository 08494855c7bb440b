package ds_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// modelKeys returns n distinct keys of lengths 0..~170, so every inline key
// class and the separately allocated case are exercised.
func modelKeys(n int) [][]byte {
	keys := make([][]byte, n)
	for i := range keys {
		if i == 0 {
			keys[i] = []byte{}
			continue
		}
		keys[i] = []byte(strings.Repeat("k", i%160) + strconv.Itoa(i))
	}
	return keys
}

func mustCheck[V any](t *testing.T, d *ds.Dict[V]) {
	t.Helper()
	if err := d.CheckInvariants(); err != nil {
		t.Fatal(err)
	}
}

// rangeKeys collects the keys Range visits, failing on a duplicate.
func rangeKeys[V any](t *testing.T, d *ds.Dict[V]) map[string]V {
	t.Helper()
	got := map[string]V{}
	d.Range(func(k string, v *V) bool {
		if _, dup := got[k]; dup {
			t.Fatalf("Range visited %q twice", k)
		}
		got[k] = *v
		return true
	})
	return got
}

// TestDictModel runs seeded random operations against a Dict and a Go map
// and compares them after every operation.
func TestDictModel(t *testing.T) {
	keys := modelKeys(600)
	for seed := range uint64(12) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 99))
			d := ds.New[int](int(seed) * 10)
			model := map[string]int{}
			// Bias toward a growing or shrinking phase so both resizes
			// happen many times.
			insertBias := 60
			for op := range 30000 {
				if op%3000 == 0 {
					insertBias = 20 + r.IntN(70)
				}
				k := keys[r.IntN(len(keys))]
				switch x := r.IntN(100); {
				case x < insertBias:
					v, existed := d.Upsert(k)
					_, inModel := model[string(k)]
					if existed != inModel {
						t.Fatalf("op %d Upsert(%q) existed=%v, model %v", op, k, existed, inModel)
					}
					if existed && *v != model[string(k)] {
						t.Fatalf("op %d Upsert(%q) value %d, model %d", op, k, *v, model[string(k)])
					}
					*v = op
					model[string(k)] = op
				case x < 85:
					v, ok := d.Delete(k)
					mv, inModel := model[string(k)]
					if ok != inModel || v != mv {
						t.Fatalf("op %d Delete(%q) = %d,%v, model %d,%v", op, k, v, ok, mv, inModel)
					}
					delete(model, string(k))
				case x < 92:
					p := d.Find(k)
					mv, inModel := model[string(k)]
					if (p != nil) != inModel || (p != nil && *p != mv) {
						t.Fatalf("op %d Find(%q) mismatch", op, k)
					}
				case x < 94:
					h := ds.Hash(k)
					p := d.FindHashed(h, k)
					q := d.Peek(k)
					if p != q || (p != nil) != (model[string(k)] != 0 || hasKey(model, k)) {
						t.Fatalf("op %d FindHashed/Peek(%q) mismatch", op, k)
					}
				case x < 95:
					d.Rehash(1 + r.IntN(4))
				case x < 96:
					if r.IntN(2) == 0 {
						d.Expand(d.Len() + r.IntN(2000))
					} else {
						d.Shrink()
					}
				case x < 97:
					d.SetResizePolicy(ds.ResizePolicy(r.IntN(3)))
				case x < 98:
					if len(model) > 0 {
						k, v, ok := d.RandomKeyFrom(r)
						if !ok || model[k] != *v || !hasKey(model, []byte(k)) {
							t.Fatalf("op %d RandomKey returned %q", op, k)
						}
					}
				default:
					if r.IntN(200) == 0 {
						d.Clear()
						clear(model)
					}
				}
				if d.Len() != len(model) {
					t.Fatalf("op %d Len %d, model %d", op, d.Len(), len(model))
				}
				if op%500 == 0 {
					mustCheck(t, d)
					if got := rangeKeys(t, d); !mapsEqual(got, model) {
						t.Fatalf("op %d Range differs from model", op)
					}
				}
			}
			mustCheck(t, d)
			if got := rangeKeys(t, d); !mapsEqual(got, model) {
				t.Fatal("Range differs from model at the end")
			}
		})
	}
}

func hasKey[V any](m map[string]V, k []byte) bool {
	_, ok := m[string(k)]
	return ok
}

func mapsEqual[V comparable](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

func TestDictGrowShrink(t *testing.T) {
	d := ds.New[int](0)
	if m, _ := d.Buckets(); m != 0 {
		t.Fatalf("new dict has %d buckets, want lazy allocation", m)
	}
	for i := range 1000 {
		*must(d.Upsert([]byte(strconv.Itoa(i)))) = i
	}
	for d.Rehash(100) {
	}
	if m, _ := d.Buckets(); m != 1024 {
		t.Fatalf("1000 keys in %d buckets, want 1024", m)
	}
	// Down to 1/8 full (128 keys in 1024 buckets) it must shrink.
	for i := range 872 {
		d.Delete([]byte(strconv.Itoa(i)))
	}
	if !d.IsRehashing() {
		if m, _ := d.Buckets(); m != 128 {
			t.Fatalf("128 keys left in %d buckets, want a shrink", m)
		}
	}
	for d.Rehash(100) {
	}
	if m, _ := d.Buckets(); m != 128 {
		t.Fatalf("after shrink %d buckets, want 128", m)
	}
	mustCheck(t, d)
}

func must[V any](v *V, _ bool) *V { return v }

func TestDictResizePolicy(t *testing.T) {
	d := ds.New[int](0)
	d.SetResizePolicy(ds.ResizeForbid)
	for i := range 100 {
		d.Upsert([]byte(strconv.Itoa(i)))
	}
	if m, _ := d.Buckets(); m != 4 {
		t.Fatalf("forbid: %d buckets, want 4", m)
	}
	d.SetResizePolicy(ds.ResizeAvoid)
	d.Upsert([]byte("x")) // 101 keys in 4 buckets: past 4:1, resizes
	if _, target := d.Buckets(); target != 128 {
		t.Fatalf("avoid: target %d, want 128", target)
	}
	for d.Rehash(100) {
	}
	// Avoid: at 128 keys in 128 buckets no expand until 4:1.
	for i := 100; i < 300; i++ {
		d.Upsert([]byte(strconv.Itoa(i)))
	}
	if m, target := d.Buckets(); m != 128 || target != 0 {
		t.Fatalf("avoid: %d/%d buckets, want 128/0", m, target)
	}
	d.SetResizePolicy(ds.ResizeEnable)
	if !d.ResizeIfNeeded() {
		t.Fatal("enable: ResizeIfNeeded did not grow")
	}
	for d.Rehash(100) {
	}
	d.PauseAutoResize()
	for i := range 300 {
		d.Delete([]byte(strconv.Itoa(i)))
	}
	if m, _ := d.Buckets(); m != 512 {
		t.Fatalf("paused: %d buckets, want 512", m)
	}
	d.ResumeAutoResize()
	if !d.ResizeIfNeeded() {
		t.Fatal("ResizeIfNeeded did not shrink")
	}
	mustCheck(t, d)
	if !d.Expand(1 << 12) {
		t.Log("expand refused while rehashing (expected)")
	}
	for d.Rehash(100) {
	}
	if !d.Expand(1 << 12) {
		t.Fatal("Expand refused")
	}
	if !d.Shrink() {
		// Shrink is refused while rehashing; finish and retry.
		for d.Rehash(100) {
		}
		if !d.Shrink() {
			t.Fatal("Shrink refused")
		}
	}
	for d.Rehash(100) {
	}
	if m, _ := d.Buckets(); m != 4 {
		t.Fatalf("shrunk to %d, want 4", m)
	}
	mustCheck(t, d)
}

// TestDictPointerStability checks that value pointers survive resizes.
func TestDictPointerStability(t *testing.T) {
	d := ds.New[int](0)
	ptrs := map[string]*int{}
	for i := range 5000 {
		k := strconv.Itoa(i)
		p, _ := d.UpsertString(k)
		*p = i
		ptrs[k] = p
		if i%7 == 0 && i > 0 {
			dk := strconv.Itoa(i - 7)
			d.DeleteString(dk)
			delete(ptrs, dk)
		}
	}
	for k, p := range ptrs {
		if q := d.FindString(k); q != p {
			t.Fatalf("pointer for %q moved", k)
		}
	}
}

func TestDictRangeDeleteCurrent(t *testing.T) {
	d := ds.New[int](0)
	for i := range 1000 {
		*must(d.Upsert([]byte(strconv.Itoa(i)))) = i
	}
	d.Delete([]byte("0")) // likely mid-rehash now
	seen := 0
	d.Range(func(k string, v *int) bool {
		seen++
		if *v%2 == 0 {
			if _, ok := d.DeleteString(k); !ok {
				t.Fatalf("delete of current key %q failed", k)
			}
		} else if d.FindString(k) != v {
			t.Fatalf("Find inside Range for %q", k)
		}
		return true
	})
	if seen != 999 || d.Len() != 500 {
		t.Fatalf("seen %d, left %d", seen, d.Len())
	}
	mustCheck(t, d)
	// Stopping early.
	n := 0
	d.Range(func(string, *int) bool { n++; return n < 10 })
	if n != 10 {
		t.Fatalf("Range did not stop: %d", n)
	}
	n = 0
	for range d.All() {
		n++
	}
	if n != 500 {
		t.Fatalf("All yielded %d", n)
	}
}

func TestDictHashedAPI(t *testing.T) {
	d := ds.New[string](0)
	k := []byte("user:1000")
	h := ds.Hash(k)
	if h != ds.HashString(string(k)) {
		t.Fatal("Hash and HashString differ")
	}
	p, existed := d.UpsertHashed(h, k)
	*p = "v"
	if existed || d.FindHashed(h, k) != p || d.Find(k) != p || d.FindString("user:1000") != p {
		t.Fatal("hashed lookups disagree")
	}
	if v, ok := d.DeleteHashed(h, k); !ok || v != "v" {
		t.Fatal("DeleteHashed")
	}
	if s := ds.Stripe(h, 256); s < 0 || s >= 256 {
		t.Fatalf("stripe %d", s)
	}
	// Stripe spreads evenly.
	var counts [16]int
	for i := range 16000 {
		counts[ds.Stripe(ds.HashString(strconv.Itoa(i)), 16)]++
	}
	for s, c := range counts {
		if c < 800 || c > 1200 {
			t.Fatalf("stripe %d got %d of 16000", s, c)
		}
	}
}

func TestDictKeyCopied(t *testing.T) {
	d := ds.New[int](0)
	buf := []byte("abcdefgh-long-key-0123456789")
	d.Upsert(buf)
	short := []byte("xy")
	d.Upsert(short)
	long := []byte(strings.Repeat("z", 300))
	d.Upsert(long)
	for i := range buf {
		buf[i] = '!'
	}
	short[0], long[0] = '!', '!'
	got := slices.Sorted(func(yield func(string) bool) {
		d.Range(func(k string, _ *int) bool { return yield(k) })
	})
	want := []string{"abcdefgh-long-key-0123456789", "xy", strings.Repeat("z", 300)}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("keys %q", got)
	}
}

func TestDictMemUsage(t *testing.T) {
	d := ds.New[int](0)
	empty := d.MemUsage()
	for i := range 1000 {
		d.Upsert([]byte(fmt.Sprintf("key:%08d", i)))
	}
	// 12-byte keys: entry 16 + length byte and key 16 = 32 bytes, plus
	// 1024..1536 slots.
	per := float64(d.MemUsage()-empty) / 1000
	if per < 32+8 || per > 32+24 {
		t.Fatalf("%.1f bytes per key", per)
	}
	d.Clear()
	if d.MemUsage() != empty || d.Len() != 0 {
		t.Fatal("Clear did not reset")
	}
}

func TestDictAllocs(t *testing.T) {
	d := ds.New[int](0)
	keys := modelKeys(2000)
	for _, k := range keys {
		d.Upsert(k)
	}
	for _, k := range keys[:1000] {
		d.Delete(k) // leave it mid-shrink or sparse
	}
	r := rand.New(rand.NewPCG(1, 2))
	k := keys[1500]
	miss := []byte("no such key")
	var cursor uint64
	cases := map[string]func(){
		"Find":           func() { d.Find(k) },
		"FindMiss":       func() { d.Find(miss) },
		"Peek":           func() { d.Peek(k) },
		"UpsertExisting": func() { d.Upsert(k) },
		"FindHashed":     func() { d.FindHashed(ds.Hash(k), k) },
		"RandomKey":      func() { d.RandomKeyFrom(r) },
		"Sample20":       func() { d.SampleFrom(r, 20, func(string, *int) {}) },
		"Scan":           func() { cursor = d.Scan(cursor, func(string, *int) {}) },
	}
	for name, f := range cases {
		if n := testing.AllocsPerRun(200, f); n != 0 {
			t.Errorf("%s: %v allocs, want 0", name, n)
		}
	}
	// A new key costs one allocation when short, two when long.
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		i++
		d.Upsert([]byte("new:" + strconv.Itoa(i%10)))
		d.Delete([]byte("new:" + strconv.Itoa(i%10)))
	}); n > 3 { // key building in the closure itself allocates 2
		t.Errorf("insert: %v allocs", n)
	}
}

func TestDictRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	d := ds.New[int](0)
	if _, _, ok := d.RandomKeyFrom(r); ok {
		t.Fatal("RandomKey on empty dict")
	}
	if n := d.SampleFrom(r, 5, func(string, *int) {}); n != 0 {
		t.Fatal("Sample on empty dict")
	}
	const n = 200
	for i := range n {
		*must(d.UpsertString(strconv.Itoa(i))) = i
	}
	counts := make([]int, n)
	const draws = 200000
	for range draws {
		_, v, ok := d.RandomKeyFrom(r)
		if !ok {
			t.Fatal("RandomKey failed")
		}
		counts[*v]++
	}
	// Fair-ish, as Valkey's: neighbouring-bucket sampling leaves keys after
	// empty runs somewhat favoured, so only gross bias fails (a key never
	// or far too often drawn, as when chain tails are unreachable).
	mean := draws / n
	for i, c := range counts {
		if c < mean/4 || c > mean*3 {
			t.Fatalf("key %d drawn %d times, mean %d", i, c, mean)
		}
	}
	for _, want := range []int{1, 5, 20, 64, 100, 300} {
		seen := map[string]bool{}
		got := d.SampleFrom(r, want, func(k string, v *int) {
			if seen[k] {
				t.Fatalf("Sample(%d) repeated %q", want, k)
			}
			seen[k] = true
			if strconv.Itoa(*v) != k {
				t.Fatalf("Sample value mismatch for %q", k)
			}
		})
		if got != len(seen) || got > min(want, n) || got == 0 {
			t.Fatalf("Sample(%d) returned %d (%d seen)", want, got, len(seen))
		}
	}
	// Deleting the sampled key from the callback (active expiry).
	before := d.Len()
	got := d.SampleFrom(r, 20, func(k string, _ *int) { d.DeleteString(k) })
	if d.Len() != before-got {
		t.Fatalf("deleted %d of %d sampled", before-d.Len(), got)
	}
	mustCheck(t, d)
	// Sparse table: Sample may return fewer, never garbage; RandomKey always
	// finds the one key.
	d.Clear()
	d.Expand(1 << 16)
	d.UpsertString("only")
	for range 100 {
		if k, _, ok := d.RandomKeyFrom(r); !ok || k != "only" {
			t.Fatal("RandomKey in sparse table")
		}
	}
}
