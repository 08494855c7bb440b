package ds

// fairSample is how many keys RandomKey samples before picking one, as
// Valkey's GETFAIR_NUM_ENTRIES.
const fairSample = 15

// sampleStack is the largest sample Sample collects without allocating.
const sampleStack = 64

// RandomKey returns a random key and its value, or ok == false if the Dict
// is empty. It draws from math/rand/v2's global generator; see RandomKeyFrom.
func (d *Dict[V]) RandomKey() (key string, v *V, ok bool) {
	return d.RandomKeyFrom(nil)
}

// RandomKeyFrom is RandomKey with an explicit randomness source. Like
// Valkey's dictGetFairRandomKey it samples a run of up to 15 keys from
// neighbouring buckets and picks one of them, which evens out the bias of
// picking a bucket first (a key in a long chain would otherwise be picked
// less often). The choice is close to, not exactly, uniform.
func (d *Dict[V]) RandomKeyFrom(r Source) (key string, v *V, ok bool) {
	if d.Len() == 0 {
		return "", nil, false
	}
	var buf [fairSample]*entry[V]
	n := d.someKeys(r, buf[:])
	var e *entry[V]
	if n == 0 {
		e = d.randomEntry(r)
	} else {
		e = buf[rnd(r)%uint64(n)]
	}
	return e.key(), &e.val, true
}

// Sample calls fn for up to n distinct keys taken from a few random runs of
// neighbouring buckets, as Valkey's dictGetSomeKeys: cheap, but not a
// uniform sample. It is meant for eviction pools and active expiry. It
// returns how many keys it reported, which may be fewer than min(n, Len())
// when the table is sparse. n <= 64 does not allocate. fn may delete the key
// it is given.
func (d *Dict[V]) Sample(n int, fn func(key string, v *V)) int {
	return d.SampleFrom(nil, n, fn)
}

// SampleFrom is Sample with an explicit randomness source.
func (d *Dict[V]) SampleFrom(r Source, n int, fn func(key string, v *V)) int {
	n = min(n, d.Len())
	if n <= 0 {
		return 0
	}
	var buf [sampleStack]*entry[V]
	var des []*entry[V]
	if n <= len(buf) {
		des = buf[:n]
	} else {
		des = make([]*entry[V], n)
	}
	got := d.someKeys(r, des)
	d.pauseRehash++
	defer func() { d.pauseRehash-- }()
	for _, e := range des[:got] {
		fn(e.key(), &e.val)
	}
	return got
}

// someKeys fills des with up to len(des) distinct entries found by walking
// buckets from a random start, and returns how many it stored. Empty runs
// longer than max(5, len(des)) restart the walk at a new random bucket.
// After such a jump the walk may revisit a bucket, so from then on entries
// already taken are skipped. Within a run every entry of a non-empty chain
// is considered, by reservoir sampling once des is full, so the tail of a
// long chain has the same chance as its head.
func (d *Dict[V]) someKeys(r Source, des []*entry[V]) int {
	count := min(len(des), d.Len())
	if count == 0 {
		return 0
	}
	maxSteps := count * 10
	// Do rehash work in proportion to the sample.
	for j := 0; j < count && d.rehashIdx >= 0; j++ {
		if d.pauseRehash > 0 {
			break
		}
		d.rehash(1)
	}
	tables := 1
	maxMask := uint64(len(d.tables[0]) - 1)
	if d.rehashIdx >= 0 {
		tables = 2
		maxMask = max(maxMask, uint64(len(d.tables[1])-1))
	}
	i := rnd(r) & maxMask
	emptyLen := 0
	stored := 0
	jumped := false
	for ; stored < count && maxSteps > 0; maxSteps-- {
		for t := 0; t < tables; t++ {
			// Old-table buckets below rehashIdx are empty. If i is also
			// past the end of the new (smaller) table, nothing lives
			// below rehashIdx in either table: jump there.
			if tables == 2 && t == 0 && i < uint64(d.rehashIdx) {
				if i >= uint64(len(d.tables[1])) {
					i = uint64(d.rehashIdx)
					jumped = true
				} else {
					continue
				}
			}
			tab := d.tables[t]
			if i >= uint64(len(tab)) {
				continue
			}
			e := tab[i]
			if e == nil {
				emptyLen++
				if emptyLen >= 5 && emptyLen > count {
					i = rnd(r) & maxMask
					emptyLen = 0
					jumped = true
				}
				continue
			}
			emptyLen = 0
			for ; e != nil; e = e.next {
				if jumped && containsEntry(des[:min(stored, count)], e) {
					continue
				}
				if stored < count {
					des[stored] = e
				} else if k := rnd(r) % uint64(stored+1); k < uint64(count) {
					des[k] = e
				}
				stored++
			}
			if stored >= count {
				return count
			}
		}
		i = (i + 1) & maxMask
	}
	return min(stored, count)
}

func containsEntry[V any](list []*entry[V], e *entry[V]) bool {
	for _, x := range list {
		if x == e {
			return true
		}
	}
	return false
}

// randomEntry picks a random non-empty bucket, then a random entry of its
// chain (Valkey's dictGetRandomKey). The Dict must not be empty.
func (d *Dict[V]) randomEntry(r Source) *entry[V] {
	if d.rehashIdx >= 0 && d.pauseRehash == 0 {
		d.rehash(1)
	}
	var e *entry[V]
	if d.rehashIdx >= 0 {
		s0 := uint64(len(d.tables[0]))
		span := s0 + uint64(len(d.tables[1])) - uint64(d.rehashIdx)
		for e == nil {
			// No keys live in old-table buckets below rehashIdx.
			h := uint64(d.rehashIdx) + rnd(r)%span
			if h >= s0 {
				e = d.tables[1][h-s0]
			} else {
				e = d.tables[0][h]
			}
		}
	} else {
		m := uint64(len(d.tables[0]) - 1)
		for e == nil {
			e = d.tables[0][rnd(r)&m]
		}
	}
	n := 0
	for x := e; x != nil; x = x.next {
		n++
	}
	for k := rnd(r) % uint64(n); k > 0; k-- {
		e = e.next
	}
	return e
}
