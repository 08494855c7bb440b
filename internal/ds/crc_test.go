package ds_test

import (
	"hash/crc64"
	"math/rand/v2"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

func TestCRC64(t *testing.T) {
	if got := ds.CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64 check value %#x", got)
	}
	if got := ds.CRC64(0, nil); got != 0 {
		t.Fatalf("CRC64 of nothing %#x", got)
	}
	// The same CRC through the stdlib's reflected table implementation,
	// which inverts before and after: undo both.
	tab := crc64.MakeTable(0x95ac9329ac4bc9b5)
	r := rand.New(rand.NewPCG(1, 1))
	buf := make([]byte, 1000)
	for i := range buf {
		buf[i] = byte(r.Uint32())
	}
	for n := range len(buf) {
		want := ^crc64.Update(^uint64(0), tab, buf[:n])
		if got := ds.CRC64(0, buf[:n]); got != want {
			t.Fatalf("len %d: %#x, want %#x", n, got, want)
		}
		// Incremental use.
		split := n / 3
		if got := ds.CRC64(ds.CRC64(0, buf[:split]), buf[split:n]); got != want {
			t.Fatalf("len %d split: %#x, want %#x", n, got, want)
		}
	}
}

func BenchmarkCRC64(b *testing.B) {
	buf := make([]byte, 64<<10)
	b.SetBytes(int64(len(buf)))
	b.ReportAllocs()
	for b.Loop() {
		ds.CRC64(0, buf)
	}
}
