package db

import (
	"math"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Blocking commands (BLPOP, BLMOVE, BLMPOP, BZPOPMIN, ...) and how a push
// serves them, with Valkey's semantics:
//
//   - A blocking command first tries to serve itself, with its keys' stripes
//     locked. If it cannot, it registers a waiter on every key it waits for,
//     in FIFO order per (db, key), releases the stripes and parks its own
//     goroutine (Ctx.Block).
//   - A command that gives a key data it can be waited on for (LPUSH,
//     LMOVE's destination, ZADD, ...) calls Ctx.SignalReady while it holds
//     the key's stripe. Nothing else happens then.
//   - After the command, still holding the command's stripes, the
//     dispatcher calls Ctx.ServeReady (EXEC: once, after the whole
//     transaction). For every ready key it runs the serve functions of the
//     key's waiters, oldest first, on the pusher's goroutine, in the
//     waiter's database. So the pop happens atomically right after the
//     push, exactly as in Valkey's handleClientsBlockedOnKeys: no other
//     client (not even the next command of a pipeline) can take the element
//     first. A served waiter's goroutine is then woken to write its reply.
//   - A waiter that is not served stays blocked: keys that are deleted,
//     renamed or change type do not wake anybody (Valkey 7+). WRONGTYPE is
//     only reported when the command is first called.
//
// # Locks
//
// Order: keyspace stripes (ascending) → waiter.mu → blockRegistry.pmu
// (leaf). The waiter queues of a key live in the registry slot of the
// key's stripe and are guarded by that stripe's mutex: registering,
// looking up and removing waiters of a key require its stripe. A waiter's
// mu makes serving it exclusive: two pushers holding the stripes of two
// different keys of one BLPOP may find the same waiter; the first to take
// its mu serves it, the other sees it is no longer waiting. Serve functions
// run under the key's stripe and the waiter's mu and take no locks, except
// BLMOVE's, which needs its destination's stripe: ServeReady takes that
// stripe before the waiter's mu, with Lock when it comes after every stripe
// the pusher holds (ascending order is kept) and otherwise with TryLock. If
// TryLock fails, the waiter is woken to retry by itself: it locks its
// source and destination in order and tries again, as if its command were
// re-executed (Valkey re-executes a served blocked command too). The only
// visible difference: if another client empties the source in between,
// the retrying client blocks again behind the clients that were already
// waiting, instead of keeping its place in the queue.
//
// # Memory
//
// A serve function stores its result in memory the blocked command owns
// (variables its closure captures); it never writes a reply. The waiter's
// goroutine reads that memory after it is woken: the waiter's state is
// changed under its mu after the serve function returned, and the waiter
// reads the state under the same mu, which orders the accesses.

// Waiter states.
const (
	waitWaiting int32 = iota
	waitServed
	waitCancelled // timed out, unblocked or disconnected
	waitRetry     // woken to serve itself (see above)
)

// waiter is one blocked command.
type waiter struct {
	mu    sync.Mutex
	state atomic.Int32 // written under mu; read without it to skip quickly
	done  chan struct{}
	db    int
	keys  []string // the keys it waits on
	also  []string // keys its serve function also touches (BLMOVE's destination)
	serve func(c *Ctx, key []byte) bool
	// nokey: woken to retry when one of its keys is deleted or
	// overwritten (XREADGROUP, Valkey's unblock_on_nokey).
	nokey bool
}

// waitQueue is the FIFO of waiters of one (db, key).
type waitQueue struct{ ws []*waiter }

// blockStripe holds the queues of the keys of one stripe, per database.
// It is guarded by the stripe's mutex.
type blockStripe struct {
	dbs []map[string]*waitQueue
}

// readyKey is a key that gained data while it had waiters.
type readyKey struct {
	db  int
	key string
}

// blockRegistry is one keyspace's blocking state (Keyspace.blocks).
type blockRegistry struct {
	stripes [StripeCount]blockStripe
	// waiting counts registered waiters: while it is 0, SignalReady is
	// one atomic load.
	waiting atomic.Int64
	// nokey counts registered nokey waiters: while it is 0, a deletion
	// costs one atomic load (keyGone).
	nokey atomic.Int64
	// pendingN counts commands with signalled keys not yet served: while
	// it is 0, ServeReady is one atomic load.
	pendingN atomic.Int64
	pmu      sync.Mutex
	pending  map[*Ctx][]readyKey // keys signalled by each running command
}

func (r *blockRegistry) init() { r.pending = make(map[*Ctx][]readyKey) }

// queue returns the queue of (db, key); the key's stripe must be held.
func (r *blockRegistry) queue(st, db int, key []byte) *waitQueue {
	dbs := r.stripes[st].dbs
	if db >= len(dbs) || dbs[db] == nil {
		return nil
	}
	return dbs[db][string(key)]
}

// servingClient marks the Ctx that ServeReady passes to serve functions.
type servingClient struct{}

var servingMarker any = &servingClient{}

// Serving reports whether c is the context ServeReady gives a serve
// function, as opposed to the blocking command's own first attempt inside
// Block. A serve function that finds its key holding another type must
// report WRONGTYPE on the first attempt, but must return false (stay
// blocked) when serving.
func (c *Ctx) Serving() bool { return c.Client == servingMarker }

// SignalReady records that key (in the selected database) gained data that
// blocked clients may wait for. The key's stripe must be held. Call it from
// every command that creates or grows a list, zset or stream; the
// dispatcher then calls ServeReady.
func (c *Ctx) SignalReady(key []byte) { c.SignalReadyDB(c.DB, key) }

// SignalReadyDB is SignalReady for a key of database db.
func (c *Ctx) SignalReadyDB(db int, key []byte) {
	r := &c.KS.blocks
	if r.waiting.Load() == 0 {
		return
	}
	q := r.queue(c.KS.StripeOf(key), db, key)
	if q == nil || len(q.ws) == 0 {
		return
	}
	r.addPending(c, readyKey{db, string(key)})
}

// SignalDBReady marks every key of database db that has waiters as ready
// (SWAPDB: the keys now hold the other database's values). Every stripe
// must be held.
func (c *Ctx) SignalDBReady(db int) {
	r := &c.KS.blocks
	if r.waiting.Load() == 0 {
		return
	}
	for i := range r.stripes {
		dbs := r.stripes[i].dbs
		if db >= len(dbs) {
			continue
		}
		for k, q := range dbs[db] {
			if len(q.ws) > 0 {
				r.addPending(c, readyKey{db, k})
			}
		}
	}
}

func (r *blockRegistry) addPending(c *Ctx, rk readyKey) {
	r.pmu.Lock()
	list, ok := r.pending[c]
	if !slices.Contains(list, rk) {
		if !ok {
			r.pendingN.Add(1)
		}
		r.pending[c] = append(list, rk)
	}
	r.pmu.Unlock()
}

func (r *blockRegistry) takePending(c *Ctx) []readyKey {
	r.pmu.Lock()
	list, ok := r.pending[c]
	if ok {
		delete(r.pending, c)
		r.pendingN.Add(-1)
	}
	r.pmu.Unlock()
	return list
}

// HasReady reports whether ServeReady may have work for c: the dispatcher
// can skip building a LockSet otherwise.
func (c *Ctx) HasReady() bool { return c.KS.blocks.pendingN.Load() != 0 }

// ServeReady serves the waiters of the keys c signalled, in the order the
// keys were signalled and, per key, oldest waiter first. held names the
// stripes the caller holds; every signalled key's stripe is among them
// (SignalReady requires it).
func (c *Ctx) ServeReady(held *LockSet) {
	r := &c.KS.blocks
	if r.pendingN.Load() == 0 {
		return
	}
	keys := r.takePending(c)
	if len(keys) == 0 {
		return
	}
	var m stripeMask
	m.fromLockSet(held)
	r.serveKeys(c, keys, &m)
}

// serveKeys serves the waiters of keys while holding the stripes in m.
func (r *blockRegistry) serveKeys(c *Ctx, keys []readyKey, m *stripeMask) {
	ks := c.KS
	for _, rk := range keys {
		key := []byte(rk.key)
		st := ks.StripeOf(key)
		q := r.queue(st, rk.db, key)
		if q == nil {
			continue
		}
		// Serve a snapshot: waiters registered meanwhile (by our own
		// nested serving, never by others, who need this stripe) wait
		// for the next signal, as Valkey's "initial count" loop.
		for _, w := range slices.Clone(q.ws) {
			if w.state.Load() != waitWaiting {
				continue
			}
			served, stop := r.serveOne(c, w, rk.db, key, m)
			if stop {
				break
			}
			if !served && !w.nokey && c.LookupDB(rk.db, key) == nil {
				break // nothing left for anyone
			}
		}
	}
}

// serveOne runs w's serve function for key. stop is set when w was woken
// to retry by itself: the key's later waiters must not overtake it.
func (r *blockRegistry) serveOne(c *Ctx, w *waiter, db int, key []byte, m *stripeMask) (served, stop bool) {
	ks := c.KS
	// Take the extra stripes w's serve function needs.
	var taken []int
	for _, a := range w.also {
		s := ks.StripeOf([]byte(a))
		if m.has(s) {
			continue
		}
		ok := true
		if s > m.max() {
			ks.stripes[s].mu.Lock()
		} else {
			ok = ks.stripes[s].mu.TryLock()
		}
		if !ok {
			for _, t := range taken {
				ks.stripes[t].mu.Unlock()
				m.clear(t)
			}
			w.mu.Lock()
			if w.state.Load() == waitWaiting {
				w.state.Store(waitRetry)
				close(w.done)
			}
			w.mu.Unlock()
			return false, true
		}
		m.set(s)
		taken = append(taken, s)
	}
	defer func() {
		for _, t := range taken {
			ks.stripes[t].mu.Unlock()
			m.clear(t)
		}
	}()

	w.mu.Lock()
	if w.state.Load() != waitWaiting {
		w.mu.Unlock()
		return false, false
	}
	// Serve functions must not reply; a writer whose output is dropped
	// keeps a mistaken one from crashing the pusher's connection. What
	// the serving does is a unit of its own in the stream (Valkey
	// propagates each served client's command after the pusher's).
	// The clock is read anew (Valkey updates its cached time before it
	// re-runs a blocked command): a key that expired since the pusher's
	// command started (a DEBUG SLEEP inside its EXEC) is gone for the
	// waiter, which keeps waiting.
	sc := Ctx{KS: ks, W: resp.NewWriter(0), DB: db, Now: time.Now().UnixMilli(), Locked: true, Client: servingMarker}
	if ks.Effects.Active() {
		sc.Prop = new(effects.Unit)
	}
	sc.holdMask(m)
	ok := w.serve(&sc, key)
	if sc.Prop != nil {
		ks.Effects.Commit(sc.Prop) // the key's stripe is held (m)
	}
	if ok {
		w.state.Store(waitServed)
	}
	w.mu.Unlock()
	if !ok {
		return false, false
	}
	close(w.done)
	if sc.Dirty > 0 {
		ks.AddDirty(sc.Shard, int64(sc.Dirty))
	}
	// What the serve function pushed (BLMOVE's destination) is served now,
	// while its stripe is still held.
	if more := r.takePending(&sc); len(more) > 0 {
		r.serveKeys(&sc, more, m)
	}
	return true, false
}

// Block runs a blocking command: see BlockWith.
func (c *Ctx) Block(keys [][]byte, timeout time.Duration, serve func(c *Ctx, key []byte) bool) bool {
	return c.BlockWith(keys, nil, timeout, serve)
}

// BlockWith is called by a LockNone procedure. It locks the stripes of keys
// and also, then calls serve on each key in order until one returns true.
// If none does, it waits until a push serves the command, timeout passes
// (0: forever), the client is unblocked (CLIENT UNBLOCK) or disconnects.
//
// serve(c, key) runs with the stripes of keys and also held, in the
// command's database c.DB. It returns true when it consumed data (or hit
// an error it recorded, such as WRONGTYPE on the first attempt) and stored
// its outcome in memory the caller owns; false when there is nothing for
// it under this key (missing, empty, or another type while c.Serving()).
// It must not write replies and must not keep key.
//
// BlockWith returns true when serve succeeded: the caller writes the reply
// from what serve stored. It returns false when it has written the reply
// itself: a null array on timeout, on CLIENT UNBLOCK ... TIMEOUT and when
// the command may not block (inside MULTI/EXEC or a script, c.Locked), or
// the UNBLOCKED error.
func (c *Ctx) BlockWith(keys, also [][]byte, timeout time.Duration, serve func(c *Ctx, key []byte) bool) bool {
	if c.Locked {
		for _, k := range keys {
			if serve(c, k) {
				return true
			}
		}
		c.W.NullArray()
		return false
	}
	ks := c.KS
	var ls LockSet
	for _, k := range keys {
		ls.Add(ks, k)
	}
	for _, k := range also {
		ls.Add(ks, k)
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	bc, _ := c.Client.(BlockingClient)
	for {
		ks.Lock(&ls)
		c.HoldSet(&ls)
		c.StartProp()
		for _, k := range keys {
			if serve(c, k) {
				// Others may wait on what is left of k (after a retry),
				// and on what serve pushed; the command's own op goes
				// to the stream before theirs.
				c.SignalReady(k)
				c.CommitUnit()
				c.ServeReady(&ls)
				c.ReleaseHeld()
				ks.Unlock(&ls)
				return true
			}
		}
		w := c.register(keys, also, serve)
		c.CommitUnit() // expired keys the attempt deleted
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

// register queues a new waiter on every key. The keys' stripes are held.
func (c *Ctx) register(keys, also [][]byte, serve func(*Ctx, []byte) bool) *waiter {
	r := &c.KS.blocks
	w := &waiter{done: make(chan struct{}), db: c.DB, serve: serve}
	for _, k := range keys {
		ks := string(k)
		if slices.Contains(w.keys, ks) {
			continue // BLPOP k k 0 waits once
		}
		w.keys = append(w.keys, ks)
		bs := &r.stripes[c.KS.StripeOf(k)]
		if len(bs.dbs) <= c.DB {
			bs.dbs = append(bs.dbs, make([]map[string]*waitQueue, c.DB+1-len(bs.dbs))...)
		}
		if bs.dbs[c.DB] == nil {
			bs.dbs[c.DB] = make(map[string]*waitQueue)
		}
		q := bs.dbs[c.DB][ks]
		if q == nil {
			q = &waitQueue{}
			bs.dbs[c.DB][ks] = q
		}
		q.ws = append(q.ws, w)
	}
	for _, a := range also {
		w.also = append(w.also, string(a))
	}
	r.waiting.Add(1)
	return w
}

// unregister removes w from its keys' queues (whatever its state).
func (c *Ctx) unregister(w *waiter, ls *LockSet) {
	r := &c.KS.blocks
	c.KS.Lock(ls)
	for _, k := range w.keys {
		bs := &r.stripes[c.KS.StripeOf([]byte(k))]
		m := bs.dbs[w.db]
		q := m[k]
		if q == nil {
			continue
		}
		if i := slices.Index(q.ws, w); i >= 0 {
			q.ws = slices.Delete(q.ws, i, i+1)
		}
		if len(q.ws) == 0 {
			delete(m, k)
		}
	}
	c.KS.Unlock(ls)
	r.waiting.Add(-1)
	if w.nokey {
		r.nokey.Add(-1)
	}
}

// disconnectNotifier is implemented by clients that can report a closed
// connection while their goroutine is parked in a blocking command.
type disconnectNotifier interface {
	Disconnected() <-chan struct{}
}

// How a wait ended.
const (
	outServed  = iota
	outRetry   // woken to serve itself
	outTimeout // timeout, or CLIENT UNBLOCK id TIMEOUT
	outError   // CLIENT UNBLOCK id ERROR, kill, disconnect
)

// deadlineNoter is a BlockingClient that shows whether its wait has a
// deadline (INFO clients_in_timeout_table counts those that do).
type deadlineNoter interface{ SetBlockDeadline(has bool) }

// wait parks until w is served or woken to retry, or the wait ends
// otherwise, and says how it ended.
func (c *Ctx) wait(w *waiter, bc BlockingClient, deadline time.Time) int {
	var unblock <-chan int
	var gone <-chan struct{}
	if bc != nil {
		// Drop a CLIENT UNBLOCK that raced with an earlier wake-up.
		select {
		case <-bc.UnblockChan():
		default:
		}
		bc.Flush()
		if dn, ok := bc.(deadlineNoter); ok {
			dn.SetBlockDeadline(!deadline.IsZero())
		}
		bc.SetBlocked(true)
		defer bc.SetBlocked(false)
		unblock = bc.UnblockChan()
		if dn, ok := bc.(disconnectNotifier); ok {
			gone = dn.Disconnected()
		}
	}
	var timer <-chan time.Time
	if !deadline.IsZero() {
		t := time.NewTimer(time.Until(deadline))
		defer t.Stop()
		timer = t.C
	}
	why := outTimeout
	select {
	case <-w.done:
	case <-timer:
	case u := <-unblock:
		if u == UnblockError {
			why = outError
		}
	case <-gone:
		why = outError
	}
	w.mu.Lock()
	st := w.state.Load()
	if st == waitWaiting {
		w.state.Store(waitCancelled)
	}
	w.mu.Unlock()
	switch st {
	case waitServed:
		return outServed
	case waitRetry:
		return outRetry
	}
	return why
}

// BlockedWaiters counts the keyspace's registered waiters.
func (ks *Keyspace) BlockedWaiters() int64 { return ks.blocks.waiting.Load() }

// stripeMask is a set of stripe indexes.
type stripeMask [StripeCount / 64]uint64

func (m *stripeMask) set(s int)      { m[s>>6] |= 1 << (s & 63) }
func (m *stripeMask) clear(s int)    { m[s>>6] &^= 1 << (s & 63) }
func (m *stripeMask) has(s int) bool { return m[s>>6]&(1<<(s&63)) != 0 }

// max returns the highest stripe in the set, or -1.
func (m *stripeMask) max() int {
	for i := len(m) - 1; i >= 0; i-- {
		if m[i] != 0 {
			return i*64 + 63 - bits.LeadingZeros64(m[i])
		}
	}
	return -1
}

func (m *stripeMask) fromLockSet(l *LockSet) {
	if l == nil {
		return
	}
	if l.all {
		for i := range m {
			m[i] = ^uint64(0)
		}
		return
	}
	for _, s := range l.list() {
		m.set(int(s))
	}
}

// AddStripe adds stripe s to the set (the dispatcher's one-key fast path
// builds a LockSet only when ServeReady has work).
func (l *LockSet) AddStripe(s int) {
	for _, v := range l.list() {
		if int(v) == s {
			return
		}
	}
	if l.n < len(l.idx) && l.ext == nil {
		l.idx[l.n] = uint16(s)
		l.n++
		return
	}
	if l.ext == nil {
		l.ext = append(make([]uint16, 0, 16), l.idx[:l.n]...)
	}
	l.ext = append(l.ext, uint16(s))
}

// blockTimeoutArg parses the timeout of a blocking command (BLPOP,
// BZPOPMIN, ...) in seconds as Valkey's
// getTimeoutFromObjectOrReply(UNIT_SECONDS): a float, converted to
// milliseconds rounding up, not negative, and not overflowing when added
// to the current time. It returns the wait (0: forever).
func (c *Ctx) blockTimeoutArg(i int) (time.Duration, bool) {
	f, ok := parseTimeoutFloat(c.Argv[i])
	if !ok {
		c.W.Error("ERR timeout is not a float or out of range")
		return 0, false
	}
	ms := f * 1000
	if ms >= math.MaxInt64 {
		c.W.Error("ERR timeout is out of range")
		return 0, false
	}
	t := math.Ceil(ms)
	if t < 0 {
		c.W.Error("ERR timeout is negative")
		return 0, false
	}
	if t > 0 && int64(t) > math.MaxInt64-c.Now {
		c.W.Error("ERR timeout is out of range")
		return 0, false
	}
	if t > float64(math.MaxInt64/int64(time.Millisecond)) {
		return 0, true // centuries: the same as forever
	}
	return time.Duration(t) * time.Millisecond, true
}

// parseTimeoutFloat parses a timeout in seconds as Valkey's
// getLongDoubleFromObjectOrReply does: string2ld, that is strtold on at
// most 5119 bytes, in long double's range (1e400 is a number; 1e5000
// overflows and 1e-5000 underflows to zero, and both are refused), NaN
// refused (parseLongDouble). The result is the nearest float64: ±Inf
// beyond its range, which the callers' range checks refuse as Valkey's
// do, and a positive value too small for a float64 stays positive, so
// that it still rounds up to one millisecond.
func parseTimeoutFloat(b []byte) (float64, bool) {
	f, inf, ok := parseLongDouble(b)
	switch {
	case !ok:
		return 0, false
	case inf && b[0] == '-':
		return math.Inf(-1), true
	case inf:
		return math.Inf(1), true
	}
	v, _ := f.Float64()
	if v == 0 && f.Sign() != 0 {
		v = math.Copysign(math.SmallestNonzeroFloat64, float64(f.Sign()))
	}
	return v, true
}
