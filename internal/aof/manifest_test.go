package aof

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseManifestValid(t *testing.T) {
	tests := []struct {
		name, in, want   string // want: the manifest as Valkey would write it back
		baseSeq, incrSeq int64
	}{
		{"valkey example",
			"file appendonly.aof.2.base.rdb seq 2 type b\n" +
				"file appendonly.aof.1.incr.aof seq 1 type h\n" +
				"file appendonly.aof.2.incr.aof seq 2 type h\n" +
				"file appendonly.aof.3.incr.aof seq 3 type h\n" +
				"file appendonly.aof.4.incr.aof seq 4 type i\n" +
				"file appendonly.aof.5.incr.aof seq 5 type i\n",
			"", 2, 5},
		{"only incr", "file a.1.incr.aof seq 1 type i\n", "", 0, 1},
		{"only base", "file a.1.base.aof seq 1 type b\n", "", 1, 0},
		{"comments skipped", "# hello\nfile a seq 1 type b\n#x\n", "file a seq 1 type b\n", 1, 0},
		{"keys any case and order, extra keys ignored",
			"TYPE i SEQ 3 File x.3.incr.aof future 1\n", "file x.3.incr.aof seq 3 type i\n", 0, 3},
		{"surrounding blanks and CRLF", "  file a seq 1 type b \t\r\n", "file a seq 1 type b\n", 1, 0},
		{"quoted name", "file \"a b\\x01\\\"\" seq 1 type b\n", "file \"a b\\x01\\\"\" seq 1 type b\n", 1, 0},
		{"single quotes", "file 'a b' seq 1 type b\n", "file \"a b\" seq 1 type b\n", 1, 0},
		{"type is the first byte", "file a seq 1 type base\n", "file a seq 1 type b\n", 1, 0},
		{"seq as atoll", "file a seq 12abc type b\n", "file a seq 12 type b\n", 12, 0},
		{"negative history seq", "file a seq -3 type h\n", "file a seq -3 type h\n", 0, 0},
		{"history before base is reordered", "file h seq 1 type h\nfile b seq 2 type b\n",
			"file b seq 2 type b\nfile h seq 1 type h\n", 2, 0},
		{"name cut at NUL", "file \"ab\\x00c\" seq 1 type b\n", "file ab seq 1 type b\n", 1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if got := m.String(); got != want {
				t.Errorf("text:\n%q\nwant\n%q", got, want)
			}
			if m.BaseSeq != tc.baseSeq || m.IncrSeq != tc.incrSeq {
				t.Errorf("seqs %d %d, want %d %d", m.BaseSeq, m.IncrSeq, tc.baseSeq, tc.incrSeq)
			}
			m2, err := ParseManifest([]byte(m.String()))
			if err != nil || m2.String() != m.String() {
				t.Errorf("round trip: %v %q", err, m2)
			}
		})
	}
}

func TestParseManifestInvalid(t *testing.T) {
	long := "file " + strings.Repeat("a", 1100) + " seq 1 type b\n"
	tests := []struct {
		name, in string
		line     int // 0: Valkey names no line
		msg      string
	}{
		{"empty", "", 0, msgEmptyManifest},
		{"no final newline", "file a seq 1 type b", 0, msgTooLongLine},
		{"too long", long, 0, msgTooLongLine},
		{"NUL before newline", "file a\x00 seq 1 type b\n", 0, msgTooLongLine},
		{"blank line", "file a seq 1 type b\n\n", 2, msgInvalidFormat},
		{"blank line of spaces", "   \n", 1, msgInvalidFormat},
		{"too few words", "file a seq 1\n", 1, msgInvalidFormat},
		{"odd words", "file a seq 1 type b x\n", 1, msgInvalidFormat},
		{"unbalanced quote", "file \"a seq 1 type b\n", 1, msgInvalidFormat},
		{"quote not followed by space", "file \"a\"b seq 1 type b\n", 1, msgInvalidFormat},
		{"no name", "seq 1 type b x y\n", 1, msgInvalidFormat},
		{"seq zero", "file a seq 0 type b\n", 1, msgInvalidFormat},
		{"seq not a number", "file a seq x type b\n", 1, msgInvalidFormat},
		{"empty type", "file a seq 1 type \"\"\n", 1, msgInvalidFormat},
		{"path", "file dir/a seq 1 type b\n", 1, msgPathNotBaseName},
		{"backslash path", "file \"dir\\\\a\" seq 1 type b\n", 1, msgPathNotBaseName},
		{"path checked before the rest", "file ../a seq 0 type b\n", 1, msgPathNotBaseName},
		{"duplicate base", "file a seq 1 type b\nfile b seq 2 type b\n", 2, msgDuplicateBase},
		{"incr not increasing", "file a seq 2 type i\nfile b seq 2 type i\n", 2, msgNonMonotonic},
		{"incr negative", "file a seq -1 type i\n", 1, msgNonMonotonic},
		{"unknown type", "file a seq 1 type x\n", 1, msgUnknownType},
		{"uppercase type", "file a seq 1 type B\n", 1, msgUnknownType},
		{"error after good lines", "# c\nfile a seq 1 type b\nfile c seq 1 type q\n", 3, msgUnknownType},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(tc.in))
			if err == nil {
				t.Fatalf("parsed %q", m)
			}
			var me *ManifestError
			if !errors.As(err, &me) || !errors.Is(err, ErrManifest) {
				t.Fatalf("%T %v", err, err)
			}
			if me.Msg != tc.msg || me.Line != tc.line {
				t.Errorf("got line %d %q, want line %d %q", me.Line, me.Msg, tc.line, tc.msg)
			}
		})
	}
}

func TestManifestOnlyComments(t *testing.T) {
	// Valkey counts comment lines: a manifest of comments is not empty,
	// it lists no file.
	m, err := ParseManifest([]byte("# nothing\n"))
	if err != nil || m.Base != nil || len(m.Incr)+len(m.History) != 0 {
		t.Fatal(m, err)
	}
}

func TestManifestRepr(t *testing.T) {
	for _, name := range []string{"plain", "a b", "tab\there", "q\"uote", "back\\slash", "nl\n", "\x80\xff", "\a\b\v\f\r", "é"} {
		m := &Manifest{Base: &FileInfo{Name: name, Seq: 1, Type: Base}}
		got, err := ParseManifest([]byte(m.String()))
		if err != nil {
			if strings.ContainsAny(name, "/\\") {
				continue
			}
			t.Fatalf("%q: %v (%q)", name, err, m.String())
		}
		if got.Base.Name != name {
			t.Errorf("%q came back as %q via %q", name, got.Base.Name, m.String())
		}
	}
	// sdscatrepr's exact output.
	m := &Manifest{Base: &FileInfo{Name: "a \"\\\n\r\t\a\b\x01\x7f\xfe", Seq: 1, Type: Base}}
	want := `file "a \"\\\n\r\t\a\b\x01\x7f\xfe" seq 1 type b` + "\n"
	if m.String() != want {
		t.Errorf("%s want %s", m.String(), want)
	}
}

func TestManifestRewriteOrder(t *testing.T) {
	// The history order of Valkey's backgroundRewriteDoneHandler.
	m, err := ParseManifest([]byte("file x.1.base.aof seq 1 type b\nfile x.1.incr.aof seq 1 type i\n" +
		"file x.2.incr.aof seq 2 type i\nfile x.3.incr.aof seq 3 type i\n"))
	if err != nil {
		t.Fatal(err)
	}
	m.newBase("x", true)
	m.markRewrittenIncrAsHistory(true)
	want := "file x.2.base.rdb seq 2 type b\n" +
		"file x.1.incr.aof seq 1 type h\nfile x.2.incr.aof seq 2 type h\nfile x.1.base.aof seq 1 type h\n" +
		"file x.3.incr.aof seq 3 type i\n"
	if m.String() != want {
		t.Errorf("%s\nwant\n%s", m, want)
	}
	if n := m.newIncr("x"); n != "x.4.incr.aof" {
		t.Error(n)
	}
}

func TestWriteManifestAtomic(t *testing.T) {
	dir := t.TempDir()
	m := &Manifest{Base: &FileInfo{Name: "a.1.base.aof", Seq: 1, Type: Base}}
	if err := WriteManifest(dir, "a", m); err != nil {
		t.Fatal(err)
	}
	got, err := ReadManifest(dir, "a")
	if err != nil || got.String() != m.String() {
		t.Fatal(err, got)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 || ents[0].Name() != "a.manifest" {
		t.Errorf("left behind: %v", ents)
	}
	if _, err := ReadManifest(filepath.Join(dir, "none"), "a"); !isNotExist(err) {
		t.Error(err)
	}
}

func TestCNumbers(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
	}{{"12", 12}, {" \t+7x", 7}, {"-3", -3}, {"", 0}, {"x1", 0},
		{"99999999999999999999", 1<<63 - 1}, {"-99999999999999999999", -1 << 63}} {
		if got := strtol([]byte(tc.in)); got != tc.want {
			t.Errorf("strtol(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
	if atoi([]byte("4294967297")) != 1 {
		t.Error("atoi does not keep the low 32 bits")
	}
}
