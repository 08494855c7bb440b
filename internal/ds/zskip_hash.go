package ds

// The hash table of a ZSkip: Dict's chained table with incremental
// rehashing over the nodes themselves (ZNode.hnext links a bucket's chain),
// so it costs no entry allocation; and owners, the array of every node
// that Scan and Random walk (see ZSkip).

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
			if n.mlen() == len(member) && n.MemberString() == string(member) {
				return n
			}
		}
		if z.rehashIdx < 0 {
			break
		}
	}
	return nil
}

// link puts n into the hash table and owners (it must be absent).
func (z *ZSkip) link(h uint64, n *ZNode) {
	n.oidx = uint32(len(z.owners))
	if len(z.owners) == cap(z.owners) {
		z.resizeOwners(max(1, 2*cap(z.owners)))
	}
	z.owners = append(z.owners, n)
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

// unlink removes n from the hash table and from owners: the last owned
// node takes n's slot (see Scan). The caller must also unlink n from the
// skiplist in the same operation (see ZSkip).
func (z *ZSkip) unlink(h uint64, n *ZNode) {
	z.disown(n)
	pp, t := z.chainLink(h, n)
	*pp = n.hnext
	n.hnext = nil
	z.used[t]--
	z.shrinkIfNeeded()
}

// chainLink returns the link that points at n in its hash chain (a bucket
// or the previous node's hnext) and the table it is in.
func (z *ZSkip) chainLink(h uint64, n *ZNode) (**ZNode, int) {
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
				return pp, t
			}
		}
	}
	panic("ds: ZSkip node missing from its hash table")
}

// disown drops n from owners, moving the last node into its slot, and
// gives back owners' memory when it is mostly empty.
func (z *ZSkip) disown(n *ZNode) {
	i, last := n.oidx, len(z.owners)-1
	if int(i) > last || z.owners[i] != n {
		panic("ds: ZSkip node missing from owners")
	}
	m := z.owners[last]
	z.owners[i], m.oidx = m, i
	z.owners[last] = nil
	z.owners = z.owners[:last]
	if c := cap(z.owners); c > 64 && last < c/4 {
		z.resizeOwners(c / 2)
	}
}

// resizeOwners moves owners to a pointer-free array of capacity c: the
// slabs keep the nodes alive, so the collector need not read owners.
func (z *ZSkip) resizeOwners(c int) {
	o := newZTable(c)[:len(z.owners)]
	copy(o, z.owners)
	z.owners = o
}

// rechain replaces x by y (a copy of x, same member) in x's hash chain.
func (z *ZSkip) rechain(h uint64, x, y *ZNode) {
	pp, _ := z.chainLink(h, x)
	*pp = y
}

func (z *ZSkip) expandIfNeeded() {
	if z.rehashIdx >= 0 || z.pauseRH > 0 {
		if len(z.tables[0]) == 0 {
			z.tables[0] = newZTable(initialSize)
		}
		return
	}
	if len(z.tables[0]) == 0 {
		z.tables[0] = newZTable(initialSize)
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
	z.tables[1] = newZTable(size)
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

// Scan visits one member and returns the next cursor, 0 at the end. It
// walks owners from the last slot down: cursor 0 starts at the end, and a
// cursor c > 0 means slots below c remain. A removal moves the last node
// into the freed slot, that is from the visited part (or the slot itself)
// down into the unvisited part, never the other way, and additions append
// to the visited part: so every member present for the whole scan is
// visited at least once (Valkey's SCAN guarantee), some possibly twice,
// and members added meanwhile may or may not be. Unlike a hash-table
// cursor, it does not depend on the table's size or rehashing.
func (z *ZSkip) Scan(cursor uint64, fn func(n *ZNode)) uint64 {
	i := uint64(len(z.owners))
	if cursor != 0 && cursor < i {
		i = cursor
	}
	if i == 0 {
		return 0
	}
	i--
	fn(z.owners[i])
	return i
}
