package rdb

import (
	"errors"
	"fmt"
)

// Kind is the data type of an Entry's value, as TYPE reports it.
type Kind uint8

// The value kinds this package reads and writes.
const (
	KindString Kind = iota
	KindList
	KindSet
	KindZSet
	KindHash
	KindStream
)

func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindList:
		return "list"
	case KindSet:
		return "set"
	case KindZSet:
		return "zset"
	case KindHash:
		return "hash"
	case KindStream:
		return "stream"
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ZMember is one member of a sorted set.
type ZMember struct {
	Member []byte
	Score  float64
}

// HashField is one field of a hash.
type HashField struct {
	Field, Value []byte
}

// Entry is one key with its value, independent of the server's in-memory
// representation. Exactly the field that Kind names holds the value:
// String for KindString, List for KindList (head first), Set for KindSet,
// ZSet for KindZSet, Hash for KindHash, Stream for KindStream.
//
// Order matters to the writer where it matters to Valkey's encodings: a
// set's members and a hash's fields are written in the order given when
// they fit a listpack (insertion order, as SADD/HSET would leave them);
// sorted sets are always written in Valkey's order whatever the order
// given.
type Entry struct {
	DB   int
	Key  []byte
	Kind Kind

	String []byte
	List   [][]byte
	// ListNodes, when set, is the list's node layout (the number of
	// elements of each node, negative for a plain node of one element):
	// the writer then keeps it, as Valkey saves its quicklist's nodes as
	// they are. Without it the writer lays the nodes out as RPUSHing the
	// elements under the current list-max-listpack-size would.
	ListNodes []int

	// ListCompress is the list's compress depth (list-compress-depth
	// when it became a quicklist): Valkey holds the nodes beyond that
	// depth from either end LZF-compressed when that saves more than 8
	// bytes, and saves those as LZF strings even with rdbcompression
	// off; the writer does the same.
	ListCompress int

	Set    [][]byte
	ZSet   []ZMember
	Hash   []HashField
	Stream *Stream

	// ExpireMs is the absolute expiry in Unix milliseconds, or -1 for none.
	ExpireMs int64
	// Idle is the LRU idle time in seconds (RDB_OPCODE_IDLE), or -1 for
	// none. Valkey writes it under an LRU maxmemory-policy.
	Idle int64
	// Freq is the LFU counter 0..255 (RDB_OPCODE_FREQ), or -1 for none.
	// Valkey writes it under an LFU maxmemory-policy.
	Freq int
}

// NewEntry returns an Entry with no expiry, idle time or frequency.
func NewEntry(db int, key []byte, kind Kind) *Entry {
	return &Entry{DB: db, Key: key, Kind: kind, ExpireMs: -1, Idle: -1, Freq: -1}
}

// Len is the number of elements of a collection, or 1 for a string. A
// stream's is its length, and an empty stream is a value (Valkey keeps
// them), unlike the other empty collections.
func (e *Entry) Len() int {
	switch e.Kind {
	case KindList:
		return len(e.List)
	case KindSet:
		return len(e.Set)
	case KindZSet:
		return len(e.ZSet)
	case KindHash:
		return len(e.Hash)
	case KindStream:
		return int(e.Stream.Length)
	}
	return 1
}

// Limits are the configuration thresholds by which Valkey chooses a
// value's encoding, and with it the RDB type the writer uses. The zero
// value is not useful: start from DefaultLimits.
type Limits struct {
	ListMaxListpackSize    int // list-max-listpack-size (-2: 8 KiB per node)
	HashMaxListpackEntries int // hash-max-listpack-entries
	HashMaxListpackValue   int // hash-max-listpack-value
	SetMaxIntsetEntries    int // set-max-intset-entries
	SetMaxListpackEntries  int // set-max-listpack-entries
	SetMaxListpackValue    int // set-max-listpack-value
	ZSetMaxListpackEntries int // zset-max-listpack-entries
	ZSetMaxListpackValue   int // zset-max-listpack-value
}

// DefaultLimits returns Valkey 8.0.1's defaults (hash-max-listpack-entries
// is 512 there, not Redis's 128).
func DefaultLimits() Limits {
	return Limits{
		ListMaxListpackSize:    -2,
		HashMaxListpackEntries: 512,
		HashMaxListpackValue:   64,
		SetMaxIntsetEntries:    512,
		SetMaxListpackEntries:  128,
		SetMaxListpackValue:    64,
		ZSetMaxListpackEntries: 128,
		ZSetMaxListpackValue:   64,
	}
}

// Errors. Every error the reader returns for bad input wraps ErrCorrupt or
// ErrUnsupported and is a *FormatError naming the byte offset.
var (
	// ErrCorrupt: the input is truncated, malformed, or fails a checksum.
	ErrCorrupt = errors.New("rdb: corrupt input")
	// ErrChecksum: the CRC64 trailer (file or DUMP payload) does not match.
	// It wraps ErrCorrupt.
	ErrChecksum = fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	// ErrUnsupported: the input is well formed but holds something this
	// package does not model (modules, old function formats).
	ErrUnsupported = errors.New("rdb: unsupported")
	// ErrVersion: the RDB version is not one this package reads (files),
	// or not one Valkey 8.0.1 accepts (DUMP payloads).
	ErrVersion = errors.New("rdb: unsupported RDB version")
	// ErrEmpty: the writer was given an empty collection, which Valkey
	// never stores.
	ErrEmpty = errors.New("rdb: empty collection")
)

// FormatError reports bad input at a byte offset of the file or payload.
type FormatError struct {
	Offset int64  // byte offset in the input where the problem was found
	Msg    string // what was wrong
	Err    error  // ErrCorrupt, ErrChecksum, ErrUnsupported or ErrVersion
}

func (e *FormatError) Error() string {
	return fmt.Sprintf("%v at offset %d: %s", e.Err, e.Offset, e.Msg)
}

func (e *FormatError) Unwrap() error { return e.Err }
