package cmdfuzz

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Reply is one parsed reply. Bulk payloads are kept only up to keepBulk
// bytes (Len has the full length): the fuzzer compares error texts, never
// payloads, and a reply may be hundreds of megabytes.
type Reply struct {
	// Kind is the RESP type byte: '+', '-', ':', '$', '*' (RESP2) or one
	// of '_', ',', '#', '(', '!', '=', '%', '~', '>' (RESP3). An attribute
	// ('|') is parsed and dropped; the reply it decorates is returned.
	Kind  byte
	Str   string  // line body, or the (truncated) bulk payload
	Len   int     // bulk length or element count; -1 for a RESP2 null
	Elems []Reply // aggregate elements; a map has 2*Len
}

// keepBulk is how many payload bytes of a bulk reply are kept for printing.
const keepBulk = 200

// maxDepth bounds aggregate nesting: no Valkey reply nests this deep, so
// deeper means a broken writer (or a reader lost in garbage).
const maxDepth = 64

// maxElems bounds an aggregate's declared length: the fuzzer's keyspace is
// small, so a larger count is garbage (and would allocate without limit).
const maxElems = 1 << 24

// IsErr reports whether r is an error reply (simple or blob).
func (r Reply) IsErr() bool { return r.Kind == '-' || r.Kind == '!' }

// String renders r compactly, in the style of testutil.Raw's canonical
// form, for failure messages.
func (r Reply) String() string {
	var b strings.Builder
	r.write(&b, 0)
	return b.String()
}

func (r Reply) write(b *strings.Builder, n int) {
	if b.Len() > 600 {
		if n == 0 {
			b.WriteString("…")
		}
		return
	}
	switch r.Kind {
	case '$', '=', '!':
		if r.Len < 0 {
			b.WriteString("(nil)")
			return
		}
		if r.Kind == '!' {
			b.WriteString("!")
		}
		b.WriteString(strconv.Quote(r.Str))
		if r.Len > len(r.Str) {
			fmt.Fprintf(b, "…(%d bytes)", r.Len)
		}
	case '*', '%', '~', '>':
		if r.Len < 0 {
			b.WriteString("(nil-array)")
			return
		}
		b.WriteByte(r.Kind)
		b.WriteByte('[')
		for i, e := range r.Elems {
			if i > 0 {
				b.WriteString(", ")
			}
			e.write(b, n+1)
		}
		b.WriteByte(']')
	case '_':
		b.WriteString("(null)")
	default:
		b.WriteByte(r.Kind)
		for _, c := range []byte(r.Str) {
			if c < ' ' || c >= 0x7f {
				fmt.Fprintf(b, `\x%02x`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
}

// errMalformed wraps every protocol violation ReadReply finds, so callers
// can tell a malformed reply from a closed or stalled connection.
var errMalformed = errors.New("malformed reply")

func malformed(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errMalformed, fmt.Sprintf(format, args...))
}

// ReadReply reads exactly one reply and checks it strictly against the
// protocol version the connection speaks (2 or 3): every line ends in
// CRLF and holds no CR or LF, numbers and lengths are canonical decimals
// (no sign but a leading '-', no leading zeros, in range), a bulk's
// payload is followed by CRLF, RESP3 types never appear on a RESP2
// connection, and doubles, booleans, big numbers, nulls and verbatim
// strings have their exact shapes. I/O errors are returned as they are
// (io.EOF, timeouts); violations wrap errMalformed.
func ReadReply(r *bufio.Reader, proto int) (Reply, error) {
	return readReply(r, proto, 0)
}

func readReply(r *bufio.Reader, proto, depth int) (Reply, error) {
	if depth > maxDepth {
		return Reply{}, malformed("nesting deeper than %d", maxDepth)
	}
	line, err := readLine(r)
	if err != nil {
		return Reply{}, err
	}
	if len(line) == 0 {
		return Reply{}, malformed("empty line")
	}
	kind, body := line[0], line[1:]
	if proto < 3 && strings.IndexByte("+-:$*", kind) < 0 {
		return Reply{}, malformed("type %q on a RESP2 connection: %q", kind, trunc(line, 80))
	}
	switch kind {
	case '+', '-':
		if kind == '-' && body == "" {
			return Reply{}, malformed("empty error")
		}
		return Reply{Kind: kind, Str: body}, nil
	case ':':
		if _, ok := parseCanonicalInt(body); !ok {
			return Reply{}, malformed("integer %q", trunc(body, 80))
		}
		return Reply{Kind: kind, Str: body}, nil
	case '(':
		if !isBigNumber(body) {
			return Reply{}, malformed("big number %q", trunc(body, 80))
		}
		return Reply{Kind: kind, Str: body}, nil
	case ',':
		if !isDouble(body) {
			return Reply{}, malformed("double %q", trunc(body, 80))
		}
		return Reply{Kind: kind, Str: body}, nil
	case '#':
		if body != "t" && body != "f" {
			return Reply{}, malformed("boolean %q", trunc(body, 80))
		}
		return Reply{Kind: kind, Str: body}, nil
	case '_':
		if body != "" {
			return Reply{}, malformed("null with a body %q", trunc(body, 80))
		}
		return Reply{Kind: kind, Len: -1}, nil
	case '$', '!', '=':
		n, ok := parseCanonicalInt(body)
		if !ok || n < -1 || (n == -1 && kind != '$') || n > 1<<33 {
			return Reply{}, malformed("bulk length %q", trunc(body, 80))
		}
		if n == -1 {
			return Reply{Kind: kind, Len: -1}, nil
		}
		s, err := readBulk(r, int(n))
		if err != nil {
			return Reply{}, err
		}
		if kind == '=' && (n < 4 || s[3] != ':') {
			return Reply{}, malformed("verbatim string without a format: %q", trunc(s, 80))
		}
		if kind == '!' && n == 0 {
			return Reply{}, malformed("empty blob error")
		}
		return Reply{Kind: kind, Str: s, Len: int(n)}, nil
	case '*', '%', '~', '>', '|':
		n, ok := parseCanonicalInt(body)
		if !ok || n < -1 || (n == -1 && kind != '*') || n > maxElems {
			return Reply{}, malformed("aggregate length %q", trunc(body, 80))
		}
		if n == -1 {
			return Reply{Kind: kind, Len: -1}, nil
		}
		count := int(n)
		if kind == '%' || kind == '|' {
			count *= 2
		}
		rep := Reply{Kind: kind, Len: int(n), Elems: make([]Reply, 0, min(count, 1024))}
		for range count {
			e, err := readReply(r, proto, depth+1)
			if err != nil {
				return Reply{}, err
			}
			rep.Elems = append(rep.Elems, e)
		}
		if kind == '|' {
			// An attribute decorates the reply that follows it.
			return readReply(r, proto, depth)
		}
		return rep, nil
	}
	return Reply{}, malformed("unknown type byte %q in %q", kind, trunc(line, 80))
}

// readLine reads one CRLF-terminated line and returns it without the
// CRLF. A line with a bare CR or LF inside is malformed.
func readLine(r *bufio.Reader) (string, error) {
	var sb []byte
	for {
		chunk, err := r.ReadSlice('\n')
		sb = append(sb, chunk...)
		if err == bufio.ErrBufferFull {
			if len(sb) > 16<<20 {
				return "", malformed("line longer than 16 MB")
			}
			continue
		}
		if err != nil {
			if err == io.EOF && len(sb) > 0 {
				return "", io.ErrUnexpectedEOF
			}
			return "", err
		}
		break
	}
	if len(sb) < 2 || sb[len(sb)-2] != '\r' {
		return "", malformed("line not terminated by CRLF: %q", trunc(string(sb), 80))
	}
	body := sb[:len(sb)-2]
	for _, c := range body {
		if c == '\r' || c == '\n' {
			return "", malformed("CR or LF inside a line: %q", trunc(string(body), 80))
		}
	}
	return string(body), nil
}

// readBulk reads n payload bytes and the CRLF after them, keeping at most
// keepBulk of them.
func readBulk(r *bufio.Reader, n int) (string, error) {
	keep := make([]byte, min(n, keepBulk))
	if _, err := io.ReadFull(r, keep); err != nil {
		return "", unexpected(err)
	}
	if rest := int64(n - len(keep)); rest > 0 {
		if _, err := io.CopyN(io.Discard, r, rest); err != nil {
			return "", unexpected(err)
		}
	}
	var crlf [2]byte
	if _, err := io.ReadFull(r, crlf[:]); err != nil {
		return "", unexpected(err)
	}
	if crlf != [2]byte{'\r', '\n'} {
		return "", malformed("bulk of %d bytes not followed by CRLF (got %q)", n, crlf[:])
	}
	return string(keep), nil
}

func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// parseCanonicalInt parses s as Valkey writes integers: an optional '-',
// then digits without leading zeros ("0" alone), within int64; "-0" is
// not canonical.
func parseCanonicalInt(s string) (int64, bool) {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || (len(digits) > 1 && digits[0] == '0') || s == "-0" {
		return 0, false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

func isBigNumber(s string) bool {
	digits := strings.TrimPrefix(s, "-")
	if digits == "" || (len(digits) > 1 && digits[0] == '0') {
		return false
	}
	for _, c := range []byte(digits) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isDouble accepts RESP3 doubles: "inf", "-inf", "nan", or a finite
// decimal (with an optional exponent) that parses.
func isDouble(s string) bool {
	switch s {
	case "inf", "-inf", "nan":
		return true
	case "":
		return false
	}
	for _, c := range []byte(s) {
		if !(c >= '0' && c <= '9' || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E') {
			return false
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && !math.IsInf(f, 0) && !math.IsNaN(f)
}

func trunc(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
