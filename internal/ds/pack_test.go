package ds

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// packEntries reads every entry front to back and back to front and checks
// that both walks agree.
func packEntries(t *testing.T, p *Pack) [][]byte {
	t.Helper()
	var fwd [][]byte
	for off := 0; off < p.End(); {
		v, next := p.Entry(off)
		fwd = append(fwd, append([]byte(nil), v...))
		off = next
	}
	var back [][]byte
	for off := p.Last(); off >= 0; off = p.Prev(off) {
		v, _ := p.Entry(off)
		back = append(back, append([]byte(nil), v...))
	}
	slices.Reverse(back)
	if len(fwd) != p.Len() || len(back) != p.Len() {
		t.Fatalf("Len %d, forward walk %d, backward walk %d", p.Len(), len(fwd), len(back))
	}
	for i := range fwd {
		if !bytes.Equal(fwd[i], back[i]) {
			t.Fatalf("entry %d: forward %q, backward %q", i, fwd[i], back[i])
		}
	}
	return fwd
}

func TestPackBasics(t *testing.T) {
	var p Pack
	if p.Len() != 0 || p.Last() != -1 || p.Seek(0) != -1 || p.Find([]byte("a")) != -1 {
		t.Fatal("zero Pack is not empty")
	}
	p.Append([]byte("b"))
	p.Append(nil)
	p.Insert(0, []byte("a"))
	long := bytes.Repeat([]byte("x"), 300) // two-byte lengths both ways
	p.Insert(p.Seek(2), long)
	got := packEntries(t, &p)
	want := [][]byte{[]byte("a"), []byte("b"), long, {}}
	if len(got) != len(want) {
		t.Fatalf("got %d entries", len(got))
	}
	for i := range want {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("entry %d = %q, want %q", i, got[i], want[i])
		}
	}
	if off := p.Find(long); off != p.Seek(2) || p.Seek(-2) != off {
		t.Fatalf("Find/Seek disagree: %d %d %d", off, p.Seek(2), p.Seek(-2))
	}
	if p.Find([]byte("")) != p.Seek(3) {
		t.Fatal("empty entry not found")
	}
	p.Delete(p.Seek(1))
	p.DeleteRange(p.Seek(1), 5) // past the end: stops at the end
	got = packEntries(t, &p)
	if len(got) != 1 || string(got[0]) != "a" {
		t.Fatalf("after deletes: %q", got)
	}
	c := p.Clone()
	c.Append([]byte("z"))
	if p.Len() != 1 || c.Len() != 2 {
		t.Fatal("Clone shares state")
	}
}

// TestPackRandom checks a Pack against a slice model under random edits,
// with lengths that need one to three varint bytes.
func TestPackRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var p Pack
	var model [][]byte
	for step := range 4000 {
		switch op := r.IntN(10); {
		case op < 5 || len(model) == 0:
			n := r.IntN(40)
			if r.IntN(50) == 0 {
				n = 128 + r.IntN(20000)
			}
			v := bytes.Repeat([]byte{byte('a' + step%26)}, n)
			i := r.IntN(len(model) + 1)
			off := p.End()
			if i < len(model) {
				off = p.Seek(i)
			}
			p.Insert(off, v)
			model = slices.Insert(model, i, v)
		case op < 8:
			i := r.IntN(len(model))
			p.Delete(p.Seek(i))
			model = slices.Delete(model, i, i+1)
		default:
			i := r.IntN(len(model))
			k := r.IntN(4)
			p.DeleteRange(p.Seek(i), k)
			model = slices.Delete(model, i, min(i+k, len(model)))
		}
		if step%97 == 0 {
			got := packEntries(t, &p)
			if !slices.EqualFunc(got, model, bytes.Equal) {
				t.Fatalf("step %d: pack diverged from model", step)
			}
		}
	}
}

func TestZPackOrder(t *testing.T) {
	var z ZPack
	type pair struct {
		m string
		s float64
	}
	r := rand.New(rand.NewPCG(1, 1))
	var model []pair
	for i := range 300 {
		m := fmt.Sprintf("m%d", r.IntN(200))
		s := float64(r.IntN(20)) - 10
		if i%50 == 0 {
			s = math.Inf(1 - 2*(i%2))
		}
		if off, _ := z.Find([]byte(m)); off >= 0 {
			z.Delete(off)
			model = slices.DeleteFunc(model, func(p pair) bool { return p.m == m })
		}
		z.Insert([]byte(m), s)
		model = append(model, pair{m, s})
	}
	slices.SortFunc(model, func(a, b pair) int {
		if c := cmp.Compare(a.s, b.s); c != 0 {
			return c
		}
		return cmp.Compare(a.m, b.m)
	})
	if z.Len() != len(model) {
		t.Fatalf("Len %d, model %d", z.Len(), len(model))
	}
	i := 0
	for off := z.First(); off >= 0; off = z.Next(off) {
		m, s, _ := z.At(off)
		if string(m) != model[i].m || s != model[i].s {
			t.Fatalf("rank %d: (%s %v), want (%s %v)", i, m, s, model[i].m, model[i].s)
		}
		if rk, rs, ok := z.Rank(m); !ok || rk != i || rs != s {
			t.Fatalf("Rank(%s) = %d %v %v", m, rk, rs, ok)
		}
		i++
	}
	i = len(model) - 1
	for off := z.Last(); off >= 0; off = z.Prev(off) {
		m, _, _ := z.At(off)
		if string(m) != model[i].m {
			t.Fatalf("backward rank %d: %s, want %s", i, m, model[i].m)
		}
		i--
	}
	if off, _ := z.Find([]byte("nosuch")); off != -1 {
		t.Fatal("found a missing member")
	}
}

// TestPackHeader: the struct is a pointer and two 32-bit lengths (package
// db overlays it on its Object's first 16 bytes), the count lives in the
// buffer's trailer, and the buffer round-trips through the struct.
func TestPackHeader(t *testing.T) {
	if n := unsafe.Sizeof(Pack{}); n != 16 || unsafe.Sizeof(ZPack{}) != n {
		t.Errorf("Pack is %d bytes, ZPack %d; want 16", n, unsafe.Sizeof(ZPack{}))
	}
	var p Pack
	if p.bytes() != nil || p.Len() != 0 || p.End() != 0 || p.MemUsage() != 0 {
		t.Fatal("zero Pack not empty")
	}
	for i := range 40 {
		p.Append([]byte(strings.Repeat("v", i)))
	}
	if b := p.bytes(); len(b) != p.End()+packTrailer || binary.LittleEndian.Uint32(b[p.End():]) != 40 {
		t.Fatalf("buffer of %d bytes, End %d, trailer %v", len(b), p.End(), b[p.End():])
	}
	c := p.Clone()
	for i, off := 0, 0; off < p.End(); i++ {
		v, next := p.Entry(off)
		w, _ := c.Entry(off)
		if len(v) != i || string(v) != string(w) {
			t.Fatalf("entry %d: %q, clone %q", i, v, w)
		}
		off = next
	}
	if c.Bytes() != p.Bytes() || c.Len() != 40 || p.MemUsage() != allocSize(cap(p.bytes())) {
		t.Errorf("clone %d bytes, %d entries, of %d; MemUsage %d", c.Bytes(), c.Len(), p.Bytes(), p.MemUsage())
	}
	// Emptied by Delete and by DeleteRange: no entries, and usable again.
	for _, del := range []func(*Pack){
		func(p *Pack) {
			for p.Len() > 0 {
				p.Delete(0)
			}
		},
		func(p *Pack) { p.DeleteRange(0, 100) },
	} {
		q := p.Clone()
		del(q)
		if q.Len() != 0 || q.End() != 0 || q.Last() != -1 || q.Seek(0) != -1 || q.Find(nil) != -1 {
			t.Fatalf("emptied Pack: Len %d End %d Last %d", q.Len(), q.End(), q.Last())
		}
		q.Append([]byte("x"))
		if got := packEntries(t, q); len(got) != 1 || string(got[0]) != "x" {
			t.Fatalf("after emptying and an append: %q", got)
		}
	}
}

// TestPackReserve: Reserve grows an empty or full buffer to the size
// class of exactly what is asked, and the appends it made room for do not
// move the buffer.
func TestPackReserve(t *testing.T) {
	for _, pre := range []int{0, 3} {
		var p Pack
		for range pre {
			p.Append([]byte("0123456789abcdef"))
		}
		size := 7 * PackEntrySize(16)
		p.Reserve(size)
		want := allocSize(max(p.Bytes(), packTrailer) + size)
		if cap(p.bytes()) != want || p.Len() != pre {
			t.Fatalf("after %d appends, Reserve(%d): cap %d, want %d; Len %d", pre, size, cap(p.bytes()), want, p.Len())
		}
		buf := p.ptr
		for range 7 {
			p.Append([]byte("fedcba9876543210"))
		}
		if p.ptr != buf || p.Len() != pre+7 || len(packEntries(t, &p)) != pre+7 {
			t.Fatalf("the reserved appends moved the buffer or lost entries (Len %d)", p.Len())
		}
		p.Reserve(0)
		if p.ptr != buf {
			t.Fatal("Reserve(0) moved the buffer")
		}
	}
}
