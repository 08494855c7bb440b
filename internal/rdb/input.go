package rdb

import (
	"errors"
	"io"

	"github.com/corvid-kv/corvid/internal/ds"
)

// input is the reader's byte source: a buffer over an io.Reader (or a
// whole []byte) that knows the offset of every byte and keeps a running
// CRC64 of the bytes consumed. Reads of lengths taken from the input grow
// their result as data arrives, so a forged length costs an error at the
// end of the input, not an allocation.
type input struct {
	r      io.Reader // nil: buf is the whole input
	exact  bool      // r is an io.ByteReader: read no byte past those asked for
	buf    []byte
	pos    int   // next unread byte of buf
	base   int64 // input offset of buf[0]
	crcPos int   // buf[:crcPos] is included in crc
	crc    uint64
	rerr   error // read error other than io.EOF
}

const chunk = 32 << 10

func newInput(r io.Reader) *input {
	_, exact := r.(io.ByteReader)
	return &input{r: r, exact: exact, buf: make([]byte, 0, chunk)}
}

func bytesInput(b []byte) *input { return &input{buf: b} }

// offset is the input offset of the next unread byte.
func (in *input) offset() int64 { return in.base + int64(in.pos) }

// corrupt returns a FormatError at offset off.
func corrupt(off int64, msg string) error {
	return &FormatError{Offset: off, Msg: msg, Err: ErrCorrupt}
}

// fill makes at least n (<= chunk) unread bytes available if the input
// has them.
func (in *input) fill(n int) bool {
	if len(in.buf)-in.pos >= n {
		return true
	}
	if in.r == nil || in.rerr != nil {
		return false
	}
	// Account the consumed bytes in the CRC, then drop them.
	in.crc = ds.CRC64(in.crc, in.buf[in.crcPos:in.pos])
	rest := copy(in.buf[:cap(in.buf)], in.buf[in.pos:])
	in.base += int64(in.pos)
	in.buf, in.pos, in.crcPos = in.buf[:rest], 0, 0
	for empty := 0; len(in.buf) < n; {
		end := cap(in.buf)
		if in.exact {
			// A buffered reader: small reads are cheap, and the bytes
			// after the RDB (an AOF's commands) stay in it.
			end = n
		}
		m, err := in.r.Read(in.buf[len(in.buf):end])
		in.buf = in.buf[:len(in.buf)+m]
		if m == 0 && err == nil {
			if empty++; empty >= 100 { // as bufio: a reader that never makes progress
				in.rerr = io.ErrNoProgress
				return false
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				in.rerr = err
			} else if m == 0 {
				in.rerr = io.EOF
			}
			if len(in.buf) < n {
				return false
			}
		}
	}
	return true
}

// short is the error for input that ended (or failed) before n more bytes.
func (in *input) short(what string) error {
	if in.rerr != nil && !errors.Is(in.rerr, io.EOF) {
		return in.rerr
	}
	return corrupt(in.base+int64(len(in.buf)), "unexpected end of input reading "+what)
}

func (in *input) readByte(what string) (byte, error) {
	if !in.fill(1) {
		return 0, in.short(what)
	}
	c := in.buf[in.pos]
	in.pos++
	return c, nil
}

// next consumes and returns the next n (<= chunk) bytes; they alias the
// buffer and are valid until the next read.
func (in *input) next(n int, what string) ([]byte, error) {
	if !in.fill(n) {
		return nil, in.short(what)
	}
	b := in.buf[in.pos : in.pos+n]
	in.pos += n
	return b, nil
}

// readN returns the next n bytes in a fresh slice.
func (in *input) readN(n uint64, what string) ([]byte, error) {
	if in.r == nil {
		if n > uint64(len(in.buf)-in.pos) {
			return nil, in.short(what)
		}
		b := make([]byte, n)
		copy(b, in.buf[in.pos:])
		in.pos += int(n)
		return b, nil
	}
	out := make([]byte, 0, min(n, chunk))
	for uint64(len(out)) < n {
		if !in.fill(int(min(n-uint64(len(out)), chunk))) && !in.fill(1) {
			return nil, in.short(what)
		}
		take := min(uint64(len(in.buf)-in.pos), n-uint64(len(out)))
		out = append(out, in.buf[in.pos:in.pos+int(take)]...)
		in.pos += int(take)
	}
	return out, nil
}

// sum is the CRC64 of every byte consumed so far.
func (in *input) sum() uint64 {
	in.crc = ds.CRC64(in.crc, in.buf[in.crcPos:in.pos])
	in.crcPos = in.pos
	return in.crc
}
