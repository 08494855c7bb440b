package db

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// The expected values here were read from Valkey 8.0.1 (PFDEBUG DECODE,
// GET, PFCOUNT, STRLEN after the same commands).

func newHLLHarness(t *testing.T) *keyHarness {
	h := newKeyHarness(t)
	for _, hd := range HLLCommands {
		h.cmd[hd.Spec.FullName] = hd
	}
	return h
}

func TestHLLPatLen(t *testing.T) {
	for _, tc := range []struct {
		ele          string
		index, count int
	}{
		{"a", 12711, 2},
		{"hello", 9216, 1},
		{"", 5938, 2},
		{"0123456789abcdef", 5949, 1},
	} {
		i, n := hllPatLen([]byte(tc.ele))
		if i != tc.index || int(n) != tc.count {
			t.Errorf("%q: register %d count %d, want %d %d", tc.ele, i, n, tc.index, tc.count)
		}
	}
}

func TestHLLRegistersDense(t *testing.T) {
	regs := make([]byte, hllDenseSize-hllHdrSize)
	vals := make([]uint8, hllRegisters)
	for i := range vals {
		vals[i] = uint8((i*37 + i>>3) & 63)
		hllDenseSetReg(regs, i, vals[i])
	}
	for i, v := range vals {
		if got := hllDenseGet(regs, i); got != v {
			t.Fatalf("register %d = %d, want %d", i, got, v)
		}
	}
	if msg := hllSelfTest(3, 100000, hllSparseMaxBytesDefault); msg != "" {
		t.Fatal(msg)
	}
}

func TestHLLCommands(t *testing.T) {
	h := newHLLHarness(t)
	h.mkObj(0, "lst", TypeList, "placeholder")
	abc := "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	abcCached := "HYLL\x01\x00\x00\x00\x03\x00\x00\x00\x00\x00\x00\x00`\xf3\x80P\xb1\x84K\xfb\x80BZ"
	h.run([]step{
		st(rInt(1), "PFADD", "h", "a", "b", "c"),
		st(rBulk(abc), "GET", "h"),
		st(rInt(0), "PFADD", "h", "a", "b"),
		st(rInt(0), "PFADD", "h"),
		st(rInt(1), "PFADD", "new"),
		st(rBulk("Z:8436 v:1,1 Z:4274 v:2,1 Z:3068 v:1,1 Z:603"), "PFDEBUG", "DECODE", "h"),
		st("+sparse\r\n", "PFDEBUG", "ENCODING", "h"),
		st(rInt(3), "PFCOUNT", "h"),
		st(rBulk(abcCached), "GET", "h"),
		st(rInt(3), "PFCOUNT", "h"),
		st(rInt(3), "PFCOUNT", "h", "missing"),
		st(rInt(0), "PFCOUNT", "missing"),
		st(rInt(1), "PFDEBUG", "TODENSE", "h"),
		st(rInt(0), "PFDEBUG", "TODENSE", "h"),
		st("+dense\r\n", "PFDEBUG", "ENCODING", "h"),
		st(rErr("ERR HLL encoding is not sparse"), "PFDEBUG", "DECODE", "h"),
		st(rInt(3), "PFCOUNT", "h"),
		st(rErr("ERR The specified key does not exist"), "PFDEBUG", "GETREG", "missing"),
		st(rErr("ERR Unknown PFDEBUG subcommand 'nope'"), "PFDEBUG", "nope", "h"),
		st(rErr(ErrWrongType), "PFADD", "lst", "x"),
		st(rErr(ErrWrongType), "PFCOUNT", "lst"),
		st(rErr(ErrWrongType), "PFCOUNT", "h", "lst"),
		st(rErr(ErrWrongType), "PFMERGE", "h", "lst"),
		st(rOK, "SET", "s", "hello"),
		st(rErr(errHLLWrongType), "PFADD", "s", "x"),
		st(rErr(errHLLWrongType), "PFCOUNT", "s"),
		st(rErr(errHLLWrongType), "PFMERGE", "d", "s"),
		st(rErr(errHLLWrongType), "PFDEBUG", "ENCODING", "s"),
		st(rOK, "SET", "bad", "HYLL\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x7f\xfe"),
		st(rErr(errHLLInvalid), "PFCOUNT", "bad"),
		st(rErr(errHLLInvalid), "PFCOUNT", "bad", "h"),
		st(rErr(errHLLInvalid), "PFMERGE", "d", "bad"),
		st(rErr(errHLLInvalid), "PFDEBUG", "TODENSE", "bad"),
		st(rInt(0), "EXISTS", "d"),
		st(rOK, "PFMERGE", "d", "h", "new", "missing"),
		st(rInt(3), "PFCOUNT", "d"),
		st("+dense\r\n", "PFDEBUG", "ENCODING", "d"),
		st(rOK, "PFMERGE", "e"),
		st(rBulk("Z:16384"), "PFDEBUG", "DECODE", "e"),
	})
	if got := h.do("PFDEBUG", "GETREG", "h"); !strings.HasPrefix(got, "*16384\r\n") ||
		strings.Count(got, ":1\r\n") != 2 || strings.Count(got, ":2\r\n") != 1 {
		t.Errorf("GETREG: %.100q", got)
	}
}

func TestHLLCounts(t *testing.T) {
	h := newHLLHarness(t)
	for _, tc := range []struct {
		n, card int
		enc     string
		strlen  int
	}{
		{1, 1, "sparse", 21},
		{10, 10, "sparse", 47},
		{100, 99, "sparse", 288},
		{1000, 1001, "sparse", 1877},
		{10000, 10066, "dense", 12304},
		{100000, 100903, "dense", 12304},
	} {
		key := "c" + strconv.Itoa(tc.n)
		for i := range tc.n {
			h.do("PFADD", key, "x"+strconv.Itoa(i))
		}
		if got := h.do("PFCOUNT", key); got != rInt(int64(tc.card)) {
			t.Errorf("%d elements: PFCOUNT %q, want %d", tc.n, got, tc.card)
		}
		if got := h.do("PFDEBUG", "ENCODING", key); got != "+"+tc.enc+"\r\n" {
			t.Errorf("%d elements: encoding %q", tc.n, got)
		}
		if got := h.do("STRLEN", key); got != rInt(int64(tc.strlen)) {
			t.Errorf("%d elements: STRLEN %q, want %d", tc.n, got, tc.strlen)
		}
	}
	// The union of the two largest is the largest.
	if got := h.do("PFCOUNT", "c100000", "c10000", "c10"); got != rInt(100903) {
		t.Errorf("union: %q", got)
	}
}

// Registers past 51 are in no term of the estimator; with all of them
// there, Valkey's llroundl gets an infinity and x86-64 makes it
// 0x8000000000000000, which is also cached with its "stale" bit set.
func TestHLLEstimateEdges(t *testing.T) {
	h := newHLLHarness(t)
	hdr := "HYLL\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80"
	h.run([]step{
		st(rOK, "SET", "d63", hdr+strings.Repeat("\xff", 12288)),
		st(rInt(-1<<63), "PFCOUNT", "d63"),
		st(rInt(-1<<63), "PFCOUNT", "d63", "d63"),
		st(rOK, "SET", "d50", hdr+strings.Repeat("\xb2\x2c\xcb", 4096)),
		st(rInt(-1<<63), "PFCOUNT", "d50"),
		st(rOK, "SET", "d0", hdr+strings.Repeat("\x00", 12288)),
		st(rInt(0), "PFCOUNT", "d0"),
	})
	if got := h.do("GETRANGE", "d63", "8", "15"); got != rBulk("\x00\x00\x00\x00\x00\x00\x00\x80") {
		t.Errorf("cached card %q", got)
	}
}

// A sparse HLL goes dense when an update would take it past
// hll-sparse-max-bytes, or when a register needs a value above 32.
func TestHLLPromotion(t *testing.T) {
	s := newHLL()
	for i := 0; s[4] == hllSparse; i++ {
		before := len(s)
		var r int
		s, r = hllAdd(s, []byte("p"+strconv.Itoa(i)), 100)
		if r < 0 {
			t.Fatal("corrupt")
		}
		if s[4] == hllSparse && len(s) > 100 {
			t.Fatalf("sparse of %d bytes", len(s))
		}
		if s[4] == hllDense && before+3 <= 100 && r == 1 {
			// promoted although a split of at most 3 bytes fitted
			t.Logf("promoted at %d bytes", before)
		}
	}
	if len(s) != hllDenseSize {
		t.Fatalf("dense of %d bytes", len(s))
	}
	s = newHLL()
	s, r := hllSparseSet(s, 100, 33, 3000)
	if r != 1 || s[4] != hllDense || hllDenseGet(s[hllHdrSize:], 100) != 33 {
		t.Fatalf("value 33: r=%d enc=%d", r, s[4])
	}
}

// TestHLLDenseLoops: the four-registers-at-a-time loops read what
// hllDenseGet reads, register by register.
func TestHLLDenseLoops(t *testing.T) {
	s := make([]byte, hllDenseSize)
	for i := range s {
		s[i] = byte(i*7 + i>>3)
	}
	regs := s[hllHdrSize:]
	var want, got [hllRegisters]uint8
	var wantH, gotH [64]int32
	for i := range want {
		want[i] = hllDenseGet(regs, i)
		wantH[want[i]]++
	}
	hllDenseMerge(&got, regs)
	hllDenseHisto(regs, &gotH)
	if got != want || gotH != wantH {
		t.Fatal("hllDenseMerge or hllDenseHisto differs from hllDenseGet")
	}
	// Merging keeps the larger register.
	for i := range got {
		got[i] = 40
	}
	hllDenseMerge(&got, regs)
	for i := range got {
		if got[i] != max(40, want[i]) {
			t.Fatalf("register %d: %d", i, got[i])
		}
	}
}

// BenchmarkHLLDenseMerge is the per-key cost of a PFCOUNT union or a
// PFMERGE of dense values.
func BenchmarkHLLDenseMerge(b *testing.B) {
	s := make([]byte, hllDenseSize)
	for i := range s {
		s[i] = byte(i * 7)
	}
	var m [hllRegisters]uint8
	for b.Loop() {
		hllDenseMerge(&m, s[hllHdrSize:])
	}
}

// hllSparseSeekRef is hllSparseSeek as Valkey's hllSparseSet walks:
// one opcode at a time.
func hllSparseSeekRef(s []byte, index int) (p, first, prev, span int) {
	p, prev = hllHdrSize, -1
	for p < len(s) {
		b := s[p]
		oplen := 1
		switch {
		case spIsZero(b):
			span = spZeroLen(b)
		case spIsVal(b):
			span = spValLen(b)
		default:
			span = spXZeroLen(s, p)
			oplen = 2
		}
		if index <= first+span-1 {
			break
		}
		prev = p
		p += oplen
		first += span
	}
	return
}

// TestHLLSparseSeek: the word-at-a-time walk stops where the
// opcode-at-a-time one does, on sparse HLLs of every size up to the
// dense conversion and on random (corrupt) opcode bytes.
func TestHLLSparseSeek(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	check := func(s []byte, index int) {
		t.Helper()
		p, f, pr, sp := hllSparseSeek(s, index)
		rp, rf, rpr, rsp := hllSparseSeekRef(s, index)
		// The span of a walk that read no opcode one by one is unused.
		if p != rp || pr != rpr || p < len(s) && (f != rf || sp != rsp) {
			t.Fatalf("index %d in %x: %d %d %d %d, want %d %d %d %d", index, s[hllHdrSize:], p, f, pr, sp, rp, rf, rpr, rsp)
		}
	}
	s := newHLL()
	for i := 0; s[4] == hllSparse; i++ {
		if i%97 == 0 {
			for index := range hllRegisters {
				check(s, index)
			}
		}
		s, _ = hllAdd(s, []byte("s"+strconv.Itoa(i)), 3000)
	}
	for i := range 20000 {
		b := make([]byte, hllHdrSize+rng.IntN(64+i%4*64))
		// XZERO-looking bytes (01xxxxxx) from none to most: runs of them
		// alternate first and second bytes, and straddle words.
		xz := rng.IntN(9)
		for j := hllHdrSize; j < len(b); j++ {
			b[j] = byte(rng.Uint32())
			if rng.IntN(8) >= xz {
				b[j] &^= 0x40 // ZERO or VAL
			} else {
				b[j] = b[j]&0x3f | 0x40
			}
		}
		check(b, rng.IntN(hllRegisters+1000))
		check(b, rng.IntN(200))
		check(b, rng.IntN(2000))
		// Every register of a short one, and past its end.
		if i%256 == 0 {
			_, f, _, _ := hllSparseSeekRef(b, 1<<30)
			for index := 0; index <= f+1 && index < 1<<14; index++ {
				check(b, index)
			}
		}
	}
}

// BenchmarkHLLSparseSeek is the walk of a PFADD to its register's
// opcode over 1,000 different sparse HLLs of n elements, as in
// bench/types' pfadd case (one HLL walked over and over lets the branch
// predictor learn its opcodes, which favours the opcode-at-a-time walk):
// word is hllSparseSeek, opcode the walk Valkey does (hllSparseSeekRef).
func BenchmarkHLLSparseSeek(b *testing.B) {
	for _, n := range []int{100, 300, 500, 1000} {
		hs := make([][]byte, 1000)
		for k := range hs {
			s := newHLL()
			for i := range n {
				s, _ = hllAdd(s, []byte(strconv.Itoa(k)+":"+strconv.Itoa(i)), 3000)
			}
			hs[k] = s
		}
		for _, w := range []struct {
			name string
			seek func([]byte, int) (int, int, int, int)
		}{{"word", hllSparseSeek}, {"opcode", hllSparseSeekRef}} {
			b.Run(w.name+"/"+strconv.Itoa(n), func(b *testing.B) {
				i := 0
				for b.Loop() {
					w.seek(hs[i*7%len(hs)], i*7919%hllRegisters)
					i++
				}
			})
		}
	}
}

// BenchmarkHLLSparseSet is PFADD of one element to a sparse HLL of n
// elements (bench/types' pfadd case keeps its 1,000 keys sparse, up to
// ~750 elements each): the walk to the register's opcode, and a change
// there (new) or none (again: the register already holds as much).
func BenchmarkHLLSparseSet(b *testing.B) {
	for _, n := range []int{100, 500, 1000} {
		s := newHLL()
		for i := range n {
			s, _ = hllAdd(s, []byte("e"+strconv.Itoa(i)), 3000)
		}
		if s[4] != hllSparse {
			b.Fatalf("%d elements: dense", n)
		}
		b.Run("again/"+strconv.Itoa(n), func(b *testing.B) {
			defer cpuMeter(b)()
			i := 0
			for b.Loop() {
				if _, r := hllAdd(s, []byte("e"+strconv.Itoa(i%n)), 3000); r != 0 {
					b.Fatal("changed")
				}
				i++
			}
		})
		b.Run("new/"+strconv.Itoa(n), func(b *testing.B) {
			defer cpuMeter(b)()
			t := make([]byte, len(s), 3000)
			i := 0
			for b.Loop() {
				t = append(t[:0], s...)
				hllAdd(t, []byte("n"+strconv.Itoa(i)), 3000)
				i++
			}
		})
	}
}

// BenchmarkPFAdd is bench/types' pfadd case: PFADD hll:<n> <16 random
// bytes> over 1,000 keys, all sparse at first. -benchtime 750000x is a
// 10-second run of the case: every key ends with 750 elements, sparse.
func BenchmarkPFAdd(b *testing.B) {
	ks := New(16)
	c := &Ctx{KS: ks, W: resp.NewWriter(1 << 16), Now: testNow}
	keys := make([][]byte, 1000)
	for i := range keys {
		keys[i] = []byte("hll:" + strconv.Itoa(i+1))
	}
	member := make([]byte, 16)
	argv := [][]byte{[]byte("PFADD"), nil, member}
	b.ReportAllocs()
	defer cpuMeter(b)()
	i := 0
	for b.Loop() {
		k := keys[(i*7919)%len(keys)]
		argv[1] = k
		uniqueMember(member, i)
		i++
		c.Argv = argv
		c.W.Reset()
		st := ks.StripeOf(k)
		ks.LockStripe(st)
		pfaddCommand(c)
		ks.UnlockStripe(st)
	}
}
