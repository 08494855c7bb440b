package resp

import (
	"errors"
	"io"
)

// Limits from Valkey's networking.c.
const (
	// InlineMax bounds an inline command line and any count line.
	InlineMax = 64 * 1024
	// unauthMultibulk and unauthBulk bound what an unauthenticated client may send.
	unauthMultibulk = 10
	unauthBulk      = 16384
	minBuffer       = 16 * 1024
)

// ProtocolError is a malformed request. Its text is the reply Valkey sends
// (without the "ERR " code) before it closes the connection.
type ProtocolError string

func (e ProtocolError) Error() string { return string(e) }

// ErrQueryBufferLimit means the client exceeded client-query-buffer-limit;
// Valkey closes such a client without a reply.
var ErrQueryBufferLimit = errors.New("resp: query buffer limit reached")

// Reader parses requests (multibulk and inline) from a growable buffer.
type Reader struct {
	buf  []byte
	r, w int      // unread data is buf[r:w]
	need int      // bytes the pending command needs in all; 0 if unknown
	argv [][]byte // reused between commands

	// MaxBulk is proto-max-bulk-len; MaxQuery is client-query-buffer-limit.
	MaxBulk  int64
	MaxQuery int64
	// Unauthenticated applies Valkey's tighter limits for clients that have
	// not authenticated yet when a password is required.
	Unauthenticated bool
	// Inline reports whether the last command was sent in inline form.
	Inline bool
}

// NewReader returns a Reader with Valkey's default limits.
func NewReader() *Reader {
	return &Reader{buf: make([]byte, minBuffer), MaxBulk: 512 << 20, MaxQuery: 1 << 30}
}

// Buffered is the number of unparsed bytes.
func (r *Reader) Buffered() int { return r.w - r.r }

// Cap is the buffer's size, reported as qbuf in CLIENT LIST.
func (r *Reader) Cap() int { return len(r.buf) }

// Fill reads more data from src. It first compacts the buffer (which
// invalidates every argv slice handed out before) and grows it when the
// pending command is larger than the buffer.
func (r *Reader) Fill(src io.Reader) (int, error) {
	if r.r > 0 {
		n := copy(r.buf, r.buf[r.r:r.w])
		r.r, r.w = 0, n
	}
	if r.w == len(r.buf) || r.need > len(r.buf) {
		size := 2 * len(r.buf)
		if r.need > size {
			size = r.need
		}
		if int64(size) > r.MaxQuery && int64(r.w) >= r.MaxQuery {
			return 0, ErrQueryBufferLimit
		}
		nb := make([]byte, size)
		copy(nb, r.buf[:r.w])
		r.buf = nb
	} else if r.w == 0 && len(r.buf) > 4*minBuffer*16 {
		// Give back a buffer a big request left behind.
		r.buf = make([]byte, minBuffer)
	}
	n, err := src.Read(r.buf[r.w:])
	r.w += n
	if int64(r.w-r.r) > r.MaxQuery {
		// Valkey closes a client whose pending query exceeds
		// client-query-buffer-limit: the request can never complete.
		return n, ErrQueryBufferLimit
	}
	return n, err
}

// Feed appends raw bytes (tests, AOF loading).
func (r *Reader) Feed(b []byte) {
	if r.r > 0 {
		n := copy(r.buf, r.buf[r.r:r.w])
		r.r, r.w = 0, n
	}
	for len(r.buf)-r.w < len(b) {
		nb := make([]byte, 2*len(r.buf)+len(b))
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	r.w += copy(r.buf[r.w:], b)
}

// Next parses one command. It returns (nil, nil) when the buffer holds no
// complete command. Empty commands (blank inline lines, "*0") are skipped.
// The returned slice and its elements are valid until the next Fill.
func (r *Reader) Next() ([][]byte, error) {
	for r.r < r.w {
		start := r.r
		var argv [][]byte
		var err error
		if r.buf[r.r] == '*' {
			r.Inline = false
			argv, err = r.multibulk()
		} else {
			r.Inline = true
			argv, err = r.inline()
		}
		if err != nil {
			return nil, err
		}
		if len(argv) > 0 {
			return argv, nil
		}
		if r.r == start {
			return nil, nil // incomplete
		}
	}
	return nil, nil
}

// multibulk parses "*N\r\n$L\r\n...". It commits r.r only when the whole
// command is present, so a partial command is simply parsed again later.
func (r *Reader) multibulk() ([][]byte, error) {
	p := r.r
	n, next, ok := r.line(p + 1)
	if !ok {
		if r.w-p > InlineMax {
			return nil, ProtocolError("Protocol error: too big mbulk count string")
		}
		return nil, nil
	}
	count, valid := parseInt(r.buf[p+1 : n])
	if !valid || count > 1<<31-1 {
		return nil, ProtocolError("Protocol error: invalid multibulk length")
	}
	if r.Unauthenticated && count > unauthMultibulk {
		return nil, ProtocolError("Protocol error: unauthenticated multibulk length")
	}
	p = next
	if count <= 0 {
		r.r = p
		r.argv = r.argv[:0]
		return r.argv, nil
	}
	argv := r.argv[:0]
	for i := int64(0); i < count; i++ {
		if p >= r.w {
			return r.incomplete(0)
		}
		if r.buf[p] != '$' {
			return nil, ProtocolError("Protocol error: expected '$', got '" + string(r.buf[p]) + "'")
		}
		e, next, ok := r.line(p + 1)
		if !ok {
			if r.w-p > InlineMax {
				return nil, ProtocolError("Protocol error: too big bulk count string")
			}
			return r.incomplete(0)
		}
		size, valid := parseInt(r.buf[p+1 : e])
		if !valid || size < 0 || size > r.MaxBulk {
			return nil, ProtocolError("Protocol error: invalid bulk length")
		}
		if r.Unauthenticated && size > unauthBulk {
			return nil, ProtocolError("Protocol error: unauthenticated bulk length")
		}
		end := next + int(size)
		if end+2 > r.w {
			// Size the buffer for the rest of this command's known part.
			return r.incomplete(end + 2 - r.r)
		}
		argv = append(argv, r.buf[next:end:end])
		p = end + 2
	}
	r.argv = argv
	r.r = p
	r.need = 0
	return argv, nil
}

func (r *Reader) incomplete(need int) ([][]byte, error) {
	r.need = need
	return nil, nil
}

// line finds the "\r" ending a count line that starts at p. It returns the
// index of '\r' and of the first byte after "\r\n".
func (r *Reader) line(p int) (end, next int, ok bool) {
	for i := p; i < r.w; i++ {
		if r.buf[i] == '\r' {
			if i+1 >= r.w {
				return 0, 0, false
			}
			return i, i + 2, true
		}
	}
	return 0, 0, false
}

// inline parses a telnet-style command line split like sdssplitargs.
func (r *Reader) inline() ([][]byte, error) {
	p := r.r
	nl := -1
	for i := p; i < r.w; i++ {
		if r.buf[i] == '\n' {
			nl = i
			break
		}
	}
	if nl < 0 {
		if r.w-p > InlineMax {
			return nil, ProtocolError("Protocol error: too big inline request")
		}
		return nil, nil
	}
	end := nl
	if end > p && r.buf[end-1] == '\r' {
		end--
	}
	argv, ok := SplitArgs(r.argv[:0], r.buf[p:end])
	if !ok {
		return nil, ProtocolError("Protocol error: unbalanced quotes in request")
	}
	r.argv = argv
	r.r = nl + 1
	return argv, nil
}

// parseInt parses a decimal integer the way Valkey's string2ll accepts it
// in count lines: optional '-', digits only, no overflow.
func parseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	neg := false
	if b[0] == '-' {
		neg = true
		b = b[1:]
		if len(b) == 0 {
			return 0, false
		}
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		if n > (1<<63-1-int64(c-'0'))/10 {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}
