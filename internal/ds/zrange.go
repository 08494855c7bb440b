package ds

// The score and member ranges of sorted-set commands (ZRANGEBYSCORE,
// ZRANGEBYLEX, ZCOUNT, ...), which ZSkip's range walks take.

import "strings"

// ScoreRange is a score interval as ZRANGEBYSCORE takes it; MinEx/MaxEx make
// a bound exclusive ("(1.5"). Use math.Inf for "-inf"/"+inf".
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

// GteMin reports whether v is not below the range's minimum.
func (r ScoreRange) GteMin(v float64) bool {
	if r.MinEx {
		return v > r.Min
	}
	return v >= r.Min
}

// LteMax reports whether v is not above the range's maximum.
func (r ScoreRange) LteMax(v float64) bool {
	if r.MaxEx {
		return v < r.Max
	}
	return v <= r.Max
}

// Contains reports whether v is in the range.
func (r ScoreRange) Contains(v float64) bool { return r.GteMin(v) && r.LteMax(v) }

// Empty reports whether no score can be in the range.
func (r ScoreRange) Empty() bool {
	return r.Min > r.Max || (r.Min == r.Max && (r.MinEx || r.MaxEx))
}

// LexBound is one end of a ZRANGEBYLEX range: "-" (Inf < 0), "+" (Inf > 0),
// or a member, inclusive ("[a") or exclusive ("(a").
type LexBound struct {
	Value string
	Ex    bool
	Inf   int8 // -1 for "-", +1 for "+", 0 for a member bound
}

// LexRange is a member interval for ZRANGEBYLEX and friends. It is only
// meaningful when all elements have the same score.
type LexRange struct {
	Min, Max LexBound
}

// ParseLexBound parses "-", "+", "[member" or "(member". Like Valkey it
// tests "-" and "+" the C way: a NUL byte after them ends the argument.
func ParseLexBound(b []byte) (LexBound, bool) {
	if len(b) == 0 {
		return LexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return LexBound{}, false
		}
		if b[0] == '+' {
			return LexBound{Inf: 1, Ex: true}, true
		}
		return LexBound{Inf: -1, Ex: true}, true
	case '(':
		return LexBound{Value: string(b[1:]), Ex: true}, true
	case '[':
		return LexBound{Value: string(b[1:])}, true
	}
	return LexBound{}, false
}

// ParseLexRange parses the min and max arguments of ZRANGEBYLEX; ok is false
// if either is malformed (Valkey replies "min or max not valid string range
// item").
func ParseLexRange(min, max []byte) (r LexRange, ok bool) {
	if r.Min, ok = ParseLexBound(min); !ok {
		return r, false
	}
	r.Max, ok = ParseLexBound(max)
	return r, ok
}

// cmpLex compares a member (or bound) a with bound b, treating "-" as below
// and "+" as above every member, as Valkey's sdscmplex.
func cmpLex(a, b LexBound) int {
	switch {
	case a.Inf != 0 && a.Inf == b.Inf:
		return 0
	case a.Inf < 0 || b.Inf > 0:
		return -1
	case a.Inf > 0 || b.Inf < 0:
		return 1
	}
	return strings.Compare(a.Value, b.Value)
}

// GteMin reports whether member is not below the range's minimum.
func (r LexRange) GteMin(member string) bool {
	c := cmpLex(LexBound{Value: member}, r.Min)
	if r.Min.Ex {
		return c > 0
	}
	return c >= 0
}

// LteMax reports whether member is not above the range's maximum.
func (r LexRange) LteMax(member string) bool {
	c := cmpLex(LexBound{Value: member}, r.Max)
	if r.Max.Ex {
		return c < 0
	}
	return c <= 0
}

// Contains reports whether member is in the range.
func (r LexRange) Contains(member string) bool { return r.GteMin(member) && r.LteMax(member) }

// Empty reports whether no member can be in the range.
func (r LexRange) Empty() bool {
	c := cmpLex(r.Min, r.Max)
	return c > 0 || (c == 0 && (r.Min.Ex || r.Max.Ex))
}
