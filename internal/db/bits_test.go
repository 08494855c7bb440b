package db

import (
	"math/bits"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

func TestBitSetGet(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	h.run([]step{
		st(rInt(0), "SETBIT", "b", "7", "1"),
		st(rBulk("\x01"), "GET", "b"),
		st(rInt(1), "GETBIT", "b", "7"),
		st(rInt(0), "GETBIT", "b", "6"),
		st(rInt(1), "SETBIT", "b", "7", "0"),
		st(rInt(0), "GETBIT", "b", "7"),
		st(rInt(0), "SETBIT", "b", "100", "1"),
		st(rInt(13), "STRLEN", "b"),
		st(rInt(1), "GETBIT", "b", "100"),
		st(rInt(0), "GETBIT", "b", "4294967295"), // past the end
		st(rInt(0), "GETBIT", "missing", "0"),
		st(rErr(ErrBitOffset), "SETBIT", "b", "-1", "1"),
		st(rErr(ErrBitOffset), "SETBIT", "b", "4294967296", "1"),
		st(rErr(ErrBitOffset), "SETBIT", "b", "abc", "1"),
		st(rErr(ErrBitOffset), "SETBIT", "b", "abc", "2"), // offset first
		st(rErr(ErrBitOffset), "GETBIT", "b", "4294967296"),
		st(rErr(ErrBitOffset), "GETBIT", "b", "1.0"),
		st(rErr(errBitValue), "SETBIT", "b", "0", "2"),
		st(rErr(errBitValue), "SETBIT", "b", "0", "-1"),
		st(rErr(errBitValue), "SETBIT", "b", "0", "x"),
		st(rErr(ErrWrongType), "SETBIT", "lst", "0", "1"),
		st(rErr(errBitValue), "SETBIT", "lst", "0", "5"),
		st(rErr(ErrWrongType), "GETBIT", "lst", "0"),
		st(rErr(ErrBitOffset), "GETBIT", "lst", "-1"),
		// "1" is 0x31 = 00110001.
		st(rOK, "SET", "n", "1"),
		st(rInt(0), "GETBIT", "n", "0"),
		st(rInt(1), "GETBIT", "n", "2"),
		st(rInt(1), "GETBIT", "n", "7"),
		st(rInt(1), "SETBIT", "n", "2", "0"),
		st(rBulk("\x11"), "GET", "n"),
	})
}

func TestBitSetbitDirty(t *testing.T) {
	h := newKeyHarness(t)
	cases := []struct {
		cmd   []string
		dirty int
	}{
		{[]string{"SETBIT", "d", "3", "0"}, 1}, // creates the key
		{[]string{"SETBIT", "d", "3", "0"}, 0}, // no change
		{[]string{"SETBIT", "d", "3", "1"}, 1},
		{[]string{"SETBIT", "d", "3", "1"}, 0},
		{[]string{"SETBIT", "d", "20", "0"}, 1}, // grows the string
	}
	for _, tc := range cases {
		h.do(tc.cmd...)
		if h.c.Dirty != tc.dirty {
			t.Errorf("%v: dirty %d, want %d", tc.cmd, h.c.Dirty, tc.dirty)
		}
	}
	// SETBIT keeps the TTL.
	h.do("SET", "ttl", "x", "PX", "100000")
	want := h.expireOf(0, "ttl")
	h.do("SETBIT", "ttl", "100", "1")
	if got := h.expireOf(0, "ttl"); got != want {
		t.Errorf("SETBIT changed expire %d -> %d", want, got)
	}
}

func TestBitCount(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	h.run([]step{
		st(rOK, "SET", "f", "foobar"),
		st(rInt(26), "BITCOUNT", "f"),
		st(rInt(4), "BITCOUNT", "f", "0", "0"),
		st(rInt(6), "BITCOUNT", "f", "1", "1"),
		st(rInt(6), "BITCOUNT", "f", "1", "1", "BYTE"),
		st(rInt(6), "BITCOUNT", "f", "1", "1", "byte"),
		st(rInt(17), "BITCOUNT", "f", "5", "30", "BIT"),
		st(rInt(26), "BITCOUNT", "f", "0", "-1", "BIT"),
		st(rInt(0), "BITCOUNT", "f", "47", "47", "BIT"),
		st(rInt(1), "BITCOUNT", "f", "46", "47", "bit"),
		st(rInt(1), "BITCOUNT", "f", "-3", "-1", "BIT"),
		st(rInt(2), "BITCOUNT", "f", "1", "3", "BIT"), // within one byte
		// Valkey 8: start without end runs to the last byte.
		st(rInt(22), "BITCOUNT", "f", "1"),
		st(rInt(4), "BITCOUNT", "f", "-1"),
		st(rInt(26), "BITCOUNT", "f", "-100"),
		st(rInt(0), "BITCOUNT", "f", "100"),
		st(rInt(0), "BITCOUNT", "f", "-1", "-3"),
		st(rInt(0), "BITCOUNT", "f", "-1", "-3", "BIT"),
		st(rInt(4), "BITCOUNT", "f", "-100", "-6"), // end clamps to 0
		st(rInt(26), "BITCOUNT", "f", "0", "100"),
		st(rInt(0), "BITCOUNT", "f", "3", "2"),
		st(rInt(0), "BITCOUNT", "missing"),
		st(rInt(0), "BITCOUNT", "missing", "0", "-1"),
		st(rErr(ErrNotInt), "BITCOUNT", "missing", "a", "b"),
		st(rErr(ErrSyntax), "BITCOUNT", "f", "0", "1", "FOO"),
		st(rErr(ErrSyntax), "BITCOUNT", "f", "0", "1", "BIT", "x"),
		st(rErr(ErrNotInt), "BITCOUNT", "f", "a", "1", "FOO"), // start first
		st(rErr(ErrSyntax), "BITCOUNT", "f", "0", "b", "FOO"), // then unit
		st(rErr(ErrNotInt), "BITCOUNT", "f", "0", "b", "BIT"),
		st(rErr(ErrWrongType), "BITCOUNT", "lst"),
		st(rErr(ErrNotInt), "BITCOUNT", "lst", "x"),
		st(rOK, "SET", "e", ""),
		st(rInt(0), "BITCOUNT", "e"),
		st(rInt(0), "BITCOUNT", "e", "0", "-1", "BIT"),
	})
}

func TestBitPos(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	h.run([]step{
		st(rOK, "SET", "p", "\xff\xf0\x00"),
		st(rInt(12), "BITPOS", "p", "0"),
		st(rInt(0), "BITPOS", "p", "1"),
		st(rOK, "SET", "p2", "\x00\xff\xf0"),
		st(rInt(8), "BITPOS", "p2", "1", "0"),
		st(rInt(16), "BITPOS", "p2", "1", "2"),
		st(rInt(16), "BITPOS", "p2", "1", "2", "-1", "BYTE"),
		st(rInt(8), "BITPOS", "p2", "1", "7", "15", "BIT"),
		st(rInt(8), "BITPOS", "p2", "1", "7", "-3", "bit"),
		st(rInt(20), "BITPOS", "p2", "0", "12", "-1", "BIT"),
		st(rInt(-1), "BITPOS", "p2", "0", "8", "15", "BIT"),
		st(rInt(-1), "BITPOS", "p2", "1", "20", "23", "BIT"),
		st(rInt(-1), "BITPOS", "p2", "1", "1", "0"),
		st(rOK, "SET", "z", "\x00\x00\x00"),
		st(rInt(-1), "BITPOS", "z", "1"),
		st(rInt(0), "BITPOS", "z", "0"),
		st(rOK, "SET", "ones", "\xff\xff\xff"),
		// Without an end the string counts as zero-padded on the right.
		st(rInt(24), "BITPOS", "ones", "0"),
		st(rInt(24), "BITPOS", "ones", "0", "0"),
		st(rInt(24), "BITPOS", "ones", "0", "1"),
		// With an end it does not.
		st(rInt(-1), "BITPOS", "ones", "0", "0", "-1"),
		st(rInt(-1), "BITPOS", "ones", "0", "0", "2"),
		st(rInt(-1), "BITPOS", "ones", "0", "3", "10", "BIT"),
		st(rInt(-1), "BITPOS", "ones", "0", "10"),
		st(rInt(-1), "BITPOS", "missing", "1"),
		st(rInt(0), "BITPOS", "missing", "0"),
		st(rInt(0), "BITPOS", "missing", "0", "5", "10"),
		st(rErr(ErrNotInt), "BITPOS", "missing", "0", "a"),
		st(rErr(errBitArg), "BITPOS", "missing", "2"),
		st(rErr(ErrNotInt), "BITPOS", "missing", "x"),
		st(rErr(ErrSyntax), "BITPOS", "p", "1", "0", "1", "BAD"),
		st(rErr(ErrSyntax), "BITPOS", "p", "1", "0", "1", "BIT", "x"),
		st(rErr(ErrNotInt), "BITPOS", "p", "1", "0", "BIT"),
		st(rErr(ErrWrongType), "BITPOS", "lst", "1"),
		st(rErr(errBitArg), "BITPOS", "lst", "3"),
		st(rOK, "SET", "e", ""),
		st(rInt(-1), "BITPOS", "e", "0"),
		st(rInt(-1), "BITPOS", "e", "1"),
		st(rInt(0), "SETBIT", "big", "8001", "1"),
		st(rInt(8001), "BITPOS", "big", "1"),
		st(rInt(8001), "BITPOS", "big", "1", "3"),
		st(rInt(8001), "BITPOS", "big", "1", "-1"),
		st(rInt(-1), "BITPOS", "big", "1", "0", "999"),
		st(rInt(0), "BITPOS", "big", "0"),
	})
}

// naiveFind and naiveCount are the bit-by-bit definitions that findBit and
// countBits must agree with.
func naiveFind(s []byte, from, to int64, bit byte) int64 {
	for i := from; i <= to; i++ {
		if (s[i/8]>>(7-i%8))&1 == bit {
			return i
		}
	}
	return -1
}

func naiveCount(s []byte, from, to int64) int64 {
	var n int64
	for i := from; i <= to; i++ {
		n += int64(s[i/8]>>(7-i%8)) & 1
	}
	return n
}

func TestBitScanAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 3000 {
		s := make([]byte, 1+r.IntN(100))
		// Mostly-uniform bytes make the word skipping matter.
		fill := byte(0)
		if r.IntN(2) == 0 {
			fill = 0xff
		}
		for i := range s {
			s[i] = fill
		}
		for range r.IntN(4) {
			s[r.IntN(len(s))] = byte(r.Uint32())
		}
		nb := int64(len(s)) * 8
		from := r.Int64N(nb)
		to := from + r.Int64N(nb-from)
		for bit := byte(0); bit < 2; bit++ {
			if got, want := findBit(s, from, to, bit), naiveFind(s, from, to, bit); got != want {
				t.Fatalf("findBit(%x, %d, %d, %d) = %d, want %d", s, from, to, bit, got, want)
			}
		}
		if got, want := countBits(s, from, to), naiveCount(s, from, to); got != want {
			t.Fatalf("countBits(%x, %d, %d) = %d, want %d", s, from, to, got, want)
		}
	}
}

func TestBitOp(t *testing.T) {
	h := newKeyHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	h.run([]step{
		st(rOK, "MSET", "a", "\xff\x0f", "b", "\x0f"),
		st(rInt(2), "BITOP", "AND", "d", "a", "b"),
		st(rBulk("\x0f\x00"), "GET", "d"),
		st(rInt(2), "BITOP", "or", "d", "a", "b"),
		st(rBulk("\xff\x0f"), "GET", "d"),
		st(rInt(2), "BITOP", "XOR", "d", "a", "b"),
		st(rBulk("\xf0\x0f"), "GET", "d"),
		st(rInt(2), "BITOP", "NOT", "d", "a"),
		st(rBulk("\x00\xf0"), "GET", "d"),
		st(rInt(2), "BITOP", "AND", "d", "a", "missing"),
		st(rBulk("\x00\x00"), "GET", "d"),
		st(rInt(2), "BITOP", "OR", "d", "missing", "a"),
		st(rBulk("\xff\x0f"), "GET", "d"),
		st(rErr(errBitopNot), "BITOP", "NOT", "d", "a", "b"),
		st(rErr(ErrSyntax), "BITOP", "NAND", "d", "a", "b"),
		st(rErr(ErrWrongType), "BITOP", "AND", "d", "a", "lst"),
		st(rBulk("\xff\x0f"), "GET", "d"), // untouched by the failure
		// An empty result deletes the destination.
		st(rInt(0), "BITOP", "AND", "d", "missing", "missing2"),
		st(rInt(0), "EXISTS", "d"),
		st(rInt(0), "BITOP", "NOT", "d", "missing"),
		// The destination may be a source.
		st(rInt(2), "BITOP", "XOR", "a", "a", "b"),
		st(rBulk("\xf0\x0f"), "GET", "a"),
		// The destination's type and TTL are replaced.
		st(rInt(1), "BITOP", "OR", "lst", "b"),
		st(rSimple("string"), "TYPE", "lst"),
		st(rOK, "SET", "t", "x", "EX", "100"),
		st(rInt(1), "BITOP", "OR", "t", "b"),
		st(rInt(-1), "TTL", "t"),
	})
}

func TestBitOpAgainstNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	ops := []string{"AND", "OR", "XOR", "NOT"}
	h := newKeyHarness(t)
	for range 300 {
		op := ops[r.IntN(4)]
		n := 1 + r.IntN(5)
		if op == "NOT" {
			n = 1
		}
		args := []string{"BITOP", op, "dest"}
		var srcs [][]byte
		maxLen := 0
		for k := range n {
			s := make([]byte, r.IntN(80))
			for i := range s {
				s[i] = byte(r.Uint32())
			}
			key := "src" + strconv.Itoa(k)
			h.do("SET", key, string(s))
			args = append(args, key)
			srcs = append(srcs, s)
			maxLen = max(maxLen, len(s))
		}
		want := make([]byte, maxLen)
		for i := range want {
			at := func(s []byte) byte {
				if i < len(s) {
					return s[i]
				}
				return 0
			}
			v := at(srcs[0])
			for _, s := range srcs[1:] {
				switch op {
				case "AND":
					v &= at(s)
				case "OR":
					v |= at(s)
				case "XOR":
					v ^= at(s)
				}
			}
			if op == "NOT" {
				v = ^v
			}
			want[i] = v
		}
		if got := h.do(args...); got != rInt(int64(maxLen)) {
			t.Fatalf("%v: %q", args, got)
		}
		wantReply := rBulk(string(want))
		if maxLen == 0 {
			wantReply = rNull
		}
		if got := h.do("GET", "dest"); got != wantReply {
			t.Fatalf("%v: got %q, want %q", args, got, wantReply)
		}
	}
}

func TestBitPopcount(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := range 200 {
		s := make([]byte, n)
		want := 0
		for i := range s {
			s[i] = byte(r.Uint32())
			want += bits.OnesCount8(s[i])
		}
		if got := popcount(s); got != int64(want) {
			t.Fatalf("popcount len %d = %d, want %d", n, got, want)
		}
	}
}

// benchCtx returns a context over a fresh keyspace with every stripe
// locked, so benchmarks measure the procedure alone.
func benchCtx(b *testing.B) *Ctx {
	ks := New(16)
	ks.LockAll()
	b.Cleanup(ks.UnlockAll)
	return &Ctx{KS: ks, W: resp.NewWriter(256), Now: testNow}
}

func benchArgv(args ...string) [][]byte {
	v := make([][]byte, len(args))
	for i, a := range args {
		v[i] = []byte(a)
	}
	return v
}

func BenchmarkBitcount1MiB(b *testing.B) {
	c := benchCtx(b)
	s := make([]byte, 1<<20)
	for i := range s {
		s[i] = byte(i * 7)
	}
	c.SetString([]byte("bm"), s, false)
	c.Argv = benchArgv("BITCOUNT", "bm")
	b.SetBytes(1 << 20)
	b.ReportAllocs()
	for b.Loop() {
		c.W.Reset()
		bitcountCommand(c)
	}
	if want := ":" + strconv.FormatInt(naiveCount(s, 0, 8<<20-1), 10) + "\r\n"; string(c.W.Bytes()) != want {
		b.Fatalf("got %q, want %q", c.W.Bytes(), want)
	}
}

func BenchmarkSetbit(b *testing.B) {
	c := benchCtx(b)
	cmds := make([][][]byte, 1024)
	for i := range cmds {
		cmds[i] = benchArgv("SETBIT", "bm", strconv.Itoa(i*997%(1<<20)), strconv.Itoa(i&1))
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		c.Argv = cmds[i%len(cmds)]
		c.W.Reset()
		setbitCommand(c)
		i++
	}
}
