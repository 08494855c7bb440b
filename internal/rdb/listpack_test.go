package rdb

import (
	"bytes"
	"encoding/hex"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestListpackEncoding: each element's entry bytes (encoding, data,
// backlen) as Valkey's lpAppend writes them.
func TestListpackEncoding(t *testing.T) {
	a := func(n int) string { return strings.Repeat("a", n) }
	for _, tc := range []struct{ v, hex string }{
		{"0", "0001"},
		{"127", "7f01"},
		{"128", "c08002"},
		{"-1", "dfff02"},
		{"4095", "cfff02"},
		{"-4096", "d00002"},
		{"4096", "f1001003"},
		{"-32768", "f1008003"},
		{"32768", "f200800004"},
		{"-8388608", "f200008004"},
		{"8388608", "f30000800005"},
		{"2147483648", "f4000000800000000009"},
		{"-9223372036854775808", "f4000000000000008009"},
		{"9223372036854775808", "93" + hex.EncodeToString([]byte("9223372036854775808")) + "14"},
		{"01", "82303103"},
		{"-0", "822d3003"},
		{"+1", "822b3103"},
		{"", "8001"},
		{"b", "816202"},
		{a(63), "bf" + hex.EncodeToString([]byte(a(63))) + "40"},
		{a(64), "e040" + hex.EncodeToString([]byte(a(64))) + "42"},
		{a(126), "e07e" + hex.EncodeToString([]byte(a(126))) + "0180"},
		{a(4095), "efff" + hex.EncodeToString([]byte(a(4095))) + "2081"},
		{a(4096), "f000100000" + hex.EncodeToString([]byte(a(4096))) + "2085"},
	} {
		lp := newListpack(0)
		lp.append([]byte(tc.v))
		b := lp.bytes()
		if got := hex.EncodeToString(b[lpHeaderSize : len(b)-1]); got != tc.hex {
			t.Errorf("%.20q: %s, want %s", tc.v, short(got), short(tc.hex))
		}
		if lpEntrySize([]byte(tc.v)) != len(b)-lpHeaderSize-1 {
			t.Errorf("%.20q: lpEntrySize %d, encoded %d", tc.v, lpEntrySize([]byte(tc.v)), len(b)-lpHeaderSize-1)
		}
		var got [][]byte
		if msg := lpDecode(b, func(v []byte) string { got = append(got, v); return "" }); msg != "" || len(got) != 1 || string(got[0]) != tc.v {
			t.Errorf("%.20q: decoded %q, %s", tc.v, got, msg)
		}
	}
}

func short(s string) string {
	if len(s) > 40 {
		return s[:20] + "..." + s[len(s)-20:]
	}
	return s
}

// TestListpackLarge: a listpack over 65534 elements stores 65535 as its
// count ("count them"), and the 5-byte backlen of huge entries decodes.
func TestListpackLarge(t *testing.T) {
	lp := newListpack(0)
	for i := range 70000 {
		lp.append([]byte{byte('a' + i%26)})
	}
	big := bytes.Repeat([]byte("z"), 2100000)
	lp.append(big)
	b := lp.bytes()
	if b[4] != 0xFF || b[5] != 0xFF {
		t.Fatalf("count % x", b[4:6])
	}
	n := 0
	if msg := lpDecode(b, func(v []byte) string { n++; return "" }); msg != "" || n != 70001 {
		t.Fatalf("%d elements, %s", n, msg)
	}
}

func TestLZF(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	var htab lzfTable
	inputs := [][]byte{
		bytes.Repeat([]byte("a"), 21), bytes.Repeat([]byte("ab"), 5000),
		[]byte(strings.Repeat("corvid valkey ", 1000)),
	}
	for range 200 {
		n := r.IntN(3000)
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc"[r.IntN(3)]
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		c := lzfCompress(in, len(in)-4, &htab, nil)
		if c == nil {
			continue
		}
		if len(c) > len(in)-4 {
			t.Fatalf("compressed %d to %d, over the limit", len(in), len(c))
		}
		out, ok := lzfDecompress(c, len(in))
		if !ok || !bytes.Equal(out, in) {
			t.Fatalf("round trip of %d bytes failed", len(in))
		}
		if _, ok := lzfDecompress(c, len(in)+1); ok {
			t.Fatal("wrong length accepted")
		}
	}
	// Random bytes do not compress.
	rb := make([]byte, 1000)
	for i := range rb {
		rb[i] = byte(r.IntN(256))
	}
	if lzfCompress(rb, len(rb)-4, &htab, nil) != nil {
		t.Error("random bytes compressed")
	}
	// Garbage never panics.
	for range 2000 {
		g := make([]byte, r.IntN(40))
		for i := range g {
			g[i] = byte(r.IntN(256))
		}
		lzfDecompress(g, r.IntN(200))
	}
}

func TestScoreFormat(t *testing.T) {
	// As Valkey 8.0.1 stores these scores in a zset listpack.
	for f, want := range map[float64]string{
		0.1: "0.1", 1e-7: "1e-7", 1e20: "1e+20", 2.5e-5: "0.000025", 1000000.5: "1000000.5",
		1e17: "100000000000000000", 1.7976931348623157e308: "1.7976931348623157e+308", -3.75: "-3.75",
		123456789012345678: "123456789012345680", 5e-324: "5e-324", 1.5: "1.5", -1e-300: "-1e-300",
	} {
		if got := string(appendScore(nil, f)); got != want {
			t.Errorf("%v: %s, want %s", f, got, want)
		}
	}
}
