package main

import (
	"bufio"
	"strings"
	"testing"
)

func TestAppendCommand(t *testing.T) {
	got := string(appendCommand(nil, "SET", "k", ""))
	want := "*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$0\r\n\r\n"
	if got != want {
		t.Errorf("appendCommand = %q, want %q", got, want)
	}
	b := appendArrayHeader(nil, 2)
	b = appendBulk(b, []byte("a\r\nb"))
	b = appendBulkString(b, "xyz")
	if want := "*2\r\n$4\r\na\r\nb\r\n$3\r\nxyz\r\n"; string(b) != want {
		t.Errorf("appendBulk = %q, want %q", b, want)
	}
}

func TestReadReply(t *testing.T) {
	in := "+OK\r\n-ERR bad\r\n:42\r\n$5\r\nhe\r\no\r\n$-1\r\n*2\r\n:1\r\n*1\r\n$0\r\n\r\n*-1\r\n"
	r := bufio.NewReader(strings.NewReader(in))
	want := []string{"OK", "ERR(ERR bad)", "42", "he\r\no", "(nil)", "[1 []]", "(nil)"}
	for i, w := range want {
		rep, err := readReply(r)
		if err != nil {
			t.Fatalf("reply %d: %v", i, err)
		}
		if rep.String() != w {
			t.Errorf("reply %d = %q, want %q", i, rep.String(), w)
		}
	}
	if _, err := readReply(r); err == nil {
		t.Error("read past the end: want an error")
	}
	for _, bad := range []string{"?x\r\n", ":x\r\n", "$3\r\nabcd\r\n", "+OK\n"} {
		if _, err := readReply(bufio.NewReader(strings.NewReader(bad))); err == nil {
			t.Errorf("readReply(%q): want an error", bad)
		}
	}
}
