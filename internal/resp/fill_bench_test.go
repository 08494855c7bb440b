package resp_test

import (
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/resp"
)

// streamSource serves data over and over, at most max bytes a read (0:
// as much as the caller asks), as a socket with that much queued would.
type streamSource struct {
	data []byte
	off  int
	max  int
}

func (s *streamSource) Read(p []byte) (int, error) {
	if s.max > 0 && len(p) > s.max {
		p = p[:s.max]
	}
	n := 0
	for n < len(p) {
		c := copy(p[n:], s.data[s.off:])
		n += c
		if s.off += c; s.off == len(s.data) {
			s.off = 0
		}
	}
	return n, nil
}

// releaser is resp.Reader's Release where it has one, so that this file
// also builds against a Reader without it (the same benchmark before and
// after the pooled read buffers).
type releaser interface{ Release(idle bool) bool }

// BenchmarkReaderBatch is the server's read path for one batch: Fill from
// the connection, parse every complete command, then give the buffer
// back if it is drained (Release, as after every batch on both network
// paths). One request a batch (a read shorter than asked: the buffer goes
// back to the pool and comes again with the next), 16 pipelined requests,
// a stream of small requests read 16 KiB at a time (commands split across
// reads: the remainder is kept), and a stream of 100 KB values.
func BenchmarkReaderBatch(b *testing.B) {
	set := func(val int) string {
		v := strings.Repeat("v", val)
		return "*3\r\n$3\r\nSET\r\n$10\r\nkey:000001\r\n$" + strconv.Itoa(val) + "\r\n" + v + "\r\n"
	}
	small := set(16)
	for _, tc := range []struct {
		name string
		data string
		max  int
	}{
		{"one", small, len(small)},
		{"pipeline16", strings.Repeat(small, 16), 16 * len(small)},
		{"stream", strings.Repeat(small, 1000) + "*1\r\n$4\r\nPING\r\n", 0},
		{"large", set(100000), 0},
	} {
		b.Run(tc.name, func(b *testing.B) {
			src := &streamSource{data: []byte(tc.data), max: tc.max}
			r := resp.NewReader()
			rel, _ := any(r).(releaser)
			cmds := 0
			b.ReportAllocs()
			for b.Loop() {
				n, err := r.Fill(src)
				if err != nil && err != io.EOF {
					b.Fatal(err)
				}
				b.SetBytes(int64(n))
				for {
					argv, err := r.Next()
					if err != nil {
						b.Fatal(err)
					}
					if argv == nil {
						break
					}
					cmds++
				}
				if rel != nil {
					rel.Release(false)
				}
			}
			if cmds > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(cmds), "ns/cmd")
			}
		})
	}
}
