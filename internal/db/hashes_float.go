package db

import (
	"math/big"
	"strings"
)

// HINCRBYFLOAT computes in C long double, which on x86-64 (Valkey's usual
// platform, and Redis 7.0's in the differential tests) is the x87 80-bit
// format: a 64-bit mantissa and a 15-bit exponent. float64 cannot
// reproduce its results (0.1+0.2 is 0.3 there, and a 21-digit increment
// keeps 17 significant digits), so the addition is done with math/big at
// the same precision and rounding, and the result printed as Valkey's
// ld2string(LD_STR_HUMAN): "%.17Lf" with trailing zeros removed.
//
// INCRBYFLOAT (strings.go) uses the same helpers.

const (
	ldMantBits = 64    // x87 extended precision
	ldMaxExp   = 16384 // LDBL_MAX < 2^16384
	// ldMinExp is the MantExp of half the smallest subnormal, 2^-16446:
	// anything smaller rounds to zero.
	ldMinExp = -16445
)

// parseLongDouble parses b as Valkey's string2ld (strtold): no leading
// space, the whole string consumed, "inf"/"infinity" allowed, NaN refused.
// It reports infinities separately, as big.Float has no NaN and the
// callers treat them specially.
func parseLongDouble(b []byte) (f *big.Float, inf bool, ok bool) {
	if len(b) == 0 || len(b) > 5*1024 || isCSpace(b[0]) || isCSpace(b[len(b)-1]) {
		return nil, false, false
	}
	s := string(b)
	if strings.ContainsRune(s, '_') {
		return nil, false, false
	}
	t := strings.TrimLeft(s, "+-")
	switch strings.ToLower(t) {
	case "inf", "infinity":
		return nil, true, true
	case "nan":
		return nil, false, false
	}
	base := 10
	if len(t) > 2 && (t[:2] == "0x" || t[:2] == "0X") {
		base = 0 // hexadecimal mantissa, binary exponent
		if !strings.ContainsAny(t, "pP") {
			s += "p0"
		}
	} else if strings.ContainsAny(t, "xXbBoO") {
		return nil, false, false
	}
	f, _, err := new(big.Float).SetPrec(ldMantBits).SetMode(big.ToNearestEven).Parse(s, base)
	if err != nil || f.IsInf() {
		return nil, false, false
	}
	if f.MantExp(nil) > ldMaxExp {
		// strtold overflows to HUGE_VALL with ERANGE, which string2ld
		// refuses.
		return nil, false, false
	}
	if f.Sign() != 0 && f.MantExp(nil) < ldMinExp {
		// Below half the smallest subnormal strtold underflows to zero
		// with ERANGE, which string2ld refuses too ("1e-5000").
		return nil, false, false
	}
	return f, false, true
}

// appendLongDoubleHuman formats f as ld2string(LD_STR_HUMAN): fixed point
// with 17 decimals, trailing zeros (and a trailing '.') removed, "-0" as
// "0".
func appendLongDoubleHuman(dst []byte, f *big.Float) []byte {
	start := len(dst)
	dst = f.Append(dst, 'f', 17)
	if i := strings.IndexByte(string(dst[start:]), '.'); i >= 0 {
		for dst[len(dst)-1] == '0' {
			dst = dst[:len(dst)-1]
		}
		if dst[len(dst)-1] == '.' {
			dst = dst[:len(dst)-1]
		}
	}
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}

// hashIncrFloat adds incr to cur (found: the field exists; its value may
// be empty, which is not a float, and a hashtable may hold it as nil) as
// hincrbyfloatCommand does and returns the formatted result, or the error
// reply.
func hashIncrFloat(cur []byte, found bool, incr []byte) (out []byte, errMsg string) {
	in, inf, ok := parseLongDouble(incr)
	if !ok {
		return nil, ErrNotFloat
	}
	if inf {
		return nil, "ERR value is NaN or Infinity"
	}
	sum := new(big.Float).SetPrec(ldMantBits).SetMode(big.ToNearestEven)
	if found {
		v, vinf, ok := parseLongDouble(cur)
		if !ok {
			return nil, "ERR hash value is not a float"
		}
		if vinf {
			return nil, ErrNaN
		}
		sum.Add(v, in)
	} else {
		sum.Set(in)
	}
	if sum.MantExp(nil) > ldMaxExp {
		return nil, ErrNaN
	}
	return appendLongDoubleHuman(nil, sum), ""
}
