package tlsrec

import "testing"

// BenchmarkOpenBatch opens a batch of 16 pipelined requests, each in a
// record of its own as memtier's --tls sends them (SETs of a 128-byte
// value, ~150 bytes each), and the same bytes in one record; per batch.
func BenchmarkOpenBatch(b *testing.B) {
	req := payload(150, 3)
	for _, tc := range []struct {
		name    string
		records int
	}{{"16x150B", 16}, {"1x2400B", 1}} {
		b.Run(tc.name, func(b *testing.B) {
			srv, cli := fixedSession(b)
			var wire []byte
			if tc.records == 1 {
				big := make([]byte, 0, 16*len(req))
				for range 16 {
					big = append(big, req...)
				}
				wire = cli.Seal(nil, big)
			} else {
				for range tc.records {
					wire = cli.Seal(wire, req)
				}
			}
			dst := make([]byte, 0, 4096)
			b.SetBytes(int64(16 * len(req)))
			b.ReportAllocs()
			for b.Loop() {
				srv.in.seq = 0
				out, n, err := srv.Open(dst[:0], wire)
				if err != nil || n != len(wire) || len(out) != 16*len(req) {
					b.Fatal(err, n, len(out))
				}
			}
		})
	}
}

// BenchmarkSealBatch seals a batch's replies (16 "+OK\r\n") as one record.
func BenchmarkSealBatch(b *testing.B) {
	srv, _ := fixedSession(b)
	p := make([]byte, 0, 80)
	for range 16 {
		p = append(p, "+OK\r\n"...)
	}
	dst := make([]byte, 0, 4096)
	b.ReportAllocs()
	for b.Loop() {
		dst = srv.Seal(dst[:0], p)
	}
}
