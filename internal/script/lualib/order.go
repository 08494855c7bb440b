package lualib

import (
	"math"
	"math/bits"

	lua "github.com/corvid-kv/corvid/internal/lua"
)

// The order of Lua 5.1's next().
//
// cjson writes an object's members, and cmsgpack a map's pairs, in the
// order lua_next visits the table: the array part by index, then the hash
// part's nodes by position. That order is a function of the keys' hashes
// and of the table's history (its sizes, and the collisions resolved while
// it grew), and scripts see it in the strings they compare.
//
// gopher-lua keeps insertion order instead, so luaOrder replays the keys
// (in the order tableEntries gives) into a model of Lua 5.1's table (ltable.c: array
// part, node vector with chained scatter, lastfree, rehash/computesizes)
// starting from an empty table, and reads the model's order back. That is
// exact for tables built key by key (t[k] = v, cjson.decode,
// cmsgpack.unpack) and for constructors whose keys do not collide; a table
// constructor presizes the hash part, so a constructor whose keys collide
// can resolve them in other nodes than incremental growth does.

// maxBits is ltable.c's MAXBITS: array sizes up to 2^maxBits.
const maxBits = 30

// entry is one key/value pair of a table being ordered.
type entry struct {
	key, val lua.LValue
}

// simNode is a node of the model's hash part: the entry it holds (-1 when
// free) and the next node of its collision chain (-1 at the end).
type simNode struct {
	entry int
	next  int
}

// simTable is the model of one Lua 5.1 table.
type simTable struct {
	entries  []entry
	array    []int // entry index per array slot, -1 when nil
	nodes    []simNode
	lastfree int
	hashes   []uint32 // per entry: the key's hash, see keyHash
}

// tableEntries returns t's non-nil pairs in the order luaOrder replays
// them. gopher-lua keeps every positive integer key in its array part and
// the other keys in insertion order, so when the integer keys were set
// relative to the others is lost. The replay takes the run 1..n without a
// hole first (an array built in order, by a constructor or a loop), then
// the other keys in insertion order, then the remaining integer keys
// (set one by one, like hash keys) in ascending order.
func tableEntries(t *lua.LTable) []entry {
	var dense, hash, sparse []entry
	inPrefix := true
	next := 1
	for k, v := t.Next(lua.LNil); k != lua.LNil; k, v = t.Next(k) {
		n, isNum := k.(lua.LNumber)
		switch {
		case isNum && inPrefix && float64(n) == float64(next):
			dense = append(dense, entry{k, v})
			next++
		case isNum && n >= 1 && float64(n) == math.Floor(float64(n)) && float64(n) < float64(lua.MaxArrayIndex):
			inPrefix = false
			sparse = append(sparse, entry{k, v})
		default:
			hash = append(hash, entry{k, v})
		}
	}
	if len(hash) == 0 && len(sparse) == 0 {
		return dense
	}
	return append(append(dense, hash...), sparse...)
}

// luaOrder returns t's non-nil pairs in the order Lua 5.1's next() would
// visit them (see the comment above).
func luaOrder(t *lua.LTable) []entry {
	return orderEntries(tableEntries(t))
}

// orderEntries reorders entries, given in insertion order, as Lua 5.1's
// next() visits a table built by inserting them one by one.
func orderEntries(es []entry) []entry {
	if len(es) <= 1 {
		return es
	}
	st := &simTable{entries: es, hashes: make([]uint32, len(es))}
	for i, e := range es {
		st.hashes[i] = keyHash(e.key, i)
	}
	for i := range es {
		st.set(i)
	}
	out := make([]entry, 0, len(es))
	for _, e := range st.array {
		if e >= 0 {
			out = append(out, es[e])
		}
	}
	for _, n := range st.nodes {
		if n.entry >= 0 {
			out = append(out, es[n.entry])
		}
	}
	return out
}

// keyHash is the part of a key's main position that does not depend on the
// table: a string's luaS_hash, a number's two 32-bit halves added, a
// boolean's value. Other keys hash by address in Lua, which no script can
// rely on; they get their insertion index.
func keyHash(k lua.LValue, i int) uint32 {
	switch k := k.(type) {
	case lua.LString:
		return stringHash(string(k))
	case lua.LNumber:
		b := math.Float64bits(float64(k))
		return uint32(b) + uint32(b>>32)
	case lua.LBool:
		if k {
			return 1
		}
		return 0
	}
	return uint32(i)
}

// stringHash is Lua 5.1's luaS_hash as Valkey 8.0.1 builds it: seeded with
// the length, and over every byte (stock Lua 5.1 hashes only some bytes of
// a long string; Redis's copy, which Valkey inherits, hashes them all).
func stringHash(s string) uint32 {
	h := uint32(len(s))
	for i := len(s); i >= 1; i-- {
		h ^= (h << 5) + (h >> 2) + uint32(s[i-1])
	}
	return h
}

// mainPosition is ltable.c's mainposition for entry e.
func (st *simTable) mainPosition(e int) int {
	size := uint32(len(st.nodes))
	h := st.hashes[e]
	switch k := st.entries[e].key.(type) {
	case lua.LString, lua.LBool:
		return int(h & (size - 1))
	case lua.LNumber:
		if k == 0 { // +0 and -0 both go to node 0
			return 0
		}
	}
	return int(h % ((size - 1) | 1))
}

// arrayIndex is ltable.c's arrayindex: the key as an int when it is a
// number with an int value, else -1.
func arrayIndex(k lua.LValue) int {
	if n, ok := k.(lua.LNumber); ok {
		i := toInt32(float64(n))
		if float64(i) == float64(n) {
			return int(i)
		}
	}
	return -1
}

// set inserts entry e (luaH_set for a key not yet present).
func (st *simTable) set(e int) {
	if k := arrayIndex(st.entries[e].key); k >= 1 && k <= len(st.array) {
		st.array[k-1] = e
		return
	}
	st.newKey(e)
}

// newKey is ltable.c's newkey: place e at its main position, moving a
// colliding node that is not in its own main position to a free node, or
// chaining e into a free node.
func (st *simTable) newKey(e int) {
	if len(st.nodes) == 0 {
		st.rehash(e)
		st.set(e)
		return
	}
	mp := st.mainPosition(e)
	if st.nodes[mp].entry >= 0 {
		free := st.freePos()
		if free < 0 {
			st.rehash(e)
			st.set(e)
			return
		}
		other := st.mainPosition(st.nodes[mp].entry)
		if other != mp {
			for st.nodes[other].next != mp {
				other = st.nodes[other].next
			}
			st.nodes[other].next = free
			st.nodes[free] = st.nodes[mp]
			st.nodes[mp] = simNode{entry: -1, next: -1}
		} else {
			st.nodes[free].next = st.nodes[mp].next
			st.nodes[mp].next = free
			mp = free
		}
	}
	st.nodes[mp].entry = e
}

// freePos is ltable.c's getfreepos: lastfree moves down to a free node.
func (st *simTable) freePos() int {
	for st.lastfree > 0 {
		st.lastfree--
		if st.nodes[st.lastfree].entry < 0 {
			return st.lastfree
		}
	}
	return -1
}

// ceilLog2 is ltable.c's ceillog2 for x >= 1.
func ceilLog2(x int) int {
	return bits.Len(uint(x - 1))
}

// countInt counts key k in nums when it is a candidate array index.
func countInt(k lua.LValue, nums *[maxBits + 1]int) int {
	i := arrayIndex(k)
	if i > 0 && i <= 1<<maxBits {
		nums[ceilLog2(i)]++
		return 1
	}
	return 0
}

// rehash is ltable.c's rehash: size the array part to the largest n such
// that more than half of 1..n are in use, the hash part to the rest, and
// reinsert, counting the key e about to be inserted.
func (st *simTable) rehash(e int) {
	var nums [maxBits + 1]int
	nasize := 0
	// numusearray: the array part's keys, counted by slice (2^(lg-1), 2^lg].
	i := 1
	for lg, ttlg := 0, 1; lg <= maxBits; lg, ttlg = lg+1, ttlg*2 {
		lim := ttlg
		if lim > len(st.array) {
			lim = len(st.array)
			if i > lim {
				break
			}
		}
		lc := 0
		for ; i <= lim; i++ {
			if st.array[i-1] >= 0 {
				lc++
			}
		}
		nums[lg] += lc
		nasize += lc
	}
	total := nasize
	for j := len(st.nodes) - 1; j >= 0; j-- {
		if n := st.nodes[j]; n.entry >= 0 {
			nasize += countInt(st.entries[n.entry].key, &nums)
			total++
		}
	}
	nasize += countInt(st.entries[e].key, &nums)
	total++
	// computesizes
	a, na, n := 0, 0, 0
	for i, twotoi := 0, 1; twotoi/2 < nasize; i, twotoi = i+1, twotoi*2 {
		if nums[i] > 0 {
			a += nums[i]
			if a > twotoi/2 {
				n = twotoi
				na = a
			}
		}
		if a == nasize {
			break
		}
	}
	st.resize(n, total-na)
}

// resize is ltable.c's resize: new array and node vectors, then the
// entries of the vanishing array slice and of the old nodes (last node
// first) inserted again.
func (st *simTable) resize(nasize, nhsize int) {
	oldArray := st.array
	oldNodes := st.nodes
	if nasize > len(oldArray) {
		grown := make([]int, nasize)
		copy(grown, oldArray)
		for i := len(oldArray); i < nasize; i++ {
			grown[i] = -1
		}
		st.array = grown
	}
	size := 0
	if nhsize > 0 {
		size = 1 << ceilLog2(nhsize)
	}
	st.nodes = make([]simNode, size)
	for i := range st.nodes {
		st.nodes[i] = simNode{entry: -1, next: -1}
	}
	st.lastfree = size
	if nasize < len(oldArray) {
		st.array = oldArray[:nasize]
		for i := nasize; i < len(oldArray); i++ {
			if oldArray[i] >= 0 {
				st.set(oldArray[i])
			}
		}
	}
	for i := len(oldNodes) - 1; i >= 0; i-- {
		if e := oldNodes[i].entry; e >= 0 {
			st.set(e)
		}
	}
}
