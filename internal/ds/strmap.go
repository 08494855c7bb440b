package ds

import "unsafe"

// StrMap is the hashtable encoding of sets and hashes: byte-string keys,
// each with a byte-string value (always empty in a set), indexed by an
// oIndex (oindex.go).
//
// Every key is ONE record: the low 32 bits of its hash (first, as oIndex
// requires), its position in owners, the key and value lengths, then the
// key bytes and the value bytes. owners is the dense array Scan and Random
// walk. A small map (up to strSmallMax keys) allocates each record on its
// own and owners is an ordinary slice, which keeps them alive: memory as
// tight as the allocator's size classes allow. Once it grows past that,
// its records move into slabs (slab.go) and owners into pointer-free
// memory: the collector then marks one pointer per slab, never one per
// key, and a slab's slack is small next to the map.
//
// Why not Dict (which the keyspace keeps, for its SCAN cursor and
// Sample): perf on the seed's SADD at pipeline 16 (new 128-byte members
// into sets of thousands) spent 26% of the server in Dict's upsert, all
// of it two cache misses per insert (the bucket, then the entry its chain
// starts with, to compare keys), another 6% re-hashing keys to grow the
// table and ~10% in the collector scanning entries (each holds two
// pointers); a hash's value was a second allocation. Here an insert of a
// new key reads one run of slots and no record, a resize reads no key,
// and a hash field and its value share one allocation
// (docs/benchmarks.md).
//
// Key and value slices returned by any method alias the record. They stay
// readable after the key is deleted or given a new value (slab memory is
// never reused; a slice keeps its slab alive), but a new value that fits
// the record's bytes is written in place, so a caller that holds a value
// across a Set of its key must copy it first. Mutation
// during Range is allowed for the key being visited only (Set or Delete);
// see Range. No internal locking (see the package documentation).
type StrMap struct {
	idx    oIndex
	owners []*strRec // every record once; pointer-free memory once slabbed
	// slabbed: the records are in slabs, which keep them alive. Before,
	// each record is an allocation of its own, kept alive by owners, and
	// recBytes counts them.
	slabbed  bool
	slabs    slabArena
	recBytes int
}

// strSmallMax is the most keys a StrMap keeps in records of their own:
// below it slabs would waste more (a slab header each, and up to half a
// slab of room while they double) than the collector's per-record mark
// costs (100k hashes of ten 128-byte values built one HSET at a time:
// 1.35x Redis's memory in slabs, 0.94x with records of their own).
const strSmallMax = 32

// strRec is a record's header; the key and value bytes follow it.
type strRec struct {
	hash uint32 // the key's hash, low 32 bits: first, for oIndex
	oidx uint32 // index in StrMap.owners; strDead once removed
	klen uint32
	vlen uint32
}

const (
	strRecHdr = int(unsafe.Sizeof(strRec{}))
	strDead   = ^uint32(0)
)

// strRecSize is the slab bytes of a record.
func strRecSize(klen, vlen int) int { return slabAlign(strRecHdr + klen + vlen) }

func (r *strRec) size() int { return strRecSize(int(r.klen), int(r.vlen)) }

// strEmpty backs the empty slices handed out for empty keys and values
// (never nil, so that callers writing replies see a string, not a null).
var strEmpty [1]byte

func (r *strRec) bytesAt(off, n int) []byte {
	if n == 0 {
		return strEmpty[:0]
	}
	return unsafe.Slice((*byte)(unsafe.Add(unsafe.Pointer(r), strRecHdr+off)), n)
}

// Key returns the record's key.
func (r *strRec) key() []byte { return r.bytesAt(0, int(r.klen)) }

// val returns the record's value.
func (r *strRec) val() []byte { return r.bytesAt(int(r.klen), int(r.vlen)) }

// NewStrMap returns an empty StrMap sized for hint keys.
func NewStrMap(hint int) *StrMap {
	m := &StrMap{}
	m.idx.init(hint)
	switch {
	case hint > strSmallMax:
		m.slabbed = true
		m.owners = newPtrTable[strRec](hint)[:0]
	case hint > 0:
		m.owners = make([]*strRec, 0, hint)
	}
	return m
}

// Len returns the number of keys.
func (m *StrMap) Len() int { return len(m.owners) }

// MemUsage estimates the heap bytes of the StrMap.
func (m *StrMap) MemUsage() int {
	return allocSize(int(unsafe.Sizeof(*m))) + m.idx.bytes() + 8*cap(m.owners) + m.slabs.memUsage() + m.recBytes
}

// find returns the record of key (hash h), or nil. It never changes the
// map.
func (m *StrMap) find(h uint64, key []byte) *strRec {
	if len(m.owners) == 0 {
		return nil
	}
	return (*strRec)(m.idx.find(h, func(p unsafe.Pointer) bool {
		r := (*strRec)(p)
		return int(r.klen) == len(key) && string(r.key()) == string(key)
	}))
}

// Has reports whether key is present.
func (m *StrMap) Has(key []byte) bool { return m.find(Hash(key), key) != nil }

// Get returns key's value (see StrMap for how long it stays valid).
func (m *StrMap) Get(key []byte) (val []byte, ok bool) {
	if r := m.find(Hash(key), key); r != nil {
		return r.val(), true
	}
	return nil, false
}

// Add adds key with an empty value if it is absent, and reports whether
// it was.
func (m *StrMap) Add(key []byte) bool {
	h := Hash(key)
	if m.find(h, key) != nil {
		return false
	}
	m.insert(h, key, nil)
	return true
}

// Set gives key the value val (both copied), adding key if it is absent,
// and reports whether it was added.
func (m *StrMap) Set(key, val []byte) (added bool) {
	h := Hash(key)
	r := m.find(h, key)
	if r == nil {
		m.insert(h, key, val)
		return true
	}
	if strRecSize(len(key), len(val)) == r.size() {
		r.vlen = uint32(len(val))
		copy(r.val(), val)
		return false
	}
	n := m.newRec(h, key, val)
	n.oidx = r.oidx
	m.owners[r.oidx] = n
	m.idx.replace(unsafe.Pointer(r), unsafe.Pointer(n))
	m.release(r)
	return false
}

// newRec makes a record for key and val (hash h): carved from the slabs,
// or an allocation of its own while the map is small.
func (m *StrMap) newRec(h uint64, key, val []byte) *strRec {
	size := strRecSize(len(key), len(val))
	var r *strRec
	if m.slabbed {
		// The first slab holds the keys the map was sized for (the
		// capacity NewStrMap gave owners), each the size of this one.
		first := size
		if hint := cap(m.owners) - len(m.owners); hint > 1 {
			first = hint * size
		}
		r = (*strRec)(m.slabs.carve(size, first))
	} else {
		r = (*strRec)(allocNoscan(size))
		checkPacked(unsafe.Add(unsafe.Pointer(r), size-1)) // oIndex packs record addresses into 48 bits
		m.recBytes += allocSize(size)
	}
	r.hash, r.klen, r.vlen = uint32(h), uint32(len(key)), uint32(len(val))
	copy(r.key(), key)
	copy(r.val(), val)
	return r
}

// insert adds key (absent, hash h) with value val.
func (m *StrMap) insert(h uint64, key, val []byte) {
	if !m.slabbed && len(m.owners) == strSmallMax {
		m.toSlabs()
	}
	r := m.newRec(h, key, val)
	r.oidx = uint32(len(m.owners))
	if m.slabbed && len(m.owners) == cap(m.owners) {
		m.owners = resizePtrTable(m.owners, growPtrTable(cap(m.owners)))
	}
	m.owners = append(m.owners, r)
	m.idx.link(h, unsafe.Pointer(r))
}

// Delete removes key and reports whether it was present.
func (m *StrMap) Delete(key []byte) bool {
	r := m.find(Hash(key), key)
	if r == nil {
		return false
	}
	m.disown(r)
	m.idx.unlink(unsafe.Pointer(r))
	m.release(r)
	return true
}

// disown drops r from owners, moving the last record into its slot, and
// gives back owners' memory when it is mostly empty.
func (m *StrMap) disown(r *strRec) {
	var l *strRec
	var shrink bool
	m.owners, l, shrink = dropOwner(m.owners, r.oidx, r)
	l.oidx = r.oidx
	if shrink && m.slabbed {
		m.owners = resizePtrTable(m.owners, cap(m.owners)/2)
	} else if shrink {
		m.owners = append(make([]*strRec, 0, cap(m.owners)/2), m.owners...)
	}
}

// toSlabs moves a small map's records into a first slab with room for as
// many again, and owners into pointer-free memory. The old records are
// left to the collector (a caller's key or value slice keeps its own).
func (m *StrMap) toSlabs() {
	bytes := 0
	for _, r := range m.owners {
		bytes += r.size()
	}
	owners := newPtrTable[strRec](growPtrTable(cap(m.owners)))[:len(m.owners)]
	for i, x := range m.owners {
		size := x.size()
		y := (*strRec)(m.slabs.carve(size, 2*bytes))
		copy(unsafe.Slice((*byte)(unsafe.Pointer(y)), size), unsafe.Slice((*byte)(unsafe.Pointer(x)), size))
		owners[i] = y
		m.idx.replace(unsafe.Pointer(x), unsafe.Pointer(y))
	}
	m.owners, m.slabbed, m.recBytes = owners, true, 0
}

// release marks a record that is out of the index and owners as garbage
// and evacuates the slabs that are half garbage (nothing else holds a
// record: a caller's key or value slice stays readable). A small map's
// record is simply dropped, for the collector.
func (m *StrMap) release(r *strRec) {
	r.oidx = strDead
	if !m.slabbed {
		m.recBytes -= allocSize(r.size())
		return
	}
	m.slabs.free(unsafe.Pointer(r), r.size())
	if m.slabs.queued == 0 && len(m.owners) > 0 {
		return
	}
	m.slabs.settle(len(m.owners) == 0, func(p unsafe.Pointer) (int, bool) {
		x := (*strRec)(p)
		return x.size(), x.oidx != strDead
	}, func(p unsafe.Pointer) { m.move((*strRec)(p)) })
}

// move copies live record x into the current slab and points its index
// slot and its owners slot at the copy.
func (m *StrMap) move(x *strRec) {
	size := x.size()
	y := (*strRec)(m.slabs.carve(size, size))
	copy(unsafe.Slice((*byte)(unsafe.Pointer(y)), size), unsafe.Slice((*byte)(unsafe.Pointer(x)), size))
	m.owners[x.oidx] = y
	m.idx.replace(unsafe.Pointer(x), unsafe.Pointer(y))
	x.oidx = strDead
}

// Range calls fn for every key and value until fn returns false. fn may
// give the key it is called with a new value, or delete it; any other
// change leaves the walk unspecified (keys may be missed or repeated;
// memory safety is kept). The walk goes down owners, which index changes
// do not reorder, so a delete moves an already visited record into the
// visited slot.
func (m *StrMap) Range(fn func(key, val []byte) bool) {
	for i := len(m.owners) - 1; i >= 0; i-- {
		if i >= len(m.owners) {
			continue
		}
		r := m.owners[i]
		if !fn(r.key(), r.val()) {
			return
		}
	}
}

// Scan visits one key and returns the next cursor, 0 at the end, with
// ZSkip.Scan's cursor over owners and its guarantee (see ownerScan).
func (m *StrMap) Scan(cursor uint64, fn func(key, val []byte)) uint64 {
	i, ok := ownerScan(len(m.owners), cursor)
	if ok {
		r := m.owners[i]
		fn(r.key(), r.val())
	}
	return i
}

// Random returns a uniformly random key and its value (ok false when the
// map is empty), drawing from r (nil: math/rand/v2's global generator).
func (m *StrMap) Random(r Source) (key, val []byte, ok bool) {
	if len(m.owners) == 0 {
		return nil, nil, false
	}
	x := m.owners[rnd(r)%uint64(len(m.owners))]
	return x.key(), x.val(), true
}

// TableStats is the index's Stats (DEBUG HTSTATS-KEY).
func (m *StrMap) TableStats() (mainSlots, mainUsed, targetSlots, targetUsed int) {
	return m.idx.Stats()
}
