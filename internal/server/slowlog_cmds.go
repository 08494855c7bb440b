package server

import (
	"math"

	"github.com/corvid-kv/corvid/internal/db"
)

// SLOWLOG GET [count]: the newest count entries (default 10, -1 for all),
// newest first, each [id, unix time, microseconds, argv, peer, name].
func slowlogGetCommand(c *Client) {
	argv := c.ctx.Argv
	if len(argv) > 3 {
		c.subcommandSyntaxError()
		return
	}
	count := int64(10)
	if len(argv) == 3 {
		n, ok := db.ParseInt(argv[2])
		if !ok || n < -1 {
			c.w.Error("ERR count should be greater than or equal to -1")
			return
		}
		count = n
		if count == -1 {
			count = math.MaxInt64
		}
	}
	l := &c.srv.slow
	l.mu.Lock()
	n := min(int64(len(l.entries)), count)
	entries := make([]slowEntry, n)
	for i := range entries {
		entries[i] = l.entries[len(l.entries)-1-i]
	}
	l.mu.Unlock()

	w := c.w
	w.ArrayLen(len(entries))
	for _, e := range entries {
		w.ArrayLen(6)
		w.Int(e.id)
		w.Int(e.time)
		w.Int(e.usec)
		w.ArrayLen(len(e.argv))
		for _, a := range e.argv {
			w.BulkString(a)
		}
		w.BulkString(e.addr)
		w.BulkString(e.name)
	}
}

// SLOWLOG LEN
func slowlogLenCommand(c *Client) {
	l := &c.srv.slow
	l.mu.Lock()
	n := len(l.entries)
	l.mu.Unlock()
	c.w.Int(int64(n))
}

// SLOWLOG RESET: entry ids keep counting, as in Valkey.
func slowlogResetCommand(c *Client) {
	l := &c.srv.slow
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
	c.w.OK()
}

var slowlogHelp = []string{
	"GET [<count>]",
	"    Reply with the newest <count> entries (default 10, -1 for all), newest",
	"    first. Each entry is: id, unix time, duration in microseconds, arguments,",
	"    client address, client name.",
	"LEN",
	"    Reply with the number of entries.",
	"RESET",
	"    Remove every entry.",
}

// SLOWLOG HELP
func slowlogHelpCommand(c *Client) { c.writeHelp("SLOWLOG", slowlogHelp) }
