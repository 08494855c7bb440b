package ds_test

import (
	"hash/crc64"
	"math/rand/v2"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

func TestCRC16(t *testing.T) {
	tests := []struct {
		in   string
		want uint16
	}{
		{"", 0},
		{"123456789", 0x31c3}, // CRC-16/XMODEM check value
		{string([]byte{83, 153, 134, 118, 229, 214, 244, 75, 140, 37, 215, 215}), 21847},
	}
	for _, tc := range tests {
		if got := ds.CRC16([]byte(tc.in)); got != tc.want {
			t.Errorf("CRC16(%q) = %#x, want %#x", tc.in, got, tc.want)
		}
	}
}

func TestKeySlot(t *testing.T) {
	tests := []struct {
		key  string
		slot int
	}{
		{"123456789", 12739},
		{"{}foo", 9500},      // empty tag: whole key
		{"foo{}", 5542},      // empty tag: whole key
		{"foo{}{bar}", 8363}, // the first '{' decides; its tag is empty
		{string([]byte{83, 153, 134, 118, 229, 214, 244, 75, 140, 37, 215, 215}), 5463},
	}
	for _, tc := range tests {
		if got := ds.KeySlot([]byte(tc.key)); got != tc.slot {
			t.Errorf("KeySlot(%q) = %d, want %d", tc.key, got, tc.slot)
		}
	}
	same := []struct{ a, b string }{
		{"foo{bar}", "bar"},
		{"{foo}bar", "foo"},
		{"{user1000}.following", "{user1000}.followers"},
		{"foo{{bar}}zap", "{bar"},
		{"foo{bar}{zap}", "bar"},
		{"a{b", "a{b"},
	}
	for _, tc := range same {
		if ds.KeySlot([]byte(tc.a)) != ds.KeySlot([]byte(tc.b)) {
			t.Errorf("KeySlot(%q) != KeySlot(%q)", tc.a, tc.b)
		}
	}
	if got := string(ds.HashTag([]byte("x{tag}y"))); got != "tag" {
		t.Errorf("HashTag = %q", got)
	}
	if got := string(ds.HashTag([]byte("x{tag"))); got != "x{tag" {
		t.Errorf("HashTag unterminated = %q", got)
	}
}

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

func BenchmarkCRC16(b *testing.B) {
	key := []byte("user:{12345}:profile")
	b.ReportAllocs()
	for b.Loop() {
		ds.KeySlot(key)
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
