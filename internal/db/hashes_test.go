package db

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/resp"
)

func TestHashBasics(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	h.run(cl, []step{
		st(rInt(1), "HSET", "h", "f1", "v1"),
		st(rInt(2), "HSET", "h", "f2", "v2", "f3", "v3"),
		st(rInt(1), "HSET", "h", "f1", "new", "f4", "v4"),
		st(rErr("ERR wrong number of arguments for 'hset' command"), "HSET", "h", "f1", "v1", "f2"),
		st(rErr("ERR wrong number of arguments for 'hmset' command"), "HMSET", "h", "f1", "v1", "f2"),
		st(rOK, "HMSET", "h", "f5", "v5"),
		st(rBulk("new"), "HGET", "h", "f1"),
		st(rNull, "HGET", "h", "nofield"),
		st(rNull, "HGET", "noh", "f"),
		st(rArr(rBulk("new"), rNull, rBulk("v2")), "HMGET", "h", "f1", "nofield", "f2"),
		st(rArr(rNull, rNull), "HMGET", "noh", "a", "b"),
		st(rInt(0), "HSETNX", "h", "f1", "x"),
		st(rInt(1), "HSETNX", "h", "f6", "v6"),
		st(lBulks("f1", "new", "f2", "v2", "f3", "v3", "f4", "v4", "f5", "v5", "f6", "v6"), "HGETALL", "h"),
		st(lBulks("f1", "f2", "f3", "f4", "f5", "f6"), "HKEYS", "h"),
		st(lBulks("new", "v2", "v3", "v4", "v5", "v6"), "HVALS", "h"),
		st(rInt(6), "HLEN", "h"),
		st(rInt(0), "HLEN", "noh"),
		st(rArr(), "HGETALL", "noh"),
		st(rArr(), "HKEYS", "noh"),
		st(rInt(2), "HDEL", "h", "f1", "f2", "nofield"),
		st(rInt(0), "HDEL", "h", "nofield"),
		st(rInt(0), "HDEL", "noh", "f"),
		st(rInt(1), "HEXISTS", "h", "f3"),
		st(rInt(0), "HEXISTS", "h", "f1"),
		st(rInt(0), "HEXISTS", "noh", "f"),
		st(rInt(2), "HSTRLEN", "h", "f3"),
		st(rInt(0), "HSTRLEN", "h", "nofield"),
		st(rInt(0), "HSTRLEN", "noh", "f"),
		st(rInt(4), "HDEL", "h", "f3", "f4", "f5", "f6", "f7"),
		st(rInt(0), "EXISTS", "h"),
		// Wrong type.
		st(rOK, "SET", "s", "v"),
		st(rErr(ErrWrongType), "HSET", "s", "f", "v"),
		st(rErr(ErrWrongType), "HSETNX", "s", "f", "v"),
		st(rErr(ErrWrongType), "HGET", "s", "f"),
		st(rErr(ErrWrongType), "HMGET", "s", "f"),
		st(rErr(ErrWrongType), "HDEL", "s", "f"),
		st(rErr(ErrWrongType), "HLEN", "s"),
		st(rErr(ErrWrongType), "HSTRLEN", "s", "f"),
		st(rErr(ErrWrongType), "HEXISTS", "s", "f"),
		st(rErr(ErrWrongType), "HGETALL", "s"),
		st(rErr(ErrWrongType), "HINCRBY", "s", "f", "1"),
		st(rErr(ErrWrongType), "HINCRBYFLOAT", "s", "f", "1"),
		st(rErr(ErrWrongType), "HRANDFIELD", "s"),
		st(rErr(ErrWrongType), "HSCAN", "s", "0"),
	})
}

func TestHashIncr(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	h.run(cl, []step{
		st(rInt(5), "HINCRBY", "c", "f", "5"),
		st(rInt(-5), "HINCRBY", "c", "f", "-10"),
		st(rErr(ErrNotInt), "HINCRBY", "c", "f", "1.5"),
		st(rInt(2), "HSET", "c", "s", "x", "z", "01"),
		st(rErr("ERR hash value is not an integer"), "HINCRBY", "c", "s", "1"),
		st(rErr("ERR hash value is not an integer"), "HINCRBY", "c", "z", "1"),
		st(rInt(1), "HSET", "c", "max", "9223372036854775807"),
		st(rErr(ErrOverflow), "HINCRBY", "c", "max", "1"),
		st(rBulk("1.5"), "HINCRBYFLOAT", "c", "fl", "1.5"),
		st(rBulk("1.6"), "HINCRBYFLOAT", "c", "fl", "0.1"),
		st(rBulk("0"), "HINCRBYFLOAT", "c", "fl", "-1.6"),
		st(rBulk("5000"), "HINCRBYFLOAT", "c", "fe", "5e3"),
		st(rErr(ErrNotFloat), "HINCRBYFLOAT", "c", "fl", "abc"),
		st(rErr("ERR value is NaN or Infinity"), "HINCRBYFLOAT", "c", "fl", "inf"),
		st(rErr(ErrNotFloat), "HINCRBYFLOAT", "c", "fl", "nan"),
		// strtold underflows to zero below long double's smallest
		// subnormal (~3.6e-4951), and string2ld refuses that; a
		// subnormal is fine (found by tests/cmdfuzz).
		st(rErr(ErrNotFloat), "HINCRBYFLOAT", "c", "fl", "1e-5000"),
		st(rErr(ErrNotFloat), "HINCRBYFLOAT", "c", "fl", "1e-4960"),
		st(rBulk("0"), "HINCRBYFLOAT", "c", "tiny", "1e-4940"),
		st(rErr("ERR hash value is not a float"), "HINCRBYFLOAT", "c", "s", "1"),
		st(rBulk("-2.5"), "HINCRBYFLOAT", "c", "f", "2.5"),
		// long double, not float64: 0.1+0.2 is 0.3, 17 decimals kept.
		st(rBulk("0.1"), "HINCRBYFLOAT", "c", "x", "0.1"),
		st(rBulk("0.3"), "HINCRBYFLOAT", "c", "x", "0.2"),
		st(rBulk("0.33333333333333333"), "HINCRBYFLOAT", "c", "t", "0.333333333333333333333"),
		st(rBulk("0"), "HINCRBYFLOAT", "c", "u", "1e-20"),
		st(rBulk("0"), "HINCRBYFLOAT", "c", "m", "-1e-18"),
		st(rBulk("16"), "HINCRBYFLOAT", "c", "h", "0x10"),
		st(rErr(ErrNotFloat), "HINCRBYFLOAT", "c", "h", "1e5000"),
		st(rErr(ErrNotFloat), "HINCRBYFLOAT", "c", "h", "0b1"),
		st(rErr(ErrNotFloat), "HINCRBYFLOAT", "nokey", "h", "abc"),
	})
	// Doubling DBL_MAX fits a long double.
	if got := h.do(cl, "HINCRBYFLOAT", "c", "big", "1.7976931348623157e308"); !strings.HasPrefix(got, "$309\r\n1797693134862315") {
		t.Fatalf("DBL_MAX: %q", got[:min(len(got), 40)])
	}
	if got := h.do(cl, "HINCRBYFLOAT", "c", "big", "1.7976931348623157e308"); !strings.HasPrefix(got, "$309\r\n3595386269724631") {
		t.Fatalf("2*DBL_MAX: %q", got[:min(len(got), 40)])
	}
}

func TestHashRandField(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	h.run(cl, []step{
		st(rInt(3), "HSET", "r", "a", "1", "b", "2", "c", "3"),
		st(lBulks("a", "b", "c"), "HRANDFIELD", "r", "3"),
		st(lBulks("a", "1", "b", "2", "c", "3"), "HRANDFIELD", "r", "5", "WITHVALUES"),
		st(rArr(), "HRANDFIELD", "r", "0"),
		st(rErr(ErrSyntax), "HRANDFIELD", "r", "1", "WITHVALUE"),
		st(rErr(ErrSyntax), "HRANDFIELD", "r", "1", "WITHVALUES", "x"),
		st(rErr(ErrNotInt), "HRANDFIELD", "r", "x"),
		st(rErr(errRangeLong), "HRANDFIELD", "r", "-9223372036854775808"),
		st(rErr("ERR value is out of range"), "HRANDFIELD", "r", "4611686018427387904", "WITHVALUES"),
		st(rErr("ERR value is out of range"), "HRANDFIELD", "r", "-4611686018427387904", "WITHVALUES"),
		st(rNull, "HRANDFIELD", "noh"),
		st(rArr(), "HRANDFIELD", "noh", "5"),
		st(rInt(1), "HSET", "one", "f", "v"),
		st(rBulk("f"), "HRANDFIELD", "one"),
		st(lBulks("f", "f", "f"), "HRANDFIELD", "one", "-3"),
		st(lBulks("f", "v", "f", "v"), "HRANDFIELD", "one", "-2", "WITHVALUES"),
	})
	// RESP3: pairs are nested arrays.
	cl.c.W.Proto = 3
	h.run(cl, []step{
		st(rArr(lBulks("f", "v"), lBulks("f", "v")), "HRANDFIELD", "one", "-2", "WITHVALUES"),
		st(rArr(lBulks("a", "1"), lBulks("b", "2"), lBulks("c", "3")), "HRANDFIELD", "r", "3", "WITHVALUES"),
		st("%1\r\n"+rBulk("f")+rBulk("v"), "HGETALL", "one"),
		st("%0\r\n", "HGETALL", "noh"),
		st("_\r\n", "HRANDFIELD", "noh"),
	})
	cl.c.W.Proto = 2

	// Distinct sampling, in both encodings and every strategy.
	for _, n := range []int{10, 1000} {
		key := "big" + strconv.Itoa(n)
		args := []string{"HSET", key}
		for i := 0; i < n; i++ {
			args = append(args, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
		}
		h.do(cl, args...)
		for _, count := range []int{1, 2, n / 4, n/2 + 1, n - 1} {
			got := parseBulks(t, h.do(cl, "HRANDFIELD", key, strconv.Itoa(count), "WITHVALUES"))
			if len(got) != 2*count {
				t.Fatalf("%s count %d: %d items", key, count, len(got))
			}
			seen := map[string]bool{}
			for i := 0; i < len(got); i += 2 {
				if seen[got[i]] || "v"+got[i][1:] != got[i+1] {
					t.Fatalf("%s count %d: bad pair %q %q", key, count, got[i], got[i+1])
				}
				seen[got[i]] = true
			}
			got = parseBulks(t, h.do(cl, "HRANDFIELD", key, strconv.Itoa(-count)))
			if len(got) != count {
				t.Fatalf("%s count -%d: %d items", key, count, len(got))
			}
		}
	}
}

// parseBulks decodes a flat array of bulk strings.
func parseBulks(t *testing.T, s string) []string {
	t.Helper()
	r := resp.NewReader()
	r.Feed([]byte(s))
	// The request reader parses arrays of bulks, which is exactly this.
	argv, err := r.Next()
	if err != nil {
		t.Fatalf("parse %q: %v", s, err)
	}
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = string(a)
	}
	return out
}

func TestHashScan(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	scanReply := func(cursor string, items ...string) string {
		return rArr(rBulk(cursor), lBulks(items...))
	}
	h.run(cl, []step{
		st(rInt(4), "HSET", "s", "name", "alice", "age", "30", "city", "paris", "nation", "fr"),
		st(scanReply("0", "name", "alice", "age", "30", "city", "paris", "nation", "fr"), "HSCAN", "s", "0"),
		st(scanReply("0", "name", "age", "city", "nation"), "HSCAN", "s", "0", "NOVALUES"),
		st(scanReply("0", "name", "nation"), "HSCAN", "s", "0", "MATCH", "n*", "novalues"),
		st(scanReply("0", "name", "alice", "nation", "fr"), "HSCAN", "s", "0", "MATCH", "n*", "COUNT", "1"),
		st(rErr(ErrSyntax), "HSCAN", "s", "0", "COUNT", "0"),
		st(rErr(ErrNotInt), "HSCAN", "s", "0", "COUNT", "x"),
		st(rErr(ErrSyntax), "HSCAN", "s", "0", "TYPE", "hash"),
		st(rErr("ERR NOSCORES option can only be used in ZSCAN"), "HSCAN", "s", "0", "NOSCORES"),
		st(rErr("ERR invalid cursor"), "HSCAN", "s", "-1"),
		st(rErr("ERR invalid cursor"), "HSCAN", "noh", "x"),
		// The cursor is a C string: "0\0x" is 0 (found by
		// tests/cmdfuzz).
		st(scanReply("0", "name", "alice", "age", "30", "city", "paris", "nation", "fr"), "HSCAN", "s", "0\x00x"),
		st(scanReply("0"), "HSCAN", "noh", "0", "COUNT", "0"),
	})
	// A hashtable is walked with a cursor; every field is seen.
	args := []string{"HSET", "big"}
	for i := 0; i < 2000; i++ {
		args = append(args, "f"+strconv.Itoa(i), strconv.Itoa(i))
	}
	h.do(cl, args...)
	seen := map[string]bool{}
	cursor := "0"
	for calls := 0; ; calls++ {
		// *2 $len cursor *n ...: split off the cursor by hand.
		out := h.do(cl, "HSCAN", "big", cursor, "COUNT", "50", "NOVALUES")
		parts := strings.SplitN(out, "\r\n", 4)
		cursor = parts[2]
		for _, f := range parseBulks(t, parts[3]) {
			seen[f] = true
		}
		if cursor == "0" {
			break
		}
		if calls > 1000 {
			t.Fatal("HSCAN does not finish")
		}
	}
	if len(seen) != 2000 {
		t.Fatalf("HSCAN saw %d fields", len(seen))
	}
}

// TestHashEncoding checks conversions at hash-max-listpack-entries/value.
func TestHashEncoding(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	configure(h.ks, func(s *Settings) {
		s.HashMaxListpackEntries = 4
		s.HashMaxListpackValue = 8
	})
	enc := func(key, want string) {
		t.Helper()
		if got := h.do(cl, "OBJECT", "ENCODING", key); got != rBulk(want) {
			t.Fatalf("OBJECT ENCODING %s: %q, want %q", key, got, want)
		}
	}
	h.do(cl, "HSET", "e", "a", "1", "b", "2", "c", "3", "d", "4")
	enc("e", "listpack")
	h.do(cl, "HSET", "e", "e", "5")
	enc("e", "hashtable")
	h.do(cl, "HDEL", "e", "a", "b", "c", "d")
	enc("e", "hashtable") // never converts back
	h.do(cl, "HSET", "v", "a", "12345678")
	enc("v", "listpack")
	h.do(cl, "HSET", "v", "b", "123456789")
	enc("v", "hashtable")
	h.do(cl, "HSET", "f", "12345678x", "1")
	enc("f", "hashtable")
	// More pairs than the limit convert up front, duplicates or not.
	h.do(cl, "HSET", "dup", "a", "1", "a", "2", "a", "3", "a", "4", "a", "5")
	enc("dup", "hashtable")
	// HINCRBYFLOAT can make a value too long for a listpack.
	h.do(cl, "HSET", "i", "f", "1")
	h.do(cl, "HINCRBYFLOAT", "i", "f", "0.123456789")
	enc("i", "hashtable")
	h.do(cl, "HSETNX", "n", "longfieldname", "v")
	enc("n", "hashtable")
	// COPY keeps the encoding and is independent.
	h.do(cl, "HSET", "small", "x", "1")
	h.do(cl, "COPY", "small", "small2")
	h.do(cl, "COPY", "e", "e2")
	enc("small2", "listpack")
	enc("e2", "hashtable")
	h.do(cl, "HSET", "e2", "z", "9")
	if got := h.do(cl, "HLEN", "e"); got != rInt(1) {
		t.Fatalf("COPY shares the dict: %q", got)
	}
	if got := h.do(cl, "HGETALL", "e2"); !strings.Contains(got, "z") || !strings.Contains(got, "$1\r\ne\r\n") {
		t.Fatalf("copy content: %q", got)
	}
}

// TestHashModel compares random HSET/HDEL/HINCRBY sequences against a Go
// map, across the listpack to hashtable conversion.
func TestHashModel(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	model := map[string]string{}
	for i := 0; i < 3000; i++ {
		f := "f" + strconv.Itoa(i*7919%700)
		switch i % 5 {
		case 0, 1, 2:
			v := strings.Repeat("v", i%80)
			h.do(cl, "HSET", "m", f, v)
			model[f] = v
		case 3:
			h.do(cl, "HDEL", "m", f)
			delete(model, f)
		case 4:
			if _, ok := model[f]; !ok {
				h.do(cl, "HINCRBY", "m", f, "3")
				model[f] = "3"
			}
		}
	}
	got := parseBulks(t, h.do(cl, "HGETALL", "m"))
	if len(got) != 2*len(model) {
		t.Fatalf("HGETALL: %d items, model has %d fields", len(got), len(model))
	}
	var fields []string
	for i := 0; i < len(got); i += 2 {
		if model[got[i]] != got[i+1] {
			t.Fatalf("field %s: %q want %q", got[i], got[i+1], model[got[i]])
		}
		fields = append(fields, got[i])
	}
	slices.Sort(fields)
	if len(slices.Compact(fields)) != len(model) {
		t.Fatal("duplicate fields")
	}
	if want := fmt.Sprint(len(model)); h.do(cl, "HLEN", "m") != ":"+want+"\r\n" {
		t.Fatal("HLEN differs")
	}
}

// TestHashConvertedByLongValueIsSized: an HSET of ten fields whose values
// are too long for a listpack converts the new hash to the hashtable
// encoding sized for those ten, and the hash takes about what its records,
// index and owners need: records in slabs doubling from one record took
// 3,040 heap bytes (session 11, before small StrMaps kept a record per
// allocation).
func TestHashConvertedByLongValueIsSized(t *testing.T) {
	o := newObject(TypeHash, ds.NewListpack())
	var args [][]byte
	for i := range 10 {
		args = append(args, fmt.Appendf(nil, "f%d", i), bytes.Repeat([]byte{'v'}, 128))
	}
	cfg := defaultSettings()
	hashTryConversion(cfg, o, args)
	for i := 0; i < len(args); i += 2 {
		hashSet(cfg, o, args[i], args[i+1])
	}
	d, ok := o.Value().(*ds.StrMap)
	if !ok || d.Len() != 10 {
		t.Fatalf("encoding %T, want a hashtable of 10 fields", o.Value())
	}
	// Ten records of 16 + 2 + 128 bytes (160 heap bytes each), with the
	// index, owners and headers just over 2 KB.
	if got := valueMem(o); got > 2300 {
		t.Fatalf("a 10-field hash of 128-byte values takes %d heap bytes, want <= 2300", got)
	}
}
