package resp

import "math"

// Strtol is glibc's strtol(s, &end, 10), which Valkey uses where it reads
// numbers loosely (AOF lines, MIGRATE's port, valkey-check-aof): leading
// white space (isspace), an optional sign, decimal digits up to the first
// other byte, saturated at the int64 bounds (over: errno ERANGE). end
// indexes the first byte not converted, 0 when there were no digits (as C
// sets endptr to the start); v is then 0.
func Strtol(s []byte) (v int64, end int, over bool) {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] >= '\t' && s[i] <= '\r') {
		i++
	}
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	digits := i
	var u uint64
	for ; i < len(s) && s[i] >= '0' && s[i] <= '9'; i++ {
		d := uint64(s[i] - '0')
		if u > (math.MaxUint64-d)/10 {
			over = true
			continue
		}
		u = u*10 + d
	}
	if i == digits {
		return 0, 0, false
	}
	switch {
	case neg && (over || u > 1<<63):
		return math.MinInt64, i, true
	case neg:
		return -int64(u), i, false
	case over || u > math.MaxInt64:
		return math.MaxInt64, i, true
	}
	return int64(u), i, false
}
