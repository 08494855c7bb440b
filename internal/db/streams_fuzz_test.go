package db

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// FuzzStreamID: the stream ID parsers never panic; an ID they accept
// formats as <ms>-<seq> and parses back to itself (strictly, and as an
// exclusive interval bound); a run of decimal digits parses as
// strconv does.
func FuzzStreamID(f *testing.F) {
	for _, s := range []string{"1-2", "0-0", "-", "+", "1-*", "18446744073709551615-18446744073709551615",
		"18446744073709551616", "007-+5", " 1- 2", "1--02", "(1-2", "((1", "1\x00-2", "-1", "1-"} {
		f.Add([]byte(s), uint8(0))
	}
	f.Fuzz(func(t *testing.T, arg []byte, mode uint8) {
		strict, star := mode&1 != 0, mode&2 != 0
		id, seqGiven, ok := parseStreamID(arg, 5, strict, star)
		if !ok {
			if seqGiven {
				t.Fatalf("%q refused with seqGiven", arg)
			}
		} else {
			s := appendStreamID(nil, id)
			back, sg, ok := parseStreamID(s, 0, true, false)
			if !ok || back != id || !sg {
				t.Fatalf("%q -> %s -> %v %v %v", arg, s, back, sg, ok)
			}
			b2, ex, ok := parseIntervalID(append([]byte("("), s...), 0)
			if !ok || !ex || b2 != id {
				t.Fatalf("(%s -> %v %v %v", s, b2, ex, ok)
			}
		}
		parseIntervalID(arg, 7)
		digits := len(arg) > 0
		for _, c := range arg {
			digits = digits && c >= '0' && c <= '9'
		}
		if digits {
			u, err := strconv.ParseUint(string(arg), 10, 64)
			got, ok := parseULL(arg)
			if (err == nil) != ok || ok && got != u {
				t.Fatalf("parseULL(%q) = %d %v, strconv %d %v", arg, got, ok, u, err)
			}
		}
	})
}

// streamTypes pick a stream RDB type from a fuzzed body's first byte.
var streamTypes = [...]byte{15, 19, 21}

// FuzzStreamRestore: a stream the RDB reader accepts (it validates
// completely) loads into the keyspace, and every stream command then
// runs on it without panicking and leaves it consistent: its structure
// (check), its memory count, and what DUMP gives back.
func FuzzStreamRestore(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		body := append([]byte{streamTypes[int(data[0])%len(streamTypes)]}, data[1:]...)
		p := binary.LittleEndian.AppendUint16(body, rdb.Version)
		p = binary.LittleEndian.AppendUint64(p, ds.CRC64(0, p))
		e, err := rdb.ParseDumpPayload(p)
		if err != nil {
			return
		}
		h := newStreamHarness(t)
		e.Key = []byte("s")
		if _, err := h.ks.LoadEntry(e, 0); err != nil {
			t.Fatal(err)
		}
		cl := h.client()
		verify := func(after []string) {
			h.ks.LockAll()
			defer h.ks.UnlockAll()
			o := cl.c.LookupDB(0, []byte("s"))
			if o == nil {
				return
			}
			s := streamOf(o)
			if err := s.check(); err != nil {
				t.Fatalf("after %q: %v", after, err)
			}
			if got, want := int64(s.MemUsage()), s.memBytes(); got != want {
				t.Fatalf("after %q: MemUsage %d, recount %d", after, got, want)
			}
			var x rdb.Entry
			h.ks.ExportEntry(0, []byte("s"), o, &x)
			dp, err := rdb.DumpPayload(&x, rdb.DefaultOptions())
			if err != nil {
				t.Fatalf("after %q: DUMP: %v", after, err)
			}
			if _, err := rdb.ParseDumpPayload(dp); err != nil {
				t.Fatalf("after %q: our DUMP does not load: %v", after, err)
			}
		}
		verify(nil)
		var g string
		if len(e.Stream.Groups) > 0 {
			g = string(e.Stream.Groups[0].Name)
		}
		for _, cmd := range [][]string{
			{"XRANGE", "s", "-", "+"},
			{"XREVRANGE", "s", "+", "-", "COUNT", "3"},
			{"XINFO", "STREAM", "s", "FULL"},
			{"XINFO", "STREAM", "s"},
			{"XINFO", "GROUPS", "s"},
			{"XPENDING", "s", g},
			{"XPENDING", "s", g, "-", "+", "10"},
			{"XREADGROUP", "GROUP", g, "fuzz", "COUNT", "2", "STREAMS", "s", ">"},
			{"XREADGROUP", "GROUP", g, "fuzz", "STREAMS", "s", "0"},
			{"XAUTOCLAIM", "s", g, "other", "0", "0", "COUNT", "5"},
			{"XCLAIM", "s", g, "third", "0", "0-1", "1-1", "FORCE"},
			{"XADD", "s", "*", "f", "v"},
			{"XDEL", "s", "0-1", "1-1", "1-2"},
			{"XTRIM", "s", "MAXLEN", "~", "2"},
			{"XTRIM", "s", "MAXLEN", "1"},
			{"XACK", "s", g, "0-1", "1-1"},
			{"XGROUP", "DESTROY", "s", g},
			{"XTRIM", "s", "MAXLEN", "0"},
		} {
			h.do(cl, cmd...)
			verify(cmd)
		}
	})
}

// TestStreamLoadEmpty: an empty stream is a value (RDB, RESTORE).
func TestStreamLoadEmpty(t *testing.T) {
	e := rdb.NewEntry(0, []byte("s"), rdb.KindStream)
	e.Stream = &rdb.Stream{}
	if _, err := New(1).LoadEntry(e, 0); err != nil {
		t.Fatalf("an empty stream does not load: %v", err)
	}
	if !bytes.Equal(appendStreamID(nil, maxStreamID), []byte("18446744073709551615-18446744073709551615")) {
		t.Fatal("maxStreamID")
	}
}
