package aof

import (
	"bytes"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// TestCommandWriter pins the commands of a RESP base, as Valkey's
// rewriteAppendOnlyFileRio writes them, and that Load reads them back.
func TestCommandWriter(t *testing.T) {
	var b bytes.Buffer
	w := NewCommandWriter(&b, false)
	w.WriteHeader()
	w.BeginDB(2, 3, 1)
	s := rdb.NewEntry(2, []byte("s"), rdb.KindString)
	s.String, s.ExpireMs = []byte("v"), 1700000000000
	w.WriteEntry(s)
	l := rdb.NewEntry(2, []byte("l"), rdb.KindList)
	for range 65 {
		l.List = append(l.List, []byte("x"))
	}
	w.WriteEntry(l)
	z := rdb.NewEntry(2, []byte("z"), rdb.KindZSet)
	z.ZSet = []rdb.ZMember{{Member: []byte("a"), Score: 1.5}, {Member: []byte("b"), Score: -2}}
	w.WriteEntry(z)
	h := rdb.NewEntry(2, []byte("h"), rdb.KindHash)
	h.Hash = []rdb.HashField{{Field: []byte("f"), Value: []byte("v")}}
	w.WriteEntry(h)
	st := rdb.NewEntry(2, []byte("st"), rdb.KindSet)
	st.Set = [][]byte{[]byte("m")}
	w.WriteEntry(st)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	var got []string
	opts := LoadOptions{Command: func(argv [][]byte) error {
		parts := make([]string, len(argv))
		for i, a := range argv {
			parts[i] = string(a)
		}
		if parts[0] == "RPUSH" {
			parts = []string{"RPUSH", parts[1], strings.Repeat("x", len(parts)-2)}
		}
		got = append(got, strings.Join(parts, " "))
		return nil
	}}
	dir := t.TempDir()
	r, err := RewriteOff(dir, "appendonly.aof", Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.File().Write(b.Bytes())
	if err := r.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, "appendonly.aof", opts); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"SELECT 2",
		"SET s v", "PEXPIREAT s 1700000000000",
		"RPUSH l " + strings.Repeat("x", 64), "RPUSH l x",
		"ZADD z 1.5 a -2 b",
		"HMSET h f v",
		"SADD st m",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
