package db

import "math"

// This file holds the string commands that address a string by position:
// GETRANGE (and its old name SUBSTR), SETRANGE, and LCS.

const (
	errOffsetRange = "ERR offset is out of range"
	errLCSType     = "ERR The specified keys must contain string values"
	errLCSLenIdx   = "ERR If you want both the length and indexes, please just use IDX."
	errLCSTooLong  = "ERR String too long for LCS"
	errLCSMemory   = "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len"
)

// GETRANGE key start end
//
// SUBSTR key start end is the same procedure under its pre-2.0 name.
func getrangeCommand(c *Ctx) {
	start, ok := c.IntArg(2)
	if !ok {
		return
	}
	end, ok := c.IntArg(3)
	if !ok {
		return
	}
	o := c.LookupRead(c.Argv[1])
	if o == nil {
		c.W.Bulk(nil) // an empty bulk, not a null
		return
	}
	if o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	s := o.Str()
	n := int64(len(s))
	// Both ends negative and crossed: empty, before clamping could turn
	// them into a one-byte range.
	if start < 0 && end < 0 && start > end {
		c.W.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	// A negative result is clamped to 0, not treated as empty: GETRANGE of
	// "hello" 0 -100 is "h", as in Valkey.
	start = max(start, 0)
	end = max(end, 0)
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.W.Bulk(nil)
		return
	}
	c.W.Bulk(s[start : end+1])
}

// checkStringLength reports whether a string of size+add bytes is allowed
// by proto-max-bulk-len, writing Valkey's error when it is not. It guards
// against the sum overflowing too.
func (c *Ctx) checkStringLength(size, add int64) bool {
	if size > math.MaxInt64-add || size+add > c.cfg().maxStringLen.Load() {
		c.W.Error(ErrStringTooLong)
		return false
	}
	return true
}

// SETRANGE key offset value
func setrangeCommand(c *Ctx) {
	key, val := c.Argv[1], c.Argv[3]
	offset, ok := c.IntArg(2)
	if !ok {
		return
	}
	if offset < 0 {
		c.W.Error(errOffsetRange)
		return
	}
	o := c.LookupWrite(key)
	if o == nil {
		// Writing nothing to a missing key does not create it.
		if len(val) == 0 {
			c.W.Int(0)
			return
		}
		if !c.checkStringLength(offset, int64(len(val))) {
			return
		}
		o = c.Create(key, TypeString)
		n := int(offset) + len(val)
		o.SetStr(newStr(n, n))
		o.SetForm(StrRaw)
	} else {
		if o.Type != TypeString {
			c.W.Error(ErrWrongType)
			return
		}
		if len(val) == 0 {
			c.W.Int(int64(len(o.Str())))
			return
		}
		if !c.checkStringLength(offset, int64(len(val))) {
			return
		}
		o.SetStr(growZero(o.Str(), offset+int64(len(val))))
		o.SetForm(StrRaw)
	}
	copy(o.Str()[offset:], val)
	c.Touch(key)
	c.Notify(NotifyString, "setrange", key)
	c.W.Int(int64(len(o.Str())))
}

// growZero extends b to n bytes, zero-filling the new tail (grow).
func growZero(b []byte, n int64) []byte {
	old := len(b)
	b = grow(b, n)
	clear(b[old:])
	return b
}

// grow extends b to n bytes (b itself when it is that long already),
// leaving the new tail's bytes as they are. It grows in place when b's capacity allows (a value SET
// from a big argument has the spare room of its allocation: SETRANGE or
// BITFIELD one byte past its end copies nothing); otherwise it copies b
// into a buffer with room to spare, as Valkey's sdsMakeRoomFor: twice n
// below 1 MiB, n plus 1 MiB above (so SETBIT, SETRANGE or APPEND walking
// forward is amortized O(1)), rounded up to the size the allocator hands
// out.
func grow(b []byte, n int64) []byte {
	if n <= int64(len(b)) {
		return b
	}
	if n <= int64(cap(b)) {
		return b[:n]
	}
	c := n
	if c < 1<<20 {
		c *= 2
	} else {
		c += 1 << 20
	}
	nb := newStr(int(n), int(c))
	copy(nb, b)
	return nb
}

// lcsMatch is one matching range reported by LCS IDX: a[a0..a1] equals
// b[b0..b1].
type lcsMatch struct{ a0, a1, b0, b1 uint32 }

// LCS key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]
func lcsCommand(c *Ctx) {
	oa := c.LookupRead(c.Argv[1])
	ob := c.LookupRead(c.Argv[2])
	if (oa != nil && oa.Type != TypeString) || (ob != nil && ob.Type != TypeString) {
		c.W.Error(errLCSType)
		return
	}
	var a, b []byte // missing keys are empty strings
	if oa != nil {
		a = oa.Str()
	}
	if ob != nil {
		b = ob.Str()
	}
	var getLen, getIdx, withLen bool
	var minLen int64
	for j := 3; j < len(c.Argv); j++ {
		opt := c.Argv[j]
		switch {
		case EqualFold(opt, "IDX"):
			getIdx = true
		case EqualFold(opt, "LEN"):
			getLen = true
		case EqualFold(opt, "WITHMATCHLEN"):
			withLen = true
		case EqualFold(opt, "MINMATCHLEN") && j+1 < len(c.Argv):
			n, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			minLen = max(n, 0)
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if getLen && getIdx {
		c.W.Error(errLCSLenIdx)
		return
	}
	if len(a) >= math.MaxUint32-1 || len(b) >= math.MaxUint32-1 {
		c.W.Error(errLCSTooLong)
		return
	}
	// Valkey refuses when its full table would exceed proto-max-bulk-len;
	// the same limit applies here even where a smaller table is used, so
	// both servers accept and refuse the same inputs.
	cells := uint64(len(a)+1) * uint64(len(b)+1)
	if cells*4 > uint64(c.cfg().maxStringLen.Load()) {
		c.W.Error(errLCSMemory)
		return
	}
	if getLen {
		c.W.Int(int64(lcsLength(a, b)))
		return
	}
	str, matches := lcsTrace(a, b, getIdx, uint32(min(minLen, math.MaxUint32)))
	if !getIdx {
		c.W.Bulk(str)
		return
	}
	c.W.MapLen(2)
	c.W.BulkString("matches")
	c.W.ArrayLen(len(matches))
	for _, m := range matches {
		if withLen {
			c.W.ArrayLen(3)
		} else {
			c.W.ArrayLen(2)
		}
		c.W.ArrayLen(2)
		c.W.Int(int64(m.a0))
		c.W.Int(int64(m.a1))
		c.W.ArrayLen(2)
		c.W.Int(int64(m.b0))
		c.W.Int(int64(m.b1))
		if withLen {
			c.W.Int(int64(m.a1 - m.a0 + 1))
		}
	}
	c.W.BulkString("len")
	c.W.Int(int64(len(str)))
}

// lcsLength computes only the length of the longest common subsequence,
// keeping two rows of the table instead of all of them.
func lcsLength(a, b []byte) uint32 {
	prev := make([]uint32, len(b)+1)
	cur := make([]uint32, len(b)+1)
	for i := 1; i <= len(a); i++ {
		ai := a[i-1]
		for j := 1; j <= len(b); j++ {
			switch {
			case ai == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] > cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// lcsTrace builds Valkey's full LCS table and walks it back from the end,
// returning the subsequence and, when wantIdx is set, the matching ranges
// (longest-first order is not implied: they come out from the end of the
// strings backwards, as Valkey emits them). Ranges shorter than minLen are
// left out. The walk's tie-breaking (prefer stepping j when the two
// neighbours are equal) is Valkey's, so the chosen subsequence and the
// ranges are identical to its reply.
func lcsTrace(a, b []byte, wantIdx bool, minLen uint32) ([]byte, []lcsMatch) {
	alen, blen := uint32(len(a)), uint32(len(b))
	w := blen + 1
	tab, release := scratchU32(uint64(alen+1) * uint64(w))
	defer release()
	for i := uint32(1); i <= alen; i++ {
		row, up := tab[i*w:(i+1)*w], tab[(i-1)*w:i*w]
		ai := a[i-1]
		for j := uint32(1); j <= blen; j++ {
			switch {
			case ai == b[j-1]:
				row[j] = up[j-1] + 1
			case up[j] > row[j-1]:
				row[j] = up[j]
			default:
				row[j] = row[j-1]
			}
		}
	}
	idx := tab[alen*w+blen]
	res := make([]byte, idx)
	var matches []lcsMatch
	// aStart == alen means "no range open".
	aStart, aEnd, bStart, bEnd := alen, uint32(0), uint32(0), uint32(0)
	i, j := alen, blen
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			res[idx-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				// Contiguous with the open range: extend it backwards.
				aStart--
				bStart--
			} else {
				emit = true
			}
			// A range touching the start of either string is complete.
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if tab[(i-1)*w+j] > tab[i*w+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			if wantIdx && (minLen == 0 || aEnd-aStart+1 >= minLen) {
				matches = append(matches, lcsMatch{aStart, aEnd, bStart, bEnd})
			}
			aStart = alen
		}
	}
	return res, matches
}
