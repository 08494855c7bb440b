package resp

import (
	"bytes"
	"strconv"
	"testing"
)

// bigMultibulk is one command of n one-byte arguments.
func bigMultibulk(n int) []byte {
	var b bytes.Buffer
	b.WriteString("*" + strconv.Itoa(n) + "\r\n")
	for i := 0; i < n; i++ {
		b.WriteString("$1\r\nx\r\n")
	}
	return b.Bytes()
}

// TestReaderLinearSteps: a command that arrives in many small pieces is
// not parsed again from its start on every Next. steps counts the bytes
// the line searches examine plus the arguments read, so it measures the
// parser's work without a clock: it must stay within a small constant of
// the input's size.
func TestReaderLinearSteps(t *testing.T) {
	for _, chunk := range []int{7, 64, 1000} {
		in := bigMultibulk(200000)
		r := NewReader()
		got := 0
		for off := 0; off < len(in); off += chunk {
			r.Feed(in[off:min(off+chunk, len(in))])
			for {
				argv, err := r.Next()
				if err != nil {
					t.Fatal(err)
				}
				if argv == nil {
					break
				}
				got += len(argv)
			}
			if int(r.steps) > 3*len(in) {
				t.Fatalf("chunk %d: %d parse steps after %d of %d bytes: not linear", chunk, r.steps, off, len(in))
			}
		}
		if got != 200000 {
			t.Fatalf("chunk %d: %d arguments, want 200000", chunk, got)
		}
		t.Logf("chunk %d: %d steps for %d bytes", chunk, r.steps, len(in))
	}
}
