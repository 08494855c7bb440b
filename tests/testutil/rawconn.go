package testutil

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Raw is a minimal RESP client that returns replies in a redis-cli-like
// canonical text form, so replies from two servers can be compared exactly
// (including the difference between a status and a bulk string).
type Raw struct {
	t    testing.TB
	conn net.Conn
	r    *bufio.Reader
}

// Dial opens a Raw connection.
func Dial(t testing.TB, addr string) *Raw {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &Raw{t: t, conn: conn, r: bufio.NewReader(conn)}
}

// DialConn opens a plain loopback connection for line-level tests, with a
// 10 s deadline on everything, closed when the test ends.
func DialConn(t testing.TB, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	return conn, bufio.NewReader(conn)
}

// Close closes the connection.
func (c *Raw) Close() { c.conn.Close() }

// Command encodes a command as a RESP multibulk request.
func Command(args ...string) string {
	var b strings.Builder
	b.WriteString("*" + strconv.Itoa(len(args)) + "\r\n")
	for _, a := range args {
		b.WriteString("$" + strconv.Itoa(len(a)) + "\r\n" + a + "\r\n")
	}
	return b.String()
}

// Send writes a command as a multibulk request.
func (c *Raw) Send(args ...string) { c.WriteRaw(Command(args...)) }

// WriteRaw writes bytes as they are.
func (c *Raw) WriteRaw(s string) {
	c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.conn.Write([]byte(s)); err != nil {
		c.t.Fatal(err)
	}
}

// WriteRawMayFail writes bytes as they are and returns the write's error
// instead of failing the test: for a client the server may disconnect
// while it is still writing (an eviction, a limit).
func (c *Raw) WriteRawMayFail(s string) error {
	c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := c.conn.Write([]byte(s))
	return err
}

// Do sends a command and reads one reply.
func (c *Raw) Do(args ...string) string {
	c.Send(args...)
	return c.Read()
}

// Read reads one reply in canonical form; "<EOF>" if the server closed.
func (c *Raw) Read() string {
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	s, err := readReply(c.r)
	if err != nil {
		return "<EOF>"
	}
	return s
}

func readReply(r *bufio.Reader) (string, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("empty line")
	}
	body := line[1:]
	switch line[0] {
	case '+':
		return "+" + body, nil
	case '-':
		return "-" + body, nil
	case ':':
		return ":" + body, nil
	case '_':
		return "(nil)", nil
	case ',', '#', '(':
		return string(line[0]) + body, nil
	case '$', '=':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return "(nil)", nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return "", err
		}
		return strconv.Quote(string(buf[:n])), nil
	case '*', '%', '~', '>', '|':
		n, _ := strconv.Atoi(body)
		if n < 0 {
			return "(nil-array)", nil
		}
		if line[0] == '%' || line[0] == '|' {
			n *= 2
		}
		parts := make([]string, n)
		for i := range parts {
			if parts[i], err = readReply(r); err != nil {
				return "", err
			}
		}
		return string(line[0]) + "[" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("bad reply type %q", line)
}
