package db

import (
	"bytes"
	"encoding/binary"
	"slices"
	"unsafe"

	"github.com/corvid-kv/corvid/internal/ds"
)

// A stream's Object.Value() is a *stream: Valkey's stream (t_stream.c) with
// the same observable structure.
//
//   - Entries live in nodes: listpacks in Valkey's byte layout
//     (streams_lp.go), keyed by their master ID (the ID of the first entry
//     added to the node) in an ordered map (idMap, where Valkey has a
//     rax). A node starts with its master entry, then its entries, each
//     delta-encoded against the master ID and, when its fields are the
//     master's, without field names:
//
//     master: count | deleted | num-fields | field... | 0
//     entry:  flags | ms-diff | seq-diff | [num-fields | field...] value... | lp-count
//
//     with flags DELETED (a tombstone, left by XDEL or trimming inside a
//     node) and SAMEFIELDS. A node is full after stream-node-max-entries
//     entries (tombstones included) or when an entry would take it to
//     stream-node-max-bytes; a node whose every entry is deleted is
//     removed. So the per-entry cost, the nodes XINFO counts and the
//     granularity of "~" trimming are Valkey's.
//
//   - Consumer groups are kept by name in byte order (rax order); each has
//     its pending entries list (PEL: entry ID to delivery record) and its
//     consumers, each with its own PEL sharing those records.
//
//   - mem counts the heap the stream holds, kept at every change, so that
//     MemUsage is O(1) (mem.go). memBytes recomputes it for the tests.
type stream struct {
	nodes        idMap[nodeRef]
	length       uint64
	lastID       streamID
	firstID      streamID
	maxDeleted   streamID
	entriesAdded uint64
	groups       []*streamCG
	// tail is the last node's listpack while it grows (with its
	// capacity); every other node's is allocated to its exact size.
	tail []byte
	// raxNodes caches XINFO's radix-tree-nodes (0: to compute), for
	// the node set it was computed for.
	raxNodes int64
	lpBytes  int64 // listpacks' allocations, size-classed
	mem      int64 // everything else
}

// nodeRef is a node's listpack as the index holds it: its first byte.
// The length is the listpack's own total-bytes header, and the
// allocation is exactly that long, but for the tail (stream.tail). Eight
// bytes where a slice takes 24: the index costs 24 bytes per node.
type nodeRef struct{ p *byte }

func refOf(lp []byte) nodeRef { return nodeRef{&lp[0]} }

// listpack returns the node's listpack (capacity: its length).
func (r nodeRef) listpack() []byte {
	n := binary.LittleEndian.Uint32(unsafe.Slice(r.p, 4))
	return unsafe.Slice(r.p, n)
}

// Entry flags.
const (
	streamFlagDeleted    = 1
	streamFlagSameFields = 2
)

// streamListpackMax is STREAM_LISTPACK_MAX_SIZE: no node grows past it,
// and no entry's fields and values may add up to more.
const streamListpackMax = 1 << 30

// invalidEntriesRead is SCG_INVALID_ENTRIES_READ.
const invalidEntriesRead = -1

// streamCG is a consumer group.
type streamCG struct {
	name        []byte
	lastID      streamID
	entriesRead int64
	pel         idMap[*streamNACK]
	consumers   []*streamConsumer
}

// streamNACK is a pending entry: delivered, not acknowledged.
type streamNACK struct {
	deliveryTime  int64
	deliveryCount uint64
	consumer      *streamConsumer
}

// streamConsumer is a consumer of a group.
type streamConsumer struct {
	name       []byte
	seenTime   int64
	activeTime int64
	pel        idMap[*streamNACK]
}

var (
	streamBase   = int64(ds.AllocSize(int(unsafe.Sizeof(stream{}))))
	cgBase       = int64(ds.AllocSize(int(unsafe.Sizeof(streamCG{}))))
	consumerBase = int64(ds.AllocSize(int(unsafe.Sizeof(streamConsumer{}))))
	nackBytes    = int64(ds.AllocSize(int(unsafe.Sizeof(streamNACK{}))))
)

func newStream() *stream {
	s := &stream{mem: streamBase}
	s.nodes.acct = &s.mem
	return s
}

// streamOf returns the stream stored in o (which must be one).
func streamOf(o *Object) *stream { return o.Value().(*stream) }

// MemUsage is the heap the stream holds.
func (s *stream) MemUsage() int { return int(s.mem + s.lpBytes) }

func lpAlloc(lp []byte) int64 { return int64(ds.AllocSize(cap(lp))) }

// nodeLP returns the listpack of the node at c.
func (s *stream) nodeLP(c *idCursor[nodeRef]) []byte {
	r := *c.Val()
	if s.tail != nil && r.p == &s.tail[0] {
		return s.tail
	}
	return r.listpack()
}

// memBytes recomputes MemUsage from scratch.
func (s *stream) memBytes() int64 {
	n := streamBase + s.nodes.memBytes() + int64(ds.AllocSize(cap(s.groups)*8))
	s.nodes.Range(func(_ streamID, r *nodeRef) bool {
		if s.tail != nil && r.p == &s.tail[0] {
			n += lpAlloc(s.tail)
		} else {
			n += lpAlloc(r.listpack())
		}
		return true
	})
	for _, g := range s.groups {
		n += cgBase + int64(ds.AllocSize(len(g.name))) + g.pel.memBytes() + int64(g.pel.Len())*nackBytes
		n += int64(ds.AllocSize(cap(g.consumers) * 8))
		for _, c := range g.consumers {
			n += consumerBase + int64(ds.AllocSize(len(c.name))) + c.pel.memBytes()
		}
	}
	return n
}

// ---- Nodes -------------------------------------------------------------

// nodeMaster reads a node's master entry: live and deleted entry counts,
// the number of master fields, the offset of the first master field, and
// the offset of the first entry (-1 if none).
type nodeMaster struct {
	count, deleted int64
	numFields      int
	fieldsAt       int
	entriesAt      int
}

func readMaster(lp []byte) nodeMaster {
	var m nodeMaster
	p := vlpFirst(lp)
	m.count = vlpInt(lp, p)
	p = vlpNext(lp, p)
	m.deleted = vlpInt(lp, p)
	p = vlpNext(lp, p)
	m.numFields = int(vlpInt(lp, p))
	p = vlpNext(lp, p)
	m.fieldsAt = p
	for range m.numFields {
		p = vlpNext(lp, p)
	}
	// p is the master terminator.
	m.entriesAt = vlpNext(lp, p)
	return m
}

// streamEntry is an entry as an iterator finds it in its node.
type streamEntry struct {
	lp        []byte
	master    streamID
	flagsAt   int
	flags     int64
	id        streamID
	numFields int
	fieldsAt  int // master fields (SAMEFIELDS) or the entry's own
	valuesAt  int // the first value (SAMEFIELDS) or the first field
	countAt   int // the lp-count element
}

// readEntry decodes the entry whose flags element is at p.
func readEntry(lp []byte, master streamID, masterFields, masterFieldsAt, p int) streamEntry {
	e := streamEntry{lp: lp, master: master, flagsAt: p}
	e.flags = vlpInt(lp, p)
	p = vlpNext(lp, p)
	e.id.ms = master.ms + uint64(vlpInt(lp, p))
	p = vlpNext(lp, p)
	e.id.seq = master.seq + uint64(vlpInt(lp, p))
	p = vlpNext(lp, p)
	if e.flags&streamFlagSameFields != 0 {
		e.numFields = masterFields
		e.fieldsAt = masterFieldsAt
		e.valuesAt = p
		for range e.numFields {
			p = vlpNext(lp, p)
		}
	} else {
		e.numFields = int(vlpInt(lp, p))
		p = vlpNext(lp, p)
		e.fieldsAt = -1
		e.valuesAt = p
		for range 2 * e.numFields {
			p = vlpNext(lp, p)
		}
	}
	e.countAt = p
	return e
}

// each calls fn with every field and value of e (slices valid during the
// call only).
func (e *streamEntry) each(fn func(f, v []byte)) {
	var fb, vb [20]byte
	fp, vp := e.fieldsAt, e.valuesAt
	for range e.numFields {
		if e.fieldsAt >= 0 {
			f := vlpStr(e.lp, fp, fb[:])
			v := vlpStr(e.lp, vp, vb[:])
			fn(f, v)
			fp = vlpNext(e.lp, fp)
			vp = vlpNext(e.lp, vp)
		} else {
			f := vlpStr(e.lp, vp, fb[:])
			vp = vlpNext(e.lp, vp)
			v := vlpStr(e.lp, vp, vb[:])
			fn(f, v)
			vp = vlpNext(e.lp, vp)
		}
	}
}

func (e *streamEntry) deleted() bool { return e.flags&streamFlagDeleted != 0 }

// forEachInNode calls fn for the node's entries in order (rev: backwards),
// tombstones included, until it returns false. It reports whether fn
// stopped it.
func forEachInNode(master streamID, lp []byte, rev bool, fn func(e *streamEntry) bool) bool {
	m := readMaster(lp)
	if m.entriesAt < 0 {
		return false
	}
	if !rev {
		for p := m.entriesAt; p >= 0; {
			e := readEntry(lp, master, m.numFields, m.fieldsAt, p)
			if !fn(&e) {
				return true
			}
			p = vlpNext(lp, e.countAt)
		}
		return false
	}
	for p := vlpLast(lp); ; {
		n := vlpInt(lp, p)
		if n == 0 {
			return false // the master terminator
		}
		for range n {
			p = vlpPrev(lp, p)
		}
		e := readEntry(lp, master, m.numFields, m.fieldsAt, p)
		if !fn(&e) {
			return true
		}
		p = vlpPrev(lp, p)
	}
}

// iterate is streamIteratorStart/GetID: it calls fn for the entries whose
// IDs are within [start, end], in order or (rev) backwards, skipping
// tombstones unless withTombs, until fn returns false. fn must not change
// the stream.
func (s *stream) iterate(start, end streamID, rev, withTombs bool, fn func(e *streamEntry) bool) {
	if s.nodes.Len() == 0 || start.cmp(end) > 0 {
		return
	}
	stop := false
	visit := func(e *streamEntry) bool {
		if e.deleted() && !withTombs {
			return true
		}
		if !rev {
			if e.id.cmp(start) < 0 {
				return true
			}
			if e.id.cmp(end) > 0 {
				stop = true
				return false
			}
		} else {
			if e.id.cmp(end) > 0 {
				return true
			}
			if e.id.cmp(start) < 0 {
				stop = true
				return false
			}
		}
		if !fn(e) {
			stop = true
			return false
		}
		return true
	}
	if !rev {
		c := s.nodes.SeekLE(start)
		if !c.Valid() {
			c = s.nodes.Start()
		}
		for ; c.Valid() && !stop; c.Next() {
			if c.ID().cmp(end) > 0 {
				return
			}
			forEachInNode(c.ID(), s.nodeLP(&c), false, visit)
		}
		return
	}
	c := s.nodes.SeekLE(end)
	for ; c.Valid() && !stop; c.Prev() {
		forEachInNode(c.ID(), s.nodeLP(&c), true, visit)
	}
}

// findEntry locates the live entry id: its node's cursor and the entry.
func (s *stream) findEntry(id streamID) (idCursor[nodeRef], streamEntry, bool) {
	c := s.nodes.SeekLE(id)
	var found streamEntry
	ok := false
	if c.Valid() {
		forEachInNode(c.ID(), s.nodeLP(&c), false, func(e *streamEntry) bool {
			switch e.id.cmp(id) {
			case -1:
				return true
			case 0:
				if !e.deleted() {
					found, ok = *e, true
				}
			}
			return false
		})
	}
	return c, found, ok
}

// entryExists is streamEntryExists.
func (s *stream) entryExists(id streamID) bool {
	_, _, ok := s.findEntry(id)
	return ok
}

// setNode stores lp as the listpack of the node at c (nil: a node just
// inserted), accounting the change of its allocation. The last node
// keeps lp's capacity (it grows); any other gets an exact copy when lp
// has room to spare.
func (s *stream) setNode(c *idCursor[nodeRef], lp []byte) {
	p := c.Val()
	if p.p != nil {
		s.lpBytes -= lpAlloc(s.nodeLP(c))
	}
	last := c.bi == len(c.m.blocks)-1 && c.i == len(c.m.blocks[c.bi].e)-1
	if last {
		s.tail = lp
	} else {
		if s.tail != nil && p.p == &s.tail[0] {
			s.tail = nil
		}
		if cap(lp) != len(lp) {
			lp = append(make([]byte, 0, len(lp)), lp...)
		}
	}
	s.lpBytes += lpAlloc(lp)
	*p = refOf(lp)
}

// sealTail gives the last node an exact allocation: a new node is
// about to follow it (lpShrinkToFit).
func (s *stream) sealTail(c *idCursor[nodeRef]) {
	if s.tail == nil || cap(s.tail) == len(s.tail) {
		s.tail = nil
		return
	}
	lp := append(make([]byte, 0, len(s.tail)), s.tail...)
	s.lpBytes += lpAlloc(lp) - lpAlloc(s.tail)
	*c.Val() = refOf(lp)
	s.tail = nil
}

// removeNode drops the node at c, leaving c on the next node.
func (s *stream) removeNode(c *idCursor[nodeRef]) {
	r := *c.Val()
	s.lpBytes -= lpAlloc(s.nodeLP(c))
	if s.tail != nil && r.p == &s.tail[0] {
		s.tail = nil
	}
	s.raxNodes = 0
	c.DeleteAt()
}

// deleteEntry is streamDeleteItem: it marks the live entry id deleted
// (removing its node when that was the node's last live entry) and
// reports whether there was one.
func (s *stream) deleteEntry(id streamID) bool {
	c, e, ok := s.findEntry(id)
	if !ok {
		return false
	}
	s.markDeleted(&c, &e)
	return true
}

// markDeleted is streamIteratorRemoveEntry for entry e of the node at c.
func (s *stream) markDeleted(c *idCursor[nodeRef], e *streamEntry) {
	lp := s.nodeLP(c)
	m := readMaster(lp)
	s.length--
	if m.count == 1 {
		s.removeNode(c)
		return
	}
	lp = vlpReplaceInt(lp, e.flagsAt, e.flags|streamFlagDeleted)
	p := vlpFirst(lp)
	lp = vlpReplaceInt(lp, p, m.count-1)
	p = vlpNext(lp, p)
	lp = vlpReplaceInt(lp, p, m.deleted+1)
	s.setNode(c, lp)
}

// edgeID is streamGetEdgeID: the first (or last) entry's ID, tombstones
// included unless skipTombs; when there is none, the greatest ID (first)
// or 0-0 (last).
func (s *stream) edgeID(first, skipTombs bool) streamID {
	var id streamID
	found := false
	s.iterate(streamID{}, maxStreamID, !first, !skipTombs, func(e *streamEntry) bool {
		id, found = e.id, true
		return false
	})
	if !found {
		if first {
			return maxStreamID
		}
		return streamID{}
	}
	return id
}

// lastValidID is streamLastValidID: the last live entry's ID.
func (s *stream) lastValidID() streamID { return s.edgeID(false, true) }

// nodeLimits are stream-node-max-bytes and stream-node-max-entries.
type nodeLimits struct{ maxBytes, maxEntries int64 }

// appendEntry is streamAppendItem's storage part: it adds an entry with
// id (greater than lastID, checked by the caller) and the field-value
// pairs of args, to the tail node or a new one.
func (s *stream) appendEntry(id streamID, args [][]byte, lim nodeLimits) {
	numFields := len(args) / 2
	totLen := 0
	for _, a := range args {
		totLen += len(a)
	}
	var c idCursor[nodeRef]
	var lp []byte
	if s.nodes.Len() > 0 {
		c = s.nodes.End()
		lp = s.nodeLP(&c)
		maxBytes := lim.maxBytes
		if maxBytes == 0 || maxBytes > streamListpackMax {
			maxBytes = streamListpackMax
		}
		full := int64(len(lp)+totLen) >= maxBytes
		if !full && lim.maxEntries != 0 {
			m := readMaster(lp)
			full = m.count+m.deleted >= lim.maxEntries
		}
		if full {
			s.sealTail(&c)
			lp = nil
		}
	}
	flags := int64(0)
	var master streamID
	if lp == nil {
		master = id
		size := vlpHdr + 1 + 3*2 + 2
		for i := 0; i < len(args); i += 2 {
			size += vlpStrSize(args[i])
		}
		entrySize := 3*3 + 2
		for i := 1; i < len(args); i += 2 {
			entrySize += vlpStrSize(args[i])
		}
		// Room for a few more entries like this one, within the node's
		// byte limit.
		hint := entrySize * 4
		if lim.maxBytes > 0 && int64(size+hint) > lim.maxBytes {
			hint = max(entrySize, int(lim.maxBytes)-size)
		}
		lp = vlpNew(size + hint)
		lp = vlpAppendInt(lp, 1)
		lp = vlpAppendInt(lp, 0)
		lp = vlpAppendInt(lp, int64(numFields))
		for i := 0; i < len(args); i += 2 {
			lp = vlpAppendStr(lp, args[i])
		}
		lp = vlpAppendInt(lp, 0)
		flags |= streamFlagSameFields
		s.nodes.Insert(id, nodeRef{})
		s.raxNodes = 0
		c = s.nodes.End()
	} else {
		master = c.ID()
		p := vlpFirst(lp)
		count := vlpInt(lp, p)
		lp = vlpReplaceInt(lp, p, count+1)
		p = vlpNext(lp, p) // deleted
		p = vlpNext(lp, p) // num-fields
		mf := int(vlpInt(lp, p))
		if mf == numFields {
			same := true
			for i := range mf {
				p = vlpNext(lp, p)
				if !vlpEqual(lp, p, args[2*i]) {
					same = false
					break
				}
			}
			if same {
				flags |= streamFlagSameFields
			}
		}
	}
	lp = vlpAppendInt(lp, flags)
	lp = vlpAppendInt(lp, int64(id.ms-master.ms))
	lp = vlpAppendInt(lp, int64(id.seq-master.seq))
	same := flags&streamFlagSameFields != 0
	if !same {
		lp = vlpAppendInt(lp, int64(numFields))
	}
	for i := 0; i < len(args); i += 2 {
		if !same {
			lp = vlpAppendStr(lp, args[i])
		}
		lp = vlpAppendStr(lp, args[i+1])
	}
	lpCount := int64(numFields + 3)
	if !same {
		lpCount += int64(numFields + 1)
	}
	lp = vlpAppendInt(lp, lpCount)
	s.setNode(&c, lp)
	s.length++
	s.entriesAdded++
	s.lastID = id
	if s.length == 1 {
		s.firstID = id
	}
}

// Trim strategies.
const (
	trimNone = iota
	trimMaxLen
	trimMinID
)

// trimArgs are XADD's and XTRIM's trimming options (streamAddTrimArgs).
type trimArgs struct {
	strategy int
	argIdx   int // argv index of the count or ID, for rewriting
	approx   bool
	limit    int64
	maxLen   int64
	minID    streamID
}

// trim is streamTrim: it removes entries from the head by a.strategy and
// returns how many.
func (s *stream) trim(a *trimArgs) int64 {
	if a.strategy == trimNone {
		return 0
	}
	var deleted int64
	c := s.nodes.Start()
	for c.Valid() {
		if a.strategy == trimMaxLen && s.length <= uint64(a.maxLen) {
			break
		}
		lp := s.nodeLP(&c)
		m := readMaster(lp)
		entries := m.count
		if a.limit != 0 && deleted+entries > a.limit {
			break
		}
		var remove bool
		master := c.ID()
		if a.strategy == trimMaxLen {
			remove = s.length-uint64(entries) >= uint64(a.maxLen)
		} else {
			last := master
			forEachInNode(master, lp, true, func(e *streamEntry) bool {
				last = e.id
				return false
			})
			remove = last.cmp(a.minID) < 0
		}
		if remove {
			s.removeNode(&c)
			s.length -= uint64(entries)
			deleted += entries
			continue
		}
		if a.approx {
			break
		}
		// Mark entries deleted inside this node, then stop.
		var fromLP int64
		type mark struct {
			at    int
			flags int64
		}
		var marks []mark
		forEachInNode(master, lp, false, func(e *streamEntry) bool {
			var stop bool
			if a.strategy == trimMaxLen {
				stop = s.length-uint64(len(marks)) <= uint64(a.maxLen)
			} else {
				stop = e.id.cmp(a.minID) >= 0
			}
			if stop {
				return false
			}
			if !e.deleted() {
				marks = append(marks, mark{e.flagsAt, e.flags})
			}
			return true
		})
		// Flags are small integers: replacing one never moves the
		// others, so the offsets stay valid.
		for _, mk := range marks {
			lp = vlpReplaceInt(lp, mk.at, mk.flags|streamFlagDeleted)
		}
		fromLP = int64(len(marks))
		s.length -= uint64(fromLP)
		deleted += fromLP
		p := vlpFirst(lp)
		lp = vlpReplaceInt(lp, p, entries-fromLP)
		p = vlpNext(lp, p)
		lp = vlpReplaceInt(lp, p, m.deleted+fromLP)
		s.setNode(&c, lp)
		break
	}
	if s.length == 0 {
		s.firstID = streamID{}
	} else if deleted > 0 {
		s.firstID = s.edgeID(true, true)
	}
	return deleted
}

// ---- Consumer groups ----------------------------------------------------

// group finds a consumer group by name.
func (s *stream) group(name []byte) *streamCG {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g *streamCG, n []byte) int { return bytes.Compare(g.name, n) })
	if !ok {
		return nil
	}
	return s.groups[i]
}

// createGroup is streamCreateCG: nil if the name is taken.
func (s *stream) createGroup(name []byte, last streamID, entriesRead int64) *streamCG {
	i, ok := slices.BinarySearchFunc(s.groups, name, func(g *streamCG, n []byte) int { return bytes.Compare(g.name, n) })
	if ok {
		return nil
	}
	g := &streamCG{name: append([]byte(nil), name...), lastID: last, entriesRead: entriesRead}
	g.pel.acct = &s.mem
	old := int64(ds.AllocSize(cap(s.groups) * 8))
	s.groups = slices.Insert(s.groups, i, g)
	s.mem += int64(ds.AllocSize(cap(s.groups)*8)) - old + cgBase + int64(ds.AllocSize(len(g.name)))
	return g
}

// destroyGroup removes a group with its consumers and PEL.
func (s *stream) destroyGroup(g *streamCG) {
	i := slices.Index(s.groups, g)
	for _, c := range g.consumers {
		c.pel.release()
		s.mem -= consumerBase + int64(ds.AllocSize(len(c.name)))
	}
	s.mem -= int64(ds.AllocSize(cap(g.consumers) * 8))
	s.mem -= int64(g.pel.Len()) * nackBytes
	g.pel.release()
	s.mem -= cgBase + int64(ds.AllocSize(len(g.name)))
	old := int64(ds.AllocSize(cap(s.groups) * 8))
	s.groups = slices.Delete(s.groups, i, i+1)
	s.mem += int64(ds.AllocSize(cap(s.groups)*8)) - old
}

// consumer finds a consumer of g by name.
func (g *streamCG) consumer(name []byte) *streamConsumer {
	i, ok := slices.BinarySearchFunc(g.consumers, name, func(c *streamConsumer, n []byte) int { return bytes.Compare(c.name, n) })
	if !ok {
		return nil
	}
	return g.consumers[i]
}

// createConsumer adds a consumer (nil if it exists) seen at now.
func (s *stream) createConsumer(g *streamCG, name []byte, now int64) *streamConsumer {
	i, ok := slices.BinarySearchFunc(g.consumers, name, func(c *streamConsumer, n []byte) int { return bytes.Compare(c.name, n) })
	if ok {
		return nil
	}
	c := &streamConsumer{name: append([]byte(nil), name...), seenTime: now, activeTime: -1}
	c.pel.acct = &s.mem
	old := int64(ds.AllocSize(cap(g.consumers) * 8))
	g.consumers = slices.Insert(g.consumers, i, c)
	s.mem += int64(ds.AllocSize(cap(g.consumers)*8)) - old + consumerBase + int64(ds.AllocSize(len(c.name)))
	return c
}

// deleteConsumer is streamDelConsumer: its pending entries leave the
// group's PEL too.
func (s *stream) deleteConsumer(g *streamCG, c *streamConsumer) {
	c.pel.Range(func(id streamID, _ **streamNACK) bool {
		g.pel.Delete(id)
		s.mem -= nackBytes
		return true
	})
	c.pel.release()
	i := slices.Index(g.consumers, c)
	old := int64(ds.AllocSize(cap(g.consumers) * 8))
	g.consumers = slices.Delete(g.consumers, i, i+1)
	s.mem += int64(ds.AllocSize(cap(g.consumers)*8)) - old
	s.mem -= consumerBase + int64(ds.AllocSize(len(c.name)))
}

// newNACK makes a delivery record (streamCreateNACK).
func (s *stream) newNACK(c *streamConsumer, now int64) *streamNACK {
	s.mem += nackBytes
	return &streamNACK{deliveryTime: now, deliveryCount: 1, consumer: c}
}

// dropNACK removes id's record from the group's and its consumer's PELs.
func (s *stream) dropNACK(g *streamCG, id streamID, n *streamNACK) {
	g.pel.Delete(id)
	if n.consumer != nil {
		n.consumer.pel.Delete(id)
	}
	s.mem -= nackBytes
}

// ---- Lag and read counters (Valkey 7) -----------------------------------

// rangeHasTombstones is streamRangeHasTombstones for [start, +inf): a
// tombstone (the greatest deleted ID) at or after start that is not
// before the first entry.
func (s *stream) rangeHasTombstones(start streamID) bool {
	if s.length == 0 || s.maxDeleted.isZero() || s.firstID.cmp(s.maxDeleted) > 0 {
		return false
	}
	return start.cmp(s.maxDeleted) <= 0
}

// estimateDistance is streamEstimateDistanceFromFirstEverEntry.
func (s *stream) estimateDistance(id streamID) int64 {
	if s.entriesAdded == 0 {
		return 0
	}
	if s.length == 0 && id.cmp(s.lastID) < 1 {
		return int64(s.entriesAdded)
	}
	switch id.cmp(s.lastID) {
	case 0:
		return int64(s.entriesAdded)
	case 1:
		return invalidEntriesRead
	}
	cmpFirst := id.cmp(s.firstID)
	if s.maxDeleted.isZero() || s.maxDeleted.cmp(s.firstID) < 0 {
		if cmpFirst < 0 {
			return int64(s.entriesAdded - s.length)
		} else if cmpFirst == 0 {
			return int64(s.entriesAdded - s.length + 1)
		}
	}
	return invalidEntriesRead
}

// lag is streamReplyWithCGLag's value; ok false for a null reply.
func (s *stream) lag(g *streamCG) (int64, bool) {
	switch {
	case s.entriesAdded == 0:
		return 0, true
	case g.entriesRead != invalidEntriesRead && !s.rangeHasTombstones(g.lastID):
		return int64(s.entriesAdded) - g.entriesRead, true
	}
	if er := s.estimateDistance(g.lastID); er != invalidEntriesRead {
		return int64(s.entriesAdded) - er, true
	}
	return 0, false
}

// advanceGroup moves g's last delivered ID to id (greater than it) and
// keeps its read counter, as Valkey 8.0.1's streamReplyWithRange does for
// each entry it delivers: counted on while no tombstone lies at or after
// id, estimated otherwise. (Later Valkeys also check the group's last ID
// against the first entry, and estimate nothing before a tombstone;
// 8.0.1 does neither, and neither does this.)
func (s *stream) advanceGroup(g *streamCG, id streamID) {
	if g.entriesRead != invalidEntriesRead && !s.rangeHasTombstones(id) {
		g.entriesRead++
	} else if s.entriesAdded != 0 {
		g.entriesRead = s.estimateDistance(id)
	}
	g.lastID = id
}
