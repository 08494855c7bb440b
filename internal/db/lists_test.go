package db

import (
	"strconv"
	"strings"
	"testing"
)

const lNullArr = "*-1\r\n"

// rBulks is an array of bulk strings.
func lBulks(ss ...string) string {
	items := make([]string, len(ss))
	for i, s := range ss {
		items[i] = rBulk(s)
	}
	return rArr(items...)
}

func TestListPushPopRange(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	h.run(cl, []step{
		st(rInt(3), "LPUSH", "l", "a", "b", "c"),
		st(rInt(5), "RPUSH", "l", "d", "e"),
		st(lBulks("c", "b", "a", "d", "e"), "LRANGE", "l", "0", "-1"),
		st(rInt(0), "LPUSHX", "nol", "x"),
		st(rInt(0), "RPUSHX", "nol", "x"),
		st(rInt(0), "EXISTS", "nol"),
		st(rInt(6), "LPUSHX", "l", "x"),
		st(rInt(7), "RPUSHX", "l", "y"),
		st(rInt(7), "LLEN", "l"),
		st(rInt(0), "LLEN", "nol"),
		// Ranges: negative, clipped, empty, reversed, extreme.
		st(lBulks("y"), "LRANGE", "l", "-1", "-1"),
		st(lBulks("x", "c", "b", "a", "d", "e", "y"), "LRANGE", "l", "-100", "100"),
		st(rArr(), "LRANGE", "l", "5", "2"),
		st(rArr(), "LRANGE", "l", "7", "10"),
		st(rArr(), "LRANGE", "l", "-3", "-5"),
		st(lBulks("x"), "LRANGE", "l", "-9223372036854775808", "0"),
		st(rArr(), "LRANGE", "l", "9223372036854775807", "-9223372036854775808"),
		st(rErr(ErrNotInt), "LRANGE", "l", "a", "1"),
		st(rArr(), "LRANGE", "nol", "0", "-1"),
		// LINDEX looks the key up before it parses the index.
		st(rBulk("x"), "LINDEX", "l", "0"),
		st(rBulk("y"), "LINDEX", "l", "-1"),
		st(rNull, "LINDEX", "l", "7"),
		st(rNull, "LINDEX", "l", "-8"),
		st(rErr(ErrNotInt), "LINDEX", "l", "abc"),
		st(rNull, "LINDEX", "nol", "abc"),
		// Pops with and without count.
		st(rBulk("x"), "LPOP", "l"),
		st(rBulk("y"), "RPOP", "l"),
		st(lBulks("c", "b"), "LPOP", "l", "2"),
		st(lBulks("e", "d"), "RPOP", "l", "2"),
		st(rArr(), "LPOP", "l", "0"),
		st(rErr(ErrNotPositive), "LPOP", "l", "-1"),
		st(rErr(ErrNotPositive), "RPOP", "l", "x"),
		st(rErr("ERR wrong number of arguments for 'lpop' command"), "LPOP", "l", "1", "2"),
		st(rNull, "LPOP", "nol"),
		st(lNullArr, "LPOP", "nol", "2"),
		st(lNullArr, "RPOP", "nol", "0"),
		st(lBulks("a"), "RPOP", "l", "9223372036854775807"),
		st(rInt(0), "EXISTS", "l"),
		// Wrong type everywhere.
		st(rOK, "SET", "s", "v"),
		st(rErr(ErrWrongType), "LPUSH", "s", "a"),
		st(rErr(ErrWrongType), "RPUSHX", "s", "a"),
		st(rErr(ErrWrongType), "LPOP", "s"),
		st(rErr(ErrWrongType), "LLEN", "s"),
		st(rErr(ErrWrongType), "LRANGE", "s", "0", "1"),
		st(rErr(ErrWrongType), "LINDEX", "s", "x"),
	})
}

func TestListEdits(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	h.run(cl, []step{
		st(rInt(4), "RPUSH", "l", "a", "b", "c", "b"),
		st(rInt(5), "LINSERT", "l", "BEFORE", "b", "x"),
		st(rInt(6), "LINSERT", "l", "after", "b", "y"),
		st(rInt(-1), "LINSERT", "l", "BEFORE", "zz", "x"),
		st(rErr(ErrSyntax), "LINSERT", "l", "MIDDLE", "b", "x"),
		st(rInt(0), "LINSERT", "nol", "BEFORE", "a", "b"),
		st(lBulks("a", "x", "b", "y", "c", "b"), "LRANGE", "l", "0", "-1"),
		st(rOK, "LSET", "l", "0", "A"),
		st(rOK, "LSET", "l", "-1", "B"),
		st(rErr(ErrOutOfRange), "LSET", "l", "6", "z"),
		st(rErr(ErrOutOfRange), "LSET", "l", "-7", "z"),
		st(rErr(ErrNotInt), "LSET", "l", "x", "z"),
		st(rErr(ErrNoSuchKey), "LSET", "nol", "0", "z"),
		st(lBulks("A", "x", "b", "y", "c", "B"), "LRANGE", "l", "0", "-1"),
		// LREM: from the head, from the tail, all.
		st(rInt(1), "DEL", "l"),
		st(rInt(7), "RPUSH", "l", "a", "b", "a", "c", "a", "b", "a"),
		st(rInt(2), "LREM", "l", "2", "a"),
		st(lBulks("b", "c", "a", "b", "a"), "LRANGE", "l", "0", "-1"),
		st(rInt(1), "LREM", "l", "-1", "a"),
		st(lBulks("b", "c", "a", "b"), "LRANGE", "l", "0", "-1"),
		st(rInt(2), "LREM", "l", "0", "b"),
		st(rInt(0), "LREM", "l", "0", "zz"),
		st(rErr(ErrNotInt), "LREM", "l", "x", "a"),
		// Valkey 8 refuses LONG_MIN (Redis 7.0 took it as "remove all").
		st(rErr(errRangeLong), "LREM", "l", "-9223372036854775808", "a"),
		st(rInt(1), "LREM", "l", "-9223372036854775807", "a"),
		st(rInt(1), "LREM", "l", "9223372036854775807", "c"),
		st(rInt(0), "EXISTS", "l"),
		// LTRIM.
		st(rInt(10), "RPUSH", "l", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		st(rOK, "LTRIM", "l", "1", "-2"),
		st(lBulks("1", "2", "3", "4", "5", "6", "7", "8"), "LRANGE", "l", "0", "-1"),
		st(rOK, "LTRIM", "l", "-3", "100"),
		st(lBulks("6", "7", "8"), "LRANGE", "l", "0", "-1"),
		st(rOK, "LTRIM", "l", "0", "-1"),
		st(rOK, "LTRIM", "l", "5", "1"),
		st(rInt(0), "EXISTS", "l"),
		st(rOK, "LTRIM", "nol", "0", "1"),
		st(rErr(ErrNotInt), "LTRIM", "nol", "a", "1"),
	})
}

func TestListPos(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	h.run(cl, []step{
		st(rInt(8), "RPUSH", "l", "a", "b", "c", "1", "2", "3", "c", "c"),
		st(rInt(2), "LPOS", "l", "c"),
		st(rInt(6), "LPOS", "l", "c", "RANK", "2"),
		st(rInt(7), "LPOS", "l", "c", "RANK", "-1"),
		st(rInt(6), "LPOS", "l", "c", "RANK", "-2"),
		st(rArr(rInt(2), rInt(6), rInt(7)), "LPOS", "l", "c", "COUNT", "0"),
		st(rArr(rInt(2), rInt(6)), "LPOS", "l", "c", "COUNT", "2"),
		st(rArr(rInt(7), rInt(6)), "LPOS", "l", "c", "RANK", "-1", "COUNT", "2"),
		st(rArr(rInt(6), rInt(7)), "LPOS", "l", "c", "RANK", "2", "COUNT", "0"),
		st(rInt(2), "LPOS", "l", "c", "MAXLEN", "3"),
		st(rNull, "LPOS", "l", "c", "MAXLEN", "2"),
		st(rArr(rInt(7)), "LPOS", "l", "c", "RANK", "-1", "MAXLEN", "1", "COUNT", "0"),
		st(rNull, "LPOS", "l", "zz"),
		st(rArr(), "LPOS", "l", "zz", "COUNT", "0"),
		st(rNull, "LPOS", "l", "c", "RANK", "100"),
		st(rNull, "LPOS", "nol", "c"),
		st(rArr(), "LPOS", "nol", "c", "COUNT", "1"),
		st(rErr("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list"), "LPOS", "l", "c", "RANK", "0"),
		st(rErr(ErrNotInt), "LPOS", "l", "c", "RANK", "x"),
		// Valkey 8: LONG_MIN cannot be negated, so it is refused.
		st(rErr(errRangeLong), "LPOS", "l", "c", "RANK", "-9223372036854775808"),
		st(rNull, "LPOS", "l", "c", "RANK", "-9223372036854775807"),
		st(rErr("ERR COUNT can't be negative"), "LPOS", "l", "c", "COUNT", "-1"),
		st(rErr("ERR COUNT can't be negative"), "LPOS", "l", "c", "COUNT", "x"),
		st(rErr("ERR MAXLEN can't be negative"), "LPOS", "l", "c", "MAXLEN", "-1"),
		st(rErr(ErrSyntax), "LPOS", "l", "c", "RANK"),
		st(rErr(ErrSyntax), "LPOS", "l", "c", "FOO", "1"),
		// Options are parsed before the key is looked up.
		st(rOK, "SET", "s", "v"),
		st(rErr(ErrSyntax), "LPOS", "s", "c", "FOO"),
		st(rErr(ErrWrongType), "LPOS", "s", "c"),
	})
}

func TestListMove(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	h.run(cl, []step{
		st(rInt(3), "RPUSH", "l", "a", "b", "c"),
		st(rBulk("a"), "LMOVE", "l", "l2", "LEFT", "RIGHT"),
		st(rBulk("c"), "LMOVE", "l", "l2", "RIGHT", "LEFT"),
		st(rBulk("b"), "LMOVE", "l", "l2", "left", "left"),
		st(rInt(0), "EXISTS", "l"),
		st(lBulks("b", "c", "a"), "LRANGE", "l2", "0", "-1"),
		st(rNull, "LMOVE", "l", "l2", "LEFT", "RIGHT"),
		st(rBulk("b"), "LMOVE", "l2", "l2", "LEFT", "RIGHT"),
		st(lBulks("c", "a", "b"), "LRANGE", "l2", "0", "-1"),
		st(rErr(ErrSyntax), "LMOVE", "l2", "l2", "UP", "LEFT"),
		st(rOK, "SET", "s", "v"),
		st(rErr(ErrWrongType), "LMOVE", "l2", "s", "LEFT", "LEFT"),
		st(rErr(ErrWrongType), "LMOVE", "s", "l2", "LEFT", "LEFT"),
		st(lBulks("c", "a", "b"), "LRANGE", "l2", "0", "-1"),
		st(rBulk("b"), "RPOPLPUSH", "l2", "l3"),
		st(rInt(1), "RPUSH", "one", "x"),
		st(rBulk("x"), "RPOPLPUSH", "one", "one"),
		st(lBulks("x"), "LRANGE", "one", "0", "-1"),
		// LMPOP.
		st(rInt(5), "RPUSH", "m", "1", "2", "3", "4", "5"),
		st(rArr(rBulk("m"), lBulks("1")), "LMPOP", "2", "nol", "m", "LEFT"),
		st(rArr(rBulk("m"), lBulks("5", "4")), "LMPOP", "2", "nol", "m", "RIGHT", "COUNT", "2"),
		st(rArr(rBulk("m"), lBulks("2", "3")), "LMPOP", "1", "m", "LEFT", "COUNT", "10"),
		st(lNullArr, "LMPOP", "1", "m", "LEFT"),
		st(rErr("ERR numkeys should be greater than 0"), "LMPOP", "0", "m", "LEFT"),
		st(rErr("ERR numkeys should be greater than 0"), "LMPOP", "x", "m", "LEFT"),
		st(rErr(ErrSyntax), "LMPOP", "3", "a", "b", "LEFT"),
		st(rErr(ErrSyntax), "LMPOP", "1", "m", "UP"),
		st(rErr("ERR count should be greater than 0"), "LMPOP", "1", "m", "LEFT", "COUNT", "0"),
		st(rErr(ErrSyntax), "LMPOP", "1", "m", "LEFT", "COUNT", "1", "COUNT", "2"),
		st(rErr(ErrWrongType), "LMPOP", "2", "s", "l2", "LEFT"),
		st(rArr(rBulk("l2"), lBulks("c")), "LMPOP", "2", "l2", "s", "LEFT"),
	})
}

// TestListEncoding checks OBJECT ENCODING at Valkey 8's thresholds.
func TestListEncoding(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	enc := func(key, want string) {
		t.Helper()
		if got := h.do(cl, "OBJECT", "ENCODING", key); got != rBulk(want) {
			t.Fatalf("OBJECT ENCODING %s: %q, want %q", key, got, want)
		}
	}
	v100 := strings.Repeat("v", 100) // 103 bytes as a listpack entry
	for i := 0; i < 79; i++ {
		h.do(cl, "RPUSH", "l", v100)
	}
	enc("l", "listpack") // 7 + 79*103 = 8144 bytes
	h.do(cl, "RPUSH", "l", v100)
	enc("l", "quicklist") // 8144 + 100 > 8192
	for i := 0; i < 40; i++ {
		h.do(cl, "RPOP", "l")
	}
	enc("l", "quicklist")
	h.do(cl, "RPOP", "l") // 39 left: 7 + 39*103 = 4024 <= 4096
	enc("l", "listpack")

	// One big element converts at once, and is a plain node.
	h.do(cl, "RPUSH", "big", strings.Repeat("x", 9000))
	enc("big", "quicklist")
	h.do(cl, "RPUSH", "big", "a", "b")
	h.do(cl, "LPOP", "big")
	enc("big", "listpack")

	// A count-based fill: 4 entries per node.
	configure(h.ks, func(s *Settings) { s.ListMaxListpackSize = 4 })
	h.do(cl, "RPUSH", "c", "1", "2", "3", "4")
	enc("c", "listpack")
	h.do(cl, "RPUSH", "c", "5")
	enc("c", "quicklist")
	h.do(cl, "LPOP", "c", "3") // nodes [4] [5]
	enc("c", "quicklist")
	h.do(cl, "LPOP", "c") // one node of one entry <= 4/2
	enc("c", "listpack")
	// LINSERT converts before searching, even if the pivot is missing.
	h.do(cl, "RPUSH", "d", "1", "2", "3", "4")
	if got := h.do(cl, "LINSERT", "d", "BEFORE", "zz", "x"); got != rInt(-1) {
		t.Fatalf("LINSERT: %q", got)
	}
	enc("d", "quicklist")
	configure(h.ks, func(s *Settings) { s.ListMaxListpackSize = -2 })

	// COPY keeps the encoding and the contents.
	h.do(cl, "COPY", "l", "l2")
	enc("l2", "listpack")
	if a, b := h.do(cl, "LRANGE", "l", "0", "-1"), h.do(cl, "LRANGE", "l2", "0", "-1"); a != b {
		t.Fatal("COPY differs")
	}
	h.do(cl, "COPY", "big", "big2")
	h.do(cl, "RPUSH", "big2", "more")
	if got := h.do(cl, "LLEN", "big"); got != rInt(2) {
		t.Fatalf("COPY shares data: LLEN big %q", got)
	}
}

// TestListResp3 checks the RESP3 forms of nulls.
func TestListResp3(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	cl.c.W.Proto = 3
	h.run(cl, []step{
		st("_\r\n", "LPOP", "nol"),
		st("_\r\n", "LPOP", "nol", "1"),
		st("_\r\n", "LINDEX", "nol", "0"),
		st("_\r\n", "LMPOP", "1", "nol", "LEFT"),
		st("_\r\n", "BLPOP", "nol", "0.01"),
	})
}

// TestBlockingTimeoutParsing covers getTimeoutFromObjectOrReply.
func TestBlockingTimeoutParsing(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	h.do(cl, "RPUSH", "l", "a", "b", "c", "d", "e", "f")
	notFloat := rErr("ERR timeout is not a float or out of range")
	h.run(cl, []step{
		st(notFloat, "BLPOP", "l", "abc"),
		st(notFloat, "BLPOP", "l", "nan"),
		st(notFloat, "BLPOP", "l", ""),
		st(notFloat, "BLPOP", "l", " 1"),
		st(notFloat, "BLPOP", "l", "1_0"),
		st(rErr("ERR timeout is negative"), "BLPOP", "l", "-1"),
		st(rErr("ERR timeout is negative"), "BLPOP", "l", "-1e400"),
		// Valkey 8 (not Redis 7.0) checks the range.
		st(rErr("ERR timeout is out of range"), "BLPOP", "l", "inf"),
		st(rErr("ERR timeout is out of range"), "BLPOP", "l", "9999999999999999999"),
		st(rErr("ERR timeout is out of range"), "BLPOP", "l", "1e400"),
		// Rounded up to whole milliseconds: -0.0001 is 0 (forever) and
		// blocks nobody here because l has data.
		st(lBulks("l", "a"), "BLPOP", "l", "-0.0001"),
		st(lBulks("l", "b"), "BLPOP", "l", "0x10"),
		st(lBulks("l", "c"), "BLPOP", "l", "1e3"),
		// string2ld: long double range (1e400 fits, 1e5000 overflows
		// and 1e-5000 underflows to zero, both refused), and at most
		// 5119 bytes (found by tests/cmdfuzz).
		st(notFloat, "BLPOP", "l", "1e5000"),
		st(notFloat, "BLPOP", "l", "-1e5000"),
		st(notFloat, "BLPOP", "l", "1e-5000"),
		st(notFloat, "BLPOP", "l", "1"+strings.Repeat("0", 5200)),
		st(notFloat, "BRPOPLPUSH", "l", "x", "1"+strings.Repeat("0", 5200)),
		st(lBulks("l", "d"), "BLPOP", "l", "1e-400"),
		st(notFloat, "BLMOVE", "l", "x", "LEFT", "LEFT", "x"),
		st(rErr(ErrSyntax), "BLMOVE", "l", "x", "UP", "LEFT", "x"),
		// BLMPOP parses numkeys, direction and COUNT before the timeout.
		st(rErr("ERR numkeys should be greater than 0"), "BLMPOP", "x", "0", "l", "LEFT"),
		st(notFloat, "BLMPOP", "x", "1", "l", "LEFT"),
	})
	if got := h.do(cl, "LLEN", "l"); got != rInt(2) {
		t.Fatalf("LLEN %q", got)
	}
}

// TestListLargeValues pushes values of every length class through both
// encodings and reads them back.
func TestListLargeValues(t *testing.T) {
	h := newLHHarness(t)
	cl := h.client()
	var want []string
	for _, n := range []int{0, 1, 20, 63, 64, 127, 239, 240, 4079, 4080, 9000, 70000} {
		v := strings.Repeat(strconv.Itoa(n%10), n)
		want = append(want, v)
		h.do(cl, "RPUSH", "l", v)
	}
	if got := h.do(cl, "LRANGE", "l", "0", "-1"); got != lBulks(want...) {
		t.Fatal("LRANGE differs")
	}
	for i := len(want) - 1; i >= 0; i-- {
		if got := h.do(cl, "RPOP", "l"); got != rBulk(want[i]) {
			t.Fatalf("RPOP %d differs", i)
		}
	}
}
