package db

import (
	"slices"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
)

// idMap is an ordered map from stream IDs to V: a stream's nodes (master
// ID to listpack), a consumer group's pending entries, a consumer's. It
// plays the part of Valkey's rax keyed by 128-bit big-endian IDs.
//
// Entries live in blocks of at most idBlockMax, each sorted, the blocks in
// order: a lookup is two binary searches, an insertion or removal moves at
// most a block's entries, and a split or an emptied block moves the block
// index, whose length is n/idBlockMax or so. Appending past the last key
// (new entries, new deliveries: the common case) starts a new block when
// the last is full rather than splitting it, so blocks filled in order
// stay full. A block that falls under a quarter is merged with a
// neighbour when the two fit in three quarters of one.
//
// Every block allocation is reported to acct (the stream's memory
// count), so the owner's size is known in O(1).
type idMap[V any] struct {
	blocks []*idBlock[V]
	n      int
	acct   *int64
}

type idEntry[V any] struct {
	id  streamID
	val V
}

type idBlock[V any] struct {
	e []idEntry[V]
}

const (
	idBlockMax   = 128
	idBlockFirst = 4 // a new block's capacity: most PELs are small
)

// blockBytes is the heap size of a block holding an entry array of
// capacity n.
func (m *idMap[V]) blockBytes(n int) int64 {
	var e idEntry[V]
	return int64(ds.AllocSize(int(unsafe.Sizeof(e))*n) + ds.AllocSize(int(unsafe.Sizeof(idBlock[V]{}))))
}

func (m *idMap[V]) note(d int64) {
	if m.acct != nil {
		*m.acct += d
	}
}

// setBlocks replaces the block index, accounting its size change.
func (m *idMap[V]) setBlocks(b []*idBlock[V]) {
	old := int64(ds.AllocSize(cap(m.blocks) * 8))
	m.blocks = b
	m.note(int64(ds.AllocSize(cap(m.blocks)*8)) - old)
}

func (m *idMap[V]) newBlock(n int) *idBlock[V] {
	m.note(m.blockBytes(n))
	return &idBlock[V]{e: make([]idEntry[V], 0, n)}
}

// resized accounts a block whose entry array may have been reallocated
// (it had capacity old).
func (m *idMap[V]) resized(b *idBlock[V], old int) {
	if c := cap(b.e); c != old {
		m.note(m.blockBytes(c) - m.blockBytes(old))
	}
}

// Len is the number of entries.
func (m *idMap[V]) Len() int { return m.n }

// memBytes recomputes the heap held by the map (for checks).
func (m *idMap[V]) memBytes() int64 {
	n := int64(ds.AllocSize(cap(m.blocks) * 8))
	for _, b := range m.blocks {
		n += m.blockBytes(cap(b.e))
	}
	return n
}

// release drops everything, reporting the memory freed.
func (m *idMap[V]) release() {
	m.note(-m.memBytes())
	m.blocks, m.n = nil, 0
}

// findBlock returns the index of the block that holds id or where id
// would go: the last block whose first key is <= id (0 if none).
func (m *idMap[V]) findBlock(id streamID) int {
	lo, hi := 0, len(m.blocks)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if m.blocks[mid].e[0].id.cmp(id) <= 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	if lo == 0 {
		return 0
	}
	return lo - 1
}

// search returns the position of the first entry of b >= id.
func (b *idBlock[V]) search(id streamID) int {
	lo, hi := 0, len(b.e)
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if b.e[mid].id.cmp(id) < 0 {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo
}

// Get returns a pointer to id's value, or nil. The pointer is valid until
// the map changes.
func (m *idMap[V]) Get(id streamID) *V {
	if m.n == 0 {
		return nil
	}
	b := m.blocks[m.findBlock(id)]
	if i := b.search(id); i < len(b.e) && b.e[i].id == id {
		return &b.e[i].val
	}
	return nil
}

// Insert adds id with v unless it is present; it reports whether it did.
func (m *idMap[V]) Insert(id streamID, v V) bool {
	if len(m.blocks) == 0 {
		b := m.newBlock(idBlockFirst)
		b.e = append(b.e, idEntry[V]{id, v})
		m.setBlocks(append(m.blocks, b))
		m.n = 1
		return true
	}
	bi := m.findBlock(id)
	b := m.blocks[bi]
	i := b.search(id)
	if i < len(b.e) && b.e[i].id == id {
		return false
	}
	m.n++
	if len(b.e) < idBlockMax {
		old := cap(b.e)
		b.e = slices.Insert(b.e, i, idEntry[V]{id, v})
		m.resized(b, old)
		return true
	}
	var nb *idBlock[V]
	if i == len(b.e) && bi == len(m.blocks)-1 {
		// Appending in order: start the next block, as large as this
		// one (an append-only map fills blocks in order).
		nb = m.newBlock(idBlockMax)
		nb.e = append(nb.e, idEntry[V]{id, v})
	} else {
		half := len(b.e) / 2
		nb = m.newBlock(idBlockMax)
		nb.e = append(nb.e, b.e[half:]...)
		clear(b.e[half:])
		b.e = b.e[:half]
		if i <= half {
			b.e = slices.Insert(b.e, i, idEntry[V]{id, v})
		} else {
			nb.e = slices.Insert(nb.e, i-half, idEntry[V]{id, v})
		}
	}
	m.setBlocks(slices.Insert(m.blocks, bi+1, nb))
	return true
}

// Delete removes id, reporting whether it was there.
func (m *idMap[V]) Delete(id streamID) bool {
	if m.n == 0 {
		return false
	}
	bi := m.findBlock(id)
	b := m.blocks[bi]
	i := b.search(id)
	if i >= len(b.e) || b.e[i].id != id {
		return false
	}
	m.deleteAt(bi, i)
	return true
}

// deleteAt removes entry i of block bi.
func (m *idMap[V]) deleteAt(bi, i int) {
	b := m.blocks[bi]
	b.e = slices.Delete(b.e, i, i+1)
	m.n--
	switch {
	case len(b.e) == 0:
		m.dropBlock(bi)
	case len(b.e) < idBlockMax/4 && len(m.blocks) > 1:
		if bi+1 < len(m.blocks) && len(b.e)+len(m.blocks[bi+1].e) <= idBlockMax*3/4 {
			old := cap(b.e)
			b.e = append(b.e, m.blocks[bi+1].e...)
			m.resized(b, old)
			m.dropBlock(bi + 1)
		} else if bi > 0 && len(b.e)+len(m.blocks[bi-1].e) <= idBlockMax*3/4 {
			p := m.blocks[bi-1]
			old := cap(p.e)
			p.e = append(p.e, b.e...)
			m.resized(p, old)
			m.dropBlock(bi)
		}
	}
}

func (m *idMap[V]) dropBlock(bi int) {
	m.note(-m.blockBytes(cap(m.blocks[bi].e)))
	m.blocks[bi] = nil
	nb := slices.Delete(m.blocks, bi, bi+1)
	if cap(nb) > 64 && len(nb) < cap(nb)/4 {
		nb = slices.Clip(append([]*idBlock[V](nil), nb...))
	}
	m.setBlocks(nb)
}

// First and Last return the smallest and greatest keys (ok false when
// empty).
func (m *idMap[V]) First() (streamID, bool) {
	if m.n == 0 {
		return streamID{}, false
	}
	return m.blocks[0].e[0].id, true
}

func (m *idMap[V]) Last() (streamID, bool) {
	if m.n == 0 {
		return streamID{}, false
	}
	b := m.blocks[len(m.blocks)-1]
	return b.e[len(b.e)-1].id, true
}

// idCursor is a position in an idMap, valid until the map changes.
type idCursor[V any] struct {
	m     *idMap[V]
	bi, i int
}

// Valid reports whether the cursor is on an entry.
func (c *idCursor[V]) Valid() bool {
	return c.bi >= 0 && c.bi < len(c.m.blocks) && c.i >= 0 && c.i < len(c.m.blocks[c.bi].e)
}

func (c *idCursor[V]) ID() streamID { return c.m.blocks[c.bi].e[c.i].id }
func (c *idCursor[V]) Val() *V      { return &c.m.blocks[c.bi].e[c.i].val }

// Next moves to the following entry (Valid false past the last).
func (c *idCursor[V]) Next() {
	c.i++
	if c.i >= len(c.m.blocks[c.bi].e) {
		c.bi++
		c.i = 0
	}
}

// Prev moves to the preceding entry (Valid false before the first).
func (c *idCursor[V]) Prev() {
	c.i--
	if c.i < 0 {
		c.bi--
		if c.bi >= 0 {
			c.i = len(c.m.blocks[c.bi].e) - 1
		}
	}
}

// Seek returns a cursor on the first entry >= id.
func (m *idMap[V]) Seek(id streamID) idCursor[V] {
	if m.n == 0 {
		return idCursor[V]{m: m, bi: 0, i: 0}
	}
	bi := m.findBlock(id)
	i := m.blocks[bi].search(id)
	c := idCursor[V]{m: m, bi: bi, i: i}
	if i >= len(m.blocks[bi].e) {
		c.bi, c.i = bi+1, 0
	}
	return c
}

// SeekLE returns a cursor on the last entry <= id.
func (m *idMap[V]) SeekLE(id streamID) idCursor[V] {
	c := m.Seek(id)
	if c.Valid() && c.ID() == id {
		return c
	}
	if !c.Valid() {
		// Past the end: the last entry, if any.
		c.bi = len(m.blocks) - 1
		if c.bi >= 0 {
			c.i = len(m.blocks[c.bi].e) - 1
		}
		return c
	}
	c.Prev()
	return c
}

// Start returns a cursor on the first entry; End on the last.
func (m *idMap[V]) Start() idCursor[V] { return idCursor[V]{m: m} }

func (m *idMap[V]) End() idCursor[V] {
	c := idCursor[V]{m: m, bi: len(m.blocks) - 1}
	if c.bi >= 0 {
		c.i = len(m.blocks[c.bi].e) - 1
	}
	return c
}

// DeleteAt removes the cursor's entry and leaves the cursor on the entry
// that followed it.
func (c *idCursor[V]) DeleteAt() {
	id := c.ID()
	c.m.deleteAt(c.bi, c.i)
	*c = c.m.Seek(id)
}

// Range calls fn for every entry in order until it returns false.
func (m *idMap[V]) Range(fn func(id streamID, v *V) bool) {
	for _, b := range m.blocks {
		for i := range b.e {
			if !fn(b.e[i].id, &b.e[i].val) {
				return
			}
		}
	}
}
