package rdb_test

import (
	"encoding/hex"
	"fmt"
	"os"
	"testing"

	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/rdb/rdbtest"
)

// streamTypes are the stream RDB types: a fuzzed body's first byte picks
// one, so that every input exercises the stream loader.
var streamTypes = [...]byte{15, 19, 21}

// FuzzStreamPayload: any stream value parses or fails with a
// FormatError, never panics; what parses round-trips through
// DumpPayload, with and without compression.
func FuzzStreamPayload(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		body := append([]byte{streamTypes[int(data[0])%len(streamTypes)]}, data[1:]...)
		e, err := rdb.ParseDumpPayload(withFooter(body, rdb.Version))
		checkErr(t, err)
		if err != nil {
			return
		}
		for _, compress := range []bool{false, true} {
			opts := rdb.DefaultOptions()
			opts.Compression = compress
			p, err := rdb.DumpPayload(e, opts)
			if err != nil {
				t.Fatalf("DumpPayload of a parsed stream: %v", err)
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

// TestWriteStreamFuzzSeeds writes FuzzStreamPayload's seed corpus (the
// bodies of streams Valkey dumped, in the three types) when
// RDB_WRITE_SEEDS is set.
func TestWriteStreamFuzzSeeds(t *testing.T) {
	if os.Getenv("RDB_WRITE_SEEDS") == "" {
		t.Skip("set RDB_WRITE_SEEDS=1 to regenerate testdata/fuzz")
	}
	for i, h := range rdb.ValkeyStreamDumps() {
		p, err := hex.DecodeString(h)
		if err != nil {
			t.Fatal(err)
		}
		body := p[:len(p)-10]
		for j, typ := range streamTypes {
			if typ != body[0] {
				continue
			}
			b := append([]byte{byte(j)}, body[1:]...)
			writeSeed(t, "FuzzStreamPayload", fmt.Sprintf("valkey-%d", i), b)
		}
	}
	for i, b := range rdb.OldStreamBodies() {
		for j, typ := range streamTypes {
			if typ == b[0] {
				writeSeed(t, "FuzzStreamPayload", fmt.Sprintf("old-%d", i), append([]byte{byte(j)}, b[1:]...))
			}
		}
	}
}
