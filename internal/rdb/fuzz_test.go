package rdb_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/rdb/rdbtest"
)

// checkErr fails on errors that are not the package's documented ones.
func checkErr(t *testing.T, err error) {
	if err != nil && !errors.Is(err, rdb.ErrCorrupt) && !errors.Is(err, rdb.ErrUnsupported) && !errors.Is(err, rdb.ErrVersion) {
		t.Fatalf("undocumented error: %v", err)
	}
	var fe *rdb.FormatError
	if err != nil && !errors.As(err, &fe) {
		t.Fatalf("error without an offset: %v", err)
	}
}

// FuzzReader: any input loads or fails with a FormatError, never panics;
// what loads writes back and loads again as the same entries.
func FuzzReader(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		var got []*rdb.Entry
		l := rdb.Loader{IgnoreChecksum: true, OnEntry: func(e *rdb.Entry) error { got = append(got, e); return nil }}
		_, err := l.Load(bytes.NewReader(data))
		checkErr(t, err)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := rdb.NewWriter(&buf, rdb.DefaultOptions())
		for _, e := range got {
			if err := w.WriteEntry(e); err != nil {
				t.Fatalf("WriteEntry of a loaded entry: %v", err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		var again []*rdb.Entry
		l = rdb.Loader{OnEntry: func(e *rdb.Entry) error { again = append(again, e); return nil }}
		if _, err := l.Load(&buf); err != nil {
			t.Fatalf("reloading our own file: %v", err)
		}
		if len(again) != len(got) {
			t.Fatalf("%d entries, reloaded %d", len(got), len(again))
		}
		for i := range got {
			if d := rdbtest.Diff(got[i], again[i]); d != "" {
				t.Fatalf("entry %d: %s", i, d)
			}
		}
	})
}

// withFooter appends an RDB version and a correct CRC64 to body.
func withFooter(body []byte, ver uint16) []byte {
	p := binary.LittleEndian.AppendUint16(bytes.Clone(body), ver)
	return binary.LittleEndian.AppendUint64(p, ds.CRC64(0, p))
}

// FuzzDumpPayload: any payload, and any body given a valid footer, parses
// or fails with a FormatError; what parses round-trips through
// DumpPayload.
func FuzzDumpPayload(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := rdb.ParseDumpPayload(data)
		checkErr(t, err)
		e, err := rdb.ParseDumpPayload(withFooter(data, rdb.Version))
		checkErr(t, err)
		if err != nil {
			return
		}
		for _, compress := range []bool{false, true} {
			opts := rdb.DefaultOptions()
			opts.Compression = compress
			p, err := rdb.DumpPayload(e, opts)
			if err != nil {
				t.Fatalf("DumpPayload of a parsed entry: %v", err)
			}
			e2, err := rdb.ParseDumpPayload(p)
			if err != nil {
				t.Fatalf("parsing our own payload: %v", err)
			}
			if d := rdbtest.Diff(e, e2); d != "" {
				t.Fatal(d)
			}
		}
	})
}

// TestWriteFuzzSeeds regenerates the committed seed corpus under
// testdata/fuzz when RDB_WRITE_SEEDS is set.
func TestWriteFuzzSeeds(t *testing.T) {
	if os.Getenv("RDB_WRITE_SEEDS") == "" {
		t.Skip("set RDB_WRITE_SEEDS=1 to regenerate testdata/fuzz")
	}
	cov := rdbtest.Coverage()
	// Small entries only: seeds stay small.
	var small []*rdb.Entry
	for _, e := range cov {
		if sz := entrySize(e); sz < 600 {
			small = append(small, e)
		}
	}
	for i, e := range small {
		opts := rdb.DefaultOptions()
		writeSeed(t, "FuzzReader", fmt.Sprintf("cov-%02d", i), writeFile(t, []*rdb.Entry{e}, opts))
		p, err := rdb.DumpPayload(e, opts)
		if err != nil {
			t.Fatal(err)
		}
		writeSeed(t, "FuzzDumpPayload", fmt.Sprintf("cov-%02d", i), p[:len(p)-10])
	}
	r := rand.New(rand.NewPCG(9, 9))
	for i := range 6 {
		opts := rdb.DefaultOptions()
		opts.Compression = i%2 == 0
		writeSeed(t, "FuzzReader", fmt.Sprintf("random-%d", i), writeFile(t, rdbtest.RandomDataset(r, 6, 2, 1), opts))
	}
	// Small limits give every encoding with few elements.
	opts := rdb.Options{Limits: rdb.Limits{ListMaxListpackSize: 2, HashMaxListpackEntries: 2, HashMaxListpackValue: 8,
		SetMaxIntsetEntries: 2, SetMaxListpackEntries: 2, SetMaxListpackValue: 8, ZSetMaxListpackEntries: 2, ZSetMaxListpackValue: 8}}
	writeSeed(t, "FuzzReader", "small-limits", writeFile(t, rdbtest.RandomDataset(r, 10, 1, 1), opts))
}

func entrySize(e *rdb.Entry) int {
	n := len(e.String)
	for _, v := range e.List {
		n += len(v)
	}
	for _, v := range e.Set {
		n += len(v)
	}
	for _, z := range e.ZSet {
		n += len(z.Member) + 8
	}
	for _, h := range e.Hash {
		n += len(h.Field) + len(h.Value)
	}
	return n
}

func writeSeed(t *testing.T, target, name string, data []byte) {
	dir := filepath.Join("testdata", "fuzz", target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", data)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}
