package db

import (
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
// A string's bytes are held through Val too, as a *byte to the first byte
// of the buffer with its length and capacity in n and c (Str, SetStr):
// one interface word pair serves both kinds of value, which keeps Object
// at 40 bytes and an entry with a key of up to 16 bytes in the 80-byte
// size class (a separate []byte field made them 56 and 96).
type Object struct {
	// Expire is the absolute expiry in Unix milliseconds; 0 means none.
	Expire int64
	// Val holds a collection value (list, set, zset, hash, stream), or
	// for a string the *byte of its buffer (read it with Str).
	Val any
	// n and c are a string's length and capacity when Val is a *byte.
	// A string whose capacity passes 32 bits (proto-max-bulk-len raised
	// past 4 GB) is held as a *[]byte instead, n and c unused.
	n, c uint32
	// LRU is the access clock (LRU policies, OBJECT IDLETIME) or, under an
	// LFU policy, 16 bits of minutes plus an 8-bit log counter, as Valkey.
	LRU  uint32
	Type Type
	// Form records how a string value was last written, which decides
	// the encoding Valkey reports besides its content (StrEncoding).
	Form StrForm
	// mem is the value size last added to the shard's memory count, so
	// the next change can add the difference (mem.go). It fits the
	// struct's padding.
	mem memCode
}

// Str returns a string value's bytes (nil for other types). The slice
// aliases the value: writing through it changes the value, and it stays
// valid after the value is replaced (the buffer is not reused unless the
// caller passes it back to SetStr).
func (o *Object) Str() []byte {
	switch p := o.Val.(type) {
	case *byte:
		if p != nil {
			return unsafe.Slice(p, o.c)[:o.n:o.c]
		}
	case *[]byte:
		return *p
	}
	return nil
}

// SetStr makes b the string value (b's buffer is kept, not copied).
func (o *Object) SetStr(b []byte) {
	switch {
	case cap(b) == 0:
		o.Val, o.n, o.c = (*byte)(nil), 0, 0
	case uint64(cap(b)) > math.MaxUint32:
		h := new([]byte) // not &b, which would move every caller's b to the heap
		*h = b
		o.Val, o.n, o.c = h, 0, 0
	default:
		o.Val, o.n, o.c = unsafe.SliceData(b[:cap(b)]), uint32(len(b)), uint32(cap(b))
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

// ExpiredAt reports whether o's TTL has passed at now (unix ms), as
// Valkey's keyIsExpired: a key is expired once now is past its expiry
// time, so at that very millisecond it still exists. (Setting a TTL that
// is already due, checkAlreadyExpired, deletes at once: when <= now.)
func (o *Object) ExpiredAt(now int64) bool { return o.Expire != 0 && o.Expire < now }

// StrEncoding is OBJECT ENCODING for a string value.
func (o *Object) StrEncoding() string {
	switch o.Form {
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
