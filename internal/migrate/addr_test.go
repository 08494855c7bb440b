package migrate

import (
	"bufio"
	"strings"
	"testing"
)

func bufioReader(s string) *bufio.Reader { return bufio.NewReader(strings.NewReader(s)) }

// TestDialAddress: the port is read as Valkey's atoi and getaddrinfo read
// it (checked against valkey-server: "17002x" reaches 17002, "70000"
// port 4464), the host up to a NUL.
func TestDialAddress(t *testing.T) {
	for _, tc := range []struct{ host, port, want string }{
		{"127.0.0.1", "6379", "127.0.0.1:6379"},
		{"127.0.0.1", "6379x", "127.0.0.1:6379"},
		{"127.0.0.1", " \t6379", "127.0.0.1:6379"},
		{"127.0.0.1", "+6379", "127.0.0.1:6379"},
		{"127.0.0.1", "70000", "127.0.0.1:4464"},
		{"127.0.0.1", "abc", "127.0.0.1:0"},
		{"127.0.0.1", "", "127.0.0.1:0"},
		{"127.0.0.1", "-1", "127.0.0.1:65535"},
		{"127.0.0.1", "99999999999999999999999", "127.0.0.1:65535"},
		{"127.0.0.1", "-99999999999999999999999", "127.0.0.1:0"},
		{"::1", "6379", "[::1]:6379"},
		{"localhost\x00junk", "6379", "localhost:6379"},
	} {
		a := Args{Host: []byte(tc.host), Port: []byte(tc.port)}
		if got := dialAddress(a.dialHost(), a.Port); got != tc.want {
			t.Errorf("%q %q: %s, want %s", tc.host, tc.port, got, tc.want)
		}
	}
}

// TestReadLine: reply lines as Valkey's syncReadLine cuts them, except
// that the rest of a long line is dropped rather than read as the next.
func TestReadLine(t *testing.T) {
	long := make([]byte, 2000)
	for i := range long {
		long[i] = 'x'
	}
	for _, tc := range []struct {
		in   string
		want []string // "!" + error
	}{
		{"+OK\r\n-ERR no\r\n", []string{"+OK", "-ERR no"}},
		{"+OK\n\r\n", []string{"+OK", ""}},
		{"\n+OK\r\n", []string{"!", "+OK"}},
		{"-" + string(long) + "\r\n+OK\r\n", []string{"-" + string(long[:lineMax-1]), "+OK"}},
		{"+OK", []string{"!"}},
	} {
		s := &socket{}
		s.rd = bufioReader(tc.in)
		for i, w := range tc.want {
			got, err := s.readLine()
			if err != nil {
				got = "!"
			}
			if got != w {
				t.Errorf("%.20q line %d: %.40q, want %.40q", tc.in, i, got, w)
			}
		}
	}
}
