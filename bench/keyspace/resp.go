package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"time"
)

// appendCommand appends one RESP array of bulk strings to buf.
func appendCommand(buf []byte, args ...[]byte) []byte {
	buf = append(buf, '*')
	buf = strconv.AppendInt(buf, int64(len(args)), 10)
	buf = append(buf, '\r', '\n')
	for _, a := range args {
		buf = append(buf, '$')
		buf = strconv.AppendInt(buf, int64(len(a)), 10)
		buf = append(buf, '\r', '\n')
		buf = append(buf, a...)
		buf = append(buf, '\r', '\n')
	}
	return buf
}

// respError is an error reply ("-ERR ...").
type respError string

func (e respError) Error() string { return string(e) }

// readReply reads one RESP2/RESP3 reply. Simple and bulk strings become
// string, integers int64, arrays/sets/maps []any (maps flattened to
// key, value, ...), nulls nil, and error replies a respError value.
func readReply(r *bufio.Reader) (any, error) {
	line, err := r.ReadSlice('\n')
	if err != nil {
		return nil, err
	}
	if len(line) < 3 || line[len(line)-2] != '\r' {
		return nil, fmt.Errorf("resp: malformed line %q", line)
	}
	kind, body := line[0], string(line[1:len(line)-2])
	switch kind {
	case '+':
		return body, nil
	case '-', '!':
		return respError(body), nil
	case ':':
		return strconv.ParseInt(body, 10, 64)
	case ',', '(':
		return body, nil
	case '#':
		return body == "t", nil
	case '_':
		return nil, nil
	case '$', '=':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return nil, fmt.Errorf("resp: bad bulk length %q", body)
		}
		if n < 0 {
			return nil, nil
		}
		b := make([]byte, n+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, err
		}
		return string(b[:n]), nil
	case '*', '~', '%', '>':
		n, err := strconv.Atoi(body)
		if err != nil || n < -1 {
			return nil, fmt.Errorf("resp: bad aggregate length %q", body)
		}
		if n < 0 {
			return nil, nil
		}
		if kind == '%' {
			n *= 2
		}
		out := make([]any, 0, n)
		for range n {
			v, err := readReply(r)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	}
	return nil, fmt.Errorf("resp: unknown reply type %q", kind)
}

// conn is one raw client connection.
type conn struct {
	nc net.Conn
	r  *bufio.Reader
	w  *bufio.Writer
}

func dial(addr string) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{nc: nc, r: bufio.NewReaderSize(nc, 1<<16), w: bufio.NewWriterSize(nc, 1<<16)}, nil
}

func (c *conn) Close() error { return c.nc.Close() }

// do sends one command and reads its reply; an error reply is returned as
// the error.
func (c *conn) do(args ...string) (any, error) {
	bs := make([][]byte, len(args))
	for i, a := range args {
		bs[i] = []byte(a)
	}
	if _, err := c.w.Write(appendCommand(nil, bs...)); err != nil {
		return nil, err
	}
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	v, err := readReply(c.r)
	if err != nil {
		return nil, err
	}
	if e, ok := v.(respError); ok {
		return nil, e
	}
	return v, nil
}

// doInt is do for an integer reply.
func (c *conn) doInt(args ...string) (int64, error) {
	v, err := c.do(args...)
	if err != nil {
		return 0, err
	}
	n, ok := v.(int64)
	if !ok {
		return 0, fmt.Errorf("%s: reply %v is not an integer", args[0], v)
	}
	return n, nil
}

// lookupInt finds key in a flattened key/value reply (MEMORY STATS) and
// returns its integer value; ok is false when it is absent.
func lookupInt(v any, key string) (int64, bool) {
	arr, _ := v.([]any)
	for i := 0; i+1 < len(arr); i += 2 {
		if k, _ := arr[i].(string); k == key {
			if n, ok := arr[i+1].(int64); ok {
				return n, true
			}
		}
	}
	return 0, false
}
