package filecheck

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/rdb"
)

func TestCheckRDBGood(t *testing.T) {
	for _, sum := range []bool{true, false} {
		b := testRDB(t, sum)
		r := checkRDBBytes(b)
		if r.Verdict != Valid || r.Problem != nil {
			t.Fatalf("checksum %v: %v %v", sum, r.Verdict, r.Problem)
		}
		if r.Version != rdb.Version || r.Keys != 7 || r.Expires != 2 || r.Expired != 1 || r.Functions != 1 {
			t.Errorf("version %d keys %d expires %d expired %d functions %d", r.Version, r.Keys, r.Expires, r.Expired, r.Functions)
		}
		wantTypes := map[string]int64{"string": 3, "list": 1, "set": 1, "hash": 1, "zset": 1}
		for k, v := range wantTypes {
			if r.Types[k] != v {
				t.Errorf("type %s: %d, want %d", k, r.Types[k], v)
			}
		}
		want := []DBCount{{DB: 0, Keys: 5, Expires: 1, HintKeys: 5, HintExpires: 1}, {DB: 3, Keys: 2, Expires: 1, HintKeys: 2, HintExpires: 1}}
		if len(r.DBs) != 2 || r.DBs[0] != want[0] || r.DBs[1] != want[1] {
			t.Errorf("dbs %+v", r.DBs)
		}
		if (r.Checksum != 0) != sum || r.End != int64(len(b)) {
			t.Errorf("checksum %x end %d of %d", r.Checksum, r.End, len(b))
		}
		if len(r.Aux) < 5 || r.Aux[0].Key != "valkey-ver" || r.Aux[0].Value != "8.0.1" {
			t.Errorf("aux %+v", r.Aux)
		}
		var out strings.Builder
		r.WriteText(&out)
		for _, s := range []string{"RDB version 11", `aux valkey-ver = "8.0.1"`, "db 3: 2 keys, 1 with an expiry",
			"hash 1, list 1, set 1, string 3, zset 1", "already expired: 1", "verdict: ok"} {
			if !strings.Contains(out.String(), s) {
				t.Errorf("report lacks %q:\n%s", s, out.String())
			}
		}
	}
}

// TestCheckRDBTruncated: every proper prefix of a file is bad, with the
// problem at or before its end and a description of what was being read.
func TestCheckRDBTruncated(t *testing.T) {
	b := testRDB(t, true)
	for n := range len(b) {
		r := checkRDBBytes(b[:n])
		if r.Verdict != Damaged || r.Problem == nil {
			t.Fatalf("prefix %d: %v", n, r.Verdict)
		}
		p := r.Problem
		if p.Offset > int64(n) || p.Doing == "" || !errors.Is(p.Err, rdb.ErrCorrupt) {
			t.Fatalf("prefix %d: %+v", n, p)
		}
		var out strings.Builder
		r.WriteText(&out)
		if !strings.Contains(out.String(), "verdict: bad") {
			t.Fatalf("prefix %d:\n%s", n, out.String())
		}
	}
}

// TestCheckRDBBitFlips: the CRC64 catches every single-bit flip, except
// those that turn the version into one before RDB 5, which has no
// checksum (Valkey reads such a file the same way).
func TestCheckRDBBitFlips(t *testing.T) {
	b := testRDB(t, true)
	for i := range b {
		for bit := range 8 {
			c := bytes.Clone(b)
			c[i] ^= 1 << bit
			if r := checkRDBBytes(c); r.Verdict == Valid && (r.Version >= 5 || i < 5) {
				t.Fatalf("flip of bit %d of byte %d passed", bit, i)
			}
		}
	}
}

// TestCheckRDBNamesKey: with no checksum, a bad value is reported with
// its key (a cut stream, for one); a module value is unsupported, with
// its key.
func TestCheckRDBNamesKey(t *testing.T) {
	b := testRDB(t, false)
	i := bytes.Index(b, []byte("\x04hash")) // the key, length-prefixed
	if i < 0 {
		t.Fatal("no hash key")
	}
	c := bytes.Clone(b)
	c[i+5] ^= 0xff // the listpack's length
	r := checkRDBBytes(c)
	if r.Verdict != Damaged || !strings.Contains(r.Problem.Doing, `value of key "hash" (hash-listpack, db 0)`) {
		t.Fatalf("%v %+v", r.Verdict, r.Problem)
	}
	// The list's key, renamed, after a stream's type byte, and the
	// stream cut short.
	j := bytes.Index(b, []byte("\x04list"))
	c = append(bytes.Clone(b[:j-1]), 15, 3, 's', 't', 'r', 0, 0, 0)
	r = checkRDBBytes(c)
	if r.Verdict != Damaged || !strings.Contains(r.Problem.Doing, `value of key "str" (stream, db 0)`) {
		t.Fatalf("%v %+v", r.Verdict, r.Problem)
	}
	// The same after a module value's type byte.
	c = append(bytes.Clone(b[:j-1]), 7, 3, 's', 't', 'r', 0, 0, 0)
	r = checkRDBBytes(c)
	if r.Verdict != Unsupported || !strings.Contains(r.Problem.Doing, `value of key "str" (module, db 0)`) {
		t.Fatalf("%v %+v", r.Verdict, r.Problem)
	}
	if r.Verdict.ExitCode() != 1 {
		t.Error("unsupported exits 0")
	}
}

func TestCheckRDBHeaderAndTrailer(t *testing.T) {
	b := testRDB(t, true)
	for name, c := range map[string][]byte{
		"signature": append([]byte("RODIS"), b[5:]...),
		"version":   append([]byte("REDIS0099"), b[9:]...),
		"empty":     nil,
	} {
		r := checkRDBBytes(c)
		if r.Verdict != Damaged || r.Problem.Doing != "reading the header" {
			t.Errorf("%s: %v %+v", name, r.Verdict, r.Problem)
		}
	}
	c := bytes.Clone(b)
	c[len(c)-1] ^= 1
	if r := checkRDBBytes(c); r.Problem == nil || r.Problem.Doing != "checking the CRC64 trailer" || r.Problem.Offset != int64(len(b)-8) {
		t.Errorf("checksum: %+v", r.Problem)
	}
	// Bytes after the trailer are not the RDB's business (an AOF tail).
	r := checkRDBBytes(append(bytes.Clone(b), "*1\r\n$4\r\nPING\r\n"...))
	if r.Verdict != Valid || r.End != int64(len(b)) {
		t.Errorf("tail: %v end %d", r.Verdict, r.End)
	}
}

func TestCheckRDBFile(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "dump.rdb", testRDB(t, true))
	r, err := CheckRDB(p)
	if err != nil || r.Verdict != Valid || r.File != "dump.rdb" || r.Size == 0 {
		t.Fatal(r, err)
	}
	if _, err := CheckRDB(filepath.Join(dir, "missing.rdb")); !errors.Is(err, os.ErrNotExist) {
		t.Error(err)
	}
	if _, err := CheckRDB(dir); err == nil {
		t.Error("a directory checked")
	}
}
