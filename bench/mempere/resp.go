package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"
)

// A tiny RESP2 client: enough to pipeline writes and read their replies.

// appendArrayHeader appends the header of a RESP array of n elements.
func appendArrayHeader(b []byte, n int) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// appendBulk appends s as a RESP bulk string.
func appendBulk(b, s []byte) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// appendBulkString appends s as a RESP bulk string.
func appendBulkString(b []byte, s string) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// appendCommand appends a whole command, args[0] being its name.
func appendCommand(b []byte, args ...string) []byte {
	b = appendArrayHeader(b, len(args))
	for _, a := range args {
		b = appendBulkString(b, a)
	}
	return b
}

// reply is a decoded RESP2 reply.
type reply struct {
	kind byte // '+' simple string, '-' error, ':' integer, '$' bulk, '*' array
	str  string
	n    int64
	arr  []reply
	null bool // a null bulk string or null array
}

func (r reply) String() string {
	switch {
	case r.null:
		return "(nil)"
	case r.kind == ':':
		return strconv.FormatInt(r.n, 10)
	case r.kind == '*':
		parts := make([]string, len(r.arr))
		for i, e := range r.arr {
			parts[i] = e.String()
		}
		return "[" + strings.Join(parts, " ") + "]"
	case r.kind == '-':
		return "ERR(" + r.str + ")"
	}
	return r.str
}

// readReply reads one RESP2 reply.
func readReply(r *bufio.Reader) (reply, error) {
	line, err := r.ReadString('\n')
	if err != nil {
		return reply{}, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return reply{}, fmt.Errorf("protocol error: line %q", line)
	}
	kind, body := line[0], line[1:len(line)-2]
	switch kind {
	case '+', '-':
		return reply{kind: kind, str: body}, nil
	case ':':
		n, err := strconv.ParseInt(body, 10, 64)
		if err != nil {
			return reply{}, fmt.Errorf("protocol error: integer %q", body)
		}
		return reply{kind: kind, n: n}, nil
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return reply{}, fmt.Errorf("protocol error: bulk length %q", body)
		}
		if n < 0 {
			return reply{kind: kind, null: true}, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(r, buf); err != nil {
			return reply{}, err
		}
		if buf[n] != '\r' || buf[n+1] != '\n' {
			return reply{}, errors.New("protocol error: bulk string not terminated by CRLF")
		}
		return reply{kind: kind, str: string(buf[:n])}, nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil {
			return reply{}, fmt.Errorf("protocol error: array length %q", body)
		}
		if n < 0 {
			return reply{kind: kind, null: true}, nil
		}
		arr := make([]reply, n)
		for i := range arr {
			if arr[i], err = readReply(r); err != nil {
				return reply{}, err
			}
		}
		return reply{kind: kind, arr: arr}, nil
	}
	return reply{}, fmt.Errorf("protocol error: unexpected reply type %q", kind)
}

// conn is a client connection.
type conn struct {
	c net.Conn
	r *bufio.Reader
}

func dial(addr string) (*conn, error) {
	c, err := net.DialTimeout("tcp", addr, 2*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10)}, nil
}

func (c *conn) Close() error { return c.c.Close() }

// do sends one command and returns its reply; an error reply is an error.
func (c *conn) do(args ...string) (reply, error) {
	c.c.SetDeadline(time.Now().Add(5 * time.Minute))
	if _, err := c.c.Write(appendCommand(nil, args...)); err != nil {
		return reply{}, err
	}
	rep, err := readReply(c.r)
	if err == nil && rep.kind == '-' {
		err = fmt.Errorf("%s: %s", strings.Join(args, " "), rep.str)
	}
	return rep, err
}

// doInt is do for commands that reply with an integer.
func (c *conn) doInt(args ...string) (int64, error) {
	rep, err := c.do(args...)
	if err != nil {
		return 0, err
	}
	if rep.kind != ':' {
		return 0, fmt.Errorf("%s: want an integer, got %s", strings.Join(args, " "), rep)
	}
	return rep.n, nil
}

// pipeline writes buf, which holds n commands, then reads their n replies,
// which must all be integers.
func (c *conn) pipeline(buf []byte, n int) error {
	c.c.SetDeadline(time.Now().Add(5 * time.Minute))
	if _, err := c.c.Write(buf); err != nil {
		return err
	}
	for range n {
		rep, err := readReply(c.r)
		if err != nil {
			return err
		}
		if rep.kind != ':' {
			return fmt.Errorf("pipelined write: want an integer reply, got %s", rep)
		}
	}
	return nil
}
