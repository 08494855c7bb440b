package wire

import (
	"errors"
	"net"
	"reflect"
	"strings"
	"testing"
)

func TestTemplateExpansion(t *testing.T) {
	cases := []struct {
		args      []string
		key, data string
		want      []string
	}{
		{[]string{"set", "__key__", "__data__"}, "kv_7", "xyz", []string{"set", "kv_7", "xyz"}},
		{[]string{"zadd", "__key__", "__key__", "__data__"}, "12", "d", []string{"zadd", "12", "12", "d"}},
		{[]string{"hset", "__key__", "__data__", "__data__"}, "hash_1", "v", []string{"hset", "hash_1", "v", "v"}},
		{[]string{"get", "user:__key__:x"}, "9", "", []string{"get", "user:9:x"}},
		{[]string{"set", "__key____data__"}, "k", "d", []string{"set", "kd"}},
		{[]string{"ping"}, "", "", []string{"ping"}},
	}
	for _, c := range cases {
		tp := Compile(c.args)
		if got := tp.Expand([]byte(c.key), []byte(c.data)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%v: expand %q", c.args, got)
		}
		enc := tp.Append(nil, []byte(c.key), []byte(c.data))
		if want := AppendCommand(nil, c.want...); string(enc) != string(want) {
			t.Errorf("%v: encoded %q want %q", c.args, enc, want)
		}
	}
	if tp := Compile([]string{"incr", "__key__"}); tp.Name != "INCR" || !tp.HasKey || tp.HasData {
		t.Errorf("flags: %+v", tp)
	}
}

func TestTemplateAppendDoesNotAllocate(t *testing.T) {
	tp := Compile([]string{"set", "__key__", "__data__"})
	buf := make([]byte, 0, 4096)
	key, data := []byte("memtier-123"), make([]byte, 128)
	if n := testing.AllocsPerRun(1000, func() { buf = tp.Append(buf[:0], key, data) }); n != 0 {
		t.Fatalf("%v allocs", n)
	}
}

func TestScan(t *testing.T) {
	cases := []struct {
		in   string
		n    int
		kind Kind
		msg  string
	}{
		{"+OK\r\n", 5, KindOK, ""},
		{":12\r\n", 5, KindOK, ""},
		{"$3\r\nabc\r\n", 9, KindOK, ""},
		{"$-1\r\n", 5, KindNil, ""},
		{"*-1\r\n", 5, KindNil, ""},
		{"_\r\n", 3, KindNil, ""},
		{"-ERR wrong\r\n", 12, KindError, "ERR wrong"},
		{"-MOVED 3999 127.0.0.1:6381\r\n", 28, KindMoved, "MOVED 3999 127.0.0.1:6381"},
		{"-ASK 3999 127.0.0.1:6381\r\n", 26, KindAsk, "ASK 3999 127.0.0.1:6381"},
		{"!5\r\nERR x\r\n", 11, KindError, "ERR x"},
		{"*2\r\n$1\r\na\r\n:1\r\n", 15, KindOK, ""},
		{"%1\r\n+k\r\n*1\r\n:1\r\n", 16, KindOK, ""},
		{"|1\r\n+a\r\n+b\r\n$-1\r\n", 17, KindNil, ""},
		{",1.5\r\n", 6, KindOK, ""},
		{"#t\r\n", 4, KindOK, ""},
		// incomplete
		{"+OK\r", 0, 0, ""},
		{"$3\r\nab", 0, 0, ""},
		{"*2\r\n$1\r\na\r\n", 0, 0, ""},
		{"", 0, 0, ""},
	}
	for _, c := range cases {
		n, k, msg, err := Scan([]byte(c.in + "+NEXT\r\n")[:len(c.in)])
		if err != nil || n != c.n || (n > 0 && (k != c.kind || string(msg) != c.msg)) {
			t.Errorf("%q: n=%d kind=%d msg=%q err=%v", c.in, n, k, msg, err)
		}
	}
	for _, bad := range []string{"?x\r\n", "$x\r\n", "+OK\n", "*z\r\n"} {
		if _, _, _, err := Scan([]byte(bad)); !errors.Is(err, ErrProtocol) {
			t.Errorf("%q: err %v", bad, err)
		}
	}
	deep := strings.Repeat("*1\r\n", 100) + ":1\r\n"
	if _, _, _, err := Scan([]byte(deep)); err == nil {
		t.Error("100-deep nesting accepted")
	}
}

func TestScanDoesNotAllocate(t *testing.T) {
	buf := []byte("*3\r\n$1\r\na\r\n-MOVED 1 h:1\r\n%1\r\n+k\r\n:1\r\n")
	if n := testing.AllocsPerRun(1000, func() { _, _, _, _ = Scan(buf) }); n != 0 {
		t.Fatalf("%v allocs", n)
	}
}

func TestParseValue(t *testing.T) {
	v, n, err := Parse([]byte("*3\r\n:0\r\n:5460\r\n*3\r\n$9\r\n127.0.0.1\r\n:7000\r\n$2\r\nid\r\n"))
	if err != nil || n == 0 {
		t.Fatal(err)
	}
	if len(v.Elems) != 3 || v.Elems[1].Int != 5460 || v.Elems[2].Elems[0].Str != "127.0.0.1" {
		t.Fatalf("%+v", v)
	}
}

func TestRedirect(t *testing.T) {
	slot, addr, ok := Redirect([]byte("MOVED 3999 127.0.0.1:6381"))
	if !ok || slot != 3999 || addr != "127.0.0.1:6381" {
		t.Fatal(slot, addr, ok)
	}
	for _, bad := range []string{"MOVED", "MOVED x h:1", "MOVED 99999 h:1"} {
		if _, _, ok := Redirect([]byte(bad)); ok {
			t.Errorf("%q accepted", bad)
		}
	}
}

func TestSlot(t *testing.T) {
	// Reference values from the Redis Cluster specification / CLUSTER KEYSLOT.
	cases := map[string]int{"foo": 12182, "bar": 5061, "123456789": 12739, "{user1000}.following": 3443, "{user1000}.followers": 3443, "foo{}{bar}": 8363}
	for k, want := range cases {
		if got := Slot([]byte(k)); got != want {
			t.Errorf("Slot(%q)=%d want %d", k, got, want)
		}
	}
}

func TestParseClusterSlots(t *testing.T) {
	raw := "*2\r\n*3\r\n:0\r\n:8191\r\n*2\r\n$0\r\n\r\n:7000\r\n*3\r\n:8192\r\n:16383\r\n*2\r\n$9\r\n127.0.0.2\r\n:7001\r\n"
	v, _, err := Parse([]byte(raw))
	if err != nil {
		t.Fatal(err)
	}
	rs, err := ParseClusterSlots(v, "127.0.0.1:7000")
	if err != nil {
		t.Fatal(err)
	}
	want := []SlotRange{{0, 8191, "127.0.0.1:7000"}, {8192, 16383, "127.0.0.2:7001"}}
	if !reflect.DeepEqual(rs, want) {
		t.Fatalf("%+v", rs)
	}
}

// A Conn reads replies that arrive split across reads, and Do works.
func TestConnSplitReplies(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	c := NewConn(b, "pipe")
	go func() {
		buf := make([]byte, 1024)
		_, _ = a.Read(buf)
		for _, part := range []string{"+O", "K\r\n$5\r\nhel", "lo\r\n", "-ERR x\r\n"} {
			_, _ = a.Write([]byte(part))
		}
	}()
	c.Out = AppendCommand(c.Out, "PING")
	if err := c.Flush(); err != nil {
		t.Fatal(err)
	}
	kinds := []Kind{KindOK, KindOK, KindError}
	for i, want := range kinds {
		_, k, _, err := c.Next()
		if err != nil || k != want {
			t.Fatalf("reply %d: kind %d err %v", i, k, err)
		}
	}
}

func FuzzScan(f *testing.F) {
	for _, s := range []string{"+OK\r\n", "*2\r\n$1\r\na\r\n:1\r\n", "%1\r\n+k\r\n*1\r\n:1\r\n", "$-1\r\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		n, _, _, err := Scan(b)
		if err == nil && n > len(b) {
			t.Fatalf("n=%d > len %d", n, len(b))
		}
		if err == nil && n > 0 {
			_, _, _ = Parse(b)
		}
	})
}
