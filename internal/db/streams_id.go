package db

import (
	"math"
	"strconv"
)

// streamID is a stream entry ID, <ms>-<seq>, ordered as Valkey orders it
// (its 128-bit big-endian form).
type streamID struct{ ms, seq uint64 }

var maxStreamID = streamID{math.MaxUint64, math.MaxUint64}

func (a streamID) cmp(b streamID) int {
	switch {
	case a.ms > b.ms:
		return 1
	case a.ms < b.ms:
		return -1
	case a.seq > b.seq:
		return 1
	case a.seq < b.seq:
		return -1
	}
	return 0
}

func (a streamID) isZero() bool { return a.ms == 0 && a.seq == 0 }

// incr is streamIncrID: the next ID, or 0-0 and false after the last.
func (a streamID) incr() (streamID, bool) {
	switch {
	case a.seq != math.MaxUint64:
		a.seq++
	case a.ms != math.MaxUint64:
		a.ms++
		a.seq = 0
	default:
		return streamID{}, false
	}
	return a, true
}

// decr is streamDecrID: the previous ID, or the last ID and false before
// 0-0.
func (a streamID) decr() (streamID, bool) {
	switch {
	case a.seq != 0:
		a.seq--
	case a.ms != 0:
		a.ms--
		a.seq = math.MaxUint64
	default:
		return maxStreamID, false
	}
	return a, true
}

// appendStreamID formats id as <ms>-<seq>.
func appendStreamID(b []byte, id streamID) []byte {
	b = strconv.AppendUint(b, id.ms, 10)
	b = append(b, '-')
	return strconv.AppendUint(b, id.seq, 10)
}

func (a streamID) String() string { return string(appendStreamID(nil, a)) }

// errInvalidStreamID is streamGenericParseIDOrReply's error.
const errInvalidStreamID = "ERR Invalid stream ID specified as stream command argument"

// parseStreamID is streamGenericParseIDOrReply. A missing sequence is
// missingSeq. strict refuses "-" and "+" (which otherwise mean the
// smallest and greatest IDs). With allowSeqStar, "<ms>-*" is accepted and
// seqGiven reports whether a sequence was given. Like Valkey's, it reads
// the argument as a C string: an argument longer than 127 bytes is
// refused, and bytes from a NUL on are ignored.
func parseStreamID(arg []byte, missingSeq uint64, strict, allowSeqStar bool) (id streamID, seqGiven bool, ok bool) {
	if len(arg) > 127 {
		return id, false, false
	}
	b := CString(arg)
	seqGiven = true
	if len(b) == 1 && (b[0] == '-' || b[0] == '+') {
		if strict {
			return id, false, false
		}
		if b[0] == '-' {
			return streamID{}, true, true
		}
		return maxStreamID, true, true
	}
	dash := -1
	for i, c := range b {
		if c == '-' {
			dash = i
			break
		}
	}
	msPart, seqPart := b, []byte(nil)
	if dash >= 0 {
		msPart, seqPart = b[:dash], b[dash+1:]
	}
	ms, ok := parseULL(msPart)
	if !ok {
		return id, false, false
	}
	seq := missingSeq
	if dash >= 0 {
		if allowSeqStar && len(seqPart) == 1 && seqPart[0] == '*' {
			seq, seqGiven = 0, false
		} else if seq, ok = parseULL(seqPart); !ok {
			return id, false, false
		}
	}
	return streamID{ms, seq}, seqGiven, true
}

// parseULL is Valkey's string2ull: a canonical long long that is not
// negative, or else what strtoull accepts over the whole string (leading
// white space, a sign, leading zeros; a negative value wraps; overflow is
// refused).
func parseULL(b []byte) (uint64, bool) {
	if n, ok := parseLL(b); ok {
		return uint64(n), n >= 0
	}
	i := 0
	for i < len(b) && (b[i] == ' ' || b[i] >= '\t' && b[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		neg = b[i] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var u uint64
	for ; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false // ERANGE
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		u = -u
	}
	return u, true
}

// parseLL is Valkey's string2ll: an optional '-', then "0" or digits not
// starting with 0, within int64; nothing else.
func parseLL(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	p, neg := 0, false
	if b[0] == '-' {
		neg, p = true, 1
		if len(b) == 1 {
			return 0, false
		}
	}
	if b[p] < '1' || b[p] > '9' {
		return 0, false
	}
	var u uint64
	for ; p < len(b); p++ {
		c := b[p]
		if c < '0' || c > '9' {
			return 0, false
		}
		if u > (math.MaxUint64-uint64(c-'0'))/10 {
			return 0, false
		}
		u = u*10 + uint64(c-'0')
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return int64(-u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// parseIntervalID is streamParseIntervalIDOrReply: a "(" prefix (on an
// argument longer than one byte) makes the bound exclusive, and the rest
// is then parsed strictly.
func parseIntervalID(arg []byte, missingSeq uint64) (id streamID, exclusive, ok bool) {
	if len(arg) > 1 && arg[0] == '(' {
		id, _, ok = parseStreamID(arg[1:], missingSeq, true, false)
		return id, true, ok
	}
	id, _, ok = parseStreamID(arg, missingSeq, false, false)
	return id, false, ok
}
