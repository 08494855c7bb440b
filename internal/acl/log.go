package acl

import (
	"sync"
	"sync/atomic"
)

// Context is where a denied command was called from (ACL LOG's context).
type Context int

const (
	Toplevel Context = iota
	Multi
	Lua
	Module
)

func (c Context) String() string {
	switch c {
	case Toplevel:
		return "toplevel"
	case Multi:
		return "multi"
	case Lua:
		return "lua"
	case Module:
		return "module"
	}
	return "unknown"
}

// LogEntry is one ACL LOG entry, with Valkey 8.0.1's fields.
type LogEntry struct {
	Count      int64
	Reason     Reason
	Context    Context
	Object     string // the command, key or channel, or AUTH's command name
	Username   string
	ClientInfo string // CLIENT INFO of the client (the last one, if grouped)
	EntryID    int64
	Created    int64 // Unix ms
	Updated    int64 // Unix ms of the last event grouped into it
}

// groupWindow: events this close (ms) to an entry's last update, and
// otherwise equal, are counted in it.
const groupWindow = 60000

// Log is the ACL log: newest first, at most acllog-max-len entries.
type Log struct {
	mu      sync.Mutex
	entries []*LogEntry
	nextID  int64

	// Denials counted for INFO stats (acl_access_denied_*).
	AuthFailures, CommandDenials, KeyDenials, ChannelDenials atomic.Int64
}

// Add records an event at now (Unix ms), grouping it with a matching
// entry among the 10 newest (same reason, context, object and user, last
// updated within 60 s), which moves to the front; otherwise a new entry
// goes first and the oldest beyond maxLen are dropped.
func (l *Log) Add(e LogEntry, now int64, maxLen int) {
	switch e.Reason {
	case DeniedAuth:
		l.AuthFailures.Add(1)
	case DeniedCommand:
		l.CommandDenials.Add(1)
	case DeniedKey:
		l.KeyDenials.Add(1)
	case DeniedChannel:
		l.ChannelDenials.Add(1)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	for i := 0; i < len(l.entries) && i < 10; i++ {
		m := l.entries[i]
		d := m.Updated - now
		if d < 0 {
			d = -d
		}
		if m.Reason != e.Reason || m.Context != e.Context || d > groupWindow ||
			m.Object != e.Object || m.Username != e.Username {
			continue
		}
		m.ClientInfo = e.ClientInfo
		m.Updated = now
		m.Count++
		copy(l.entries[1:i+1], l.entries[:i])
		l.entries[0] = m
		return
	}
	ne := e
	ne.Count = 1
	ne.EntryID = l.nextID
	ne.Created, ne.Updated = now, now
	l.nextID++
	l.entries = append(l.entries, nil)
	copy(l.entries[1:], l.entries)
	l.entries[0] = &ne
	if maxLen < 0 {
		maxLen = 0
	}
	for len(l.entries) > maxLen {
		l.entries[len(l.entries)-1] = nil
		l.entries = l.entries[:len(l.entries)-1]
	}
}

// Entries returns copies of the newest n entries.
func (l *Log) Entries(n int) []LogEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	if n > len(l.entries) {
		n = len(l.entries)
	}
	if n < 0 {
		n = 0
	}
	out := make([]LogEntry, n)
	for i := range out {
		out[i] = *l.entries[i]
	}
	return out
}

// Reset empties the log (ACL LOG RESET); entry ids keep counting.
func (l *Log) Reset() {
	l.mu.Lock()
	l.entries = nil
	l.mu.Unlock()
}

// ResetStats zeroes the INFO counters (CONFIG RESETSTAT).
func (l *Log) ResetStats() {
	l.AuthFailures.Store(0)
	l.CommandDenials.Store(0)
	l.KeyDenials.Store(0)
	l.ChannelDenials.Store(0)
}
