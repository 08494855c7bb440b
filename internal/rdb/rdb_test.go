package rdb_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"testing"
	"testing/iotest"
	"time"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/rdb/rdbtest"
)

// writeFile writes entries (grouped by DB) with BeginDB hints.
func writeFile(t testing.TB, entries []*rdb.Entry, opts rdb.Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := rdb.NewWriter(&buf, opts)
	for i := 0; i < len(entries); {
		db := entries[i].DB
		j, expires := i, 0
		for ; j < len(entries) && entries[j].DB == db; j++ {
			if entries[j].ExpireMs != -1 {
				expires++
			}
		}
		if err := w.BeginDB(db, uint64(j-i), uint64(expires)); err != nil {
			t.Fatal(err)
		}
		for ; i < j; i++ {
			if err := w.WriteEntry(entries[i]); err != nil {
				t.Fatalf("WriteEntry %q: %v", entries[i].Key, err)
			}
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// readFile loads b, then clears it: entries must not alias the input.
func readFile(t testing.TB, b []byte) ([]*rdb.Entry, rdb.Info) {
	t.Helper()
	var got []*rdb.Entry
	l := rdb.Loader{OnEntry: func(e *rdb.Entry) error { got = append(got, e); return nil }}
	info, err := l.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	clear(b)
	return got, info
}

func compare(t *testing.T, want, got []*rdb.Entry) {
	t.Helper()
	if len(want) != len(got) {
		t.Fatalf("%d entries, want %d", len(got), len(want))
	}
	for i := range want {
		if d := rdbtest.Diff(want[i], got[i]); d != "" {
			t.Errorf("entry %d (%q): %s", i, want[i].Key, d)
		}
	}
}

func TestCRC64Vector(t *testing.T) {
	if got := ds.CRC64(0, []byte("123456789")); got != 0xe9c6d914c4b8d9ca {
		t.Fatalf("CRC64(123456789) = %#x", got)
	}
}

func TestRoundTripCoverage(t *testing.T) {
	for _, opts := range []rdb.Options{
		rdb.DefaultOptions(),
		{Limits: rdb.DefaultLimits()},
		{Limits: rdb.Limits{ListMaxListpackSize: 3, HashMaxListpackEntries: 2, HashMaxListpackValue: 4,
			SetMaxIntsetEntries: 3, SetMaxListpackEntries: 2, SetMaxListpackValue: 4,
			ZSetMaxListpackEntries: 0, ZSetMaxListpackValue: 0}, Compression: true, Checksum: true},
		{Limits: func() rdb.Limits { l := rdb.DefaultLimits(); l.ListMaxListpackSize = -5; return l }(), Compression: true},
		{Limits: func() rdb.Limits { l := rdb.DefaultLimits(); l.ListMaxListpackSize = -1; return l }(), Compression: true},
	} {
		want := rdbtest.Coverage()
		b := writeFile(t, want, opts)
		got, info := readFile(t, b)
		if info.Version != 11 || (info.Checksum == 0) == opts.Checksum {
			t.Errorf("info %+v with checksum %v", info, opts.Checksum)
		}
		compare(t, want, got)
	}
}

func TestRoundTripRandom(t *testing.T) {
	seeds := 30
	if testing.Short() {
		seeds = 5
	}
	for seed := range seeds {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		size := 1 + seed%4
		n := 40
		if size == 4 { // megabytes per key
			n = 6
		}
		want := rdbtest.RandomDataset(r, n, 1+seed%3, size)
		opts := rdb.DefaultOptions()
		opts.Compression = seed%3 != 0
		b := writeFile(t, want, opts)
		got, _ := readFile(t, b)
		compare(t, want, got)
		// Every value also round-trips as a DUMP payload.
		for _, e := range want {
			p, err := rdb.DumpPayload(e, opts)
			if err != nil {
				t.Fatal(err)
			}
			d, err := rdb.ParseDumpPayload(p)
			if err != nil {
				t.Fatalf("ParseDumpPayload(%q): %v", e.Key, err)
			}
			clear(p) // the entry must not alias the payload
			d.DB, d.Key, d.ExpireMs = e.DB, e.Key, e.ExpireMs
			if diff := rdbtest.Diff(e, d); diff != "" {
				t.Errorf("DUMP %q: %s", e.Key, diff)
			}
		}
	}
}

func TestHeader(t *testing.T) {
	opts := rdb.DefaultOptions()
	opts.CTime = time.Unix(1700000000, 0)
	opts.UsedMem = 123456
	b := writeFile(t, rdbtest.Coverage()[:3], opts)
	if !bytes.HasPrefix(b, []byte("REDIS0011\xfa\x0avalkey-ver\x058.0.1\xfa\x0aredis-bits\xc0\x40\xfa\x05ctime\xc2")) {
		t.Fatalf("header % x", b[:48])
	}
	aux := map[string]string{}
	var resize [][3]uint64
	l := rdb.Loader{
		OnEntry:    func(e *rdb.Entry) error { return nil },
		OnAux:      func(k, v []byte) error { aux[string(k)] = string(v); return nil },
		OnResizeDB: func(db int, k, e uint64) error { resize = append(resize, [3]uint64{uint64(db), k, e}); return nil },
	}
	if _, err := l.Load(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"valkey-ver": "8.0.1", "redis-bits": "64", "ctime": "1700000000", "used-mem": "123456", "aof-base": "0"}
	for k, v := range want {
		if aux[k] != v {
			t.Errorf("aux %s = %q, want %q", k, aux[k], v)
		}
	}
	if len(resize) != 1 || resize[0] != [3]uint64{0, 3, 1} {
		t.Errorf("RESIZEDB %v", resize)
	}
	// The trailer is the CRC64 of everything before it.
	if got, want := b[len(b)-8:], ds.CRC64(0, b[:len(b)-8]); !bytes.Equal(got, le64(want)) {
		t.Errorf("trailer % x, want %#x", got, want)
	}
}

func le64(v uint64) []byte {
	b := make([]byte, 8)
	for i := range b {
		b[i] = byte(v >> (8 * i))
	}
	return b
}

func TestChecksum(t *testing.T) {
	b := writeFile(t, rdbtest.Coverage()[:5], rdb.DefaultOptions())
	bad := bytes.Clone(b)
	bad[len(bad)-1] ^= 1
	l := rdb.Loader{OnEntry: func(*rdb.Entry) error { return nil }}
	_, err := l.Load(bytes.NewReader(bad))
	var fe *rdb.FormatError
	if !errors.Is(err, rdb.ErrChecksum) || !errors.As(err, &fe) || fe.Offset != int64(len(b)-8) {
		t.Fatalf("flipped trailer: %v", err)
	}
	l.IgnoreChecksum = true
	if _, err := l.Load(bytes.NewReader(bad)); err != nil {
		t.Fatalf("IgnoreChecksum: %v", err)
	}
	// A zero trailer (rdbchecksum no) is not checked.
	off := writeFile(t, rdbtest.Coverage()[:5], rdb.Options{Limits: rdb.DefaultLimits(), Compression: true})
	if !bytes.Equal(off[len(off)-8:], make([]byte, 8)) {
		t.Fatalf("checksum off: trailer % x", off[len(off)-8:])
	}
	l.IgnoreChecksum = false
	if _, err := l.Load(bytes.NewReader(off)); err != nil {
		t.Fatal(err)
	}
}

// TestBadInput: every truncation and many corruptions of a file give an
// error (with an offset inside the file) or a successful load, never a
// panic.
func TestBadInput(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	b := writeFile(t, rdbtest.RandomDataset(r, 12, 2, 1), rdb.DefaultOptions())
	l := rdb.Loader{OnEntry: func(*rdb.Entry) error { return nil }}
	for n := 0; n < len(b); n++ {
		_, err := l.Load(bytes.NewReader(b[:n]))
		var fe *rdb.FormatError
		if !errors.As(err, &fe) || !errors.Is(err, rdb.ErrCorrupt) {
			t.Fatalf("prefix %d: %v", n, err)
		}
		if fe.Offset > int64(n) || fe.Offset < 0 {
			t.Fatalf("prefix %d: offset %d", n, fe.Offset)
		}
	}
	for range 3000 {
		c := bytes.Clone(b)
		for range 1 + r.IntN(3) {
			c[r.IntN(len(c))] = byte(r.IntN(256))
		}
		l.IgnoreChecksum = r.IntN(2) == 0
		_, err := l.Load(bytes.NewReader(c))
		if err != nil && !errors.Is(err, rdb.ErrCorrupt) && !errors.Is(err, rdb.ErrUnsupported) && !errors.Is(err, rdb.ErrVersion) {
			t.Fatalf("corruption: unexpected error %v", err)
		}
	}
}

func TestDumpPayloadVersion(t *testing.T) {
	e := rdb.NewEntry(0, nil, rdb.KindString)
	e.String = []byte("hello")
	p, err := rdb.DumpPayload(e, rdb.DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	// What valkey-server 8.0.1 answers to DUMP of "hello".
	want := []byte("\x00\x05hello\x0b\x00")
	if !bytes.Equal(p[:len(p)-8], want) {
		t.Fatalf("payload % x", p)
	}
	if _, err := rdb.ParseDumpPayload(p); err != nil {
		t.Fatal(err)
	}
	with := func(ver uint16) []byte {
		q := bytes.Clone(p[:len(p)-10])
		q = append(q, byte(ver), byte(ver>>8))
		return append(q, le64(ds.CRC64(0, q))...)
	}
	for _, v := range []uint16{1, 9, 10, 11} {
		if _, err := rdb.ParseDumpPayload(with(v)); err != nil {
			t.Errorf("version %d: %v", v, err)
		}
	}
	for _, v := range []uint16{12, 79, 80, 0xFFFF} {
		if _, err := rdb.ParseDumpPayload(with(v)); !errors.Is(err, rdb.ErrVersion) {
			t.Errorf("version %d: %v", v, err)
		}
	}
	bad := bytes.Clone(p)
	bad[3] ^= 0x20
	if _, err := rdb.ParseDumpPayload(bad); !errors.Is(err, rdb.ErrChecksum) {
		t.Errorf("corrupted payload: %v", err)
	}
	if _, err := rdb.ParseDumpPayload(p[:9]); !errors.Is(err, rdb.ErrCorrupt) {
		t.Errorf("short payload: %v", err)
	}
}

func TestEmptyCollection(t *testing.T) {
	e := rdb.NewEntry(0, []byte("k"), rdb.KindList)
	if _, err := rdb.DumpPayload(e, rdb.DefaultOptions()); !errors.Is(err, rdb.ErrEmpty) {
		t.Fatalf("DumpPayload(empty list): %v", err)
	}
	var buf bytes.Buffer
	w := rdb.NewWriter(&buf, rdb.DefaultOptions())
	if err := w.WriteEntry(e); !errors.Is(err, rdb.ErrEmpty) {
		t.Fatalf("WriteEntry(empty list): %v", err)
	}
	ok := rdb.NewEntry(0, []byte("s"), rdb.KindString)
	if err := w.WriteEntry(ok); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, _ := readFile(t, buf.Bytes())
	if len(got) != 1 {
		t.Fatalf("%d entries after a rejected one", len(got))
	}
}

// TestSmallReads: the result does not depend on how the io.Reader splits
// the input; a read error is returned as is.
func TestSmallReads(t *testing.T) {
	want := rdbtest.Coverage()
	b := writeFile(t, want, rdb.DefaultOptions())
	for name, r := range map[string]func() io.Reader{
		"one-byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(b)) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(b)) },
		"data-err": func() io.Reader { return iotest.DataErrReader(bytes.NewReader(b)) },
	} {
		var got []*rdb.Entry
		l := rdb.Loader{OnEntry: func(e *rdb.Entry) error { got = append(got, e); return nil }}
		if _, err := l.Load(r()); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		compare(t, want, got)
	}
	boom := errors.New("boom")
	l := rdb.Loader{OnEntry: func(*rdb.Entry) error { return nil }}
	_, err := l.Load(io.MultiReader(bytes.NewReader(b[:1000]), iotest.ErrReader(boom)))
	if err != boom {
		t.Fatalf("read error: %v", err)
	}
	// A callback's error stops the load and comes back as is.
	l.OnEntry = func(*rdb.Entry) error { return boom }
	if _, err := l.Load(bytes.NewReader(b)); err != boom {
		t.Fatalf("callback error: %v", err)
	}
}

// TestEncodingChoice: the RDB type the writer picks for each Coverage key
// under Valkey's default limits (tests/rdbcompat checks the same against
// valkey-server's DUMP).
func TestEncodingChoice(t *testing.T) {
	const (
		str, set, zset2, hash, intset, zsetLP, hashLP, quicklist2, setLP = 0, 2, 5, 4, 11, 17, 16, 18, 20
	)
	want := map[string]byte{
		"str:int8": str, "str:text-100k": str, "list:small": quicklist2, "list:plain": quicklist2,
		"set:intset16": intset, "set:intset32": intset, "set:intset64": intset, "set:intset512": intset,
		"set:ints513": set, "set:listpack": setLP, "set:listpack128": setLP, "set:hashtable129": set,
		"set:long-member": set, "set:not-canonical": setLP,
		"zset:listpack": zsetLP, "zset:listpack128": zsetLP, "zset:skiplist129": zset2, "zset:long-member": zset2,
		"hash:listpack": hashLP, "hash:listpack512": hashLP, "hash:hashtable513": hash,
		"hash:long-value": hash, "hash:long-field": hash,
	}
	seen := 0
	for _, e := range rdbtest.Coverage() {
		w, ok := want[string(e.Key)]
		if !ok {
			continue
		}
		seen++
		p, err := rdb.DumpPayload(e, rdb.DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if p[0] != w {
			t.Errorf("%s: RDB type %d, want %d", e.Key, p[0], w)
		}
	}
	if seen != len(want) {
		t.Fatalf("%d of %d keys found", seen, len(want))
	}
}

// TestIntsetWidths: an intset takes the narrowest width that holds all
// its members, as intsetAdd's upgrades leave it.
func TestIntsetWidths(t *testing.T) {
	for _, tc := range []struct {
		members []string
		width   byte
	}{
		{[]string{"1", "-32768", "32767"}, 2},
		{[]string{"1", "32768"}, 4},
		{[]string{"-2147483648", "2147483647"}, 4},
		{[]string{"1", "2147483648"}, 8},
		{[]string{"-9223372036854775808", "9223372036854775807"}, 8},
	} {
		e := rdb.NewEntry(0, nil, rdb.KindSet)
		for _, m := range tc.members {
			e.Set = append(e.Set, []byte(m))
		}
		p, err := rdb.DumpPayload(e, rdb.Options{Limits: rdb.DefaultLimits()})
		if err != nil {
			t.Fatal(err)
		}
		// type, string length, then the intset's encoding field.
		if p[0] != 11 || p[2] != tc.width {
			t.Errorf("%v: % x", tc.members, p)
		}
	}
}

func TestReplAuxAndFunctions(t *testing.T) {
	var buf bytes.Buffer
	opts := rdb.DefaultOptions()
	opts.Repl = &rdb.ReplInfo{StreamDB: 3, ID: "abc", Offset: 1 << 40}
	w := rdb.NewWriter(&buf, opts)
	code := bytes.Repeat([]byte("#!lua name=x\n"), 10) // compressible
	if err := w.WriteFunction(code); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var keys []string
	aux := map[string]string{}
	var got []byte
	l := rdb.Loader{
		OnEntry:    func(*rdb.Entry) error { return nil },
		OnAux:      func(k, v []byte) error { keys = append(keys, string(k)); aux[string(k)] = string(v); return nil },
		OnFunction: func(c []byte) error { got = c; return nil },
	}
	if _, err := l.Load(&buf); err != nil {
		t.Fatal(err)
	}
	wantKeys := []string{"valkey-ver", "redis-bits", "ctime", "used-mem", "repl-stream-db", "repl-id", "repl-offset", "aof-base"}
	if fmt.Sprint(keys) != fmt.Sprint(wantKeys) || aux["repl-offset"] != "1099511627776" || aux["repl-stream-db"] != "3" {
		t.Errorf("aux %v %v", keys, aux)
	}
	if !bytes.Equal(got, code) {
		t.Errorf("function %q", got)
	}
}
