package ds

import (
	"strings"
	"unsafe"
)

// maxInlineKey is the longest key stored inside its entry's allocation.
// Longer keys are cloned into an allocation of their own.
const maxInlineKey = 128

// inlineEntry is an entry followed by a byte array B holding its key, so an
// insert costs one allocation instead of two. B is always a [N]byte.
type inlineEntry[V any, B any] struct {
	e   entry[V]
	buf B
}

// newEntry allocates an entry owning a copy of key.
func newEntry[V any](key string) *entry[V] {
	switch n := len(key); {
	case n == 0:
		return &entry[V]{}
	case n <= 8:
		return allocInline[V, [8]byte](key)
	case n <= 16:
		return allocInline[V, [16]byte](key)
	case n <= 24:
		return allocInline[V, [24]byte](key)
	case n <= 32:
		return allocInline[V, [32]byte](key)
	case n <= 48:
		return allocInline[V, [48]byte](key)
	case n <= 64:
		return allocInline[V, [64]byte](key)
	case n <= 96:
		return allocInline[V, [96]byte](key)
	case n <= maxInlineKey:
		return allocInline[V, [maxInlineKey]byte](key)
	default:
		return &entry[V]{key: strings.Clone(key)}
	}
}

func allocInline[V any, B any](key string) *entry[V] {
	p := new(inlineEntry[V, B])
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&p.buf)), len(key))
	copy(buf, key)
	// The string points into p itself. buf is never written again, which is
	// what makes the unsafe.String legal, and the interior pointer keeps
	// the whole allocation (entry included) alive.
	p.e.key = unsafe.String(&buf[0], len(key))
	return &p.e
}

// inlineClass returns the size of the key array newEntry uses for an n-byte
// key, or -1 when the key is allocated separately.
func inlineClass(n int) int {
	switch {
	case n == 0:
		return 0
	case n <= 32:
		return (n + 7) &^ 7
	case n <= 48:
		return 48
	case n <= 64:
		return 64
	case n <= 96:
		return 96
	case n <= maxInlineKey:
		return maxInlineKey
	}
	return -1
}

// entrySize estimates the heap bytes of an entry with an n-byte key.
func entrySize[V any](n int) int {
	base := int(unsafe.Sizeof(entry[V]{}))
	if c := inlineClass(n); c >= 0 {
		return allocSize(base + c)
	}
	return allocSize(base) + allocSize(n)
}

// allocSize rounds n up roughly the way Go's allocator size classes do
// (exact below 256 bytes, an over-estimate by at most 1/8 above).
func allocSize(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= 16:
		return (n + 7) &^ 7
	case n <= 32:
		if n <= 24 {
			return 24
		}
		return 32
	case n <= 256:
		if n <= 48 {
			return 48
		}
		return (n + 15) &^ 15
	}
	// Above 256 bytes classes are spaced at most 1/8 apart.
	step := 1
	for step*8 < n {
		step <<= 1
	}
	return (n + step - 1) / step * step
}
