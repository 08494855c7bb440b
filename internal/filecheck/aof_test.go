package filecheck

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/aof"
)

// checkAOF is CheckAOF with the test clock; it fails the test on an
// error (an unreadable path).
func checkAOF(t testing.TB, path string, opts AOFOptions) *AOFReport {
	t.Helper()
	opts.now = func() time.Time { return testNow }
	r, err := CheckAOF(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	if err := r.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "verdict: "+r.Verdict.String()) {
		t.Fatalf("report does not state its verdict %s:\n%s", r.Verdict, out.String())
	}
	return r
}

var specs = []aofSpec{
	{},
	{preamble: true},
	{timestamps: true},
	{preamble: true, timestamps: true, rewrite: "commit"},
	{rewrite: "abort"},
	{preamble: true, rewrite: "abort", timestamps: true},
}

func (s aofSpec) String() string {
	return fmt.Sprintf("preamble=%v,ts=%v,rewrite=%q", s.preamble, s.timestamps, s.rewrite)
}

func TestCheckAOFGood(t *testing.T) {
	for _, spec := range specs {
		t.Run(spec.String(), func(t *testing.T) {
			man := writeAOF(t, t.TempDir(), spec)
			want, err := loadAOF(t, man)
			if err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{man, filepath.Dir(man)} {
				r := checkAOF(t, path, AOFOptions{Fix: true})
				if r.Verdict != Valid || r.Input != InputManifest || r.Manifest != man || len(r.Files) != r.Listed {
					t.Fatalf("%s: %v %v %d/%d", path, r.Verdict, r.Problem, len(r.Files), r.Listed)
				}
				var cmds int64
				for _, f := range r.Files {
					cmds += f.Commands
					if f.ValidUpTo != f.Size || f.CutTo != -1 || (f.RDB != nil) != (spec.preamble && f.Role == "base") {
						t.Errorf("%+v", f)
					}
				}
				if cmds != int64(len(want)) {
					t.Errorf("%d commands, the loader delivered %d", cmds, len(want))
				}
			}
		})
	}
}

// TestCheckAOFTruncated cuts each file of each AOF at every offset: a cut
// in the last file is fixable exactly where the server's loader would cut
// it (aof-load-truncated yes), and after --fix the AOF loads in full, a
// prefix of the original commands; a cut elsewhere is not fixable. The
// AOFs with annotations cover the others' shapes (-short: every 5th
// offset).
func TestCheckAOFTruncated(t *testing.T) {
	step := 1
	if testing.Short() {
		step = 5
	}
	for _, spec := range specs {
		if !spec.timestamps {
			continue
		}
		t.Run(spec.String(), func(t *testing.T) {
			man := writeAOF(t, t.TempDir(), spec)
			all, _ := loadAOF(t, man)
			b, _ := os.ReadFile(man)
			m, _ := aof.ParseManifest(b)
			files := m.Files()
			for fi, info := range files {
				orig, _ := os.ReadFile(filepath.Join(filepath.Dir(man), info.Name))
				last := fi == len(files)-1
				dir := copyDir(t, filepath.Dir(man))
				path := filepath.Join(dir, info.Name)
				for n := 0; n < len(orig); n += step {
					os.WriteFile(path, orig[:n], 0o644)
					oracle, oerr := aof.LoadFile(path, last, aof.LoadOptions{Truncated: true, RDB: skipRDB(t, path)})
					r := checkAOF(t, dir, AOFOptions{})
					switch {
					case !last:
						if r.Verdict != Valid && r.Verdict != Damaged {
							t.Fatalf("%s cut at %d: %v", info.Name, n, r.Verdict)
						}
					case oerr != nil:
						t.Fatalf("%s cut at %d: the loader fails: %v", info.Name, n, oerr)
					case oracle.Truncated != (r.Verdict == Repairable) ||
						(r.Verdict != Valid && r.Verdict != Repairable):
						t.Fatalf("%s cut at %d: %v (%v), loader truncates: %v", info.Name, n, r.Verdict, r.Problem, oracle.Truncated)
					case r.Verdict == Repairable && !onlyAnnotations(orig, oracle.TruncatedAt, r.Files[len(r.Files)-1].ValidUpTo):
						t.Fatalf("%s cut at %d: valid up to %d, the loader cuts at %d", info.Name, n,
							r.Files[len(r.Files)-1].ValidUpTo, oracle.TruncatedAt)
					}
					if now, _ := os.ReadFile(path); len(now) != n {
						t.Fatalf("a check without --fix changed the file")
					}
					if r.Verdict != Repairable {
						continue
					}
					f := checkAOF(t, dir, AOFOptions{Fix: true})
					if f.Verdict != Repaired {
						t.Fatalf("%s cut at %d: --fix: %v %v", info.Name, n, f.Verdict, f.Problem)
					}
					if st, _ := os.Stat(path); st.Size() != r.Files[len(r.Files)-1].ValidUpTo {
						t.Fatalf("fixed to %d bytes", st.Size())
					}
					got, err := loadAOF(t, filepath.Join(dir, filepath.Base(man)))
					if err != nil || !isPrefix(got, all) {
						t.Fatalf("%s cut at %d, fixed: %v\n%q", info.Name, n, err, got)
					}
					if again := checkAOF(t, dir, AOFOptions{}); again.Verdict != Valid {
						t.Fatalf("after --fix: %v", again.Verdict)
					}
				}
			}
		})
	}
}

// onlyAnnotations reports whether b[from:to] is nothing but "#" lines:
// the server's loader cuts a file after its last whole command,
// valkey-check-aof (and CheckAOF) after its last whole command or
// annotation.
func onlyAnnotations(b []byte, from, to int64) bool {
	if from > to {
		return false
	}
	for _, l := range bytes.SplitAfter(b[from:to], []byte("\n")) {
		if len(l) > 0 && l[0] != '#' {
			return false
		}
	}
	return true
}

// skipRDB is an RDB callback for aof.LoadFile that checks the RDB at the
// start of path and skips exactly its bytes.
func skipRDB(t testing.TB, path string) func(string, io.Reader) error {
	return func(_ string, rd io.Reader) error {
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		r := checkRDBBytes(b)
		if r.Problem != nil {
			return r.Problem.Err
		}
		_, err = io.CopyN(io.Discard, rd, r.End)
		return err
	}
}

// TestCheckAOFBitFlips flips every bit of the last file: the check never
// passes what the server's loader refuses, and a repaired AOF loads.
func TestCheckAOFBitFlips(t *testing.T) {
	man := writeAOF(t, t.TempDir(), aofSpec{timestamps: true, rewrite: "abort"})
	dir := filepath.Dir(man)
	path := lastFile(t, man)
	orig, _ := os.ReadFile(path)
	step := 1
	if testing.Short() {
		step = 7
	}
	for i := 0; i < len(orig); i += step {
		for bit := range 8 {
			c := bytes.Clone(orig)
			c[i] ^= 1 << bit
			os.WriteFile(path, c, 0o644)
			r := checkAOF(t, dir, AOFOptions{Fix: true})
			_, err := loadAOF(t, man)
			switch {
			case r.Verdict == Damaged && r.Problem.NotAOF && i == 0:
			case r.Verdict == Valid, r.Verdict == Repaired:
				if err != nil {
					t.Fatalf("bit %d of byte %d: %v, but the loader: %v", bit, i, r.Verdict, err)
				}
			default:
				t.Fatalf("bit %d of byte %d: %v %v", bit, i, r.Verdict, r.Problem)
			}
		}
	}
}

// cmdText renders commands given as space-separated words.
func cmdText(cmds ...string) []byte {
	var b []byte
	for _, c := range cmds {
		if strings.HasPrefix(c, "#") {
			b = append(b, c+"\r\n"...)
			continue
		}
		f := strings.Fields(c)
		b = fmt.Appendf(b, "*%d\r\n", len(f))
		for _, a := range f {
			b = fmt.Appendf(b, "$%d\r\n%s\r\n", len(a), a)
		}
	}
	return b
}

// TestCheckAOFRules: the walk's rules on single files, each as the last
// file (fixable) and, in a manifest, as a file that is not the last (not
// fixable, and never cut).
func TestCheckAOFRules(t *testing.T) {
	good := cmdText("SELECT 0", "SET a 1")
	tests := []struct {
		name  string
		data  []byte
		valid int64  // ValidUpTo, or -1: the file is valid
		what  string // in the problem
	}{
		{"good", good, -1, ""},
		{"annotations", cmdText("#TS:1", "SET a 1", "#anything", "#TS:2"), -1, ""},
		{"transaction", cmdText("MULTI", "SET a 1", "exec"), -1, ""},
		{"cut annotation", append(bytes.Clone(good), "#TS:12"...), -1, ""},
		{"cut count", append(bytes.Clone(good), "*3\r"...), int64(len(good)), "CRLF"},
		{"cut length", append(bytes.Clone(good), "*3\r\n$3\r\nSET\r\n$"...), int64(len(good)), "argument length"},
		{"cut argument", append(bytes.Clone(good), "*3\r\n$3\r\nSET\r\n$1\r\na\r"...), int64(len(good)), "ends inside an argument"},
		{"no CRLF after argument", append(bytes.Clone(good), "*1\r\n$4\r\nPINGxx\r\n"...), int64(len(good)), "not CRLF"},
		{"junk in the middle", append(append(bytes.Clone(good), "junk\r\n"...), good...), int64(len(good)), "where a command"},
		{"bad length prefix", append(append(bytes.Clone(good), "*1\r\n%4\r\nPING\r\n"...), good...), int64(len(good)), "starts with '%'"},
		{"negative length", append(bytes.Clone(good), "*1\r\n$-4\r\nPING\r\n"...), int64(len(good)), "out of range"},
		{"trailing space", append(bytes.Clone(good), "*1 \r\n$4\r\nPING\r\n"...), int64(len(good)), "CRLF"},
		{"empty command", append(cmdText("SET a 1"), "*0\r\n"...), int64(len(cmdText("SET a 1"))), "0 arguments"},
		{"MULTI open", append(bytes.Clone(good), cmdText("MULTI", "SET b 2")...), int64(len(good)), "MULTI without EXEC"},
		{"nested MULTI", append(bytes.Clone(good), cmdText("MULTI", "SET b 2", "MULTI", "EXEC")...), int64(len(good)), "MULTI inside"},
		{"EXEC alone", append(bytes.Clone(good), cmdText("EXEC")...), int64(len(good)), "EXEC outside"},
		{"MULTI with a NUL", append(bytes.Clone(good), "*1\r\n$6\r\nMULTI\x00\r\n"...), int64(len(good)), "MULTI without EXEC"},
		{"cut in a transaction", append(bytes.Clone(good), cmdText("MULTI", "SET b 2")[:20]...), int64(len(good)), "argument length"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := writeFile(t, dir, "appendonly.aof", tc.data)
			r := checkAOF(t, path, AOFOptions{})
			f := r.Files[0]
			if r.Input != InputRESP || f.Role != "aof" || !f.Last {
				t.Fatalf("%v %+v", r.Input, f)
			}
			if tc.valid < 0 {
				if r.Verdict != Valid || f.ValidUpTo != int64(len(tc.data)) {
					t.Fatalf("%v %v, valid up to %d", r.Verdict, r.Problem, f.ValidUpTo)
				}
				return
			}
			if r.Verdict != Repairable || f.ValidUpTo != tc.valid || !strings.Contains(r.Problem.What, tc.what) {
				t.Fatalf("%v, valid up to %d: %v", r.Verdict, f.ValidUpTo, r.Problem)
			}
			if r.Problem.ValkeyAccepts != (tc.name == "empty command") {
				t.Errorf("ValkeyAccepts %v", r.Problem.ValkeyAccepts)
			}
			// Not the last file: not fixable, and not cut.
			writeFile(t, dir, "m.manifest", []byte("file appendonly.aof seq 1 type b\nfile x.incr.aof seq 1 type i\n"))
			writeFile(t, dir, "x.incr.aof", good)
			m := checkAOF(t, filepath.Join(dir, "m.manifest"), AOFOptions{Fix: true})
			if m.Verdict != Damaged || len(m.Files) != 1 || !strings.Contains(m.Problem.What, "only the last file may be cut") {
				t.Fatalf("as a base: %v %v", m.Verdict, m.Problem)
			}
			if b, _ := os.ReadFile(path); !bytes.Equal(b, tc.data) {
				t.Fatal("a file that is not the last was changed")
			}
			fixed := checkAOF(t, path, AOFOptions{Fix: true})
			if b, _ := os.ReadFile(path); fixed.Verdict != Repaired || int64(len(b)) != tc.valid {
				t.Fatalf("--fix: %v, %d bytes", fixed.Verdict, len(b))
			}
		})
	}
}

// TestCheckAOFSingleFiles: an old-style AOF with an RDB preamble and a
// RESP tail, and a lone RDB base file.
func TestCheckAOFSingleFiles(t *testing.T) {
	dir := t.TempDir()
	rdbb := testRDB(t, true)
	tail := cmdText("#TS:5", "SET a 1", "MULTI", "INCR n", "EXEC")
	path := writeFile(t, dir, "appendonly.aof", append(bytes.Clone(rdbb), tail...))
	r := checkAOF(t, path, AOFOptions{})
	f := r.Files[0]
	if r.Verdict != Valid || r.Input != InputRDBPreamble || f.RDB == nil || f.RDB.Keys != 7 || f.RDB.End != int64(len(rdbb)) ||
		f.Commands != 4 || f.Annotations != 1 {
		t.Fatalf("%v %v %+v", r.Verdict, r.Problem, f)
	}
	// The tail cut: fixable, never into the RDB.
	writeFile(t, dir, "appendonly.aof", append(bytes.Clone(rdbb), tail[:len(tail)-3]...))
	r = checkAOF(t, path, AOFOptions{Fix: true})
	if r.Verdict != Repaired || r.Files[0].CutTo != int64(len(rdbb)+len(cmdText("#TS:5", "SET a 1"))) {
		t.Fatalf("%v %+v", r.Verdict, r.Files[0])
	}
	// A bad preamble is not fixable.
	bad := append(bytes.Clone(rdbb), tail...)
	bad[len(rdbb)-1] ^= 1
	writeFile(t, dir, "appendonly.aof", bad)
	r = checkAOF(t, path, AOFOptions{Fix: true})
	if r.Verdict != Damaged || !strings.Contains(r.Problem.What, "RDB preamble") || r.Problem.Offset != int64(len(rdbb)-8) {
		t.Fatalf("%v %v", r.Verdict, r.Problem)
	}
	if b, _ := os.ReadFile(path); !bytes.Equal(b, bad) {
		t.Fatal("changed")
	}
	// A lone RDB base, and an empty file.
	r = checkAOF(t, writeFile(t, dir, "x.base.rdb", rdbb), AOFOptions{})
	if r.Verdict != Valid || r.Input != InputRDBPreamble || r.Files[0].Commands != 0 {
		t.Fatalf("%v %v", r.Verdict, r.Problem)
	}
	r = checkAOF(t, writeFile(t, dir, "empty.aof", nil), AOFOptions{})
	if r.Verdict != Valid || r.Input != InputRESP || r.Files[0].Size != 0 {
		t.Fatalf("%v %v", r.Verdict, r.Problem)
	}
	// "REDIS" with fewer than 8 bytes is not an RDB, nor an AOF: not cut.
	short := writeFile(t, dir, "short.aof", []byte("REDIS"))
	r = checkAOF(t, short, AOFOptions{Fix: true})
	if r.Verdict != Damaged || r.Input != InputRESP || !r.Problem.NotAOF || fileSize(t, short) != 5 {
		t.Fatalf("%v %v", r.Verdict, r.Problem)
	}
	// Nor is a manifest whose first line is blank cut as commands.
	man := writeFile(t, dir, "x.manifest", []byte("\nfile a seq 1 type b\n"))
	r = checkAOF(t, man, AOFOptions{Fix: true})
	if r.Verdict != Damaged || r.Input != InputManifest || !strings.Contains(r.Problem.What, "bad manifest") || fileSize(t, man) == 0 {
		t.Fatalf("%v %v", r.Verdict, r.Problem)
	}
}

// TestCheckAOFManifestProblems: a missing file, a bad manifest, a
// directory without or with several manifests.
func TestCheckAOFManifestProblems(t *testing.T) {
	man := writeAOF(t, t.TempDir(), aofSpec{preamble: true, rewrite: "abort"})
	dir := filepath.Dir(man)
	b, _ := os.ReadFile(man)
	m, _ := aof.ParseManifest(b)
	for _, f := range m.Files() {
		d := copyDir(t, dir)
		os.Remove(filepath.Join(d, f.Name))
		r := checkAOF(t, filepath.Join(d, filepath.Base(man)), AOFOptions{Fix: true})
		p := r.Problem
		if r.Verdict != Damaged || p == nil || p.File != f.Name || p.Offset != -1 || !strings.Contains(p.What, "cannot open") {
			t.Fatalf("%s missing: %v %+v", f.Name, r.Verdict, p)
		}
	}
	d := copyDir(t, dir)
	bad := filepath.Join(d, filepath.Base(man))
	os.WriteFile(bad, append(bytes.Clone(b), "file x seq 1 type q\n"...), 0o644)
	if r := checkAOF(t, bad, AOFOptions{}); r.Verdict != Damaged || !strings.Contains(r.Problem.What, "Unknown AOF file type") {
		t.Fatalf("bad manifest: %v %v", r.Verdict, r.Problem)
	}
	os.Remove(bad)
	if _, err := CheckAOF(d, AOFOptions{}); err == nil || !strings.Contains(err.Error(), "no AOF manifest") {
		t.Error(err)
	}
	writeFile(t, d, "a.manifest", b)
	writeFile(t, d, "b.manifest", b)
	if _, err := CheckAOF(d, AOFOptions{}); err == nil || !strings.Contains(err.Error(), "several") {
		t.Error(err)
	}
	if _, err := CheckAOF(filepath.Join(d, "nothing"), AOFOptions{}); err == nil {
		t.Error("a missing path checked")
	}
	// A manifest listing only history files: nothing to load, valid.
	os.Remove(filepath.Join(d, "b.manifest"))
	writeFile(t, d, "a.manifest", []byte("file a.1.base.rdb seq 1 type h\n"))
	if r := checkAOF(t, d, AOFOptions{}); r.Verdict != Valid || r.Listed != 0 {
		t.Errorf("%v %v", r.Verdict, r.Listed)
	}
}

// TestCheckAOFTimestamp: --truncate-to-timestamp cuts the last file at
// its first annotation past the time, refuses a cut in another file or
// at the start of the last, and refuses a malformed annotation.
func TestCheckAOFTimestamp(t *testing.T) {
	// Two incr files; the clock starts at tsStart, 10s per unit, five
	// units per file.
	man := writeAOF(t, t.TempDir(), aofSpec{timestamps: true, rewrite: "abort"})
	all, _ := loadAOF(t, man)
	path := lastFile(t, man)
	orig, _ := os.ReadFile(path)
	for _, tc := range []struct {
		ts      int64
		verdict Verdict
		units   int    // units (one annotation each) kept in the last file
		what    string // in the problem
	}{
		{tsStart + 100, Valid, 5, ""},
		{tsStart + 90, Valid, 5, ""},
		{tsStart + 70, TimestampCut, 3, ""},
		{tsStart + 55, TimestampCut, 1, ""},
		{tsStart + 50, TimestampCut, 1, ""},
		{tsStart + 45, Damaged, 5, "the file starts with timestamp"},
		{tsStart + 30, Damaged, 5, "not the last"},
	} {
		dir := copyDir(t, filepath.Dir(man))
		m := filepath.Join(dir, filepath.Base(man))
		p := filepath.Join(dir, filepath.Base(path))
		r := checkAOF(t, m, AOFOptions{TruncateToTimestamp: tc.ts})
		if r.Verdict != tc.verdict {
			t.Fatalf("ts %d: %v %v", tc.ts, r.Verdict, r.Problem)
		}
		b, _ := os.ReadFile(p)
		if n := bytes.Count(b, []byte("#TS:")); n != tc.units || (tc.what != "" && !strings.Contains(r.Problem.What, tc.what)) {
			t.Fatalf("ts %d: %d units kept; %v", tc.ts, n, r.Problem)
		}
		if tc.verdict != TimestampCut {
			if !bytes.Equal(b, orig) {
				t.Fatalf("ts %d: changed", tc.ts)
			}
			continue
		}
		want := fmt.Sprintf("#TS:%d\r\n", tc.ts-tc.ts%10+10)
		if !bytes.HasPrefix(orig[len(b):], []byte(want)) || r.Files[len(r.Files)-1].CutTo != int64(len(b)) {
			t.Fatalf("ts %d: cut before %q", tc.ts, orig[len(b):min(len(orig), len(b)+20)])
		}
		got, err := loadAOF(t, m)
		if err != nil || !isPrefix(got, all) || len(got) >= len(all) {
			t.Fatalf("ts %d: %v %d of %d commands", tc.ts, err, len(got), len(all))
		}
	}
	// Malformed annotations matter only with the option.
	dir := t.TempDir()
	for _, ann := range []string{"#TS:abc", "#TS:12x", "#TS:99999999999999999999", "#TS:"} {
		f := writeFile(t, dir, "appendonly.aof", cmdText("SET a 1", ann, "SET b 2"))
		if r := checkAOF(t, f, AOFOptions{}); r.Verdict != Valid {
			t.Errorf("%s without the option: %v", ann, r.Verdict)
		}
		r := checkAOF(t, f, AOFOptions{TruncateToTimestamp: 10})
		want := Damaged
		if ann == "#TS:" { // strtol reads no digits: 0, which is not later
			want = Valid
		}
		if r.Verdict != want {
			t.Errorf("%s: %v %v", ann, r.Verdict, r.Problem)
		}
	}
	// A cut inside a transaction goes before its MULTI.
	f := writeFile(t, dir, "appendonly.aof", cmdText("SET a 1", "#TS:5", "MULTI", "SET b 2", "#TS:20", "EXEC"))
	r := checkAOF(t, f, AOFOptions{TruncateToTimestamp: 10})
	if r.Verdict != TimestampCut || r.Files[0].CutTo != int64(len(cmdText("SET a 1", "#TS:5"))) {
		t.Fatalf("%v %+v", r.Verdict, r.Files[0])
	}
}
