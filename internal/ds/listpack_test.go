package ds

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestListpackModel checks Append/Replace/Delete against a slice, and that
// the allocation always stays exactly the size class of its contents.
func TestListpackModel(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	lp := NewListpack()
	var model [][]byte
	val := func() []byte {
		n := r.IntN(70)
		switch r.IntN(20) {
		case 0:
			n = 240 + r.IntN(4000)
		case 1:
			n = 4080 + r.IntN(3000)
		}
		return bytes.Repeat([]byte{byte('a' + r.IntN(26))}, n)
	}
	offset := func(i int) int {
		p := 0
		for ; i > 0; i-- {
			p = lp.Skip(p)
		}
		return p
	}
	for step := 0; step < 20000; step++ {
		switch op := r.IntN(6); {
		case op < 3 || len(model) == 0:
			v := val()
			lp = lp.Append(v)
			model = append(model, v)
		case op == 3:
			i := r.IntN(len(model))
			v := val()
			lp = lp.Replace(offset(i), v)
			model[i] = v
		default:
			i := r.IntN(len(model))
			n := 1 + r.IntN(min(3, len(model)-i))
			lp = lp.Delete(offset(i), n)
			model = slices.Delete(model, i, i+n)
		}
		if lp.Len() != len(model) {
			t.Fatalf("step %d: Len %d want %d", step, lp.Len(), len(model))
		}
		var got [][]byte
		for p := 0; p < lp.End(); {
			var v []byte
			v, p = lp.Next(p)
			got = append(got, v)
		}
		if !slices.EqualFunc(got, model, bytes.Equal) {
			t.Fatalf("step %d: contents differ", step)
		}
		if lp.MemUsage() != allocSize(lpHeader+lp.Size()) {
			t.Fatalf("step %d: allocation not exact", step)
		}
	}
	c := lp.Clone()
	lp = lp.Append([]byte("x"))
	if c.Len() != len(model) {
		t.Fatal("clone shares the listpack")
	}
}

func TestListpackEmpty(t *testing.T) {
	lp := NewListpack()
	if lp.Len() != 0 || lp.End() != 0 || lp.MemUsage() != 8 {
		t.Fatalf("empty: len %d end %d mem %d", lp.Len(), lp.End(), lp.MemUsage())
	}
	lp = lp.Append(nil).Append([]byte("ab"))
	v, next := lp.Next(0)
	if len(v) != 0 || next != 1 {
		t.Fatalf("empty entry: %q %d", v, next)
	}
	lp = lp.Delete(0, 2)
	if lp.Len() != 0 || lp.End() != 0 {
		t.Fatal("not empty after deleting everything")
	}
}
