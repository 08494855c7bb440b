package aof

import (
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/resp"
)

// RewriteItemsPerCmd is how many elements one command of a RESP base
// carries at most (Valkey's AOF_REWRITE_ITEMS_PER_CMD).
const RewriteItemsPerCmd = 64

// CommandWriter writes a dataset as the commands that rebuild it: the
// base of an AOF without an RDB preamble (aof-use-rdb-preamble no), as
// Valkey's rewriteAppendOnlyFileRio writes it: an optional timestamp
// annotation, SELECT per non-empty database, then per key SET, RPUSH,
// SADD, ZADD or HMSET (collections in commands of at most
// RewriteItemsPerCmd elements), or a stream's commands
// (respbase_stream.go), and PEXPIREAT for a key with a TTL. It
// has the shape of rdb.Writer (package snapshot writes through either).
// The first error is sticky.
type CommandWriter struct {
	w          io.Writer
	timestamps bool
	buf        []byte
	args       [][]byte
	err        error
}

// NewCommandWriter returns a CommandWriter on w; timestamps writes a
// "#TS:" annotation first (aof-timestamp-enabled).
func NewCommandWriter(w io.Writer, timestamps bool) *CommandWriter {
	return &CommandWriter{w: w, timestamps: timestamps}
}

// WriteHeader writes the timestamp annotation, if any.
func (c *CommandWriter) WriteHeader() error {
	if c.timestamps {
		c.buf = AppendTimestamp(c.buf, time.Now().Unix())
	}
	return c.flush()
}

// WriteFunction writes a function library as "FUNCTION LOAD <code>", as
// Valkey's rewriteFunctions does.
func (c *CommandWriter) WriteFunction(code []byte) error {
	c.buf = effects.AppendCommand(c.buf, []byte("FUNCTION"), []byte("LOAD"), code)
	return c.flush()
}

// BeginDB selects db (keys and expires are for RDB's RESIZEDB).
func (c *CommandWriter) BeginDB(db int, keys, expires uint64) error {
	c.buf = AppendSelect(c.buf, db)
	return c.flush()
}

// WriteEntry writes the commands that recreate e.
func (c *CommandWriter) WriteEntry(e *rdb.Entry) error {
	key := e.Key
	switch e.Kind {
	case rdb.KindString:
		c.buf = effects.AppendCommand(c.buf, []byte("SET"), key, e.String)
	case rdb.KindList:
		c.batches("RPUSH", key, len(e.List), func(args [][]byte, i int) [][]byte { return append(args, e.List[i]) })
	case rdb.KindSet:
		c.batches("SADD", key, len(e.Set), func(args [][]byte, i int) [][]byte { return append(args, e.Set[i]) })
	case rdb.KindZSet:
		c.batches("ZADD", key, len(e.ZSet), func(args [][]byte, i int) [][]byte {
			return append(args, resp.AppendDouble(nil, e.ZSet[i].Score), e.ZSet[i].Member)
		})
	case rdb.KindHash:
		c.batches("HMSET", key, len(e.Hash), func(args [][]byte, i int) [][]byte {
			return append(args, e.Hash[i].Field, e.Hash[i].Value)
		})
	case rdb.KindStream:
		c.writeStream(key, e.Stream)
	default:
		return c.fail(fmt.Errorf("aof: a RESP base cannot hold key %q of kind %v", key, e.Kind))
	}
	if e.ExpireMs != -1 {
		c.buf = effects.AppendCommand(c.buf, []byte("PEXPIREAT"), key, strconv.AppendInt(nil, e.ExpireMs, 10))
	}
	return c.flush()
}

// Close flushes what is buffered (nothing: each call writes through).
func (c *CommandWriter) Close() error { return c.flush() }

// batches writes "cmd key elem..." commands of at most RewriteItemsPerCmd
// of the n elements each; add appends element i's arguments.
func (c *CommandWriter) batches(cmd string, key []byte, n int, add func(args [][]byte, i int) [][]byte) {
	for i := 0; i < n; {
		items := min(n-i, RewriteItemsPerCmd)
		c.args = append(c.args[:0], []byte(cmd), key)
		for j := 0; j < items; j++ {
			c.args = add(c.args, i+j)
		}
		c.buf = effects.AppendCommand(c.buf, c.args...)
		i += items
		if len(c.buf) >= 1<<16 {
			c.flush()
		}
	}
}

func (c *CommandWriter) flush() error {
	if c.err != nil {
		return c.err
	}
	if len(c.buf) > 0 {
		if _, err := c.w.Write(c.buf); err != nil {
			return c.fail(err)
		}
		c.buf = c.buf[:0]
	}
	return nil
}

func (c *CommandWriter) fail(err error) error {
	if c.err == nil {
		c.err = err
	}
	return c.err
}
