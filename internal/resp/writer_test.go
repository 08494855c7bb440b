package resp_test

import (
	"math"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

func TestWriterEncodings(t *testing.T) {
	tests := []struct {
		name  string
		write func(w *resp.Writer)
		resp2 string
		resp3 string
	}{
		{"ok", func(w *resp.Writer) { w.OK() }, "+OK\r\n", "+OK\r\n"},
		{"error", func(w *resp.Writer) { w.Error("ERR bad\nthing") }, "-ERR bad thing\r\n", "-ERR bad thing\r\n"},
		{"error ending in newlines", func(w *resp.Writer) { w.Error("ERR bad \r\nthing\r\n") }, "-ERR bad   thing\r\n", "-ERR bad   thing\r\n"},
		{"int", func(w *resp.Writer) { w.Int(-12) }, ":-12\r\n", ":-12\r\n"},
		{"small int", func(w *resp.Writer) { w.Int(3) }, ":3\r\n", ":3\r\n"},
		{"bulk", func(w *resp.Writer) { w.BulkString("hi") }, "$2\r\nhi\r\n", "$2\r\nhi\r\n"},
		{"null", func(w *resp.Writer) { w.Null() }, "$-1\r\n", "_\r\n"},
		{"null array", func(w *resp.Writer) { w.NullArray() }, "*-1\r\n", "_\r\n"},
		{"map", func(w *resp.Writer) { w.MapLen(2) }, "*4\r\n", "%2\r\n"},
		{"set", func(w *resp.Writer) { w.SetLen(2) }, "*2\r\n", "~2\r\n"},
		{"push", func(w *resp.Writer) { w.PushLen(3) }, "*3\r\n", ">3\r\n"},
		{"double", func(w *resp.Writer) { w.Double(1.5) }, "$3\r\n1.5\r\n", ",1.5\r\n"},
		{"double int", func(w *resp.Writer) { w.Double(3) }, "$1\r\n3\r\n", ",3\r\n"},
		{"double inf", func(w *resp.Writer) { w.Double(math.Inf(-1)) }, "$4\r\n-inf\r\n", ",-inf\r\n"},
		{"double shortest", func(w *resp.Writer) { w.Double(1.1) }, "$3\r\n1.1\r\n", ",1.1\r\n"},
		{"bool", func(w *resp.Writer) { w.Bool(true) }, ":1\r\n", "#t\r\n"},
		{"bignum", func(w *resp.Writer) { w.BigNumber("123") }, "$3\r\n123\r\n", "(123\r\n"},
		{"verbatim", func(w *resp.Writer) { w.Verbatim("txt", "hi") }, "$2\r\nhi\r\n", "=6\r\ntxt:hi\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for proto, want := range map[int]string{2: tt.resp2, 3: tt.resp3} {
				w := resp.NewWriter(64)
				w.Proto = proto
				tt.write(w)
				if got := string(w.Bytes()); got != want {
					t.Errorf("RESP%d: got %q, want %q", proto, got, want)
				}
			}
		})
	}
}

func TestWriterAllocs(t *testing.T) {
	w := resp.NewWriter(1 << 16)
	val := []byte("value-0123456789")
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset()
		w.Bulk(val)
		w.Int(12345)
		w.OK()
		w.ArrayLen(100)
	})
	if allocs != 0 {
		t.Fatalf("writer allocates %v per run", allocs)
	}
}

func BenchmarkWriterBulk(b *testing.B) {
	w := resp.NewWriter(1 << 16)
	val := make([]byte, 128)
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		for i := 0; i < 64; i++ {
			w.Bulk(val)
		}
	}
}

// TestWriterHeaderDigits checks header's decimal formatting against
// strconv at every digit-count boundary and the int64 extremes.
func TestWriterHeaderDigits(t *testing.T) {
	vals := []int64{0, 1, 9, 10, 11, 99, 100, 101, 999, 1000, 12345, -1, -9, -10, -99, -100, -12345,
		math.MaxInt64, math.MinInt64, math.MaxInt64 - 1, math.MinInt64 + 1}
	for p := int64(10); p > 0 && p <= math.MaxInt64/10; p *= 10 {
		vals = append(vals, p-1, p, p+1, -p+1, -p, -p-1)
	}
	w := resp.NewWriter(64)
	for _, v := range vals {
		w.Reset()
		w.Int(v)
		if got, want := string(w.Bytes()), ":"+strconv.FormatInt(v, 10)+"\r\n"; got != want {
			t.Errorf("Int(%d) = %q, want %q", v, got, want)
		}
	}
}

func BenchmarkWriterHeader(b *testing.B) {
	w := resp.NewWriter(1 << 16)
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		for i := int64(0); i < 64; i++ {
			w.Int(i * 12345)
		}
	}
}

// blockWrites writes a reply of many elements of mixed kinds.
func blockWrites(w *resp.Writer, n int) {
	w.ArrayLen(n)
	for i := range n {
		switch i % 4 {
		case 0:
			w.BulkString("member-" + strconv.Itoa(i))
		case 1:
			w.Int(int64(i))
		case 2:
			w.Double(float64(i) / 3)
		default:
			w.Bulk(make([]byte, i%200))
		}
	}
}

// joined is the writer's pending output through Blocks and Tail.
func joined(w *resp.Writer) []byte {
	var b []byte
	for _, bl := range w.Blocks() {
		b = append(b, bl...)
	}
	return append(b, w.Tail()...)
}

// TestWriterBlocks: a writer with a block size writes the same bytes as
// one without, in blocks of at least the block size each (but a payload
// larger than it) that every encoding fits in whole; Len, At, From,
// CopyFrom, Truncate (into a block, at its end, into the tail) and Reset
// see the blocks as one output; the limit counts them.
func TestWriterBlocks(t *testing.T) {
	const bs = 256
	ref := resp.NewWriter(0)
	blockWrites(ref, 500)
	want := ref.Bytes()

	w := resp.NewWriter(16)
	w.SetBlockSize(bs)
	blockWrites(w, 500)
	if w.Len() != len(want) || string(joined(w)) != string(want) {
		t.Fatalf("blocks hold %d bytes, want %d (equal: %v)", w.Len(), len(want), string(joined(w)) == string(want))
	}
	if len(w.Blocks()) < len(want)/(2*bs) {
		t.Fatalf("%d blocks for %d bytes of %d-byte blocks", len(w.Blocks()), len(want), bs)
	}
	off := 0
	for i, b := range w.Blocks() {
		// Every block (but the first, the initial buffer) holds at least
		// bs bytes minus one encoding, and starts with a type byte.
		if i > 0 && cap(b) < bs {
			t.Errorf("block %d: capacity %d", i, cap(b))
		}
		if c := b[0]; c != '$' && c != ':' && c != '*' {
			t.Errorf("block %d at %d starts with %q", i, off, c)
		}
		off += len(b)
	}
	if cap(w.Tail()) > 2*bs {
		t.Errorf("tail capacity %d, block size %d", cap(w.Tail()), bs)
	}
	for _, i := range []int{0, 1, bs - 1, bs, 3*bs + 7, len(want) - 1} {
		if w.At(i) != want[i] {
			t.Errorf("At(%d) = %q, want %q", i, w.At(i), want[i])
		}
	}
	for _, m := range []int{0, 5, bs, len(want) - 40, len(want)} {
		if got := w.From(m); string(got) != string(want[m:]) {
			t.Errorf("From(%d): %d bytes, want %d", m, len(got), len(want)-m)
		}
		if got := w.CopyFrom(m); string(got) != string(want[m:]) {
			t.Errorf("CopyFrom(%d): %d bytes, want %d", m, len(got), len(want)-m)
		}
	}

	// Truncate then write again: as the single buffer does.
	ends := []int{len(want) - 3, len(want) - len(w.Tail()), len(w.Blocks()[0]), 2*bs + 1, 0}
	for _, n := range ends {
		w.Truncate(n)
		ref.Truncate(n)
		w.Error("ERR after truncate")
		ref.Error("ERR after truncate")
		blockWrites(w, 50)
		blockWrites(ref, 50)
		if string(joined(w)) != string(ref.Bytes()) {
			t.Fatalf("after Truncate(%d): output differs", n)
		}
		if w.Len() != ref.Len() {
			t.Fatalf("after Truncate(%d): Len %d, want %d", n, w.Len(), ref.Len())
		}
	}

	// Bytes copies the blocks into one buffer.
	if b := w.Bytes(); string(b) != string(ref.Bytes()) || len(w.Blocks()) != 0 {
		t.Fatalf("Bytes: %d bytes, %d blocks left", len(b), len(w.Blocks()))
	}
	blockWrites(w, 300)
	w.Reset()
	if w.Len() != 0 || len(w.Blocks()) != 0 || len(w.Tail()) != 0 {
		t.Fatalf("after Reset: Len %d, %d blocks", w.Len(), len(w.Blocks()))
	}

	// The limit counts every block.
	w.SetLimit(3 * bs)
	for i := 0; i < 100 && !w.Overflowed(); i++ {
		w.BulkString("0123456789abcdef")
	}
	if !w.Overflowed() || w.Len() > 3*bs {
		t.Fatalf("limit %d: overflowed %v at %d bytes", 3*bs, w.Overflowed(), w.Len())
	}
}

// TestWriterBlocksLargePayload: a payload larger than a block goes in a
// block of its own, whole.
func TestWriterBlocksLargePayload(t *testing.T) {
	w := resp.NewWriter(0)
	w.SetBlockSize(64)
	w.BulkString("small")
	big := make([]byte, 1000)
	w.Bulk(big)
	w.BulkString("after")
	ref := resp.NewWriter(0)
	ref.BulkString("small")
	ref.Bulk(big)
	ref.BulkString("after")
	if string(joined(w)) != string(ref.Bytes()) {
		t.Fatal("output differs")
	}
}

// TestWriterBlocksAllocs: replies within the buffer never allocate with
// a block size set either (the client's hot path).
func TestWriterBlocksAllocs(t *testing.T) {
	w := resp.NewWriter(16 << 10)
	w.SetBlockSize(64 << 10)
	val := []byte("value-0123456789")
	allocs := testing.AllocsPerRun(100, func() {
		w.Reset()
		for range 100 {
			w.Bulk(val)
			w.Int(12345)
			w.OK()
		}
	})
	if allocs != 0 {
		t.Fatalf("%v allocations per run", allocs)
	}
}
