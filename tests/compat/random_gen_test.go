package compat

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// gen produces random commands for the randomized differential test. Keys
// come from small pools so that commands meet each other's data (and, in
// the mixed family, each other's types), values from a small alphabet with
// the edge cases parsers care about (integers at the int64 limits,
// non-canonical integers, floats, infinities, the empty string).
//
// Commands whose reply is random (SRANDMEMBER, HRANDFIELD, ZRANDMEMBER,
// RANDOMKEY) or whose effect is (SPOP with a count below the set's size)
// are generated only in forms that are deterministic, or are compared by
// shape: see normalizeFor.
type gen struct {
	r    *rand.Rand
	keys []string
	// wide draws members from hundreds of values (and some longer than
	// the listpack value limits), so collections cross the encoding
	// thresholds (128 listpack entries, 512 intset entries, 64-byte
	// values) and the hashtable, skiplist and quicklist code runs.
	wide bool
}

func (g *gen) pick(xs ...string) string { return xs[g.r.IntN(len(xs))] }

// opt picks one of several option strings and splits it into arguments:
// "" is no argument, "LIMIT 0 2" three.
func (g *gen) opt(xs ...string) []string { return strings.Fields(g.pick(xs...)) }
func (g *gen) key() string               { return g.keys[g.r.IntN(len(g.keys))] }
func (g *gen) chance(pct int) bool       { return g.r.IntN(100) < pct }
func (g *gen) smallInt(lo, hi int) string {
	return strconv.Itoa(lo + g.r.IntN(hi-lo+1))
}

// member is a collection member or a field: mostly a small alphabet, so
// sets overlap and removals hit.
func (g *gen) member() string {
	if g.wide {
		switch g.r.IntN(20) {
		case 0:
			return strings.Repeat("L", 60+g.r.IntN(10)) + g.smallInt(0, 9)
		case 1, 2, 3, 4, 5, 6:
			return strconv.Itoa(g.r.IntN(700))
		case 7, 8, 9, 10, 11, 12:
			return "m" + strconv.Itoa(g.r.IntN(400))
		}
	}
	switch g.r.IntN(10) {
	case 0:
		return g.smallInt(-3, 40)
	case 1:
		return g.pick("", "01", " 1", "-0", "1.5", "9223372036854775807", "-9223372036854775808", "18446744073709551616")
	default:
		return g.pick("a", "b", "c", "d", "e", "f", "g", "h", "aa", "ab", "b1", "zz", "1", "2", "3", "10")
	}
}

// value is a string value: integers for INCR and friends, text for APPEND.
func (g *gen) value() string {
	switch g.r.IntN(8) {
	case 0, 1:
		return g.smallInt(-5, 100)
	case 2:
		return g.pick("9223372036854775807", "-9223372036854775808", "9223372036854775806", "-9223372036854775807")
	case 3:
		return g.pick("1.5", "-2.25", "1e3", "3.0", "0.1", "inf", "-inf", "nan", " 5", "05", "+5", "")
	default:
		return g.pick("hello", "world", "foobar", "x", "abcdefghij", "\x00\xff", "ab\r\ncd")
	}
}

func (g *gen) score() string {
	switch g.r.IntN(10) {
	case 0:
		return g.pick("inf", "-inf", "+inf", "nan", "1e400", "0x10", "")
	case 1, 2:
		return g.pick("1.5", "-2.5", "0.1", "3.14159", "1e-5", "-0", "100000000000000000000")
	default:
		return g.smallInt(-10, 30)
	}
}

// scoreBound is a ZRANGEBYSCORE-style bound.
func (g *gen) scoreBound() string {
	switch g.r.IntN(8) {
	case 0:
		return g.pick("-inf", "+inf", "inf", "(inf", "(-inf", "nan", "x", "(")
	case 1, 2:
		return "(" + g.smallInt(-10, 30)
	default:
		return g.smallInt(-10, 30)
	}
}

// lexBound is a ZRANGEBYLEX-style bound.
func (g *gen) lexBound() string {
	switch g.r.IntN(8) {
	case 0:
		return g.pick("-", "+", "a", "", "(")
	case 1, 2, 3:
		return "(" + g.member()
	default:
		return "[" + g.member()
	}
}

func (g *gen) index() string {
	if g.chance(5) {
		return g.pick("9223372036854775807", "-9223372036854775808", "x", "1.5")
	}
	return g.smallInt(-8, 8)
}

// lsetIndex is index within 32 bits: Valkey 8.0.1's LSET wraps a wider
// one (a bug Corvid does not copy, pinned in lists.txt), which would part
// the two servers' lists.
func (g *gen) lsetIndex() string {
	if g.chance(5) {
		return g.pick("2147483647", "-2147483648", "x", "1.5")
	}
	return g.smallInt(-8, 8)
}

func (g *gen) count() string {
	if g.chance(5) {
		return g.pick("0", "-1", "x", "9223372036854775807", "100000")
	}
	return g.smallInt(1, 6)
}

func (g *gen) members(min, max int, f func() string) []string {
	n := min + g.r.IntN(max-min+1)
	out := make([]string, n)
	for i := range out {
		out[i] = f()
	}
	return out
}

func (g *gen) keyList(min, max int) []string { return g.members(min, max, g.key) }

func cat(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

// family is a group of commands with the key pool they run over.
type family struct {
	name string
	keys []string
	cmds []func(g *gen) []string
	wide bool // gen.wide
}

// familyMinCard lists, per family, sorted sets it must have grown to at
// least this many members by its end (checked on corvid), so that it
// keeps testing what it was made for. zsets-deep: 6,000 members is past
// a root of 64 leaves (ds.ZSkip's leaves hold up to 127), so the tree is
// two inner levels deep.
var familyMinCard = map[string]map[string]int{
	"zsets-deep": {"D1": 6000, "E1": 6000},
}

var stringCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat("SET", g.key(), g.value()) },
	func(g *gen) []string {
		return cat("SET", g.key(), g.value(), g.opt("NX", "XX", "GET", "KEEPTTL", "EX 100", "PX 100000", "NX GET", "XX GET", "EX", "EX 0", "PX -1", "EX x", "NX XX"))
	},
	func(g *gen) []string { return cat("GET", g.key()) },
	func(g *gen) []string { return cat("GETSET", g.key(), g.value()) },
	func(g *gen) []string { return cat("GETDEL", g.key()) },
	func(g *gen) []string { return cat("GETEX", g.key(), g.opt("PERSIST", "BAD", "")) },
	func(g *gen) []string { return cat("SETNX", g.key(), g.value()) },
	func(g *gen) []string { return cat("APPEND", g.key(), g.value()) },
	func(g *gen) []string { return cat("STRLEN", g.key()) },
	func(g *gen) []string { return cat("GETRANGE", g.key(), g.index(), g.index()) },
	func(g *gen) []string { return cat("SUBSTR", g.key(), g.index(), g.index()) },
	func(g *gen) []string {
		return cat("SETRANGE", g.key(), g.pick("0", "1", "3", "10", "-1", "x"), g.value())
	},
	func(g *gen) []string { return cat(g.pick("INCR", "DECR"), g.key()) },
	func(g *gen) []string { return cat(g.pick("INCRBY", "DECRBY"), g.key(), g.value()) },
	func(g *gen) []string { return cat("INCRBYFLOAT", g.key(), g.value()) },
	func(g *gen) []string { return cat("MGET", g.keyList(1, 4)) },
	func(g *gen) []string { return cat("MSET", g.key(), g.value(), g.key(), g.value()) },
	func(g *gen) []string { return cat("MSETNX", g.key(), g.value(), g.key(), g.value()) },
	func(g *gen) []string { return cat("SETBIT", g.key(), g.smallInt(0, 40), g.pick("0", "1", "1", "2")) },
	func(g *gen) []string { return cat("GETBIT", g.key(), g.smallInt(0, 50)) },
	func(g *gen) []string {
		if g.chance(30) {
			return cat("BITCOUNT", g.key())
		}
		return cat("BITCOUNT", g.key(), g.index(), g.index(), g.pick("BYTE", "BIT"))
	},
	func(g *gen) []string {
		return cat("BITPOS", g.key(), g.pick("0", "1"), g.index(), g.index(), g.pick("BYTE", "BIT"))
	},
	func(g *gen) []string { return cat("BITOP", g.pick("AND", "OR", "XOR"), g.key(), g.keyList(1, 3)) },
	func(g *gen) []string { return cat("BITOP", "NOT", g.key(), g.key()) },
	func(g *gen) []string {
		return cat("LCS", g.key(), g.key(), g.opt("", "LEN", "IDX", "IDX WITHMATCHLEN", "IDX MINMATCHLEN 2"))
	},
	func(g *gen) []string {
		a := cat("BITFIELD", g.key())
		for range 1 + g.r.IntN(3) {
			typ := g.pick("u8", "i8", "u4", "i16", "u1", "i64", "u63", "u64", "i65", "x8")
			off := g.pick("0", "3", "#1", "17", "-1", "x")
			switch g.r.IntN(4) {
			case 0:
				a = append(a, "GET", typ, off)
			case 1:
				a = append(a, "SET", typ, off, g.smallInt(-300, 300))
			case 2:
				a = append(a, "INCRBY", typ, off, g.smallInt(-300, 300))
			default:
				a = append(a, "OVERFLOW", g.pick("WRAP", "SAT", "FAIL", "BAD"))
			}
		}
		return a
	},
	func(g *gen) []string {
		return cat("BITFIELD_RO", g.key(), "GET", g.pick("u8", "i8", "u4"), g.pick("0", "3", "#1"))
	},
}

var listCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat(g.pick("LPUSH", "RPUSH"), g.key(), g.members(1, 4, g.member)) },
	func(g *gen) []string { return cat(g.pick("LPUSHX", "RPUSHX"), g.key(), g.member()) },
	func(g *gen) []string { return cat(g.pick("LPOP", "RPOP"), g.key()) },
	func(g *gen) []string { return cat(g.pick("LPOP", "RPOP"), g.key(), g.count()) },
	func(g *gen) []string { return cat("LLEN", g.key()) },
	func(g *gen) []string { return cat("LRANGE", g.key(), g.index(), g.index()) },
	func(g *gen) []string { return cat("LINDEX", g.key(), g.index()) },
	func(g *gen) []string { return cat("LSET", g.key(), g.lsetIndex(), g.member()) },
	func(g *gen) []string {
		return cat("LINSERT", g.key(), g.pick("BEFORE", "AFTER", "MIDDLE"), g.member(), g.member())
	},
	func(g *gen) []string { return cat("LREM", g.key(), g.smallInt(-3, 3), g.member()) },
	func(g *gen) []string { return cat("LTRIM", g.key(), g.index(), g.index()) },
	func(g *gen) []string {
		a := cat("LPOS", g.key(), g.member())
		if g.chance(50) {
			a = append(a, "RANK", g.pick("1", "2", "-1", "-2", "0", "3"))
		}
		if g.chance(50) {
			a = append(a, "COUNT", g.pick("0", "1", "2", "5", "-1"))
		}
		if g.chance(30) {
			a = append(a, "MAXLEN", g.pick("0", "1", "3", "-1"))
		}
		return a
	},
	func(g *gen) []string {
		return cat("LMOVE", g.key(), g.key(), g.pick("LEFT", "RIGHT"), g.pick("LEFT", "RIGHT", "UP"))
	},
	func(g *gen) []string { return cat("RPOPLPUSH", g.key(), g.key()) },
	func(g *gen) []string {
		ks := g.keyList(1, 3)
		a := cat("LMPOP", strconv.Itoa(len(ks)), ks, g.pick("LEFT", "RIGHT"))
		if g.chance(50) {
			a = append(a, "COUNT", g.count())
		}
		return a
	},
}

// sortArgs is a SORT/SORT_RO tail: BY and GET patterns name keys that do
// not exist (weights 0, values nil) or the element itself.
func (g *gen) sortArgs(nosort bool) []string {
	var a []string
	byPattern := false
	if nosort && g.chance(30) {
		a = append(a, "BY", "nosort")
	} else if g.chance(20) {
		a = append(a, "BY", "w_*")
		byPattern = true
	}
	if g.chance(30) {
		a = append(a, "LIMIT", g.smallInt(-1, 3), g.smallInt(-1, 4))
	}
	if g.chance(30) {
		a = append(a, "GET", g.pick("#", "w_*", "w_*->f"))
	}
	a = append(a, g.opt("", "", "ASC", "DESC")...)
	if byPattern {
		// ALPHA by missing weights compares every pair equal and leaves
		// the order to the C library's qsort: unspecified.
		return a
	}
	return append(a, g.opt("", "ALPHA", "ALPHA")...)
}

// timeout is a blocking command's timeout: short, so a single client's
// wait on an empty key ends at once, or invalid.
func (g *gen) timeout() string {
	if g.chance(30) {
		return g.pick("-1", "x", "inf", "0.0001x", "1e300")
	}
	// Valkey notices a timed-out client only when its event loop wakes
	// (up to 1/hz = 100 ms): short as this is, a wait on an empty key
	// costs the run up to 100 ms, so a third of the timeouts are invalid.
	return "0.001"
}

var listBlockCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat(g.pick("BLPOP", "BRPOP"), g.keyList(1, 2), g.timeout()) },
	func(g *gen) []string {
		return cat("BLMOVE", g.key(), g.key(), g.pick("LEFT", "RIGHT"), g.pick("LEFT", "RIGHT"), g.timeout())
	},
	func(g *gen) []string { return cat("BRPOPLPUSH", g.key(), g.key(), g.timeout()) },
	func(g *gen) []string {
		ks := g.keyList(1, 2)
		return cat("BLMPOP", g.timeout(), strconv.Itoa(len(ks)), ks, g.pick("LEFT", "RIGHT"), g.opt("", "COUNT 2"))
	},
}

var zsetBlockCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat(g.pick("BZPOPMIN", "BZPOPMAX"), g.keyList(1, 2), g.timeout()) },
	func(g *gen) []string {
		ks := g.keyList(1, 2)
		return cat("BZMPOP", g.timeout(), strconv.Itoa(len(ks)), ks, g.pick("MIN", "MAX"), g.opt("", "COUNT 2"))
	},
}

// sortCmds are SORT and SORT_RO; BY nosort only where the keys cannot be
// sets (a set's own order differs between a listpack and a hashtable).
func sortCmds(nosort bool) []func(g *gen) []string {
	return []func(g *gen) []string{
		func(g *gen) []string { return cat(g.pick("SORT", "SORT_RO"), g.key(), g.sortArgs(nosort)) },
		func(g *gen) []string { return cat("SORT", g.key(), g.sortArgs(nosort), "STORE", g.key()) },
	}
}

// smallScanCmds read small collections whole: with a COUNT above their
// size a listpack answers in one call with cursor 0 (normalize sorts the
// members, whose order differs between encodings).
var smallScanCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat(g.pick("SSCAN", "HSCAN", "ZSCAN"), g.key(), "0", "COUNT", "1000") },
}

var hashCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat("HSET", g.key(), g.member(), g.value()) },
	func(g *gen) []string { return cat("HSET", g.key(), g.member(), g.value(), g.member(), g.value()) },
	func(g *gen) []string { return cat("HMSET", g.key(), g.member(), g.value()) },
	func(g *gen) []string { return cat("HSETNX", g.key(), g.member(), g.value()) },
	func(g *gen) []string { return cat("HGET", g.key(), g.member()) },
	func(g *gen) []string { return cat("HMGET", g.key(), g.members(1, 3, g.member)) },
	func(g *gen) []string { return cat("HDEL", g.key(), g.members(1, 3, g.member)) },
	func(g *gen) []string { return cat("HLEN", g.key()) },
	func(g *gen) []string { return cat("HSTRLEN", g.key(), g.member()) },
	func(g *gen) []string { return cat("HEXISTS", g.key(), g.member()) },
	func(g *gen) []string { return cat(g.pick("HKEYS", "HVALS", "HGETALL"), g.key()) },
	func(g *gen) []string { return cat("HINCRBY", g.key(), g.member(), g.value()) },
	func(g *gen) []string { return cat("HINCRBYFLOAT", g.key(), g.member(), g.value()) },
	func(g *gen) []string {
		return cat("HRANDFIELD", g.key(), g.pick("100", "-3", "0"), g.opt("", "WITHVALUES"))
	},
}

var setCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat("SADD", g.key(), g.members(1, 5, g.member)) },
	func(g *gen) []string { return cat("SREM", g.key(), g.members(1, 3, g.member)) },
	func(g *gen) []string { return cat("SCARD", g.key()) },
	func(g *gen) []string { return cat("SISMEMBER", g.key(), g.member()) },
	func(g *gen) []string { return cat("SMISMEMBER", g.key(), g.members(1, 3, g.member)) },
	func(g *gen) []string { return cat("SMEMBERS", g.key()) },
	func(g *gen) []string { return cat("SMOVE", g.key(), g.key(), g.member()) },
	func(g *gen) []string { return cat(g.pick("SINTER", "SUNION", "SDIFF"), g.keyList(1, 3)) },
	func(g *gen) []string {
		return cat(g.pick("SINTERSTORE", "SUNIONSTORE", "SDIFFSTORE"), g.key(), g.keyList(1, 3))
	},
	func(g *gen) []string {
		ks := g.keyList(1, 3)
		a := cat("SINTERCARD", strconv.Itoa(len(ks)), ks)
		if g.chance(50) {
			a = append(a, "LIMIT", g.pick("0", "1", "2", "-1"))
		}
		return a
	},
	func(g *gen) []string { return cat("SPOP", g.key(), "100000") },
	func(g *gen) []string { return cat("SRANDMEMBER", g.key(), g.pick("100", "-3", "0")) },
	func(g *gen) []string {
		return cat("SORT", g.key(), g.opt("", "ALPHA", "DESC ALPHA", "LIMIT 1 2 ALPHA"))
	},
}

// zsetDeepCmds grow sorted sets to several thousand members (D1: scores
// from a small range, so many ties; E1: score 0, for the lex ranges), deep enough that the tree ordering them (ds.ZSkip) has inner
// nodes of inner nodes, and read and cut them at ranks and members far
// from the ends, where the small families' indexes never reach.
var zsetDeepCmds = []func(g *gen) []string{
	func(g *gen) []string { return g.deepAdd("D1", false) },
	func(g *gen) []string { return g.deepAdd("D1", false) },
	func(g *gen) []string { return g.deepAdd("E1", true) },
	func(g *gen) []string { return g.deepAdd("E1", true) },
	func(g *gen) []string {
		i := g.r.IntN(12_000) - 6_000
		return cat("ZRANGE", g.pick("D1", "E1"), strconv.Itoa(i), strconv.Itoa(i+g.r.IntN(12)), g.opt("", "WITHSCORES", "REV"))
	},
	func(g *gen) []string {
		return cat(g.pick("ZRANK", "ZREVRANK"), g.pick("D1", "E1"), g.deepMember())
	},
	func(g *gen) []string { return cat("ZSCORE", "D1", g.deepMember()) },
	func(g *gen) []string { return cat("ZREM", g.pick("D1", "E1"), g.members(1, 6, g.deepMember)) },
	func(g *gen) []string {
		i := g.r.IntN(6_000)
		return cat("ZREMRANGEBYRANK", g.pick("D1", "E1"), strconv.Itoa(i), strconv.Itoa(i+g.r.IntN(100)))
	},
	func(g *gen) []string {
		lo := g.r.IntN(40) - 10
		return cat("ZCOUNT", "D1", strconv.Itoa(lo), "("+strconv.Itoa(lo+g.r.IntN(4)))
	},
	func(g *gen) []string {
		lo := g.r.IntN(40) - 10
		return cat("ZRANGEBYSCORE", "D1", strconv.Itoa(lo), strconv.Itoa(lo+1), "WITHSCORES", "LIMIT", strconv.Itoa(g.r.IntN(200)), "5")
	},
	func(g *gen) []string {
		lo := g.r.IntN(40) - 10
		return cat("ZREMRANGEBYSCORE", "D1", "("+strconv.Itoa(lo), strconv.Itoa(lo))
	},
	func(g *gen) []string {
		a, b := g.deepMember(), g.deepMember()
		return cat(g.pick("ZRANGEBYLEX", "ZLEXCOUNT"), "E1", "["+min(a, b), "("+max(a, b))
	},
	func(g *gen) []string {
		a, b := g.deepMember(), g.deepMember()
		return cat("ZREMRANGEBYLEX", "E1", "("+min(a, b), "["+min(a, b)+"~")
	},
	func(g *gen) []string {
		return cat(g.pick("ZPOPMIN", "ZPOPMAX"), g.pick("D1", "E1"), g.pick("1", "3"))
	},
	func(g *gen) []string { return cat("ZINCRBY", "D1", g.smallInt(-3, 3), g.deepMember()) },
	func(g *gen) []string { return cat("ZCARD", g.pick("D1", "E1")) },
}

// deepMember is a member of the deep sorted sets: 30,000 values sharing
// an 8-byte prefix, so the tree's keys tie and members decide.
func (g *gen) deepMember() string { return fmt.Sprintf("deepmem-%05d", g.r.IntN(30_000)) }

// deepAdd adds 100 deep members to key, at score 0 (lex) or small scores.
func (g *gen) deepAdd(key string, lex bool) []string {
	a := cat("ZADD", key)
	for range 100 {
		sc := "0"
		if !lex {
			sc = g.smallInt(-10, 30)
		}
		a = append(a, sc, g.deepMember())
	}
	return a
}

var zsetCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat("ZADD", g.key(), g.score(), g.member(), g.score(), g.member()) },
	func(g *gen) []string {
		a := cat("ZADD", g.key())
		for _, f := range []string{"NX", "XX", "GT", "LT", "CH"} {
			if g.chance(20) {
				a = append(a, f)
			}
		}
		if g.chance(25) {
			return append(a, "INCR", g.score(), g.member())
		}
		return append(a, g.score(), g.member())
	},
	func(g *gen) []string { return cat("ZINCRBY", g.key(), g.score(), g.member()) },
	func(g *gen) []string { return cat("ZREM", g.key(), g.members(1, 3, g.member)) },
	func(g *gen) []string { return cat("ZCARD", g.key()) },
	func(g *gen) []string { return cat("ZCOUNT", g.key(), g.scoreBound(), g.scoreBound()) },
	func(g *gen) []string { return cat("ZSCORE", g.key(), g.member()) },
	func(g *gen) []string { return cat("ZMSCORE", g.key(), g.members(1, 3, g.member)) },
	func(g *gen) []string { return cat(g.pick("ZRANK", "ZREVRANK"), g.key(), g.member()) },
	func(g *gen) []string {
		return cat("ZRANGE", g.key(), g.index(), g.index(), g.opt("", "WITHSCORES", "REV", "REV WITHSCORES"))
	},
	func(g *gen) []string {
		a := cat("ZRANGE", g.key(), g.scoreBound(), g.scoreBound(), "BYSCORE", g.opt("", "REV"))
		if g.chance(40) {
			a = append(a, "LIMIT", g.smallInt(-1, 3), g.smallInt(-1, 4))
		}
		return append(a, g.opt("", "WITHSCORES")...)
	},
	func(g *gen) []string {
		return cat(g.pick("ZRANGEBYSCORE", "ZREVRANGEBYSCORE"), g.key(), g.scoreBound(), g.scoreBound(), g.opt("", "WITHSCORES", "LIMIT 0 2", "WITHSCORES LIMIT 1 1"))
	},
	func(g *gen) []string { return cat("ZREVRANGE", g.key(), g.index(), g.index(), g.opt("", "WITHSCORES")) },
	func(g *gen) []string { return cat("ZREMRANGEBYRANK", g.key(), g.index(), g.index()) },
	func(g *gen) []string { return cat("ZREMRANGEBYSCORE", g.key(), g.scoreBound(), g.scoreBound()) },
	func(g *gen) []string {
		return cat(g.pick("ZPOPMIN", "ZPOPMAX"), g.key(), g.opt("", "1", "2", "0", "-1"))
	},
	func(g *gen) []string {
		ks := g.keyList(1, 3)
		a := cat(g.pick("ZUNIONSTORE", "ZINTERSTORE"), g.key(), strconv.Itoa(len(ks)), ks)
		if g.chance(40) {
			a = append(a, "WEIGHTS")
			for range ks {
				a = append(a, g.pick("1", "2", "-1", "0.5", "inf", "0"))
			}
		}
		if g.chance(40) {
			a = append(a, "AGGREGATE", g.pick("SUM", "MIN", "MAX"))
		}
		return a
	},
	func(g *gen) []string {
		ks := g.keyList(1, 3)
		return cat(g.pick("ZUNION", "ZINTER", "ZDIFF"), strconv.Itoa(len(ks)), ks, g.opt("", "WITHSCORES"))
	},
	func(g *gen) []string {
		ks := g.keyList(1, 3)
		return cat("ZDIFFSTORE", g.key(), strconv.Itoa(len(ks)), ks)
	},
	func(g *gen) []string {
		ks := g.keyList(1, 3)
		return cat("ZINTERCARD", strconv.Itoa(len(ks)), ks, g.opt("", "LIMIT 1", "LIMIT 0"))
	},
	func(g *gen) []string {
		return cat("ZRANGESTORE", g.key(), g.key(), g.index(), g.index())
	},
	func(g *gen) []string {
		ks := g.keyList(1, 2)
		return cat("ZMPOP", strconv.Itoa(len(ks)), ks, g.pick("MIN", "MAX"), g.opt("", "COUNT 2", "COUNT 1"))
	},
	func(g *gen) []string {
		return cat("ZRANDMEMBER", g.key(), g.pick("100", "-3", "0"), g.opt("", "WITHSCORES"))
	},
}

// bulk commands make the wide families' collections grow past the
// encoding thresholds in a few hundred commands.
func bulk(name string, pairs bool, n int) func(g *gen) []string {
	return func(g *gen) []string {
		a := cat(name, g.key())
		for range n {
			switch {
			case name == "ZADD":
				a = append(a, g.score(), g.member())
			case pairs:
				a = append(a, g.member(), g.value())
			default:
				a = append(a, g.member())
			}
		}
		return a
	}
}

func times(n int, f func(g *gen) []string) []func(g *gen) []string {
	out := make([]func(g *gen) []string, n)
	for i := range out {
		out[i] = f
	}
	return out
}

// zlexCmds are the member-range reads. On a skiplist whose scores differ
// their reply depends on the random levels (Valkey documents it as
// unspecified; runRandom tolerates a difference there), on a listpack it
// is a deterministic linear walk.
var zlexCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat("ZLEXCOUNT", g.key(), g.lexBound(), g.lexBound()) },
	func(g *gen) []string {
		a := cat("ZRANGE", g.key(), g.lexBound(), g.lexBound(), "BYLEX", g.opt("", "REV"))
		if g.chance(40) {
			a = append(a, "LIMIT", g.smallInt(-1, 3), g.smallInt(-1, 4))
		}
		return a
	},
	func(g *gen) []string {
		return cat(g.pick("ZRANGEBYLEX", "ZREVRANGEBYLEX"), g.key(), g.lexBound(), g.lexBound(), g.opt("", "LIMIT 0 2", "LIMIT 1 -1"))
	},
}

// zlexBigCmds fill big sorted sets with score 0 only, and delete member
// ranges from them (only there: on a skiplist with differing scores which
// members a ZREMRANGEBYLEX removes depends on the random levels, and the
// two servers' sets would part).
var zlexBigCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat("ZREMRANGEBYLEX", g.key(), g.lexBound(), g.lexBound()) },
	func(g *gen) []string { return cat("ZADD", g.key(), "0", g.member(), "0", g.member(), "0", g.member()) },
	func(g *gen) []string { return cat("ZREM", g.key(), g.member()) },
	func(g *gen) []string { return cat("ZCARD", g.key()) },
	func(g *gen) []string { return cat("ZRANGE", g.key(), g.index(), g.index()) },
	func(g *gen) []string { return cat("ZRANK", g.key(), g.member()) },
}

// ttl is an expiry argument: mostly far enough in the future that no key
// expires during a run (TTL replies are compared as "positive", see
// normalize), sometimes zero, negative or out of range.
func (g *gen) ttl() string {
	switch g.r.IntN(10) {
	case 0:
		return g.pick("0", "-1", "x", "9223372036854775807", "-9223372036854775808", "1.5")
	default:
		return strconv.Itoa(1000 + g.r.IntN(100000))
	}
}

var keyCmds = []func(g *gen) []string{
	// The encoding as Valkey would choose it, at the same thresholds: on
	// every family, so each conversion (and the absence of a conversion
	// back) is compared where it happens.
	func(g *gen) []string { return cat("OBJECT", "ENCODING", g.key()) },
	func(g *gen) []string {
		return cat(g.pick("EXPIRE", "PEXPIRE"), g.key(), g.ttl(), g.opt("", "", "NX", "XX", "GT", "LT", "NX XX", "GT LT", "FOO"))
	},
	func(g *gen) []string {
		return cat(g.pick("EXPIREAT", "PEXPIREAT"), g.key(), g.pick("1", "4102444800", "4102444800000", "9999999999999"), g.opt("", "NX", "XX", "GT", "LT"))
	},
	func(g *gen) []string { return cat(g.pick("TTL", "PTTL", "EXPIRETIME", "PEXPIRETIME"), g.key()) },
	func(g *gen) []string { return cat("SET", g.key(), g.value(), g.pick("EX", "PX"), g.ttl()) },
	func(g *gen) []string { return cat("GETEX", g.key(), g.pick("EX", "PX", "EXAT", "PXAT"), g.ttl()) },
	func(g *gen) []string { return cat("TOUCH", g.keyList(1, 3)) },
	func(g *gen) []string {
		return cat("SCAN", "0", "COUNT", "1000", g.opt("", "MATCH *1", "MATCH ?2", "MATCH [a-m]*"), g.opt("", "TYPE string", "TYPE list", "TYPE zset", "TYPE hash", "TYPE set"))
	},
	func(g *gen) []string { return cat("KEYS", g.pick("*", "*1", "?[23]", "x*", "[^a]*")) },
	func(g *gen) []string { return cat(g.pick("DBSIZE", "RANDOMKEY")) },
	func(g *gen) []string { return cat("UNLINK", g.key()) },
	func(g *gen) []string { return cat("DEL", g.keyList(1, 2)) },
	func(g *gen) []string { return cat("EXISTS", g.keyList(1, 3)) },
	func(g *gen) []string { return cat("TYPE", g.key()) },
	func(g *gen) []string { return cat("RENAME", g.key(), g.key()) },
	func(g *gen) []string { return cat("RENAMENX", g.key(), g.key()) },
	func(g *gen) []string { return cat("COPY", g.key(), g.key(), g.opt("", "REPLACE")) },
	func(g *gen) []string { return cat("PERSIST", g.key()) },
}

// dumpPayloads are DUMP payloads of small values of every type, with an
// RDB 10 footer (which Valkey 8 reads as it reads its own 11), and one
// with a wrong checksum. (DUMP itself is left out: a hashtable's payload
// follows its order. tests/integration's TestDumpRestoreInterop compares
// DUMP with valkey-server.)
var dumpPayloads = func() []string {
	v10 := func(p []byte) string {
		b := binary.LittleEndian.AppendUint16(slices.Clone(p[:len(p)-10]), 10)
		return string(binary.LittleEndian.AppendUint64(b, ds.CRC64(0, b)))
	}
	entry := func(k rdb.Kind, fill func(e *rdb.Entry)) string {
		e := rdb.NewEntry(0, nil, k)
		fill(e)
		p, err := rdb.DumpPayload(e, rdb.DefaultOptions())
		if err != nil {
			panic(err)
		}
		return v10(p)
	}
	bs := func(xs ...string) [][]byte {
		var out [][]byte
		for _, x := range xs {
			out = append(out, []byte(x))
		}
		return out
	}
	ps := []string{
		entry(rdb.KindString, func(e *rdb.Entry) { e.String = []byte("restored") }),
		entry(rdb.KindString, func(e *rdb.Entry) { e.String = []byte("42") }),
		entry(rdb.KindList, func(e *rdb.Entry) { e.List = bs("a", "b", "1") }),
		entry(rdb.KindSet, func(e *rdb.Entry) { e.Set = bs("1", "2", "30") }), // intset
		// RDB_TYPE_SET {a, b, 1}: a listpack in Valkey 8, a hashtable in 7.0.
		v10([]byte{2, 3, 1, 'a', 1, 'b', 1, '1', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
		entry(rdb.KindZSet, func(e *rdb.Entry) {
			e.ZSet = []rdb.ZMember{{Member: []byte("a"), Score: 1}, {Member: []byte("b"), Score: -2.5}}
		}),
		entry(rdb.KindHash, func(e *rdb.Entry) {
			e.Hash = []rdb.HashField{{Field: []byte("f"), Value: []byte("v")}, {Field: []byte("n"), Value: []byte("1")}}
		}),
	}
	bad := []byte(ps[0])
	bad[len(bad)-1] ^= 1
	return append(ps, string(bad))
}()

// dumpCmds are RESTOREs: relative, absolute and past TTLs, with and
// without REPLACE, IDLETIME and FREQ.
var dumpCmds = []func(g *gen) []string{
	func(g *gen) []string {
		p := dumpPayloads[g.r.IntN(len(dumpPayloads))]
		switch g.r.IntN(4) {
		case 0:
			return cat("RESTORE", g.key(), "0", p, g.opt("", "REPLACE", "IDLETIME 5", "FREQ 3 REPLACE", "IDLETIME 1 FREQ 1"))
		case 1:
			return cat("RESTORE", g.key(), g.ttl(), p, g.opt("", "REPLACE"))
		case 2:
			return cat("RESTORE", g.key(), g.pick("1", "4102444800000"), p, "ABSTTL", g.opt("", "REPLACE"))
		}
		return cat("RESTORE", g.key(), "0", p, "REPLACE")
	},
}

// dbCmds move data between databases 0-2 (and name invalid ones): SELECT,
// MOVE, COPY ... DB, SWAPDB, FLUSHDB. With WATCH and MULTI around them
// (runRandom adds those) they exercise which watches a database-wide
// change invalidates.
var dbCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat("SELECT", g.db()) },
	func(g *gen) []string { return cat("MOVE", g.key(), g.db()) },
	func(g *gen) []string { return cat("COPY", g.key(), g.key(), "DB", g.db(), g.opt("", "REPLACE")) },
	func(g *gen) []string { return cat("SWAPDB", g.db(), g.db()) },
	func(g *gen) []string { return cat("FLUSHDB", g.opt("", "", "", "SYNC", "ASYNC", "BAD")) },
	func(g *gen) []string { return cat("SET", g.key(), g.value()) },
	func(g *gen) []string { return cat("RPUSH", g.key(), g.member()) },
	func(g *gen) []string { return cat("SADD", g.key(), g.member()) },
	func(g *gen) []string { return cat("GET", g.key()) },
	func(g *gen) []string { return cat("DBSIZE") },
	func(g *gen) []string { return cat("EXPIRE", g.key(), g.pick("100", "1000")) },
}

// db is a database index: mostly 0-2, sometimes out of range or not a
// number.
func (g *gen) db() string {
	if g.chance(10) {
		return g.pick("16", "-1", "x", "99999999999999999999")
	}
	return g.smallInt(0, 2)
}

// families are run one after another on separate key pools; "mixed" puts
// every command on one pool, so types collide (WRONGTYPE paths, RENAME and
// COPY across types).
func families() []family {
	all := func(groups ...[]func(g *gen) []string) []func(g *gen) []string {
		var out []func(g *gen) []string
		for _, gr := range groups {
			out = append(out, gr...)
		}
		return out
	}
	return []family{
		{"strings", []string{"s1", "s2", "s3"}, all(stringCmds, keyCmds), false},
		{"lists", []string{"l1", "l2", "l3"}, all(listCmds, listCmds, listBlockCmds, sortCmds(true), keyCmds), false},
		{"hashes", []string{"h1", "h2"}, all(hashCmds, smallScanCmds, keyCmds), false},
		{"sets", []string{"t1", "t2", "t3"}, all(setCmds, smallScanCmds, keyCmds), false},
		{"zsets", []string{"z1", "z2", "z3"}, all(zsetCmds, zsetCmds, zlexCmds, zsetBlockCmds, sortCmds(true), keyCmds), false},
		{"mixed", []string{"m1", "m2", "m3"}, all(stringCmds, listCmds, hashCmds, setCmds, zsetCmds, zlexCmds, listBlockCmds, zsetBlockCmds, sortCmds(false), smallScanCmds, keyCmds, dumpCmds), false},
		{"dbs", []string{"d1", "d2", "d3"}, all(dbCmds, dbCmds, keyCmds), false},
		{"lists-big", []string{"L1", "L2"}, all(listCmds, times(len(listCmds), bulk("RPUSH", false, 40))), true},
		{"hashes-big", []string{"H1", "H2"}, all(hashCmds, times(len(hashCmds), bulk("HSET", true, 20))), true},
		{"sets-big", []string{"T1", "T2"}, all(setCmds, times(len(setCmds), bulk("SADD", false, 30))), true},
		{"zsets-big", []string{"Z1", "Z2"}, all(zsetCmds, times(len(zsetCmds)/2, bulk("ZADD", false, 20))), true},
		{"zlex-big", []string{"X1", "X2"}, all(zlexBigCmds, zlexBigCmds, zlexCmds), true},
		{"zsets-deep", []string{"D1", "E1"}, zsetDeepCmds, false},
		{"streams", []string{"x1", "x2", "x3"}, all(streamCmds, streamCmds, streamCmds, streamCmds, streamCmds, streamCmds, keyCmds), false},
	}
}
