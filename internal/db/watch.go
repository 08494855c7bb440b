package db

import (
	"sync"
	"sync/atomic"
	"time"
)

// Watch is one client's WATCH state. Dirty is set (from any goroutine) when a
// watched key is modified; EXEC aborts if it is set.
type Watch struct {
	Dirty atomic.Bool
	keys  []watchKey
	regs  []*watchReg // regs[i] is the registration of keys[i]
}

type watchKey struct {
	db  int
	key string
}

// watchReg is one client's watch of one key (Valkey's watchedKey).
// expired (guarded by the registry's mutex) says the key was already
// logically expired, but still stored, when WATCH ran: such a key may
// still be deleted, lazily, by expiry, by a DEL or by a flush, with no
// logical change, so that does not make the watcher dirty; once deleted
// the key is watched as a missing key (the flag clears).
type watchReg struct {
	w       *Watch
	expired bool
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
	m  map[watchKey][]*watchReg
}

func (r *watchRegistry) init() { r.m = make(map[watchKey][]*watchReg) }

// touch is Valkey's touchWatchedKey, with the key's stripe held (so
// whether it is stored can be read): its watchers become dirty, except
// those that watched it already expired and now see it deleted (no
// logical change: their flag clears). As Valkey's, a watcher that watched
// it expired and finds it still stored stops the walk: the watchers after
// it are left as they are.
func (ks *Keyspace) touchWatched(db int, key []byte) {
	r := &ks.watch
	if r.n.Load() == 0 {
		return
	}
	r.mu.Lock()
	for _, reg := range r.m[watchKey{db, string(key)}] {
		if reg.expired {
			if !ks.holds(db, string(key)) {
				reg.expired = false
				continue
			}
			break
		}
		reg.w.Dirty.Store(true)
	}
	r.mu.Unlock()
}

// touchWatchedDB is Valkey's touchAllWatchedKeysInDb for a flush of
// database emptied (emptied < 0: all) or, with replacedWith >= 0, a swap
// of it with database replacedWith. A watcher becomes dirty when its key
// exists in emptied or in replacedWith, except when the key it watched
// already expired is now gone (flag cleared) or still expired after the
// swap, or when a missing key is replaced by an expired one (then it is
// watched as expired). Every stripe is held.
func (ks *Keyspace) touchWatchedDB(emptied, replacedWith int) {
	r := &ks.watch
	if r.n.Load() == 0 {
		return
	}
	now := time.Now().UnixMilli()
	r.mu.Lock()
	for k, regs := range r.m {
		if emptied >= 0 && k.db != emptied {
			continue
		}
		inEmptied := ks.holds(k.db, k.key)
		inReplaced := replacedWith >= 0 && ks.holds(replacedWith, k.key)
		if !inEmptied && !inReplaced {
			continue
		}
		for _, reg := range regs {
			if reg.expired {
				if !inReplaced {
					reg.expired = false
					continue
				}
				if ks.staleHeld(replacedWith, k.key, now) {
					continue
				}
			} else if !inEmptied && ks.staleHeld(replacedWith, k.key, now) {
				reg.expired = true
				continue
			}
			reg.w.Dirty.Store(true)
		}
	}
	r.mu.Unlock()
}

// staleHeld reports whether key is stored in db and logically expired at
// now (Valkey's keyIsExpired). The key's stripe is held.
func (ks *Keyspace) staleHeld(db int, key string, now int64) bool {
	sh := ks.shardAt(db, ks.StripeOf(sbytes(key)), false)
	if sh == nil {
		return false
	}
	o := sh.keys.FindString(key)
	return o != nil && sh.expiredAtString(key, o, now)
}

// WatchKey registers w on a key, noting whether the key is stored but
// already expired (see watchReg). It locks the key's stripe.
func (ks *Keyspace) WatchKey(w *Watch, db int, key []byte) {
	k := watchKey{db, string(key)}
	for _, have := range w.keys {
		if have == k {
			return
		}
	}
	st := &ks.stripes[ks.StripeOf(key)]
	st.mu.Lock()
	reg := &watchReg{w: w, expired: ks.staleHeld(db, k.key, time.Now().UnixMilli())}
	r := &ks.watch
	r.mu.Lock()
	r.m[k] = append(r.m[k], reg)
	r.mu.Unlock()
	st.mu.Unlock()
	r.n.Add(1)
	w.keys = append(w.keys, k)
	w.regs = append(w.regs, reg)
}

// WatchedExpired reports whether a key w watched, that was not expired
// when it was watched, is expired now (Valkey's isWatchedKeyExpired: EXEC
// then fails). The stripes of w's keys are held (LockWatched).
func (ks *Keyspace) WatchedExpired(w *Watch, now int64) bool {
	if len(w.keys) == 0 {
		return false
	}
	r := &ks.watch
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, k := range w.keys {
		if !w.regs[i].expired && ks.staleHeld(k.db, k.key, now) {
			return true
		}
	}
	return false
}

// LockWatched adds the stripes of w's keys to ls.
func (ks *Keyspace) LockWatched(w *Watch, ls *LockSet) {
	for _, k := range w.keys {
		ls.Add(ks, sbytes(k.key))
	}
}

// Unwatch drops all of w's registrations and clears its dirty flag.
func (ks *Keyspace) Unwatch(w *Watch) {
	r := &ks.watch
	if len(w.keys) > 0 {
		r.mu.Lock()
		for i, k := range w.keys {
			regs := r.m[k]
			for j, x := range regs {
				if x == w.regs[i] {
					regs = append(regs[:j], regs[j+1:]...)
					break
				}
			}
			if len(regs) == 0 {
				delete(r.m, k)
			} else {
				r.m[k] = regs
			}
		}
		r.mu.Unlock()
		r.n.Add(-int64(len(w.keys)))
		clear(w.regs)
		w.keys, w.regs = w.keys[:0], w.regs[:0]
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
