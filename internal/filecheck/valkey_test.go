package filecheck

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// Differential tests against Valkey 8.0.1's own checkers: valkey-server
// run as valkey-check-aof or valkey-check-rdb (it picks its mode from
// argv[0]). They skip when valkey-server is absent, unless
// CORVID_REQUIRE_VALKEY is set (testutil.ValkeyServerPath).

// outcome is a checker's verdict on a damaged AOF: "ok", "fixable" with
// the bytes the last file keeps after --fix, "truncated" (by timestamp)
// with the same, or "bad".
type outcome struct {
	verdict string
	kept    int64 // the last file's size after the repair; -1 without one
}

func (o outcome) String() string { return fmt.Sprintf("%s/%d", o.verdict, o.kept) }

// valkeyAOF is valkey-check-aof's outcome on the AOF in dir (manifest or
// single file name): checked, then, if not valid, checked with --fix
// (answering y); a repair is read from the last file's size.
func valkeyAOF(t testing.TB, bin, dir, name, last string, ts int64) outcome {
	t.Helper()
	path := filepath.Join(dir, name)
	if ts != 0 {
		code, out := testutil.RunAs(t, bin, "valkey-check-aof", "", "--truncate-to-timestamp", fmt.Sprint(ts), path)
		switch {
		case code != 0:
			return outcome{"bad", -1}
		case strings.Contains(out, "Successfully truncated AOF ") && strings.Contains(out, " to timestamp "):
			return outcome{"truncated", fileSize(t, last)}
		}
		return outcome{"ok", -1}
	}
	if code, _ := testutil.RunAs(t, bin, "valkey-check-aof", "", path); code == 0 {
		return outcome{"ok", -1}
	}
	code, out := testutil.RunAs(t, bin, "valkey-check-aof", "y\n", "--fix", path)
	if code != 0 || !strings.Contains(out, "Successfully truncated AOF") {
		return outcome{"bad", -1}
	}
	return outcome{"fixable", fileSize(t, last)}
}

// corvidAOF is CheckAOF's outcome, found the same way.
func corvidAOF(t testing.TB, dir, name, last string, ts int64) (outcome, *AOFReport) {
	t.Helper()
	path := filepath.Join(dir, name)
	if ts != 0 {
		r := checkAOF(t, path, AOFOptions{TruncateToTimestamp: ts})
		switch r.Verdict {
		case Valid:
			return outcome{"ok", -1}, r
		case TimestampCut:
			return outcome{"truncated", fileSize(t, last)}, r
		}
		return outcome{"bad", -1}, r
	}
	r := checkAOF(t, path, AOFOptions{})
	switch r.Verdict {
	case Valid:
		return outcome{"ok", -1}, r
	case Repairable:
		f := checkAOF(t, path, AOFOptions{Fix: true})
		if f.Verdict != Repaired {
			t.Fatalf("fixable, but --fix: %v %v", f.Verdict, f.Problem)
		}
		return outcome{"fixable", fileSize(t, last)}, r
	}
	return outcome{"bad", -1}, r
}

func fileSize(t testing.TB, path string) int64 {
	t.Helper()
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// compareAOF puts the AOF in srcDir, with its last file (base name
// lastName) replaced by data, before both checkers and compares their
// outcomes. Where Corvid applies a rule valkey-check-aof does not (a
// command with no arguments), Valkey must not have cut earlier.
func compareAOF(t *testing.T, bin, srcDir, name, lastName string, data []byte, ts int64, what string) {
	t.Helper()
	run := func() (string, string) {
		d := copyDir(t, srcDir)
		writeFile(t, d, lastName, data)
		return d, filepath.Join(d, lastName)
	}
	vd, vlast := run()
	cd, clast := run()
	v := valkeyAOF(t, bin, vd, name, vlast, ts)
	c, rep := corvidAOF(t, cd, name, clast, ts)
	if v == c {
		return
	}
	if rep.Problem != nil && rep.Problem.NotAOF && v.verdict == "fixable" && v.kept == 0 && c.verdict == "bad" {
		return // Corvid's --fix, which does not ask, cuts no file that is not an AOF
	}
	if rep.Problem != nil && rep.Problem.ValkeyAccepts &&
		(v.verdict == "ok" || v.verdict == "fixable" && c.verdict == "fixable" && v.kept >= c.kept) {
		return
	}
	t.Errorf("%s: valkey-check-aof %v, Corvid %v (%v)", what, v, c, rep.Problem)
}

// TestValkeyCheckAOF damages an AOF written by Corvid's writer (an RDB
// base, two incr files with annotations, transactions, several databases)
// in every way the table tests do, and requires valkey-check-aof's
// outcome: valid, fixable (and the same cut), truncated to a timestamp
// (the same cut), or not repairable.
func TestValkeyCheckAOF(t *testing.T) {
	bin := testutil.ValkeyServerPath(t)
	man := writeAOF(t, t.TempDir(), aofSpec{preamble: true, timestamps: true, rewrite: "abort"})
	dir, name := filepath.Dir(man), filepath.Base(man)
	files := func() []string {
		var fs []string
		b, _ := os.ReadFile(man)
		for _, l := range strings.Split(string(b), "\n") {
			if f := strings.Fields(l); len(f) > 1 {
				fs = append(fs, f[1])
			}
		}
		return fs
	}()
	last := files[len(files)-1]
	orig, _ := os.ReadFile(filepath.Join(dir, last))
	// Cuts at every offset, other damage at every fifth (-short: every
	// 9th and 23rd).
	step, mstep := 1, 5
	if testing.Short() {
		step, mstep = 9, 23
	}
	compareAOF(t, bin, dir, name, last, orig, 0, "intact")
	for n := 0; n < len(orig); n += step {
		compareAOF(t, bin, dir, name, last, orig[:n], 0, fmt.Sprintf("cut at %d", n))
	}
	for k, n := 0, 0; n < len(orig); k, n = k+1, n+mstep {
		c := bytes.Clone(orig)
		c[n] ^= 1 << (k % 8)
		compareAOF(t, bin, dir, name, last, c, 0, fmt.Sprintf("bit %d of byte %d flipped", k%8, n))
		for _, b := range []byte{'*', '$', '\n', 0} {
			if orig[n] != b {
				c[n] = b
				compareAOF(t, bin, dir, name, last, c, 0, fmt.Sprintf("byte %d set to %q", n, b))
			}
		}
	}
	for _, ts := range []int64{tsStart - 100, tsStart + 30, tsStart + 45, tsStart + 50, tsStart + 65, tsStart + 90, tsStart + 1000} {
		compareAOF(t, bin, dir, name, last, orig, ts, fmt.Sprintf("--truncate-to-timestamp %d", ts))
	}
	// The earlier files: a cut, a flipped byte.
	for _, f := range files[:len(files)-1] {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		for n := 0; n < len(b); n += 3 * mstep {
			d := copyDir(t, dir)
			writeFile(t, d, f, b[:n])
			compareAOF(t, bin, d, name, last, orig, 0, fmt.Sprintf("%s cut at %d", f, n))
		}
	}
	// A file the manifest lists is missing.
	for _, f := range files[:len(files)-1] { // compareAOF writes the last
		d := copyDir(t, dir)
		os.Remove(filepath.Join(d, f))
		compareAOF(t, bin, d, name, last, orig, 0, f+" missing")
	}
}

// TestValkeyCheckAOFRules runs the rules' table on single files through
// both checkers.
func TestValkeyCheckAOFRules(t *testing.T) {
	bin := testutil.ValkeyServerPath(t)
	good := cmdText("SELECT 0", "SET a 1")
	for i, data := range [][]byte{
		good,
		cmdText("#TS:1", "SET a 1", "#anything", "#TS:2"),
		cmdText("MULTI", "SET a 1", "exec"),
		append(bytes.Clone(good), "#TS:12"...),
		append(bytes.Clone(good), "*3\r"...),
		append(bytes.Clone(good), "*1\r\n$4\r\nPINGxx\r\n"...),
		append(append(bytes.Clone(good), "junk\r\n"...), good...),
		append(bytes.Clone(good), "*1\r\n$-4\r\nPING\r\n"...),
		append(bytes.Clone(good), "*1 \r\n$4\r\nPING\r\n"...),
		append(bytes.Clone(good), "* 1\r\n$+4\r\nPING\r\n"...),
		append(cmdText("SET a 1"), "*0\r\n"...),
		append(bytes.Clone(good), cmdText("MULTI", "SET b 2")...),
		append(bytes.Clone(good), cmdText("MULTI", "SET b 2", "MULTI", "EXEC")...),
		append(bytes.Clone(good), cmdText("EXEC")...),
		append(bytes.Clone(good), "*1\r\n$6\r\nMULTI\x00\r\n"...),
		append(bytes.Clone(testRDB(t, true)), good...),
		append(bytes.Clone(testRDB(t, true)), good[:len(good)-2]...),
		[]byte("REDIS"),
	} {
		dir := t.TempDir()
		compareAOF(t, bin, dir, "appendonly.aof", "appendonly.aof", data, 0, fmt.Sprintf("case %d %q", i, data[:min(len(data), 40)]))
		for _, ts := range []int64{1, 5} {
			compareAOF(t, bin, dir, "appendonly.aof", "appendonly.aof", data, ts, fmt.Sprintf("case %d, ts %d", i, ts))
		}
	}
}

// TestValkeyCheckRDB: valkey-check-rdb and CheckRDB agree (sound or not)
// on RDB files from Corvid's writer, cut at every offset and with bits
// flipped, with and without a checksum.
func TestValkeyCheckRDB(t *testing.T) {
	bin := testutil.ValkeyServerPath(t)
	dir := t.TempDir()
	// Cuts at every offset, a bit flipped at every third (-short: every
	// 9th and 23rd).
	step, mstep := 1, 3
	if testing.Short() {
		step, mstep = 9, 23
	}
	for _, sum := range []bool{true, false} {
		b := testRDB(t, sum)
		var cases [][]byte
		for n := 0; n <= len(b); n += step {
			cases = append(cases, b[:n])
		}
		for k, n := 0, 0; n < len(b); k, n = k+1, n+mstep {
			c := bytes.Clone(b)
			c[n] ^= 1 << (k % 8)
			cases = append(cases, c)
		}
		for i, c := range cases {
			path := writeFile(t, dir, "dump.rdb", c)
			code, out := testutil.RunAs(t, bin, "valkey-check-rdb", "", path)
			r := checkRDBBytes(c)
			switch {
			case (code == 0) == (r.Verdict == Valid):
			case code == 0 && r.Problem != nil && strings.Contains(r.Problem.What, "score is not a number"):
				// Corvid's loader parses listpack scores; Valkey parses
				// them when used.
			case code != 0 && strings.Contains(out, "While doing: read-object-value") && skipsEmpty(c):
				// valkey-check-rdb fails on an empty collection, which both
				// servers skip when loading.
			default:
				t.Errorf("checksum %v, case %d (%d bytes): valkey-check-rdb exit %d, Corvid %v (%v)",
					sum, i, len(c), code, r.Verdict, r.Problem)
			}
		}
	}
}

// skipsEmpty reports whether rdb.Loader skips a key record of the RDB b
// (an empty collection): the next key record after each record it
// delivers must be the next entry it delivers.
func skipsEmpty(b []byte) bool {
	var prog rdb.Progress
	from, skipped := int64(9), false
	next := func() { from = prog.Offset() }
	l := rdb.Loader{
		OnEntry: func(e *rdb.Entry) error {
			h, err := rdb.ReadKeyHeader(bytes.NewReader(b[from:]))
			if err != nil || !bytes.Equal(h.Key, e.Key) {
				skipped = true
			}
			next()
			return nil
		},
		OnAux:      func(_, _ []byte) error { next(); return nil },
		OnResizeDB: func(int, uint64, uint64) error { next(); return nil },
		OnFunction: func([]byte) error { next(); return nil },
	}
	if _, err := l.LoadProgress(bytes.NewReader(b), &prog); err != nil {
		return false
	}
	if _, err := rdb.ReadKeyHeader(bytes.NewReader(b[from:])); err == nil {
		skipped = true // after the last entry
	}
	return skipped
}
