package ds

import "bytes"

// Edits in the middle of a Quicklist: range deletion (LTRIM, LPOP count),
// removal by value (LREM), insertion next to a pivot (LINSERT) and
// replacement by index (LSET). They follow quicklist.c's node handling:
// deletions drop emptied nodes and never merge; an insertion into a full
// node uses a neighbour with room, a new node, or a split followed by
// merging; a replacement is made in place, unless the new value is large
// (it then gets a plain node, splitting the old one around it).
//
// With a compress depth, a compressed node is only decompressed for good
// (touch) when it is about to change; the edits end by compressing the
// interior nodes they changed or created again (settleAll; DelRange:
// settle and compressAt).

// DelRange removes n elements starting at index start (0 <= start); it is
// clipped to the end of the list.
func (q *Quicklist) DelRange(start, n int) {
	l := q.Len()
	if n <= 0 || start >= l {
		return
	}
	n = min(n, l-start)
	ni, ei := q.locate(start)
	first := ni
	depth := q.depth()
	for n > 0 {
		node := q.node(ni)
		c := int(node.count)
		if ei == 0 && n >= c || node.plain {
			q.addCount(-c)
			n -= c
			q.removeNode(ni)
			ei = 0
			continue
		}
		del := min(n, c-ei)
		if depth > 0 {
			q.touch(node)
		}
		before := nodeMem(node)
		node.deleteRange(ei, del)
		q.addBytes(nodeMem(node) - before)
		q.addCount(-del)
		n -= del
		if node.count == 0 {
			q.removeNode(ni)
		} else {
			ni++
		}
		ei = 0
	}
	if depth > 0 {
		// The nodes left partly deleted are the first one and the one
		// after it; the others are gone.
		q.settle()
		for i := first; i <= first+1 && i < q.NodeCount(); i++ {
			q.compressAt(i)
		}
	}
}

// Remove deletes up to count elements equal to v (all of them when count
// is 0), scanning from the head, or from the tail when fromTail is set. It
// returns how many it removed.
func (q *Quicklist) Remove(v []byte, count int, fromTail bool) int {
	// O(n) anyway: recount the nodes rather than track each step.
	defer q.settleAll()
	removed := 0
	limit := func() int {
		if count == 0 {
			return -1
		}
		return count - removed
	}
	var scratch []byte // decompressed nodes without v, reused
	if !fromTail {
		for ni := 0; ni < q.NodeCount() && limit() != 0; {
			node := q.node(ni)
			if !editable(node, v, &scratch) {
				ni++
				continue
			}
			k := node.filter(v, limit(), false)
			removed += k
			q.addCount(-k)
			if node.count == 0 {
				q.removeNode(ni)
				continue
			}
			ni++
		}
		return removed
	}
	for ni := q.NodeCount() - 1; ni >= 0 && limit() != 0; ni-- {
		node := q.node(ni)
		if !editable(node, v, &scratch) {
			continue
		}
		k := node.filter(v, limit(), true)
		removed += k
		q.addCount(-k)
		if node.count == 0 {
			q.removeNode(ni)
		}
	}
	return removed
}

// Insert puts v just before (or after, when after is set) the first element
// equal to pivot, scanning from the head. It reports whether the pivot was
// found.
func (q *Quicklist) Insert(pivot, v []byte, after bool) bool {
	// O(n) anyway: recount the nodes rather than track each step.
	defer q.settleAll()
	var scratch []byte // decompressed nodes without the pivot, reused
	for ni := range q.NodeCount() {
		node := q.node(ni)
		var raw qlNode
		if node.lzf {
			raw = node.inflatedInto(scratch)
			node = &raw
		}
		ei := 0
		for p := int(node.off); p < int(node.end); ei++ {
			e, next := lpGet(node.buf(), p)
			if bytes.Equal(e, pivot) {
				if n := q.node(ni); n != node {
					*n = raw // keep the decompressed copy
				}
				q.insertAt(ni, ei, p, next, v, after)
				return true
			}
			p = next
		}
		if node == &raw {
			scratch = raw.buf()
		}
	}
	return false
}

// editable prepares node for Remove's filter of v: a compressed node that
// holds v is decompressed in place, one that does not stays as it is (and
// editable reports false). The decompression uses *scratch, which the
// node keeps when it holds v. The node's failed compression is
// forgotten: it is about to change.
func editable(node *qlNode, v []byte, scratch *[]byte) bool {
	if node.lzf {
		raw := node.inflatedInto(*scratch)
		if !raw.holds(v) {
			*scratch = raw.buf()
			return false
		}
		*node = raw
		*scratch = nil
	}
	node.noCompress = false
	return true
}

// holds reports whether one of n's entries is v.
func (n *qlNode) holds(v []byte) bool {
	for p := int(n.off); p < int(n.end); {
		var e []byte
		e, p = lpGet(n.buf(), p)
		if bytes.Equal(e, v) {
			return true
		}
	}
	return false
}

// insertAt is _quicklistInsert: add v next to entry ei (at byte offset p,
// next entry at next) of node ni.
func (q *Quicklist) insertAt(ni, ei, p, next int, v []byte, after bool) {
	node := q.node(ni)
	q.touch(node) // raw already; it may change
	s := q.ql()
	if s == nil {
		if after {
			node.insertAt(next, v, placeCenter, 0)
		} else {
			node.insertAt(p, v, placeCenter, 0)
		}
		return
	}
	s.count++
	fill, sz := int(s.fill), len(v)
	full := !qlAllowInsert(node, fill, sz)
	var prev, nxt *qlNode
	if ni > 0 {
		prev = q.node(ni - 1)
	}
	if ni+1 < q.NodeCount() {
		nxt = q.node(ni + 1)
	}
	atTail := after && ei == int(node.count)-1
	atHead := !after && ei == 0
	availNext := atTail && qlAllowInsert(nxt, fill, sz)
	availPrev := atHead && qlAllowInsert(prev, fill, sz)
	pos := ni // node position the new node goes to
	if after {
		pos = ni + 1
	}
	if qlIsLarge(sz, fill) {
		if node.plain || atTail || atHead {
			s.insertNode(pos, newPlainNode(v))
			return
		}
		split := ei
		if after {
			split = ei + 1
		}
		rest := node.splitAt(split)
		s.insertNode(ni+1, newPlainNode(v))
		s.insertNode(ni+2, rest)
		return
	}
	switch {
	case !full && after:
		node.insertAt(next, v, placeCenter, 0)
	case !full:
		node.insertAt(p, v, placeCenter, 0)
	case atTail && availNext:
		q.touch(nxt)
		nxt.pushFront(v, 0)
	case atHead && availPrev:
		q.touch(prev)
		prev.pushBack(v, 0)
	case atTail || atHead:
		n := newQLNode()
		n.pushBack(v, 0)
		s.insertNode(pos, n)
	default:
		// Split: with after, node keeps [0, ei] and the new node gets
		// v + (ei, end); without, the new node gets [0, ei) + v and node
		// keeps [ei, end).
		if after {
			rest := node.splitAt(ei + 1)
			rest.pushFront(v, 0)
			s.insertNode(ni+1, rest)
			q.mergeAround(ni)
		} else {
			rest := node.splitAt(ei)
			// node now holds [0, ei): it becomes the new node (with v
			// appended) and rest, holding [ei, end), the original.
			node.pushBack(v, 0)
			s.insertNode(ni+1, rest)
			q.mergeAround(ni + 1)
		}
	}
}

// mergeAround is _quicklistMergeNodes around node position c (in the
// quicklist encoding).
func (q *Quicklist) mergeAround(c int) {
	fill := int(q.ql().fill)
	get := func(i int) *qlNode {
		if i < 0 || i >= q.NodeCount() {
			return nil
		}
		return q.node(i)
	}
	// (prev_prev, prev)
	if qlAllowMerge(get(c-1), get(c-2), fill) {
		q.mergeNodes(c - 2)
		c--
	}
	// (next, next_next)
	if qlAllowMerge(get(c+1), get(c+2), fill) {
		q.mergeNodes(c + 1)
	}
	// (prev, center)
	if qlAllowMerge(get(c), get(c-1), fill) {
		q.mergeNodes(c - 1)
		c--
	}
	// (center, next)
	if qlAllowMerge(get(c), get(c+1), fill) {
		q.mergeNodes(c)
	}
}

// mergeNodes merges node i+1 into node i.
func (q *Quicklist) mergeNodes(i int) {
	a, b := q.node(i), q.node(i+1)
	q.touch(a)
	q.touch(b)
	a.appendNode(b)
	q.ql().removeNode(i + 1)
}

// Replace sets element i (negative counts from the tail) to v and reports
// whether i was in range. In the listpack encoding the caller must have
// called PrepareGrow.
func (q *Quicklist) Replace(i int, v []byte) bool {
	// O(n) anyway: recount the nodes rather than track each step.
	defer q.settleAll()
	l := q.Len()
	if i < 0 {
		i += l
	}
	if i < 0 || i >= l {
		return false
	}
	ni, ei := q.locate(i)
	node := q.node(ni)
	q.touch(node)
	p := node.seek(ei)
	s := q.ql()
	if s == nil {
		node.replaceAt(p, v)
		return true
	}
	fill, sz := int(s.fill), len(v)
	if !node.plain && !qlIsLarge(sz, fill) {
		// In place, even past the node's size limit: Valkey 8.0.1's
		// quicklistReplaceEntry does not check it (later versions split
		// such a node).
		node.replaceAt(p, v)
		return true
	}
	if node.plain {
		if qlIsLarge(sz, fill) {
			node.replaceAt(p, v)
			return true
		}
		// A small value replacing a plain node: insert it after, then drop
		// the plain node.
		_, next := lpGet(node.buf(), p)
		q.insertAt(ni, 0, p, next, v, true)
		s.count--
		s.removeNode(ni)
		return true
	}
	// v is large: split off the entries after ei, give v a plain node of
	// its own between, then drop the old entry, now the last of node.
	var rest *qlNode
	if ei != int(node.count)-1 {
		rest = node.splitAt(ei + 1)
	}
	s.insertNode(ni+1, newPlainNode(v))
	if rest != nil {
		s.insertNode(ni+2, rest)
	}
	if node.count == 1 {
		s.removeNode(ni)
		return true
	}
	_, last := lpGetBack(node.buf(), int(node.end))
	node.deleteAt(last)
	q.mergeAround(ni + 1)
	return true
}
