package ds

import "unsafe"

// ZSkip is a sorted set in Valkey's skiplist encoding, laid out for memory:
// every member is ONE allocation holding its hash-chain link, its score,
// its skiplist levels (forward pointer and span) and the member bytes, and
// the hash table indexes those nodes directly (as Valkey 8.1's zset
// hashtable of node pointers does). Compared with ZSet (a Dict entry plus a
// separate Skiplist node per member) this saves a Dict entry header, a
// string header and a level slice header per member. Each level also
// copies the order key of the node it points to (see zLevel), which saves
// a cache miss per comparison, and a node gets another level with
// probability 1/2 rather than Valkey's 1/4 (see zRandomLevel): a 128-byte
// member costs about 236 heap bytes (ZSet: about 250; Redis 7.0: 253).
//
// Ordering, spans and the range walks are those of Skiplist; the hash
// table is Dict's: chained, power-of-two sized, rehashed incrementally one
// bucket per operation, with the reverse-binary Scan cursor. Scores must
// not be NaN. Member slices returned by ZNode.Member alias the node and are
// valid until the member is removed. No internal locking (see the package
// documentation).
type ZSkip struct {
	header *ZNode
	tail   *ZNode
	length int
	level  int // levels in use, >= 1

	tables    [2][]*ZNode
	used      [2]int
	rehashIdx int // next bucket of tables[0] to move; -1 when not rehashing
	pauseRH   int // iterations in progress: no rehash steps, no resizes
	memBytes  int // heap bytes of the nodes, for MemUsage
}

// ZNode is one member. Its fields are read-only to callers.
type ZNode struct {
	hnext    *ZNode // next node in the same hash bucket
	backward *ZNode // previous node at level 0
	score    float64
	mlen     uint32 // member length
	height   uint8  // levels in use
	lcap     uint8  // level slots allocated (>= height)
	ext      bool   // the member lives in a separate allocation
	lv       [1]zLevel
	// Allocated behind lv: lcap-1 more zLevels, then the member bytes
	// (or, when ext, a pointer to them).
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
	zNodeHdr  = int(unsafe.Sizeof(ZNode{}))
	zLevelSz  = int(unsafe.Sizeof(zLevel{}))
	zInlineMx = 256 // longer members get their own allocation
)

// lvl returns level i (0 <= i < lcap).
func (n *ZNode) lvl(i int) *zLevel {
	return (*zLevel)(unsafe.Add(unsafe.Pointer(&n.lv[0]), i*zLevelSz))
}

// tailPtr is where the member bytes (or the ext pointer) start.
func (n *ZNode) tailPtr() unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(n), zNodeHdr+(int(n.lcap)-1)*zLevelSz)
}

// Member returns the member's bytes, aliasing the node. They must not be
// modified.
func (n *ZNode) Member() []byte {
	if n.mlen == 0 {
		return []byte{}
	}
	p := n.tailPtr()
	if n.ext {
		p = unsafe.Pointer(*(**byte)(p))
	}
	return unsafe.Slice((*byte)(p), n.mlen)
}

// MemberString is Member as a string (no copy; same validity).
func (n *ZNode) MemberString() string {
	if n.mlen == 0 {
		return ""
	}
	p := n.tailPtr()
	if n.ext {
		p = unsafe.Pointer(*(**byte)(p))
	}
	return unsafe.String((*byte)(p), n.mlen)
}

// Score returns the node's score.
func (n *ZNode) Score() float64 { return n.score }

// Next returns the following node in ascending order, or nil.
func (n *ZNode) Next() *ZNode { return n.lv[0].forward }

// Prev returns the preceding node, or nil.
func (n *ZNode) Prev() *ZNode { return n.backward }

// zNodeMem is a node of L level slots followed by B (member bytes or the
// ext pointer) in one allocation.
type zNodeMem[L, B any] struct {
	n    ZNode
	more L
	tail B
}

type zExt struct{ p *byte }

func allocZNode[L, B any](lcap int) *ZNode {
	p := new(zNodeMem[L, B])
	p.n.lcap = uint8(lcap)
	return &p.n
}

// zLevelClass rounds a height up to an allocated level count.
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

// newZNode allocates a node for member with height levels.
func newZNode(height int, score float64, member []byte) *ZNode {
	lc := zLevelClass(height)
	var n *ZNode
	if len(member) > zInlineMx {
		n = allocZNodeL[zExt](lc)
		n.ext = true
		*(**byte)(n.tailPtr()) = &append([]byte(nil), member...)[0]
	} else {
		switch m := len(member); {
		case m <= 8:
			n = allocZNodeL[[8]byte](lc)
		case m <= 16:
			n = allocZNodeL[[16]byte](lc)
		case m <= 24:
			n = allocZNodeL[[24]byte](lc)
		case m <= 32:
			n = allocZNodeL[[32]byte](lc)
		case m <= 48:
			n = allocZNodeL[[48]byte](lc)
		case m <= 64:
			n = allocZNodeL[[64]byte](lc)
		case m <= 80:
			n = allocZNodeL[[80]byte](lc)
		case m <= 96:
			n = allocZNodeL[[96]byte](lc)
		case m <= 112:
			n = allocZNodeL[[112]byte](lc)
		case m <= 128:
			n = allocZNodeL[[128]byte](lc)
		case m <= 160:
			n = allocZNodeL[[160]byte](lc)
		case m <= 192:
			n = allocZNodeL[[192]byte](lc)
		default:
			n = allocZNodeL[[zInlineMx]byte](lc)
		}
		copy(unsafe.Slice((*byte)(n.tailPtr()), len(member)), member)
	}
	n.mlen = uint32(len(member))
	n.height = uint8(height)
	n.score = score
	return n
}

// allocZNodeL picks the level array type for lc slots.
func allocZNodeL[B any](lc int) *ZNode {
	switch lc {
	case 1:
		return allocZNode[[0]zLevel, B](lc)
	case 2:
		return allocZNode[[1]zLevel, B](lc)
	case 4:
		return allocZNode[[3]zLevel, B](lc)
	case 8:
		return allocZNode[[7]zLevel, B](lc)
	case 16:
		return allocZNode[[15]zLevel, B](lc)
	}
	return allocZNode[[SkiplistMaxLevel - 1]zLevel, B](lc)
}

// zNodeSize estimates a node's heap bytes.
func zNodeSize(height, mlen int) int {
	lc := zLevelClass(height)
	n := zNodeHdr + (lc-1)*zLevelSz
	if mlen > zInlineMx {
		return allocSize(n+8) + allocSize(mlen)
	}
	b := 8
	for _, c := range []int{8, 16, 24, 32, 48, 64, 80, 96, 112, 128, 160, 192, zInlineMx} {
		if mlen <= c {
			b = c
			break
		}
	}
	return allocSize(n + b)
}

// zHeaderLevels is the level count a new ZSkip's header starts with; it
// grows (growHeader) when a taller node arrives. A full 32-level header
// would cost 1 KB, which dominates small sorted sets with long members
// (a one-member skiplist-encoded set).
const zHeaderLevels = 4

// growHeader replaces the header with one of at least h levels. Only
// z.header points at the header (a first node's backward link is nil), so
// the levels are copied and the old header dropped.
func (z *ZSkip) growHeader(h int) {
	lc := zLevelClass(h)
	nh := allocZNodeL[[0]byte](lc)
	nh.height = uint8(lc)
	for i := 0; i < int(z.header.lcap); i++ {
		*nh.lvl(i) = *z.header.lvl(i)
	}
	z.header = nh
}

// NewZSkip returns an empty ZSkip sized for hint members.
func NewZSkip(hint int) *ZSkip {
	z := &ZSkip{level: 1, rehashIdx: -1}
	z.header = allocZNodeL[[0]byte](zHeaderLevels)
	z.header.height = zHeaderLevels
	if hint > 0 {
		z.tables[0] = make([]*ZNode, tableSize(hint))
	}
	return z
}

// Len returns the number of members.
func (z *ZSkip) Len() int { return z.length }

// MemUsage estimates the heap bytes of the ZSkip.
func (z *ZSkip) MemUsage() int {
	return 128 + zNodeSize(int(z.header.lcap), 0) + 8*(len(z.tables[0])+len(z.tables[1])) + z.memBytes
}

// First returns the lowest node, or nil.
func (z *ZSkip) First() *ZNode { return z.header.lv[0].forward }

// Last returns the highest node, or nil.
func (z *ZSkip) Last() *ZNode { return z.tail }
