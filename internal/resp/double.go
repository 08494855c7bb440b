package resp

import (
	"math"
	"strconv"
)

// double2ll is Valkey's double2ll: d as an integer if it is one and lies
// within +-LLONG_MAX/2.
func double2ll(d float64) (int64, bool) {
	if d < -math.MaxInt64/2 || d > math.MaxInt64/2 {
		return 0, false
	}
	ll := int64(d)
	if float64(ll) == d {
		return ll, true
	}
	return 0, false
}

// AppendDouble formats f as Valkey 8's d2string, which is what every double
// reply (ZSCORE, ZRANGE WITHSCORES, ZINCRBY...) shows: "nan", "inf",
// "-inf", "-0", integers in +-2^62 in full, otherwise fpconv_dtoa: the
// shortest round-tripping digits, written plain when the decimal exponent
// is small and as d.ddde[+-]x (no padding) when not.
func AppendDouble(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0"...)
		}
		return append(dst, '0')
	}
	if ll, ok := double2ll(f); ok {
		return strconv.AppendInt(dst, ll, 10)
	}
	return appendFpconv(dst, f)
}

// appendFpconv is fpconv_dtoa's layout over Go's shortest digits.
func appendFpconv(dst []byte, f float64) []byte {
	var tmp [32]byte
	e := strconv.AppendFloat(tmp[:0], f, 'e', -1, 64)
	neg := false
	if e[0] == '-' {
		neg = true
		dst = append(dst, '-')
		e = e[1:]
	}
	// e is d[.ddd]e[+-]xx: collect the digits and the exponent.
	var digits [20]byte
	nd := 0
	k := 0
	for ; k < len(e) && e[k] != 'e'; k++ {
		if e[k] != '.' {
			digits[nd] = e[k]
			nd++
		}
	}
	x, _ := strconv.Atoi(string(e[k+1:]))
	// value = digits * 10^K with K = x - (nd-1).
	K := x - (nd - 1)
	exp := x
	if exp < 0 {
		exp = -exp
	}
	d := digits[:nd]
	switch {
	case K >= 0 && exp < nd+7:
		dst = append(dst, d...)
		for range K {
			dst = append(dst, '0')
		}
		return dst
	case K < 0 && (K > -7 || exp < 4):
		offset := nd + K
		if offset <= 0 {
			dst = append(dst, '0', '.')
			for range -offset {
				dst = append(dst, '0')
			}
			return append(dst, d...)
		}
		dst = append(dst, d[:offset]...)
		dst = append(dst, '.')
		return append(dst, d[offset:]...)
	}
	lim := 18
	if neg {
		lim = 17
	}
	if nd > lim {
		d = d[:lim]
	}
	dst = append(dst, d[0])
	if len(d) > 1 {
		dst = append(dst, '.')
		dst = append(dst, d[1:]...)
	}
	dst = append(dst, 'e')
	if x < 0 {
		dst = append(dst, '-')
	} else {
		dst = append(dst, '+')
	}
	return strconv.AppendInt(dst, int64(exp), 10)
}
