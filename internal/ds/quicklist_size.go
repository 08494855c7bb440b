package ds

import "sync/atomic"

// Valkey decides when a list changes encoding, and where quicklist node
// boundaries fall, from the byte size its listpacks would have. Our packed
// format is different (see listpack.go), so each node also keeps the size
// the same entries would take in a Valkey listpack (qlNode.sz), computed
// with the functions below. That makes OBJECT ENCODING, and the node layout
// it depends on, follow Valkey for the same commands and configuration.

// Valkey listpack constants.
const (
	vlpEmptySize = 7 // LP_HDR_SIZE (6) + LP_EOF (1)
	// SIZE_SAFETY_LIMIT and SIZE_ESTIMATE_OVERHEAD of quicklist.c.
	qlSizeSafetyLimit = 8192
	qlSizeEstimate    = 8
)

// qlOptimizationLevel are the node size limits of fill -1..-5.
var qlOptimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

// ListpackIntSize is the size of n's listpack encoding (Valkey's
// lpEncodeIntegerGetType): 7-bit, 13-bit, 16-, 24-, 32- or 64-bit, the
// encoding byte included, the backlen not.
func ListpackIntSize(n int64) int {
	switch {
	case n >= 0 && n <= 127:
		return 1
	case n >= -4096 && n <= 4095:
		return 2
	case n >= -32768 && n <= 32767:
		return 3
	case n >= -8388608 && n <= 8388607:
		return 4
	case n >= -2147483648 && n <= 2147483647:
		return 5
	}
	return 9
}

// vlpEntrySize is the size of v as one Valkey listpack entry: encoding,
// data and backlen. Canonical integers are stored in binary.
func vlpEntrySize(v []byte) int {
	if n, ok := lpStringToInt(v); ok {
		return ListpackIntSize(n) + 1 // a backlen of one byte
	}
	l := len(v)
	var enc int
	switch {
	case l < 64:
		enc = 1 + l
	case l < 4096:
		enc = 2 + l
	default:
		enc = 5 + l
	}
	return enc + vlpBacklenSize(enc)
}

func vlpBacklenSize(l int) int {
	switch {
	case l <= 127:
		return 1
	case l < 16383:
		return 2
	case l < 2097151:
		return 3
	case l < 268435455:
		return 4
	}
	return 5
}

// lpStringToInt is listpack.c's lpStringToInt64: a canonical decimal int64
// (no '+', no leading zeros, no "-0", at most 20 bytes).
func lpStringToInt(s []byte) (int64, bool) {
	if len(s) == 0 || len(s) > 20 {
		return 0, false
	}
	if len(s) == 1 && s[0] == '0' {
		return 0, true
	}
	neg := s[0] == '-'
	if neg {
		s = s[1:]
		if len(s) == 0 {
			return 0, false
		}
	}
	if s[0] < '1' || s[0] > '9' {
		return 0, false
	}
	var v uint64
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > 1<<63-1 {
		return 0, false
	}
	return int64(v), true
}

// qlNodeLimit is quicklistNodeLimit: a size limit (negative fill) or an
// entry count limit (positive fill); -1 means none.
func qlNodeLimit(fill int) (size, count int) {
	if fill >= 0 {
		if fill == 0 {
			return -1, 1
		}
		return -1, fill
	}
	return qlNegFillLimit(fill), -1
}

func qlNegFillLimit(fill int) int {
	off := -fill - 1
	if off >= len(qlOptimizationLevel) {
		off = len(qlOptimizationLevel) - 1
	}
	return qlOptimizationLevel[off]
}

// qlExceedsLimit is quicklistNodeExceedsLimit: whether a node (or a
// listpack-encoded list) of newSz bytes and newCount entries is too big.
func qlExceedsLimit(fill, newSz, newCount int) bool {
	size, count := qlNodeLimit(fill)
	if size >= 0 {
		return newSz > size
	}
	if newSz > qlSizeSafetyLimit {
		return true
	}
	return newCount > count
}

// qlPackedThreshold is quicklist.c's packed_threshold (DEBUG
// QUICKLIST-PACKED-THRESHOLD): process-wide, as Valkey's. While it is not
// the default, an element of at least that many bytes is large whatever
// the fill.
var qlPackedThreshold atomic.Int64

const qlDefaultPackedThreshold = 1 << 30

func init() { qlPackedThreshold.Store(qlDefaultPackedThreshold) }

// SetQuicklistPackedThreshold sets packed_threshold; 0 restores the
// default. It reports false (nothing changed) for a value at or above
// 4 GiB - 1 MiB, as quicklistSetPackedThreshold.
func SetQuicklistPackedThreshold(n uint64) bool {
	if n > 1<<32-1<<20 {
		return false
	}
	if n == 0 {
		n = qlDefaultPackedThreshold
	}
	qlPackedThreshold.Store(int64(n))
	return true
}

// QuicklistPackedThreshold is packed_threshold.
func QuicklistPackedThreshold() int64 { return qlPackedThreshold.Load() }

// qlIsLarge is isLargeElement: such an element gets a node of its own.
func qlIsLarge(sz, fill int) bool {
	if t := qlPackedThreshold.Load(); t != qlDefaultPackedThreshold {
		return int64(sz) >= t
	}
	if fill >= 0 {
		return sz > qlSizeSafetyLimit
	}
	return sz > qlNegFillLimit(fill)
}

// qlAllowInsert is _quicklistNodeAllowInsert for an element of sz bytes.
func qlAllowInsert(n *qlNode, fill, sz int) bool {
	if n == nil || n.plain || qlIsLarge(sz, fill) {
		return false
	}
	return !qlExceedsLimit(fill, int(n.sz)+sz+qlSizeEstimate, int(n.count)+1)
}

// qlAllowMerge is _quicklistNodeAllowMerge.
func qlAllowMerge(a, b *qlNode, fill int) bool {
	if a == nil || b == nil || a.plain || b.plain {
		return false
	}
	return !qlExceedsLimit(fill, int(a.sz)+int(b.sz)-vlpEmptySize, int(a.count)+int(b.count))
}
