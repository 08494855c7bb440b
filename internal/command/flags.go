package command

import "strings"

// Flag is a set of command flags (Valkey's CMD_*).
type Flag uint64

// Command flags. The visible ones are listed by Flag.Names in the order of
// Valkey's COMMAND INFO reply; MayReplicate, Sentinel, OnlySentinel,
// Protected and TouchesArbitraryKeys are hidden there on purpose, as in
// Valkey.
const (
	FlagWrite Flag = 1 << iota
	FlagReadonly
	FlagDenyOOM
	FlagModule // never set: Corvid has no modules
	FlagAdmin
	FlagPubsub
	FlagNoScript
	FlagBlocking
	FlagLoading
	FlagStale
	FlagSkipMonitor
	FlagSkipSlowlog
	FlagAsking
	FlagFast
	FlagNoAuth
	FlagMayReplicate
	FlagSentinel
	FlagOnlySentinel
	FlagNoMandatoryKeys
	FlagProtected
	FlagNoAsyncLoading
	FlagNoMulti
	FlagMovableKeys // derived from the key specs, never declared
	FlagAllowBusy
	FlagTouchesArbitraryKeys
)

type flagName struct {
	flag    Flag
	name    string
	visible bool // reported by COMMAND INFO
}

// flagNames is in Valkey's addReplyFlagsForCommand order.
var flagNames = [...]flagName{
	{FlagWrite, "write", true},
	{FlagReadonly, "readonly", true},
	{FlagDenyOOM, "denyoom", true},
	{FlagModule, "module", true},
	{FlagAdmin, "admin", true},
	{FlagPubsub, "pubsub", true},
	{FlagNoScript, "noscript", true},
	{FlagBlocking, "blocking", true},
	{FlagLoading, "loading", true},
	{FlagStale, "stale", true},
	{FlagSkipMonitor, "skip_monitor", true},
	{FlagSkipSlowlog, "skip_slowlog", true},
	{FlagAsking, "asking", true},
	{FlagFast, "fast", true},
	{FlagNoAuth, "no_auth", true},
	{FlagMayReplicate, "may_replicate", false},
	{FlagSentinel, "sentinel", false},
	{FlagOnlySentinel, "only_sentinel", false},
	{FlagNoMandatoryKeys, "no_mandatory_keys", true},
	{FlagProtected, "protected", false},
	{FlagNoAsyncLoading, "no_async_loading", true},
	{FlagNoMulti, "no_multi", true},
	{FlagMovableKeys, "movablekeys", true},
	{FlagAllowBusy, "allow_busy", true},
	{FlagTouchesArbitraryKeys, "touches_arbitrary_keys", false},
}

// Names returns the flags COMMAND INFO reports, lower case, in its order.
// Hidden flags (see the constants) are left out; String shows all.
func (f Flag) Names() []string {
	var out []string
	for _, fn := range flagNames {
		if fn.visible && f&fn.flag != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// visibleCount is len(f.Names()) without allocating.
func (f Flag) visibleCount() int {
	n := 0
	for _, fn := range flagNames {
		if fn.visible && f&fn.flag != 0 {
			n++
		}
	}
	return n
}

// String lists every flag, hidden ones included, separated by '|'.
func (f Flag) String() string {
	var b strings.Builder
	for _, fn := range flagNames {
		if f&fn.flag != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(fn.name)
		}
	}
	return b.String()
}

// ACLCat is a set of ACL categories.
type ACLCat uint64

// ACL categories, in the order of Valkey's ACLCommandCategories table, which
// is the order of ACL CAT and of COMMAND INFO's category set.
const (
	ACLKeyspace ACLCat = 1 << iota
	ACLRead
	ACLWrite
	ACLSet
	ACLSortedSet
	ACLList
	ACLHash
	ACLString
	ACLBitmap
	ACLHyperLogLog
	ACLGeo
	ACLStream
	ACLPubsub
	ACLAdmin
	ACLFast
	ACLSlow
	ACLBlocking
	ACLDangerous
	ACLConnection
	ACLTransaction
	ACLScripting
	aclEnd
)

var aclNames = [...]string{
	"keyspace", "read", "write", "set", "sortedset", "list", "hash", "string",
	"bitmap", "hyperloglog", "geo", "stream", "pubsub", "admin", "fast", "slow",
	"blocking", "dangerous", "connection", "transaction", "scripting",
}

// Names returns the category names without the '@' prefix, in ACL CAT order.
// COMMAND INFO reports them as "@name".
func (c ACLCat) Names() []string {
	var out []string
	for i, n := range aclNames {
		if c&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func (c ACLCat) count() int {
	n := 0
	for i := range aclNames {
		if c&(1<<i) != 0 {
			n++
		}
	}
	return n
}

// ACLCategoryNames lists all category names in ACL CAT order. The slice is
// fresh and may be modified.
func ACLCategoryNames() []string { return append([]string(nil), aclNames[:]...) }

// ACLCatByName returns the category named name (case-insensitive, without
// '@'), or 0 if there is none, like ACLGetCommandCategoryFlagByName.
func ACLCatByName(name string) ACLCat {
	for i, n := range aclNames {
		if strings.EqualFold(n, name) {
			return 1 << i
		}
	}
	return 0
}

// effectiveACL applies Valkey's setImplicitACLCategories to the declared
// categories of a command with flags f.
func effectiveACL(declared ACLCat, f Flag) ACLCat {
	c := declared
	if f&FlagWrite != 0 {
		c |= ACLWrite
	}
	// Scripting commands are excluded from @read even when read-only.
	if f&FlagReadonly != 0 && c&ACLScripting == 0 {
		c |= ACLRead
	}
	if f&FlagAdmin != 0 {
		c |= ACLAdmin | ACLDangerous
	}
	if f&FlagPubsub != 0 {
		c |= ACLPubsub
	}
	if f&FlagFast != 0 {
		c |= ACLFast
	}
	if f&FlagBlocking != 0 {
		c |= ACLBlocking
	}
	// "If it's not @fast is @slow in this binary world."
	if c&ACLFast == 0 {
		c |= ACLSlow
	}
	return c
}

// KeySpecFlag is a set of key-spec flags (Valkey's CMD_KEY_*).
type KeySpecFlag uint32

// Key-spec flags, in the order Valkey reports them.
const (
	KeyRO KeySpecFlag = 1 << iota
	KeyRW
	KeyOW
	KeyRM
	KeyAccess
	KeyUpdate
	KeyInsert
	KeyDelete
	KeyNotKey
	KeyIncomplete
	KeyVariableFlags
)

var keyFlagNames = [...]string{
	"RO", "RW", "OW", "RM", "access", "update", "insert", "delete",
	"not_key", "incomplete", "variable_flags",
}

// Names returns the flag names as COMMAND INFO and COMMAND GETKEYSANDFLAGS
// report them ("RO", "access", ...).
func (f KeySpecFlag) Names() []string {
	var out []string
	for i, n := range keyFlagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}

func (f KeySpecFlag) count() int {
	n := 0
	for i := range keyFlagNames {
		if f&(1<<i) != 0 {
			n++
		}
	}
	return n
}

// DocFlag is a set of COMMAND DOCS doc flags.
type DocFlag uint8

const (
	DocDeprecated DocFlag = 1 << iota
	DocSyscmd
)

var docFlagNames = [...]string{"deprecated", "syscmd"}

// Names returns the doc flag names in Valkey's order.
func (f DocFlag) Names() []string {
	var out []string
	for i, n := range docFlagNames {
		if f&(1<<i) != 0 {
			out = append(out, n)
		}
	}
	return out
}
