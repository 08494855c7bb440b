package resp_test

import (
	"bytes"
	"fmt"
	"strconv"
	"testing"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/resp"
)

// The corpora are under testdata/fuzz/<FuzzName>, with hand-written seeds
// (valkey-*: the cases of reader_valkey_test.go) next to what fuzzing found;
// plain `go test` runs each target over them.

// readerConfig derives the reader's limits from the first control byte, so
// the fuzzer also explores the unauthenticated limits, a tiny query buffer
// limit, a tiny proto-max-bulk-len and a tiny BigArg (so short bulks split
// across Feeds take the path of big ones, into buffers of their own).
func readerConfig(r *resp.Reader, ctl []byte) {
	var flags byte
	if len(ctl) > 0 {
		flags = ctl[0]
	}
	r.Unauthenticated = flags&1 != 0
	if flags&2 != 0 {
		r.MaxQuery = 100
	}
	if flags&4 != 0 {
		r.MaxBulk = 8
	} else {
		r.MaxBulk = 1 << 20
	}
	if flags&8 != 0 {
		resp.SetBigArg(r, 3) // bulks of 3 bytes or more that arrive in pieces get buffers of their own
	}
}

// drain runs Next until the reader has no complete command or fails,
// copying out each command (its slices die with the next Feed).
// An argument is never longer than maxArg.
func drain(t *testing.T, r *resp.Reader, out *[]string, limit, maxArg int) error {
	for len(*out) < limit {
		argv, err := r.Next()
		if err != nil {
			return err
		}
		if argv == nil {
			return nil
		}
		own := r.Owned()
		if own != nil && len(own) != len(argv) {
			t.Fatalf("Owned has %d elements for %d arguments", len(own), len(argv))
		}
		for i, a := range argv {
			if len(a) > maxArg {
				t.Fatalf("%d-byte argument from %d bytes of input", len(a), maxArg)
			}
			if own != nil && own[i] != nil && (len(own[i]) != len(a) || unsafe.SliceData(own[i]) != unsafe.SliceData(a)) {
				t.Fatalf("Owned()[%d] is not argv[%d]", i, i)
			}
		}
		*out = append(*out, fmt.Sprintf("%q", argv))
	}
	return nil
}

// FuzzReader: arbitrary input never panics, and the reader's result does
// not depend on how the input is split: parsing it in one Feed and in
// chunks (their sizes taken from ctl[1:]) gives the same commands, the
// same error and the same unparsed remainder. A Reset reader parses it
// the same way again. (Inputs over 1000 bytes are cut into at most about
// 1000 chunks, to keep them fast enough to fuzz.)
func FuzzReader(f *testing.F) {
	seeds := []string{
		"*2\r\n$3\r\nGET\r\n$1\r\nk\r\n", "PING\r\n", "SET \"a\\x00\" 'b'\r\n",
		"*1\r\n$-1\r\n", "*-1\r\n", "*0\r\n", "$5\r\nhello\r\n", "*1\r\n$4\r\nPI",
		"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$3\r\nabc\r\n*1\r\n$4\r\nPING\r\n", "\"unbalanced\r\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), []byte{0})
		f.Add([]byte(s), []byte{1, 2, 0, 5})
	}
	f.Add([]byte("*2\r\n$4\r\nECHO\r\n$5\r\nhello\r\n*1\r\n$4\r\nPING\r\n"), []byte{8, 1, 2, 3})
	f.Add([]byte("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$10\r\n0123456789\r\n"), []byte{8 | 2, 4})
	f.Fuzz(func(t *testing.T, data, ctl []byte) {
		const maxCmds = 1000
		whole := resp.NewReader()
		readerConfig(whole, ctl)
		whole.Feed(data)
		var want []string
		wantErr := drain(t, whole, &want, maxCmds, len(data))

		r := resp.NewReader()
		readerConfig(r, ctl)
		var got []string
		var gotErr error
		for off, i := 0, 1; off < len(data) && gotErr == nil && len(got) < maxCmds; i++ {
			n := 1
			if len(ctl) > 1 {
				n = int(ctl[1+i%(len(ctl)-1)]) + 1
			}
			n = max(n, len(data)/1000) // keep big inputs fast to fuzz
			r.Feed(data[off:min(off+n, len(data))])
			off += n
			gotErr = drain(t, r, &got, maxCmds, len(data))
		}
		if len(want) == maxCmds {
			got = got[:min(len(got), maxCmds)]
		}
		if fmt.Sprint(got) != fmt.Sprint(want) || gotErr != wantErr {
			t.Fatalf("in one piece: %v, %v\nin chunks:    %v, %v", want, wantErr, got, gotErr)
		}
		if wantErr == nil && len(want) < maxCmds && r.Buffered() != whole.Buffered() {
			t.Fatalf("unparsed: %d bytes in one piece, %d in chunks", whole.Buffered(), r.Buffered())
		}

		r.Reset()
		readerConfig(r, ctl)
		r.Feed(data)
		var again []string
		againErr := drain(t, r, &again, maxCmds, len(data))
		if fmt.Sprint(again) != fmt.Sprint(want) || againErr != wantErr {
			t.Fatalf("after Reset: %v, %v; want %v, %v", again, againErr, want, wantErr)
		}
	})
}

// quoteArg writes s as one double-quoted sdssplitargs argument.
func quoteArg(b *bytes.Buffer, s []byte) {
	b.WriteByte('"')
	for _, c := range s {
		switch {
		case c == '\\' || c == '"':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c >= 0x20 && c < 0x7f:
			b.WriteByte(c)
		default:
			fmt.Fprintf(b, "\\x%02x", c)
		}
	}
	b.WriteByte('"')
}

// plainInline reports whether argv can be written as an inline line
// without quotes.
func plainInline(argv [][]byte) bool {
	for i, a := range argv {
		if len(a) == 0 || bytes.ContainsAny(a, " \t\n\r\v\f\"'\x00") || (i == 0 && a[0] == '*') {
			return false
		}
	}
	return true
}

// FuzzRoundTrip: an argv written as a multibulk request, as a quoted
// inline line and (when it can be) as a plain inline line is read back
// equal, argument by argument, each time.
func FuzzRoundTrip(f *testing.F) {
	f.Add("SET", "key", "value", "", uint8(2))
	f.Add("", "\r\n", "$1\r\n", "*1", uint8(3))
	f.Add("*", "a b", "\"q'", "\x00\xff\v", uint8(3))
	f.Add("ECHO", "\\x41", "'", "\"", uint8(1))
	f.Fuzz(func(t *testing.T, a, b, c, d string, n uint8) {
		argv := [][]byte{[]byte(a), []byte(b), []byte(c), []byte(d)}[:n%4+1]
		var in bytes.Buffer
		in.WriteString("*" + strconv.Itoa(len(argv)) + "\r\n")
		for _, s := range argv {
			in.WriteString("$" + strconv.Itoa(len(s)) + "\r\n")
			in.Write(s)
			in.WriteString("\r\n")
		}
		forms := 1
		var line bytes.Buffer
		for i, s := range argv {
			if i > 0 {
				line.WriteByte(' ')
			}
			quoteArg(&line, s)
		}
		if line.Len() < resp.InlineMax {
			in.Write(line.Bytes())
			in.WriteString("\r\n")
			forms++
		}
		if plainInline(argv) && len(a)+len(b)+len(c)+len(d)+4 < resp.InlineMax {
			in.Write(bytes.Join(argv, []byte(" ")))
			in.WriteString("\n")
			forms++
		}
		r := resp.NewReader()
		r.Feed(in.Bytes())
		for form := 0; form < forms; form++ {
			got, err := r.Next()
			if err != nil || len(got) != len(argv) {
				t.Fatalf("form %d: %v, %q for %q", form, err, got, argv)
			}
			for i := range argv {
				if !bytes.Equal(got[i], argv[i]) {
					t.Fatalf("form %d arg %d: %q != %q", form, i, got[i], argv[i])
				}
			}
			if r.Inline != (form > 0) {
				t.Fatalf("form %d: Inline = %v", form, r.Inline)
			}
		}
		if got, err := r.Next(); got != nil || err != nil || r.Buffered() != 0 {
			t.Fatalf("left over: %q, %v, %d bytes", got, err, r.Buffered())
		}
	})
}

// FuzzSplitArgs: SplitArgs never panics and agrees with refSplitArgs, a
// literal port of sdssplitargs; what it splits, quoted again and split
// again, gives the same arguments.
func FuzzSplitArgs(f *testing.F) {
	for _, s := range []string{
		"SET k v", "  ECHO   \"a b\"   'c\\'d'  ", "\"\\x41\\x4g\"", "a\"b c\"", "\"a\"b",
		"'a'\"b\"", "a\vb \vc", "\"a\"\vb", "\"ab\\\"", "x\x00y \"", "\"\\x0", "''", "\"\"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		want, wantOK := refSplitArgs(line)
		got, ok := resp.SplitArgs(nil, bytes.Clone(line))
		if ok != wantOK || (ok && fmt.Sprintf("%q", got) != fmt.Sprintf("%q", want)) {
			t.Fatalf("SplitArgs(%q) = %q, %v; sdssplitargs gives %q, %v", line, got, ok, want, wantOK)
		}
		if !ok {
			return
		}
		var q bytes.Buffer
		for i, a := range got {
			if i > 0 {
				q.WriteByte(' ')
			}
			quoteArg(&q, a)
		}
		again, ok := resp.SplitArgs(nil, q.Bytes())
		if !ok || fmt.Sprintf("%q", again) != fmt.Sprintf("%q", got) {
			t.Fatalf("SplitArgs(%q) = %q; quoted as %q it splits to %q, %v", line, got, q.Bytes(), again, ok)
		}
	})
}

// refSplitArgs is sdssplitargs from Valkey's sds.c transcribed
// statement by statement, over a NUL-terminated copy of line.
func refSplitArgs(line []byte) ([][]byte, bool) {
	s := append(bytes.Clone(line), 0)
	isspace := func(c byte) bool { return c == ' ' || (c >= '\t' && c <= '\r') }
	ishex := func(c byte) bool { return bytes.IndexByte([]byte("0123456789abcdefABCDEF"), c) >= 0 && c != 0 }
	hexval := func(c byte) byte {
		v, _ := strconv.ParseUint(string(c), 16, 8)
		return byte(v)
	}
	p := 0
	vector := [][]byte{}
	for {
		for s[p] != 0 && isspace(s[p]) {
			p++
		}
		if s[p] == 0 {
			return vector, true
		}
		inq, insq, done := false, false, false
		current := []byte{}
		for !done {
			if inq {
				if s[p] == '\\' && s[p+1] == 'x' && ishex(s[p+2]) && ishex(s[p+3]) {
					current = append(current, hexval(s[p+2])*16+hexval(s[p+3]))
					p += 3
				} else if s[p] == '\\' && s[p+1] != 0 {
					p++
					c := s[p]
					switch c {
					case 'n':
						c = '\n'
					case 'r':
						c = '\r'
					case 't':
						c = '\t'
					case 'b':
						c = '\b'
					case 'a':
						c = '\a'
					}
					current = append(current, c)
				} else if s[p] == '"' {
					if s[p+1] != 0 && !isspace(s[p+1]) {
						return nil, false
					}
					done = true
				} else if s[p] == 0 {
					return nil, false
				} else {
					current = append(current, s[p])
				}
			} else if insq {
				if s[p] == '\\' && s[p+1] == '\'' {
					p++
					current = append(current, '\'')
				} else if s[p] == '\'' {
					if s[p+1] != 0 && !isspace(s[p+1]) {
						return nil, false
					}
					done = true
				} else if s[p] == 0 {
					return nil, false
				} else {
					current = append(current, s[p])
				}
			} else {
				switch s[p] {
				case ' ', '\n', '\r', '\t', 0:
					done = true
				case '"':
					inq = true
				case '\'':
					insq = true
				default:
					current = append(current, s[p])
				}
			}
			if s[p] != 0 {
				p++
			}
		}
		vector = append(vector, current)
	}
}
