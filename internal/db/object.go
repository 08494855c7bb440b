package db

import (
	"fmt"
	"math"
	"strconv"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Type is a value's data type as TYPE reports it.
type Type uint8

// Value types.
const (
	TypeString Type = iota
	TypeList
	TypeSet
	TypeZSet
	TypeHash
	TypeStream
)

var typeNames = [...]string{"string", "list", "set", "zset", "hash", "stream"}

func (t Type) String() string { return typeNames[t] }

// Object is the value stored under a key. It lives inline in the shard's
// dict entry, so a string key costs one entry allocation plus its bytes.
//
// The value is one pointer, val, whose Go type kind records (Value,
// SetValue): a collection, or for a string the first byte of its buffer
// with the length and capacity in n and c (Str, SetStr). An interface
// would take 16 bytes. A key's expiry is not here but in its shard's
// expires dict, which holds every key with a TTL; the object only has a
// bit saying it is there (HasTTL). Object is 24 bytes, and an entry with a
// key of up to 15 bytes is in the 48-byte size class.
//
// A small set's or sorted set's ds.Pack (or ds.ZPack) is not behind val
// but is val, n and c: the Pack struct (a buffer pointer and two 32-bit
// lengths) overlays the object's first 16 bytes, and Value returns a
// pointer into the object itself. SetValue copies such a Pack in, so
// the caller's struct is not the value afterwards (use Value again); and
// a *ds.Pack from Value is the key's value only while the object is:
// after the key is replaced or deleted it reads whatever the object
// holds then.
type Object struct {
	// val points to the value, of the type kind names. The collector
	// keeps the value alive through it like through any pointer.
	val unsafe.Pointer
	// n and c are a string's length and capacity when kind is kindStr,
	// and with val a Pack's buffer when kind is kindPack or kindZPack.
	// A string whose capacity passes 32 bits (proto-max-bulk-len raised
	// past 4 GB) is held as a *[]byte (kindBigStr), n and c unused.
	n, c uint32
	// LRU is the access clock (LRU policies, OBJECT IDLETIME) or, under an
	// LFU policy, 16 bits of minutes plus an 8-bit log counter, as Valkey.
	LRU  uint32
	Type Type
	// tag holds val's kind (low four bits), tagTTL, and for a string its
	// StrForm (top two bits): how it was last written, which decides the
	// encoding Valkey reports besides its content (StrEncoding).
	tag uint8
	// mem is the value size last added to the shard's memory count, so
	// the next change can add the difference (mem.go). It fits the
	// struct's padding.
	mem memCode
}

const (
	tagKind   = 0x0f
	tagTTL    = 0x10 // the key is in its shard's expires dict
	tagForm   = 0xc0
	formShift = 6
)

// HasTTL reports whether the key has an expiry (in its shard's expires
// dict: shard.expireOf).
func (o *Object) HasTTL() bool { return o.tag&tagTTL != 0 }

func (o *Object) setHasTTL(on bool) {
	if on {
		o.tag |= tagTTL
	} else {
		o.tag &^= tagTTL
	}
}

// Form returns how a string value was last written.
func (o *Object) Form() StrForm { return StrForm(o.tag >> formShift) }

// SetForm records how a string value was last written.
func (o *Object) SetForm(f StrForm) { o.tag = o.tag&^tagForm | uint8(f)<<formShift }

func (o *Object) kind() valKind { return valKind(o.tag & tagKind) }

func (o *Object) setKind(k valKind) { o.tag = o.tag&^tagKind | uint8(k) }

// valKind is the Go type of an Object's val.
type valKind uint8

const (
	kindNone      valKind = iota // no value (val nil)
	kindStr                      // *byte, with n and c
	kindBigStr                   // *[]byte
	kindQuicklist                // *ds.Quicklist
	kindIntSet                   // *ds.IntSet
	kindListpack                 // *ds.Listpack
	kindPack                     // ds.Pack in val, n, c
	kindZPack                    // ds.ZPack in val, n, c
	kindZSkip                    // *ds.ZSkip
	kindStrMap                   // *ds.StrMap (setDict, hashDict)
	kindStream                   // *stream
)

// Value returns the value as an interface holding the pointer SetValue
// was given: one of *byte (a string, as Str's first byte), *[]byte,
// *ds.Quicklist, *ds.IntSet, *ds.Listpack, *ds.Pack, *ds.ZPack,
// *ds.ZSkip, *ds.StrMap or *stream; nil when there is none.
func (o *Object) Value() any {
	switch o.kind() {
	case kindStr:
		return (*byte)(o.val)
	case kindBigStr:
		return (*[]byte)(o.val)
	case kindQuicklist:
		return (*ds.Quicklist)(o.val)
	case kindIntSet:
		return (*ds.IntSet)(o.val)
	case kindListpack:
		return (*ds.Listpack)(o.val)
	case kindPack:
		return (*ds.Pack)(unsafe.Pointer(o))
	case kindZPack:
		return (*ds.ZPack)(unsafe.Pointer(o))
	case kindZSkip:
		return (*ds.ZSkip)(o.val)
	case kindStrMap:
		return (*ds.StrMap)(o.val)
	case kindStream:
		return (*stream)(o.val)
	}
	return nil
}

// SetValue makes v the value: nil, or a pointer of one of the types
// Value lists (a string's bytes go through SetStr). Any other type panics.
// A *ds.Pack or *ds.ZPack is copied into the object (see Object).
func (o *Object) SetValue(v any) {
	var k valKind
	var p unsafe.Pointer
	switch v := v.(type) {
	case *ds.Pack:
		*(*ds.Pack)(unsafe.Pointer(o)) = *v
		o.setKind(kindPack)
		return
	case *ds.ZPack:
		*(*ds.ZPack)(unsafe.Pointer(o)) = *v
		o.setKind(kindZPack)
		return
	case nil:
	case *byte:
		k, p = kindStr, unsafe.Pointer(v)
	case *[]byte:
		k, p = kindBigStr, unsafe.Pointer(v)
	case *ds.Quicklist:
		k, p = kindQuicklist, unsafe.Pointer(v)
	case *ds.IntSet:
		k, p = kindIntSet, unsafe.Pointer(v)
	case *ds.Listpack:
		k, p = kindListpack, unsafe.Pointer(v)
	case *ds.ZSkip:
		k, p = kindZSkip, unsafe.Pointer(v)
	case *ds.StrMap:
		k, p = kindStrMap, unsafe.Pointer(v)
	case *stream:
		k, p = kindStream, unsafe.Pointer(v)
	default:
		panic(fmt.Sprintf("db: value of type %T", v))
	}
	o.val, o.n, o.c = p, 0, 0
	o.setKind(k)
}

// layoutObject is only for the checks below: a ds.Pack is overlaid on an
// Object's val, n and c (Value, SetValue), so both must keep that layout.
var layoutObject Object

var (
	_ [unsafe.Offsetof(layoutObject.val)]struct{}    = [0]struct{}{}
	_ [unsafe.Offsetof(layoutObject.n) - 8]struct{}  = [0]struct{}{}
	_ [8 - unsafe.Offsetof(layoutObject.n)]struct{}  = [0]struct{}{}
	_ [unsafe.Offsetof(layoutObject.c) - 12]struct{} = [0]struct{}{}
	_ [unsafe.Sizeof(ds.Pack{}) - 16]struct{}        = [0]struct{}{}
	_ [unsafe.Sizeof(ds.ZPack{}) - 16]struct{}       = [0]struct{}{}
)

// newObject returns an object of type t holding v (SetValue).
func newObject(t Type, v any) *Object {
	o := &Object{Type: t}
	o.SetValue(v)
	return o
}

// Str returns a string value's bytes (nil for other types). The slice
// aliases the value: writing through it changes the value, and it stays
// valid after the value is replaced (the buffer is not reused unless the
// caller passes it back to SetStr).
func (o *Object) Str() []byte {
	switch o.kind() {
	case kindStr:
		if o.val != nil {
			return unsafe.Slice((*byte)(o.val), o.c)[:o.n:o.c]
		}
	case kindBigStr:
		return *(*[]byte)(o.val)
	}
	return nil
}

// SetStr makes b the string value (b's buffer is kept, not copied).
func (o *Object) SetStr(b []byte) {
	switch {
	case cap(b) == 0:
		o.val, o.n, o.c = nil, 0, 0
		o.setKind(kindStr)
	case uint64(cap(b)) > math.MaxUint32:
		h := new([]byte) // not &b, which would move every caller's b to the heap
		*h = b
		o.val, o.n, o.c = unsafe.Pointer(h), 0, 0
		o.setKind(kindBigStr)
	default:
		o.val, o.n, o.c = unsafe.Pointer(unsafe.SliceData(b[:cap(b)])), uint32(len(b)), uint32(cap(b))
		o.setKind(kindStr)
	}
}

// StrForm is how a string value was last written. Valkey's encoding
// follows the object's history, not only its bytes: SET tries to make an
// int, INCRBYFLOAT builds its result with createStringObjectFromLongDouble
// (never an int), and commands that modify a string in place first make
// it a raw string.
type StrForm uint8

const (
	// StrPlain: SET and friends, INCR and friends: int, embstr or raw by
	// content.
	StrPlain StrForm = iota
	// StrRaw: modified in place (APPEND, SETRANGE, SETBIT, BITOP,
	// BITFIELD): "raw" whatever the content.
	StrRaw
	// StrFloat: INCRBYFLOAT's result: embstr or raw by length, never int.
	StrFloat
)

// StrEncoding is OBJECT ENCODING for a string value.
func (o *Object) StrEncoding() string {
	switch o.Form() {
	case StrRaw:
		return "raw"
	case StrFloat:
		if len(o.Str()) <= 44 {
			return "embstr"
		}
		return "raw"
	}
	return StringEncoding(o.Str())
}

// StringEncoding reports Valkey's encoding for a string value: "int" for
// integers that fit a long, "embstr" up to 44 bytes, otherwise "raw".
func StringEncoding(b []byte) string {
	if len(b) <= 20 {
		if _, err := strconv.ParseInt(string(b), 10, 64); err == nil && isCanonicalInt(b) {
			return "int"
		}
	}
	if len(b) <= 44 {
		return "embstr"
	}
	return "raw"
}

// isCanonicalInt reports whether b is the canonical decimal form of an
// int64 (no leading zeros, no '+'), which is what Valkey stores as int.
func isCanonicalInt(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if b[0] == '-' {
		b = b[1:]
		if len(b) == 0 || b[0] == '0' {
			return false
		}
	}
	if len(b) > 1 && b[0] == '0' {
		return false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// setBytes stores a copy of v into the object, reusing its buffer when it
// is large enough. Reuse keeps SET on an existing key allocation-free.
func (o *Object) setBytes(v []byte) {
	if s := o.Str(); cap(s) >= len(v) && cap(s) <= 2*len(v)+32 {
		o.SetStr(append(s[:0], v...))
		return
	}
	o.SetStr(append(newStr(0, len(v)), v...))
}

// adoptStr makes b the string value without copying it: b is an argument
// read into a buffer of its own (Ctx.AdoptArgs), with that buffer's
// capacity, so a value that grows a little later (APPEND, SETRANGE,
// SETBIT past its end) may grow in place. As Valkey trims a big argument
// it keeps when its spare room exceeds a tenth of its length, a buffer
// with more spare than that is copied into one of the value's size, if
// that is smaller.
func (o *Object) adoptStr(b []byte) {
	if cap(b)-len(b) > len(b)/10 && ds.AllocSize(len(b)) < cap(b) {
		b = append(newStr(0, len(b)), b...)
	}
	o.SetStr(b)
}

// newStr returns a string buffer of length n with the capacity the
// allocator really gives an allocation of c bytes (ds.AllocSize: its size
// class, or whole pages), so growth within it needs no copy and memory
// accounting, which counts that size, sees no difference.
func newStr(n, c int) []byte { return make([]byte, n, ds.AllocSize(c)) }
