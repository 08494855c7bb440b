// Package effects is the write path's output: the ordered stream of
// commands that reproduce every change made to the dataset, as Valkey
// propagates them to its AOF and its replicas. Persistence (the AOF),
// replication and any test that replays a server's writes consume it.
//
// # What is in it
//
// Each change appears as the command that makes it deterministically:
// a write command as it was sent when that is enough (RPUSH, ZADD ...),
// otherwise as Valkey 8.0.1 rewrites it (SET ... EX 10 becomes SET ...
// PXAT <absolute ms>, EXPIRE becomes PEXPIREAT, SPOP becomes SREM,
// INCRBYFLOAT becomes SET ... KEEPTTL, a served BLPOP becomes LPOP ...),
// and a key deleted because it expired or was evicted appears as UNLINK
// (DEL with the lazyfree settings off). The procedures in package db say
// what they change (db.Ctx's propagation methods); a command that changed
// nothing (its dirty count is zero) appears not at all.
//
// # Units and order
//
// A Unit collects the ops of one execution unit: a command, a whole
// EXEC, the serving of one client blocked on a key a command made ready,
// one key deleted by active expiry or eviction. The dispatcher fills it
// while it holds the unit's stripes and commits it before it releases
// them, so units that share a key reach the stream in the order they were
// applied, and units on disjoint keys, which commute, in some order. A
// unit of more than one op is wrapped in MULTI/EXEC, as Valkey's
// propagatePendingCommands does: a command together with the deletion of
// an expired key it met, or an EXEC of several writes.
//
// # Ownership and locks
//
// A Unit belongs to one goroutine at a time (a connection's, or the one
// that deletes expired or evicted keys) and is reused after Commit. Commit
// runs every sink under Stream.mu, with the unit's stripes held: a sink
// must copy what it keeps and must not block. Lock order: keyspace
// stripes, then Stream.mu (a leaf).
package effects

import (
	"strconv"
	"sync"
	"sync/atomic"
)

// Unit is the ops of one execution unit, encoded as RESP multibulk
// commands back to back.
type Unit struct {
	buf []byte
	ops []span
	// Alone marks a unit whose ops are never wrapped in a transaction
	// (Valkey propagates active expiry's deletions one by one, and
	// commands that touch arbitrary keys, FLUSHALL, without MULTI).
	Alone bool
}

type span struct {
	db         int
	start, end int
}

// Len is the number of ops.
func (u *Unit) Len() int { return len(u.ops) }

// Reset empties the unit for reuse, keeping its buffers.
func (u *Unit) Reset() {
	u.buf = u.buf[:0]
	u.ops = u.ops[:0]
	u.Alone = false
}

// Begin starts an op of n arguments in database db; Arg, ArgString and
// ArgInt append them. The op is complete after its n-th argument.
func (u *Unit) Begin(db, n int) {
	u.ops = append(u.ops, span{db: db, start: len(u.buf)})
	u.buf = append(u.buf, '*')
	u.buf = strconv.AppendInt(u.buf, int64(n), 10)
	u.buf = append(u.buf, '\r', '\n')
}

// Arg appends a bulk argument to the current op (copied).
func (u *Unit) Arg(b []byte) {
	u.head(len(b))
	u.buf = append(u.buf, b...)
	u.end()
}

// ArgString appends a bulk argument to the current op.
func (u *Unit) ArgString(s string) {
	u.head(len(s))
	u.buf = append(u.buf, s...)
	u.end()
}

// ArgInt appends an integer argument, in decimal, to the current op.
func (u *Unit) ArgInt(n int64) {
	var tmp [20]byte
	u.Arg(strconv.AppendInt(tmp[:0], n, 10))
}

func (u *Unit) head(n int) {
	u.buf = append(u.buf, '$')
	u.buf = strconv.AppendInt(u.buf, int64(n), 10)
	u.buf = append(u.buf, '\r', '\n')
}

func (u *Unit) end() {
	u.buf = append(u.buf, '\r', '\n')
	u.ops[len(u.ops)-1].end = len(u.buf)
}

// Add appends one op: argv in database db.
func (u *Unit) Add(db int, argv ...[]byte) {
	u.ops = append(u.ops, span{db: db, start: len(u.buf)})
	u.buf = AppendCommand(u.buf, argv...)
	u.ops[len(u.ops)-1].end = len(u.buf)
}

// AppendCommand appends argv as a RESP array of bulk strings: the form
// of every op in a unit, and of every command in an AOF or a replication
// stream (Valkey's catAppendOnlyGenericCommand).
func AppendCommand(dst []byte, argv ...[]byte) []byte {
	dst = append(dst, '*')
	dst = strconv.AppendInt(dst, int64(len(argv)), 10)
	dst = append(dst, '\r', '\n')
	for _, a := range argv {
		dst = append(dst, '$')
		dst = strconv.AppendInt(dst, int64(len(a)), 10)
		dst = append(dst, '\r', '\n')
		dst = append(dst, a...)
		dst = append(dst, '\r', '\n')
	}
	return dst
}

// AddStrings appends one op made of strings.
func (u *Unit) AddStrings(db int, argv ...string) {
	u.Begin(db, len(argv))
	for _, a := range argv {
		u.ArgString(a)
	}
}

// Wrapped reports whether the unit is propagated inside MULTI/EXEC.
func (u *Unit) Wrapped() bool { return len(u.ops) > 1 && !u.Alone }

var (
	multiCmd = []byte("*1\r\n$5\r\nMULTI\r\n")
	execCmd  = []byte("*1\r\n$4\r\nEXEC\r\n")
)

// Each calls fn for every op in order, with the database it applies to and
// its RESP encoding (valid during the call), MULTI and EXEC included when
// the unit is wrapped (MULTI in the first op's database, EXEC in the
// last's, so that a consumer that selects databases as it goes never
// selects one for them).
func (u *Unit) Each(fn func(db int, cmd []byte)) {
	if len(u.ops) == 0 {
		return
	}
	wrap := u.Wrapped()
	if wrap {
		fn(u.ops[0].db, multiCmd)
	}
	for _, op := range u.ops {
		fn(op.db, u.buf[op.start:op.end])
	}
	if wrap {
		fn(u.ops[len(u.ops)-1].db, execCmd)
	}
}

// Sink consumes committed units (the AOF, a replication backlog, a test's
// recorder). Write runs under Stream.mu with the unit's stripes held: it
// must copy what it keeps and must not block.
type Sink interface {
	Write(u *Unit)
}

// Stream delivers committed units to its sinks, in commit order.
type Stream struct {
	active atomic.Bool // some sink is attached: units are worth filling
	mu     sync.Mutex
	sinks  []Sink
}

// Active reports whether any sink is attached. The dispatcher fills units
// only then: with no AOF, no replica and no recorder, the write path does
// not encode a byte.
func (s *Stream) Active() bool { return s != nil && s.active.Load() }

// Attach adds a sink and returns the function that removes it. A unit
// committed while it attaches is delivered to it entirely or not at all.
func (s *Stream) Attach(k Sink) (detach func()) {
	s.mu.Lock()
	s.sinks = append(s.sinks, k)
	s.active.Store(true)
	s.mu.Unlock()
	return func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		for i, x := range s.sinks {
			if x == k {
				s.sinks = append(s.sinks[:i], s.sinks[i+1:]...)
				break
			}
		}
		s.active.Store(len(s.sinks) > 0)
	}
}

// Commit hands u to every sink and empties it. Call it with the stripes of
// every key u changed held.
func (s *Stream) Commit(u *Unit) {
	if u.Len() == 0 {
		return
	}
	s.mu.Lock()
	for _, k := range s.sinks {
		k.Write(u)
	}
	s.mu.Unlock()
	u.Reset()
}
