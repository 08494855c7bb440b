package ds

import (
	"unsafe"
)

// Dict is a chained hash table from string keys to values of type V, with
// Valkey's incremental rehashing: while it resizes it holds two tables and
// every lookup, insert or delete moves one bucket from the old table to the
// new one, so no single operation pays for a whole resize.
//
// Memory per key: one allocation holding the entry (V inline, next pointer
// 8 bytes) followed by a length byte and the key, for keys of up to 127
// bytes, rounded up to a size class; plus one 8-byte bucket slot, of which
// there are between 1 and 8 per key (1 to 2 while growing). Longer keys
// take a second allocation (dict_entry.go).
//
// The zero value is not usable; call New. See the package documentation for
// locking, pointer validity and iteration rules.
type Dict[V any] struct {
	// tables[0] is the main table. tables[1] is non-nil only while
	// rehashing, and is the table new keys go to. Sizes are powers of two
	// (or zero before the first insert).
	tables [2][]*entry[V]
	used   [2]int
	// rehashIdx is the next bucket of tables[0] to move, or -1 when not
	// rehashing. Buckets of tables[0] below it are empty.
	rehashIdx int
	// pauseRehash is non-zero while an iteration callback runs; rehash
	// steps and automatic resizes are skipped so entries stay put.
	pauseRehash int32
	// pauseResize is the PauseAutoResize nesting count.
	pauseResize int32
	policy      ResizePolicy
	// entryBytes estimates the heap bytes of all entries, for MemUsage.
	entryBytes int
}

// entry is one key/value pair. val must stay addressable and must not move:
// callers hold *V pointers into it. The key is not a field: it follows the
// struct in the same allocation (dict_entry.go), read with key. val comes
// first so that a zero-size V adds no padding.
type entry[V any] struct {
	val  V
	next *entry[V]
}

// New returns an empty Dict. A positive hint pre-sizes the table for that
// many keys so that loading them does not resize.
func New[V any](hint int) *Dict[V] {
	d := &Dict[V]{rehashIdx: -1}
	if hint > 0 {
		d.resize(hint)
	}
	return d
}

// Len returns the number of keys.
func (d *Dict[V]) Len() int { return d.used[0] + d.used[1] }

// Find returns a pointer to the value of key, or nil if key is absent. It
// performs one rehash step.
func (d *Dict[V]) Find(key []byte) *V {
	k := bstr(key)
	return d.FindHashedString(HashString(k), k)
}

// FindString is Find for a string key.
func (d *Dict[V]) FindString(key string) *V {
	return d.FindHashedString(HashString(key), key)
}

// FindHashed is Find with h == Hash(key) already computed.
func (d *Dict[V]) FindHashed(h uint64, key []byte) *V {
	return d.FindHashedString(h, bstr(key))
}

// FindHashedString is FindHashed for a string key.
func (d *Dict[V]) FindHashedString(h uint64, key string) *V {
	if d.Len() == 0 {
		return nil
	}
	d.stepFor(h)
	if e := d.lookup(h, key); e != nil {
		return &e.val
	}
	return nil
}

// Peek is Find without the rehash step: it never writes to the Dict, so
// concurrent Peeks under a shared lock are safe as long as no other method
// runs at the same time.
func (d *Dict[V]) Peek(key []byte) *V {
	k := bstr(key)
	if d.Len() == 0 {
		return nil
	}
	if e := d.lookup(HashString(k), k); e != nil {
		return &e.val
	}
	return nil
}

// PeekHashed is Peek with h == Hash(key) already computed.
func (d *Dict[V]) PeekHashed(h uint64, key []byte) *V {
	return d.PeekHashedString(h, bstr(key))
}

// PeekHashedString is PeekHashed for a string key.
func (d *Dict[V]) PeekHashedString(h uint64, key string) *V {
	if d.Len() == 0 {
		return nil
	}
	if e := d.lookup(h, key); e != nil {
		return &e.val
	}
	return nil
}

// Upsert returns a pointer to the value of key, inserting key with a zero
// value first if it is absent; existed reports whether it was present. Only
// an insert allocates (the entry, and for keys over 128 bytes the key copy).
func (d *Dict[V]) Upsert(key []byte) (v *V, existed bool) {
	k := bstr(key)
	e, existed := d.upsert(HashString(k), k)
	return &e.val, existed
}

// UpsertString is Upsert for a string key.
func (d *Dict[V]) UpsertString(key string) (v *V, existed bool) {
	e, existed := d.upsert(HashString(key), key)
	return &e.val, existed
}

// UpsertHashed is Upsert with h == Hash(key) already computed.
func (d *Dict[V]) UpsertHashed(h uint64, key []byte) (v *V, existed bool) {
	e, existed := d.upsert(h, bstr(key))
	return &e.val, existed
}

// Delete removes key and returns its value. It may start a shrink.
func (d *Dict[V]) Delete(key []byte) (V, bool) {
	k := bstr(key)
	return d.DeleteHashedString(HashString(k), k)
}

// DeleteString is Delete for a string key.
func (d *Dict[V]) DeleteString(key string) (V, bool) {
	return d.DeleteHashedString(HashString(key), key)
}

// DeleteHashed is Delete with h == Hash(key) already computed.
func (d *Dict[V]) DeleteHashed(h uint64, key []byte) (V, bool) {
	return d.DeleteHashedString(h, bstr(key))
}

// DeleteHashedString is DeleteHashed for a string key.
func (d *Dict[V]) DeleteHashedString(h uint64, key string) (V, bool) {
	var zero V
	e := d.unlink(h, key)
	if e == nil {
		return zero, false
	}
	v := e.val
	e.val = zero
	return v, true
}

// Clear removes every key and drops both tables. Pointers previously
// returned by the Dict become invalid.
func (d *Dict[V]) Clear() {
	d.tables = [2][]*entry[V]{}
	d.used = [2]int{}
	d.rehashIdx = -1
	d.entryBytes = 0
}

// MemUsage estimates the heap bytes held by the Dict: its header, bucket
// tables, entries and key bytes (not what values point to). It is O(1).
func (d *Dict[V]) MemUsage() int {
	return int(unsafe.Sizeof(*d)) + 8*(len(d.tables[0])+len(d.tables[1])) + d.entryBytes
}

// lookup finds key in both tables without rehashing.
func (d *Dict[V]) lookup(h uint64, key string) *entry[V] {
	for t := 0; t < 2; t++ {
		tab := d.tables[t]
		idx := h & uint64(len(tab)-1)
		// Buckets of the old table below rehashIdx were already moved.
		if t == 0 && int(idx) < d.rehashIdx {
			continue
		}
		for e := tab[idx]; e != nil; e = e.next {
			if e.key() == key {
				return e
			}
		}
		if d.rehashIdx < 0 {
			break
		}
	}
	return nil
}

func (d *Dict[V]) upsert(h uint64, key string) (*entry[V], bool) {
	if d.Len() > 0 {
		d.stepFor(h)
		if e := d.lookup(h, key); e != nil {
			return e, true
		}
	}
	d.expandIfNeeded()
	t := 0
	if d.rehashIdx >= 0 {
		t = 1
	}
	tab := d.tables[t]
	idx := h & uint64(len(tab)-1)
	e := newEntry[V](key)
	// New keys go to the head of the chain: recently added keys tend to be
	// the ones read next.
	e.next = tab[idx]
	tab[idx] = e
	d.used[t]++
	d.entryBytes += entrySize[V](len(key))
	return e, false
}

// unlink removes key's entry from its chain and returns it, or nil.
func (d *Dict[V]) unlink(h uint64, key string) *entry[V] {
	if d.Len() == 0 {
		return nil
	}
	d.stepFor(h)
	for t := 0; t < 2; t++ {
		tab := d.tables[t]
		idx := h & uint64(len(tab)-1)
		if t == 0 && int(idx) < d.rehashIdx {
			continue
		}
		var prev *entry[V]
		for e := tab[idx]; e != nil; prev, e = e, e.next {
			if e.key() != key {
				continue
			}
			if prev == nil {
				tab[idx] = e.next
			} else {
				prev.next = e.next
			}
			// Clearing next lets a stale pointer to this entry not pin
			// the rest of the chain. Iterators save next before calling
			// back, so deleting the current key is still safe.
			e.next = nil
			d.used[t]--
			d.entryBytes -= entrySize[V](len(key))
			d.shrinkIfNeeded()
			return e
		}
		if d.rehashIdx < 0 {
			break
		}
	}
	return nil
}
