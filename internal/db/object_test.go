package db

import (
	"bytes"
	"math"
	"testing"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
)

// TestObjectStr: a string value round-trips through Val with its length
// and capacity, aliasing the caller's buffer; a collection has no string.
func TestObjectStr(t *testing.T) {
	buf := make([]byte, 5, 16)
	copy(buf, "hello")
	for _, tc := range []struct {
		name         string
		in           []byte
		wantLen, cap int
	}{
		{"nil", nil, 0, 0},
		{"empty", []byte{}, 0, 0},
		{"empty with room", make([]byte, 0, 8), 0, 8},
		{"value", buf, 5, 16},
		{"full", []byte("abc"), 3, 3},
	} {
		var o Object
		o.Type = TypeString
		o.SetStr(tc.in)
		got := o.Str()
		if len(got) != tc.wantLen || cap(got) != tc.cap || !bytes.Equal(got, tc.in) {
			t.Errorf("%s: Str() = %q (len %d cap %d), want %q (len %d cap %d)", tc.name, got, len(got), cap(got), tc.in, tc.wantLen, tc.cap)
		}
		if tc.cap > 0 && unsafe.SliceData(got) != unsafe.SliceData(tc.in) {
			t.Errorf("%s: Str() does not alias the buffer given to SetStr", tc.name)
		}
	}
	o := newObject(TypeList, ds.NewQuicklist())
	if o.Str() != nil {
		t.Error("a list has string bytes")
	}
	// An entry with a key of up to 15 bytes is one 48-byte allocation:
	// the 32-byte entry, the key's length byte and the key.
	if n := unsafe.Sizeof(Object{}); n != 24 {
		t.Errorf("Object is %d bytes, want 24", n)
	}
	for _, tc := range []struct{ key, want int }{{0, 48}, {15, 48}, {16, 64}, {31, 64}, {32, 80}, {47, 80}, {48, 96}, {127, 160}, {128, 64 + 128}} {
		if n := ds.EntryMemUsage[Object](tc.key); n != tc.want {
			t.Errorf("entry with a %d-byte key: %d heap bytes, want %d", tc.key, n, tc.want)
		}
	}
}

// TestObjectStrOver4GB: a buffer whose capacity does not fit n and c
// (proto-max-bulk-len raised past 4 GB) is kept whole. The allocation is
// virtual: fresh pages from the OS are not touched.
func TestObjectStrOver4GB(t *testing.T) {
	if unsafe.Sizeof(uintptr(0)) < 8 {
		t.Skip("32-bit platform")
	}
	if testing.Short() {
		t.Skip("allocates 4 GB of address space")
	}
	b := make([]byte, 3, math.MaxUint32+16)
	copy(b, "abc")
	var o Object
	o.SetStr(b)
	got := o.Str()
	if len(got) != 3 || cap(got) != cap(b) || string(got) != "abc" {
		t.Fatalf("Str() len %d cap %d %q, want len 3 cap %d", len(got), cap(got), got[:min(len(got), 3)], cap(b))
	}
}

// TestObjectTagBits: the value's kind, the string form and the TTL bit
// share one byte; setting any of them leaves the others as they were.
func TestObjectTagBits(t *testing.T) {
	var o Object
	o.setHasTTL(true)
	o.SetForm(StrFloat)
	o.SetStr([]byte("abc"))
	if !o.HasTTL() || o.Form() != StrFloat || o.kind() != kindStr {
		t.Fatalf("after SetStr: ttl %v form %d kind %d", o.HasTTL(), o.Form(), o.kind())
	}
	ql := ds.NewQuicklist()
	o.SetValue(ql)
	o.SetForm(StrRaw)
	if !o.HasTTL() || o.Form() != StrRaw || o.kind() != kindQuicklist || o.Value() != any(ql) {
		t.Fatalf("after SetValue: ttl %v form %d kind %d", o.HasTTL(), o.Form(), o.kind())
	}
	o.setHasTTL(false)
	if o.HasTTL() || o.Form() != StrRaw || o.kind() != kindQuicklist {
		t.Fatalf("after clearing the TTL: ttl %v form %d kind %d", o.HasTTL(), o.Form(), o.kind())
	}
	o.SetValue(nil)
	if o.Value() != nil || o.Str() != nil {
		t.Fatal("no value, yet Value or Str has one")
	}
	defer func() {
		if recover() == nil {
			t.Error("SetValue took a value of a type it does not know")
		}
	}()
	o.SetValue("not a value")
}

// TestObjectPackInline: a set's or sorted set's Pack is the object's own
// val, n and c: SetValue copies it in, Value points into the object, so
// edits through Value are the key's value and the caller's struct is not;
// another kind of value clears the lengths.
func TestObjectPackInline(t *testing.T) {
	o := &Object{Type: TypeSet, LRU: 7}
	o.setHasTTL(true)
	var p ds.Pack
	p.Append([]byte("a"))
	o.SetValue(&p)
	p.Append([]byte("lost")) // the caller's copy: not the value
	v := o.Value().(*ds.Pack)
	if unsafe.Pointer(v) != unsafe.Pointer(o) || v.Len() != 1 {
		t.Fatalf("Value: %p, object %p, %d entries", v, o, v.Len())
	}
	v.Append([]byte("b"))
	v.Append([]byte("c"))
	if got := o.Value().(*ds.Pack); got.Len() != 3 || got.Find([]byte("c")) < 0 || got.Find([]byte("lost")) >= 0 {
		t.Fatalf("after edits through Value: %d entries", got.Len())
	}
	if o.Type != TypeSet || o.LRU != 7 || !o.HasTTL() || o.kind() != kindPack {
		t.Fatalf("the Pack overwrote the object's other fields: type %d lru %d ttl %v kind %d", o.Type, o.LRU, o.HasTTL(), o.kind())
	}
	if valueMem(o) != int64(v.MemUsage()) || v.MemUsage() == 0 {
		t.Errorf("valueMem %d, the buffer's %d", valueMem(o), v.MemUsage())
	}
	var z ds.ZPack
	z.Insert([]byte("m"), 1.5)
	o.SetValue(&z)
	if zv := o.Value().(*ds.ZPack); unsafe.Pointer(zv) != unsafe.Pointer(o) || zv.Len() != 1 {
		t.Fatalf("ZPack: %p, object %p", zv, o)
	}
	o.SetValue(ds.NewIntSet())
	if o.n != 0 || o.c != 0 || o.Str() != nil {
		t.Fatalf("an intset left n %d c %d", o.n, o.c)
	}
}
