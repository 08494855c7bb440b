package rdb

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Encoders for the formats only older servers write (ziplist, zipmap, RDB
// 9 types), to build test files. They follow ziplist.c and zipmap.c.

func zlEntry(prevlen int, v []byte) []byte {
	var b []byte
	if prevlen < 254 {
		b = append(b, byte(prevlen))
	} else {
		b = append(b, 0xFE)
		b = binary.LittleEndian.AppendUint32(b, uint32(prevlen))
	}
	if i, err := strconv.ParseInt(string(v), 10, 64); err == nil && len(v) <= 20 && strconv.FormatInt(i, 10) == string(v) {
		switch {
		case i >= 0 && i <= 12:
			return append(b, 0xF1+byte(i))
		case i >= math.MinInt8 && i <= math.MaxInt8:
			return append(b, 0xFE, byte(i))
		case i >= math.MinInt16 && i <= math.MaxInt16:
			return binary.LittleEndian.AppendUint16(append(b, 0xC0), uint16(i))
		case i >= -1<<23 && i < 1<<23:
			return append(b, 0xF0, byte(i), byte(i>>8), byte(i>>16))
		case i >= math.MinInt32 && i <= math.MaxInt32:
			return binary.LittleEndian.AppendUint32(append(b, 0xD0), uint32(i))
		}
		return binary.LittleEndian.AppendUint64(append(b, 0xE0), uint64(i))
	}
	switch l := len(v); {
	case l < 64:
		b = append(b, byte(l))
	case l < 16384:
		b = append(b, 0x40|byte(l>>8), byte(l))
	default:
		b = binary.BigEndian.AppendUint32(append(b, 0x80), uint32(l))
	}
	return append(b, v...)
}

func ziplist(vals ...[]byte) []byte {
	b := make([]byte, 10)
	prev, tail := 0, 10
	for _, v := range vals {
		tail = len(b)
		e := zlEntry(prev, v)
		b = append(b, e...)
		prev = len(e)
	}
	b = append(b, 0xFF)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	binary.LittleEndian.PutUint32(b[4:], uint32(tail))
	binary.LittleEndian.PutUint16(b[8:], uint16(len(vals)))
	return b
}

func zipmap(kv ...[]byte) []byte {
	b := []byte{byte(len(kv) / 2)}
	zl := func(l int) {
		if l < 254 {
			b = append(b, byte(l))
		} else {
			b = binary.LittleEndian.AppendUint32(append(b, 254), uint32(l))
		}
	}
	for i := 0; i < len(kv); i += 2 {
		zl(len(kv[i]))
		b = append(b, kv[i]...)
		zl(len(kv[i+1]))
		b = append(b, 2) // two free bytes
		b = append(b, kv[i+1]...)
		b = append(b, 0, 0)
	}
	return append(b, 0xFF)
}

func bs(ss ...string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}

// legacyFile builds an RDB file of version ver from raw key records.
type legacyFile struct{ b []byte }

func newLegacy(ver int) *legacyFile {
	return &legacyFile{b: []byte("REDIS" + strconv.FormatInt(int64(10000+ver), 10)[1:])}
}

func (f *legacyFile) str(s []byte) { f.b = appendLen(f.b, uint64(len(s))); f.b = append(f.b, s...) }

func (f *legacyFile) key(t byte, k string) { f.b = append(f.b, t); f.str([]byte(k)) }

func (f *legacyFile) done() []byte {
	b := append(f.b, opEOF)
	return binary.LittleEndian.AppendUint64(b, ds.CRC64(0, b))
}

func TestLegacyTypes(t *testing.T) {
	big := bytes.Repeat([]byte("q"), 300)
	f := newLegacy(9)
	f.b = append(f.b, opAux)
	f.str([]byte("redis-ver"))
	f.str([]byte("6.2.14"))
	f.b = append(f.b, opSelectDB, 2)
	f.b = append(f.b, opExpireTime)
	f.b = binary.LittleEndian.AppendUint32(f.b, 2000000000)
	f.key(typeListZiplist, "list-zl")
	f.str(ziplist(bs("a", "0", "12", "13", "-1", "200", "-30000", "8000000", "-2000000000", "9000000000000")...))
	f.key(typeListQuicklist, "list-ql")
	f.b = append(f.b, 3)
	f.str(ziplist(bs("x", "y")...))
	f.str(ziplist())
	f.str(ziplist(big, []byte("z")))
	f.key(typeHashZiplist, "hash-zl")
	f.str(ziplist(bs("f1", "v1", "f2", "17")...))
	f.key(typeZSetZiplist, "zset-zl")
	f.str(ziplist(bs("m1", "1.5", "m2", "2", "m0", "-inf")...))
	f.key(typeHashZipmap, "hash-zm")
	f.str(zipmap([]byte("a"), []byte("1"), big, []byte("long field"))) // 300-byte field: 5-byte length
	f.key(typeSetIntset, "set-is")
	f.str(intsetBytes([]int64{-5, 3, 70000}))
	f.key(typeZSet, "zset-v1")
	f.b = append(f.b, 3)
	f.str([]byte("a"))
	f.b = append(f.b, 3, '2', '.', '5')
	f.str([]byte("b"))
	f.b = append(f.b, 254)
	f.str([]byte("c"))
	f.b = append(f.b, 255)
	f.key(typeList, "list-v0")
	f.b = append(f.b, 2)
	f.str([]byte("p"))
	f.str([]byte("q"))
	f.key(typeListZiplist, "empty") // skipped, as Valkey skips empty keys
	f.str(ziplist())
	f.key(typeString, "s")
	f.str([]byte("v"))
	b := f.done()

	var got []*Entry
	l := Loader{OnEntry: func(e *Entry) error { got = append(got, e); return nil }}
	info, err := l.Load(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if info.Version != 9 || len(got) != 9 {
		t.Fatalf("version %d, %d entries", info.Version, len(got))
	}
	want := []struct {
		key  string
		kind Kind
		vals [][]byte
	}{
		{"list-zl", KindList, bs("a", "0", "12", "13", "-1", "200", "-30000", "8000000", "-2000000000", "9000000000000")},
		{"list-ql", KindList, append(bs("x", "y"), big, []byte("z"))},
		{"hash-zl", KindHash, bs("f1", "v1", "f2", "17")},
		{"zset-zl", KindZSet, bs("m0", "-Inf", "m1", "1.5", "m2", "2")},
		{"hash-zm", KindHash, [][]byte{[]byte("a"), []byte("1"), big, []byte("long field")}},
		{"set-is", KindSet, bs("-5", "3", "70000")},
		{"zset-v1", KindZSet, bs("c", "-Inf", "a", "2.5", "b", "+Inf")},
		{"list-v0", KindList, bs("p", "q")},
		{"s", KindString, bs("v")},
	}
	for i, w := range want {
		e := got[i]
		if string(e.Key) != w.key || e.Kind != w.kind || e.DB != 2 {
			t.Fatalf("entry %d: %q %v db %d, want %q %v", i, e.Key, e.Kind, e.DB, w.key, w.kind)
		}
		var vals [][]byte
		switch e.Kind {
		case KindList:
			vals = e.List
		case KindSet:
			vals = e.Set
		case KindString:
			vals = [][]byte{e.String}
		case KindHash:
			for _, h := range e.Hash {
				vals = append(vals, h.Field, h.Value)
			}
		case KindZSet:
			for _, z := range e.ZSet {
				vals = append(vals, z.Member, []byte(strconv.FormatFloat(z.Score, 'g', -1, 64)))
			}
		}
		if !equalBytes(vals, w.vals) {
			t.Errorf("%s: %q, want %q", w.key, vals, w.vals)
		}
	}
	if got[0].ExpireMs != 2000000000000 || got[1].ExpireMs != -1 {
		t.Errorf("expiry %d %d", got[0].ExpireMs, got[1].ExpireMs)
	}
}

func equalBytes(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestUnsupported: modules and module AUX data give ErrUnsupported
// naming the type and its offset; FUNCTION2 is handed to OnFunction or
// skipped. (Streams are read: stream_test.go.)
func TestUnsupported(t *testing.T) {
	for _, tc := range []struct {
		t    byte
		want string
	}{
		{typeModule2, "module"}, {typeModulePreGA, "module"},
	} {
		f := newLegacy(11)
		f.b = append(f.b, opSelectDB, 0)
		off := len(f.b)
		f.key(tc.t, "k")
		f.str([]byte("whatever"))
		_, err := (&Loader{OnEntry: func(*Entry) error { return nil }}).Load(bytes.NewReader(f.done()))
		var fe *FormatError
		if !errors.Is(err, ErrUnsupported) || !errors.As(err, &fe) || fe.Offset != int64(off) ||
			!bytes.Contains([]byte(err.Error()), []byte(tc.want)) {
			t.Errorf("type %d: %v (want offset %d)", tc.t, err, off)
		}
	}
	f := newLegacy(11)
	f.b = append(f.b, opModuleAux)
	if _, err := (&Loader{OnEntry: func(*Entry) error { return nil }}).Load(bytes.NewReader(f.done())); !errors.Is(err, ErrUnsupported) {
		t.Errorf("module aux: %v", err)
	}
	f = newLegacy(11)
	f.b = append(f.b, opFunction2)
	f.str([]byte("#!lua name=lib\nserver.register_function('f', function() return 1 end)"))
	f.key(typeString, "k")
	f.str([]byte("v"))
	b := f.done()
	var code []byte
	n := 0
	l := Loader{OnEntry: func(*Entry) error { n++; return nil }}
	if _, err := l.Load(bytes.NewReader(b)); err != nil || n != 1 {
		t.Fatalf("function skipped: %v, %d keys", err, n)
	}
	l.OnFunction = func(c []byte) error { code = c; return nil }
	if _, err := l.Load(bytes.NewReader(b)); err != nil || !bytes.HasPrefix(code, []byte("#!lua")) {
		t.Fatalf("function: %v, %q", err, code)
	}
}

func TestVersions(t *testing.T) {
	for _, v := range []int{0, 12, 80, 9999} {
		f := newLegacy(v)
		_, err := (&Loader{OnEntry: func(*Entry) error { return nil }}).Load(bytes.NewReader(f.done()))
		if !errors.Is(err, ErrVersion) {
			t.Errorf("version %d: %v", v, err)
		}
	}
	for _, magic := range []string{"REDIX0011", "VALKEY080", "REDIS00a1", ""} {
		_, err := (&Loader{OnEntry: func(*Entry) error { return nil }}).Load(bytes.NewReader([]byte(magic + "\xff")))
		if !errors.Is(err, ErrCorrupt) {
			t.Errorf("magic %q: %v", magic, err)
		}
	}
}

// TestDuplicates: sets, hashes and sorted sets with repeated members are
// corrupt; NaN scores too.
func TestDuplicates(t *testing.T) {
	lp := func(vals ...string) []byte {
		l := newListpack(0)
		for _, v := range vals {
			l.append([]byte(v))
		}
		return l.bytes()
	}
	for name, tc := range map[string]struct {
		t    byte
		blob []byte
	}{
		"set-listpack":  {typeSetListpack, lp("a", "b", "a")},
		"hash-listpack": {typeHashListpack, lp("f", "1", "f", "2")},
		"zset-listpack": {typeZSetListpack, lp("m", "1", "m", "2")},
		"zset-nan":      {typeZSetListpack, lp("m", "nan")},
		"hash-odd":      {typeHashListpack, lp("f", "1", "g")},
		"intset-order":  {typeSetIntset, append(intsetBytes([]int64{5, 3})[:0:0], intsetBytes([]int64{5, 3})...)},
	} {
		if name == "intset-order" {
			b := intsetBytes([]int64{3, 5})
			binary.LittleEndian.PutUint16(b[8:], 5)
			binary.LittleEndian.PutUint16(b[10:], 3)
			tc.blob = b
		}
		p := append([]byte{tc.t}, appendLen(nil, uint64(len(tc.blob)))...)
		p = append(p, tc.blob...)
		p = binary.LittleEndian.AppendUint16(p, Version)
		p = binary.LittleEndian.AppendUint64(p, ds.CRC64(0, p))
		if _, err := ParseDumpPayload(p); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestWriteLegacySeeds adds RDB 9 files with every legacy encoding to the
// FuzzReader seed corpus when RDB_WRITE_SEEDS is set.
func TestWriteLegacySeeds(t *testing.T) {
	if os.Getenv("RDB_WRITE_SEEDS") == "" {
		t.Skip("set RDB_WRITE_SEEDS=1 to regenerate testdata/fuzz")
	}
	seeds := map[string]func(f *legacyFile){
		"ziplist-list": func(f *legacyFile) {
			f.key(typeListZiplist, "l")
			f.str(ziplist(bs("a", "0", "12", "13", "-1", "200", "-30000", "8000000", "-2000000000", "9000000000000")...))
		},
		"quicklist-v1": func(f *legacyFile) {
			f.key(typeListQuicklist, "l")
			f.b = append(f.b, 2)
			f.str(ziplist(bs("x", "y")...))
			f.str(ziplist(bytes.Repeat([]byte("q"), 300)))
		},
		"ziplist-hash": func(f *legacyFile) { f.key(typeHashZiplist, "h"); f.str(ziplist(bs("f1", "v1", "f2", "17")...)) },
		"ziplist-zset": func(f *legacyFile) { f.key(typeZSetZiplist, "z"); f.str(ziplist(bs("m1", "1.5", "m2", "2")...)) },
		"zipmap":       func(f *legacyFile) { f.key(typeHashZipmap, "h"); f.str(zipmap(bs("a", "1", "bb", "22")...)) },
		"intset":       func(f *legacyFile) { f.key(typeSetIntset, "s"); f.str(intsetBytes([]int64{-5, 3, 70000})) },
		"zset-v1": func(f *legacyFile) {
			f.key(typeZSet, "z")
			f.b = append(f.b, 2)
			f.str([]byte("a"))
			f.b = append(f.b, 3, '2', '.', '5')
			f.str([]byte("b"))
			f.b = append(f.b, 254)
		},
		"expire-seconds": func(f *legacyFile) {
			f.b = append(f.b, opExpireTime, 1, 2, 3, 4, opIdle, 5, opFreq, 6)
			f.key(typeString, "k")
			f.str([]byte("v"))
		},
		"function": func(f *legacyFile) {
			f.b = append(f.b, opFunction2)
			f.str([]byte("#!lua name=lib\nserver.register_function('f', function() return 1 end)"))
		},
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzReader")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, build := range seeds {
		f := newLegacy(9)
		f.b = append(f.b, opSelectDB, 0, opResizeDB, 1, 0)
		build(f)
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", f.done())
		if err := os.WriteFile(filepath.Join(dir, "legacy-"+name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
