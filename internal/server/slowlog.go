package server

import (
	"sync"
	"time"
)

// slowlog keeps the newest entries of commands slower than
// slowlog-log-slower-than microseconds, at most slowlog-max-len of them.
type slowlog struct {
	mu      sync.Mutex
	entries []slowEntry // newest last
	nextID  int64
}

type slowEntry struct {
	id   int64
	time int64 // unix seconds
	usec int64
	argv []string
	addr string
	name string
}

func (l *slowlog) init() {}

// Valkey keeps at most 32 arguments and 128 bytes per argument.
const (
	slowlogMaxArgc = 32
	slowlogMaxArg  = 128
)

func (l *slowlog) maybeAdd(c *Client, cm *cmd, argv [][]byte, usec int64) {
	hot := &c.srv.hot
	threshold := hot.slowlogUsec.Load()
	if threshold < 0 || usec < threshold {
		return
	}
	e := slowEntry{time: time.Now().Unix() - usec/1e6, usec: usec, addr: c.peerAddr()}
	c.mu.Lock()
	e.name = c.mu.name
	c.mu.Unlock()
	argc := len(argv)
	if argc > slowlogMaxArgc {
		argc = slowlogMaxArgc
	}
	red := redactions(cm, argv) // credentials, as MONITOR hides them
	for i := 0; i < argc; i++ {
		if red != nil && red[i] {
			e.argv = append(e.argv, "(redacted)")
			continue
		}
		if i == slowlogMaxArgc-1 && len(argv) > slowlogMaxArgc {
			e.argv = append(e.argv, "... ("+itoa(int64(len(argv)-slowlogMaxArgc+1))+" more arguments)")
			break
		}
		a := argv[i]
		if len(a) > slowlogMaxArg {
			e.argv = append(e.argv, string(a[:slowlogMaxArg])+"... ("+itoa(int64(len(a)-slowlogMaxArg))+" more bytes)")
		} else {
			e.argv = append(e.argv, string(a))
		}
	}
	max := int(hot.slowlogMaxLen.Load())
	l.mu.Lock()
	e.id = l.nextID
	l.nextID++
	l.entries = append(l.entries, e)
	if over := len(l.entries) - max; over > 0 {
		l.entries = append(l.entries[:0], l.entries[over:]...)
	}
	l.mu.Unlock()
}
