package ds

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
)

// LockstepMembers returns a generator of 128-byte members made as memtier
// makes its values (and corvid-bench, which copies it): every one of
// clients starts from the same random buffer and increments one byte per
// request, moving along it, and each call is a request of a client picked
// at random. The members of a sorted set fed by it share long prefixes and
// rise over time, arriving a little out of order. The returned slice is
// the client's buffer: valid until the next call.
func LockstepMembers(r *rand.Rand, clients int) func() []byte {
	base := make([]byte, 128)
	for i := range base {
		base[i] = byte(r.Uint32())
	}
	vals := make([][]byte, clients)
	muts := make([]int, clients)
	for i := range vals {
		vals[i] = append([]byte(nil), base...)
	}
	return func() []byte {
		c := r.IntN(clients)
		v := vals[c]
		v[muts[c]]++
		muts[c] = (muts[c] + 1) % len(v)
		return v
	}
}

// CheckInvariants verifies the Dict's internal structure, for tests.
func (d *Dict[V]) CheckInvariants() error {
	if d.rehashIdx < 0 && d.tables[1] != nil {
		return fmt.Errorf("second table without rehashing")
	}
	if d.rehashIdx >= 0 && (d.tables[0] == nil || d.tables[1] == nil) {
		return fmt.Errorf("rehashing without two tables")
	}
	bytes := 0
	for t := 0; t < 2; t++ {
		tab := d.tables[t]
		if len(tab) != 0 && bits.OnesCount(uint(len(tab))) != 1 {
			return fmt.Errorf("table %d size %d not a power of two", t, len(tab))
		}
		n := 0
		for i, e := range tab {
			if t == 0 && i < d.rehashIdx && e != nil {
				return fmt.Errorf("bucket %d below rehashIdx %d not empty", i, d.rehashIdx)
			}
			for ; e != nil; e = e.next {
				if got := int(HashString(e.key()) & uint64(len(tab)-1)); got != i {
					return fmt.Errorf("key %q in bucket %d of table %d, want %d", e.key(), i, t, got)
				}
				bytes += entrySize[V](len(e.key()))
				n++
			}
		}
		if n != d.used[t] {
			return fmt.Errorf("table %d holds %d entries, used says %d", t, n, d.used[t])
		}
	}
	if bytes != d.entryBytes {
		return fmt.Errorf("entryBytes %d, want %d", d.entryBytes, bytes)
	}
	if d.pauseRehash != 0 {
		return fmt.Errorf("pauseRehash %d after iteration", d.pauseRehash)
	}
	return nil
}
