package ds

import "unsafe"

// oIndex is the member index of the open-addressed encodings (ZSkip's
// member table, StrMap): an open-addressing hash table with linear
// probing over 8-byte slots, each holding a record pointer (low 48 bits)
// and the top 16 bits of the record's hash (its tag). A record is any
// 8-byte-aligned object whose first 4 bytes hold the low 32 bits of its
// hash (ZNode.hash, strRec.hash: see recHash), which is all a resize reads
// of it.
//
// Why not Dict's chains: a chain is walked by loading each entry, which is
// rarely in the CPU cache, and growing a chained table loads every entry
// again (and hashes its key). perf on the seed's ZADD and SADD (new
// 128-byte members into collections of thousands) put the chain walk and
// the rehash at 20-30% of the server's CPU (docs/benchmarks.md). Here a
// lookup of an absent key reads one run of slots and no record (a tag
// matches a wrong record 1 time in 65536), and a resize reads the old
// slots in order plus each record's first word, never its key.
//
// Removal leaves a tombstone (probes continue past it) unless the next
// slot is empty; a resize drops them. Resizing is incremental, as Dict's:
// while tables[1] is being filled, each insert and each removal moves
// oRehashSlots slots of tables[0] (a moved slot becomes a tombstone, so
// probe runs in the old table stay intact); lookups look in both tables
// and move nothing (see find), so a read never changes the index's size;
// inserts go to tables[1].
//
// Slots live in pointer-free memory: the pointers are hidden from the
// garbage collector, so the owner of an index must keep every indexed
// record alive through visible pointers of its own (ZSkip's slabs,
// StrMap's owners). The 48-bit packing relies on user-space addresses
// below 2^48, which is where Go's heap lives on every 64-bit platform it
// supports; checkPacked verifies it for each new allocation it is given.
type oIndex struct {
	tables    [2]oTable
	rehashIdx int // next slot of tables[0] to move; -1 when not resizing
	pause     int // walks in progress: no rehash steps, no shrinking
}

const (
	oSlotEmpty   = 0
	oSlotTomb    = 1 // never a record address (records are 8-byte aligned)
	oPtrBits     = 48
	oPtrMask     = 1<<oPtrBits - 1
	oMinSlots    = 4
	oRehashSlots = 16 // two cache lines of the old table per insert or removal
)

// oTable is one open-addressing table. Its load (live entries plus
// tombstones) stays at most 3/4, so every probe run ends at an empty slot.
type oTable struct {
	slots []uint64 // pointer-free memory
	used  uint32   // live entries (an index holds < 2^32 records)
	tombs uint32   // tombstones; 32-bit counts keep its owners in smaller size classes
}

// oTag is h's top 16 bits, in place.
func oTag(h uint64) uint64 { return h &^ oPtrMask }

// oHome is the first slot a hash probes: its low bits (a table never has
// more than 2^32 slots, so the 32 bits a record keeps are enough).
func oHome(h uint64, mask uint64) uint64 { return uint64(uint32(h)) & mask }

// recHash is the low 32 bits of the hash a record keeps in its first word.
func recHash(p unsafe.Pointer) uint64 { return uint64(*(*uint32)(p)) }

func oSlotOf(p unsafe.Pointer, h uint64) uint64 { return uint64(uintptr(p)) | oTag(h) }

// oSlotPtr unpacks a live slot. The address goes through memory rather
// than an unsafe.Pointer(uintptr) conversion, which the race detector's
// pointer checks reject for an address with no pointer operand.
func oSlotPtr(s uint64) unsafe.Pointer {
	p := uintptr(s & oPtrMask)
	return *(*unsafe.Pointer)(unsafe.Pointer(&p))
}

// checkPacked panics if memory at p could not be packed into a slot.
func checkPacked(p unsafe.Pointer) {
	if uintptr(p)>>oPtrBits != 0 {
		panic("ds: heap address above 2^48 cannot be packed in an index slot")
	}
}

// newOSlots returns n zeroed slots in pointer-free memory.
func newOSlots(n int) []uint64 { return make([]uint64, n) }

// oSlotsFor is the table size a resize makes for n records: a power of
// two at least 2n, so the table starts at most half full and the next
// resize is at least n/2 inserts away.
func oSlotsFor(n int) int { return max(oMinSlots, tableSize(2*n)) }

// oSlotsExact is the table size for a known number of records (init's
// hint): the smallest power of two that holds n within the 3/4 load
// limit. Sized with oSlotsFor's headroom, a set or hash converted from a
// listpack at 129 members took 512 slots (4 KB) instead of 256, and a
// ten-field hash 32 instead of 16.
func oSlotsExact(n int) int { return max(oMinSlots, tableSize((4*n+2)/3)) }

// fits reports whether n more entries keep the load at most 3/4.
func (t *oTable) fits(n int) bool { return 4*(int(t.used)+int(t.tombs)+n) <= 3*len(t.slots) }

// lookup returns the record of hash h for which eq is true, or nil. eq is
// called only for records whose tag matches.
func (t *oTable) lookup(h uint64, eq func(unsafe.Pointer) bool) unsafe.Pointer {
	if len(t.slots) == 0 {
		return nil
	}
	mask, tag := uint64(len(t.slots)-1), oTag(h)
	for i := oHome(h, mask); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == oSlotEmpty {
			return nil
		}
		if s&^oPtrMask == tag && s != oSlotTomb {
			if p := oSlotPtr(s); eq(p) {
				return p
			}
		}
	}
}

// slotOf returns the index of p's slot in t, or -1.
func (t *oTable) slotOf(p unsafe.Pointer) int {
	if len(t.slots) == 0 {
		return -1
	}
	mask, a := uint64(len(t.slots)-1), uint64(uintptr(p))
	for i := oHome(recHash(p), mask); ; i = (i + 1) & mask {
		s := t.slots[i]
		if s == oSlotEmpty {
			return -1
		}
		if s&oPtrMask == a {
			return int(i)
		}
	}
}

// put stores slot s (of a record absent from t) for hash h: in the first
// tombstone or empty slot of its run.
func (t *oTable) put(h uint64, s uint64) {
	mask := uint64(len(t.slots) - 1)
	i := oHome(h, mask)
	for t.slots[i] > oSlotTomb {
		i = (i + 1) & mask
	}
	if t.slots[i] == oSlotTomb {
		t.tombs--
	}
	t.slots[i] = s
	t.used++
}

// drop removes the entry in slot i. A tombstone keeps the probe runs
// through i intact; if the next slot is empty no run passes through i, so
// it and the tombstones just before it become empty instead.
func (t *oTable) drop(i int) {
	t.used--
	mask := len(t.slots) - 1
	if t.slots[(i+1)&mask] != oSlotEmpty {
		t.slots[i] = oSlotTomb
		t.tombs++
		return
	}
	t.slots[i] = oSlotEmpty
	for j := (i - 1) & mask; t.slots[j] == oSlotTomb; j = (j - 1) & mask {
		t.slots[j] = oSlotEmpty
		t.tombs--
	}
}

// init makes x an empty index with room for hint records.
func (x *oIndex) init(hint int) {
	*x = oIndex{rehashIdx: -1}
	if hint > 0 {
		x.tables[0].slots = newOSlots(oSlotsExact(hint))
	}
}

// bytes is the heap size of the slot arrays.
func (x *oIndex) bytes() int { return 8 * (len(x.tables[0].slots) + len(x.tables[1].slots)) }

// find returns the record of hash h for which eq is true, or nil. It never
// changes the index: a resize advances only in calls that add or remove a
// record (link, unlink), so a read or a no-op write never changes the
// owner's MemUsage, which callers re-measure only after a change (package
// db's accounting).
func (x *oIndex) find(h uint64, eq func(unsafe.Pointer) bool) unsafe.Pointer {
	if p := x.tables[0].lookup(h, eq); p != nil || x.rehashIdx < 0 {
		return p
	}
	return x.tables[1].lookup(h, eq)
}

// link indexes record p of hash h (absent from the index; its first word
// must already hold uint32(h)).
func (x *oIndex) link(h uint64, p unsafe.Pointer) {
	x.rehashStep()
	x.reserve()
	t := &x.tables[0]
	if x.rehashIdx >= 0 {
		t = &x.tables[1]
	}
	t.put(h, oSlotOf(p, h))
}

// reserve makes room for one insert in the table inserts go to.
func (x *oIndex) reserve() {
	if x.rehashIdx >= 0 {
		// tables[1] must keep room for what tables[0] still holds, which
		// the resize will move into it. A resize that cannot (a shrink
		// followed by many inserts) is finished at once into a table
		// sized for everything.
		old, nt := &x.tables[0], &x.tables[1]
		if nt.fits(int(old.used) + 1) {
			return
		}
		x.rebuild(oSlotsFor(int(old.used) + int(nt.used) + 1))
	}
	t := &x.tables[0]
	switch {
	case len(t.slots) == 0:
		t.slots = newOSlots(oMinSlots)
	case !t.fits(1):
		// Grows, or (mostly tombstones) rebuilds at the same size.
		x.startResize(oSlotsFor(int(t.used) + 1))
	}
}

// rebuild moves every entry of both tables into a new table of size
// slots, at once, ending a resize in progress.
func (x *oIndex) rebuild(size int) {
	nt := oTable{slots: newOSlots(size)}
	for t := range x.tables {
		for _, s := range x.tables[t].slots {
			if s > oSlotTomb {
				nt.put(recHash(oSlotPtr(s)), s)
			}
		}
	}
	x.tables[0], x.tables[1] = nt, oTable{}
	x.rehashIdx = -1
}

// unlink removes record p (which must be indexed) from the index.
func (x *oIndex) unlink(p unsafe.Pointer) {
	x.rehashStep()
	t, i := x.locate(p)
	t.drop(i)
	x.shrinkIfNeeded()
}

// replace puts record q (a copy of p: same key and hash) in p's slot.
func (x *oIndex) replace(p, q unsafe.Pointer) {
	t, i := x.locate(p)
	t.slots[i] = t.slots[i]&^oPtrMask | uint64(uintptr(q))
}

// locate returns the table and slot holding p, which must be indexed.
func (x *oIndex) locate(p unsafe.Pointer) (*oTable, int) {
	if i := x.tables[0].slotOf(p); i >= 0 {
		return &x.tables[0], i
	}
	if x.rehashIdx >= 0 {
		if i := x.tables[1].slotOf(p); i >= 0 {
			return &x.tables[1], i
		}
	}
	panic("ds: record missing from its index")
}

func (x *oIndex) shrinkIfNeeded() {
	if x.rehashIdx >= 0 || x.pause > 0 {
		return
	}
	t := &x.tables[0]
	if len(t.slots) > oMinSlots && 8*int(t.used) < len(t.slots) {
		x.startResize(oSlotsFor(int(t.used)))
	}
}

// startResize starts moving tables[0] into a new table of size slots.
func (x *oIndex) startResize(size int) {
	if x.tables[0].used == 0 {
		x.tables[0] = oTable{slots: newOSlots(size)}
		return
	}
	x.tables[1] = oTable{slots: newOSlots(size)}
	x.rehashIdx = 0
}

// rehashStep moves the next oRehashSlots slots of a resize.
func (x *oIndex) rehashStep() {
	if x.rehashIdx >= 0 && x.pause == 0 {
		x.moveSlots()
	}
}

// moveSlots moves the next oRehashSlots slots of tables[0] to tables[1],
// and ends the resize once tables[0] is empty. Each live slot costs a load
// of its record's first word (recHash), rarely cached; the tag is copied.
// tables[1] always has room for them (reserve).
//
// It works in two passes: the first loads the hashes of the live slots,
// independent loads whose cache misses the CPU overlaps; the second puts
// them. In one pass put's probe loop, whose branches depend on each hash,
// made every miss wait for the one before (perf on the seed's unpipelined
// SADD: moveSlots 4.2% of the server's CPU; docs/benchmarks.md).
func (x *oIndex) moveSlots() {
	old, nt := &x.tables[0], &x.tables[1]
	start := x.rehashIdx
	end := min(start+oRehashSlots, len(old.slots))
	var live [oRehashSlots]uint64 // slot values
	var hashes [oRehashSlots]uint64
	n := 0
	for i := start; i < end; i++ {
		if s := old.slots[i]; s > oSlotTomb {
			live[n], hashes[n] = s, recHash(oSlotPtr(s))
			old.slots[i] = oSlotTomb
			n++
		}
	}
	for j := range n {
		nt.put(hashes[j], live[j])
	}
	old.used -= uint32(n)
	old.tombs += uint32(n)
	x.rehashIdx = end
	if old.used == 0 {
		x.tables[0], x.tables[1] = *nt, oTable{}
		x.rehashIdx = -1
	}
}

// The owners array that goes with an oIndex (ZSkip.owners,
// StrMap.owners) holds every record once; a record keeps its position
// (oidx). These two helpers are its removal and its scan cursor.

// dropOwner removes x, which must be owners[i], by moving the last record
// into slot i. It returns the shortened array and the record now at i
// (x itself when it was last), whose position the caller sets to i, and
// whether the array is now mostly empty (the caller reallocates it at
// half its capacity, in the memory it keeps owners in).
func dropOwner[T any](owners []*T, i uint32, x *T) (rest []*T, moved *T, shrink bool) {
	last := len(owners) - 1
	if int(i) > last || owners[i] != x {
		panic("ds: record missing from its owners array")
	}
	moved = owners[last]
	owners[i] = moved
	owners[last] = nil
	c := cap(owners)
	return owners[:last], moved, c > 64 && last < c/4
}

// ownerScan is the cursor of ZSkip.Scan and StrMap.Scan over an owners
// array of n records: the slot a call with cursor visits, which is also
// the cursor it returns, or ok false when the scan is over. It walks from
// the last slot down: cursor 0 starts at the end, and a cursor c > 0
// means slots below c remain. A removal moves the last record into the
// freed slot, that is from the visited part (or the slot itself) down
// into the unvisited part, never the other way, and additions append to
// the visited part: so every record present for the whole scan is
// visited at least once (Valkey's SCAN guarantee), some possibly twice,
// and records added meanwhile may or may not be. Unlike a hash-table
// cursor, it does not depend on the index's size or resizing.
func ownerScan(n int, cursor uint64) (slot uint64, ok bool) {
	i := uint64(n)
	if cursor != 0 && cursor < i {
		i = cursor
	}
	if i == 0 {
		return 0, false
	}
	return i - 1, true
}

// Stats describes the index as DEBUG HTSTATS-KEY does a Valkey dict: the
// slots and live entries of the main table and, while resizing, of the
// target table (slots 0 when there is none).
func (x *oIndex) Stats() (mainSlots, mainUsed, targetSlots, targetUsed int) {
	return len(x.tables[0].slots), int(x.tables[0].used), len(x.tables[1].slots), int(x.tables[1].used)
}
