package repl

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"testing"
	"testing/iotest"
)

// The corpora are under testdata/fuzz/<FuzzName>; plain `go test` runs
// each target over them and the f.Add seeds.

// fuzzMarks are the marks FuzzPayload picks from: a random one, and ones
// that overlap themselves (a prefix that is also a suffix), where a naive
// search resumes in the wrong place.
var fuzzMarks = [][]byte{
	testMark,
	bytes.Repeat([]byte("0"), MarkLen),
	bytes.Repeat([]byte("ab"), MarkLen/2),
	[]byte("abcabcabcabcabcabcabcabcabcabcabcabcabca"),
	[]byte("000000000000000000000000000000000000000x"),
}

// fuzzChunks cuts s into reads whose lengths cycle through 1+cuts[i]
// (all of s in one read if cuts is empty).
func fuzzChunks(s, cuts []byte) [][]byte {
	if len(cuts) == 0 {
		return [][]byte{bytes.Clone(s)}
	}
	var out [][]byte
	for i := 0; len(s) > 0; i++ {
		n := min(len(s), 1+int(cuts[i%len(cuts)]))
		out = append(out, bytes.Clone(s[:n]))
		s = s[n:]
	}
	return out
}

// readSizes reads r to its end (or an error) with Reads of the lengths in
// sizes (cycling, 1+sizes[i]; 4096 if empty), or only want bytes with
// exact.
func readSizes(r io.Reader, sizes []byte, want int, exact bool) ([]byte, error) {
	var out []byte
	for i := 0; ; i++ {
		n := 4096
		if len(sizes) > 0 {
			n = 1 + int(sizes[len(sizes)-1-i%len(sizes)])
		}
		if exact {
			if len(out) == want {
				return out, nil
			}
			n = min(n, want-len(out))
		}
		p := make([]byte, n)
		m, err := r.Read(p)
		out = append(out, p[:m]...)
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if i > 1<<20 {
			return out, errors.New("no progress")
		}
	}
}

// FuzzPayload: data and the stream after it, cut into reads by cuts,
// through a bufio.Reader of 16+size bytes. The mark reader returns exactly
// the data and leaves exactly the rest in the bufio.Reader, whether it is
// read to io.EOF or only up to the data's last byte; cut short anywhere
// before the mark's end, it fails with io.ErrUnexpectedEOF after returning
// only data. A length payload does the same with the data's length.
func FuzzPayload(f *testing.F) {
	f.Add([]byte("REDIS0011\xff12345678"), []byte("*1\r\n$4\r\nPING\r\n"), []byte{}, uint8(0), uint8(0))
	f.Add([]byte("REDIS0011\xff12345678"), []byte("*1\r\n$4\r\nPING\r\n"), []byte{0}, uint8(0), uint8(0))
	f.Add([]byte("0123456789"), []byte("rest"), []byte{9, 38, 0}, uint8(0), uint8(48))
	f.Add(append([]byte("x"), testMark[:39]...), []byte("rest"), []byte{39}, uint8(0), uint8(1))
	f.Add([]byte("ababababab"), []byte("ab"), []byte{3, 5}, uint8(2), uint8(7))
	f.Add([]byte("abcabcab"), []byte(""), []byte{1}, uint8(3), uint8(200))
	f.Add([]byte("0000000000000000000000000000000000000000x"), []byte("y"), []byte{20, 0}, uint8(4), uint8(3))
	f.Add([]byte{}, []byte("*1\r\n$4\r\nPING\r\n"), []byte{10}, uint8(1), uint8(0))
	f.Fuzz(func(t *testing.T, data, rest, cuts []byte, kind, size uint8) {
		mark := fuzzMarks[int(kind)%len(fuzzMarks)]
		stream := cat(data, mark, rest)
		if bytes.Index(stream, mark) != len(data) {
			return // the data holds the mark, or ends with a start the mark completes
		}
		bufSize := 16 + int(size)
		read := func(in []byte, length int64, m []byte, exact bool) ([]byte, error, []byte) {
			br := bufio.NewReaderSize(&chunked{chunks: fuzzChunks(in, cuts)}, bufSize)
			got, err := readSizes(Payload(br, length, m), cuts, len(data), exact)
			left, _ := io.ReadAll(br)
			return got, err, left
		}
		for _, exact := range []bool{false, true} {
			if exact && len(data) == 0 {
				continue // reading nothing calls no Read
			}
			got, err, left := read(stream, -1, mark, exact)
			if err != nil || !bytes.Equal(got, data) || !bytes.Equal(left, rest) {
				t.Fatalf("mark, exact %v: read %q (%v) and left %q; want %q and %q", exact, got, err, left, data, rest)
			}
			got, err, left = read(cat(data, rest), int64(len(data)), nil, exact)
			if err != nil || !bytes.Equal(got, data) || !bytes.Equal(left, rest) {
				t.Fatalf("length, exact %v: read %q (%v) and left %q; want %q and %q", exact, got, err, left, data, rest)
			}
		}
		// Cut short: before the data's end, or inside the mark.
		cut := len(data) + int(size)%MarkLen
		if len(data) > 0 && size&1 == 1 {
			cut = int(size) % len(data)
		}
		got, err, _ := read(stream[:cut], -1, mark, false)
		if err != io.ErrUnexpectedEOF || !bytes.HasPrefix(data, got) {
			t.Fatalf("mark, cut at %d: read %q (%v)", cut, got, err)
		}
		if cut < len(data) {
			got, err, _ = read(data[:cut], int64(len(data)), nil, false)
			if err != io.ErrUnexpectedEOF || !bytes.Equal(got, data[:cut]) {
				t.Fatalf("length, cut at %d: read %q (%v)", cut, got, err)
			}
		}
	})
}

// refHeader is what ReadPayloadHeader should do with in through a
// bufio.Reader of bufSize bytes: its results, and how many bytes of in it
// consumes.
func refHeader(in []byte, bufSize int) (length int64, mark []byte, err error, used int) {
	for pos := 0; ; {
		i := bytes.IndexByte(in[pos:], '\n')
		if i < 0 || i >= bufSize {
			if len(in)-pos >= bufSize {
				return 0, nil, bufio.ErrBufferFull, 0
			}
			return 0, nil, io.EOF, 0
		}
		line := bytes.TrimRight(in[pos:pos+i], "\r")
		pos += i + 1
		switch {
		case len(line) == 0:
		case line[0] == '-', line[0] != '$':
			return 0, nil, ErrPayload, pos
		case bytes.HasPrefix(line, []byte("$EOF:")):
			if len(line) != 5+MarkLen {
				return 0, nil, ErrPayload, pos
			}
			return -1, line[5:], nil, pos
		default:
			n, perr := strconv.ParseInt(string(line[1:]), 10, 64)
			if perr != nil || n < 0 {
				return 0, nil, ErrPayload, pos
			}
			return n, nil, nil, pos
		}
	}
}

// FuzzReadPayloadHeader: ReadPayloadHeader agrees with refHeader on what
// it returns and consumes (the rest stays in the bufio.Reader), and the
// mark it returns is its own copy.
func FuzzReadPayloadHeader(f *testing.F) {
	f.Add([]byte("$12345\r\nREDIS"), uint8(0))
	f.Add([]byte("\n\n\n$EOF:"+string(testMark)+"\r\nREDIS0011"), uint8(1))
	f.Add([]byte("$EOF:"+string(testMark[:39])+"\r\n"), uint8(0))
	f.Add([]byte("-ERR no\r\n"), uint8(2))
	f.Add([]byte("+FULLRESYNC x 0\r\n$1\r\n"), uint8(0))
	f.Add([]byte("$-1\r\n$5\r\n"), uint8(3))
	f.Add([]byte("\r\r\n\r\n$+0\r\n"), uint8(0))
	f.Add([]byte("$99999999999999999999\r\n"), uint8(0))
	f.Add([]byte("$123456789012345678901234567890\n"), uint8(4))
	f.Fuzz(func(t *testing.T, in []byte, size uint8) {
		bufSize := 16 + int(size>>1)
		var src io.Reader = bytes.NewReader(in)
		if size&1 == 1 {
			src = iotest.OneByteReader(src)
		}
		br := bufio.NewReaderSize(src, bufSize)
		length, mark, err := ReadPayloadHeader(br)
		wl, wm, werr, used := refHeader(in, bufSize)
		if !errors.Is(err, werr) || (err == nil) != (werr == nil) {
			t.Fatalf("error %v, want %v", err, werr)
		}
		if err != nil {
			return
		}
		if length != wl || !bytes.Equal(mark, wm) || (mark == nil) != (wl >= 0) {
			t.Fatalf("got %d %q, want %d %q", length, mark, wl, wm)
		}
		left, _ := io.ReadAll(br) // refills br's buffer
		if !bytes.Equal(left, in[used:]) {
			t.Fatalf("left %q, want %q", left, in[used:])
		}
		if !bytes.Equal(mark, wm) {
			t.Fatalf("the mark changed to %q when the reader read on", mark)
		}
	})
}
