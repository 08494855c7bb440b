package ds

import (
	"strconv"
	"unsafe"
)

// Quicklist is the value of a list: a sequence of qlNodes, each a packed run
// of entries, as Valkey's quicklist of listpacks. It has Valkey's two
// encodings:
//
//   - "listpack": one node and no node limit; used while the whole list is
//     within list-max-listpack-size (PrepareGrow converts before an add
//     would exceed it);
//   - "quicklist": nodes are filled up to the limit that was configured
//     when the list converted, elements too large for a node get a plain
//     node of their own, and a list that shrinks back to one small node
//     turns into a listpack again (TryShrink).
//
// Every decision uses the sizes the entries would have in Valkey's listpack
// (quicklist_size.go), so node boundaries and OBJECT ENCODING follow
// Valkey for the same sequence of commands.
//
// Layout. A list in the listpack encoding is this struct (32 bytes, a
// size class: quicklistMem) and its node's buffer, nothing else: the
// struct is the node (one). The node's count is the list's length; an
// empty list's node is the zero qlNode (no buffer), so the zero Quicklist
// is an empty listpack-encoded list. A list in the quicklist encoding
// keeps its nodes and the state only that encoding needs (the node deque,
// the length, the heap held by the nodes, fill and compress depth) in a
// qlState, and one then only points to it: one.state is set and one.p is
// the *qlState (the collector follows it as any pointer to the start of
// an object), all else zero. The conversions move the node between the
// two places (one 32-byte allocation, and the qlState's, when a list
// becomes a quicklist); the node's buffer stays where it is.
//
// The nodes of a quicklist are kept in a slice used as a deque (free slots
// at both ends), so pushing a node at either end is amortised O(1) and
// finding the node of an index is a walk over a contiguous array of
// pointers.
//
// With a compress depth (list-compress-depth) the nodes beyond that depth
// from either end are held LZF-compressed, as in Valkey
// (quicklist_compress.go). A listpack-encoded list has depth 0.
//
// Byte slices returned by Head, Tail, Index, Range and Scan alias the
// nodes' buffers (or a decompressed copy of a compressed node) and are
// valid only until the next change to the list.
type Quicklist struct {
	// one is the node of a listpack-encoded list, the zero qlNode when
	// the list is empty; in the quicklist encoding, the pointer to the
	// qlState (ql, setQL).
	one qlNode
}

// ql returns the quicklist encoding's state, nil in the listpack
// encoding.
func (q *Quicklist) ql() *qlState {
	if !q.one.state {
		return nil
	}
	return (*qlState)(unsafe.Pointer(q.one.p))
}

// setQL puts the list in the quicklist encoding with state s, dropping
// the inline node (whose buffer, if any, must have moved to s).
func (q *Quicklist) setQL(s *qlState) {
	q.one = qlNode{p: (*byte)(unsafe.Pointer(s)), state: true}
}

// qlState is a quicklist-encoded list's nodes and settings.
type qlState struct {
	ring   []*qlNode // live nodes are ring[lo:hi]
	lo, hi int
	count  int
	// nodeBytes is the heap held by the live nodes (struct plus buffer,
	// nodeMem), kept up to date so that MemUsage is O(1): push and pop
	// adjust it for the node they touch, the rarer edits (quicklist_edit.go)
	// recount it.
	nodeBytes int
	// fill is list-max-listpack-size as it was when the list became a
	// quicklist, clamped to [-5, 32767] as quicklistSetFill does;
	// quicklist.c keeps it per list in the same way.
	fill int16
	// compress is list-compress-depth as it was when the list became a
	// quicklist (clamped to QuicklistMaxDepth): the number of nodes at
	// each end kept raw, the others being compressed
	// (quicklist_compress.go). 0 turns compression off.
	compress uint16
}

// quicklistMem and qlStateMem are the heap of a Quicklist and of a qlState
// (their size classes; TestQuicklistLayout pins them).
const (
	quicklistMem = 32
	qlStateMem   = 64
)

// clampFill is quicklistSetFill's bound on a list's fill.
func clampFill(fill int) int16 { return int16(min(max(fill, -5), 1<<15-1)) }

// NewQuicklist returns an empty list in the listpack encoding.
func NewQuicklist() *Quicklist { return new(Quicklist) }

// Len returns the number of elements.
func (q *Quicklist) Len() int {
	if q.ql() == nil {
		return int(q.one.count)
	}
	return q.ql().count
}

// IsListpack reports whether the list is in the listpack encoding.
func (q *Quicklist) IsListpack() bool { return q.ql() == nil }

// NodeCount returns the number of nodes.
func (q *Quicklist) NodeCount() int {
	if q.ql() == nil {
		if q.one.count == 0 {
			return 0
		}
		return 1
	}
	return q.ql().hi - q.ql().lo
}

// node returns node i (0 <= i < NodeCount()).
func (q *Quicklist) node(i int) *qlNode {
	if q.ql() == nil {
		return &q.one
	}
	return q.ql().ring[q.ql().lo+i]
}

func (s *qlState) nodes() []*qlNode { return s.ring[s.lo:s.hi] }

// depth is the compress depth: 0 in the listpack encoding.
func (q *Quicklist) depth() int {
	if q.ql() == nil {
		return 0
	}
	return int(q.ql().compress)
}

// addCount adds d to the length of a quicklist-encoded list; a listpack's
// length is its node's count, which the node's methods keep.
func (q *Quicklist) addCount(d int) {
	if q.ql() != nil {
		q.ql().count += d
	}
}

// addBytes adds d to the nodes' heap of a quicklist-encoded list; a
// listpack's is read from its node.
func (q *Quicklist) addBytes(d int) {
	if q.ql() != nil {
		q.ql().nodeBytes += d
	}
}

// MemUsage estimates the heap bytes held by the list. It is O(1).
func (q *Quicklist) MemUsage() int {
	s := q.ql()
	if s == nil {
		return quicklistMem + allocSize(int(q.one.bcap))
	}
	return quicklistMem + qlStateMem + allocSize(8*len(s.ring)) + s.nodeBytes
}

// nodeMem is the heap of one node of a quicklist: the qlNode (32-byte
// class) and its buffer.
func nodeMem(n *qlNode) int { return 32 + allocSize(int(n.bcap)) }

// recount recomputes nodeBytes from the nodes.
func (q *Quicklist) recount() {
	s := q.ql()
	if s == nil {
		return
	}
	m := 0
	for _, n := range s.nodes() {
		m += nodeMem(n)
	}
	s.nodeBytes = m
}

// capHint is the buffer size a node should reach in one step: the node
// size limit in the quicklist encoding with a size-based fill, else none.
func (q *Quicklist) capHint() int {
	if q.ql() == nil || q.ql().fill >= 0 {
		return 0
	}
	return qlNegFillLimit(int(q.ql().fill))
}

// PrepareGrow is listTypeTryConversionAppend: called before adding
// addCount elements of addBytes total length, it converts a listpack that
// would exceed the limit of cfg.Fill into a quicklist with cfg's fill and
// compress depth.
func (q *Quicklist) PrepareGrow(cfg ListConfig, addBytes, addCount int) {
	if q.ql() != nil {
		return
	}
	sz, count := vlpEmptySize, int(q.one.count)
	if count > 0 {
		sz = int(q.one.sz)
	}
	if !qlExceedsLimit(cfg.Fill, sz+addBytes, count+addCount) {
		return
	}
	s := &qlState{count: count, fill: clampFill(cfg.Fill), compress: uint16(clampDepth(cfg.Compress))}
	if count > 0 {
		n := new(qlNode)
		*n = q.one
		q.one = qlNode{}
		s.insertNode(0, n)
	}
	q.setQL(s)
}

// TryShrink is listTypeTryConversion(LIST_CONV_SHRINKING): a quicklist of
// a single packed node of at most half the limit of fill becomes a
// listpack again.
func (q *Quicklist) TryShrink(fill int) {
	s := q.ql()
	if s == nil || s.hi-s.lo != 1 {
		return
	}
	n := s.ring[s.lo]
	if n.plain {
		return
	}
	size, count := qlNodeLimit(fill)
	if size >= 0 && int(n.sz) > size/2 {
		return
	}
	if size < 0 && count >= 0 && int(n.count) > count/2 {
		return
	}
	q.touch(n) // an end node is raw; this only forgets a failed compression
	// The node replaces the pointer to the state; the list drops its
	// compress depth: converting back takes the setting anew.
	q.one = *n
}

// Clone returns a deep copy with tight buffers (COPY).
func (q *Quicklist) Clone() *Quicklist {
	s := q.ql()
	if s == nil {
		return &Quicklist{one: q.one.cloned()}
	}
	cs := &qlState{count: s.count, fill: s.fill, compress: s.compress}
	cs.ring = make([]*qlNode, s.hi-s.lo)
	cs.hi = len(cs.ring)
	for i, n := range s.nodes() {
		cs.ring[i] = n.clone()
	}
	c := new(Quicklist)
	c.setQL(cs)
	c.recount()
	return c
}

// removeNode drops the node at position i; in the listpack encoding the
// list is then empty.
func (q *Quicklist) removeNode(i int) {
	if q.ql() == nil {
		q.one = qlNode{}
		return
	}
	q.ql().removeNode(i)
}

func (s *qlState) clearNodes() {
	s.ring, s.lo, s.hi = nil, 0, 0
	s.nodeBytes = 0
}

// insertNode puts n at node position i (0 <= i <= number of nodes),
// shifting whichever side of i is shorter.
func (s *qlState) insertNode(i int, n *qlNode) {
	s.nodeBytes += nodeMem(n)
	live := s.hi - s.lo
	front := i < live-i
	if front && s.lo == 0 || !front && s.hi == len(s.ring) {
		s.relayout(live + 1)
	}
	at := s.lo + i
	if front {
		copy(s.ring[s.lo-1:at-1], s.ring[s.lo:at])
		s.lo--
		s.ring[at-1] = n
		return
	}
	copy(s.ring[at+1:s.hi+1], s.ring[at:s.hi])
	s.ring[at] = n
	s.hi++
}

// relayout centres the live nodes in a ring with room for at least need
// of them and free slots at both ends, growing it by 1.25x when it is more
// than about 4/5 full. Each relayout is followed by at least need/10 O(1)
// end insertions, so pushing nodes at either end is amortised O(1); the
// modest growth keeps the ring's slack small for huge lists. An empty
// ring gets one slot, not 8.
func (s *qlState) relayout(need int) {
	live := s.hi - s.lo
	size := len(s.ring)
	if need+need/5+2 > size {
		size = max(8, size+size/4, need+need/4+2)
		if need == 1 {
			// The first node of an empty ring: a list converted from a
			// listpack, or one whose first element is too large for
			// one, may never get a second; one that does grows the
			// ring then.
			size = 1
		}
	}
	lo := (size - live) / 2
	if size == len(s.ring) {
		copy(s.ring[lo:lo+live], s.ring[s.lo:s.hi])
		clear(s.ring[:lo])
		clear(s.ring[lo+live:])
	} else {
		nr := make([]*qlNode, size)
		copy(nr[lo:], s.ring[s.lo:s.hi])
		s.ring = nr
	}
	s.lo, s.hi = lo, lo+live
}

// removeNode drops the node at position i.
func (s *qlState) removeNode(i int) {
	at := s.lo + i
	s.nodeBytes -= nodeMem(s.ring[at])
	live := s.hi - s.lo
	if i < live/2 {
		copy(s.ring[s.lo+1:at+1], s.ring[s.lo:at])
		s.ring[s.lo] = nil
		s.lo++
	} else {
		copy(s.ring[at:s.hi-1], s.ring[at+1:s.hi])
		s.hi--
		s.ring[s.hi] = nil
	}
	live--
	if live == 0 {
		s.clearNodes()
		return
	}
	if len(s.ring) > 16 && live < len(s.ring)/8 {
		nr := make([]*qlNode, 2*live+2)
		lo := (len(nr) - live) / 2
		copy(nr[lo:], s.ring[s.lo:s.hi])
		s.ring, s.lo, s.hi = nr, lo, lo+live
	}
}

// locate returns the node position and in-node index of element i
// (0 <= i < Len), walking from the nearer end.
func (q *Quicklist) locate(i int) (ni, ei int) {
	s := q.ql()
	if s == nil {
		return 0, i
	}
	if i < s.count/2 {
		for ni = 0; ; ni++ {
			c := int(s.ring[s.lo+ni].count)
			if i < c {
				return ni, i
			}
			i -= c
		}
	}
	r := s.count - 1 - i // index from the tail
	for ni = s.hi - s.lo - 1; ; ni-- {
		c := int(s.ring[s.lo+ni].count)
		if r < c {
			return ni, c - 1 - r
		}
		r -= c
	}
}

// PushHead adds v before the first element. Call PrepareGrow first.
func (q *Quicklist) PushHead(v []byte) {
	s := q.ql()
	if s == nil {
		if q.one.count == 0 {
			q.one.sz = vlpEmptySize
		}
		q.one.pushFront(v, 0)
		return
	}
	s.count++
	sz := len(v)
	if qlIsLarge(sz, int(s.fill)) {
		s.insertNode(0, newPlainNode(v))
		if s.compress > 0 {
			q.settle()
		}
		return
	}
	var h *qlNode
	if s.hi > s.lo {
		h = s.ring[s.lo] // raw: within the compress depth
	}
	if !qlAllowInsert(h, int(s.fill), sz) {
		h = newQLNode()
		s.insertNode(0, h)
		if s.compress > 0 {
			q.settle()
		}
	}
	before := nodeMem(h)
	h.pushFront(v, q.capHint())
	s.nodeBytes += nodeMem(h) - before
}

// PushTail adds v after the last element. Call PrepareGrow first.
func (q *Quicklist) PushTail(v []byte) {
	s := q.ql()
	if s == nil {
		if q.one.count == 0 {
			q.one.sz = vlpEmptySize
		}
		q.one.pushBack(v, 0)
		return
	}
	s.count++
	sz := len(v)
	if qlIsLarge(sz, int(s.fill)) {
		s.insertNode(s.hi-s.lo, newPlainNode(v))
		if s.compress > 0 {
			q.settle()
		}
		return
	}
	var t *qlNode
	if s.hi > s.lo {
		t = s.ring[s.hi-1] // raw: within the compress depth
	}
	if !qlAllowInsert(t, int(s.fill), sz) {
		t = newQLNode()
		s.insertNode(s.hi-s.lo, t)
		if s.compress > 0 {
			q.settle()
		}
	}
	before := nodeMem(t)
	t.pushBack(v, q.capHint())
	s.nodeBytes += nodeMem(t) - before
}

func newPlainNode(v []byte) *qlNode {
	n := &qlNode{plain: true}
	n.setBuf(make([]byte, lpEntryLen(len(v))))
	n.end = int32(lpPut(n.buf(), v))
	n.count = 1
	n.sz = int32(len(v))
	return n
}

// Head returns the first element; the list must not be empty.
func (q *Quicklist) Head() []byte {
	n := q.node(0)
	v, _ := lpGet(n.buf(), int(n.off))
	return v
}

// Tail returns the last element; the list must not be empty.
func (q *Quicklist) Tail() []byte {
	n := q.node(q.NodeCount() - 1)
	v, _ := lpGetBack(n.buf(), int(n.end))
	return v
}

// PopHead removes the first element and returns it appended to dst.
func (q *Quicklist) PopHead(dst []byte) []byte {
	n := q.node(0)
	v, _ := lpGet(n.buf(), int(n.off))
	dst = append(dst, v...)
	q.delEntry(0, n, int(n.off))
	return dst
}

// PopTail removes the last element and returns it appended to dst.
func (q *Quicklist) PopTail(dst []byte) []byte {
	ni := q.NodeCount() - 1
	n := q.node(ni)
	v, p := lpGetBack(n.buf(), int(n.end))
	dst = append(dst, v...)
	q.delEntry(ni, n, p)
	return dst
}

// delEntry is quicklistDelIndex: removes the entry at byte offset p of
// node ni, dropping the node when it empties. It reports whether the node
// was dropped.
func (q *Quicklist) delEntry(ni int, n *qlNode, p int) bool {
	s := q.ql()
	if s == nil {
		if n.count == 1 {
			q.one = qlNode{}
			return true
		}
		n.deleteAt(p)
		return false
	}
	s.count--
	if n.plain || n.count == 1 {
		s.removeNode(ni)
		if s.compress > 0 {
			q.settle()
		}
		return true
	}
	before := nodeMem(n)
	n.deleteAt(p)
	s.nodeBytes += nodeMem(n) - before
	return false
}

// Index returns element i; negative i counts from the tail.
func (q *Quicklist) Index(i int) ([]byte, bool) {
	l := q.Len()
	if i < 0 {
		i += l
	}
	if i < 0 || i >= l {
		return nil, false
	}
	ni, ei := q.locate(i)
	n := q.view(ni)
	v, _ := lpGet(n.buf(), n.seek(ei))
	return v, true
}

// Range calls fn for n elements starting at index start (0 <= start <
// Len), towards the tail, or towards the head when reverse is set. fn must
// not change the list.
func (q *Quicklist) Range(start, n int, reverse bool, fn func(v []byte)) {
	if n <= 0 {
		return
	}
	ni, ei := q.locate(start)
	node := q.view(ni)
	p := node.seek(ei)
	if !reverse {
		for {
			for p < int(node.end) && n > 0 {
				var v []byte
				v, p = lpGet(node.buf(), p)
				fn(v)
				n--
			}
			if n == 0 {
				return
			}
			ni++
			node = q.view(ni)
			p = int(node.off)
		}
	}
	// Reverse: start with the element at p, then walk back.
	_, p = lpGet(node.buf(), p) // p is now the end of the start element
	for {
		for p > int(node.off) && n > 0 {
			var v []byte
			v, p = lpGetBack(node.buf(), p)
			fn(v)
			n--
		}
		if n == 0 {
			return
		}
		ni--
		node = q.view(ni)
		p = int(node.end)
	}
}

// Scan calls fn for every element from the head (or from the tail when
// fromTail is set) until fn returns false. fn must not change the list.
func (q *Quicklist) Scan(fromTail bool, fn func(v []byte) bool) {
	if !fromTail {
		for i := range q.NodeCount() {
			node := q.view(i)
			for p := int(node.off); p < int(node.end); {
				var v []byte
				v, p = lpGet(node.buf(), p)
				if !fn(v) {
					return
				}
			}
		}
		return
	}
	for i := q.NodeCount() - 1; i >= 0; i-- {
		node := q.view(i)
		for p := int(node.end); p > int(node.off); {
			var v []byte
			v, p = lpGetBack(node.buf(), p)
			if !fn(v) {
				return
			}
		}
	}
}

// DebugObjectExtra is what DEBUG OBJECT adds for a list in the quicklist
// encoding, as Valkey's: the node count, the average elements per node,
// the fill the list was built with, whether it compresses nodes (a
// compress depth is set, whether or not a node is compressed yet), and the
// nodes' total size as listpacks (plain nodes: their element's length).
func (q *Quicklist) DebugObjectExtra(fast bool) string {
	s := q.ql()
	if s == nil {
		return ""
	}
	n := q.NodeCount()
	avg := 0.0
	if n > 0 {
		avg = float64(s.count) / float64(n)
	}
	sz := 0
	for _, nd := range s.nodes() {
		sz += int(nd.sz)
	}
	b := make([]byte, 0, 120)
	b = append(b, " ql_nodes:"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, " ql_avg_node:"...)
	b = strconv.AppendFloat(b, avg, 'f', 2, 64)
	b = append(b, " ql_listpack_max:"...)
	b = strconv.AppendInt(b, int64(s.fill), 10)
	b = append(b, " ql_compressed:"...)
	if s.compress != 0 {
		b = append(b, '1')
	} else {
		b = append(b, '0')
	}
	b = append(b, " ql_uncompressed_size:"...)
	b = strconv.AppendInt(b, int64(sz), 10)
	return string(b)
}

// NodeCounts appends the list's node layout to dst and returns it: each
// node's number of elements, -1 for a plain node. A list in the listpack
// encoding is one node.
func (q *Quicklist) NodeCounts(dst []int) []int {
	for i := range q.NodeCount() {
		if n := q.node(i); n.plain {
			dst = append(dst, -1)
		} else {
			dst = append(dst, int(n.count))
		}
	}
	return dst
}
