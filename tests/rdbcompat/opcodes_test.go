//go:build linux

package rdbcompat

import (
	"bytes"
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/rdb/rdbtest"
)

// TestValkeyFunctionsAndStreams: a Valkey file with a function library
// loads (the library goes to OnFunction), and so does one with a stream
// (type 21, as a KindStream entry with its entries).
func TestValkeyFunctionsAndStreams(t *testing.T) {
	bin := valkeyPath(t)
	s := startServer(t, bin, t.TempDir())
	c := s.client(0)
	defer c.Close()
	ctx := context.Background()
	lib := "#!lua name=mylib\nserver.register_function('f', function() return 1 end)"
	if err := c.Do(ctx, "function", "load", lib).Err(); err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, "k", "v", 0)
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	var code []byte
	keys := 0
	l := rdb.Loader{
		OnEntry:    func(*rdb.Entry) error { keys++; return nil },
		OnFunction: func(c []byte) error { code = c; return nil },
	}
	f, err := os.Open(filepath.Join(s.dir, "x.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Load(f)
	f.Close()
	if err != nil || string(code) != lib || keys != 1 {
		t.Fatalf("function file: %v, code %q, %d keys", err, code, keys)
	}

	if err := c.Do(ctx, "xadd", "st", "*", "f", "v").Err(); err != nil {
		t.Fatal(err)
	}
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(s.dir, "x.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	streams := 0
	keys = 0
	l.OnEntry = func(e *rdb.Entry) error {
		keys++
		if string(e.Key) == "st" && e.Kind == rdb.KindStream && e.Stream != nil {
			streams++
		}
		return nil
	}
	if _, err := l.Load(bytes.NewReader(b)); err != nil || keys != 2 || streams != 1 {
		t.Fatalf("stream file: %v, %d keys, %d streams", err, keys, streams)
	}

	// DUMP payload versions: Valkey 8.0.1 restores up to RDB 11 and
	// refuses 12, as ParseDumpPayload does.
	e := rdb.NewEntry(0, nil, rdb.KindString)
	e.String = []byte("x")
	p, err := rdb.DumpPayload(e, rdb.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	for _, ver := range []uint16{9, 10, 11, 12, 80} {
		q := binary.LittleEndian.AppendUint16(bytes.Clone(p[:len(p)-10]), ver)
		q = binary.LittleEndian.AppendUint64(q, ds.CRC64(0, q))
		serr := c.Do(ctx, "restore", "r", 0, q, "replace").Err()
		_, perr := rdb.ParseDumpPayload(q)
		if (serr == nil) != (perr == nil) {
			t.Errorf("version %d: RESTORE %v, ParseDumpPayload %v", ver, serr, perr)
		}
	}
}

// TestValkeyLoadsOurFunctions: a library written with WriteFunction, and
// replication AUX fields, load into valkey-server.
func TestValkeyLoadsOurFunctions(t *testing.T) {
	bin := valkeyPath(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.rdb")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	opts := rdb.DefaultOptions()
	opts.Repl = &rdb.ReplInfo{StreamDB: 0, ID: "0123456789012345678901234567890123456789", Offset: 12345}
	w := rdb.NewWriter(f, opts)
	lib := "#!lua name=ourlib\nserver.register_function('ourf', function() return 42 end)"
	w.WriteFunction([]byte(lib))
	e := rdb.NewEntry(0, []byte("k"), rdb.KindString)
	e.String = []byte("v")
	w.BeginDB(0, 1, 0)
	w.WriteEntry(e)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	checkRDB(t, bin, path)
	s := startServer(t, bin, dir)
	c := s.client(0)
	defer c.Close()
	if got, err := c.Do(context.Background(), "fcall", "ourf", 0).Int(); err != nil || got != 42 {
		t.Fatalf("FCALL ourf: %d, %v", got, err)
	}
	if got, err := c.Get(context.Background(), "k").Result(); err != nil || got != "v" {
		t.Fatalf("GET k: %q, %v", got, err)
	}
}

// TestValkeyChecksOptions: files written without compression or without
// checksum pass valkey-check-rdb too.
func TestValkeyChecksOptions(t *testing.T) {
	bin := valkeyPath(t)
	for name, opts := range map[string]rdb.Options{
		"no-compression": {Limits: rdb.DefaultLimits(), Checksum: true},
		"no-checksum":    {Limits: rdb.DefaultLimits(), Compression: true},
		"aof-base":       {Limits: rdb.DefaultLimits(), Compression: true, Checksum: true, AOFBase: true},
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "x.rdb")
			writeFile(t, path, rdbtest.Coverage(), opts)
			checkRDB(t, bin, path)
		})
	}
}

// TestValkeyIdleFreq: Valkey's IDLE opcodes (LRU policies) and FREQ
// opcodes (LFU policies) are read into Entry.Idle and Entry.Freq.
func TestValkeyIdleFreq(t *testing.T) {
	bin := valkeyPath(t)
	s := startServer(t, bin, t.TempDir(), "--maxmemory-policy", "allkeys-lru")
	c := s.client(0)
	defer c.Close()
	ctx := context.Background()
	for _, k := range []string{"a", "b", "c"} {
		c.Set(ctx, k, k, 0)
	}
	for _, policy := range []string{"allkeys-lru", "allkeys-lfu"} {
		if err := c.ConfigSet(ctx, "maxmemory-policy", policy).Err(); err != nil {
			t.Fatal(err)
		}
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		n := 0
		l := rdb.Loader{OnEntry: func(e *rdb.Entry) error {
			n++
			lru := policy == "allkeys-lru"
			if (e.Idle >= 0) != lru || (e.Freq >= 0) == lru {
				t.Errorf("%s: %q idle %d freq %d", policy, e.Key, e.Idle, e.Freq)
			}
			return nil
		}}
		f, err := os.Open(filepath.Join(s.dir, "x.rdb"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = l.Load(f)
		f.Close()
		if err != nil || n != 3 {
			t.Fatalf("%s: %v, %d keys", policy, err, n)
		}
	}
}
