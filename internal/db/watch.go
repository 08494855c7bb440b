package db

import (
	"sync"
	"sync/atomic"
)

// Watch is one client's WATCH state. Dirty is set (from any goroutine) when a
// watched key is modified; EXEC aborts if it is set.
type Watch struct {
	Dirty atomic.Bool
	keys  []watchKey
}

type watchKey struct {
	db  int
	key string
}

// watchRegistry maps watched keys to their watchers. Its mutex is a leaf
// lock: touch is called with stripes held and takes nothing else.
type watchRegistry struct {
	// n is read by every write (touch) and written only by WATCH and
	// UNWATCH: it has a cache line of its own, which the loops can all
	// keep, instead of sharing one with a counter every write changes.
	_  [64]byte
	n  atomic.Int64 // number of registrations; 0 makes touch free
	_  [56]byte
	mu sync.Mutex
	m  map[watchKey][]*Watch
}

func (r *watchRegistry) init() { r.m = make(map[watchKey][]*Watch) }

func (r *watchRegistry) touch(db int, key []byte) {
	if r.n.Load() == 0 {
		return
	}
	r.mu.Lock()
	for _, w := range r.m[watchKey{db, string(key)}] {
		w.Dirty.Store(true)
	}
	r.mu.Unlock()
}

// touchDB marks the watchers of keys of database db (db < 0: all
// databases) for which exists(db, key) holds, as Valkey's
// touchAllWatchedKeysInDb: FLUSHDB/FLUSHALL invalidate a WATCH only when
// the watched key existed (a key that was missing stays missing, no
// logical change), SWAPDB when the key exists on either side. exists runs
// with the registry's mutex held and must take no lock (the caller holds
// every stripe).
func (r *watchRegistry) touchDB(db int, exists func(db int, key string) bool) {
	if r.n.Load() == 0 {
		return
	}
	r.mu.Lock()
	for k, ws := range r.m {
		if (db < 0 || k.db == db) && exists(k.db, k.key) {
			for _, w := range ws {
				w.Dirty.Store(true)
			}
		}
	}
	r.mu.Unlock()
}

// WatchKey registers w on a key.
func (ks *Keyspace) WatchKey(w *Watch, db int, key []byte) {
	k := watchKey{db, string(key)}
	for _, have := range w.keys {
		if have == k {
			return
		}
	}
	r := &ks.watch
	r.mu.Lock()
	r.m[k] = append(r.m[k], w)
	r.mu.Unlock()
	r.n.Add(1)
	w.keys = append(w.keys, k)
}

// Unwatch drops all of w's registrations and clears its dirty flag.
func (ks *Keyspace) Unwatch(w *Watch) {
	r := &ks.watch
	if len(w.keys) > 0 {
		r.mu.Lock()
		for _, k := range w.keys {
			ws := r.m[k]
			for i, x := range ws {
				if x == w {
					ws = append(ws[:i], ws[i+1:]...)
					break
				}
			}
			if len(ws) == 0 {
				delete(r.m, k)
			} else {
				r.m[k] = ws
			}
		}
		r.mu.Unlock()
		r.n.Add(-int64(len(w.keys)))
		w.keys = w.keys[:0]
	}
	w.Dirty.Store(false)
}

// Watching reports how many keys w watches.
func (w *Watch) Watching() int { return len(w.keys) }

// WatchingKeys is the number of keys watched by all clients (INFO).
func (ks *Keyspace) WatchingKeys() int {
	ks.watch.mu.Lock()
	defer ks.watch.mu.Unlock()
	return len(ks.watch.m)
}
