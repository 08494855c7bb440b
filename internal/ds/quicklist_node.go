package ds

import "unsafe"

// qlNode is one quicklist node: a run of packed entries (listpack.go) kept
// in b[off:end]. The buffer is a gap buffer: free space may sit on both
// sides of the data, so pushing onto whichever end the list grows from
// writes the new entry into the free space without moving the others. A
// node that receives only LPUSHes keeps its data at the end of its buffer,
// one that receives RPUSHes at the start.
type qlNode struct {
	// p and bcap are the buffer ([]byte without its length word, which
	// keeps the struct at 32 bytes: this is 0.4% of a list of 128-byte
	// values). p points to the start of the allocation, so it keeps it
	// alive like a slice would.
	p     *byte
	bcap  int32
	off   int32
	end   int32
	count int32
	// sz is the node's size as a Valkey listpack (lpBytes), or, for a
	// plain node, the element's length, as in quicklist.c.
	sz int32
	// plain marks a node that holds one element too large to share a node
	// (QUICKLIST_NODE_CONTAINER_PLAIN).
	plain bool
	// lzf marks a compressed node (QUICKLIST_NODE_ENCODING_LZF): its
	// data is a raw length and the LZF stream of its entries, and none of
	// the methods below may be called on it (quicklist_compress.go).
	lzf bool
	// noCompress marks an interior node that compression did not shrink
	// enough; it is not tried again until the node changes.
	noCompress bool
	// state marks the inline node of a quicklist-encoded Quicklist: not
	// a node, p is the list's *qlState (Quicklist.ql).
	state bool
}

// buf returns the node's whole buffer.
func (n *qlNode) buf() []byte {
	if n.p == nil {
		return nil
	}
	return unsafe.Slice(n.p, n.bcap)
}

// setBuf makes b's backing array (up to its capacity) the node's buffer.
func (n *qlNode) setBuf(b []byte) {
	b = b[:cap(b)]
	if len(b) == 0 {
		n.p, n.bcap = nil, 0
		return
	}
	n.p, n.bcap = &b[0], int32(len(b))
}

// Placement of the data when a node's buffer is reallocated.
const (
	placeStart  = iota // free space after the data (the node grows at its tail)
	placeEnd           // free space before the data (it grows at its head)
	placeCenter        // both
)

func newQLNode() *qlNode { return &qlNode{sz: vlpEmptySize} }

// data returns the packed entries.
func (n *qlNode) data() []byte { return n.buf()[n.off:n.end] }

func (n *qlNode) used() int { return int(n.end - n.off) }

// seek returns the byte offset (into b) of the entry with in-node index i,
// walking from whichever end is nearer.
func (n *qlNode) seek(i int) int {
	if i <= int(n.count)/2 {
		p := int(n.off)
		for ; i > 0; i-- {
			p = lpSkip(n.buf(), p)
		}
		return p
	}
	p := int(n.end)
	for j := int(n.count); j > i; j-- {
		_, p = lpGetBack(n.buf(), p)
	}
	return p
}

// openGap makes k free bytes at byte offset pos (off <= pos <= end) and
// returns the offset of the gap, which moves if the data had to. where says
// how to lay out the data if the buffer must grow; capHint, if positive, is
// the capacity a growing node should reach in one step (the node size limit
// of a quicklist, so a full node is one exact allocation).
func (n *qlNode) openGap(pos, k, where, capHint int) int {
	off, end, c := int(n.off), int(n.end), int(n.bcap)
	switch {
	case pos == off && off >= k:
		n.off -= int32(k)
		return pos - k
	case pos == end && c-end >= k:
		n.end += int32(k)
		return pos
	case c-end >= k && (end-pos <= pos-off || off < k):
		copy(n.buf()[pos+k:end+k], n.buf()[pos:end])
		n.end += int32(k)
		return pos
	case off >= k:
		copy(n.buf()[off-k:pos-k], n.buf()[off:pos])
		n.off -= int32(k)
		return pos - k
	}
	// Not enough room on either side: move to a bigger buffer.
	used := end - off
	need := used + k
	nc := 2 * c
	switch {
	case capHint > 0 && need <= capHint:
		nc = capHint
	case capHint > 0:
		nc = need + need/4
	}
	nc = allocSize(max(nc, need))
	nb := make([]byte, nc)
	var start int
	switch where {
	case placeStart:
		start = 0
	case placeEnd:
		start = nc - need
	default:
		start = (nc - need) / 2
	}
	// Copy [off,pos) then leave the gap then [pos,end).
	copy(nb[start:], n.buf()[off:pos])
	gap := start + (pos - off)
	copy(nb[gap+k:], n.buf()[pos:end])
	n.setBuf(nb)
	n.off = int32(start)
	n.end = int32(start + need)
	return gap
}

// closeGap removes bytes [pos, pos+k) by moving the shorter side.
func (n *qlNode) closeGap(pos, k int) {
	off, end := int(n.off), int(n.end)
	if pos-off < end-(pos+k) {
		copy(n.buf()[off+k:pos+k], n.buf()[off:pos])
		n.off += int32(k)
	} else {
		copy(n.buf()[pos:end-k], n.buf()[pos+k:end])
		n.end -= int32(k)
	}
	if n.off == n.end {
		// Empty: re-centre so the next push of either kind is cheap.
		mid := int32(int(n.bcap) / 2)
		n.off, n.end = mid, mid
	}
	n.maybeShrink()
}

// maybeShrink releases a buffer that lost most of its data (LTRIM of a big
// node, a plain node replaced by a small value).
func (n *qlNode) maybeShrink() {
	used := n.used()
	if int(n.bcap) > 256 && used < int(n.bcap)/4 {
		nc := allocSize(max(used+used/4, 32))
		nb := make([]byte, nc)
		start := (nc - used) / 2
		copy(nb[start:], n.data())
		n.setBuf(nb)
		n.off = int32(start)
		n.end = int32(start + used)
	}
}

// insertAt writes v as a new entry at byte offset pos.
func (n *qlNode) insertAt(pos int, v []byte, where, capHint int) {
	k := lpEntryLen(len(v))
	p := n.openGap(pos, k, where, capHint)
	lpPut(n.buf()[p:], v)
	n.count++
	if n.plain {
		n.sz = int32(len(v))
	} else {
		n.sz += int32(vlpEntrySize(v))
	}
}

// pushFront and pushBack add an entry at the node's head or tail.
func (n *qlNode) pushFront(v []byte, capHint int) {
	n.insertAt(int(n.off), v, placeEnd, capHint)
}

func (n *qlNode) pushBack(v []byte, capHint int) {
	n.insertAt(int(n.end), v, placeStart, capHint)
}

// deleteAt removes the entry at byte offset pos.
func (n *qlNode) deleteAt(pos int) {
	v, next := lpGet(n.buf(), pos)
	if !n.plain {
		n.sz -= int32(vlpEntrySize(v))
	}
	n.count--
	n.closeGap(pos, next-pos)
}

// deleteRange removes cnt entries starting at in-node index i.
func (n *qlNode) deleteRange(i, cnt int) {
	if cnt <= 0 {
		return
	}
	start := n.seek(i)
	p := start
	var vs int
	for j := 0; j < cnt; j++ {
		var v []byte
		v, p = lpGet(n.buf(), p)
		vs += vlpEntrySize(v)
	}
	n.count -= int32(cnt)
	if !n.plain {
		n.sz -= int32(vs)
	}
	n.closeGap(start, p-start)
}

// replaceAt overwrites the entry at byte offset pos with v.
func (n *qlNode) replaceAt(pos int, v []byte) {
	old, next := lpGet(n.buf(), pos)
	if !n.plain {
		n.sz += int32(vlpEntrySize(v) - vlpEntrySize(old))
	} else {
		n.sz = int32(len(v))
	}
	oldLen, newLen := next-pos, lpEntryLen(len(v))
	switch {
	case newLen > oldLen:
		// Open the extra room just after the old entry: whatever moves,
		// the old entry's bytes still end where the gap starts.
		pos = n.openGap(next, newLen-oldLen, placeCenter, 0) - oldLen
		lpPut(n.buf()[pos:], v)
	case newLen < oldLen:
		// Write the shorter entry in place, then drop the leftover bytes.
		lpPut(n.buf()[pos:], v)
		n.closeGap(pos+newLen, oldLen-newLen)
	default:
		lpPut(n.buf()[pos:], v)
	}
}

// clone returns a copy of the node with a tight buffer.
func (n *qlNode) clone() *qlNode {
	c := n.cloned()
	return &c
}

// cloned is clone by value (a listpack-encoded list's inline node).
func (n *qlNode) cloned() qlNode {
	c := *n
	c.setBuf(append(make([]byte, 0, n.used()), n.data()...))
	c.off, c.end = 0, int32(n.used())
	return c
}

// splitAt moves the entries from in-node index i onwards into a new node,
// which it returns.
func (n *qlNode) splitAt(i int) *qlNode {
	p := n.seek(i)
	nn := newQLNode()
	tail := n.buf()[p:n.end]
	nn.setBuf(append(make([]byte, 0, allocSize(len(tail))), tail...))
	nn.end = int32(len(tail))
	nn.count = n.count - int32(i)
	var vs int
	for q := 0; q < len(tail); {
		var v []byte
		v, q = lpGet(tail, q)
		vs += vlpEntrySize(v)
	}
	nn.sz = int32(vlpEmptySize + vs)
	n.sz -= int32(vs)
	n.count = int32(i)
	n.end = int32(p)
	n.maybeShrink()
	return nn
}

// appendNode moves all of b's entries to the end of n.
func (n *qlNode) appendNode(b *qlNode) {
	d := b.data()
	p := n.openGap(int(n.end), len(d), placeCenter, 0)
	copy(n.buf()[p:], d)
	n.count += b.count
	n.sz += b.sz - vlpEmptySize
}

// filter deletes up to limit entries equal to v (all when limit < 0),
// scanning from the head or the tail, and returns how many it deleted. It
// compacts the node in one pass: kept entries are copied over the deleted
// ones towards the end the scan started from.
func (n *qlNode) filter(v []byte, limit int, fromTail bool) int {
	removed, freed := 0, 0
	if !fromTail {
		w := int(n.off)
		for p := int(n.off); p < int(n.end); {
			e, next := lpGet(n.buf(), p)
			if limit != removed && string(e) == string(v) {
				removed++
				if !n.plain {
					freed += vlpEntrySize(e)
				}
			} else {
				if w != p {
					copy(n.buf()[w:], n.buf()[p:next])
				}
				w += next - p
			}
			p = next
		}
		n.end = int32(w)
	} else {
		w := int(n.end)
		for p := int(n.end); p > int(n.off); {
			e, start := lpGetBack(n.buf(), p)
			if limit != removed && string(e) == string(v) {
				removed++
				if !n.plain {
					freed += vlpEntrySize(e)
				}
			} else {
				size := p - start
				if w != p {
					copy(n.buf()[w-size:w], n.buf()[start:p])
				}
				w -= size
			}
			p = start
		}
		n.off = int32(w)
	}
	if removed > 0 {
		n.count -= int32(removed)
		n.sz -= int32(freed)
		if n.off == n.end {
			mid := int32(int(n.bcap) / 2)
			n.off, n.end = mid, mid
		}
		n.maybeShrink()
	}
	return removed
}
