package ds

import "math/bits"

// The hash table of a ZSkip: Dict's chained table with incremental
// rehashing and the reverse-binary Scan cursor, over the nodes themselves
// (ZNode.hnext links a bucket's chain), so it costs no entry allocation.

func zhash(member []byte) uint64 { return Hash(member) }

// find returns the node of member, doing one rehash step.
func (z *ZSkip) find(h uint64, member []byte) *ZNode {
	if z.length == 0 {
		return nil
	}
	z.rehashStep()
	for t := 0; t < 2; t++ {
		tab := z.tables[t]
		if len(tab) == 0 {
			continue
		}
		idx := int(h & uint64(len(tab)-1))
		if t == 0 && idx < z.rehashIdx {
			continue
		}
		for n := tab[idx]; n != nil; n = n.hnext {
			if int(n.mlen) == len(member) && n.MemberString() == string(member) {
				return n
			}
		}
		if z.rehashIdx < 0 {
			break
		}
	}
	return nil
}

// link puts n into the hash table (it must be absent).
func (z *ZSkip) link(h uint64, n *ZNode) {
	z.expandIfNeeded()
	t := 0
	if z.rehashIdx >= 0 {
		t = 1
	}
	tab := z.tables[t]
	idx := h & uint64(len(tab)-1)
	n.hnext = tab[idx]
	tab[idx] = n
	z.used[t]++
}

// unlink removes n from the hash table.
func (z *ZSkip) unlink(h uint64, n *ZNode) {
	for t := 0; t < 2; t++ {
		tab := z.tables[t]
		if len(tab) == 0 {
			continue
		}
		idx := int(h & uint64(len(tab)-1))
		if t == 0 && idx < z.rehashIdx {
			continue
		}
		for pp := &tab[idx]; *pp != nil; pp = &(*pp).hnext {
			if *pp == n {
				*pp = n.hnext
				n.hnext = nil
				z.used[t]--
				z.shrinkIfNeeded()
				return
			}
		}
	}
	panic("ds: ZSkip node missing from its hash table")
}

func (z *ZSkip) expandIfNeeded() {
	if z.rehashIdx >= 0 || z.pauseRH > 0 {
		if len(z.tables[0]) == 0 {
			z.tables[0] = make([]*ZNode, initialSize)
		}
		return
	}
	if len(z.tables[0]) == 0 {
		z.tables[0] = make([]*ZNode, initialSize)
		return
	}
	if z.used[0] >= len(z.tables[0]) {
		z.startResize(z.used[0] + 1)
	}
}

func (z *ZSkip) shrinkIfNeeded() {
	if z.rehashIdx >= 0 || z.pauseRH > 0 {
		return
	}
	size := len(z.tables[0])
	if size > initialSize && z.used[0]*minFill <= size {
		z.startResize(z.used[0])
	}
}

// startResize allocates the target table for n keys and starts moving.
func (z *ZSkip) startResize(n int) {
	size := tableSize(n)
	if size == len(z.tables[0]) {
		return
	}
	z.tables[1] = make([]*ZNode, size)
	z.rehashIdx = 0
}

// rehashStep moves one bucket (skipping up to 10 empty ones).
func (z *ZSkip) rehashStep() {
	if z.rehashIdx < 0 || z.pauseRH > 0 {
		return
	}
	old := z.tables[0]
	for empty := 0; z.rehashIdx < len(old) && old[z.rehashIdx] == nil; empty++ {
		z.rehashIdx++
		if empty >= emptyVisitFactor {
			return
		}
	}
	if z.rehashIdx < len(old) {
		nt := z.tables[1]
		mask := uint64(len(nt) - 1)
		for n := old[z.rehashIdx]; n != nil; {
			next := n.hnext
			idx := zhash(n.Member()) & mask
			n.hnext = nt[idx]
			nt[idx] = n
			z.used[0]--
			z.used[1]++
			n = next
		}
		old[z.rehashIdx] = nil
		z.rehashIdx++
	}
	if z.rehashIdx >= len(old) {
		z.tables[0], z.tables[1] = z.tables[1], nil
		z.used[0], z.used[1] = z.used[1], 0
		z.rehashIdx = -1
	}
}

// Scan visits the members of one bucket (while rehashing, of the buckets
// of the bigger table it expands to) and returns the next cursor, 0 at the
// end: Dict.Scan's reverse-binary cursor with the same guarantee.
func (z *ZSkip) Scan(cursor uint64, fn func(n *ZNode)) uint64 {
	if z.length == 0 {
		return 0
	}
	z.pauseRH++
	defer func() { z.pauseRH-- }()
	emit := func(n *ZNode) {
		for n != nil {
			next := n.hnext
			fn(n)
			n = next
		}
	}
	v := cursor
	if z.rehashIdx < 0 {
		t0 := z.tables[0]
		m0 := uint64(len(t0) - 1)
		emit(t0[v&m0])
		v |= ^m0
		return bits.Reverse64(bits.Reverse64(v) + 1)
	}
	small, big := z.tables[0], z.tables[1]
	if len(small) > len(big) {
		small, big = big, small
	}
	m0, m1 := uint64(len(small)-1), uint64(len(big)-1)
	emit(small[v&m0])
	for {
		emit(big[v&m1])
		v |= ^m1
		v = bits.Reverse64(bits.Reverse64(v) + 1)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}
