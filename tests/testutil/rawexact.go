package testutil

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// ReadExact reads one reply and returns its exact bytes on the wire (for
// tests of the RESP2/RESP3 encoding itself, where Read's canonical form is
// too forgiving: it shows "$-1" and "_" both as "(nil)"). It returns
// "<EOF>" if the server closed the connection.
func (c *Raw) ReadExact() string {
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	var b strings.Builder
	if err := CopyReply(c.r, &b); err != nil {
		return "<EOF>"
	}
	return b.String()
}

// DoExact sends a command and returns its reply's exact bytes.
func (c *Raw) DoExact(args ...string) string {
	c.Send(args...)
	return c.ReadExact()
}

// CopyReply copies one reply's exact bytes from r to b.
func CopyReply(r *bufio.Reader, b *strings.Builder) error {
	line, err := r.ReadString('\n')
	if err != nil {
		return err
	}
	b.WriteString(line)
	body := strings.TrimRight(line, "\r\n")
	if body == "" {
		return fmt.Errorf("empty line")
	}
	n, _ := strconv.Atoi(body[1:])
	switch body[0] {
	case '$', '=', '!':
		if n < 0 {
			return nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return err
		}
		b.Write(buf)
	case '*', '~', '>', '%', '|':
		if body[0] == '%' || body[0] == '|' {
			n *= 2
		}
		for i := 0; i < n; i++ {
			if err := CopyReply(r, b); err != nil {
				return err
			}
		}
	}
	return nil
}

// TryWrite writes bytes as they are and returns the error instead of
// failing the test, for tests where the server may close the connection
// part-way through a write.
func (c *Raw) TryWrite(s string) error {
	c.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	_, err := c.conn.Write([]byte(s))
	return err
}

// ReadWithin reads one reply in canonical form, waiting at most d:
// "<EOF>" if the server closed the connection, "<TIMEOUT>" if nothing came.
func (c *Raw) ReadWithin(d time.Duration) string {
	c.conn.SetReadDeadline(time.Now().Add(d))
	s, err := readReply(c.r)
	if err != nil {
		if ne, ok := err.(interface{ Timeout() bool }); ok && ne.Timeout() {
			return "<TIMEOUT>"
		}
		return "<EOF>"
	}
	return s
}
