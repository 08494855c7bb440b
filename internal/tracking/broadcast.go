package tracking

import (
	"bytes"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
)

// bcastState is broadcast mode (Valkey's PrefixTable): per prefix, its
// clients and the keys under it changed since the last batch.
type bcastState struct {
	mu       sync.Mutex
	prefixes map[string]*prefixState
	sorted   []string     // the prefixes in key order: batches go out in it
	count    atomic.Int64 // len(prefixes); 0 lets Invalidate skip all this
	pending  atomic.Bool  // some prefix has changed keys
}

type prefixState struct {
	clients map[*Tracker]struct{}
	// keys maps each changed key to the tracker of the client that
	// changed it last (nil: none, or not tracking): NOLOOP clients do not
	// hear about their own changes.
	keys map[string]*Tracker
}

// addPrefixes subscribes tr to ps (the empty prefix when there are none),
// as Valkey's enableBcastTrackingForPrefix.
func (t *Table) addPrefixes(tr *Tracker, ps [][]byte) {
	bc := &t.bc
	bc.mu.Lock()
	defer bc.mu.Unlock()
	if len(ps) == 0 {
		t.addPrefix(tr, "")
	}
	for _, p := range ps {
		t.addPrefix(tr, string(p))
	}
	bc.count.Store(int64(len(bc.prefixes)))
}

func (t *Table) addPrefix(tr *Tracker, p string) {
	bc := &t.bc
	ps := bc.prefixes[p]
	if ps == nil {
		ps = &prefixState{clients: map[*Tracker]struct{}{}, keys: map[string]*Tracker{}}
		bc.prefixes[p] = ps
		bc.sorted, _ = insertSorted(bc.sorted, p)
	}
	if _, ok := ps.clients[tr]; ok {
		return
	}
	ps.clients[tr] = struct{}{}
	tr.prefixes, _ = insertSorted(tr.prefixes, p)
}

// removePrefixes unsubscribes tr from all its prefixes; a prefix left
// without clients goes, with the keys it had pending.
func (t *Table) removePrefixes(tr *Tracker) {
	bc := &t.bc
	bc.mu.Lock()
	defer bc.mu.Unlock()
	for _, p := range tr.prefixes {
		ps := bc.prefixes[p]
		if ps == nil {
			continue
		}
		delete(ps.clients, tr)
		if len(ps.clients) == 0 {
			delete(bc.prefixes, p)
			if i, ok := slices.BinarySearch(bc.sorted, p); ok {
				bc.sorted = slices.Delete(bc.sorted, i, i+1)
			}
		}
	}
	tr.prefixes = nil
	bc.count.Store(int64(len(bc.prefixes)))
}

// noteBroadcast records a change to key for every prefix it falls under
// (Valkey's trackingRememberKeyToBroadcast).
func (t *Table) noteBroadcast(key []byte, writer *Tracker) {
	bc := &t.bc
	var ks string
	bc.mu.Lock()
	for p, ps := range bc.prefixes {
		if len(p) > len(key) || !bytes.HasPrefix(key, []byte(p)) {
			continue
		}
		if ks == "" {
			ks = string(key)
		}
		ps.keys[ks] = writer
		bc.pending.Store(true)
	}
	bc.mu.Unlock()
}

// Broadcasting reports whether any client uses BCAST mode.
func (t *Table) Broadcasting() bool { return t.bc.count.Load() > 0 }

// Pending reports whether changed keys wait for FlushBroadcast.
func (t *Table) Pending() bool { return t.bc.pending.Load() }

// FlushBroadcast sends the changed keys collected since the last call to
// the clients of their prefixes (Valkey's
// trackingBroadcastInvalidationMessages, which runs once per event-loop
// iteration): for each prefix in key order, one array of its changed keys
// in key order; a NOLOOP client gets the keys others changed, or nothing.
func (t *Table) FlushBroadcast() {
	bc := &t.bc
	if !bc.pending.Load() {
		return
	}
	bc.mu.Lock()
	defer bc.mu.Unlock()
	bc.pending.Store(false)
	for _, p := range bc.sorted {
		ps := bc.prefixes[p]
		if len(ps.keys) == 0 {
			continue
		}
		keys := make([]string, 0, len(ps.keys))
		for k := range ps.keys {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		all := &message{keys: keyArray(keys, ps.keys, nil)}
		for tr := range ps.clients {
			if tr.flags.Load()&FlagNoloop == 0 {
				t.send(tr, all)
				continue
			}
			if own := keyArray(keys, ps.keys, tr); own != nil {
				t.send(tr, &message{keys: own})
			}
		}
		clear(ps.keys)
	}
}

// keyArray encodes keys as a RESP array, without those last changed by
// skip (when not nil); nil if that leaves none.
func keyArray(keys []string, writers map[string]*Tracker, skip *Tracker) []byte {
	n := len(keys)
	if skip != nil {
		n = 0
		for _, k := range keys {
			if writers[k] != skip {
				n++
			}
		}
		if n == 0 {
			return nil
		}
	}
	b := make([]byte, 0, 16+n*16)
	b = append(b, '*')
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, '\r', '\n')
	for _, k := range keys {
		if skip != nil && writers[k] == skip {
			continue
		}
		b = appendBulk(b, []byte(k))
	}
	return b
}
