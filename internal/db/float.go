package db

import "strconv"

// AppendLongDouble formats f as Valkey's INCRBYFLOAT and HINCRBYFLOAT do
// (ld2string in human-friendly mode: fixed point, no exponent, trailing
// zeros trimmed). Valkey computes in 80-bit long double; Go has none, so we
// compute in float64 and print the shortest fixed-point form that
// round-trips. For the values people use (10.5 + 0.1 = "10.6") this prints
// what Valkey prints; results needing more than 17 significant digits can
// differ in the last digits (documented in tests/compat/differences.go).
func AppendLongDouble(dst []byte, f float64) []byte {
	if f == 0 {
		return append(dst, '0')
	}
	return strconv.AppendFloat(dst, f, 'f', -1, 64)
}
