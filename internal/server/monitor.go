package server

import (
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
)

// MONITOR: every command a client runs is sent, as Valkey's
// replicationFeedMonitors formats it, to each client in monitor mode,
// through Client.Push. The list of monitors is copied on change and read
// with one atomic load, so a server without monitors pays one load per
// command.
type monitors struct {
	mu   sync.Mutex // serializes changes to list
	list atomic.Pointer[[]*Client]
}

func (m *monitors) add(c *Client) {
	m.mu.Lock()
	var l []*Client
	if p := m.list.Load(); p != nil {
		l = append(l, *p...)
	}
	l = append(l, c)
	m.list.Store(&l)
	m.mu.Unlock()
}

func (m *monitors) remove(c *Client) {
	m.mu.Lock()
	if p := m.list.Load(); p != nil {
		var l []*Client
		for _, o := range *p {
			if o != c {
				l = append(l, o)
			}
		}
		if len(l) == 0 {
			m.list.Store(nil)
		} else {
			m.list.Store(&l)
		}
	}
	m.mu.Unlock()
}

// MONITOR
func monitorCommand(c *Client) {
	if c.ctx.Locked {
		c.w.Error("ERR MONITOR isn't allowed for DENY BLOCKING client")
		return
	}
	if c.monitor {
		return // already monitoring: no reply, as Valkey
	}
	c.monitor = true
	c.monitoring.Store(true)
	c.srv.monitors.add(c)
	c.w.OK()
}

// monitorRefusal is processCommand's check for a client in monitor mode
// (a replica to Valkey): it may not touch the keyspace.
func (c *Client) monitorRefusal(cm *cmd) string {
	if cm.meta.Flags&(command.FlagWrite|command.FlagReadonly|command.FlagMayReplicate) != 0 {
		return "ERR Replica can't interact with the keyspace"
	}
	return ""
}

// stopMonitor leaves monitor mode (RESET, disconnect).
func (c *Client) stopMonitor() {
	if c.monitor {
		c.monitor = false
		c.monitoring.Store(false)
		c.srv.monitors.remove(c)
	}
}

// feedMonitors sends one command to every monitor: Valkey logs a command
// once it ran (a blocking command when it starts waiting), unless it is
// an administrative one or marked skip_monitor. Owner of c only.
func (c *Client) feedMonitors(cm *cmd, argv [][]byte) {
	if cm.meta.Flags&(command.FlagSkipMonitor|command.FlagAdmin) != 0 {
		return
	}
	c.feedMonitorsAlways(cm, argv)
}

// feedMonitorsAlways feeds argv to the monitors whatever the command's
// flags: EVAL (skip_monitor) feeds itself before the commands it calls.
func (c *Client) feedMonitorsAlways(cm *cmd, argv [][]byte) {
	p := c.srv.monitors.list.Load()
	if p == nil || c.id < 0 {
		return
	}
	now := time.Now()
	b := make([]byte, 0, 64+16*len(argv))
	b = append(b, '+')
	b = strconv.AppendInt(b, now.Unix(), 10)
	b = append(b, '.')
	us := now.Nanosecond() / 1000
	for d := 100000; d > 1 && us < d; d /= 10 {
		b = append(b, '0')
	}
	b = strconv.AppendInt(b, int64(us), 10)
	b = append(b, " ["...)
	b = strconv.AppendInt(b, int64(c.ctx.DB), 10)
	b = append(b, ' ')
	if c.inScript {
		b = append(b, "lua"...) // a command a script called
	} else if c.unix {
		b = append(b, "unix:"...)
		b = append(b, c.srv.cfg.UnixSocket()...)
	} else {
		b = append(b, c.peerAddr()...)
	}
	b = append(b, ']')
	red := redactions(cm, argv)
	for i, a := range argv {
		b = append(b, ' ')
		if red != nil && red[i] {
			b = append(b, `"(redacted)"`...)
			continue
		}
		b = resp.AppendRepr(b, a)
	}
	b = append(b, '\r', '\n')
	for _, m := range *p {
		m.Push(b)
	}
}

// redactions marks the arguments Valkey hides from MONITOR and the
// slowlog (redactClientCommandArgument), where its parsers would: AUTH's
// credentials (unless it has too many arguments), HELLO's AUTH username
// and password once the protocol version parsed, MIGRATE's AUTH and AUTH2
// credentials among its options. nil when there are none.
func redactions(cm *cmd, argv [][]byte) []bool {
	var red []bool
	mark := func(i int) {
		if red == nil {
			red = make([]bool, len(argv))
		}
		red[i] = true
	}
	switch cm.meta {
	case command.Auth:
		if len(argv) <= 3 {
			for i := 1; i < len(argv); i++ {
				mark(i)
			}
		}
	case command.Hello:
		if len(argv) < 2 {
			break
		}
		if v, err := strconv.ParseInt(string(argv[1]), 10, 64); err != nil || v < 2 || v > 3 {
			break
		}
		for j := 2; j < len(argv); {
			more := len(argv) - j - 1
			switch {
			case db.EqualFold(argv[j], "auth") && more >= 2:
				mark(j + 1)
				mark(j + 2)
				j += 3
			case db.EqualFold(argv[j], "setname") && more >= 1:
				j += 2
			default:
				return red
			}
		}
	case command.Migrate:
		for j := 6; j < len(argv); j++ {
			more := len(argv) - j - 1
			switch {
			case db.EqualFold(argv[j], "copy"), db.EqualFold(argv[j], "replace"):
			case db.EqualFold(argv[j], "auth") && more >= 1:
				mark(j + 1)
				j++
			case db.EqualFold(argv[j], "auth2") && more >= 2:
				mark(j + 1)
				mark(j + 2)
				j += 2
			default: // KEYS ends the options; anything else is an error
				return red
			}
		}
	}
	return red
}
