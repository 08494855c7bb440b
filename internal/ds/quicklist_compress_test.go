package ds

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// checkCompression verifies the compression invariant: no node is
// compressed without a compress depth or within the depth of either end;
// an interior node is compressed, by more than MIN_COMPRESS_IMPROVE
// bytes, unless it is marked noCompress and (checked when deep is set:
// it costs a compression per such node) compressing it indeed does not
// pay.
func (q *Quicklist) checkCompression(deep bool) error {
	for i := range q.NodeCount() {
		n := q.node(i)
		switch {
		case q.depth() == 0 || !q.interior(i):
			if n.lzf {
				return fmt.Errorf("node %d of %d compressed (depth %d, listpack %v)", i, q.NodeCount(), q.depth(), q.IsListpack())
			}
		case n.lzf:
			d := n.data()
			raw := int(binary.LittleEndian.Uint32(d))
			if len(d)+qlMinCompressImprove >= raw {
				return fmt.Errorf("node %d compressed from %d to only %d bytes", i, raw, len(d))
			}
		default:
			if !n.noCompress {
				return fmt.Errorf("interior node %d of %d (depth %d) raw and not tried", i, q.NodeCount(), q.depth())
			}
			if !deep {
				continue
			}
			c := n.clone()
			c.noCompress = false
			if c.compress() {
				return fmt.Errorf("interior node %d of %d left raw, but %d bytes compress to %d", i, q.NodeCount(), n.used(), c.used())
			}
		}
	}
	return nil
}

// compressValue mixes values that compress (runs of a letter, repeated
// words) with ones that do not (random bytes), small integers, and large
// values of both kinds that get plain nodes.
func compressValue(r *rand.Rand) func() []byte {
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	return func() []byte {
		switch r.IntN(20) {
		case 0:
			return bytes.Repeat([]byte{byte('a' + r.IntN(3))}, 200+r.IntN(9000))
		case 1:
			return random(4100 + r.IntN(5000))
		case 2, 3, 4:
			return []byte(fmt.Sprint(r.IntN(300) - 100))
		case 5, 6, 7:
			return random(r.IntN(130))
		case 8, 9, 10:
			return []byte(strings.Repeat("corvid ", 1+r.IntN(20)))
		}
		return bytes.Repeat([]byte{byte('a' + r.IntN(3))}, r.IntN(130))
	}
}

// TestQuicklistCompressModel is TestQuicklistModel with compress depths
// 1..3: the same random operations against a slice model, and after each
// the compression invariant (checkCompression): the nodes within the
// depth of either end raw, the interior ones compressed where that pays
// (whether a raw one would is tried every 80 steps; contents and
// bookkeeping are compared every 5). Each case must have compressed some
// nodes along the way.
func TestQuicklistCompressModel(t *testing.T) {
	for _, fill := range []int{-2, -1, 1, 4} {
		for depth := 1; depth <= 3; depth++ {
			cfg := ListConfig{Fill: fill, Compress: depth}
			t.Run(fmt.Sprintf("fill%d/depth%d", fill, depth), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(fill+100), uint64(depth)))
				most := 0
				runQuicklistModel(t, cfg, r, 2000, 5, compressValue(r), func(q *Quicklist) {
					most = max(most, q.CompressedNodes())
				})
				if most == 0 {
					t.Errorf("no node was ever compressed")
				}
			})
		}
	}
}

// TestQuicklistCompressEnds: RPUSHing 2,000 compressible values under
// depth 1 compresses every node but the two ends; memory falls well below
// depth 0's; the ends stay raw while nodes are popped off both of them,
// and the elements come back in order.
func TestQuicklistCompressEnds(t *testing.T) {
	v := func(i int) []byte { return fmt.Appendf(nil, "%06d:%s", i, strings.Repeat("payload ", 12)) }
	build := func(depth int) *Quicklist {
		q := NewQuicklist()
		cfg := ListConfig{Fill: -2, Compress: depth}
		for i := range 2000 {
			x := v(i)
			q.PrepareGrow(cfg, len(x), 1)
			q.PushTail(x)
		}
		return q
	}
	raw, q := build(0), build(1)
	if got, want := q.CompressedNodes(), q.NodeCount()-2; got != want || want < 10 {
		t.Fatalf("%d of %d nodes compressed, want %d", got, q.NodeCount(), want)
	}
	if q.MemUsage()*3 > raw.MemUsage() {
		t.Errorf("MemUsage %d with depth 1, %d without: less than 3x smaller", q.MemUsage(), raw.MemUsage())
	}
	if !strings.Contains(q.DebugObjectExtra(false), " ql_compressed:1 ") || !strings.Contains(raw.DebugObjectExtra(false), " ql_compressed:0 ") {
		t.Errorf("ql_compressed: %q / %q", q.DebugObjectExtra(false), raw.DebugObjectExtra(false))
	}
	if a, b := q.DebugObjectExtra(false), raw.DebugObjectExtra(false); strings.Replace(a, "ql_compressed:1", "ql_compressed:0", 1) != b {
		t.Errorf("DEBUG OBJECT fields differ beyond ql_compressed:\n%s\n%s", a, b)
	}
	lo, hi := 0, 1999
	for q.Len() > 0 {
		var got []byte
		var want int
		if q.Len()%3 == 0 {
			got, want = q.PopTail(nil), hi
			hi--
		} else {
			got, want = q.PopHead(nil), lo
			lo++
		}
		if !bytes.Equal(got, v(want)) {
			t.Fatalf("popped %.10q, want element %d", got, want)
		}
		if err := q.check(); err != nil {
			t.Fatalf("at %d elements: %v", q.Len(), err)
		}
	}
}

// TestQuicklistCompressIncompressible: interior nodes of random bytes are
// tried once, left raw and marked, and cost what they cost at depth 0.
func TestQuicklistCompressIncompressible(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	vals := make([][]byte, 1000)
	for i := range vals {
		vals[i] = make([]byte, 100)
		for j := range vals[i] {
			vals[i][j] = byte(r.Uint32())
		}
	}
	var qs [2]*Quicklist
	for depth := range qs {
		q := NewQuicklist()
		for _, x := range vals {
			q.PrepareGrow(ListConfig{Fill: -2, Compress: depth}, len(x), 1)
			q.PushHead(x)
		}
		if err := q.check(); err != nil {
			t.Fatal(err)
		}
		qs[depth] = q
	}
	if n := qs[1].CompressedNodes(); n != 0 {
		t.Errorf("%d nodes of random bytes compressed", n)
	}
	if qs[0].MemUsage() != qs[1].MemUsage() {
		t.Errorf("MemUsage %d at depth 0, %d at depth 1", qs[0].MemUsage(), qs[1].MemUsage())
	}
}

// TestQuicklistCompressPlain: plain nodes (elements larger than a node)
// are compressed like packed ones when interior, and read back whole.
func TestQuicklistCompressPlain(t *testing.T) {
	q := NewQuicklist()
	cfg := ListConfig{Fill: -1, Compress: 1}
	var want [][]byte
	for i := range 6 {
		x := bytes.Repeat([]byte{byte('k' + i)}, 5000+i)
		q.PrepareGrow(cfg, len(x), 1)
		q.PushTail(x)
		want = append(want, x)
	}
	if got := q.NodeCounts(nil); fmt.Sprint(got) != "[-1 -1 -1 -1 -1 -1]" {
		t.Fatalf("nodes %v, want six plain ones", got)
	}
	if q.CompressedNodes() != 4 {
		t.Fatalf("%d plain nodes compressed, want 4", q.CompressedNodes())
	}
	for i, x := range want {
		if got, ok := q.Index(i); !ok || !bytes.Equal(got, x) {
			t.Fatalf("Index(%d) wrong", i)
		}
	}
	// LSET of a compressed plain node to another large value.
	y := bytes.Repeat([]byte{'z'}, 6000)
	q.Replace(2, y)
	if got, _ := q.Index(2); !bytes.Equal(got, y) {
		t.Fatal("Replace of a compressed plain node lost the value")
	}
	if err := q.check(); err != nil {
		t.Fatal(err)
	}
}

// TestQuicklistCompressClone: COPY keeps the depth and the compressed
// nodes (as their bytes), and the copy is independent.
func TestQuicklistCompressClone(t *testing.T) {
	q, _ := benchList(3000, 2)
	c := q.Clone()
	if c.CompressDepth() != 2 || c.CompressedNodes() != q.CompressedNodes() || c.CompressedNodes() == 0 {
		t.Fatalf("clone: depth %d, %d compressed nodes; original %d", c.CompressDepth(), c.CompressedNodes(), q.CompressedNodes())
	}
	c.Replace(1500, []byte("changed"))
	if got, _ := q.Index(1500); bytes.Equal(got, []byte("changed")) {
		t.Fatal("the clone shares a node with the original")
	}
	for _, l := range []*Quicklist{q, c} {
		if err := l.check(); err != nil {
			t.Fatal(err)
		}
	}
}

// fuzzSource is a rand.Source that replays the fuzzer's bytes (cycling
// through them, each draw's low bits from a counter hash), so that the
// model test's random choices are the input's.
type fuzzSource struct {
	b []byte
	i uint64
}

func (s *fuzzSource) Uint64() uint64 {
	s.i++
	x := s.i * 0x9E3779B97F4A7C15
	x ^= x >> 29
	return uint64(s.b[int(s.i)%len(s.b)])<<56 | x>>8
}

// FuzzQuicklistCompress drives the model test with the fuzzer's bytes:
// the first two pick the fill and a compress depth of 1..4, the rest the
// operations and values; the contents, the bookkeeping and the
// compression invariant are checked after each step. The seeds run as
// part of go test.
func FuzzQuicklistCompress(f *testing.F) {
	f.Add([]byte{0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	f.Add([]byte("\x01\x02compress interior nodes, keep the ends raw"))
	f.Add(bytes.Repeat([]byte{3, 1, 250, 7, 0, 9}, 60))
	f.Add([]byte{4, 3, 200, 100, 50, 25, 12, 6, 3, 1, 0, 255, 128})
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 3 {
			return
		}
		fills := []int{-2, -1, 1, 3, 16}
		cfg := ListConfig{Fill: fills[int(data[0])%len(fills)], Compress: 1 + int(data[1])%4}
		src := &fuzzSource{b: data[2:]}
		r := rand.New(src)
		runQuicklistModel(t, cfg, r, min(20*len(data), 600), 1, compressValue(r), nil)
	})
}

// TestLZFRoundTrip compresses runs, repeated words, overlapping
// references and random bytes, and decompresses them back.
func TestLZFRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	var htab LZFTable
	inputs := [][]byte{
		bytes.Repeat([]byte("a"), 5000), bytes.Repeat([]byte("ab"), 3000), bytes.Repeat([]byte("abc"), 100),
		[]byte(strings.Repeat("corvid valkey ", 700)),
	}
	for range 300 {
		b := make([]byte, r.IntN(9000))
		period := 1 + r.IntN(40)
		for i := range b {
			if i >= period && r.IntN(8) > 0 {
				b[i] = b[i-period]
			} else {
				b[i] = byte(r.Uint32())
			}
		}
		inputs = append(inputs, b)
	}
	for _, in := range inputs {
		c := LZFCompress(in, len(in), &htab, nil)
		if c == nil {
			continue
		}
		out, ok := LZFDecompress(c, len(in))
		if !ok || !bytes.Equal(out, in) {
			t.Fatalf("round trip of %d bytes failed", len(in))
		}
	}
}

// TestQuicklistConversionRoundTrip takes a list from the listpack
// encoding to the quicklist encoding (several nodes, compressed ones when
// the depth is set) and back by pops, then converts it again under another
// configuration, checking contents, bookkeeping, the layout of each
// encoding and clones at every stage.
func TestQuicklistConversionRoundTrip(t *testing.T) {
	for _, depth := range []int{0, 1, 2} {
		q := NewQuicklist()
		var model [][]byte
		cfg := ListConfig{Fill: -2, Compress: depth}
		push := func(cfg ListConfig, i int) {
			v := bytes.Repeat([]byte{byte('a' + i%3)}, 100) // 103 bytes in a Valkey listpack
			q.PrepareGrow(cfg, len(v), 1)
			if i%2 == 0 {
				q.PushTail(v)
				model = append(model, v)
			} else {
				q.PushHead(v)
				model = append([][]byte{v}, model...)
			}
		}
		verify := func(stage string) {
			t.Helper()
			for _, l := range []*Quicklist{q, q.Clone()} {
				if err := l.check(); err != nil {
					t.Fatalf("depth %d, %s: %v", depth, stage, err)
				}
				if got := l.all(); !slices.EqualFunc(got, model, bytes.Equal) {
					t.Fatalf("depth %d, %s: contents differ", depth, stage)
				}
			}
		}
		for i := 0; q.IsListpack(); i++ {
			push(cfg, i)
		}
		// 7 + 79*103 = 8144 and 8144+100 > 8192: the 80th push converts.
		if len(model) != 80 || q.CompressDepth() != depth || q.NodeCount() != 2 {
			t.Fatalf("depth %d: converted at %d elements, depth %d, %d nodes", depth, len(model), q.CompressDepth(), q.NodeCount())
		}
		verify("converted")
		for i := 80; i < 600; i++ {
			push(cfg, i)
		}
		if depth > 0 && q.CompressedNodes() == 0 {
			t.Fatalf("depth %d: %d nodes, none compressed", depth, q.NodeCount())
		}
		verify("grown")
		for i := 0; !q.IsListpack(); i++ {
			if i%2 == 0 {
				q.PopHead(nil)
				model = model[1:]
			} else {
				q.PopTail(nil)
				model = model[:len(model)-1]
			}
			q.TryShrink(cfg.Fill)
		}
		// Back once one node of at most 4096 bytes remains: 7 + 39*103.
		if len(model) != 39 || q.ql() != nil || q.CompressDepth() != 0 {
			t.Fatalf("depth %d: shrunk at %d elements (state %v, depth %d)", depth, len(model), q.ql() != nil, q.CompressDepth())
		}
		if q.one.lzf || q.one.noCompress || q.MemUsage() != quicklistMem+allocSize(int(q.one.bcap)) {
			t.Fatalf("depth %d: listpack node %+v, MemUsage %d", depth, q.one, q.MemUsage())
		}
		verify("shrunk")
		// Converting again takes the configuration of the time.
		cfg2 := ListConfig{Fill: -1, Compress: depth + 1}
		for i := 0; q.IsListpack(); i++ {
			push(cfg2, i)
		}
		if q.CompressDepth() != depth+1 || q.ql().fill != -1 {
			t.Fatalf("depth %d: converted again with depth %d, fill %d", depth, q.CompressDepth(), q.ql().fill)
		}
		verify("converted again")
	}
}
