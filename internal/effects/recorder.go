package effects

import (
	"strconv"
	"sync"
)

// Op is one committed command: its database and RESP encoding.
type Op struct {
	DB  int
	Cmd []byte
}

// Recorder is a Sink that keeps a copy of everything committed, in order
// (tests that replay a server's writes; a replication backlog is the same
// thing with a bound).
type Recorder struct {
	mu  sync.Mutex
	ops []Op
}

// Write copies u's ops (MULTI and EXEC included when it is wrapped).
func (r *Recorder) Write(u *Unit) {
	r.mu.Lock()
	defer r.mu.Unlock()
	u.Each(func(db int, cmd []byte) {
		r.ops = append(r.ops, Op{DB: db, Cmd: append([]byte(nil), cmd...)})
	})
}

// Ops returns what was recorded so far.
func (r *Recorder) Ops() []Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Op(nil), r.ops...)
}

// Stream encodes the recorded ops as Valkey writes them to an AOF or a
// replica: a SELECT before the first op and whenever the database
// changes.
func (r *Recorder) Stream() []byte {
	var out []byte
	sel := -1
	for _, op := range r.Ops() {
		if op.DB != sel {
			out = AppendCommand(out, []byte("SELECT"), strconv.AppendInt(nil, int64(op.DB), 10))
			sel = op.DB
		}
		out = append(out, op.Cmd...)
	}
	return out
}
