package aofcompat

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/aof"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// valkeyManifestVerdict runs valkey-check-aof (valkey-server under that
// name) on a manifest and returns Valkey's manifest error: its message,
// the line number and the line it names (0 and "" when it names none);
// ok is true when Valkey accepted the manifest itself (whatever it then
// says about the files). skip is true when valkey-check-aof does not take
// the file for a manifest (it looks for a line starting with "file") and
// so says nothing about it.
func valkeyManifestVerdict(t *testing.T, bin, dir string, data []byte) (msg string, line int, text string, ok, skip bool) {
	t.Helper()
	path := filepath.Join(dir, "appendonly.aof.manifest")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, path)
	cmd.Args[0] = "valkey-check-aof"
	out, _ := cmd.CombinedOutput()
	s := string(out)
	if !strings.HasPrefix(s, "Start checking Multi Part AOF") {
		return "", 0, "", false, true
	}
	i := strings.Index(s, "*** FATAL AOF MANIFEST FILE ERROR ***")
	if i < 0 {
		return "", 0, "", true, false
	}
	// The log lines after it: "... # Reading the manifest file, at line N",
	// "... # >>> '<line>'", "... # <message>".
	var lines []string
	for _, l := range strings.Split(s[i:], "\n")[1:] {
		if j := strings.Index(l, " # "); j >= 0 {
			lines = append(lines, l[j+3:])
		}
	}
	for k, l := range lines {
		switch {
		case strings.HasPrefix(l, "Reading the manifest file, at line "):
			line, _ = strconv.Atoi(strings.TrimPrefix(l, "Reading the manifest file, at line "))
		case strings.HasPrefix(l, ">>> '") && strings.HasSuffix(l, "'"):
			text = l[5 : len(l)-1]
		default:
			if k == len(lines)-1 || msg == "" {
				msg = l
			}
		}
	}
	return msg, line, text, false, false
}

// manifestCases are manifests worth asking Valkey about: hand-written
// edge cases, the FuzzManifest corpus, and random line soups.
func manifestCases(t *testing.T) [][]byte {
	cases := []string{
		"", "\n", "# c\n", "file a seq 1 type b", "file a seq 1 type b\n",
		"file a seq 1 type b\n\n", "  file a seq 1 type b \t\r\n", "file a seq 1\n", "file a seq 1 type b x\n",
		"file \"a seq 1 type b\n", "file \"a\"b seq 1 type b\n", "seq 1 type b x y\n", "file a seq 0 type b\n",
		"file a seq x type b\n", "file a seq 12abc type b\n", "file a seq -3 type h\n", "file a seq -1 type i\n",
		"file a seq 1 type \"\"\n", "file a seq 1 type base\n", "file dir/a seq 1 type b\n", "file \"d\\\\a\" seq 1 type b\n",
		"file ../a seq 0 type b\n", "file a seq 1 type b\nfile b seq 2 type b\n", "file a seq 2 type i\nfile b seq 2 type i\n",
		"file a seq 1 type x\n", "file a seq 1 type B\n", "TYPE i SEQ 3 File x extra 1\n", "file 'a b' seq 1 type h\n",
		"file \"a\\x00b\" seq 1 type h\n", "file a\x00 seq 1 type b\n", "#" + strings.Repeat("x", 2000) + "\n",
		"file " + strings.Repeat("a", 1100) + " seq 1 type b\n", "file " + strings.Repeat("a", 1003) + " seq 1 type b\n",
		"file " + strings.Repeat("a", 1004) + " seq 1 type b\n", "file a seq 99999999999999999999 type h\n",
		"file a seq 1 type i\nfile b seq 99999999999999999999 type i\nfile c seq 99999999999999999999 type i\n",
		"file a seq 1 type i seq 2\nfile b seq 2 type i\n", "file a file b seq 1 type h\n", "file a seq\t1 type\vb\n",
	}
	var out [][]byte
	for _, c := range cases {
		out = append(out, []byte(c))
	}
	corpus, _ := filepath.Glob(filepath.Join(testutil.RepoRoot(), "internal", "aof", "testdata", "fuzz", "FuzzManifest", "*"))
	for _, f := range corpus {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitN(string(b), "\n", 3)
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "[]byte(") {
			continue
		}
		s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"))
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, []byte(s))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"file", "FILE", "seq", "type", "x", "a.1.incr.aof", "\"q q\"", "'s'", "1", "2", "0", "-1", "b", "h", "i",
		"z", "\"\"", "\"a\\x41\"", "a/b", "\"", "#", "\t", "9999999999999999999999", "\"a\"b"}
	for n := 0; n < 150; n++ {
		var b strings.Builder
		for l := rng.IntN(4); l >= 0; l-- {
			if rng.IntN(3) > 0 {
				b.WriteString("file ")
			}
			for w := rng.IntN(9); w >= 0; w-- {
				b.WriteString(words[rng.IntN(len(words))])
				b.WriteString(" ")
			}
			if rng.IntN(10) > 0 {
				b.WriteString("\n")
			}
		}
		out = append(out, []byte(b.String()))
	}
	return out
}

// TestManifestLikeValkey: for every case, ParseManifest refuses exactly
// the manifests valkey-check-aof refuses, with the same message, line
// number and line text.
func TestManifestLikeValkey(t *testing.T) {
	bin := testutil.ValkeyServerPath(t)
	dir := t.TempDir()
	compared, refused := 0, 0
	defer func() {
		t.Logf("%d manifests compared, %d refused by both", compared, refused)
		if compared < 100 || refused < 50 {
			t.Errorf("too few cases reached Valkey's manifest parser: %d, %d refused", compared, refused)
		}
	}()
	for i, data := range manifestCases(t) {
		msg, line, text, ok, skip := valkeyManifestVerdict(t, bin, dir, data)
		if skip {
			continue
		}
		compared++
		m, err := aof.ParseManifest(data)
		where := fmt.Sprintf("case %d %q", i, data)
		if ok {
			if err != nil {
				t.Errorf("%s: Valkey accepts it, we say %v", where, err)
			}
			continue
		}
		refused++
		var me *aof.ManifestError
		if !errors.As(err, &me) {
			t.Errorf("%s: Valkey says %q (line %d), we parsed %q", where, msg, line, m)
			continue
		}
		if me.Msg != msg || me.Line != line || (line != 0 && !bytes.Equal([]byte(me.Text), []byte(text))) {
			t.Errorf("%s: Valkey says %q at line %d (%q), we %q at line %d (%q)", where, msg, line, text, me.Msg, me.Line, me.Text)
		}
	}
}
