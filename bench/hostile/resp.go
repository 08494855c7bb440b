package main

import (
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// The control path (CONFIG SET, SET, INFO) and the prober use
// internal/bench/wire; the attacks write raw bytes built here.

func dial(addr string) (*wire.Conn, error) { return wire.Dial("tcp", addr, 5*time.Second) }

// do sends one control command, bounded by timeout; an error reply is an
// error.
func do(c *wire.Conn, timeout time.Duration, args ...string) (wire.Value, error) {
	_ = c.SetDeadline(time.Now().Add(timeout))
	return benchproc.Do(c, args...)
}

// rpushCommand is RPUSH key 0 1 2 ... n-1 as one RESP multibulk.
func rpushCommand(key string, n int) []byte {
	b := make([]byte, 0, 32+len(key)+n*12)
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n+2), 10)
	b = append(b, "\r\n$5\r\nRPUSH\r\n$"...)
	b = strconv.AppendInt(b, int64(len(key)), 10)
	b = append(b, "\r\n"...)
	b = append(b, key...)
	b = append(b, "\r\n"...)
	var num [20]byte
	for i := range n {
		v := strconv.AppendInt(num[:0], int64(i), 10)
		b = append(b, '$')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		b = append(b, "\r\n"...)
		b = append(b, v...)
		b = append(b, "\r\n"...)
	}
	return b
}

// repeatCommand is the command args encoded count times back to back (one
// write of a pipeline).
func repeatCommand(count int, args ...string) []byte {
	one := wire.AppendCommand(nil, args...)
	return []byte(strings.Repeat(string(one), count))
}

// bulkReplyLen is the size on the wire of a bulk string reply of n bytes:
// $n\r\n, the bytes, \r\n.
func bulkReplyLen(n int) int64 {
	return int64(1 + len(strconv.Itoa(n)) + 2 + n + 2)
}

// obufDisconnections reads client_output_buffer_limit_disconnections from
// INFO stats; -1 when the server has no such field (Redis 7.0).
func obufDisconnections(c *wire.Conn, timeout time.Duration) (int64, error) {
	v, err := do(c, timeout, "INFO", "stats")
	if err != nil {
		return 0, err
	}
	return optionalInt(benchproc.ParseInfo(v.Str), "client_output_buffer_limit_disconnections")
}

// optionalInt is infoInt, with -1 for a field the reply does not have.
func optionalInt(m map[string]string, key string) (int64, error) {
	if _, ok := m[key]; !ok {
		return -1, nil
	}
	return benchproc.InfoInt(m, key)
}
