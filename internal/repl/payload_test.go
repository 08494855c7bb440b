package repl

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// testMark is a mark as NewMark makes them.
var testMark = []byte("5f1c0e9a7d3b2a4c6e8f0a1b3c5d7e9f2a4b6c8d")

// chunked returns its chunks one Read at a time (a Read into a smaller p
// returns the chunk's first bytes and keeps the rest for the next), then
// err (io.EOF if nil).
type chunked struct {
	chunks [][]byte
	err    error
	reads  int
}

func (c *chunked) Read(p []byte) (int, error) {
	for len(c.chunks) > 0 && len(c.chunks[0]) == 0 {
		c.chunks = c.chunks[1:]
	}
	if len(c.chunks) == 0 {
		if c.err != nil {
			return 0, c.err
		}
		return 0, io.EOF
	}
	c.reads++
	n := copy(p, c.chunks[0])
	c.chunks[0] = c.chunks[0][n:]
	return n, nil
}

// split cuts s at the given offsets (ascending, within s).
func split(s []byte, at ...int) [][]byte {
	var out [][]byte
	prev := 0
	for _, a := range at {
		out = append(out, s[prev:a])
		prev = a
	}
	return append(out, s[prev:])
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestReadPayloadHeader(t *testing.T) {
	mark := string(testMark)
	for _, tc := range []struct {
		name   string
		in     string
		length int64
		mark   string
		err    error  // errors.Is
		msg    string // in the error's text
		rest   string // left in the reader
	}{
		{name: "length", in: "$12345\r\nREDIS", length: 12345, rest: "REDIS"},
		{name: "zero length", in: "$0\r\n", length: 0},
		{name: "bare newline", in: "$7\nabc", length: 7, rest: "abc"},
		{name: "keepalives", in: "\n\n\n$5\r\nREDIS", length: 5, rest: "REDIS"},
		{name: "CRLF keepalives", in: "\r\n\n\r\n$5\r\nx", length: 5, rest: "x"},
		{name: "mark", in: "$EOF:" + mark + "\r\nREDIS0011", length: -1, mark: mark, rest: "REDIS0011"},
		{name: "mark after keepalives", in: "\n\n$EOF:" + mark + "\r\n", length: -1, mark: mark},
		{name: "short mark", in: "$EOF:" + mark[:39] + "\r\n", err: ErrPayload, msg: "EOF mark of 39 bytes"},
		{name: "long mark", in: "$EOF:" + mark + "0\r\n", err: ErrPayload, msg: "EOF mark of 41 bytes"},
		{name: "empty mark", in: "$EOF:\r\n", err: ErrPayload},
		{name: "error reply", in: "-ERR no can do\r\n", err: ErrPayload, msg: "the primary replied ERR no can do"},
		{name: "error after keepalive", in: "\n-LOADING\r\n", err: ErrPayload, msg: "LOADING"},
		{name: "simple string", in: "+OK\r\n", err: ErrPayload, msg: "a payload header was expected"},
		{name: "negative length", in: "$-1\r\n", err: ErrPayload, msg: "bad length"},
		{name: "no length", in: "$\r\n", err: ErrPayload, msg: "bad length"},
		{name: "not a number", in: "$12a\r\n", err: ErrPayload, msg: "bad length"},
		{name: "overflow", in: "$99999999999999999999\r\n", err: ErrPayload, msg: "bad length"},
		{name: "long garbage truncated", in: "x" + strings.Repeat("y", 200) + "\r\n", err: ErrPayload, msg: `"x` + strings.Repeat("y", 63) + `"`},
		{name: "nothing", in: "", err: io.EOF},
		{name: "only keepalives", in: "\n\n", err: io.EOF},
		{name: "no newline", in: "$12", err: io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Whole, and one byte at a time.
			for _, src := range []io.Reader{strings.NewReader(tc.in), iotest.OneByteReader(strings.NewReader(tc.in))} {
				br := bufio.NewReaderSize(src, 1024)
				length, m, err := ReadPayloadHeader(br)
				if tc.err != nil {
					if !errors.Is(err, tc.err) || !strings.Contains(fmt.Sprint(err), tc.msg) {
						t.Fatalf("error %v, want %v with %q", err, tc.err, tc.msg)
					}
					continue
				}
				if err != nil || length != tc.length || string(m) != tc.mark {
					t.Fatalf("got %d %q %v, want %d %q", length, m, err, tc.length, tc.mark)
				}
				if tc.mark == "" && m != nil {
					t.Fatal("a mark with a length")
				}
				rest, _ := io.ReadAll(br)
				if string(rest) != tc.rest {
					t.Fatalf("left %q, want %q", rest, tc.rest)
				}
			}
		})
	}
}

// The mark is a copy: reading on (which refills the reader's buffer) does
// not change it.
func TestReadPayloadHeaderMarkCopied(t *testing.T) {
	in := "$EOF:" + string(testMark) + "\r\n" + strings.Repeat("z", 100)
	br := bufio.NewReaderSize(iotest.HalfReader(strings.NewReader(in)), 16*4)
	_, m, err := ReadPayloadHeader(br)
	if err != nil {
		t.Fatal(err)
	}
	io.ReadAll(br)
	if !bytes.Equal(m, testMark) {
		t.Fatalf("mark changed to %q", m)
	}
}

func TestReadPayloadHeaderLineTooLong(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("$"+strings.Repeat("1", 100)+"\r\n"), 16)
	if _, _, err := ReadPayloadHeader(br); !errors.Is(err, bufio.ErrBufferFull) {
		t.Fatalf("error %v", err)
	}
}

func TestNewMark(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		m := NewMark()
		if len(m) != MarkLen {
			t.Fatalf("mark %q", m)
		}
		if _, err := hex.DecodeString(string(m)); err != nil {
			t.Fatalf("mark %q: %v", m, err)
		}
		if seen[string(m)] {
			t.Fatalf("mark %q twice", m)
		}
		seen[string(m)] = true
		if id := NewID(); len(id) != 40 || id == ZeroID {
			t.Fatalf("ID %q", id)
		}
	}
	if len(ZeroID) != MarkLen || strings.Trim(ZeroID, "0") != "" {
		t.Fatalf("ZeroID %q", ZeroID)
	}
}

func TestLengthPayload(t *testing.T) {
	data := []byte("REDIS0011\xfa\x09valkey-ver\x058.0.1\xff12345678")
	rest := []byte("*1\r\n$4\r\nPING\r\n")
	for _, tc := range []struct {
		name   string
		chunks [][]byte
		length int64
		want   []byte
		err    error
		rest   []byte
	}{
		{name: "exact", chunks: [][]byte{data}, length: int64(len(data)), want: data},
		{name: "stream follows", chunks: [][]byte{cat(data, rest)}, length: int64(len(data)), want: data, rest: rest},
		{name: "split", chunks: split(cat(data, rest), 1, 10, len(data)-1, len(data)+3), length: int64(len(data)), want: data, rest: rest},
		{name: "zero", chunks: [][]byte{rest}, length: 0, want: nil, rest: rest},
		{name: "zero at EOF", chunks: nil, length: 0, want: nil},
		{name: "short", chunks: split(data, 5), length: int64(len(data)) + 1, want: data, err: io.ErrUnexpectedEOF},
		{name: "empty stream", chunks: nil, length: 10, want: nil, err: io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, one := range []bool{false, true} {
				var src io.Reader = &chunked{chunks: cloneChunks(tc.chunks)}
				if one {
					src = iotest.OneByteReader(src)
				}
				br := bufio.NewReaderSize(src, 16)
				got, err := io.ReadAll(Payload(br, tc.length, nil))
				if !bytes.Equal(got, tc.want) || !errors.Is(err, tc.err) {
					t.Fatalf("one byte %v: read %q, %v; want %q, %v", one, got, err, tc.want, tc.err)
				}
				if tc.err != nil {
					continue
				}
				left, _ := io.ReadAll(br)
				if !bytes.Equal(left, tc.rest) {
					t.Fatalf("one byte %v: left %q, want %q", one, left, tc.rest)
				}
			}
		})
	}
	// The io.Reader contract, read every way testing/iotest tries.
	if err := iotest.TestReader(Payload(bufio.NewReader(bytes.NewReader(cat(data, rest))), int64(len(data)), nil), data); err != nil {
		t.Fatal(err)
	}
}

func cloneChunks(cs [][]byte) [][]byte {
	out := make([][]byte, len(cs))
	for i, c := range cs {
		out[i] = bytes.Clone(c)
	}
	return out
}

// readMarkPayload reads a mark payload from chunks through a bufio.Reader
// of size bufSize, and returns the payload, its error, and what is left in
// the stream after it. With exact, it reads only len(want) bytes (as an RDB
// loader does: it stops at the checksum and never sees io.EOF).
func readMarkPayload(t *testing.T, chunks [][]byte, bufSize int, oneByte, exact bool, want []byte) (got []byte, err error, left []byte) {
	t.Helper()
	var src io.Reader = &chunked{chunks: cloneChunks(chunks)}
	if oneByte {
		src = iotest.OneByteReader(src)
	}
	br := bufio.NewReaderSize(src, bufSize)
	p := Payload(br, -1, testMark)
	if exact {
		got = make([]byte, len(want))
		_, err = io.ReadFull(p, got)
	} else {
		got, err = io.ReadAll(p)
	}
	left, _ = io.ReadAll(br)
	return got, err, left
}

func TestMarkPayload(t *testing.T) {
	mark := testMark
	rdb := []byte("REDIS0011\xfa\x09valkey-ver\x058.0.1\xfe\x00\x00\x03key\x05value\xff\x01\x02\x03\x04\x05\x06\x07\x08")
	rest := []byte("*1\r\n$4\r\nPING\r\n*3\r\n$3\r\nSET\r\n$1\r\na\r\n$1\r\nb\r\n")
	big := bytes.Repeat([]byte("0123456789abcdef"), 10000) // many bufio fills
	type tc struct {
		name   string
		chunks [][]byte
		want   []byte
		rest   []byte
	}
	cases := []tc{
		{"one read", [][]byte{cat(rdb, mark)}, rdb, nil},
		{"stream in the same read", [][]byte{cat(rdb, mark, rest)}, rdb, rest},
		{"stream in the next read", [][]byte{cat(rdb, mark), rest}, rdb, rest},
		{"empty payload", [][]byte{cat(mark, rest)}, nil, rest},
		{"empty payload, mark split", split(cat(mark, rest), 20, 41), nil, rest},
		{"mark alone in its read", [][]byte{rdb, mark, rest}, rdb, rest},
		{"large", split(cat(big, mark, rest), 70000, len(big)+5), big, rest},
		{"prefixes of the mark in the data", [][]byte{cat(mark[:39], rdb, mark[:1], mark[:20], mark[:39], mark, rest)}, cat(mark[:39], rdb, mark[:1], mark[:20], mark[:39]), rest},
		{"data ends with a prefix of the mark", split(cat(rdb, mark[:39], mark, rest), len(rdb)+39), cat(rdb, mark[:39]), rest},
		{"the mark's last byte doubled", [][]byte{cat(rdb, mark[:39], mark[38:39], mark, rest)}, cat(rdb, mark[:39], mark[38:39]), rest},
	}
	// The mark split at every byte, with the stream after it in the same
	// read as the mark's end, or in a read of its own.
	for k := 1; k < MarkLen; k++ {
		cases = append(cases,
			tc{fmt.Sprintf("mark split at %d", k), split(cat(rdb, mark, rest), len(rdb)+k), rdb, rest},
			tc{fmt.Sprintf("mark split at %d, stream apart", k), split(cat(rdb, mark, rest), len(rdb)+k, len(rdb)+MarkLen), rdb, rest},
			tc{fmt.Sprintf("mark in three at %d", k), split(cat(rdb, mark, rest), len(rdb)-1, len(rdb)+k, len(rdb)+MarkLen+1), rdb, rest},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, bufSize := range []int{16, 64, 4096} {
				for _, oneByte := range []bool{false, true} {
					for _, exact := range []bool{false, true} {
						if oneByte && len(c.want) > 1000 && bufSize < 64 {
							continue
						}
						if exact && len(c.want) == 0 {
							continue // reading nothing calls no Read
						}
						got, err, left := readMarkPayload(t, c.chunks, bufSize, oneByte, exact, c.want)
						if err != nil || !bytes.Equal(got, c.want) {
							t.Fatalf("buffer %d, one byte %v, exact %v: read %d bytes (%v), want %d", bufSize, oneByte, exact, len(got), err, len(c.want))
						}
						if !bytes.Equal(left, c.rest) {
							t.Fatalf("buffer %d, one byte %v, exact %v: left %q, want %q", bufSize, oneByte, exact, left, c.rest)
						}
					}
				}
			}
		})
	}
}

// TestMarkPayloadTruncated: a stream that ends before the whole mark is
// io.ErrUnexpectedEOF, never io.EOF; other errors come through.
func TestMarkPayloadTruncated(t *testing.T) {
	rdb := []byte("REDIS0011 some data here")
	for _, in := range [][]byte{
		nil,
		rdb,
		cat(rdb, testMark[:1]),
		cat(rdb, testMark[:39]),
		testMark[:39],
	} {
		for _, oneByte := range []bool{false, true} {
			_, err, _ := readMarkPayload(t, [][]byte{in}, 16, oneByte, false, nil)
			if err != io.ErrUnexpectedEOF {
				t.Fatalf("%q (one byte %v): error %v", in, oneByte, err)
			}
		}
	}
	boom := errors.New("boom")
	br := bufio.NewReaderSize(&chunked{chunks: [][]byte{cat(rdb, testMark[:10])}, err: boom}, 16)
	if _, err := io.ReadAll(Payload(br, -1, testMark)); err != boom {
		t.Fatalf("error %v, want boom", err)
	}
	br = bufio.NewReaderSize(iotest.TimeoutReader(bytes.NewReader(cat(rdb, testMark))), 16)
	if _, err := io.ReadAll(Payload(br, -1, testMark)); err != iotest.ErrTimeout {
		t.Fatalf("error %v, want a timeout", err)
	}
}

// The io.Reader contract, read every way testing/iotest tries.
func TestMarkPayloadIOTest(t *testing.T) {
	data := bytes.Repeat([]byte("abcdefgh"), 1000)
	br := bufio.NewReaderSize(iotest.HalfReader(bytes.NewReader(cat(data, testMark, []byte("after")))), 100)
	if err := iotest.TestReader(Payload(br, -1, testMark), data); err != nil {
		t.Fatal(err)
	}
}

// TestMarkPayloadDoneWithLastByte: the read that returns the payload's
// last byte has consumed the mark, so a reader that stops there (an RDB
// loader stops after the checksum) leaves the stream after the mark, and
// nothing of the mark, in the bufio.Reader. The mark split after its 39th
// byte used to leave its 40th for the stream.
func TestMarkPayloadDoneWithLastByte(t *testing.T) {
	data := []byte("0123456789")
	rest := []byte("*1\r\n$4\r\nPING\r\n")
	for k := 0; k <= MarkLen; k++ {
		br := bufio.NewReaderSize(&chunked{chunks: split(cat(data, testMark, rest), len(data)+k)}, 4096)
		p := Payload(br, -1, testMark)
		got := make([]byte, len(data))
		if _, err := io.ReadFull(p, got); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("split at mark byte %d: %q %v", k, got, err)
		}
		left, _ := io.ReadAll(br)
		if !bytes.Equal(left, rest) {
			t.Fatalf("split at mark byte %d: left %q, want %q", k, left, rest)
		}
		if n, err := p.Read(make([]byte, 10)); n != 0 || err != io.EOF {
			t.Fatalf("split at mark byte %d: read on: %d %v", k, n, err)
		}
	}
}
