package aof

import "math"

// The C number parsers Valkey's loaders use, with glibc's behaviour, so
// that this package accepts and refuses exactly the lines Valkey does.

// strtol is glibc's strtol(s, NULL, 10) on a C string (cut at a NUL):
// leading isspace skipped, an optional sign, decimal digits up to the
// first other byte, saturated at the int64 bounds; 0 with no digits.
func strtol(s []byte) int64 {
	i := 0
	for i < len(s) && isCSpace(s[i]) {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	var v uint64
	over := false
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if v > (math.MaxUint64-d)/10 {
			over = true
			continue
		}
		v = v*10 + d
	}
	if neg {
		if over || v > 1<<63 {
			return math.MinInt64
		}
		return -int64(v)
	}
	if over || v > math.MaxInt64 {
		return math.MaxInt64
	}
	return int64(v)
}

// atoll is strtol (long long is long on amd64 Linux).
func atoll(s []byte) int64 { return strtol(s) }

// atoi is glibc's atoi: (int)strtol, the low 32 bits.
func atoi(s []byte) int32 { return int32(strtol(s)) }
