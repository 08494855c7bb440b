package filecheck

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/aof"
	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// testNow is the clock of the checks: keys expiring before it count as
// already expired.
var testNow = time.Unix(1_700_000_000, 0)

// testRDB is an RDB written by Corvid's writer: a function library, db 0
// with a string, an expired string, a list, a set and a hash (listpack),
// db 3 with a sorted set and a string that expires later.
func testRDB(t testing.TB, checksum bool) []byte {
	t.Helper()
	var b bytes.Buffer
	o := rdb.DefaultOptions()
	o.Checksum = checksum
	o.CTime = testNow
	w := rdb.NewWriter(&b, o)
	w.WriteFunction([]byte("#!lua name=lib\nserver.register_function('f', function() return 1 end)"))
	w.BeginDB(0, 5, 1)
	e := rdb.NewEntry(0, []byte("str"), rdb.KindString)
	e.String = []byte("hello")
	w.WriteEntry(e)
	e = rdb.NewEntry(0, []byte("old"), rdb.KindString)
	e.String, e.ExpireMs = []byte("12345"), testNow.UnixMilli()-1000
	w.WriteEntry(e)
	e = rdb.NewEntry(0, []byte("list"), rdb.KindList)
	e.List = [][]byte{[]byte("a"), []byte("b"), []byte("c")}
	w.WriteEntry(e)
	e = rdb.NewEntry(0, []byte("set"), rdb.KindSet)
	e.Set = [][]byte{[]byte("1"), []byte("2"), []byte("x")}
	w.WriteEntry(e)
	e = rdb.NewEntry(0, []byte("hash"), rdb.KindHash)
	e.Hash = []rdb.HashField{{Field: []byte("f1"), Value: []byte("v1")}, {Field: []byte("f2"), Value: []byte("v2")}}
	w.WriteEntry(e)
	w.BeginDB(3, 2, 1)
	e = rdb.NewEntry(3, []byte("zset"), rdb.KindZSet)
	e.ZSet = []rdb.ZMember{{Member: []byte("m"), Score: 1.5}, {Member: []byte("n"), Score: 2}}
	w.WriteEntry(e)
	e = rdb.NewEntry(3, []byte("later"), rdb.KindString)
	e.String, e.ExpireMs = []byte("v"), testNow.UnixMilli()+3600_000
	w.WriteEntry(e)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// checkRDBBytes checks b as an RDB file.
func checkRDBBytes(b []byte) *RDBReport {
	return checkRDB(bytes.NewReader(b), int64(len(b)), "test.rdb", testNow)
}

// writeFile writes b to dir/name and returns the path.
func writeFile(t testing.TB, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// aofSpec says what writeAOF writes.
type aofSpec struct {
	preamble   bool // an RDB base (testRDB) rather than a RESP one
	timestamps bool // "#TS:" annotations, the clock moving 10s per unit
	// rewrite after the first units: "commit" (a new base, one incr
	// file after it) or "abort" (two incr files)
	rewrite string
}

// tsStart is the first timestamp annotation writeAOF writes; the clock
// moves 10 seconds before each unit.
const tsStart = 1_700_000_000

// writeAOF writes a multi-part AOF in dir/appendonlydir with Corvid's
// writer and returns the manifest's path.
func writeAOF(t testing.TB, dir string, spec aofSpec) string {
	t.Helper()
	adir := filepath.Join(dir, "appendonlydir")
	clock := time.Unix(tsStart-10, 0)
	base := func(w io.Writer) error {
		if spec.preamble {
			_, err := w.Write(testRDB(t, true))
			return err
		}
		b := aof.AppendSelect(nil, 0)
		b = effects.AppendCommand(b, []byte("SET"), []byte("base"), []byte("1"))
		_, err := w.Write(b)
		return err
	}
	w, err := aof.Open(adir, "appendonly.aof", aof.Options{Fsync: aof.FsyncNo, Timestamps: spec.timestamps,
		RDBPreamble: spec.preamble, Snapshot: base, FlushInterval: -1, Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	units := func(tag string) {
		var u effects.Unit
		for _, ops := range [][]string{
			{"SET a " + tag},
			{"INCR n", "SET b " + tag}, // wrapped in MULTI/EXEC
			{"RPUSH l x y"},
			{"SET c 3|2", "DEL a|2"}, // db 2, wrapped
			{"SET d " + tag},
		} {
			clock = clock.Add(10 * time.Second)
			u.Reset()
			for _, op := range ops {
				db := 0
				if s, ok := strings.CutSuffix(op, "|2"); ok {
					op, db = s, 2
				}
				u.AddStrings(db, strings.Fields(op)...)
			}
			w.AppendUnit(&u)
		}
		if err := w.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	units("1")
	if spec.rewrite != "" {
		rw, err := w.StartRewrite()
		if err != nil {
			t.Fatal(err)
		}
		if err := base(rw.File()); err != nil {
			t.Fatal(err)
		}
		if spec.rewrite == "abort" {
			err = rw.Abort()
		} else {
			err = rw.Commit()
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	units("2")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(adir, aof.ManifestName("appendonly.aof"))
}

// loadAOF loads the AOF of a manifest with the server's loader, nothing
// truncated, and returns the commands it delivered.
func loadAOF(t testing.TB, manifest string) ([]string, error) {
	t.Helper()
	var cmds []string
	_, err := aof.Load(filepath.Dir(manifest), strings.TrimSuffix(filepath.Base(manifest), ".manifest"), aof.LoadOptions{
		RDB: func(_ string, r io.Reader) error {
			// One byte per read: the loader must not read past the RDB.
			l := rdb.Loader{OnEntry: func(*rdb.Entry) error { return nil }}
			_, err := l.Load(oneByte{r})
			return err
		},
		Command: func(argv [][]byte) error {
			cmds = append(cmds, string(bytes.Join(argv, []byte(" "))))
			return nil
		},
	})
	return cmds, err
}

// oneByte reads one byte at a time.
type oneByte struct{ r io.Reader }

func (o oneByte) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	return o.r.Read(p[:1])
}

// copyDir copies the regular files of src into a new temp dir.
func copyDir(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	ents, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, dst, e.Name(), b)
	}
	return dst
}

// lastFile is the path of the manifest's last file.
func lastFile(t testing.TB, manifest string) string {
	t.Helper()
	b, err := os.ReadFile(manifest)
	if err != nil {
		t.Fatal(err)
	}
	m, err := aof.ParseManifest(b)
	if err != nil {
		t.Fatal(err)
	}
	fs := m.Files()
	return filepath.Join(filepath.Dir(manifest), fs[len(fs)-1].Name)
}

// isPrefix reports whether a is a prefix of b.
func isPrefix(a, b []string) bool {
	if len(a) > len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
