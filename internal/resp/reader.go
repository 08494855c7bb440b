package resp

import (
	"bytes"
	"errors"
	"io"
	"math"
	"sync"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Limits from Valkey's networking.c and server.h.
const (
	// InlineMax bounds an inline command line and any count line
	// (PROTO_INLINE_MAX_SIZE).
	InlineMax = 64 * 1024
	// DefaultReadChunk is how much Fill reads at most by default, Valkey's
	// PROTO_IOBUF_LEN. It equals the initial buffer, so a client whose
	// buffer was grown by one big command reads no more per round than a
	// fresh one; and 16 KiB of pipelined small commands (a few hundred)
	// is as much as one client runs before the others on its loop get a
	// turn. (64 KiB would save syscalls only for clients that pipeline
	// more than 16 KiB at once, which are also the ones that starve the
	// rest; a pending big bulk is read in one go regardless.)
	DefaultReadChunk = 16 * 1024
	// BigArg is the length from which a bulk that is not whole in the
	// buffer when its length is parsed is read into a buffer of its own
	// (Owned), Valkey's PROTO_MBULK_BIG_ARG.
	BigArg = 32 * 1024

	// unauthMultibulk and unauthBulk bound what an unauthenticated client may
	// send; unauthQuery is its client-query-buffer-limit.
	unauthMultibulk = 10
	unauthBulk      = 16384
	unauthQuery     = 1 << 20
	minBuffer       = 16 * 1024
	// shrinkAbove: an empty buffer larger than this is given back.
	shrinkAbove = 1 << 20
	// argvInit caps the arguments preallocated for a declared count, as
	// Valkey's min(multibulklen, 1024); beyond it the argument list grows
	// as arguments arrive. A list grown past argvKeep by one command is
	// dropped when the next command starts.
	argvInit = 1024
	argvKeep = 4 * argvInit
	maxCount = math.MaxInt32 // Valkey: a count over INT_MAX is invalid
)

// ProtocolError is a malformed request. Its text is the reply Valkey sends
// (without the "ERR " code) before it closes the connection.
type ProtocolError string

func (e ProtocolError) Error() string { return string(e) }

// Protocol errors, with Valkey's texts.
const (
	errBigInline    = ProtocolError("Protocol error: too big inline request")
	errBigMbulk     = ProtocolError("Protocol error: too big mbulk count string")
	errBigBulkCount = ProtocolError("Protocol error: too big bulk count string")
	errMbulkLen     = ProtocolError("Protocol error: invalid multibulk length")
	errBulkLen      = ProtocolError("Protocol error: invalid bulk length")
	errUnauthMbulk  = ProtocolError("Protocol error: unauthenticated multibulk length")
	errUnauthBulk   = ProtocolError("Protocol error: unauthenticated bulk length")
	errUnbalanced   = ProtocolError("Protocol error: unbalanced quotes in request")
)

// ErrQueryBufferLimit means the client exceeded client-query-buffer-limit;
// Valkey closes such a client without a reply.
var ErrQueryBufferLimit = errors.New("resp: query buffer limit reached")

// Reader parses requests (multibulk and inline) from a growable buffer.
//
// It keeps its position in a command across calls, as Valkey does with
// multibulklen and bulklen: a command that arrives over many reads is
// parsed once, not again from its start on every call; each byte of its
// count lines is examined at most twice (see fastMultibulk) and its bulk
// data not at all. The offsets of the arguments read so far are kept
// relative to the command's start, so compacting or growing the buffer
// leaves them valid; argv is built from them when the command is complete.
//
// Fill reads at most ReadChunk bytes, unless the bulk being read needs
// more, when it reads up to the rest of that bulk (with the buffer grown to
// hold it in one allocation). A client therefore gets through at most
// ReadChunk bytes of pipelined commands per Fill, however large a past
// command made its buffer.
//
// The whole pending command must fit in the query buffer limit (MaxQuery,
// or 1 MB while Unauthenticated): Fill fails with ErrQueryBufferLimit when
// the unparsed input exceeds it, and Next as soon as a declared bulk length
// makes the command longer than that, before the data arrives.
type Reader struct {
	buf  []byte
	r, w int // unread data is buf[r:w]; the pending command starts at r

	// The pending command's parse state; offsets are relative to r.
	// kind (with the flags at the end) is 0 before its first byte is
	// seen, '*' multibulk, 'i' inline.
	pos  int   // the first byte not parsed yet
	scan int   // where the search for the current line's end resumes
	bulk int   // length of the bulk being read, -1 before its $ line
	offs []int // start and end of each argument read so far
	need int   // end of the bulk being read, with its CRLF; 0 if none
	err  error // sticky: the error Next returned
	// left: arguments still to read (Valkey's multibulklen, an int
	// there too); steps: bytes examined by line searches plus arguments
	// read (for a test; it wraps on a long connection).
	left, steps int32

	argv [][]byte // reused between commands

	// bigs: arguments read into buffers of their own (BigArg), nil when
	// the pending command and the last one returned have none.
	bigs *bigArgs

	// peak: the largest buffer not from the pool held since TakePeak.
	peak int
	// parsed: the total length of the pending command's arguments read
	// so far (Parsed), kept as they are read: the client asks after
	// every read, and summing offs then made a command of n arguments
	// cost O(n^2).
	parsed int

	// MaxBulk is proto-max-bulk-len; MaxQuery is client-query-buffer-limit.
	MaxBulk  int64
	MaxQuery int64
	// ReadChunk bounds one Fill's read (DefaultReadChunk when zero).
	ReadChunk int
	// Unauthenticated applies Valkey's tighter limits for clients that have
	// not authenticated yet when a password is required.
	Unauthenticated bool
	// Inline reports whether the last command was sent in inline form.
	Inline bool

	// The byte-sized fields together, after the exported ones (no
	// padding after each: a Reader per connection, issue 32). pooled:
	// buf came from bufPool (and goes back there when released). short:
	// the last Fill's read returned less than it asked for, so the
	// source had nothing more at that moment.
	kind   byte
	pooled bool
	short  bool
	// bigArg is BigArg, or another length a test sets (0: never).
	bigArg uint16
}

// bigArgs holds the arguments of a command that are read into buffers
// of their own. A bulk of BigArg bytes or more that is not whole in the
// read buffer when its length is parsed goes to a buffer of exactly its
// length and CRLF, rounded up to what the allocator hands out: its bytes
// so far move there, and reads go there until it is complete. The
// pending command's offsets name such an argument as -1-k (its index in
// pend) and its length.
type bigArgs struct {
	cur  []byte   // the bulk being read: its bytes so far, CRLF at most
	pend [][]byte // the pending command's complete ones, with their buffers' capacity
	own  [][]byte // Owned's answer for the last command returned
}

// The read buffer.
//
// A Reader holds no buffer until it reads (NewReader). Fill then takes one
// of minBuffer bytes from bufPool, shared by every Reader of the process,
// and Release gives it back once every command in it has run, so a
// connection that waits for its next request holds none, as Valkey 8.0
// reads every client into its thread's shared query buffer
// (thread_shared_qb). A command that is still incomplete when the batch
// ends keeps the buffer it is in, and reads its rest into it (no copy
// beyond Fill's usual compaction, as Valkey copies only the remainder of
// an incomplete command into the client's private buffer); a command
// larger than minBuffer grows a buffer of its own, which is dropped when
// it has run. Trim shrinks the buffer of an incomplete command to its
// bytes, as Valkey's cron does for a client idle for 2 s.
var bufPool = sync.Pool{New: func() any { return new([minBuffer]byte) }}

// NewReader returns a Reader with Valkey's default limits, holding no
// buffer yet.
func NewReader() *Reader {
	return &Reader{bulk: -1, MaxBulk: 512 << 20, MaxQuery: 1 << 30, ReadChunk: DefaultReadChunk, bigArg: BigArg}
}

// Buffered is the number of unparsed bytes, counted from the start of the
// pending command (those of its arguments in buffers of their own
// included).
func (r *Reader) Buffered() int {
	n, _ := r.held()
	return r.w - r.r + n
}

// held is the pending command's input outside the read buffer: the bytes
// of its arguments in buffers of their own (with their CRLFs) and of the
// bulk being read into one, and the capacity of those buffers.
func (r *Reader) held() (n, size int) {
	if r.bigs == nil {
		return 0, 0
	}
	for _, a := range r.bigs.pend {
		n += len(a) + 2
		size += cap(a)
	}
	return n + len(r.bigs.cur), size + cap(r.bigs.cur)
}

// cur is the buffer of the big bulk being read (nil when none is).
func (r *Reader) cur() []byte {
	if r.bigs == nil {
		return nil
	}
	return r.bigs.cur
}

// Cap is the size of the buffers holding input (0 while the Reader holds
// none): the read buffer and those of a pending command's big arguments.
func (r *Reader) Cap() int {
	_, size := r.held()
	return len(r.buf) + size
}

// Pending is the pending command's bytes not parsed into arguments yet,
// Valkey's qbuf in CLIENT LIST (Valkey drops the parsed part of an
// incomplete command from its query buffer; its arguments are counted in
// argv-mem). The bytes of a big bulk read so far count.
func (r *Reader) Pending() int { return r.w - r.r - r.pos + len(r.cur()) }

// Parsed is the total length of the pending command's arguments parsed
// so far (Valkey's argv-mem of a client whose command is incomplete).
func (r *Reader) Parsed() int { return r.parsed }

// Free is the room for more input, Valkey's qbuf-free: the read buffer's
// (0 while the Reader holds none), or while a big bulk is being read into
// a buffer of its own, that buffer's.
func (r *Reader) Free() int {
	if b := r.cur(); b != nil {
		return cap(b) - len(b)
	}
	return len(r.buf) - (r.w - r.r)
}

// Owned returns, for the last command Next returned, nil when every
// argument aliases the read buffer; otherwise a slice as long as its
// argv whose element i is non-nil when argv[i] was read into a buffer of
// its own (see BigArg): it is argv[i] with its buffer's whole capacity.
// The Reader never reads into or reuses such a buffer again, so the
// caller may keep it (a stored value may adopt it instead of copying
// argv[i]) and write into its spare capacity. The slice is valid until
// the next call to Next.
func (r *Reader) Owned() [][]byte {
	if r.bigs == nil {
		return nil
	}
	return r.bigs.own
}

// TakeOwned returns the element of Owned that holds v (the same bytes,
// not a copy: argv[i] or a prefix of it), with its buffer's whole
// capacity, and forgets it, so that nothing takes it twice; nil when no
// argument of the last command in a buffer of its own is v.
func (r *Reader) TakeOwned(v []byte) []byte {
	own := r.Owned()
	for i, b := range own {
		if b != nil && len(v) == len(b) && unsafe.SliceData(b) == unsafe.SliceData(v) {
			own[i] = nil
			return b
		}
	}
	return nil
}

// bigWant is how many more bytes the bulk being read into a buffer of its
// own needs (0 when none is, or it is complete).
func (r *Reader) bigWant() int {
	b := r.cur()
	if b == nil {
		return 0
	}
	return r.bulk + 2 - len(b)
}

// Release gives the buffer back when no command is pending in it: always
// with idle (the connection has nothing more to read: the caller saw its
// read find nothing, or its loop's tick found it idle), else only when the
// last read was short, because a read that filled what it asked for (a
// pipeline, a large value) is likely followed by more input at once, which
// finds the buffer still there. It reports whether it released one.
func (r *Reader) Release(idle bool) bool {
	if r.buf == nil || r.r != r.w || !idle && !r.short {
		return false
	}
	r.dropBuf()
	return true
}

// dropBuf gives back the buffer, whatever it holds.
func (r *Reader) dropBuf() {
	if r.pooled {
		bufPool.Put((*[minBuffer]byte)(r.buf))
	}
	r.buf, r.pooled, r.r, r.w = nil, false, 0, 0
}

// Trim is Valkey's clientsCronResizeQueryBuffer for a client idle for
// more than 2 s: a buffer with no pending command is given back; one whose
// pending command leaves more than 4 KiB of it unused shrinks to the bytes
// it holds. It reports whether it changed the buffer. With no pending
// command, the argument lists kept for the next command go too (an idle
// client holds nothing but the Reader: issue 32).
func (r *Reader) Trim() bool {
	if r.r == r.w {
		r.argv, r.offs = nil, nil
		if r.buf == nil {
			return false
		}
		r.dropBuf()
		return true
	}
	if len(r.buf)-(r.w-r.r) <= 4<<10 {
		return false
	}
	nb := append([]byte(nil), r.buf[r.r:r.w]...)
	nb = nb[:cap(nb)]
	w := r.w - r.r
	r.dropBuf()
	r.buf, r.w = nb, w
	return true
}

// TakePeak returns the largest buffer of the Reader's own (not from the
// pool) held since the last call, or the buffer it holds now if that is
// larger (a pooled one only while it holds part of a command), and
// restarts the count: Valkey's input-buffer usage for INFO
// client_recent_max_input_buffer.
func (r *Reader) TakePeak() int {
	p := r.peak
	r.peak = 0
	if !r.pooled || r.r != r.w {
		// A pooled buffer counts while an incomplete command holds it.
		p = max(p, len(r.buf))
	}
	if _, size := r.held(); size > 0 {
		p = max(p, size+len(r.buf))
	}
	return p
}

// Reset discards buffered input, the parse state and a sticky error, so
// the Reader can serve a new stream; a large buffer is given back.
func (r *Reader) Reset() {
	r.r, r.w = 0, 0
	r.resetCommand()
	r.err = nil
	if len(r.buf) > shrinkAbove {
		r.dropBuf()
	}
}

// queryLimit is the most bytes the pending command may take, clamped so
// that limit+1 is still an int.
func (r *Reader) queryLimit() int {
	q := r.MaxQuery
	if r.Unauthenticated && q > unauthQuery {
		q = unauthQuery
	}
	if q > math.MaxInt-1 {
		return math.MaxInt - 1
	}
	return int(max(q, 0))
}

// compact moves the unread data to the front of the buffer.
func (r *Reader) compact() {
	if r.r > 0 {
		n := copy(r.buf, r.buf[r.r:r.w])
		r.r, r.w = 0, n
	}
}

// Fill reads more data from src. It first compacts the buffer (which
// invalidates every argv slice handed out before) and grows it when it is
// full or the bulk being read is larger than it. It reads at most
// ReadChunk bytes, or the rest of the bulk being read if that is more.
func (r *Reader) Fill(src io.Reader) (int, error) {
	r.compact()
	limit := r.queryLimit()
	if rest := r.bigWant(); rest > 0 {
		// The rest of a big bulk goes to its own buffer, and nothing
		// beyond it (Valkey reads exactly the remainder too).
		b := r.bigs.cur
		n, err := src.Read(b[len(b) : len(b)+rest])
		r.short = n < rest
		r.bigs.cur = b[:len(b)+n]
		return n, err
	}
	want := r.ReadChunk
	if want <= 0 {
		want = DefaultReadChunk
	}
	if rest := r.need - r.w; rest > want {
		want = rest
	}
	if r.w == len(r.buf) || r.need > len(r.buf) {
		// Double, but not past limit+1 (one byte over the limit is enough
		// to see it exceeded), and at least to the end of the bulk being
		// read (Next made sure that is within the limit).
		size := max(2*len(r.buf), minBuffer)
		if size > limit+1 {
			size = limit + 1
		}
		size = max(size, r.need)
		if size <= r.w {
			return 0, ErrQueryBufferLimit
		}
		var nb []byte
		if size == minBuffer {
			nb = bufPool.Get().(*[minBuffer]byte)[:]
		} else {
			nb = make([]byte, size)
			r.peak = max(r.peak, size)
		}
		copy(nb, r.buf[:r.w])
		w := r.w
		r.dropBuf()
		r.buf, r.pooled, r.w = nb, size == minBuffer, w
	} else if r.w == 0 && len(r.buf) > shrinkAbove {
		// Give back a buffer a big request left behind.
		r.dropBuf()
		r.buf, r.pooled = bufPool.Get().(*[minBuffer]byte)[:], true
	}
	end := len(r.buf)
	if want < end-r.w {
		end = r.w + want
	}
	n, err := src.Read(r.buf[r.w:end])
	r.short = n < end-r.w
	r.w += n
	if r.Buffered() > limit {
		// Valkey closes a client whose pending query exceeds
		// client-query-buffer-limit: the request can never complete.
		return n, ErrQueryBufferLimit
	}
	return n, err
}

// Feed appends raw bytes (tests, AOF loading, input read elsewhere). Like
// Fill it may compact or grow the buffer, invalidating earlier argv.
func (r *Reader) Feed(b []byte) {
	if rest := r.bigWant(); rest > 0 {
		n := min(rest, len(b))
		r.bigs.cur = append(r.bigs.cur, b[:n]...) // within its capacity
		b = b[n:]
	}
	r.compact()
	if len(r.buf)-r.w < len(b) {
		nb := make([]byte, 2*len(r.buf)+len(b))
		copy(nb, r.buf[:r.w])
		w := r.w
		r.dropBuf()
		r.buf, r.w = nb, w
	}
	r.w += copy(r.buf[r.w:], b)
}

// Next parses one command. It returns (nil, nil) when the buffer holds no
// complete command; the part of a command already parsed is not parsed
// again. Empty commands (blank inline lines, "*0", negative counts) are
// skipped. The returned slice is reused by the next call; its elements
// alias the buffer and are valid until the next Fill or Feed.
//
// After an error (a ProtocolError, or ErrQueryBufferLimit for a command
// that cannot fit) the buffered input is dropped and every later call
// returns the same error until Reset.
func (r *Reader) Next() ([][]byte, error) {
	if r.err != nil {
		return nil, r.err
	}
	if r.bigs != nil && r.bigs.own != nil {
		// The last command's big arguments: argv must not keep them
		// alive once their owner is done with them.
		clear(r.argv)
		r.bigs = nil
	}
	for r.r < r.w {
		if r.kind == 0 {
			if cap(r.argv) > argvKeep || cap(r.offs) > 2*argvKeep {
				r.argv, r.offs = nil, nil // a huge command's lists
			}
			if r.buf[r.r] == '*' {
				r.kind = '*'
			} else {
				r.kind = 'i'
			}
			r.Inline = r.kind == 'i'
		}
		var argv [][]byte
		var err error
		done := false
		if r.kind == '*' {
			if r.left == 0 {
				if argv, ok := r.fastMultibulk(); ok {
					return argv, nil
				}
			}
			argv, done, err = r.multibulk()
		} else {
			argv, done, err = r.inline()
		}
		if err != nil {
			r.err = err
			r.r = r.w
			r.resetCommand()
			return nil, err
		}
		if !done {
			return nil, nil
		}
		if len(argv) > 0 {
			return argv, nil
		}
	}
	return nil, nil
}

// resetCommand clears the parse state for the next command.
func (r *Reader) resetCommand() {
	r.kind = 0
	r.pos, r.scan, r.left, r.bulk, r.need = 0, 0, 0, -1, 0
	r.offs = r.offs[:0]
	r.parsed = 0
	r.bigs = nil
}

// finish ends the pending command at offset end.
func (r *Reader) finish(end int) {
	r.r += end
	r.resetCommand()
}

// countLine finds the '\r' ending the count line that starts at b[r.pos]
// ('*' or '$' and a number). Valkey searches with strchr, so a NUL byte
// hides the '\r' for good; and it needs one byte after the '\r', which it
// skips unchecked. It returns -1 while the line is incomplete, with the
// too-big error once more than InlineMax bytes are buffered without an end
// (see lineEnd).
func (r *Reader) countLine(b []byte, tooBig ProtocolError) (int, error) {
	from := max(r.scan, r.pos)
	stop := min(len(b), r.pos+InlineMax+1)
	i := from
	for i < stop && b[i] != '\r' && b[i] != 0 {
		i++
	}
	r.steps += int32(i - from + 1)
	if i < stop && b[i] == '\r' && i+1 < len(b) {
		return i, nil
	}
	r.scan = i // resume here: at the '\r', the NUL, or the end
	if (i == stop || b[i] == 0) && len(b)-r.pos > InlineMax {
		return -1, tooBig
	}
	return -1, nil
}

// multibulk parses "*N\r\n$L\r\n<L bytes>\r\n..." from where the last call
// stopped. The two bytes after a bulk are skipped unchecked, as in Valkey.
func (r *Reader) multibulk() ([][]byte, bool, error) {
	b := r.buf[r.r:r.w]
	if r.left == 0 {
		e, err := r.countLine(b, errBigMbulk)
		if e < 0 {
			return nil, false, err
		}
		count, ok := ParseInt(b[1:e])
		if !ok || count > maxCount {
			return nil, false, errMbulkLen
		}
		if r.Unauthenticated && count > unauthMultibulk {
			return nil, false, errUnauthMbulk
		}
		if count <= 0 {
			r.finish(e + 2)
			return nil, true, nil
		}
		r.pos, r.scan = e+2, e+2
		r.left, r.bulk = int32(count), -1
		if n := 2 * min(int(r.left), argvInit); cap(r.offs) < n {
			r.offs = make([]int, 0, n)
		}
	}
	offs := r.offs
	for r.left > 0 {
		if r.bulk < 0 {
			e, err := r.countLine(b, errBigBulkCount)
			if e < 0 {
				r.offs = offs
				return nil, false, err
			}
			if c := b[r.pos]; c != '$' {
				return nil, false, ProtocolError("Protocol error: expected '$', got '" + string([]byte{c}) + "'")
			}
			size, ok := ParseInt(b[r.pos+1 : e])
			if !ok || size < 0 || size > r.MaxBulk {
				return nil, false, errBulkLen
			}
			if r.Unauthenticated && size > unauthBulk {
				return nil, false, errUnauthBulk
			}
			// The command up to the bulk's end must fit in the query
			// buffer limit; compare without adding to size, which may be
			// close to 2^63.
			held, _ := r.held()
			if size > int64(r.queryLimit()-held-(e+2)-2) {
				return nil, false, ErrQueryBufferLimit
			}
			r.pos = e + 2
			r.bulk = int(size)
		}
		var s, e int // the argument's offsets, or -1-k and its length for pend[k]
		switch {
		case r.cur() != nil:
			bs := r.bigs
			if len(bs.cur) < r.bulk+2 {
				r.offs = offs
				return nil, false, nil
			}
			s, e = -1-len(bs.pend), r.bulk
			bs.pend = append(bs.pend, bs.cur[:r.bulk])
			bs.cur = nil
		case len(b)-r.pos-2 < r.bulk:
			if r.bigArg > 0 && r.bulk >= int(r.bigArg) {
				// A big bulk not here whole: read it into a buffer of
				// its own, which the command may keep (Owned). Its bytes
				// so far move there, and the read buffer ends where it
				// started.
				if r.bigs == nil {
					r.bigs = new(bigArgs)
				}
				cur := make([]byte, 0, ds.AllocSize(r.bulk+2))
				r.bigs.cur = append(cur, b[r.pos:]...)
				r.peak = max(r.peak, cap(cur))
				r.w = r.r + r.pos
				r.scan = r.pos
				r.offs = offs
				return nil, false, nil
			}
			r.need = r.pos + r.bulk + 2
			r.scan = r.pos
			r.offs = offs
			return nil, false, nil
		default:
			s, e = r.pos, r.pos+r.bulk
			r.pos += r.bulk + 2
		}
		if len(offs) == cap(offs) {
			// Double, as Valkey grows argv (append would grow a large
			// list by 1.25x, copying it about 5 times over), but not
			// beyond the arguments the count still allows.
			n := min(max(2*cap(offs), 2*argvInit), len(offs)+2*int(r.left))
			offs = append(make([]int, 0, n), offs...)
		}
		offs = append(offs, s, e)
		r.parsed += r.bulk
		r.scan = r.pos
		r.bulk = -1
		r.left--
	}
	r.steps += int32(len(offs) / 2)
	r.offs = offs
	argv := r.argv[:0]
	if cap(argv) < len(offs)/2 {
		argv = make([][]byte, 0, len(offs)/2)
	}
	base := r.buf[r.r:]
	bs := r.bigs
	var own [][]byte
	if bs != nil {
		own = make([][]byte, len(offs)/2)
	}
	for i := 0; i < len(offs); i += 2 {
		s, e := offs[i], offs[i+1]
		if s < 0 {
			a := bs.pend[-1-s]
			own[i/2] = a
			argv = append(argv, a[:e:e])
			continue
		}
		argv = append(argv, base[s:e:e])
	}
	r.argv = argv
	r.finish(r.pos)
	if bs != nil {
		// Kept for Owned until the next command.
		bs.cur, bs.pend, bs.own = nil, nil, own
		r.bigs = bs
	}
	return argv, true, nil
}

// fastMultibulk parses the pending multibulk command in one pass, keeping
// no state, when all of it is in the buffer and nothing about it needs a
// closer look (the usual case). Otherwise it reports false and multibulk
// parses the command from its start; it then keeps its state, so this is
// tried once per command and linear work stays linear. Anything it accepts
// multibulk accepts the same way.
func (r *Reader) fastMultibulk() ([][]byte, bool) {
	b := r.buf[r.r:r.w]
	count, p, ok := shortLen(b, 1)
	// Each argument takes at least 6 bytes ("$0\r\n\r\n").
	if !ok || count == 0 || count > maxCount || count*6 > len(b)-p || len(b) > r.queryLimit() {
		return nil, false
	}
	maxBulk := r.MaxBulk
	if r.Unauthenticated {
		if count > unauthMultibulk {
			return nil, false
		}
		maxBulk = min(maxBulk, unauthBulk)
	}
	argv := r.argv[:0]
	if cap(argv) < count {
		argv = make([][]byte, 0, count) // count is bounded by the bytes present
	}
	for range count {
		if p >= len(b) || b[p] != '$' {
			r.steps += int32(len(argv))
			return nil, false
		}
		size, q, ok := shortLen(b, p+1)
		if !ok || int64(size) > maxBulk || size > len(b)-q-2 {
			r.steps += int32(len(argv))
			return nil, false
		}
		argv = append(argv, b[q:q+size:q+size])
		p = q + size + 2
	}
	r.argv = argv
	r.steps += int32(count)
	r.r += p
	// Before its count line is parsed (r.left == 0) the only state a
	// command can have is where multibulk's search for the line's end
	// stopped.
	r.kind, r.scan = 0, 0
	return argv, true
}

// shortLen parses the number of a count line at b[i:] for fastMultibulk:
// 1 to 18 digits without a leading zero (or a lone "0"), then '\r' and one
// more byte. It returns the number and the index after the line.
func shortLen(b []byte, i int) (n, next int, ok bool) {
	start := i
	for ; i < len(b) && b[i] != '\r'; i++ {
		c := b[i] - '0'
		if c > 9 || i-start >= 18 {
			return 0, 0, false
		}
		n = n*10 + int(c)
	}
	if i == start || i+1 >= len(b) || (b[start] == '0' && i-start > 1) {
		return 0, 0, false
	}
	return n, i + 2, true
}

// lineEnd finds the '\n' ending the inline line at the start of b. Valkey
// searches with strchr, so a NUL byte hides the '\n' for good. Valkey
// refuses a line when more than InlineMax bytes of it are buffered without
// its end; whether that happens for a line longer than that depends on how
// its bytes are split across reads, so the reader refuses every line whose
// end is further than InlineMax bytes from its start, and accepts the
// rest, which Valkey always does. It returns -1 while the line is
// incomplete.
func (r *Reader) lineEnd(b []byte) (int, error) {
	from := r.scan
	stop := min(len(b), InlineMax+1)
	if from < stop && b[from] == 0 {
		r.steps++ // stalled at a NUL
	} else {
		win := b[from:stop]
		i := bytes.IndexByte(win, '\n')
		if i >= 0 {
			win = win[:i]
		}
		z := bytes.IndexByte(win, 0)
		switch {
		case z >= 0:
			r.scan = from + z
		case i >= 0:
			r.steps += int32(i + 1)
			return from + i, nil
		default:
			r.scan = stop
		}
		r.steps += int32(r.scan - from + 1)
	}
	if len(b) > InlineMax {
		return -1, errBigInline
	}
	return -1, nil
}

// inline parses a telnet-style command line split like sdssplitargs.
func (r *Reader) inline() ([][]byte, bool, error) {
	b := r.buf[r.r:r.w]
	nl, err := r.lineEnd(b)
	if nl < 0 {
		return nil, false, err
	}
	end := nl
	if end > 0 && b[end-1] == '\r' {
		end--
	}
	argv, ok := SplitArgs(r.argv[:0], b[:end])
	if !ok {
		return nil, false, errUnbalanced
	}
	r.argv = argv
	r.finish(nl + 1)
	return argv, true, nil
}

// ParseInt parses b the way Valkey's string2ll does: an optional '-', then
// a digit 1-9 and more digits, or a lone "0"; at most 20 bytes, no
// overflow of int64. "+1", "01", "-0", " 1" and "" are invalid. The reader
// parses counts with it, and every package that parses integer arguments
// or config values (db, command, config) uses it too, so all agree.
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) >= 21 {
		return 0, false
	}
	if len(b) == 1 && b[0] == '0' {
		return 0, true
	}
	i, neg := 0, false
	if b[0] == '-' {
		neg, i = true, 1
		if len(b) == 1 {
			return 0, false
		}
	}
	if b[i] < '1' || b[i] > '9' {
		return 0, false
	}
	v := uint64(b[i] - '0')
	for i++; i < len(b); i++ {
		c := b[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (math.MaxUint64-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return int64(-v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}
