package filecheck

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/corvid-kv/corvid/internal/resp"
)

// The RESP part of an AOF file, walked with valkey-check-aof's rules
// (checkSingleAof, processRESP, processAnnotations in Valkey 8.0.1's
// valkey-check-aof.c), reimplemented: the same lines are accepted and
// refused, the valid prefix ends at the same offset, and no argument is
// read into memory (only the first bytes of a command's name, to spot
// MULTI and EXEC).

// walkResult is what one walk found.
type walkResult struct {
	// validUpTo ends the valid prefix (valkey-check-aof's ok_up_to): the
	// end of the last whole command outside a transaction, or of the
	// input when there is no problem.
	validUpTo   int64
	commands    int64 // whole commands read
	annotations int64 // "#" lines read
	problem     *Problem
	// fatal: the problem cannot be repaired by cutting the file (a bad
	// timestamp annotation, a timestamp cut outside the last file, an I/O
	// error).
	fatal bool
	// tsCut is where --truncate-to-timestamp cuts the file, or -1.
	tsCut int64
}

// Line limits of the C code's fgets buffers.
const (
	numberLineMax     = 128  // readLong's buf[128]
	annotationLineMax = 1024 // AOF_ANNOTATION_LINE_MAX_LEN
)

// walker reads one file's RESP part.
type walker struct {
	br    *bufio.Reader
	off   int64 // offset in the file of the next byte of br
	size  int64 // the file's size
	last  bool  // the file is the last of its AOF (a timestamp cut is allowed)
	ts    int64 // --truncate-to-timestamp; 0: off
	line  []byte
	multi int // open transactions: 0 or 1 (any other count is an error)
	eof   bool
	res   walkResult
}

// walkRESP walks r, the part of a file of size bytes that starts at
// offset start (after an RDB preamble, or 0). last and ts are as in
// walker.
func walkRESP(r io.Reader, start, size int64, last bool, ts int64) walkResult {
	// The buffer holds the longest line fgets reads (an annotation's).
	buf := int(min(max(size-start, annotationLineMax), 64<<10))
	w := &walker{br: bufio.NewReaderSize(r, buf), off: start, size: size, last: last, ts: ts}
	w.res.tsCut = -1
	w.run()
	return w.res
}

func (w *walker) run() {
	for {
		if w.multi == 0 {
			w.res.validUpTo = w.off
		}
		c, err := w.br.Peek(1)
		if len(c) == 0 {
			if err != io.EOF {
				w.ioFail(err)
				return
			}
			w.eof = true
			break
		}
		switch c[0] {
		case '#':
			if !w.annotation() {
				return
			}
		case '*':
			if !w.command() {
				return
			}
		default:
			w.fail(w.off, fmt.Sprintf("found %q where a command ('*') or an annotation ('#') must start", c[0]), "")
			return
		}
	}
	if w.multi != 0 {
		w.fail(w.res.validUpTo, "the file ends inside a transaction (MULTI without EXEC)", "")
	}
}

// fail records the walk's problem at offset off (the first one counts).
func (w *walker) fail(off int64, what, doing string) {
	if w.res.problem == nil {
		w.res.problem = &Problem{Offset: off, What: what, Doing: doing}
	}
}

func (w *walker) ioFail(err error) {
	w.fail(w.off, "read error: "+err.Error(), "")
	w.res.problem.Err = err
	w.res.fatal = true
}

// fgets is C's fgets(buf, n, fp): up to n-1 bytes, through the first
// '\n'; ok is false when nothing was left to read.
func (w *walker) fgets(n int) (line []byte, ok bool) {
	b, err := w.br.Peek(n - 1)
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b, err = b[:i+1], nil
	}
	if err != nil && err != io.EOF {
		w.ioFail(err)
		return nil, false
	}
	w.line = append(w.line[:0], b...)
	w.br.Discard(len(b))
	w.off += int64(len(b))
	return w.line, len(b) > 0
}

// annotation reads a "#" line; false stops the walk (a timestamp cut,
// a bad timestamp).
func (w *walker) annotation() bool {
	at := w.off
	line, _ := w.fgets(annotationLineMax)
	if w.res.problem != nil {
		return false
	}
	w.res.annotations++
	if w.ts == 0 || !bytes.HasPrefix(line, []byte("#TS:")) {
		return true
	}
	s := cstr(line)[4:]
	ts, end, over := strtol(s)
	if over || end >= len(s) || s[end] != '\r' {
		w.fail(at, fmt.Sprintf("malformed timestamp annotation %q", bytes.TrimRight(line, "\r\n")), "")
		w.res.fatal = true
		return false
	}
	if ts <= w.ts {
		return true
	}
	switch {
	case at == 0:
		w.fail(at, fmt.Sprintf("the file starts with timestamp %d, later than %d: nothing to keep", ts, w.ts), "")
		w.res.fatal = true
	case !w.last:
		w.fail(at, fmt.Sprintf("timestamp %d (later than %d) is in a file that is not the last; "+
			"remove the files after it from the manifest first", ts, w.ts), "")
		w.res.fatal = true
	default:
		// Valkey cuts at the annotation even inside a transaction, which
		// leaves a MULTI without EXEC; Corvid cuts before the MULTI.
		w.res.tsCut = at
		if w.multi != 0 {
			w.res.tsCut = w.res.validUpTo
		}
	}
	return false
}

// command reads one "*<argc>" command; false stops the walk.
func (w *walker) command() bool {
	start := w.off
	argc, ok := w.number('*', "argument count", fmt.Sprintf("reading the command at offset %d", start))
	if !ok {
		return false
	}
	if argc < 1 {
		// valkey-check-aof lets it pass; both servers' loaders refuse it.
		w.fail(start, fmt.Sprintf("a command with %d arguments", argc), "")
		w.res.problem.ValkeyAccepts = true
		return false
	}
	for i := int64(0); i < argc; i++ {
		doing := fmt.Sprintf("reading argument %d of %d of the command at offset %d", i+1, argc, start)
		n, ok := w.number('$', "argument length", doing)
		if !ok {
			return false
		}
		if n < 0 || n > math.MaxInt64-2 {
			w.fail(w.off, fmt.Sprintf("argument length %d out of range", n), doing)
			return false
		}
		head, ok := w.bulk(n, doing)
		if !ok {
			return false
		}
		if i > 0 {
			continue
		}
		// strcasecmp on the argument as a C string.
		switch name := cstr(head); {
		case bytes.EqualFold(name, []byte("multi")):
			if w.multi++; w.multi != 1 {
				w.fail(start, "MULTI inside a transaction", "")
				return false
			}
		case bytes.EqualFold(name, []byte("exec")):
			if w.multi--; w.multi != 0 {
				w.fail(start, "EXEC outside a transaction", "")
				return false
			}
		}
	}
	w.res.commands++
	return true
}

// number reads a "<prefix><integer>\r\n" line (readLong).
func (w *walker) number(prefix byte, what, doing string) (int64, bool) {
	at := w.off
	line, ok := w.fgets(numberLineMax)
	if !ok {
		if w.res.problem == nil {
			w.fail(at, "the file ends where the "+what+" line should be", doing)
		}
		return 0, false
	}
	s := cstr(line)
	if len(s) == 0 || s[0] != prefix {
		got := byte(0)
		if len(s) > 0 {
			got = s[0]
		}
		w.fail(at, fmt.Sprintf("the %s line starts with %q, not %q", what, got, prefix), doing)
		return 0, false
	}
	v, end, _ := strtol(s[1:])
	if rest := s[1+end:]; !bytes.HasPrefix(rest, []byte("\r\n")) {
		w.fail(at, fmt.Sprintf("the %s line %q does not end in CRLF after the number", what, s), doing)
		return 0, false
	}
	return v, true
}

// bulk skips an argument of n bytes and its CRLF, returning its first
// bytes (enough to tell MULTI and EXEC from other names).
func (w *walker) bulk(n int64, doing string) ([]byte, bool) {
	at := w.off
	if left := w.size - w.off; n > left-2 {
		w.fail(at, fmt.Sprintf("the file ends inside an argument: %d bytes and CRLF announced, %d left", n, max(left, 0)), doing)
		return nil, false
	}
	head, _ := w.br.Peek(int(min(n, 6)))
	var name [6]byte
	head = name[:copy(name[:], head)]
	if err := w.skip(n); err != nil {
		return nil, false
	}
	crlf, err := w.br.Peek(2)
	if len(crlf) < 2 {
		w.short(at, n, err, doing)
		return nil, false
	}
	if crlf[0] != '\r' || crlf[1] != '\n' {
		w.fail(w.off, fmt.Sprintf("an argument of %d bytes is followed by %q, not CRLF", n, crlf), doing)
		return nil, false
	}
	w.br.Discard(2)
	w.off += 2
	return head, true
}

// skip consumes n bytes that the file's size says are there.
func (w *walker) skip(n int64) error {
	for n > 0 {
		k, err := w.br.Discard(int(min(n, 1<<30)))
		w.off += int64(k)
		n -= int64(k)
		if err != nil {
			w.short(w.off, n, err, "")
			return err
		}
	}
	return nil
}

// short reports input that ended before its size said (the file shrank
// while being read) or failed.
func (w *walker) short(at, n int64, err error, doing string) {
	if errors.Is(err, io.EOF) || err == nil {
		w.fail(at, fmt.Sprintf("the file ends inside an argument of %d bytes", n), doing)
		return
	}
	w.ioFail(err)
}

// cstr is b as C string functions see it: up to its first NUL.
func cstr(b []byte) []byte {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		return b[:i]
	}
	return b
}

// strtol is glibc's strtol(s, &end, 10) (resp.Strtol).
func strtol(s []byte) (v int64, end int, over bool) { return resp.Strtol(s) }
