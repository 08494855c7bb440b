package main

import (
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// The connection side is internal/bench/wire's; what stays here is the
// encoding of the generator's commands, whose arguments are byte slices of
// any number (wire.AppendCommand takes strings, which would cost an
// allocation per element).

// appendArrayHeader appends the header of a RESP array of n elements.
func appendArrayHeader(b []byte, n int) []byte {
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// appendBulk appends s as a RESP bulk string.
func appendBulk[T string | []byte](b []byte, s T) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// cmdTimeout bounds one command or one pipelined batch.
const cmdTimeout = 5 * time.Minute

func dial(addr string) (*wire.Conn, error) { return wire.Dial("tcp", addr, 2*time.Second) }

// do sends one command and returns its reply; an error reply is an error.
func do(c *wire.Conn, args ...string) (wire.Value, error) {
	_ = c.SetDeadline(time.Now().Add(cmdTimeout))
	return benchproc.Do(c, args...)
}

// doInt is do for commands that reply with an integer.
func doInt(c *wire.Conn, args ...string) (int64, error) {
	_ = c.SetDeadline(time.Now().Add(cmdTimeout))
	return benchproc.DoInt(c, args...)
}
