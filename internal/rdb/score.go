package rdb

import (
	"math"
	"math/big"
	"strconv"
)

// Scores in zset listpacks are text, written by Valkey 8.0.1's d2string:
// integers as integers, other doubles by fpconv_dtoa (night-shift/fpconv,
// Grisu2). Grisu2 is not always the shortest round-trip form, nor does it
// break ties as strconv does, so to write the same bytes as Valkey this
// file transcribes it. Any of these texts reads back as the same double.

// appendScore is d2string: "nan", "inf", "-inf", "0" or "-0", an integer
// when the double is one within ±LLONG_MAX/2, else fpconv_dtoa.
func appendScore(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	case f == 0:
		if math.Signbit(f) {
			return append(b, "-0"...)
		}
		return append(b, '0')
	}
	const half = float64(math.MaxInt64 / 2)
	if f >= -half && f <= half {
		if i := int64(f); float64(i) == f {
			return strconv.AppendInt(b, i, 10)
		}
	}
	neg := f < 0
	if neg {
		b = append(b, '-')
	}
	var digits [18]byte
	n, k := grisu2(math.Abs(f), &digits)
	return emitDigits(b, digits[:n], k, neg)
}

// fp is a do-it-yourself floating point number: frac * 2^exp.
type fp struct {
	frac uint64
	exp  int
}

const (
	fracMask  = 0x000FFFFFFFFFFFFF
	hiddenBit = 0x0010000000000000
	expBias   = 1023 + 52

	nPowers    = 87
	stepPowers = 8
	firstPower = -348
	expMax     = -32
	expMin     = -60
)

var tens = [...]uint64{
	10000000000000000000, 1000000000000000000, 100000000000000000,
	10000000000000000, 1000000000000000, 100000000000000,
	10000000000000, 1000000000000, 100000000000,
	10000000000, 1000000000, 100000000,
	10000000, 1000000, 100000,
	10000, 1000, 100,
	10, 1,
}

// powersTen are fpconv's cached powers: 10^(firstPower + 8i) as 64-bit
// normalized fractions rounded to nearest, with their binary exponents.
var powersTen = func() [nPowers]fp {
	var t [nPowers]fp
	for i := range t {
		k := firstPower + i*stepPowers
		x := new(big.Float).SetPrec(512).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(k))), nil))
		if k < 0 {
			x.Quo(new(big.Float).SetPrec(512).SetInt64(1), x)
		}
		// x = m * 2^e with m in [0.5, 1): frac = round(m * 2^64).
		mant := new(big.Float).SetPrec(512)
		e := x.MantExp(mant)
		mant.SetMantExp(mant, 64)
		z, _ := new(big.Float).SetPrec(512).Add(mant, big.NewFloat(0.5)).Int(nil)
		exp := e - 64
		if z.BitLen() > 64 { // rounded up to 2^64
			z.Rsh(z, 1)
			exp++
		}
		t[i] = fp{z.Uint64(), exp}
	}
	return t
}()

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func buildFP(d float64) fp {
	b := math.Float64bits(d)
	f := fp{frac: b & fracMask, exp: int(b >> 52 & 0x7FF)}
	if f.exp != 0 {
		f.frac += hiddenBit
		f.exp -= expBias
	} else {
		f.exp = -expBias + 1
	}
	return f
}

func normalize(f *fp) {
	for f.frac&hiddenBit == 0 {
		f.frac <<= 1
		f.exp--
	}
	const shift = 64 - 52 - 1
	f.frac <<= shift
	f.exp -= shift
}

func normalizedBoundaries(f fp) (lower, upper fp) {
	upper = fp{f.frac<<1 + 1, f.exp - 1}
	for upper.frac&(hiddenBit<<1) == 0 {
		upper.frac <<= 1
		upper.exp--
	}
	const uShift = 64 - 52 - 2
	upper.frac <<= uShift
	upper.exp -= uShift
	lShift := 1
	if f.frac == hiddenBit {
		lShift = 2
	}
	lower = fp{f.frac<<lShift - 1, f.exp - lShift}
	lower.frac <<= uint(lower.exp - upper.exp)
	lower.exp = upper.exp
	return lower, upper
}

// multiply rounds the 128-bit product to its high 64 bits, as fpconv does.
func multiply(a, b fp) fp {
	const lo = 0xFFFFFFFF
	ahBl := (a.frac >> 32) * (b.frac & lo)
	alBh := (a.frac & lo) * (b.frac >> 32)
	alBl := (a.frac & lo) * (b.frac & lo)
	ahBh := (a.frac >> 32) * (b.frac >> 32)
	tmp := (ahBl & lo) + (alBh & lo) + (alBl >> 32)
	tmp += 1 << 31
	return fp{ahBh + (ahBl >> 32) + (alBh >> 32) + (tmp >> 32), a.exp + b.exp + 64}
}

func cachedPow10(exp int) (fp, int) {
	const oneLogTen = 0.30102999566398114
	approx := int(float64(-(exp + nPowers)) * oneLogTen)
	idx := (approx - firstPower) / stepPowers
	for {
		cur := exp + powersTen[idx].exp + 64
		if cur < expMin {
			idx++
			continue
		}
		if cur > expMax {
			idx--
			continue
		}
		return powersTen[idx], firstPower + idx*stepPowers
	}
}

func roundDigit(digits []byte, delta, rem, kappa, frac uint64) {
	n := len(digits)
	for rem < frac && delta-rem >= kappa && (rem+kappa < frac || frac-rem > rem+kappa-frac) {
		digits[n-1]--
		rem += kappa
	}
}

func generateDigits(w, upper, lower fp, digits *[18]byte, k int) (int, int) {
	wfrac := upper.frac - w.frac
	delta := upper.frac - lower.frac
	oneExp := uint(-upper.exp)
	one := uint64(1) << oneExp
	part1 := upper.frac >> oneExp
	part2 := upper.frac & (one - 1)
	idx, kappa := 0, 10
	for di := 10; kappa > 0; di++ {
		div := tens[di]
		digit := part1 / div
		if digit != 0 || idx != 0 {
			digits[idx] = byte(digit) + '0'
			idx++
		}
		part1 -= digit * div
		kappa--
		tmp := part1<<oneExp + part2
		if tmp <= delta {
			roundDigit(digits[:idx], delta, tmp, div<<oneExp, wfrac)
			return idx, k + kappa
		}
	}
	for unit := 18; ; unit-- {
		part2 *= 10
		delta *= 10
		kappa--
		digit := part2 >> oneExp
		if digit != 0 || idx != 0 {
			digits[idx] = byte(digit) + '0'
			idx++
		}
		part2 &= one - 1
		if part2 < delta {
			roundDigit(digits[:idx], delta, part2, one, wfrac*tens[unit])
			return idx, k + kappa
		}
	}
}

// grisu2 returns the digits of d > 0 and K with d ≈ digits * 10^K.
func grisu2(d float64, digits *[18]byte) (n, k int) {
	w := buildFP(d)
	lower, upper := normalizedBoundaries(w)
	normalize(&w)
	cp, ck := cachedPow10(upper.exp)
	w = multiply(w, cp)
	upper = multiply(upper, cp)
	lower = multiply(lower, cp)
	lower.frac++
	upper.frac--
	return generateDigits(w, upper, lower, digits, -ck)
}

// emitDigits lays digits out as fpconv's emit_digits: plain integer,
// plain decimal, or d.ddde±x.
func emitDigits(b, digits []byte, k int, neg bool) []byte {
	nd := len(digits)
	exp := abs(k + nd - 1)
	if k >= 0 && exp < nd+7 {
		b = append(b, digits...)
		for range k {
			b = append(b, '0')
		}
		return b
	}
	if k < 0 && (k > -7 || exp < 4) {
		off := nd - abs(k)
		if off <= 0 {
			b = append(b, '0', '.')
			for range -off {
				b = append(b, '0')
			}
			return append(b, digits...)
		}
		b = append(b, digits[:off]...)
		b = append(b, '.')
		return append(b, digits[off:]...)
	}
	if neg {
		nd = min(nd, 17)
	} else {
		nd = min(nd, 18)
	}
	b = append(b, digits[0])
	if nd > 1 {
		b = append(b, '.')
		b = append(b, digits[1:nd]...)
	}
	b = append(b, 'e')
	if k+nd-1 < 0 {
		b = append(b, '-')
	} else {
		b = append(b, '+')
	}
	return strconv.AppendInt(b, int64(exp), 10)
}
