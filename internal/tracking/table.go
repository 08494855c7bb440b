package tracking

import (
	"hash/maphash"
	"math/rand/v2"
	"sync"
	"sync/atomic"
)

// shardCount spreads the key table over locks: readers and writers on
// different event loops rarely meet on one.
const shardCount = 64

// Table is one server's tracking state: the key table of default mode,
// the prefixes of broadcast mode and the tracking clients.
type Table struct {
	resolve Resolver
	// onActive is told when the table starts and stops needing to hear
	// of key changes (see settle), under the registry mutex, so calls
	// come in order.
	onActive func(bool)

	seed   maphash.Seed
	shards [shardCount]keyShard
	keys   atomic.Int64 // tracked keys (INFO tracking_total_keys)
	items  atomic.Int64 // (key, client) pairs (tracking_total_items)

	reg struct {
		sync.Mutex
		on     map[*Tracker]struct{} // tracking clients, for Flush
		active bool                  // what onActive was last told
	}
	clients atomic.Int64 // len(reg.on) (tracking_clients)

	bc bcastState // broadcast mode (broadcast.go)

	lim struct {
		sync.Mutex
		// misses counts the Limit calls in a row that could not bring
		// the table under its limit (Valkey's timeout_counter): each
		// such call tries harder.
		misses int
	}
}

type keyShard struct {
	mu sync.Mutex
	m  map[string]entry
	_  [40]byte // keep shards on separate cache lines
}

// entry is the set of trackers that may cache a key: one, or a map of
// them once a second tracker reads the key.
type entry struct {
	one  *Tracker
	many map[*Tracker]struct{}
}

func (e *entry) add(tr *Tracker) bool {
	switch {
	case e.many != nil:
		if _, ok := e.many[tr]; ok {
			return false
		}
		e.many[tr] = struct{}{}
		return true
	case e.one == nil:
		e.one = tr
		return true
	case e.one == tr:
		return false
	}
	e.many = map[*Tracker]struct{}{e.one: {}, tr: {}}
	e.one = nil
	return true
}

func (e *entry) len() int {
	if e.many != nil {
		return len(e.many)
	}
	return 1
}

func (e *entry) each(f func(*Tracker)) {
	if e.many == nil {
		f(e.one)
		return
	}
	for tr := range e.many {
		f(tr)
	}
}

// NewTable returns an empty table. resolve finds redirect targets;
// onActive (may be nil) hears when tracking starts and stops being used.
func NewTable(resolve Resolver, onActive func(bool)) *Table {
	t := &Table{resolve: resolve, onActive: onActive, seed: maphash.MakeSeed()}
	for i := range t.shards {
		t.shards[i].m = map[string]entry{}
	}
	t.reg.on = map[*Tracker]struct{}{}
	t.bc.prefixes = map[string]*prefixState{}
	return t
}

func (t *Table) shard(key []byte) *keyShard {
	return &t.shards[maphash.Bytes(t.seed, key)%shardCount]
}

// register adds tr to (on) or removes it from the tracking clients.
func (t *Table) register(tr *Tracker, on bool) {
	t.reg.Lock()
	defer t.reg.Unlock()
	if on {
		t.reg.on[tr] = struct{}{}
	} else {
		delete(t.reg.on, tr)
	}
	t.clients.Store(int64(len(t.reg.on)))
	t.settleLocked()
}

// settle tells onActive whether key changes must be reported: while a
// client tracks, and also while the key table still has entries (of
// clients that turned tracking off or left), because Valkey drops those
// as their keys change and reports the table's size in INFO.
func (t *Table) settle() {
	t.reg.Lock()
	t.settleLocked()
	t.reg.Unlock()
}

func (t *Table) settleLocked() {
	active := len(t.reg.on) > 0 || t.keys.Load() > 0
	if active != t.reg.active {
		t.reg.active = active
		if t.onActive != nil {
			t.onActive(active)
		}
	}
}

// Remember records that tr may cache key (Valkey's trackingRememberKeys,
// for one key). The caller holds key's stripe, so no change to the key
// can come between the read and this.
func (t *Table) Remember(tr *Tracker, key []byte) {
	sh := t.shard(key)
	sh.mu.Lock()
	e, ok := sh.m[string(key)]
	if e.add(tr) {
		sh.m[string(key)] = e
		t.items.Add(1)
		if !ok {
			t.keys.Add(1)
		}
	}
	sh.mu.Unlock()
}

// Invalidate reports a change to key, made by the client whose tracker is
// writer (nil: none, or not a tracking client), with key's stripe held
// (Valkey's trackingInvalidateKey with bcast set): broadcast clients get
// it in their next batch, and every client that may cache it is told now
// (unless it is the writer and asked for NOLOOP) and forgotten.
func (t *Table) Invalidate(key []byte, writer *Tracker) {
	if t.bc.count.Load() > 0 {
		t.noteBroadcast(key, writer)
	}
	t.invalidate(key, writer)
}

// invalidate is Invalidate without broadcast: the default-mode part.
func (t *Table) invalidate(key []byte, writer *Tracker) {
	if t.keys.Load() == 0 {
		return
	}
	sh := t.shard(key)
	sh.mu.Lock()
	e, ok := sh.m[string(key)]
	if ok {
		delete(sh.m, string(key))
	}
	sh.mu.Unlock()
	if !ok {
		return
	}
	if t.keys.Add(-1) == 0 && t.clients.Load() == 0 {
		t.settle()
	}
	t.items.Add(-int64(e.len()))
	t.deliver(&e, keyMessage(key), writer)
}

// deliver sends m to the trackers of e that still track in default mode.
func (t *Table) deliver(e *entry, m *message, writer *Tracker) {
	e.each(func(tr *Tracker) {
		f := tr.flags.Load()
		// A client that went to BCAST mode since it read the key
		// does not get default-mode invalidations.
		if f&FlagOn == 0 || f&FlagBcast != 0 {
			return
		}
		if f&FlagNoloop != 0 && tr == writer {
			return
		}
		t.send(tr, m)
	})
}

// Flush is FLUSHDB or FLUSHALL (Valkey's trackingInvalidateKeysOnFlush):
// every tracking client, broadcast ones too, gets a null invalidation,
// and the key table is emptied (it is global, whichever database was
// flushed).
func (t *Table) Flush() {
	t.reg.Lock()
	on := make([]*Tracker, 0, len(t.reg.on))
	for tr := range t.reg.on {
		on = append(on, tr)
	}
	t.reg.Unlock()
	m := &message{}
	for _, tr := range on {
		if tr.On() {
			t.send(tr, m)
		}
	}
	for i := range t.shards {
		sh := &t.shards[i]
		sh.mu.Lock()
		var items int64
		for _, e := range sh.m {
			items += int64(e.len())
		}
		n := int64(len(sh.m))
		sh.m = map[string]entry{}
		sh.mu.Unlock()
		t.keys.Add(-n)
		t.items.Add(-items)
	}
	t.settle()
}

// Limit keeps the key table within max keys (0: no limit) while some
// client tracks, as Valkey's
// trackingLimitUsedSlots: while over it, it evicts random keys and tells
// their clients, up to 100 keys per call, 100 more for each call in a
// row that ended still over the limit. current is the tracker of the
// client whose command is being processed (NOLOOP spares it, as Valkey
// spares server.current_client), nil from a timer. It reports whether the
// table is still over the limit.
func (t *Table) Limit(max int64, current *Tracker) bool {
	if max <= 0 || t.keys.Load() <= max || t.clients.Load() == 0 {
		return false
	}
	if !t.lim.TryLock() {
		return true // another goroutine is at it
	}
	defer t.lim.Unlock()
	effort := 100 * (t.lim.misses + 1)
	for ; effort > 0; effort-- {
		key, e, ok := t.popRandom()
		if !ok {
			break
		}
		t.deliver(&e, keyMessage(key), current)
		if t.keys.Load() <= max {
			t.lim.misses = 0
			return false
		}
	}
	if t.keys.Load() <= max {
		t.lim.misses = 0
		return false
	}
	t.lim.misses++
	return true
}

// popRandom removes a random key from the table.
func (t *Table) popRandom() (key []byte, e entry, ok bool) {
	start := rand.IntN(shardCount)
	for i := range shardCount {
		sh := &t.shards[(start+i)%shardCount]
		sh.mu.Lock()
		for k, v := range sh.m { // map iteration starts at a random place
			delete(sh.m, k)
			sh.mu.Unlock()
			t.keys.Add(-1)
			t.items.Add(-int64(v.len()))
			return []byte(k), v, true
		}
		sh.mu.Unlock()
	}
	return nil, entry{}, false
}

// Clients is the number of tracking clients (INFO tracking_clients).
func (t *Table) Clients() int64 { return t.clients.Load() }

// Keys is the number of tracked keys (INFO tracking_total_keys).
func (t *Table) Keys() int64 { return t.keys.Load() }

// Items is the number of (key, client) pairs (tracking_total_items).
func (t *Table) Items() int64 { return t.items.Load() }

// Prefixes is the number of distinct BCAST prefixes
// (tracking_total_prefixes).
func (t *Table) Prefixes() int64 { return t.bc.count.Load() }
