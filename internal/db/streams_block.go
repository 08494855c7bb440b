package db

import (
	"time"
)

// Blocking XREAD and XREADGROUP, on the wake-up machinery of blocking.go.
//
// Valkey re-executes a blocked stream read whenever one of its keys is
// signalled, and the read then looks at every one of its streams again.
// Here the waiter's serve function is that re-execution: it re-runs the
// whole read (every key, its "+" IDs resolved anew, "$" as the ID it
// stood for when the client blocked) and is given the stripes of all the
// read's keys (as "also" keys), so it sees them as the command would.
// An XADD signals the key; so does XGROUP DESTROY, after which a blocked
// XREADGROUP answers NOGROUP. A read that finds nothing stays blocked.
//
// XREADGROUP also wakes when a key it waits on is deleted or overwritten
// (DEL, expiry, eviction, SET, RENAME, FLUSHDB, ...: Valkey's
// unblock_on_nokey): such a waiter is woken to retry by itself, and its
// read then answers NOGROUP or WRONGTYPE, or serves a stream that was
// re-created meanwhile, as Valkey's re-execution would (keyGone).

// blockOnStreams runs a stream read that may block: attempt reads with
// the stripes of keys held and reports whether it answered (data or an
// error, into memory the caller owns). If it did not, the client waits
// until a re-run answers, timeout passes (0: forever), or it is
// unblocked; on a timeout (or CLIENT UNBLOCK ... TIMEOUT) blockOnStreams
// writes the null array, on CLIENT UNBLOCK ... ERROR the UNBLOCKED
// error, and returns false. nokey makes the waiter retry when one of its
// keys goes away. Called by a LockNone procedure, outside EXEC.
func (c *Ctx) blockOnStreams(keys [][]byte, timeout time.Duration, nokey bool, attempt func(c *Ctx) bool) bool {
	ks := c.KS
	var ls LockSet
	for _, k := range keys {
		ls.Add(ks, k)
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	bc, _ := c.Client.(BlockingClient)
	serve := func(sc *Ctx, _ []byte) bool { return attempt(sc) }
	for {
		ks.Lock(&ls)
		c.HoldSet(&ls)
		c.StartProp()
		if attempt(c) {
			c.CommitUnit()
			c.ReleaseHeld()
			ks.Unlock(&ls)
			return true
		}
		w := c.register(keys, keys, serve)
		if nokey {
			w.nokey = true
			ks.blocks.nokey.Add(1)
		}
		c.CommitUnit() // what the attempt did (a consumer it created)
		c.ReleaseHeld()
		ks.Unlock(&ls)

		outcome := c.wait(w, bc, deadline)
		c.unregister(w, &ls)
		switch outcome {
		case outServed:
			return true
		case outRetry:
			continue
		case outError:
			c.W.Error("UNBLOCKED client unblocked via CLIENT UNBLOCK")
			return false
		}
		c.W.NullArray()
		return false
	}
}

// withStripes runs fn with the stripes of keys held, as the dispatcher
// would for a command that does not block: a LockNone stream read
// without BLOCK.
func (c *Ctx) withStripes(keys [][]byte, fn func()) {
	ks := c.KS
	var ls LockSet
	for _, k := range keys {
		ls.Add(ks, k)
	}
	ks.Lock(&ls)
	defer ks.Unlock(&ls)
	c.HoldSet(&ls)
	defer c.ReleaseHeld()
	c.StartProp()
	fn()
	c.CommitUnit()
}

// keyGone wakes the waiters that retry when key (in db) is deleted or
// overwritten. key's stripe is held. A waiter whose mutex is taken is
// being served by this very goroutine (its read expired the key), and
// sees the key gone anyway.
func (ks *Keyspace) keyGone(db int, key []byte) {
	r := &ks.blocks
	if r.nokey.Load() == 0 {
		return
	}
	if q := r.queue(ks.StripeOf(key), db, key); q != nil {
		wakeNoKey(q)
	}
}

// dbGone is keyGone for every key of database db (db < 0: all): FLUSHDB,
// FLUSHALL, SWAPDB. Every stripe is held.
func (ks *Keyspace) dbGone(db int) {
	r := &ks.blocks
	if r.nokey.Load() == 0 {
		return
	}
	for i := range r.stripes {
		for d, m := range r.stripes[i].dbs {
			if db >= 0 && d != db {
				continue
			}
			for _, q := range m {
				wakeNoKey(q)
			}
		}
	}
}

func wakeNoKey(q *waitQueue) {
	for _, w := range q.ws {
		if !w.nokey || w.state.Load() != waitWaiting || !w.mu.TryLock() {
			continue
		}
		if w.state.Load() == waitWaiting {
			w.state.Store(waitRetry)
			close(w.done)
		}
		w.mu.Unlock()
	}
}
