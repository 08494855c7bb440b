package ds

import (
	"strings"
	"unsafe"
)

// An entry's key follows the entry struct in the same allocation, so the
// struct carries no string header (16 bytes a key): at the struct's end
// there is either
//
//   - a length byte and the key's bytes, for keys of up to maxInlineKey
//     bytes (inlineEntry), or
//   - the byte longKeyTag, padding to 8 bytes and a string header pointing
//     at a separate copy of the key (longEntry).
//
// key reads it back. The bytes are written once, when newEntry builds the
// entry, and never again; that is what makes handing them out as a string
// legal, and the strings key returns point into the allocation, so they
// keep the entry alive like a field would.

// maxInlineKey is the longest key stored inside its entry's allocation.
// Longer keys are cloned into an allocation of their own.
const maxInlineKey = 127

// longKeyTag in the length byte marks a longEntry.
const longKeyTag = 0xff

// inlineEntry is an entry followed by a byte array B holding the key's
// length and bytes, so an insert costs one allocation instead of two. B is
// always a [N]byte.
type inlineEntry[V any, B any] struct {
	e   entry[V]
	buf B
}

// longEntry is an entry whose key is longer than maxInlineKey.
type longEntry[V any] struct {
	e   entry[V]
	tag [8]byte // tag[0] == longKeyTag
	key string
}

// key returns the entry's key.
func (e *entry[V]) key() string {
	p := unsafe.Add(unsafe.Pointer(e), unsafe.Sizeof(*e))
	n := *(*uint8)(p)
	if n == longKeyTag {
		return (*longEntry[V])(unsafe.Pointer(e)).key
	}
	return unsafe.String((*byte)(unsafe.Add(p, 1)), int(n))
}

// newEntry allocates an entry owning a copy of key.
func newEntry[V any](key string) *entry[V] {
	// B holds the length byte too: B's size is inlineClass(len(key)),
	// in steps of 8 up to 64 so that the entry's size class is the least
	// that fits.
	switch n := len(key); {
	case n < 8:
		return allocInline[V, [8]byte](key)
	case n < 16:
		return allocInline[V, [16]byte](key)
	case n < 24:
		return allocInline[V, [24]byte](key)
	case n < 32:
		return allocInline[V, [32]byte](key)
	case n < 40:
		return allocInline[V, [40]byte](key)
	case n < 48:
		return allocInline[V, [48]byte](key)
	case n < 56:
		return allocInline[V, [56]byte](key)
	case n < 64:
		return allocInline[V, [64]byte](key)
	case n < 80:
		return allocInline[V, [80]byte](key)
	case n < 96:
		return allocInline[V, [96]byte](key)
	case n < 112:
		return allocInline[V, [112]byte](key)
	case n <= maxInlineKey:
		return allocInline[V, [maxInlineKey + 1]byte](key)
	default:
		p := &longEntry[V]{key: strings.Clone(key)}
		p.tag[0] = longKeyTag
		return &p.e
	}
}

func allocInline[V any, B any](key string) *entry[V] {
	p := new(inlineEntry[V, B])
	buf := unsafe.Slice((*byte)(unsafe.Pointer(&p.buf)), 1+len(key))
	buf[0] = uint8(len(key))
	copy(buf[1:], key)
	return &p.e
}

// inlineClass returns the size of the array newEntry puts after the entry
// for an n-byte key (its length byte included), or -1 when the key is
// allocated separately.
func inlineClass(n int) int {
	switch {
	case n < 64:
		return (n + 8) &^ 7
	case n <= maxInlineKey:
		return (n + 16) &^ 15
	}
	return -1
}

// entrySize estimates the heap bytes of an entry with an n-byte key.
func entrySize[V any](n int) int {
	base := int(unsafe.Sizeof(entry[V]{}))
	if c := inlineClass(n); c >= 0 {
		return allocSize(base + c)
	}
	return allocSize(int(unsafe.Sizeof(longEntry[V]{}))) + allocSize(n)
}

// allocSize rounds n up to the size Go's allocator really hands out for an
// n-byte pointer-free object: its size class up to 32 KiB (the table is
// internal/runtime/gc's SizeClassToSize), whole 8 KiB pages above. Buffers
// sized with it waste nothing, and memory accounting built on it (package
// db's used_memory) matches the heap the objects occupy.
func allocSize(n int) int {
	switch {
	case n <= 0:
		return 0
	case n <= smallSizeMax:
		return int(sizeClasses[sizeClassIndex[(n+7)>>3]])
	case n <= maxSmallSize:
		for _, c := range sizeClasses[largeClassStart:] {
			if int(c) >= n {
				return int(c)
			}
		}
	}
	return (n + pageSize - 1) &^ (pageSize - 1)
}

// AllocSize is allocSize for other packages (memory accounting).
func AllocSize(n int) int { return allocSize(n) }

// EntryMemUsage is the heap bytes of one Dict[V] entry with an n-byte key,
// as counted by MemUsage (MEMORY USAGE adds it to a value's size).
func EntryMemUsage[V any](n int) int { return entrySize[V](n) }

const (
	smallSizeMax = 1024     // classes up to here are found by table lookup
	maxSmallSize = 32 << 10 // largest size class
	pageSize     = 8 << 10  // the runtime's page: large objects round to it
)

// sizeClasses are Go's size classes (runtime SizeClassToSize, unchanged
// since Go 1.12 apart from the 24-byte class added in 1.15).
var sizeClasses = [...]uint16{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 144, 160, 176, 192, 208, 224, 240, 256, 288, 320, 352, 384, 416, 448, 480, 512, 576, 640, 704, 768, 896, 1024, 1152, 1280, 1408, 1536, 1792, 2048, 2304, 2688, 3072, 3200, 3456, 4096, 4864, 5376, 6144, 6528, 6784, 6912, 8192, 9472, 9728, 10240, 10880, 12288, 13568, 14336, 16384, 18432, 19072, 20480, 21760, 24576, 27264, 28672, 32768}

// largeClassStart is the index of the first class above smallSizeMax.
const largeClassStart = 32

// sizeClassIndex maps (n+7)/8 to the index of the smallest class >= n, for
// n <= smallSizeMax.
var sizeClassIndex = func() (t [smallSizeMax/8 + 1]uint8) {
	c := 0
	for i := range t {
		for int(sizeClasses[c]) < i*8 {
			c++
		}
		t[i] = uint8(c)
	}
	return t
}()
