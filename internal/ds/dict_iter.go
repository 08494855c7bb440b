package ds

import (
	"iter"
	"math/bits"
)

// Range calls fn for every key until fn returns false. See the package
// documentation for what fn may do to the Dict.
func (d *Dict[V]) Range(fn func(key string, v *V) bool) {
	if d.Len() == 0 {
		return
	}
	d.pauseRehash++
	defer func() { d.pauseRehash-- }()
	// Buckets of the old table below rehashIdx are known to be empty.
	start := max(d.rehashIdx, 0)
	for t := 0; t < 2; t++ {
		// Index d.tables afresh on every bucket so that a Clear from fn
		// ends the loop instead of walking a dropped table.
		for i := start; i < len(d.tables[t]); i++ {
			for e := d.tables[t][i]; e != nil; {
				next := e.next // fn may delete e
				if !fn(e.key(), &e.val) {
					return
				}
				e = next
			}
		}
		if d.rehashIdx < 0 {
			return
		}
		start = 0
	}
}

// All returns an iterator over the keys, with the same rules as Range.
func (d *Dict[V]) All() iter.Seq2[string, *V] {
	return func(yield func(string, *V) bool) { d.Range(yield) }
}

// Scan visits the keys of one bucket (and, while rehashing, of the buckets
// of the bigger table that it expands to) and returns the cursor for the
// next call; 0 means the iteration is complete. Start with cursor 0. See the
// package documentation for the guarantee and for what fn may do.
//
// The cursor counts in bit-reversed order: incrementing the high bits first
// means that when the table grows from 2^k to 2^(k+1) buckets, every bucket
// already visited maps onto buckets that are also behind the cursor, and when
// it shrinks, a small-table bucket is only skipped once all of the
// big-table buckets folding into it were visited.
func (d *Dict[V]) Scan(cursor uint64, fn func(key string, v *V)) uint64 {
	if d.Len() == 0 {
		return 0
	}
	d.pauseRehash++
	defer func() { d.pauseRehash-- }()
	v := cursor
	if d.rehashIdx < 0 {
		t0 := d.tables[0]
		m0 := uint64(len(t0) - 1)
		emitChain(t0[v&m0], fn)
		// Set the bits above the mask so the increment carries into the
		// masked bits only.
		v |= ^m0
		v = bits.Reverse64(bits.Reverse64(v) + 1)
		return v
	}
	small, big := d.tables[0], d.tables[1]
	if len(small) > len(big) {
		small, big = big, small
	}
	m0, m1 := uint64(len(small)-1), uint64(len(big)-1)
	emitChain(small[v&m0], fn)
	// Visit every bucket of the bigger table that the cursor's bucket in
	// the smaller table expands to.
	for {
		emitChain(big[v&m1], fn)
		v |= ^m1
		v = bits.Reverse64(bits.Reverse64(v) + 1)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}

func emitChain[V any](e *entry[V], fn func(key string, v *V)) {
	for e != nil {
		next := e.next // fn may delete e
		fn(e.key(), &e.val)
		e = next
	}
}
