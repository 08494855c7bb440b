package aof

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// item is one piece of a test AOF: a command or an annotation.
type item struct {
	text string // the command as space-joined words, or the annotation
	raw  []byte
	note bool
}

func cmdItem(s string) item  { return item{text: s, raw: cmd(s)} }
func noteItem(s string) item { return item{text: s, raw: []byte(s + "\r\n"), note: true} }

func join(items []item) []byte {
	var b []byte
	for _, it := range items {
		b = append(b, it.raw...)
	}
	return b
}

// writeDir writes a manifest with a base and one incr file.
func writeDir(t *testing.T, dir string, base, incr []byte) {
	t.Helper()
	m := &Manifest{Base: &FileInfo{Name: "appendonly.aof.1.base.aof", Seq: 1, Type: Base},
		Incr: []FileInfo{{Name: "appendonly.aof.1.incr.aof", Seq: 1, Type: Incr}}}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// No fsyncs: the tests write thousands of these.
	if err := os.WriteFile(filepath.Join(dir, "appendonly.aof.manifest"), []byte(m.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, m.Base.Name), base, 0o644)
	os.WriteFile(filepath.Join(dir, m.Incr[0].Name), incr, 0o644)
}

var testIncr = []item{
	noteItem("#TS:1700000000"), cmdItem("SELECT 0"), cmdItem("SET a 1"),
	cmdItem("MULTI"), cmdItem("SET b 2"), cmdItem("INCR c"), cmdItem("EXEC"),
	noteItem("#TS:1700000001"), cmdItem("DEL a"),
	cmdItem("multi"), cmdItem("SELECT 3"), cmdItem("SET x yy"), cmdItem("exec"), cmdItem("PING"),
}

// expectCut is what Valkey does with testIncr cut at k: the commands
// delivered, whether the cut is an unexpected end, where the file is
// truncated, whether a MULTI is reverted.
func expectCut(items []item, k int) (cmds []string, short bool, cutAt int, reverted bool) {
	off, lastEnd, beforeMulti := 0, 0, 0
	inMulti := false
	for _, it := range items {
		start, end := off, off+len(it.raw)
		off = end
		if end > k {
			if start < k && !it.note {
				short = true // a command cut in the middle
			}
			break
		}
		if it.note {
			continue
		}
		cmds = append(cmds, it.text)
		if strings.EqualFold(it.text, "multi") {
			beforeMulti, inMulti = lastEnd, true
		} else if strings.EqualFold(it.text, "exec") {
			inMulti = false
		}
		lastEnd = end
	}
	cutAt = lastEnd
	if inMulti {
		short, cutAt, reverted = true, beforeMulti, true
	}
	return cmds, short, cutAt, reverted
}

func TestLoadTruncatedEveryOffset(t *testing.T) {
	full := join(testIncr)
	base := cmd("SET base 0")
	dir := t.TempDir()
	for _, allow := range []bool{true, false} {
		for k := 0; k <= len(full); k++ {
			writeDir(t, dir, base, full[:k])
			var c collector
			var logs []string
			o := c.opts(allow)
			o.Logf = func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }
			res, err := Load(dir, "appendonly.aof", o)
			want, short, cutAt, reverted := expectCut(testIncr, k)
			want = append([]string{"SET base 0"}, want...)
			where := fmt.Sprintf("allow=%v cut at %d", allow, k)
			if !short {
				if err != nil || res.Truncated {
					t.Fatalf("%s: %v %+v", where, err, res)
				}
				if strings.Join(c.cmds, "|") != strings.Join(want, "|") {
					t.Fatalf("%s: got %q want %q", where, c.cmds, want)
				}
				continue
			}
			if !allow {
				var le *LoadError
				if !errors.As(err, &le) || !errors.Is(err, ErrUnexpectedEOF) || le.File != "appendonly.aof.1.incr.aof" ||
					le.Offset != int64(cutAt) || le.Msg != fmt.Sprintf(msgUnexpectedEOF, le.File) {
					t.Fatalf("%s: %v", where, err)
				}
				continue
			}
			if err != nil || !res.Truncated || res.TruncatedAt != int64(cutAt) || res.RevertedMulti != reverted ||
				res.TruncatedFile != "appendonly.aof.1.incr.aof" {
				t.Fatalf("%s: %v %+v (want cut at %d reverted %v)", where, err, res, cutAt, reverted)
			}
			if strings.Join(c.cmds, "|") != strings.Join(want, "|") {
				t.Fatalf("%s: got %q want %q", where, c.cmds, want)
			}
			st, _ := os.Stat(filepath.Join(dir, "appendonly.aof.1.incr.aof"))
			if st.Size() != int64(cutAt) {
				t.Fatalf("%s: file is %d bytes, want %d", where, st.Size(), cutAt)
			}
			wantLogs := []string{
				"!!! Warning: short read while loading the AOF file appendonly.aof.1.incr.aof!!!",
				fmt.Sprintf("!!! Truncating the AOF appendonly.aof.1.incr.aof at offset %d !!!", cutAt),
				"AOF appendonly.aof.1.incr.aof loaded anyway because aof-load-truncated is enabled",
			}
			if reverted {
				wantLogs = append([]string{"Revert incomplete MULTI/EXEC transaction in AOF file appendonly.aof.1.incr.aof"}, wantLogs...)
			}
			if got := strings.Join(logs, "\n"); !strings.Contains(got, strings.Join(wantLogs, "\n")) {
				t.Fatalf("%s: logs\n%s\nwant\n%s", where, got, strings.Join(wantLogs, "\n"))
			}
			// Loading the cut file again is clean.
			var c2 collector
			if res, err := Load(dir, "appendonly.aof", c2.opts(false)); err != nil || res.Truncated {
				t.Fatalf("%s: reload: %v", where, err)
			}
		}
	}
}

func TestLoadTruncatedNotLast(t *testing.T) {
	dir := t.TempDir()
	base := cmd("SET a 1")
	for _, allow := range []bool{true, false} {
		writeDir(t, dir, base[:len(base)-3], cmd("SET b 2"))
		var c collector
		_, err := Load(dir, "appendonly.aof", c.opts(allow))
		want := ErrUnexpectedEOF
		if allow {
			want = ErrTruncatedNotLast
		}
		var le *LoadError
		if !errors.Is(err, want) || !errors.As(err, &le) || le.File != "appendonly.aof.1.base.aof" || le.Offset != 0 {
			t.Fatalf("allow=%v: %v", allow, err)
		}
		if st, _ := os.Stat(filepath.Join(dir, "appendonly.aof.1.base.aof")); st.Size() != int64(len(base)-3) {
			t.Error("a file that is not the last was truncated")
		}
	}
}

func TestLoadBadFormat(t *testing.T) {
	ok := string(cmd("SET a 1"))
	tests := []struct {
		name, incr string
		off        int
		kind       error
	}{
		{"garbage line", ok + "garbage\r\n" + ok, len(ok), ErrBadFormat},
		{"inline command", ok + "SET b 2\r\n", len(ok), ErrBadFormat},
		{"zero args", ok + "*0\r\n", len(ok), ErrBadFormat},
		{"negative args", "*-1\r\n", 0, ErrBadFormat},
		{"no dollar", ok + "*1\r\n:3\r\n", len(ok), ErrBadFormat},
		{"negative length", "*1\r\n$-1\r\n", 0, ErrBadFormat},
		{"NUL after star", "*\x00\r\n", 0, ErrRead},
		{"long annotation spills into a bad line", "#" + strings.Repeat("x", 1100) + "\r\n" + ok, 1023, ErrBadFormat},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			writeDir(t, dir, nil, []byte(tc.incr))
			var c collector
			_, err := Load(dir, "appendonly.aof", c.opts(true))
			var le *LoadError
			if !errors.As(err, &le) || !errors.Is(err, tc.kind) || le.Offset != int64(tc.off) ||
				le.File != "appendonly.aof.1.incr.aof" {
				t.Fatalf("%v", err)
			}
			if tc.kind == ErrBadFormat && le.Msg != "Bad file format reading the append only file appendonly.aof.1.incr.aof: "+
				"make a backup of your AOF file, then use ./valkey-check-aof --fix <filename.manifest>" {
				t.Error(le.Msg)
			}
		})
	}
}

func TestLoadValkeyLeniency(t *testing.T) {
	// What Valkey's loader accepts, so must we: numbers as atoi/strtol
	// read them, the CRLF after an argument unchecked, "#" lines anywhere
	// a command could start, a final annotation without its newline.
	incr := "* 2junk\r\n$3x\r\nGET\r\n$1\r\na\r\n" + "*1\r\n$4\r\nPINGxx" + "#TS:12"
	dir := t.TempDir()
	writeDir(t, dir, nil, []byte(incr))
	var c collector
	if _, err := Load(dir, "appendonly.aof", c.opts(false)); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, c.cmds, []string{"GET a", "PING"})
}

func TestLoadCommandError(t *testing.T) {
	dir := t.TempDir()
	writeDir(t, dir, nil, append(cmd("SET a 1"), cmd("FOO x")...))
	_, err := Load(dir, "appendonly.aof", LoadOptions{Command: func(argv [][]byte) error {
		if string(argv[0]) == "FOO" {
			return errors.New("unknown command")
		}
		return nil
	}})
	var le *LoadError
	if !errors.As(err, &le) || !errors.Is(err, ErrCommand) || le.Offset != int64(len(cmd("SET a 1"))) ||
		le.Msg != "Unknown command 'FOO' reading the append only file appendonly.aof.1.incr.aof" {
		t.Fatal(err)
	}
}

func TestLoadNotExistAndEmpty(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load(filepath.Join(dir, "nodir"), "appendonly.aof", LoadOptions{}); err != ErrNotExist {
		t.Error(err)
	}
	writeDir(t, dir, nil, nil)
	var c collector
	if res, err := Load(dir, "appendonly.aof", c.opts(false)); err != nil || res.Commands != 0 {
		t.Error(res, err)
	}
	os.Remove(filepath.Join(dir, "appendonly.aof.1.incr.aof"))
	if _, err := Load(dir, "appendonly.aof", c.opts(false)); !errors.Is(err, ErrRead) {
		t.Error("a listed file missing:", err)
	}
}

// fakeRDB writes "REDIS0011", a payload and the EOF opcode with an
// 8-byte checksum; readFakeRDB reads exactly that far.
func fakeRDB(payload string) []byte {
	return append([]byte("REDIS0011"+payload+"\xff"), make([]byte, 8)...)
}

func readFakeRDB(got *string) func(string, io.Reader) error {
	return func(_ string, r io.Reader) error {
		br := r.(io.ByteReader)
		var b []byte
		for {
			c, err := br.ReadByte()
			if err != nil {
				return err
			}
			if c == 0xff {
				break
			}
			b = append(b, c)
		}
		if _, err := io.ReadFull(r, make([]byte, 8)); err != nil {
			return err
		}
		*got = string(b)
		return nil
	}
}

func TestLoadRDBBase(t *testing.T) {
	dir := t.TempDir()
	tail := append(cmd("SET t 1"), cmd("SET u")[:5]...) // preamble, a command, a cut one
	writeDir(t, dir, append(fakeRDB("payload"), tail...), cmd("SET i 2"))
	var c collector
	var got string
	o := c.opts(true)
	o.RDB = readFakeRDB(&got)
	_, err := Load(dir, "appendonly.aof", o)
	if !errors.Is(err, ErrTruncatedNotLast) {
		t.Fatal(err)
	}
	writeDir(t, dir, nil, append(fakeRDB("p2"), tail...)) // the RDB in the last file
	c.cmds = nil
	res, err := Load(dir, "appendonly.aof", o)
	if err != nil || got != "REDIS0011p2" || res.TruncatedAt != int64(len(fakeRDB("p2"))+len(cmd("SET t 1"))) {
		t.Fatal(err, got, res)
	}
	equalStrings(t, c.cmds, []string{"SET t 1"})

	// A preamble with nothing complete after it: the cut keeps the RDB.
	writeDir(t, dir, nil, append(fakeRDB("p3"), '*'))
	res, err = Load(dir, "appendonly.aof", o)
	if err != nil || res.TruncatedAt != int64(len(fakeRDB("p3"))) {
		t.Fatal(err, res)
	}

	o.RDB = func(string, io.Reader) error { return errors.New("bad rdb") }
	_, err = Load(dir, "appendonly.aof", o)
	var le *LoadError
	if !errors.As(err, &le) || !errors.Is(err, ErrRDB) ||
		le.Msg != "Error reading the RDB base file appendonly.aof.1.incr.aof, AOF loading aborted" {
		t.Fatal(err)
	}
	o.RDB = nil
	if _, err = Load(dir, "appendonly.aof", o); !errors.Is(err, ErrRDB) {
		t.Fatal(err)
	}
}

// TestLoadCorruptEveryByte changes every byte of a file to each of a few
// values that matter to the format: the loader never panics, fails with a
// *LoadError inside the file, or cuts (with aof-load-truncated) at a
// point that then loads cleanly. In memory: the file-level cut is
// TestLoadTruncatedEveryOffset's.
func TestLoadCorruptEveryByte(t *testing.T) {
	full := join(testIncr)
	for i := range full {
		for _, b := range []byte{'x', 0, '\n', '\r', '*', '$', '9', '#', '-'} {
			if full[i] == b {
				continue
			}
			mut := bytes.Clone(full)
			mut[i] = b
			for _, allow := range []bool{true, false} {
				l, _, err := loadBytes(mut, allow)
				if err != nil {
					var le *LoadError
					if !errors.As(err, &le) || le.File != "f" || le.Offset < 0 || le.Offset > int64(len(mut)) {
						t.Fatalf("byte %d = %q: %v", i, b, err)
					}
					continue
				}
				if l.truncated {
					if !allow || l.validUpTo > int64(len(mut)) {
						t.Fatalf("byte %d = %q: cut at %d", i, b, l.validUpTo)
					}
					if l2, _, err := loadBytes(mut[:l.validUpTo], false); err != nil || l2.truncated {
						t.Fatalf("byte %d = %q: the cut file: %v", i, b, err)
					}
				}
			}
		}
	}
}
