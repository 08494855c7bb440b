package ds

import "unsafe"

// ZSkip is a sorted set in Valkey's skiplist encoding, laid out for memory
// and for the garbage collector: every member is ONE allocation holding
// its score, its hash, its skiplist levels (forward pointer and span) and
// the member bytes, and the hash table indexes those nodes directly (as
// Valkey 8.1's zset hashtable of node pointers does). Each
// level also copies the order key of the node it points to (see zLevel),
// which saves a cache miss per comparison, and a node gets another level
// with probability 1/2 rather than Valkey's 1/4 (see zRandomLevel): a
// 128-byte member costs about 230 heap bytes (Redis 7.0: 253).
//
// Memory and the collector. Nodes are carved from slabs (slab.go,
// zskip_slab.go) and the index's slots and owners are allocated as
// pointer-free memory (allocNoscan), so the links between nodes are hidden from Go's garbage
// collector, which neither scans nor follows them. What keeps a node alive
// is its slab: ZSkip.slabs holds one visible pointer per slab (32 KB, a few
// hundred members), so a collection marks a few pointers per sorted set
// instead of one per member (BenchmarkZSkipGC), which is what ZADD spends
// its CPU on once the heap sits at maxmemory (docs/benchmarks.md).
// owners is a dense array of every node (the node's oidx is its slot) for
// Scan and Random. Go's collector never moves objects, so a hidden pointer
// stays valid for as long as its target's slab is held. The invariants
// that make this safe:
//
//   - every node reachable through a hidden link (an index slot, a level's
//     forward, a backward link, owners) lies in a slab in slabs, so it is
//     live;
//   - a slab leaves slabs only when none of its nodes is linked any more
//     (settle: after its live nodes were moved out);
//   - slab memory is never reused, so callers may hold nodes and Member
//     slices through visible pointers (their stack, a *ZNode, a slice),
//     which keep the slab alive until they drop them; but they must not
//     follow Next or Prev of a node after removing it, nor use a *ZNode
//     across a call to Add, Remove or a DeleteRange method, which may have
//     moved it (see zskip_slab.go).
//
// Ordering, spans and the range walks are those of Skiplist; the hash
// table is open-addressed and resized incrementally (oindex.go). Scan
// walks owners instead (see Scan). Scores must
// not be NaN. Member slices returned by ZNode.Member alias the node and are
// valid until the member is removed. No internal locking (see the package
// documentation).
type ZSkip struct {
	header *ZNode
	tail   *ZNode
	length int
	level  int // levels in use, >= 1

	idx oIndex // the member index (oindex.go, zskip_hash.go)

	owners []*ZNode  // every member once, in pointer-free memory (see above)
	slabs  slabArena // keep the nodes alive (slab.go)
}

// ZNode is one member. Its fields are read-only to callers.
type ZNode struct {
	hash     uint32  // the member's hash, low 32 bits: first, for oIndex's resizes
	oidx     uint32  // index in ZSkip.owners
	backward *ZNode  // previous node at level 0 (hidden)
	score    float64 //
	meta     uint32  // zDead | height << 24 | member length (zLongLen: see mlen)
	lv       [1]zLevel
	// Allocated behind lv: height-1 more zLevels, then the member bytes
	// (a member of zLongLen bytes or more: its length as a uint64, then
	// the bytes).
}

// zLevel is one level of a node: the next node at that level, the rank
// distance to it, and a copy of that next node's order key (score and the
// first 4 member bytes), so that a walk decides whether to step forward
// without loading the next node, which is rarely in the CPU cache: a walk
// looks at about twice as many nodes as it steps onto. With equal scores
// (the seed's ZADD gives every member of a key the same score) the member
// prefix decides almost every comparison. The span and the prefix are 32
// bits so that a level is 24 bytes, not 32; see forwardBefore.
type zLevel struct {
	forward *ZNode
	fscore  float64 // forward's score (when forward != nil)
	span    uint32  // rank distance to forward (a sorted set holds < 2^32 members)
	fkey    uint32  // memberKey(forward's member)
}

// memberKey is a member's first 4 bytes, big-endian, zero-padded: keys
// compare like the members whenever they differ (equal keys say nothing).
func memberKey(m string) uint32 {
	if len(m) >= 4 {
		return uint32(m[0])<<24 | uint32(m[1])<<16 | uint32(m[2])<<8 | uint32(m[3])
	}
	var k uint32
	for i := 0; i < 4; i++ {
		k <<= 8
		if i < len(m) {
			k |= uint32(m[i])
		}
	}
	return k
}

// forwardBefore reports whether l's forward node (not nil) sorts before
// (score, member), key being memberKey(member), from the copy in l when it
// decides.
func (l *zLevel) forwardBefore(score float64, key uint32, member string) bool {
	if l.fscore != score {
		return l.fscore < score
	}
	if l.fkey != key {
		return l.fkey < key
	}
	return l.forward.MemberString() < member
}

// setForward points l at n, copying n's order key.
func (l *zLevel) setForward(n *ZNode, key uint32) {
	l.forward, l.fscore, l.fkey = n, n.score, key
}

const (
	zNodeHdr = int(unsafe.Sizeof(ZNode{}))
	zLevelSz = int(unsafe.Sizeof(zLevel{}))
	zLenBits = 24
	zLongLen = 1<<zLenBits - 1 // meta's length field saying "stored in the tail"

	zHeightBits = 0x3f // meta >> zLenBits, without zDead
)

// height is the number of levels in use (for the header: allocated).
func (n *ZNode) height() int { return int(n.meta>>zLenBits) & zHeightBits }

// lvl returns level i (0 <= i < height).
func (n *ZNode) lvl(i int) *zLevel {
	return (*zLevel)(unsafe.Add(unsafe.Pointer(&n.lv[0]), i*zLevelSz))
}

// tailPtr is where the member (or its long length) starts.
func (n *ZNode) tailPtr() unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(n), zNodeHdr+(n.height()-1)*zLevelSz)
}

// mlen is the member's length.
func (n *ZNode) mlen() int {
	if l := int(n.meta & zLongLen); l != zLongLen {
		return l
	}
	return int(*(*uint64)(n.tailPtr()))
}

// memberPtr is where the member bytes start.
func (n *ZNode) memberPtr() unsafe.Pointer {
	p := n.tailPtr()
	if n.meta&zLongLen == zLongLen {
		p = unsafe.Add(p, 8)
	}
	return p
}

// Member returns the member's bytes, aliasing the node. They must not be
// modified.
func (n *ZNode) Member() []byte {
	if n.meta&zLongLen == 0 {
		return []byte{} // the tail would point past the allocation
	}
	return unsafe.Slice((*byte)(n.memberPtr()), n.mlen())
}

// MemberString is Member as a string (no copy; same validity).
func (n *ZNode) MemberString() string {
	if n.meta&zLongLen == 0 {
		return ""
	}
	return unsafe.String((*byte)(n.memberPtr()), n.mlen())
}

// Score returns the node's score.
func (n *ZNode) Score() float64 { return n.score }

// Next returns the following node in ascending order, or nil.
func (n *ZNode) Next() *ZNode { return n.lv[0].forward }

// Prev returns the preceding node, or nil.
func (n *ZNode) Prev() *ZNode { return n.backward }

// allocNoscan returns size zeroed bytes (8-byte aligned) that the garbage
// collector treats as holding no pointers: it marks the object when a
// visible pointer reaches it but never looks inside. Pointers stored in it
// are hidden (see ZSkip).
func allocNoscan(size int) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(make([]uint64, (size+7)/8)))
}

// zNodeBytes is the size of a node of height levels whose member is mlen
// bytes long.
func zNodeBytes(height, mlen int) int {
	n := zNodeHdr + (height-1)*zLevelSz + mlen
	if mlen >= zLongLen {
		n += 8
	}
	return n
}

// allocZNode allocates a node of height levels for an mlen-byte member
// (the bytes are not copied) in pointer-free memory of its own: the
// header's allocation (members' nodes come from slabs: allocNode).
func allocZNode(height, mlen int) *ZNode {
	n := (*ZNode)(allocNoscan(zNodeBytes(height, mlen)))
	l := min(mlen, zLongLen)
	n.meta = uint32(height)<<zLenBits | uint32(l)
	if l == zLongLen {
		*(*uint64)(n.tailPtr()) = uint64(mlen)
	}
	return n
}

// zLevelClass rounds a header's height up to an allocated level count.
func zLevelClass(h int) int {
	switch {
	case h <= 2:
		return h
	case h <= 4:
		return 4
	case h <= 8:
		return 8
	case h <= 16:
		return 16
	}
	return SkiplistMaxLevel
}

// newNode carves a node for member with height levels.
func (z *ZSkip) newNode(height int, score float64, member []byte) *ZNode {
	n := z.allocNode(height, len(member))
	if len(member) > 0 {
		copy(unsafe.Slice((*byte)(n.memberPtr()), len(member)), member)
	}
	n.score = score
	return n
}

// zHeaderLevels is the level count a new ZSkip's header starts with; it
// grows (growHeader) when a taller node arrives. A full 32-level header
// would cost 1 KB, which dominates small sorted sets with long members
// (a one-member skiplist-encoded set).
const zHeaderLevels = 2

// growHeader replaces the header with one of at least h levels. Only
// z.header points at the header (a first node's backward link is nil), so
// the levels are copied and the old header dropped.
func (z *ZSkip) growHeader(h int) {
	nh := allocZNode(zLevelClass(h), 0)
	for i := 0; i < z.header.height(); i++ {
		*nh.lvl(i) = *z.header.lvl(i)
	}
	z.header = nh
}

// NewZSkip returns an empty ZSkip sized for hint members.
func NewZSkip(hint int) *ZSkip {
	z := &ZSkip{level: 1}
	z.slabs.moveSmall = true
	z.header = allocZNode(zHeaderLevels, 0)
	z.idx.init(hint)
	if hint > 0 {
		z.owners = newPtrTable[ZNode](hint)[:0]
	}
	return z
}

// Len returns the number of members.
func (z *ZSkip) Len() int { return z.length }

// MemUsage estimates the heap bytes of the ZSkip.
func (z *ZSkip) MemUsage() int {
	return allocSize(int(unsafe.Sizeof(*z))) + allocSize(zNodeBytes(z.header.height(), 0)) + z.idx.bytes() +
		8*cap(z.owners) + z.slabs.memUsage()
}

// First returns the lowest node, or nil.
func (z *ZSkip) First() *ZNode { return z.header.lv[0].forward }

// Last returns the highest node, or nil.
func (z *ZSkip) Last() *ZNode { return z.tail }
