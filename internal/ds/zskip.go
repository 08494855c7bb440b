package ds

import (
	"encoding/binary"
	"unsafe"
)

// ZSkip is a sorted set in Valkey's skiplist encoding (OBJECT ENCODING
// says "skiplist"), built differently: every member is ONE allocation
// holding its score, its hash and the member bytes, with no links to its
// neighbours (walks step through the tree's leaves: ZIter); the hash
// table indexes those nodes directly (as Valkey
// 8.1's zset hashtable of node pointers does); and the order is kept by a
// B+tree of counted children (zskip_tree.go) instead of the skiplist's
// upper levels. A tree leaf holds each member's order key (score and the
// first 8 member bytes) beside the node pointer, so an insert into a
// sorted set of a few thousand members loads about four cache lines where
// the skiplist stepped onto about eleven nodes, each a likely cache miss:
// that walk was the largest single cost of the seed's unpipelined ZADD
// (docs/benchmarks.md). A 128-byte member costs about 208 heap bytes
// (Redis 7.0: 253; TestZSkipMemory).
//
// Memory and the collector. Nodes are carved from slabs (slab.go,
// zskip_slab.go), tree leaves and the index's slots and owners are
// pointer-free memory (allocNoscan), so the links to nodes are hidden from
// Go's garbage collector, which neither scans nor follows them. What keeps
// a node alive is its slab: ZSkip.slabs holds one visible pointer per slab
// (32 KB, a few hundred members), so a collection marks a few pointers per
// sorted set instead of one per member (BenchmarkZSkipGC), which is what
// ZADD spends its CPU on once the heap sits at maxmemory
// (docs/benchmarks.md). The tree's inner nodes hold the visible pointers
// that keep its leaves alive. owners is a dense array of every node (the
// node's oidx is its slot) for Scan and Random. Go's collector never moves
// objects, so a hidden pointer stays valid for as long as its target's
// slab is held. The invariants that make this safe:
//
//   - every node reachable through a hidden link (an index slot, a tree
//     slot or separator, owners) lies in a slab in slabs, so it is live;
//   - a slab leaves slabs only when none of its nodes is linked any more
//     (settle: after its live nodes were moved out);
//   - slab memory is never reused, so callers may hold nodes and Member
//     slices through visible pointers (their stack, a *ZNode, a slice),
//     which keep the slab alive until they drop them; but they must not
//     use a *ZNode or a ZIter across a call to Add, Remove or a
//     DeleteRange method, which may have moved the node or reshaped the
//     tree (see zskip_slab.go).
//
// Ordering is by score, then member bytes; ranks are 0-based from the
// lowest. The hash table is open-addressed and resized incrementally
// (oindex.go). Scan walks owners instead (see Scan). Scores must not be
// NaN. Member slices returned by ZNode.Member alias the node and are
// valid until the member is removed. No internal locking (see the package
// documentation).
type ZSkip struct {
	root   unsafe.Pointer // *zLeaf when depth is 0, else *zInner
	depth  int            // inner levels above the leaves
	length int
	tbytes int // heap bytes of the tree's nodes (treeBytes)

	idx oIndex // the member index (oindex.go, zskip_hash.go)

	owners []*ZNode  // every member once, in pointer-free memory (see above)
	slabs  slabArena // keep the nodes alive (slab.go)
}

// ZNode is one member. Its fields are read-only to callers.
type ZNode struct {
	hash  uint32 // the member's hash, low 32 bits: first, for oIndex's resizes
	oidx  uint32 // index in ZSkip.owners
	score float64
	meta  uint32 // zDead | member length (zLongLen: see mlen)
	// The member bytes follow meta, at zNodeHdr (a member of zLongLen bytes
	// or more: its length as 8 little-endian bytes, then the bytes).
}

// memberKey is a member's first 8 bytes, big-endian, zero-padded: keys
// compare like the members whenever they differ (equal keys say nothing).
func memberKey(m string) uint64 {
	if len(m) >= 8 {
		_ = m[7]
		return uint64(m[0])<<56 | uint64(m[1])<<48 | uint64(m[2])<<40 | uint64(m[3])<<32 |
			uint64(m[4])<<24 | uint64(m[5])<<16 | uint64(m[6])<<8 | uint64(m[7])
	}
	var k uint64
	for i := 0; i < 8; i++ {
		k <<= 8
		if i < len(m) {
			k |= uint64(m[i])
		}
	}
	return k
}

const (
	// zNodeHdr is where a node's member starts: right after meta, not at
	// the struct's padded size (4 bytes a member).
	zNodeHdr = int(unsafe.Offsetof(ZNode{}.meta)) + 4
	zLenBits = 24
	zLongLen = 1<<zLenBits - 1 // meta's length field saying "stored in the tail"
)

// tailPtr is where the member (or its long length) starts.
func (n *ZNode) tailPtr() unsafe.Pointer { return unsafe.Add(unsafe.Pointer(n), zNodeHdr) }

// mlen is the member's length.
func (n *ZNode) mlen() int {
	if l := int(n.meta & zLongLen); l != zLongLen {
		return l
	}
	return int(binary.LittleEndian.Uint64(unsafe.Slice((*byte)(n.tailPtr()), 8)))
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

// allocNoscan returns size zeroed bytes (8-byte aligned) that the garbage
// collector treats as holding no pointers: it marks the object when a
// visible pointer reaches it but never looks inside. Pointers stored in it
// are hidden (see ZSkip).
func allocNoscan(size int) unsafe.Pointer {
	return unsafe.Pointer(unsafe.SliceData(make([]uint64, (size+7)/8)))
}

// zNodeBytes is the size of a node whose member is mlen bytes long.
func zNodeBytes(mlen int) int {
	n := zNodeHdr + mlen
	if mlen >= zLongLen {
		n += 8
	}
	return n
}

// newNode carves a node for member.
func (z *ZSkip) newNode(score float64, member []byte) *ZNode {
	n := z.allocNode(len(member))
	if len(member) > 0 {
		copy(unsafe.Slice((*byte)(n.memberPtr()), len(member)), member)
	}
	n.score = score
	return n
}

// NewZSkip returns an empty ZSkip sized for hint members.
func NewZSkip(hint int) *ZSkip {
	z := &ZSkip{}
	z.slabs.moveSmall = true
	z.root = unsafe.Pointer(z.newLeaf(zLeafCapFor(max(hint, 1))))
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
	return allocSize(int(unsafe.Sizeof(*z))) + z.treeBytes() + z.idx.bytes() +
		8*cap(z.owners) + z.slabs.memUsage()
}

// First returns the lowest node, or nil.
func (z *ZSkip) First() *ZNode { return z.ByRank(0) }

// Last returns the highest node, or nil.
func (z *ZSkip) Last() *ZNode { return z.ByRank(z.length - 1) }
