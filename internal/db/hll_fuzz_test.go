package db

import (
	"strings"
	"testing"
)

// FuzzHLLValue feeds arbitrary bytes as the value of an HLL key to every
// HyperLogLog command: whatever the bytes, nothing may panic, and GET
// must keep working. shape 0 stores the bytes as they are, 1 behind the
// "HYLL" magic, 2 as a dense HLL (the bytes repeated to the dense size),
// anything else as a sparse HLL behind a full header.
func FuzzHLLValue(f *testing.F) {
	f.Add([]byte("\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ"), uint8(1))
	f.Add([]byte("\x7f"), uint8(3))
	f.Add([]byte("\x7f\xff\x83"), uint8(3))
	f.Add([]byte("\xff"), uint8(2))
	f.Add([]byte("HYLL\x02"), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, shape uint8) {
		var v []byte
		switch shape {
		case 0:
			v = data
		case 1:
			v = append([]byte("HYLL"), data...)
		case 2:
			v = []byte("HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80")
			if len(data) == 0 {
				data = []byte{0}
			}
			for len(v) < hllDenseSize {
				v = append(v, data...)
			}
			v = v[:hllDenseSize]
		default:
			v = append([]byte("HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"), data...)
		}
		h := newHLLHarness(t)
		val := string(v)
		h.do("PFADD", "other", "x", "y", "z")
		for _, cmd := range [][]string{
			{"PFCOUNT", "f"},
			{"PFCOUNT", "f", "other"},
			{"PFADD", "f", "a", "b", "c", "d", "e", "f", "g", "h", "i", "j"},
			{"PFMERGE", "dst", "other", "f"},
			{"PFMERGE", "f", "other"},
			{"PFMERGE", "other", "f"},
			{"PFDEBUG", "GETREG", "f"},
			{"PFDEBUG", "DECODE", "f"},
			{"PFDEBUG", "ENCODING", "f"},
			{"PFDEBUG", "TODENSE", "f"},
		} {
			h.do("SET", "f", val)
			reply := h.do(cmd...)
			got := h.do("GET", "f")
			// A command that fails leaves the value as it was, except
			// PFADD, which keeps what it set before the corruption showed.
			if strings.HasPrefix(reply, "-") && cmd[0] != "PFADD" && got != rBulk(val) {
				t.Fatalf("%v failed (%q) and changed the value", cmd, reply)
			}
			h.do("PFCOUNT", "f")
			h.do("PFADD", "f", "again")
		}
	})
}
