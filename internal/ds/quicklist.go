package ds

import "strconv"

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
// Nodes are kept in a slice used as a deque (free slots at both ends), so
// pushing a node at either end is amortised O(1) and finding the node of an
// index is a walk over a contiguous array of pointers. The zero value is
// not usable; call NewQuicklist.
//
// With a compress depth (list-compress-depth) the nodes beyond that depth
// from either end are held LZF-compressed, as in Valkey
// (quicklist_compress.go).
//
// Byte slices returned by Head, Tail, Index, Range and Scan alias the
// nodes' buffers (or a decompressed copy of a compressed node) and are
// valid only until the next change to the list.
type Quicklist struct {
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
	// packed reports the listpack encoding.
	packed bool
	// The fields fit 64 bytes (quicklistMem), a size class: a small
	// list is this struct, a one-slot ring, one node and its buffer.
}

// quicklistMem is the heap of a Quicklist struct.
const quicklistMem = 64

// clampFill is quicklistSetFill's bound on a list's fill.
func clampFill(fill int) int16 { return int16(min(max(fill, -5), 1<<15-1)) }

// NewQuicklist returns an empty list in the listpack encoding.
func NewQuicklist() *Quicklist {
	return &Quicklist{packed: true}
}

// Len returns the number of elements.
func (q *Quicklist) Len() int { return q.count }

// IsListpack reports whether the list is in the listpack encoding.
func (q *Quicklist) IsListpack() bool { return q.packed }

// NodeCount returns the number of nodes.
func (q *Quicklist) NodeCount() int { return q.hi - q.lo }

func (q *Quicklist) nodes() []*qlNode { return q.ring[q.lo:q.hi] }

func (q *Quicklist) node(i int) *qlNode { return q.ring[q.lo+i] }

// MemUsage estimates the heap bytes held by the list. It is O(1).
func (q *Quicklist) MemUsage() int {
	return quicklistMem + allocSize(8*len(q.ring)) + q.nodeBytes
}

// nodeMem is the heap of one node: the qlNode (32-byte class) and its
// buffer.
func nodeMem(n *qlNode) int { return 32 + allocSize(int(n.bcap)) }

// recount recomputes nodeBytes from the nodes.
func (q *Quicklist) recount() {
	m := 0
	for _, n := range q.nodes() {
		m += nodeMem(n)
	}
	q.nodeBytes = m
}

// capHint is the buffer size a node should reach in one step: the node
// size limit in the quicklist encoding with a size-based fill, else none.
func (q *Quicklist) capHint() int {
	if q.packed || int(q.fill) >= 0 {
		return 0
	}
	return qlNegFillLimit(int(q.fill))
}

// PrepareGrow is listTypeTryConversionAppend: called before adding
// addCount elements of addBytes total length, it converts a listpack that
// would exceed the limit of cfg.Fill into a quicklist with cfg's fill and
// compress depth.
func (q *Quicklist) PrepareGrow(cfg ListConfig, addBytes, addCount int) {
	if !q.packed {
		return
	}
	sz := vlpEmptySize
	if q.NodeCount() > 0 {
		sz = int(q.node(0).sz)
	}
	if qlExceedsLimit(cfg.Fill, sz+addBytes, q.count+addCount) {
		q.packed = false
		q.fill = clampFill(cfg.Fill)
		q.compress = uint16(clampDepth(cfg.Compress))
		if q.count == 0 {
			q.clearNodes()
		}
	}
}

// TryShrink is listTypeTryConversion(LIST_CONV_SHRINKING): a quicklist of
// a single packed node of at most half the limit of fill becomes a
// listpack again.
func (q *Quicklist) TryShrink(fill int) {
	if q.packed || q.NodeCount() != 1 {
		return
	}
	n := q.node(0)
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
	q.packed = true
	q.compress = 0 // a lone node is raw; converting back takes the setting anew
}

// Clone returns a deep copy with tight buffers (COPY).
func (q *Quicklist) Clone() *Quicklist {
	c := &Quicklist{count: q.count, fill: q.fill, compress: q.compress, packed: q.packed}
	c.ring = make([]*qlNode, q.NodeCount())
	c.hi = len(c.ring)
	for i, n := range q.nodes() {
		c.ring[i] = n.clone()
	}
	c.recount()
	return c
}

func (q *Quicklist) clearNodes() {
	q.ring, q.lo, q.hi = nil, 0, 0
	q.nodeBytes = 0
}

// insertNode puts n at node position i (0 <= i <= NodeCount()), shifting
// whichever side of i is shorter.
func (q *Quicklist) insertNode(i int, n *qlNode) {
	q.nodeBytes += nodeMem(n)
	live := q.hi - q.lo
	front := i < live-i
	if front && q.lo == 0 || !front && q.hi == len(q.ring) {
		q.relayout(live + 1)
	}
	at := q.lo + i
	if front {
		copy(q.ring[q.lo-1:at-1], q.ring[q.lo:at])
		q.lo--
		q.ring[at-1] = n
		return
	}
	copy(q.ring[at+1:q.hi+1], q.ring[at:q.hi])
	q.ring[at] = n
	q.hi++
}

// relayout centres the live nodes in a ring with room for at least need
// of them and free slots at both ends, growing it by 1.25x when it is more
// than about 4/5 full. Each relayout is followed by at least need/10 O(1)
// end insertions, so pushing nodes at either end is amortised O(1); the
// modest growth keeps the ring's slack small for huge lists. An empty
// list's ring gets one slot (a listpack-encoded list's one node), not 8.
func (q *Quicklist) relayout(need int) {
	live := q.hi - q.lo
	size := len(q.ring)
	if need+need/5+2 > size {
		size = max(8, size+size/4, need+need/4+2)
		if need == 1 {
			// The first node of an empty list: a listpack-encoded list
			// never has a second, and one that does grows the ring then.
			size = 1
		}
	}
	lo := (size - live) / 2
	if size == len(q.ring) {
		copy(q.ring[lo:lo+live], q.ring[q.lo:q.hi])
		clear(q.ring[:lo])
		clear(q.ring[lo+live:])
	} else {
		nr := make([]*qlNode, size)
		copy(nr[lo:], q.ring[q.lo:q.hi])
		q.ring = nr
	}
	q.lo, q.hi = lo, lo+live
}

// removeNode drops the node at position i.
func (q *Quicklist) removeNode(i int) {
	q.nodeBytes -= nodeMem(q.node(i))
	at := q.lo + i
	live := q.hi - q.lo
	if i < live/2 {
		copy(q.ring[q.lo+1:at+1], q.ring[q.lo:at])
		q.ring[q.lo] = nil
		q.lo++
	} else {
		copy(q.ring[at:q.hi-1], q.ring[at+1:q.hi])
		q.hi--
		q.ring[q.hi] = nil
	}
	live--
	if live == 0 {
		q.clearNodes()
		return
	}
	if len(q.ring) > 16 && live < len(q.ring)/8 {
		nr := make([]*qlNode, 2*live+2)
		lo := (len(nr) - live) / 2
		copy(nr[lo:], q.ring[q.lo:q.hi])
		q.ring, q.lo, q.hi = nr, lo, lo+live
	}
}

// locate returns the node position and in-node index of element i
// (0 <= i < Len), walking from the nearer end.
func (q *Quicklist) locate(i int) (ni, ei int) {
	if i < q.count/2 {
		for ni = 0; ; ni++ {
			c := int(q.node(ni).count)
			if i < c {
				return ni, i
			}
			i -= c
		}
	}
	r := q.count - 1 - i // index from the tail
	for ni = q.NodeCount() - 1; ; ni-- {
		c := int(q.node(ni).count)
		if r < c {
			return ni, c - 1 - r
		}
		r -= c
	}
}

// PushHead adds v before the first element. Call PrepareGrow first.
func (q *Quicklist) PushHead(v []byte) {
	q.count++
	if q.packed {
		if q.NodeCount() == 0 {
			q.insertNode(0, newQLNode())
		}
		h := q.node(0)
		before := nodeMem(h)
		h.pushFront(v, 0)
		q.nodeBytes += nodeMem(h) - before
		return
	}
	sz := len(v)
	if qlIsLarge(sz, int(q.fill)) {
		q.insertNode(0, newPlainNode(v))
		if q.compress > 0 {
			q.settle()
		}
		return
	}
	var h *qlNode
	if q.NodeCount() > 0 {
		h = q.node(0) // raw: within the compress depth
	}
	if !qlAllowInsert(h, int(q.fill), sz) {
		h = newQLNode()
		q.insertNode(0, h)
		if q.compress > 0 {
			q.settle()
		}
	}
	before := nodeMem(h)
	h.pushFront(v, q.capHint())
	q.nodeBytes += nodeMem(h) - before
}

// PushTail adds v after the last element. Call PrepareGrow first.
func (q *Quicklist) PushTail(v []byte) {
	q.count++
	if q.packed {
		if q.NodeCount() == 0 {
			q.insertNode(0, newQLNode())
		}
		t := q.node(0)
		before := nodeMem(t)
		t.pushBack(v, 0)
		q.nodeBytes += nodeMem(t) - before
		return
	}
	sz := len(v)
	if qlIsLarge(sz, int(q.fill)) {
		q.insertNode(q.NodeCount(), newPlainNode(v))
		if q.compress > 0 {
			q.settle()
		}
		return
	}
	var t *qlNode
	if q.NodeCount() > 0 {
		t = q.node(q.NodeCount() - 1) // raw: within the compress depth
	}
	if !qlAllowInsert(t, int(q.fill), sz) {
		t = newQLNode()
		q.insertNode(q.NodeCount(), t)
		if q.compress > 0 {
			q.settle()
		}
	}
	before := nodeMem(t)
	t.pushBack(v, q.capHint())
	q.nodeBytes += nodeMem(t) - before
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
	q.count--
	if n.plain || n.count == 1 {
		q.removeNode(ni)
		if q.compress > 0 {
			q.settle()
		}
		return true
	}
	before := nodeMem(n)
	n.deleteAt(p)
	q.nodeBytes += nodeMem(n) - before
	return false
}

// Index returns element i; negative i counts from the tail.
func (q *Quicklist) Index(i int) ([]byte, bool) {
	if i < 0 {
		i += q.count
	}
	if i < 0 || i >= q.count {
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
	if q.packed {
		return ""
	}
	n := q.NodeCount()
	avg := 0.0
	if n > 0 {
		avg = float64(q.count) / float64(n)
	}
	sz := 0
	for _, nd := range q.nodes() {
		sz += int(nd.sz)
	}
	b := make([]byte, 0, 120)
	b = append(b, " ql_nodes:"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, " ql_avg_node:"...)
	b = strconv.AppendFloat(b, avg, 'f', 2, 64)
	b = append(b, " ql_listpack_max:"...)
	b = strconv.AppendInt(b, int64(q.fill), 10)
	b = append(b, " ql_compressed:"...)
	if q.compress != 0 {
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
	for _, n := range q.nodes() {
		if n.plain {
			dst = append(dst, -1)
		} else {
			dst = append(dst, int(n.count))
		}
	}
	return dst
}
