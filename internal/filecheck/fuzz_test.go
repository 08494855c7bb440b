package filecheck

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/corvid-kv/corvid/internal/aof"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// FuzzWalk: the AOF walk never panics and keeps its promises on any
// input: the valid prefix is within the input, walks clean itself, and
// the server's loader reads it whole (what --fix leaves loads); an input
// the walk passes, the loader passes.
func FuzzWalk(f *testing.F) {
	f.Add(cmdText("SELECT 0", "SET a 1", "MULTI", "INCR n", "EXEC"), true, int64(0))
	f.Add(cmdText("#TS:10", "SET a 1", "#TS:20", "SET b 2", "#TS:30"), true, int64(15))
	f.Add(cmdText("#TS:10", "SET a 1", "#TS:20", "SET b 2"), false, int64(15))
	f.Add(append(cmdText("SET a 1"), "*3\r\n$3\r\nSET\r\n$1\r\nb\r\n$5\r\nab"...), true, int64(0))
	f.Add([]byte("*0\r\n* 1\r\n$+4\r\nPING\r\n*1\r\n$5\r\nMULTI\x00\r\n"), true, int64(0))
	f.Add([]byte("*1\r\n$-1\r\n*2\r\n$99999999999999999999\r\n"), true, int64(0))
	f.Add([]byte("#TS:abc\r\n*1\r\n$4\r\nPING\r\nREDIS0011"), true, int64(-1))
	f.Fuzz(func(t *testing.T, data []byte, last bool, ts int64) {
		size := int64(len(data))
		w := walkRESP(bytes.NewReader(data), 0, size, last, ts)
		if w.validUpTo < 0 || w.validUpTo > size || w.tsCut > size || w.commands < 0 {
			t.Fatalf("valid up to %d, cut %d of %d", w.validUpTo, w.tsCut, size)
		}
		if w.problem == nil && w.tsCut < 0 && w.validUpTo != size {
			t.Fatalf("no problem, valid up to %d of %d", w.validUpTo, size)
		}
		if w.problem != nil && (w.problem.What == "" || w.problem.Offset < w.validUpTo) {
			t.Fatalf("problem %+v before the valid prefix %d", w.problem, w.validUpTo)
		}
		keep := w.validUpTo
		if w.tsCut >= 0 {
			keep = w.tsCut
		}
		prefix := data[:keep]
		if p := walkRESP(bytes.NewReader(prefix), 0, keep, true, 0); p.problem != nil || p.validUpTo != keep {
			t.Fatalf("the valid prefix %q: %+v", prefix, p.problem)
		}
		path := writeFile(t, t.TempDir(), "f.aof", prefix)
		noRDB := aof.LoadOptions{RDB: func(string, io.Reader) error { return errors.New("an RDB") }}
		if res, err := aof.LoadFile(path, true, noRDB); err != nil || res.Truncated {
			t.Fatalf("the loader refuses the valid prefix %q: %v", prefix, err)
		}
	})
}

// FuzzCheckRDB: the RDB check never panics, agrees with rdb.Loader on
// every input (its verdict and offset are the loader's), and says what
// was being read at a problem; a key it names comes from the file.
func FuzzCheckRDB(f *testing.F) {
	b := testRDB(f, true)
	f.Add(b)
	f.Add(testRDB(f, false))
	f.Add(b[:len(b)/2])
	f.Add([]byte("REDIS0011\xfe\x00\x0f\x03str\x00"))
	f.Add([]byte("REDIS0003\x00\x01k\x01v\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r := checkRDBBytes(data)
		_, err := (&rdb.Loader{OnEntry: func(*rdb.Entry) error { return nil }}).Load(bytes.NewReader(data))
		if (err == nil) != (r.Verdict == Valid) {
			t.Fatalf("%v, the loader: %v", r.Verdict, err)
		}
		if err == nil {
			if r.End <= 0 || r.End > int64(len(data)) {
				t.Fatalf("end %d of %d", r.End, len(data))
			}
			return
		}
		var fe *rdb.FormatError
		if !errors.As(err, &fe) || r.Problem.Offset != fe.Offset || r.Problem.Doing == "" {
			t.Fatalf("%+v, the loader: %v", r.Problem, err)
		}
		if (r.Verdict == Unsupported) != errors.Is(err, rdb.ErrUnsupported) {
			t.Fatalf("%v for %v", r.Verdict, err)
		}
	})
}
