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
