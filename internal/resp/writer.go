package resp

import (
	"math"
	"slices"
	"strconv"
	"strings"
)

// Writer accumulates replies so a whole pipeline is answered with a
// single write. Proto selects RESP2 (2) or RESP3 (3) encodings for the
// types RESP2 lacks.
//
// By default the output is one buffer that grows as needed. With
// SetBlockSize, output past the block size goes to a list of blocks
// instead (see the package doc, "Reply blocks"): a reply of millions of
// elements is then never copied to a larger buffer, and the blocks are
// handed to the connection as they are.
type Writer struct {
	buf   []byte // the block being filled (the only one without blocks)
	Proto int

	// limit bounds the output for string payloads (SetLimit); over
	// records that a payload was refused for it.
	limit int
	over  bool
	// blockSize is the block size (SetBlockSize); 0: one buffer (an
	// int32 beside over: a Writer per client, in the 80-byte class).
	// blocks are the full blocks before buf, oldest first, and spilled
	// the number of bytes in them.
	blockSize int32
	blocks    [][]byte
	spilled   int
}

// NewWriter returns a RESP2 writer with a preallocated buffer.
func NewWriter(size int) *Writer {
	return &Writer{buf: make([]byte, 0, size), Proto: 2, limit: math.MaxInt}
}

// SetBlockSize makes output that does not fit in the current buffer
// start a new block of n bytes (or of the payload's size, if larger)
// once the buffer holds more than n, instead of moving everything to a
// larger buffer; n <= 0 goes back to one growing buffer for what is
// written next.
func (w *Writer) SetBlockSize(n int) { w.blockSize = int32(min(max(0, n), 1<<30)) }

// SetLimit makes the writer refuse any string payload (Bulk, BulkString,
// Raw) that would take the pending output past n bytes, so that a reply
// over a client's output buffer limit is never materialized; a refusal
// sets Overflowed and the reply is then incomplete: the caller must drop
// the output and close the connection. n < 0 removes the limit.
func (w *Writer) SetLimit(n int) {
	if n < 0 {
		n = math.MaxInt
	}
	w.limit = n
}

// Overflowed reports whether a payload was refused for the limit. It
// stays set.
func (w *Writer) Overflowed() bool { return w.over }

// fits reports whether n more bytes stay within the limit, and records a
// refusal otherwise.
func (w *Writer) fits(n int) bool {
	if w.spilled+len(w.buf)+n <= w.limit {
		return true
	}
	w.over = true
	return false
}

// reserve makes room for n more bytes in buf: the one check every write
// makes before it appends.
func (w *Writer) reserve(n int) {
	if cap(w.buf)-len(w.buf) < n {
		w.grow(n)
	}
}

// grow is reserve's slow path: buf grows as append would grow it while
// there are no blocks or it stays within a block; otherwise it becomes a
// full block and a new one starts.
func (w *Writer) grow(n int) {
	if w.blockSize == 0 || len(w.buf) == 0 || len(w.buf)+n <= int(w.blockSize) {
		w.buf = slices.Grow(w.buf, n)
		return
	}
	w.blocks = append(w.blocks, w.buf)
	w.spilled += len(w.buf)
	w.buf = make([]byte, 0, max(n, int(w.blockSize)))
}

// Bytes returns the pending output as one slice; valid until the next
// write or Reset. With blocks it first copies them into one buffer: the
// connection's writer uses Blocks and Tail instead.
func (w *Writer) Bytes() []byte {
	if len(w.blocks) > 0 {
		b := w.appendFrom(make([]byte, 0, w.Len()), 0)
		clear(w.blocks)
		w.blocks, w.spilled = w.blocks[:0], 0
		w.buf = b
	}
	return w.buf
}

// Blocks returns the full blocks of pending output, oldest first; Tail
// follows them. The caller may hand them on (to a connection that keeps
// them until sent): the writer never writes to them again once they are
// full, and Reset forgets them. Valid until the next write or Reset.
func (w *Writer) Blocks() [][]byte { return w.blocks }

// Tail is the pending output after the blocks (all of it without any).
func (w *Writer) Tail() []byte { return w.buf }

// Len is the number of pending bytes.
func (w *Writer) Len() int { return w.spilled + len(w.buf) }

// Cap is the memory the pending output occupies (the buffer and the
// blocks).
func (w *Writer) Cap() int {
	n := cap(w.buf)
	for _, b := range w.blocks {
		n += cap(b)
	}
	return n
}

// At returns the byte at offset i of the pending output.
func (w *Writer) At(i int) byte {
	if i >= w.spilled {
		return w.buf[i-w.spilled]
	}
	for _, b := range w.blocks {
		if i < len(b) {
			return b[i]
		}
		i -= len(b)
	}
	panic("resp: Writer.At out of range")
}

// From returns the pending output from offset mark on, valid until the
// next write or Reset: a slice of the buffer when mark is in it (a reply
// that started in the last block), else a copy.
func (w *Writer) From(mark int) []byte {
	if mark >= w.spilled {
		return w.buf[mark-w.spilled:]
	}
	return w.appendFrom(make([]byte, 0, w.Len()-mark), mark)
}

// CopyFrom returns a copy of the pending output from offset mark on.
func (w *Writer) CopyFrom(mark int) []byte {
	return w.appendFrom(make([]byte, 0, w.Len()-mark), mark)
}

// appendFrom appends the pending output from offset mark on to dst.
func (w *Writer) appendFrom(dst []byte, mark int) []byte {
	for _, b := range w.blocks {
		if mark < len(b) {
			dst = append(dst, b[mark:]...)
			mark = 0
		} else {
			mark -= len(b)
		}
	}
	return append(dst, w.buf[mark:]...)
}

// Reset discards pending output, keeping the buffer; blocks are
// forgotten (they may have been handed on: Blocks).
func (w *Writer) Reset() {
	if len(w.blocks) > 0 {
		clear(w.blocks)
		w.blocks, w.spilled = w.blocks[:0], 0
	}
	w.buf = w.buf[:0]
}

// Truncate drops output written after offset n (used to discard a partial
// reply, e.g. CLIENT REPLY OFF). The block holding offset n becomes the
// buffer being filled again.
func (w *Writer) Truncate(n int) {
	if n >= w.spilled {
		w.buf = w.buf[:n-w.spilled]
		return
	}
	off := 0
	for i, b := range w.blocks {
		if n <= off+len(b) {
			w.buf = b[:n-off]
			clear(w.blocks[i:])
			w.blocks, w.spilled = w.blocks[:i], off
			return
		}
		off += len(b)
	}
}

// Shrink releases a buffer that grew past max after a huge reply, and
// reports whether it did.
func (w *Writer) Shrink(max int) bool {
	if cap(w.buf) > max && w.Len() == 0 {
		w.buf = make([]byte, 0, max/4)
		return true
	}
	return false
}

// Raw appends pre-encoded protocol bytes.
func (w *Writer) Raw(b []byte) {
	if w.fits(len(b)) {
		w.reserve(len(b))
		w.buf = append(w.buf, b...)
	}
}

// maxHeader bounds what header appends: a type byte, a sign, 19 digits
// and CRLF.
const maxHeader = 24

// header writes c, n in decimal and CRLF: the type byte and length (or
// value) line every reply starts with. It formats right to left into a
// stack buffer, two digits per step, and appends once: every integer
// reply and bulk header goes through here (BenchmarkWriterBulk: 1.5x
// faster than three appends around strconv.AppendInt).
func (w *Writer) header(c byte, n int64) {
	w.reserve(maxHeader)
	if uint64(n) < 10 {
		w.buf = append(w.buf, c, byte('0'+n), '\r', '\n')
		return
	}
	var tmp [24]byte
	i := len(tmp) - 2
	tmp[i], tmp[i+1] = '\r', '\n'
	u := uint64(n)
	if n < 0 {
		u = -u
	}
	for u >= 100 {
		d := (u % 100) * 2
		u /= 100
		i -= 2
		tmp[i], tmp[i+1] = digitPairs[d], digitPairs[d+1]
	}
	if u >= 10 {
		i -= 2
		tmp[i], tmp[i+1] = digitPairs[u*2], digitPairs[u*2+1]
	} else {
		i--
		tmp[i] = byte('0' + u)
	}
	if n < 0 {
		i--
		tmp[i] = '-'
	}
	i--
	tmp[i] = c
	w.buf = append(w.buf, tmp[i:]...)
}

const digitPairs = "00010203040506070809" +
	"10111213141516171819" +
	"20212223242526272829" +
	"30313233343536373839" +
	"40414243444546474849" +
	"50515253545556575859" +
	"60616263646566676869" +
	"70717273747576777879" +
	"80818283848586878889" +
	"90919293949596979899"

// Simple writes a status reply: +s.
func (w *Writer) Simple(s string) {
	w.reserve(len(s) + 3)
	w.buf = append(w.buf, '+')
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\r', '\n')
}

// OK writes +OK.
func (w *Writer) OK() {
	w.reserve(5)
	w.buf = append(w.buf, "+OK\r\n"...)
}

// Error writes an error reply. msg excludes the leading '-' and must carry
// its own code ("ERR ...", "WRONGTYPE ..."). Newlines would break framing:
// as Valkey's addReplyErrorFormat, those that end msg (an echoed argument's)
// are dropped and the others replaced by spaces.
func (w *Writer) Error(msg string) {
	msg = strings.TrimRight(msg, "\r\n")
	w.reserve(len(msg) + 3)
	w.buf = append(w.buf, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.buf = append(w.buf, c)
	}
	w.buf = append(w.buf, '\r', '\n')
}

// Int writes :n.
func (w *Writer) Int(n int64) {
	if n >= 0 && n < int64(len(smallInts)) {
		w.reserve(5)
		w.buf = append(w.buf, smallInts[n]...)
		return
	}
	w.header(':', n)
}

// Bulk writes a bulk string.
func (w *Writer) Bulk(b []byte) {
	if !w.fits(len(b)) {
		return
	}
	w.reserve(len(b) + maxHeader + 2)
	w.header('$', int64(len(b)))
	w.buf = append(w.buf, b...)
	w.buf = append(w.buf, '\r', '\n')
}

// BulkString writes a bulk string from a Go string.
func (w *Writer) BulkString(s string) {
	if !w.fits(len(s)) {
		return
	}
	w.reserve(len(s) + maxHeader + 2)
	w.header('$', int64(len(s)))
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, '\r', '\n')
}

// BulkInt writes an integer as a bulk string (as Valkey does for e.g. LPOS
// in some paths and for CONFIG GET values).
func (w *Writer) BulkInt(n int64) {
	var tmp [24]byte
	b := strconv.AppendInt(tmp[:0], n, 10)
	w.Bulk(b)
}

// Null writes the null bulk string: $-1 in RESP2, _ in RESP3.
func (w *Writer) Null() {
	w.reserve(5)
	if w.Proto >= 3 {
		w.buf = append(w.buf, "_\r\n"...)
		return
	}
	w.buf = append(w.buf, "$-1\r\n"...)
}

// NullArray writes the null array: *-1 in RESP2, _ in RESP3.
func (w *Writer) NullArray() {
	w.reserve(5)
	if w.Proto >= 3 {
		w.buf = append(w.buf, "_\r\n"...)
		return
	}
	w.buf = append(w.buf, "*-1\r\n"...)
}

// ArrayLen starts an array of n elements.
func (w *Writer) ArrayLen(n int) {
	if n >= 0 && n < len(smallArrays) {
		w.reserve(5)
		w.buf = append(w.buf, smallArrays[n]...)
		return
	}
	w.header('*', int64(n))
}

// MapLen starts a map of n pairs (a flat array of 2n in RESP2).
func (w *Writer) MapLen(n int) {
	if w.Proto >= 3 {
		w.header('%', int64(n))
		return
	}
	w.ArrayLen(2 * n)
}

// SetLen starts a set (an array in RESP2).
func (w *Writer) SetLen(n int) {
	if w.Proto >= 3 {
		w.header('~', int64(n))
		return
	}
	w.ArrayLen(n)
}

// PushLen starts an out-of-band push (an array in RESP2).
func (w *Writer) PushLen(n int) {
	if w.Proto >= 3 {
		w.header('>', int64(n))
		return
	}
	w.ArrayLen(n)
}

// AttrLen starts an attribute map (RESP3 only; callers skip it in RESP2).
func (w *Writer) AttrLen(n int) { w.header('|', int64(n)) }

// Double writes a float: ",f" in RESP3, a bulk string in RESP2. The text is
// the shortest representation that round-trips, as Valkey 8's fpconv_dtoa
// (Redis 7.0 printed %.17g instead; see tests/compat/differences.go).
func (w *Writer) Double(f float64) {
	var tmp [32]byte
	b := AppendDouble(tmp[:0], f)
	if w.Proto >= 3 {
		w.reserve(len(b) + 3)
		w.buf = append(w.buf, ',')
		w.buf = append(w.buf, b...)
		w.buf = append(w.buf, '\r', '\n')
		return
	}
	w.Bulk(b)
}

// Bool writes #t/#f in RESP3 and :1/:0 in RESP2.
func (w *Writer) Bool(b bool) {
	if w.Proto >= 3 {
		w.reserve(4)
		if b {
			w.buf = append(w.buf, "#t\r\n"...)
		} else {
			w.buf = append(w.buf, "#f\r\n"...)
		}
		return
	}
	if b {
		w.Int(1)
	} else {
		w.Int(0)
	}
}

// BigNumber writes a RESP3 big number, a bulk string in RESP2.
func (w *Writer) BigNumber(s string) {
	if w.Proto >= 3 {
		w.reserve(len(s) + 3)
		w.buf = append(w.buf, '(')
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// Verbatim writes a RESP3 verbatim string ("txt", "mkd"); a bulk string in RESP2.
func (w *Writer) Verbatim(format, s string) {
	if w.Proto >= 3 {
		if !w.fits(len(s)) {
			return
		}
		w.reserve(len(s) + len(format) + maxHeader + 3)
		w.header('=', int64(len(s)+4))
		w.buf = append(w.buf, format...)
		w.buf = append(w.buf, ':')
		w.buf = append(w.buf, s...)
		w.buf = append(w.buf, '\r', '\n')
		return
	}
	w.BulkString(s)
}

// BulkStrings writes an array of bulk strings.
func (w *Writer) BulkStrings(ss []string) {
	w.ArrayLen(len(ss))
	for _, s := range ss {
		w.BulkString(s)
	}
}

var smallInts, smallArrays [64][]byte

func init() {
	for i := range smallInts {
		smallInts[i] = []byte(":" + strconv.Itoa(i) + "\r\n")
		smallArrays[i] = []byte("*" + strconv.Itoa(i) + "\r\n")
	}
}

// Resize gives an empty writer a new buffer of capacity n (the client's
// reply buffer resizing); it does nothing while output is pending.
func (w *Writer) Resize(n int) {
	if w.Len() == 0 && cap(w.buf) != n {
		w.buf = make([]byte, 0, n)
	}
}
