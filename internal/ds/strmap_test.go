package ds

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// checkStrMap verifies m against model: the same keys and values through
// Get, Range and a full Scan; owners and oidx agree; the index holds
// exactly the owned records under their keys' hashes (checkOIndex); and
// the slabs hold exactly the owned records live (checkArena), or, in a
// small map, recBytes is the sum of its records' sizes.
func checkStrMap(t *testing.T, m *StrMap, model map[string]string) {
	t.Helper()
	if m.Len() != len(model) {
		t.Fatalf("Len %d, model %d", m.Len(), len(model))
	}
	owned := map[unsafe.Pointer]bool{}
	for i, r := range m.owners {
		if int(r.oidx) != i {
			t.Fatalf("owners[%d] says it is at %d", i, r.oidx)
		}
		owned[unsafe.Pointer(r)] = true
	}
	if m.slabbed {
		checkArena(t, &m.slabs, owned, func(p unsafe.Pointer) (int, bool) {
			r := (*strRec)(p)
			return r.size(), r.oidx != strDead
		})
		if m.recBytes != 0 {
			t.Fatalf("slabbed, and recBytes %d", m.recBytes)
		}
	} else {
		bytes := 0
		for _, r := range m.owners {
			bytes += allocSize(r.size())
		}
		if bytes != m.recBytes || len(m.slabs.slabs) != 0 || m.Len() > strSmallMax {
			t.Fatalf("small map of %d: recBytes %d, records %d, %d slabs", m.Len(), m.recBytes, bytes, len(m.slabs.slabs))
		}
	}
	checkOIndex(t, &m.idx, owned, func(p unsafe.Pointer) uint64 { return Hash((*strRec)(p).key()) })
	for k, v := range model {
		got, ok := m.Get([]byte(k))
		if !ok || string(got) != v || !m.Has([]byte(k)) {
			t.Fatalf("Get(%q) = %q, %v; want %q", k, got, ok, v)
		}
	}
	seen := map[string]bool{}
	m.Range(func(k, v []byte) bool {
		if seen[string(k)] || model[string(k)] != string(v) {
			t.Fatalf("Range: %q=%q repeated or not in the model", k, v)
		}
		seen[string(k)] = true
		return true
	})
	if len(seen) != len(model) {
		t.Fatalf("Range saw %d keys, want %d", len(seen), len(model))
	}
	scanned := 0
	for c := m.Scan(0, func(k, v []byte) { scanned++ }); c != 0; c = m.Scan(c, func(k, v []byte) { scanned++ }) {
	}
	if scanned != len(model) {
		t.Fatalf("Scan saw %d keys, want %d", scanned, len(model))
	}
}

// TestStrMapModel runs random Add, Set, Delete and lookups against a Go
// map, with keys and values of many lengths (values across size-class
// boundaries, so Set both rewrites in place and moves a record), through
// growth, shrinking and resizes in progress, checking the map after every
// batch. A collection runs between batches: a record reachable only
// through the index (a lost owners pointer) would be freed and show up as
// a wrong key.
func TestStrMapModel(t *testing.T) {
	for _, keys := range []int{8, 300, 5000} {
		t.Run(fmt.Sprint(keys), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(keys), 7))
			m := NewStrMap(0)
			model := map[string]string{}
			peak := 0
			key := func() []byte {
				k := r.IntN(keys)
				return []byte(fmt.Sprintf("%0*d", 1+k%40, k))
			}
			for batch := range 60 {
				for range 500 {
					k := key()
					op := r.IntN(10)
					if batch > 30 { // the last batches only remove and look up: shrinks
						op = 6 + r.IntN(4)
					}
					switch {
					case op < 3:
						_, present := model[string(k)]
						if m.Add(k) == present {
							t.Fatalf("Add(%q) with the key present=%v", k, present)
						}
						if !present {
							model[string(k)] = ""
						}
					case op < 6:
						v := make([]byte, r.IntN(60))
						for i := range v {
							v[i] = byte('a' + r.IntN(26))
						}
						_, present := model[string(k)]
						if m.Set(k, v) == present {
							t.Fatalf("Set(%q) with the key present=%v", k, present)
						}
						model[string(k)] = string(v)
					case op < 9:
						_, present := model[string(k)]
						if m.Delete(k) != present {
							t.Fatalf("Delete(%q) with the key present=%v", k, present)
						}
						delete(model, string(k))
					default:
						before := m.MemUsage()
						_, ok := m.Get(k)
						if _, present := model[string(k)]; ok != present || m.Has(k) != present {
							t.Fatalf("Get(%q) = %v, model %v", k, ok, present)
						}
						if m.MemUsage() != before {
							t.Fatal("a lookup changed MemUsage")
						}
					}
				}
				runtime.GC()
				checkStrMap(t, m, model)
				peak = max(peak, len(m.idx.tables[0].slots))
			}
			if keys > 1000 && len(m.idx.tables[0].slots) >= peak {
				t.Fatalf("the index never shrank from %d slots (%d keys left)", peak, m.Len())
			}
		})
	}
}

// TestStrMapEmptyKeysAndValues: an empty key and empty values are real
// entries, handed out as empty (not nil) slices.
func TestStrMapEmptyKeysAndValues(t *testing.T) {
	m := NewStrMap(0)
	if !m.Add(nil) || m.Add([]byte{}) {
		t.Fatal("Add of the empty key: want added once")
	}
	v, ok := m.Get(nil)
	if !ok || v == nil || len(v) != 0 {
		t.Fatalf("Get(empty) = %v, %v", v, ok)
	}
	m.Set(nil, []byte("x"))
	m.Range(func(k, v []byte) bool {
		if k == nil || len(k) != 0 || string(v) != "x" {
			t.Fatalf("Range: %v=%q", k, v)
		}
		return true
	})
	checkStrMap(t, m, map[string]string{"": "x"})
}

// TestStrMapRangeDeletes: deleting the visited key from Range visits every
// key exactly once and empties the map.
func TestStrMapRangeDeletes(t *testing.T) {
	m := NewStrMap(0)
	for i := range 1000 {
		m.Add(fmt.Appendf(nil, "k%d", i))
	}
	seen := map[string]bool{}
	m.Range(func(k, _ []byte) bool {
		if seen[string(k)] {
			t.Fatalf("%q visited twice", k)
		}
		seen[string(k)] = true
		if !m.Delete(k) {
			t.Fatalf("Delete(%q) from Range failed", k)
		}
		return true
	})
	if len(seen) != 1000 || m.Len() != 0 {
		t.Fatalf("visited %d, %d left", len(seen), m.Len())
	}
	checkStrMap(t, m, map[string]string{})
}

// TestStrMapScanGuarantee: keys present for a whole scan are reported
// even while others are added and removed between calls.
func TestStrMapScanGuarantee(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	m := NewStrMap(0)
	for i := range 2000 {
		m.Add(fmt.Appendf(nil, "stay%d", i))
	}
	seen := map[string]bool{}
	next := 0
	for c := uint64(0); ; {
		c = m.Scan(c, func(k, _ []byte) { seen[string(k)] = true })
		for range 3 {
			if r.IntN(2) == 0 {
				m.Add(fmt.Appendf(nil, "tmp%d", next))
				next++
			} else if next > 0 {
				m.Delete(fmt.Appendf(nil, "tmp%d", r.IntN(next)))
			}
		}
		if c == 0 {
			break
		}
	}
	for i := range 2000 {
		if !seen[fmt.Sprintf("stay%d", i)] {
			t.Fatalf("stay%d not reported", i)
		}
	}
}

// TestStrMapRandom: Random only returns present keys and reaches every
// key of a small map.
func TestStrMapRandom(t *testing.T) {
	m := NewStrMap(0)
	if _, _, ok := m.Random(nil); ok {
		t.Fatal("Random of an empty map")
	}
	for i := range 10 {
		m.Set(fmt.Appendf(nil, "k%d", i), fmt.Appendf(nil, "v%d", i))
	}
	seen := map[string]bool{}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		k, v, ok := m.Random(r)
		if !ok || string(v) != "v"+string(k[1:]) {
			t.Fatalf("Random = %q %q %v", k, v, ok)
		}
		seen[string(k)] = true
	}
	if len(seen) != 10 {
		t.Fatalf("Random reached %d of 10 keys", len(seen))
	}
}

// TestStrMapMemory: a 128-byte set member costs at most 190 heap bytes
// at any size (Redis 7.0: about 200; per-record allocation, before slabs:
// 163-169; the most is at sizes whose last 32 KB slab is nearly empty),
// and a 128-byte field with a 128-byte value at most 320.
func TestStrMapMemory(t *testing.T) {
	for _, c := range []struct {
		vlen int
		max  float64
	}{{0, 190}, {128, 320}} {
		for _, n := range []int{1000, 3000, 10000} {
			m := NewStrMap(0)
			r := rand.New(rand.NewPCG(uint64(n), 1))
			k, v := make([]byte, 128), make([]byte, c.vlen)
			for m.Len() < n {
				for i := range k {
					k[i] = byte(r.Uint32())
				}
				m.Set(k, v)
			}
			per := float64(m.MemUsage()) / float64(n)
			t.Logf("%d keys, %d-byte values: %.1f bytes each", n, c.vlen, per)
			if per > c.max {
				t.Errorf("%d keys, %d-byte values: %.0f bytes each, want <= %.0f", n, c.vlen, per, c.max)
			}
		}
	}
}

// TestStrMapSlabsEvacuate: testSlabsEvacuate on a StrMap checked against
// a model, and a value slice taken before its key was deleted and its slab
// evacuated still reads the same bytes.
func TestStrMapSlabsEvacuate(t *testing.T) {
	m := NewStrMap(0)
	model := map[string]string{}
	var held []byte
	var want string
	testSlabsEvacuate(t, slabContainer{
		arena: &m.slabs,
		add: func(k string) {
			v := strings.Repeat("x", len(k)%37) + k
			m.Set([]byte(k), []byte(v))
			model[k] = v
			if held == nil {
				held, _ = m.Get([]byte(k))
				want = string(held)
			}
		},
		remove: func(k string) bool {
			delete(model, k)
			return m.Delete([]byte(k))
		},
		live: func() int {
			b := 0
			for _, x := range m.owners {
				b += x.size()
			}
			return b
		},
		check: func(t *testing.T) { checkStrMap(t, m, model) },
		empty: func() bool { return m.Len() == 0 },
	}, 21)
	runtime.GC()
	if string(held) != want {
		t.Fatalf("a held value changed to %q, want %q", held, want)
	}
	m.Set([]byte("again"), []byte("1"))
	checkStrMap(t, m, map[string]string{"again": "1"})
}

// TestStrMapHintSize: a map sized for n keys holds n without starting a
// resize, in the smallest index that keeps the load at most 3/4 (a
// ten-field hash: 16 slots; a listpack set converted at 129 members: 256).
func TestStrMapHintSize(t *testing.T) {
	for n := 1; n <= 600; n++ {
		m := NewStrMap(n)
		slots := len(m.idx.tables[0].slots)
		if want := oSlotsExact(n); slots != want {
			t.Fatalf("NewStrMap(%d): %d slots, want %d", n, slots, want)
		}
		if slots > oMinSlots && 4*n <= 3*(slots/2) {
			t.Fatalf("NewStrMap(%d): %d slots, half of them would hold it", n, slots)
		}
		for i := range n {
			m.Add(fmt.Appendf(nil, "k%d", i))
		}
		if m.idx.rehashIdx >= 0 || len(m.idx.tables[0].slots) != slots {
			t.Fatalf("NewStrMap(%d) resized while taking %d keys", n, n)
		}
	}
	for n, want := range map[int]int{10: 16, 129: 256} {
		if got := len(NewStrMap(n).idx.tables[0].slots); got != want {
			t.Errorf("NewStrMap(%d): %d slots, want %d", n, got, want)
		}
	}
}
