package repl

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// MarkLen is the length of the random mark that delimits a diskless
// transfer: "$EOF:<mark>\r\n", the RDB, then the mark again.
const MarkLen = 40

// NewMark returns a random mark (40 hex digits, as Valkey's).
func NewMark() []byte {
	var b [MarkLen / 2]byte
	rand.Read(b[:])
	return []byte(hex.EncodeToString(b[:]))
}

// NewID returns a random replication ID (40 hex digits).
func NewID() string { return string(NewMark()) }

// ZeroID is the ID of no history (master_replid2 when there is none).
const ZeroID = "0000000000000000000000000000000000000000"

// ErrPayload reports a full sync's payload the replica cannot read.
var ErrPayload = errors.New("bad full sync payload")

// ReadPayloadHeader reads, after +FULLRESYNC, the line that introduces the
// RDB: "$<length>" (a disk-based transfer) or "$EOF:<mark>" (diskless).
// The empty lines a primary sends to keep the link alive while it
// prepares the RDB are skipped; an error reply ("-...") is returned as an
// error. It returns the length (-1 with a mark).
func ReadPayloadHeader(br *bufio.Reader) (length int64, mark []byte, err error) {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return 0, nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			continue // keepalive
		case line[0] == '-':
			return 0, nil, fmt.Errorf("%w: the primary replied %s", ErrPayload, line[1:])
		case line[0] != '$':
			return 0, nil, fmt.Errorf("%w: a payload header was expected, got %q", ErrPayload, truncate(line))
		case bytes.HasPrefix(line, []byte("$EOF:")):
			m := line[5:]
			if len(m) != MarkLen {
				return 0, nil, fmt.Errorf("%w: EOF mark of %d bytes", ErrPayload, len(m))
			}
			return -1, append([]byte(nil), m...), nil
		default:
			n, err := strconv.ParseInt(string(line[1:]), 10, 64)
			if err != nil || n < 0 {
				return 0, nil, fmt.Errorf("%w: bad length %q", ErrPayload, truncate(line))
			}
			return n, nil, nil
		}
	}
}

func truncate(b []byte) []byte {
	if len(b) > 64 {
		return b[:64]
	}
	return b
}

// Payload returns a reader of the RDB that follows a payload header: the
// next length bytes of br, or with a mark the bytes up to the mark's
// second appearance (held back MarkLen bytes at a time until it is known
// they are not the mark). Reading past the payload returns io.EOF; a
// stream that ends first returns io.ErrUnexpectedEOF. With a mark, the
// Read that returns the payload's last byte has consumed the mark: a
// caller that stops there (an RDB loader stops after the checksum) finds
// the stream after the mark next in br.
func Payload(br *bufio.Reader, length int64, mark []byte) io.Reader {
	if mark == nil {
		return &lenReader{r: br, left: length}
	}
	return &markReader{r: br, mark: mark}
}

type lenReader struct {
	r    io.Reader
	left int64
}

func (l *lenReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if err == io.EOF && l.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// markReader passes bytes through up to the mark, never consuming
// from br past it (a primary may send the stream right after it): it
// looks at what br holds and discards only what it passed on, keeping
// the last MarkLen bytes back until it knows they are not the mark. (Not
// MarkLen-1, though that is enough to find the mark: data followed by
// only the mark's first MarkLen-1 bytes would then be passed on whole,
// and a caller that stops at the data's end would leave the mark's last
// byte in br, read as the start of the stream.)
type markReader struct {
	r    *bufio.Reader
	mark []byte
	tail []byte // consumed, not passed on: may be the start of the mark
	out  []byte // consumed, known to be data, not returned yet
	done bool
}

func (m *markReader) Read(p []byte) (int, error) {
	for len(m.out) == 0 && !m.done {
		if err := m.step(); err != nil {
			return 0, err
		}
	}
	if len(m.out) == 0 {
		return 0, io.EOF
	}
	n := copy(p, m.out)
	m.out = m.out[n:]
	return n, nil
}

func (m *markReader) step() error {
	if _, err := m.r.Peek(1); err != nil {
		if err == io.EOF {
			return io.ErrUnexpectedEOF
		}
		return err
	}
	look, _ := m.r.Peek(m.r.Buffered())
	comb := append(m.tail[:len(m.tail):len(m.tail)], look...)
	if i := bytes.Index(comb, m.mark); i >= 0 {
		m.out = append(m.out[:0], comb[:i]...)
		m.r.Discard(i + MarkLen - len(m.tail))
		m.tail, m.done = nil, true
		return nil
	}
	keep := min(len(comb), MarkLen)
	m.out = append(m.out[:0], comb[:len(comb)-keep]...)
	m.tail = append([]byte(nil), comb[len(comb)-keep:]...)
	m.r.Discard(len(look))
	return nil
}
