package ds_test

import (
	"math/rand/v2"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// FuzzDict decodes the input as a stream of operations (op byte, key length
// byte, key bytes) applied to a Dict and to a map, and checks they agree.
func FuzzDict(f *testing.F) {
	f.Add([]byte("\x00\x03abc\x00\x03abd\x03\x03abc\x05\x03abd"))
	f.Add([]byte("\x00\x00\x00\x01a\x00\x02ab\x09\x00\x07\x05\x08\x00\x06\x00"))
	long := []byte{}
	for i := range 300 {
		long = append(long, byte(i%10), 2, byte(i), byte(i>>8))
	}
	f.Add(long)
	f.Fuzz(func(t *testing.T, data []byte) {
		d := ds.New[int](0)
		model := map[string]int{}
		r := rand.New(rand.NewPCG(uint64(len(data)), 1))
		var cursor uint64
		for i := 0; i+1 < len(data); {
			op, n := data[i], int(data[i+1]%40)
			i += 2
			key := data[i:min(i+n, len(data))]
			i += len(key)
			switch op % 10 {
			case 0, 1, 2:
				v, existed := d.Upsert(key)
				if _, ok := model[string(key)]; ok != existed {
					t.Fatalf("Upsert(%q) existed=%v", key, existed)
				}
				*v = i
				model[string(key)] = i
			case 3, 4:
				v, ok := d.Delete(key)
				mv, mok := model[string(key)]
				if ok != mok || v != mv {
					t.Fatalf("Delete(%q) = %d,%v want %d,%v", key, v, ok, mv, mok)
				}
				delete(model, string(key))
			case 5:
				p := d.Find(key)
				mv, mok := model[string(key)]
				if (p != nil) != mok || (p != nil && *p != mv) {
					t.Fatalf("Find(%q)", key)
				}
			case 6:
				cursor = d.Scan(cursor, func(k string, v *int) {
					if mv, ok := model[k]; !ok || mv != *v {
						t.Fatalf("Scan returned %q not in model", k)
					}
				})
			case 7:
				switch len(key) % 5 {
				case 0:
					d.Rehash(len(key))
				case 1:
					d.Expand(len(model) + 8*len(key))
				case 2:
					d.Shrink()
				case 3:
					d.SetResizePolicy(ds.ResizePolicy(len(key) % 3))
				case 4:
					d.ResizeIfNeeded()
				}
			case 8:
				d.SampleFrom(r, len(key)+1, func(k string, v *int) {
					if mv, ok := model[k]; !ok || mv != *v {
						t.Fatalf("Sample returned %q not in model", k)
					}
				})
			case 9:
				k, v, ok := d.RandomKeyFrom(r)
				if ok != (len(model) > 0) || (ok && model[k] != *v) {
					t.Fatalf("RandomKey = %q,%v", k, ok)
				}
			}
			if d.Len() != len(model) {
				t.Fatalf("Len %d, model %d", d.Len(), len(model))
			}
		}
		if err := d.CheckInvariants(); err != nil {
			t.Fatal(err)
		}
		seen := map[string]bool{}
		for c := d.Scan(0, func(k string, _ *int) { seen[k] = true }); c != 0; {
			c = d.Scan(c, func(k string, _ *int) { seen[k] = true })
		}
		for k, v := range model {
			if !seen[k] {
				t.Fatalf("full Scan missed %q", k)
			}
			if p := d.FindString(k); p == nil || *p != v {
				t.Fatalf("FindString(%q)", k)
			}
		}
	})
}
