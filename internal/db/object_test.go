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
	// An entry with a key of up to 23 bytes is one 64-byte allocation:
	// the 40-byte entry, the key's length byte and the key.
	if n := unsafe.Sizeof(Object{}); n != 32 {
		t.Errorf("Object is %d bytes, want 32", n)
	}
	for _, tc := range []struct{ key, want int }{{0, 48}, {7, 48}, {8, 64}, {23, 64}, {24, 80}, {39, 80}, {40, 96}, {127, 176}, {128, 64 + 128}} {
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
