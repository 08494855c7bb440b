package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseCount reads a key count: 1000, 1e3, 10^3 or 1_000.
func parseCount(s string) (int64, error) {
	s = strings.ReplaceAll(strings.TrimSpace(s), "_", "")
	if s == "" {
		return 0, fmt.Errorf("empty count")
	}
	if base, exp, ok := strings.Cut(s, "^"); ok {
		b, err1 := strconv.ParseInt(base, 10, 64)
		e, err2 := strconv.ParseInt(exp, 10, 64)
		if err1 != nil || err2 != nil || b < 1 || e < 0 {
			return 0, fmt.Errorf("bad count %q", s)
		}
		v := math.Pow(float64(b), float64(e))
		if v > 1e15 {
			return 0, fmt.Errorf("count %q too large", s)
		}
		return int64(math.Round(v)), nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 1 {
			return 0, fmt.Errorf("count %q must be positive", s)
		}
		return n, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 1 || f > 1e15 || f != math.Trunc(f) {
		return 0, fmt.Errorf("bad count %q", s)
	}
	return int64(f), nil
}

// parseSizes reads a comma-separated list of counts, drops those above
// max (when max > 0) and returns them sorted and without duplicates.
func parseSizes(list string, max int64) ([]int64, error) {
	var out []int64
	seen := map[int64]bool{}
	for _, f := range strings.Split(list, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := parseCount(f)
		if err != nil {
			return nil, err
		}
		if (max > 0 && n > max) || seen[n] {
			continue
		}
		seen[n] = true
		out = append(out, n)
	}
	for i := 1; i < len(out); i++ { // insertion sort: a handful of sizes
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out, nil
}

// sizeLabel writes a power of ten as 10^k and anything else as digits.
func sizeLabel(n int64) string {
	k, v := 0, n
	for v >= 10 && v%10 == 0 {
		v /= 10
		k++
	}
	if v == 1 && k >= 3 {
		return "10^" + strconv.Itoa(k)
	}
	return strconv.FormatInt(n, 10)
}

// parseCommands reads the -commands list (get,set,zadd) and returns it in
// the order the sweep runs them: GET, SET, then ZADD (whose sorted sets
// are added after the strings).
func parseCommands(list string) ([]string, error) {
	want := map[string]bool{}
	for _, f := range strings.Split(list, ",") {
		c := strings.ToUpper(strings.TrimSpace(f))
		switch c {
		case "":
		case "GET", "SET", "ZADD":
			want[c] = true
		default:
			return nil, fmt.Errorf("unknown command %q (have get, set, zadd)", f)
		}
	}
	var out []string
	for _, c := range []string{"GET", "SET", "ZADD"} {
		if want[c] {
			out = append(out, c)
		}
	}
	return out, nil
}
