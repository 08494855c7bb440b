package resp

import (
	"math"
	"testing"
)

func TestStrtol(t *testing.T) {
	for _, tc := range []struct {
		in   string
		v    int64
		end  int
		over bool
	}{
		{"", 0, 0, false},
		{"abc", 0, 0, false},
		{"-", 0, 0, false},
		{"42", 42, 2, false},
		{" \t\n+17x", 17, 6, false},
		{"-9", -9, 2, false},
		{"6379x", 6379, 4, false},
		{"9223372036854775807", math.MaxInt64, 19, false},
		{"9223372036854775808", math.MaxInt64, 19, true},
		{"-9223372036854775808", math.MinInt64, 20, false},
		{"-9223372036854775809", math.MinInt64, 20, true},
		{"99999999999999999999999", math.MaxInt64, 23, true},
	} {
		v, end, over := Strtol([]byte(tc.in))
		if v != tc.v || end != tc.end || over != tc.over {
			t.Errorf("Strtol(%q) = %d, %d, %v; want %d, %d, %v", tc.in, v, end, over, tc.v, tc.end, tc.over)
		}
	}
}
