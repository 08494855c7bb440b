package config

import "math"

// ValkeyVersion is the version string printed in start-up errors. Corvid
// mimics Valkey 8.0.1, so operators and tools see the same text.
const ValkeyVersion = "8.0.1"

// kind is the storage/parsing family of a directive, mirroring the
// createXxxConfig families of Valkey's config.c.
type kind uint8

const (
	kindBool    kind = iota // yes/no
	kindString              // string and sds configs (identical behaviour here)
	kindEnum                // one name of a fixed list, or a set of names (multi-arg)
	kindNumeric             // int/uint/long/... with bounds, optional memory/percent/octal syntax
	kindSpecial             // custom set/get/rewrite (save, bind, dir, ...)
)

// flag mirrors the *_CONFIG flags of Valkey.
type flag uint16

const (
	fImmutable   flag = 1 << iota // only settable at start-up
	fSensitive                    // value must be redacted from logs/slowlog/monitor
	fHidden                       // not matched by CONFIG GET globs, only by exact name
	fProtected                    // CONFIG SET needs enable-protected-configs
	fDenyLoading                  // CONFIG SET refused while the dataset is loading
	fMultiArg                     // value is a list of words (bind, save, ...)
	fDebug                        // printed in crash/debug reports
	fVolatile                     // CONFIG SET always counts as a change (re-read files)
)

// numFlag mirrors MEMORY_CONFIG / PERCENT_CONFIG / OCTAL_CONFIG.
type numFlag uint8

const (
	nMemory numFlag = 1 << iota
	nPercent
	nOctal
)

// numType records the C type Valkey stores a numeric config in. Only its
// signedness matters: Valkey bound-checks UINT, ULONG_LONG and SIZE_T as
// unsigned and every other type (including ULONG!) as signed.
type numType uint8

const (
	tInt numType = iota
	tUInt
	tLong
	tULong
	tLongLong
	tULongLong
	tSizeT
	tSSizeT
	tTimeT
	tOffT
)

func (t numType) unsigned() bool { return t == tUInt || t == tULongLong || t == tSizeT }

// C limits used by the table, spelled as in config.c.
const (
	intMax    = math.MaxInt32
	intMin    = math.MinInt32
	uintMax   = math.MaxUint32
	longMax   = math.MaxInt64
	llongMax  = math.MaxInt64
	ssizeMax  = math.MaxInt64
	ullongMax = -1 // ULLONG_MAX reinterpreted as int64 bits; only used with unsigned types
)

type enumItem struct {
	name string
	val  int64
}

// entry is one row of the table. Entries are built once (table.go) and never
// mutated afterwards, so they are shared by every Config without locking.
type entry struct {
	idx   int // position in registry.entries and in state.v
	name  string
	alias string
	flags flag
	kind  kind

	// kindBool, kindEnum, kindNumeric: default value.
	def int64

	// kindNumeric.
	ntype        numType
	lower, upper int64
	nflags       numFlag

	// kindString.
	defStr      string
	defNull     bool // default is "no value" (C NULL)
	emptyIsNull bool // EMPTY_STRING_IS_NULL: "" means no value

	// kindEnum.
	enums []enumItem

	// Optional validators, returning "" when the value is acceptable or
	// Valkey's error text otherwise.
	validInt func(int64) string
	validStr func(string) string

	// accessor: a typed getter reads the row (mustIdx sets it at init):
	// the server applies it (inert.go).
	accessor bool

	// normalize adjusts a numeric value after it was accepted (hz clamping).
	normalize func(int64) int64

	special *special
}

func (e *entry) has(f flag) bool { return e.flags&f != 0 }

// val is the stored value of one entry inside an immutable state snapshot.
// x holds the parsed form of special configs and is never mutated after the
// snapshot is published.
type val struct {
	n    int64
	s    string
	null bool
	x    any
}

// state is an immutable snapshot of every value, indexed by entry.idx.
type state struct {
	v []val
}

func (s *state) clone() *state {
	ns := &state{v: make([]val, len(s.v))}
	copy(ns.v, s.v)
	return ns
}
