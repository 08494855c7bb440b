package tlsrec

import (
	"crypto/tls"
	"testing"
)

// fixedSession is a Session with keys from constant secrets, and its
// mirror (the peer's view), for fuzzing and benchmarks.
func fixedSession(tb testing.TB) (s, mirror *Session) {
	tb.Helper()
	c := make([]byte, 32)
	v := make([]byte, 32)
	for i := range c {
		c[i], v[i] = byte(i), byte(100+i)
	}
	s, err := newSession(tls.TLS_AES_128_GCM_SHA256, c, v)
	if err != nil {
		tb.Fatal(err)
	}
	mirror, err = newSession(tls.TLS_AES_128_GCM_SHA256, v, c)
	if err != nil {
		tb.Fatal(err)
	}
	return s, mirror
}

// FuzzOpen: whatever arrives, Open neither panics nor consumes more than
// it was given, and records the peer really sealed open to their data.
func FuzzOpen(f *testing.F) {
	_, m := fixedSession(f)
	f.Add(m.Seal(nil, []byte("*1\r\n$4\r\nPING\r\n")))
	f.Add(m.CloseNotify(nil))
	f.Add([]byte{23, 3, 3, 0, 17})
	f.Add([]byte{22, 3, 1, 0, 5, 1, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, in []byte) {
		s, _ := fixedSession(t)
		out, n, _ := s.Open(nil, in)
		if n < 0 || n > len(in) {
			t.Fatalf("consumed %d of %d", n, len(in))
		}
		if len(out) > n {
			t.Fatalf("%d bytes of data from %d consumed", len(out), n)
		}
	})
}

// BenchmarkSeal: one 128-byte reply per record, the seed workload's GET.
func BenchmarkSeal(b *testing.B) {
	s, _ := fixedSession(b)
	p := make([]byte, 128)
	buf := make([]byte, 0, 1024)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	for b.Loop() {
		buf = s.Seal(buf[:0], p)
	}
}

// BenchmarkOpen: one SET of a 128-byte value per record.
func BenchmarkOpen(b *testing.B) {
	s, m := fixedSession(b)
	p := make([]byte, 160)
	out := make([]byte, 0, 1024)
	b.SetBytes(int64(len(p)))
	b.ReportAllocs()
	rec := m.Seal(nil, p) // at sequence number 0: opened again and again
	for b.Loop() {
		s.in.seq = 0
		var err error
		if out, _, err = s.Open(out[:0], rec); err != nil {
			b.Fatal(err)
		}
	}
}
