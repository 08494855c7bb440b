package ds_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// TestIntSetModel compares IntSet with a sorted slice under seeded random
// operations, with values drawn so that every width upgrade happens.
func TestIntSetModel(t *testing.T) {
	for seed := range uint64(20) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 3))
			s := ds.NewIntSet()
			var model []int64
			value := func() int64 {
				switch r.IntN(10) {
				case 0:
					return r.Int64() - math.MaxInt64/2*int64(r.IntN(3))
				case 1:
					return int64(r.Int32()) - math.MaxInt32/2
				case 2:
					return []int64{math.MinInt64, math.MaxInt64, math.MinInt32, math.MaxInt32,
						math.MinInt16, math.MaxInt16, math.MinInt16 - 1, math.MaxInt16 + 1}[r.IntN(8)]
				}
				return int64(r.IntN(200) - 100)
			}
			for op := range 3000 {
				v := value()
				i, found := slices.BinarySearch(model, v)
				switch r.IntN(4) {
				case 0, 1:
					if s.Add(v) == found {
						t.Fatalf("op %d Add(%d) result", op, v)
					}
					if !found {
						model = slices.Insert(model, i, v)
					}
				case 2:
					if s.Remove(v) != found {
						t.Fatalf("op %d Remove(%d) result", op, v)
					}
					if found {
						model = slices.Delete(model, i, i+1)
					}
				default:
					if s.Contains(v) != found {
						t.Fatalf("op %d Contains(%d)", op, v)
					}
				}
				if s.Len() != len(model) {
					t.Fatalf("op %d Len %d, model %d", op, s.Len(), len(model))
				}
				if op%100 == 0 {
					if got := slices.Collect(s.All()); !slices.Equal(got, model) {
						t.Fatalf("op %d contents %v, want %v", op, got, model)
					}
					want := 2
					for _, x := range model {
						if x < math.MinInt32 || x > math.MaxInt32 {
							want = 8
						} else if (x < math.MinInt16 || x > math.MaxInt16) && want < 4 {
							want = 4
						}
					}
					// Width never shrinks, so it is at least what the
					// current elements need.
					if s.Width() < want {
						t.Fatalf("op %d width %d, need %d", op, s.Width(), want)
					}
				}
			}
		})
	}
}

func TestIntSetUpgrade(t *testing.T) {
	var s ds.IntSet // zero value works
	for _, v := range []int64{5, 1, 3} {
		s.Add(v)
	}
	if s.Width() != 2 {
		t.Fatal(s.Width())
	}
	s.Add(-70000) // prepend with upgrade to 4
	if s.Width() != 4 || s.Min() != -70000 || s.Max() != 5 {
		t.Fatalf("width %d min %d max %d", s.Width(), s.Min(), s.Max())
	}
	s.Add(1 << 40) // append with upgrade to 8
	if s.Width() != 8 || s.Max() != 1<<40 || s.Get(1) != 1 {
		t.Fatal("upgrade to 8")
	}
	s.Remove(1 << 40)
	s.Remove(-70000)
	if s.Width() != 8 {
		t.Fatal("width must not shrink")
	}
	if s.Contains(1<<40) || !s.Contains(3) {
		t.Fatal("Contains after remove")
	}
	// Values wider than the encoding are absent without a search.
	var small ds.IntSet
	small.Add(1)
	if small.Contains(1<<40) || small.Remove(math.MinInt64) {
		t.Fatal("wide value in a narrow set")
	}
}

func TestIntSetRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	s := ds.NewIntSet()
	if _, ok := s.Random(r); ok {
		t.Fatal("Random on empty set")
	}
	for i := range 10 {
		s.Add(int64(i * 1000))
	}
	counts := map[int64]int{}
	for range 10000 {
		v, _ := s.Random(r)
		counts[v]++
	}
	for v, c := range counts {
		if v%1000 != 0 || c < 800 || c > 1200 {
			t.Fatalf("value %d drawn %d times", v, c)
		}
	}
	if len(counts) != 10 {
		t.Fatalf("drew %d distinct values", len(counts))
	}
}

func TestIntSetBlob(t *testing.T) {
	s := ds.NewIntSet()
	for _, v := range []int64{-3, 7, 70000} {
		s.Add(v)
	}
	blob := s.AppendBlob(nil)
	want := []byte{4, 0, 0, 0, 3, 0, 0, 0, 0xfd, 0xff, 0xff, 0xff, 7, 0, 0, 0, 0x70, 0x11, 1, 0}
	if !slices.Equal(blob, want) {
		t.Fatalf("blob % x", blob)
	}
	back, err := ds.IntSetFromBlob(blob)
	if err != nil || !slices.Equal(slices.Collect(back.All()), []int64{-3, 7, 70000}) {
		t.Fatalf("round trip: %v", err)
	}
	bad := [][]byte{
		nil,
		{4, 0, 0, 0, 1, 0, 0},                               // short header
		{3, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0},                   // bad width
		{2, 0, 0, 0, 2, 0, 0, 0, 1, 0},                      // length mismatch
		{2, 0, 0, 0, 0, 0, 0, 0},                            // empty
		{2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 5, 0},                // duplicate
		{2, 0, 0, 0, 2, 0, 0, 0, 5, 0, 4, 0},                // unsorted
		{2, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 1, 0, 2, 0, 3}, // huge count
	}
	for i, b := range bad {
		if _, err := ds.IntSetFromBlob(b); !errors.Is(err, ds.ErrCorruptIntSet) {
			t.Errorf("bad blob %d accepted", i)
		}
	}
}

func BenchmarkIntSet(b *testing.B) {
	s := ds.NewIntSet()
	for i := range 512 {
		s.Add(int64(i * 3))
	}
	b.Run("Contains", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			s.Contains(int64(i % 1600))
			i++
		}
	})
	b.Run("AddRemove", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			v := int64(i%512*3 + 1)
			s.Add(v)
			s.Remove(v)
			i++
		}
	})
}
