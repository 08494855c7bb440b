package ds

import "unsafe"

// The member index of a ZSkip: an open-addressing hash table with linear
// probing over 8-byte slots, each holding a node pointer (low 48 bits) and
// the top 16 bits of the member's hash (its tag). And owners, the array of
// every node that Scan and Random walk.
//
// Why not Dict's chains: a chain is walked by loading each node, which is
// rarely in the CPU cache, and growing a chained table loads every node
// again (and hashed its member). perf on the seed's ZADD (new 128-byte
// members into sorted sets of thousands) put the chain walk and the
// rehash at ~20% of the server's CPU (docs/benchmarks.md). Here a lookup
// of an absent member reads one run of slots and no node (a tag matches a
// wrong member 1 time in 65536), and a resize reads the old slots in order
// plus each node's first cache line, where the low 32 bits of its hash are
// kept (ZNode.hash), never the member.
//
// Removal leaves a tombstone (probes continue past it) unless the next
// slot is empty; a resize drops them. Resizing is incremental, as Dict's:
// while tables[1] is being filled, each insert and each removal moves
// zRehashSlots slots of tables[0] (a moved slot becomes a tombstone, so
// probe runs in the old table stay intact); lookups look in both tables
// and move nothing (see find); inserts go to tables[1].
//
// Slots live in pointer-free memory: the pointers are hidden, like every
// link between nodes (see ZSkip). The 48-bit packing relies on user-space
// addresses below 2^48, which is where Go's heap lives on every 64-bit
// platform it supports; newSlab checks it.

const (
	zSlotEmpty   = 0
	zSlotTomb    = 1 // never a node address (nodes are 8-byte aligned)
	zPtrBits     = 48
	zPtrMask     = 1<<zPtrBits - 1
	zMinSlots    = 4
	zRehashSlots = 16 // two cache lines of the old table per insert or removal
)

// zTable is one open-addressing table. Its load (live entries plus
// tombstones) stays at most 3/4, so every probe run ends at an empty slot.
type zTable struct {
	slots []uint64 // pointer-free memory (newZSlots)
	used  uint32   // live entries (a sorted set holds < 2^32 members)
	tombs uint32   // tombstones; 32-bit counts keep ZSkip in a smaller size class
}

func zhash(member []byte) uint64 { return Hash(member) }

// zTag is h's top 16 bits, in place.
func zTag(h uint64) uint64 { return h &^ zPtrMask }

// zHome is the first slot a hash probes: its low bits (a table never has
// more than 2^32 slots, so the 32 bits in ZNode.hash are enough).
func zHome(h uint64, mask uint64) uint64 { return uint64(uint32(h)) & mask }

func zSlotOf(n *ZNode, h uint64) uint64 { return uint64(uintptr(unsafe.Pointer(n))) | zTag(h) }

// zSlotNode unpacks a live slot. The address goes through memory rather
// than an unsafe.Pointer(uintptr) conversion, which the race detector's
// pointer checks reject for an address with no pointer operand.
func zSlotNode(s uint64) *ZNode {
	p := uintptr(s & zPtrMask)
	return *(**ZNode)(unsafe.Pointer(&p))
}

// newZSlots returns n zeroed slots in pointer-free memory.
func newZSlots(n int) []uint64 { return make([]uint64, n) }

// zSlotsFor is the table size for n members: a power of two at least 2n,
// so a fresh table is at most half full.
func zSlotsFor(n int) int { return max(zMinSlots, tableSize(2*n)) }

// fits reports whether n more entries keep the load at most 3/4.
func (t *zTable) fits(n int) bool { return 4*(int(t.used)+int(t.tombs)+n) <= 3*len(t.slots) }

// lookup returns the node of member (hash h) in t, or nil.
func (t *zTable) lookup(h uint64, member []byte) *ZNode {
	if len(t.slots) == 0 {
		return nil
	}
	mask, tag := uint64(len(t.slots)-1), zTag(h)
	for i := zHome(h, mask); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == zSlotEmpty {
			return nil
		}
		if s&^zPtrMask == tag && s != zSlotTomb {
			if n := zSlotNode(s); n.mlen() == len(member) && n.MemberString() == string(member) {
				return n
			}
		}
	}
}

// slotOf returns the index of n's slot in t, or -1.
func (t *zTable) slotOf(n *ZNode) int {
	if len(t.slots) == 0 {
		return -1
	}
	mask, p := uint64(len(t.slots)-1), uint64(uintptr(unsafe.Pointer(n)))
	for i := zHome(uint64(n.hash), mask); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == zSlotEmpty {
			return -1
		}
		if s&zPtrMask == p {
			return int(i)
		}
	}
}

// put stores slot s (of a member absent from t) for hash h: in the first
// tombstone or empty slot of its run.
func (t *zTable) put(h uint64, s uint64) {
	mask := uint64(len(t.slots) - 1)
	i := zHome(h, mask)
	for t.slots[i] > zSlotTomb {
		i = (i + 1) & mask
	}
	if t.slots[i] == zSlotTomb {
		t.tombs--
	}
	t.slots[i] = s
	t.used++
}

// drop removes the entry in slot i. A tombstone keeps the probe runs
// through i intact; if the next slot is empty no run passes through i, so
// it and the tombstones just before it become empty instead.
func (t *zTable) drop(i int) {
	t.used--
	mask := len(t.slots) - 1
	if t.slots[(i+1)&mask] != zSlotEmpty {
		t.slots[i] = zSlotTomb
		t.tombs++
		return
	}
	t.slots[i] = zSlotEmpty
	for j := (i - 1) & mask; t.slots[j] == zSlotTomb; j = (j - 1) & mask {
		t.slots[j] = zSlotEmpty
		t.tombs--
	}
}

// find returns the node of member. It never changes the index: a resize
// advances only in calls that add or remove a member (link, unlink), so a
// read or a no-op write never changes MemUsage, which callers re-measure
// only after a change (package db's accounting).
func (z *ZSkip) find(h uint64, member []byte) *ZNode {
	if z.length == 0 {
		return nil
	}
	if n := z.tables[0].lookup(h, member); n != nil || z.rehashIdx < 0 {
		return n
	}
	return z.tables[1].lookup(h, member)
}

// link puts n into the index and owners (it must be absent).
func (z *ZSkip) link(h uint64, n *ZNode) {
	n.hash = uint32(h)
	n.oidx = uint32(len(z.owners))
	if len(z.owners) == cap(z.owners) {
		z.resizeOwners(max(1, 2*cap(z.owners)))
	}
	z.owners = append(z.owners, n)
	z.rehashStep()
	z.reserve()
	t := &z.tables[0]
	if z.rehashIdx >= 0 {
		t = &z.tables[1]
	}
	t.put(h, zSlotOf(n, h))
}

// reserve makes room for one insert in the table inserts go to.
func (z *ZSkip) reserve() {
	if z.rehashIdx >= 0 {
		// tables[1] must keep room for what tables[0] still holds, which
		// the resize will move into it. A resize that cannot (a shrink
		// followed by many inserts) is finished at once into a table
		// sized for everything.
		old, nt := &z.tables[0], &z.tables[1]
		if nt.fits(int(old.used) + 1) {
			return
		}
		z.rebuild(zSlotsFor(int(old.used) + int(nt.used) + 1))
	}
	t := &z.tables[0]
	switch {
	case len(t.slots) == 0:
		t.slots = newZSlots(zMinSlots)
	case !t.fits(1):
		// Grows, or (mostly tombstones) rebuilds at the same size.
		z.startResize(zSlotsFor(int(t.used) + 1))
	}
}

// rebuild moves every entry of both tables into a new table of size
// slots, at once, ending a resize in progress.
func (z *ZSkip) rebuild(size int) {
	nt := zTable{slots: newZSlots(size)}
	for t := range z.tables {
		for _, s := range z.tables[t].slots {
			if s > zSlotTomb {
				nt.put(uint64(zSlotNode(s).hash), s)
			}
		}
	}
	z.tables[0], z.tables[1] = nt, zTable{}
	z.rehashIdx = -1
}

// unlink removes n from the index and from owners: the last owned node
// takes n's slot (see Scan). The caller must also unlink n from the
// skiplist in the same operation (see ZSkip).
func (z *ZSkip) unlink(n *ZNode) {
	z.disown(n)
	z.rehashStep()
	t, i := z.locate(n)
	t.drop(i)
	z.shrinkIfNeeded()
}

// rechain replaces x by y (a copy of x, same member and hash) in the
// index.
func (z *ZSkip) rechain(x, y *ZNode) {
	t, i := z.locate(x)
	t.slots[i] = t.slots[i]&^zPtrMask | uint64(uintptr(unsafe.Pointer(y)))
}

// locate returns the table and slot holding n, which must be indexed.
func (z *ZSkip) locate(n *ZNode) (*zTable, int) {
	if i := z.tables[0].slotOf(n); i >= 0 {
		return &z.tables[0], i
	}
	if z.rehashIdx >= 0 {
		if i := z.tables[1].slotOf(n); i >= 0 {
			return &z.tables[1], i
		}
	}
	panic("ds: ZSkip node missing from its index")
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

func (z *ZSkip) shrinkIfNeeded() {
	if z.rehashIdx >= 0 || z.pauseRH > 0 {
		return
	}
	t := &z.tables[0]
	if len(t.slots) > zMinSlots && 8*int(t.used) < len(t.slots) {
		z.startResize(zSlotsFor(int(t.used)))
	}
}

// startResize starts moving tables[0] into a new table of size slots.
func (z *ZSkip) startResize(size int) {
	if z.tables[0].used == 0 {
		z.tables[0] = zTable{slots: newZSlots(size)}
		return
	}
	z.tables[1] = zTable{slots: newZSlots(size)}
	z.rehashIdx = 0
}

// rehashStep moves the next zRehashSlots slots of a resize.
func (z *ZSkip) rehashStep() {
	if z.rehashIdx >= 0 && z.pauseRH == 0 {
		z.moveSlots(zRehashSlots)
	}
}

// moveSlots moves up to n slots of tables[0] to tables[1], and ends the
// resize once tables[0] is empty. Each live slot costs a load of its
// node's first cache line (for ZNode.hash); the tag is copied. tables[1]
// always has room for them (reserve).
func (z *ZSkip) moveSlots(n int) {
	old, nt := &z.tables[0], &z.tables[1]
	end := min(z.rehashIdx+n, len(old.slots))
	for i := z.rehashIdx; i < end && old.used > 0; i++ {
		s := old.slots[i]
		if s <= zSlotTomb {
			continue
		}
		nt.put(uint64(zSlotNode(s).hash), s)
		old.slots[i] = zSlotTomb
		old.used--
		old.tombs++
	}
	z.rehashIdx = end
	if old.used == 0 {
		z.tables[0], z.tables[1] = *nt, zTable{}
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
