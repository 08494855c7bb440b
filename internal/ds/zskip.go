package ds

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"unsafe"
)

// ZSkip is a sorted set in Valkey's skiplist encoding, laid out for memory:
// every member is ONE allocation holding its hash-chain link, its score,
// its skiplist levels (forward pointer and span) and the member bytes, and
// the hash table indexes those nodes directly (as Valkey 8.1's zset
// hashtable of node pointers does). Compared with ZSet (a Dict entry plus a
// separate Skiplist node per member) this saves a Dict entry header, a
// string header and a level slice header per member: a 128-byte member
// costs about 190 heap bytes instead of about 250 (Redis 7.0: 253).
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

type zLevel struct {
	forward *ZNode
	span    int
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

// NewZSkip returns an empty ZSkip sized for hint members.
func NewZSkip(hint int) *ZSkip {
	z := &ZSkip{level: 1, rehashIdx: -1}
	z.header = allocZNodeL[[0]byte](SkiplistMaxLevel)
	z.header.height = SkiplistMaxLevel
	if hint > 0 {
		z.tables[0] = make([]*ZNode, tableSize(hint))
	}
	return z
}

// Len returns the number of members.
func (z *ZSkip) Len() int { return z.length }

// MemUsage estimates the heap bytes of the ZSkip.
func (z *ZSkip) MemUsage() int {
	return 128 + zNodeSize(SkiplistMaxLevel, 0) + 8*(len(z.tables[0])+len(z.tables[1])) + z.memBytes
}

// First returns the lowest node, or nil.
func (z *ZSkip) First() *ZNode { return z.header.lv[0].forward }

// Last returns the highest node, or nil.
func (z *ZSkip) Last() *ZNode { return z.tail }

// ---- hash table ----------------------------------------------------------

func zhash(member []byte) uint64 { return Hash(member) }

// find returns the node of member, doing one rehash step.
func (z *ZSkip) find(h uint64, member []byte) *ZNode {
	if z.length == 0 {
		return nil
	}
	z.rehashStep()
	for t := 0; t < 2; t++ {
		tab := z.tables[t]
		if len(tab) == 0 {
			continue
		}
		idx := int(h & uint64(len(tab)-1))
		if t == 0 && idx < z.rehashIdx {
			continue
		}
		for n := tab[idx]; n != nil; n = n.hnext {
			if int(n.mlen) == len(member) && n.MemberString() == string(member) {
				return n
			}
		}
		if z.rehashIdx < 0 {
			break
		}
	}
	return nil
}

// link puts n into the hash table (it must be absent).
func (z *ZSkip) link(h uint64, n *ZNode) {
	z.expandIfNeeded()
	t := 0
	if z.rehashIdx >= 0 {
		t = 1
	}
	tab := z.tables[t]
	idx := h & uint64(len(tab)-1)
	n.hnext = tab[idx]
	tab[idx] = n
	z.used[t]++
}

// unlink removes n from the hash table.
func (z *ZSkip) unlink(h uint64, n *ZNode) {
	for t := 0; t < 2; t++ {
		tab := z.tables[t]
		if len(tab) == 0 {
			continue
		}
		idx := int(h & uint64(len(tab)-1))
		if t == 0 && idx < z.rehashIdx {
			continue
		}
		for pp := &tab[idx]; *pp != nil; pp = &(*pp).hnext {
			if *pp == n {
				*pp = n.hnext
				n.hnext = nil
				z.used[t]--
				z.shrinkIfNeeded()
				return
			}
		}
	}
	panic("ds: ZSkip node missing from its hash table")
}

func (z *ZSkip) expandIfNeeded() {
	if z.rehashIdx >= 0 || z.pauseRH > 0 {
		if len(z.tables[0]) == 0 {
			z.tables[0] = make([]*ZNode, initialSize)
		}
		return
	}
	if len(z.tables[0]) == 0 {
		z.tables[0] = make([]*ZNode, initialSize)
		return
	}
	if z.used[0] >= len(z.tables[0]) {
		z.startResize(z.used[0] + 1)
	}
}

func (z *ZSkip) shrinkIfNeeded() {
	if z.rehashIdx >= 0 || z.pauseRH > 0 {
		return
	}
	size := len(z.tables[0])
	if size > initialSize && z.used[0]*minFill <= size {
		z.startResize(z.used[0])
	}
}

// startResize allocates the target table for n keys and starts moving.
func (z *ZSkip) startResize(n int) {
	size := tableSize(n)
	if size == len(z.tables[0]) {
		return
	}
	z.tables[1] = make([]*ZNode, size)
	z.rehashIdx = 0
}

// rehashStep moves one bucket (skipping up to 10 empty ones).
func (z *ZSkip) rehashStep() {
	if z.rehashIdx < 0 || z.pauseRH > 0 {
		return
	}
	old := z.tables[0]
	for empty := 0; z.rehashIdx < len(old) && old[z.rehashIdx] == nil; empty++ {
		z.rehashIdx++
		if empty >= emptyVisitFactor {
			return
		}
	}
	if z.rehashIdx < len(old) {
		nt := z.tables[1]
		mask := uint64(len(nt) - 1)
		for n := old[z.rehashIdx]; n != nil; {
			next := n.hnext
			idx := zhash(n.Member()) & mask
			n.hnext = nt[idx]
			nt[idx] = n
			z.used[0]--
			z.used[1]++
			n = next
		}
		old[z.rehashIdx] = nil
		z.rehashIdx++
	}
	if z.rehashIdx >= len(old) {
		z.tables[0], z.tables[1] = z.tables[1], nil
		z.used[0], z.used[1] = z.used[1], 0
		z.rehashIdx = -1
	}
}

// Scan visits the members of one bucket (while rehashing, of the buckets
// of the bigger table it expands to) and returns the next cursor, 0 at the
// end: Dict.Scan's reverse-binary cursor with the same guarantee.
func (z *ZSkip) Scan(cursor uint64, fn func(n *ZNode)) uint64 {
	if z.length == 0 {
		return 0
	}
	z.pauseRH++
	defer func() { z.pauseRH-- }()
	emit := func(n *ZNode) {
		for n != nil {
			next := n.hnext
			fn(n)
			n = next
		}
	}
	v := cursor
	if z.rehashIdx < 0 {
		t0 := z.tables[0]
		m0 := uint64(len(t0) - 1)
		emit(t0[v&m0])
		v |= ^m0
		return bits.Reverse64(bits.Reverse64(v) + 1)
	}
	small, big := z.tables[0], z.tables[1]
	if len(small) > len(big) {
		small, big = big, small
	}
	m0, m1 := uint64(len(small)-1), uint64(len(big)-1)
	emit(small[v&m0])
	for {
		emit(big[v&m1])
		v |= ^m1
		v = bits.Reverse64(bits.Reverse64(v) + 1)
		if v&(m0^m1) == 0 {
			break
		}
	}
	return v
}

// ---- skiplist --------------------------------------------------------------

// before reports whether n sorts before (score, member). The member is
// only looked at on equal scores.
func (n *ZNode) before(score float64, member string) bool {
	return n.score < score || (n.score == score && n.MemberString() < member)
}

func zRandomLevel() int {
	return min(1+bits.TrailingZeros64(rand.Uint64())/2, SkiplistMaxLevel)
}

// insertNode links n (whose height and score are set) into the skiplist.
func (z *ZSkip) insertNode(n *ZNode) {
	var update [SkiplistMaxLevel]*ZNode
	var rank [SkiplistMaxLevel]int
	score, member := n.score, n.MemberString()
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		if i < z.level-1 {
			rank[i] = rank[i+1]
		}
		for {
			l := x.lvl(i)
			f := l.forward
			if f == nil || !f.before(score, member) {
				break
			}
			rank[i] += l.span
			x = f
		}
		update[i] = x
	}
	h := int(n.height)
	if h > z.level {
		for i := z.level; i < h; i++ {
			rank[i] = 0
			update[i] = z.header
			z.header.lvl(i).span = z.length
		}
		z.level = h
	}
	for i := 0; i < h; i++ {
		ul, nl := update[i].lvl(i), n.lvl(i)
		nl.forward = ul.forward
		ul.forward = n
		nl.span = ul.span - (rank[0] - rank[i])
		ul.span = rank[0] - rank[i] + 1
	}
	for i := h; i < z.level; i++ {
		update[i].lvl(i).span++
	}
	if update[0] != z.header {
		n.backward = update[0]
	} else {
		n.backward = nil
	}
	if f := n.lv[0].forward; f != nil {
		f.backward = n
	} else {
		z.tail = n
	}
	z.length++
}

// findUpdate fills update with the last node before n at every level.
func (z *ZSkip) findUpdate(n *ZNode, update *[SkiplistMaxLevel]*ZNode) {
	score, member := n.score, n.MemberString()
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		for {
			f := x.lvl(i).forward
			if f == nil || f == n || !f.before(score, member) {
				break
			}
			x = f
		}
		update[i] = x
	}
}

// deleteNode unlinks x from the skiplist given its predecessors.
func (z *ZSkip) deleteNode(x *ZNode, update *[SkiplistMaxLevel]*ZNode) {
	for i := 0; i < z.level; i++ {
		ul := update[i].lvl(i)
		if ul.forward == x {
			xl := x.lvl(i)
			ul.span += xl.span - 1
			ul.forward = xl.forward
		} else {
			ul.span--
		}
	}
	if f := x.lv[0].forward; f != nil {
		f.backward = x.backward
	} else {
		z.tail = x.backward
	}
	for z.level > 1 && z.header.lvl(z.level-1).forward == nil {
		z.level--
	}
	z.length--
}

// Score returns member's score.
func (z *ZSkip) Score(member []byte) (float64, bool) {
	if n := z.find(zhash(member), member); n != nil {
		return n.score, true
	}
	return 0, false
}

// Find returns member's node, or nil.
func (z *ZSkip) Find(member []byte) *ZNode { return z.find(zhash(member), member) }

// Add sets member's score, inserting it if needed (the bytes are copied).
// It returns whether the member was added and, if not, its old score.
func (z *ZSkip) Add(member []byte, score float64) (added bool, old float64) {
	if math.IsNaN(score) {
		panic("ds: NaN score added to ZSkip")
	}
	h := zhash(member)
	n := z.find(h, member)
	if n == nil {
		n = newZNode(zRandomLevel(), score, member)
		z.link(h, n)
		z.insertNode(n)
		z.memBytes += zNodeSize(int(n.height), len(member))
		return true, 0
	}
	old = n.score
	if old == score {
		return false, old
	}
	// Still strictly between its neighbours: no relinking.
	if (n.backward == nil || n.backward.score < score) &&
		(n.lv[0].forward == nil || n.lv[0].forward.score > score) {
		n.score = score
		return false, old
	}
	var update [SkiplistMaxLevel]*ZNode
	z.findUpdate(n, &update)
	z.deleteNode(n, &update)
	n.score = score
	z.insertNode(n) // the node is reused: no allocation, same height
	return false, old
}

// Remove deletes member and reports whether it was present.
func (z *ZSkip) Remove(member []byte) bool {
	h := zhash(member)
	n := z.find(h, member)
	if n == nil {
		return false
	}
	z.unlink(h, n)
	var update [SkiplistMaxLevel]*ZNode
	z.findUpdate(n, &update)
	z.deleteNode(n, &update)
	z.memBytes -= zNodeSize(int(n.height), int(n.mlen))
	return true
}

// rankOf returns the 1-based rank of n (in the list).
func (z *ZSkip) rankOf(n *ZNode) int {
	score, member := n.score, n.MemberString()
	rank := 0
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			f := l.forward
			if f == nil || (f != n && !f.before(score, member)) {
				break
			}
			rank += l.span
			x = f
			if x == n {
				return rank
			}
		}
	}
	return 0
}

// Rank returns member's 0-based rank (from the highest when reverse) and
// score.
func (z *ZSkip) Rank(member []byte, reverse bool) (int, float64, bool) {
	n := z.find(zhash(member), member)
	if n == nil {
		return 0, 0, false
	}
	r := z.rankOf(n) - 1
	if reverse {
		r = z.length - 1 - r
	}
	return r, n.score, true
}

// ByRank returns the node of 0-based rank i, or nil.
func (z *ZSkip) ByRank(i int) *ZNode {
	if i < 0 || i >= z.length {
		return nil
	}
	r := i + 1
	traversed := 0
	x := z.header
	for l := z.level - 1; l >= 0; l-- {
		for {
			lv := x.lvl(l)
			if lv.forward == nil || traversed+lv.span > r {
				break
			}
			traversed += lv.span
			x = lv.forward
		}
		if traversed == r {
			return x
		}
	}
	return nil
}

// Random returns a uniformly chosen node (nil when empty).
func (z *ZSkip) Random() *ZNode {
	if z.length == 0 {
		return nil
	}
	return z.ByRank(rand.IntN(z.length))
}

// zspec is a score or member range for the walks.
type zspec interface {
	empty() bool
	gteMin(n *ZNode) bool
	lteMax(n *ZNode) bool
}

type zScoreSpec ScoreRange

func (r zScoreSpec) empty() bool          { return ScoreRange(r).Empty() }
func (r zScoreSpec) gteMin(n *ZNode) bool { return ScoreRange(r).GteMin(n.score) }
func (r zScoreSpec) lteMax(n *ZNode) bool { return ScoreRange(r).LteMax(n.score) }

type zLexSpec LexRange

func (r zLexSpec) empty() bool          { return LexRange(r).Empty() }
func (r zLexSpec) gteMin(n *ZNode) bool { return LexRange(r).GteMin(n.MemberString()) }
func (r zLexSpec) lteMax(n *ZNode) bool { return LexRange(r).LteMax(n.MemberString()) }

func (z *ZSkip) inRange(r zspec) bool {
	if r.empty() || z.tail == nil || !r.gteMin(z.tail) {
		return false
	}
	return r.lteMax(z.header.lv[0].forward)
}

func (z *ZSkip) firstIn(r zspec) (*ZNode, int) {
	if !z.inRange(r) {
		return nil, -1
	}
	x, rank := z.header, 0
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			if l.forward == nil || r.gteMin(l.forward) {
				break
			}
			rank += l.span
			x = l.forward
		}
	}
	x = x.lv[0].forward
	if x == nil || !r.lteMax(x) {
		return nil, -1
	}
	return x, rank
}

func (z *ZSkip) lastIn(r zspec) (*ZNode, int) {
	if !z.inRange(r) {
		return nil, -1
	}
	x, rank := z.header, 0
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			if l.forward == nil || !r.lteMax(l.forward) {
				break
			}
			rank += l.span
			x = l.forward
		}
	}
	if x == z.header || !r.gteMin(x) {
		return nil, -1
	}
	return x, rank - 1
}

// FirstInScoreRange returns the lowest node in r and its 0-based rank, or
// (nil, -1).
func (z *ZSkip) FirstInScoreRange(r ScoreRange) (*ZNode, int) { return z.firstIn(zScoreSpec(r)) }

// LastInScoreRange returns the highest node in r and its rank.
func (z *ZSkip) LastInScoreRange(r ScoreRange) (*ZNode, int) { return z.lastIn(zScoreSpec(r)) }

// FirstInLexRange is FirstInScoreRange for a member range.
func (z *ZSkip) FirstInLexRange(r LexRange) (*ZNode, int) { return z.firstIn(zLexSpec(r)) }

// LastInLexRange is LastInScoreRange for a member range.
func (z *ZSkip) LastInLexRange(r LexRange) (*ZNode, int) { return z.lastIn(zLexSpec(r)) }

func (z *ZSkip) countIn(r zspec) int {
	_, first := z.firstIn(r)
	if first < 0 {
		return 0
	}
	_, last := z.lastIn(r)
	return last - first + 1
}

// CountInScoreRange counts the members in r in O(log n).
func (z *ZSkip) CountInScoreRange(r ScoreRange) int { return z.countIn(zScoreSpec(r)) }

// CountInLexRange counts the members in r in O(log n).
func (z *ZSkip) CountInLexRange(r LexRange) int { return z.countIn(zLexSpec(r)) }

// dropRun removes the nodes from the level-0 successor of update[0] while
// keep(node, index) is true, and returns how many it removed.
func (z *ZSkip) dropRun(update *[SkiplistMaxLevel]*ZNode, keep func(n *ZNode, i int) bool) int {
	removed := 0
	z.pauseRH++ // no resize while unlinking a run
	for x := update[0].lv[0].forward; x != nil && keep(x, removed); {
		next := x.lv[0].forward
		z.deleteNode(x, update)
		z.unlink(zhash(x.Member()), x)
		z.memBytes -= zNodeSize(int(x.height), int(x.mlen))
		removed++
		x = next
	}
	z.pauseRH--
	z.shrinkIfNeeded()
	return removed
}

func (z *ZSkip) deleteIn(r zspec) int {
	var update [SkiplistMaxLevel]*ZNode
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			if l.forward == nil || r.gteMin(l.forward) {
				break
			}
			x = l.forward
		}
		update[i] = x
	}
	return z.dropRun(&update, func(n *ZNode, _ int) bool { return r.lteMax(n) })
}

// DeleteRangeByScore removes the members in r and returns how many.
func (z *ZSkip) DeleteRangeByScore(r ScoreRange) int { return z.deleteIn(zScoreSpec(r)) }

// DeleteRangeByLex removes the members in r and returns how many.
func (z *ZSkip) DeleteRangeByLex(r LexRange) int { return z.deleteIn(zLexSpec(r)) }

// DeleteRangeByRank removes 0-based ranks start..end (clamped) and returns
// how many it removed.
func (z *ZSkip) DeleteRangeByRank(start, end int) int {
	start, end = max(start, 0), min(end, z.length-1)
	if start > end {
		return 0
	}
	var update [SkiplistMaxLevel]*ZNode
	traversed := 0
	x := z.header
	for i := z.level - 1; i >= 0; i-- {
		for {
			l := x.lvl(i)
			if l.forward == nil || traversed+l.span > start {
				break
			}
			traversed += l.span
			x = l.forward
		}
		update[i] = x
	}
	n := end - start + 1
	return z.dropRun(&update, func(_ *ZNode, i int) bool { return i < n })
}

// Clone returns an independent copy.
func (z *ZSkip) Clone() *ZSkip {
	c := NewZSkip(z.length)
	// Highest first: every insert then stops at the header.
	for n := z.tail; n != nil; n = n.backward {
		c.Add(n.Member(), n.score)
	}
	return c
}
