package ds

import (
	"encoding/binary"
	"sync"
)

// Compression of interior nodes (list-compress-depth), as quicklist.c
// does it. A quicklist takes its compress depth d when it is created (as
// it takes its fill), and keeps this invariant after every change:
//
//   - the d nodes at each end are raw, so pushes and pops, which only
//     touch the end nodes, never compress or decompress anything but the
//     node that crosses the depth boundary when a node is added or
//     dropped;
//   - every other node ("interior") holds its data LZF-compressed, unless
//     compressing it was not worthwhile: a node of fewer than
//     MIN_COMPRESS_BYTES (its Valkey listpack size, qlNode.sz), or one
//     that LZF does not shrink by more than MIN_COMPRESS_IMPROVE bytes
//     (prefix included). Such a node is marked noCompress and left alone
//     until it changes, where Valkey would try again each time it passes
//     the boundary. Plain nodes are compressed like packed ones.
//
// A compressed node's buf[off:end] is a 4-byte little-endian raw length
// followed by the LZF stream of its packed entries; count and sz stay
// those of the entries. Reading a compressed node (Index, Range, Scan,
// the searches of Insert and Remove) decompresses it into a fresh buffer
// and leaves the node compressed: Valkey decompresses the node and
// compresses it again afterwards, which costs a compression per read.
// Changing one (LSET, LINSERT, LREM, LTRIM in the middle) decompresses
// it in place (touch), and the edit ends by compressing it again
// (settleAll, or compressAt for DelRange).
//
// Depth 0 costs nothing on the push and pop paths: the only checks sit in
// the branches that add or drop a node. With depth > 0 they re-establish
// the invariant near the ends (settle, __quicklistCompress): O(d) node
// checks, and at most one node compressed or decompressed at each end.

const (
	qlMinCompressBytes   = 48 // MIN_COMPRESS_BYTES
	qlMinCompressImprove = 8  // MIN_COMPRESS_IMPROVE
	qlLZFHdr             = 4  // the raw length before a compressed node's LZF stream
	// QuicklistMaxDepth is quicklist.c's COMPRESS_MAX: deeper settings
	// are clamped to it.
	QuicklistMaxDepth = 1<<16 - 1
)

// ListConfig is what a list takes from the configuration when it becomes
// a quicklist (quicklistNew's fill and compress).
type ListConfig struct {
	Fill     int // list-max-listpack-size
	Compress int // list-compress-depth
}

// qlCompressor is an LZF hash table and an output buffer, pooled: a
// compression is one Get and one Put.
type qlCompressor struct {
	htab LZFTable
	out  []byte
}

var qlCompressors = sync.Pool{New: func() any { return new(qlCompressor) }}

// compress is __quicklistCompressNode: it replaces the node's entries by
// their LZF stream when that saves more than MIN_COMPRESS_IMPROVE bytes,
// else marks the node noCompress. It reports whether the node is
// compressed.
func (n *qlNode) compress() bool {
	if n.lzf {
		return true
	}
	if n.noCompress {
		return false
	}
	raw := n.data()
	if int(n.sz) < qlMinCompressBytes || len(raw) < qlMinCompressBytes {
		n.noCompress = true
		return false
	}
	c := qlCompressors.Get().(*qlCompressor)
	// The limit makes LZF give up as soon as the result would not pay.
	out := LZFCompress(raw, len(raw)-qlLZFHdr-qlMinCompressImprove-1, &c.htab, c.out)
	if out == nil {
		qlCompressors.Put(c)
		n.noCompress = true
		return false
	}
	size := qlLZFHdr + len(out)
	nb := make([]byte, allocSize(size))
	binary.LittleEndian.PutUint32(nb, uint32(len(raw)))
	copy(nb[qlLZFHdr:], out)
	if cap(out) <= 64<<10 {
		c.out = out[:0] // keep a node-sized buffer, not a huge plain one
	}
	qlCompressors.Put(c)
	n.setBuf(nb)
	n.off, n.end = 0, int32(size)
	n.lzf = true
	return true
}

// inflated returns a raw copy of compressed node n: the same counts, its
// entries decompressed into a new buffer (data at its start).
func (n *qlNode) inflated() qlNode { return n.inflatedInto(nil) }

// inflatedInto is inflated with buf's storage when it is large enough.
func (n *qlNode) inflatedInto(buf []byte) qlNode {
	d := n.data()
	rawLen := int(binary.LittleEndian.Uint32(d))
	if cap(buf) < rawLen {
		buf = make([]byte, allocSize(rawLen))
	}
	buf = buf[:cap(buf)]
	if !lzfDecompressTo(buf[:rawLen], d[qlLZFHdr:]) {
		panic("ds: corrupt compressed quicklist node")
	}
	v := *n
	v.setBuf(buf)
	v.off, v.end = 0, int32(rawLen)
	v.lzf = false
	return v
}

// view returns node i for reading: the node itself, or a raw copy of it
// when it is compressed. Slices into the copy stay valid as long as they
// are referenced, like slices into a raw node.
func (q *Quicklist) view(i int) *qlNode {
	n := q.node(i)
	if n.lzf {
		v := n.inflated()
		return &v
	}
	return n
}

// interior reports whether node position i lies beyond the compress
// depth of both ends: the nodes quicklist.c keeps compressed.
func (q *Quicklist) interior(i int) bool {
	d := q.depth()
	return d > 0 && i >= d && i < q.NodeCount()-d
}

// touch prepares n for a change (quicklistDecompressNodeForUse): it
// decompresses n in place and forgets a failed compression, since the
// node's contents are about to change.
func (q *Quicklist) touch(n *qlNode) {
	n.noCompress = false
	if n.lzf { // only in the quicklist encoding
		before := nodeMem(n)
		*n = n.inflated()
		q.ql().nodeBytes += nodeMem(n) - before
	}
}

// compressAt compresses node i if it is interior and not yet compressed
// (nor known not to compress).
func (q *Quicklist) compressAt(i int) {
	n := q.node(i)
	if n.lzf || n.noCompress || !q.interior(i) {
		return
	}
	before := nodeMem(n)
	if n.compress() {
		q.ql().nodeBytes += nodeMem(n) - before
	}
}

// settle is __quicklistCompress(NULL), run after nodes were added or
// dropped at the ends: the nodes within the depth of either end are
// decompressed, and the first node past the depth at each end is
// compressed. With the invariant holding before the change, that restores
// it, however many nodes an end lost: nodes only ever move into the depth
// ranges, except for the one an end push moves out. Only for a compress
// depth > 0.
func (q *Quicklist) settle() {
	d, nn := q.depth(), q.NodeCount()
	for i := 0; i < d && i < nn; i++ {
		q.touch(q.node(i))
		q.touch(q.node(nn - 1 - i))
	}
	if nn > 2*d {
		q.compressAt(d)
		q.compressAt(nn - 1 - d)
	}
}

// settleAll restores the invariant on every node, then recounts
// nodeBytes: the end of the edits that are O(n) anyway (Insert, Remove,
// Replace), which may add nodes anywhere.
func (q *Quicklist) settleAll() {
	if q.depth() > 0 {
		for i := range q.NodeCount() {
			if q.interior(i) {
				n := q.node(i)
				if !n.lzf && !n.noCompress {
					n.compress()
				}
			} else {
				q.touch(q.node(i))
			}
		}
	}
	q.recount()
}

// CompressDepth is the list's compress depth (list-compress-depth when it
// became a quicklist; 0 for none and in the listpack encoding).
func (q *Quicklist) CompressDepth() int { return q.depth() }

// CompressedNodes returns how many nodes are held compressed.
func (q *Quicklist) CompressedNodes() int {
	k := 0
	for i := range q.NodeCount() {
		if q.node(i).lzf {
			k++
		}
	}
	return k
}

// clampDepth is quicklistSetCompressDepth's range.
func clampDepth(d int) int { return min(max(d, 0), QuicklistMaxDepth) }
