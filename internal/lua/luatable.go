package lua

import "math/bits"

// Lua 5.1's table sizes, for the length operator.
//
// # (luaH_getn) answers a border of the table, and which border depends
// on how Lua 5.1 laid the table out: the size of its array part and
// whether its hash part is empty. A table with holes has several borders
// ({1, nil, 3} has 1 and 3), and scripts see which one Lua picks. gopher-
// lua keeps its own layout (every positive integer key in one slice), so
// LTable also keeps the sizes ltable.c would have given the table and
// follows its rules for changing them: lua_createtable's and a
// constructor's sizes, a rehash (computesizes) when a new key finds no
// free node, SETLIST's resize. Keys go where Lua puts them: integer keys
// 1..sizearray in the array part, every other key in a node, which it
// keeps (with a nil value) until the next rehash.
//
// The count of free nodes is exact when no key is removed; when keys are
// removed Lua may give a new key the node of a removed one whose main
// position it shares (a hash collision), which the model does not track,
// so it may rehash later than Lua there. Lua's hash order itself (next,
// pairs) is not modelled here (lualib/order.go replays it where Valkey's
// libraries expose it).

const (
	luaMaxBits  = 30 // MAXBITS
	luaMaxASize = 1 << luaMaxBits
	luaMaxInt   = 1<<31 - 1 - 2 // MAX_INT
)

// luaCreate gives the empty table lua_createtable(narr, nrec)'s sizes.
func (tb *LTable) luaCreate(narr, nrec int) {
	tb.lsa = int32(narr)
	tb.lnode = int32(luaNodes(nrec))
	tb.lfree = tb.lnode
	tb.ldead = nil
}

// luaNodes is setnodevector's size for n keys: 0 (the dummy node) or
// the power of two that holds them.
func luaNodes(n int) int {
	if n <= 0 {
		return 0
	}
	return 1 << luaCeilLog2(n)
}

// luaCeilLog2 is ceillog2: ceil(log2(x)) for x >= 1.
func luaCeilLog2(x int) int {
	return bits.Len(uint(x - 1))
}

// luaArrayKey reports whether key is in Lua's array part, 1..sizearray.
func (tb *LTable) luaArrayKey(key LValue) bool {
	n, ok := key.(LNumber)
	return ok && float64(n) >= 1 && float64(n) <= float64(tb.lsa) && float64(n) == float64(int64(n))
}

// luaKey is a key being set, boxed only when the model needs an LValue
// (the dead keys): v, or the integer i (v nil, s ""), or the string s.
type luaKey struct {
	v     LValue
	i     int
	s     string
	isStr bool
}

func (k luaKey) value() LValue {
	switch {
	case k.v != nil:
		return k.v
	case k.isStr:
		return LString(k.s)
	}
	return LNumber(k.i)
}

// int is the key as a countable array index (countint), 0 if it is not.
func (k luaKey) int() int {
	if k.v == nil {
		if k.isStr || k.i < 1 || k.i > luaMaxASize {
			return 0
		}
		return k.i
	}
	if n, ok := k.v.(LNumber); ok && float64(n) >= 1 && float64(n) <= luaMaxASize && float64(n) == float64(int64(n)) {
		return int(n)
	}
	return 0
}

// luaSetNode follows luaH_set for key, a key of the hash part: had is
// whether the table holds a value for it, stored whether the new value
// is already in gopher-lua's storage (for a rehash's count), toNil
// whether the new value is nil.
func (tb *LTable) luaSetNode(key LValue, had, stored, toNil bool) {
	tb.luaSet(luaKey{v: key}, had, stored, toNil)
}

// luaSetNodeInt is luaSetNode for the integer key k.
func (tb *LTable) luaSetNodeInt(k int, had, toNil bool) {
	tb.luaSet(luaKey{i: k}, had, false, toNil)
}

// luaSetNodeStr is luaSetNode for the string key s.
func (tb *LTable) luaSetNodeStr(s string, had, stored, toNil bool) {
	tb.luaSet(luaKey{s: s, isStr: true}, had, stored, toNil)
}

func (tb *LTable) luaSet(key luaKey, had, stored, toNil bool) {
	var kv LValue
	dead := false
	if tb.ldead != nil {
		kv = key.value()
		_, dead = tb.ldead[kv]
	}
	if !had && !dead { // luaH_newkey
		if tb.lfree == 0 {
			tb.luaRehash(key, stored)
			if k := key.int(); k > 0 && k <= int(tb.lsa) {
				return // the key goes to the array part
			}
		}
		tb.lfree--
	}
	switch {
	case toNil:
		if tb.ldead == nil {
			tb.ldead = make(map[LValue]struct{})
		}
		if kv == nil {
			kv = key.value()
		}
		tb.ldead[kv] = struct{}{}
	case dead:
		delete(tb.ldead, kv)
	}
}

// luaCount calls f for every key with a value, as Lua counts them: k is
// the key as an array index (0 for a key that is not one).
func (tb *LTable) luaCount(f func(k int)) {
	for i, v := range tb.array {
		if v != LNil && v != nil {
			f(i + 1)
		}
	}
	for range tb.strdict {
		f(0)
	}
	for k, v := range tb.dict {
		if v == LNil {
			continue
		}
		f(luaKey{v: k}.int())
	}
}

// luaRehash is rehash(t, ek): the sizes the table's keys, and ek, call
// for. stored: ek is in gopher-lua's storage already (counted there).
func (tb *LTable) luaRehash(ek luaKey, stored bool) {
	var nums [luaMaxBits + 1]int
	nasize, totaluse := 0, 0
	tb.luaCount(func(k int) {
		totaluse++
		if k > 0 {
			nums[luaCeilLog2(k)]++
			nasize++
		}
	})
	if !stored { // count the extra key
		if k := ek.int(); k > 0 {
			nums[luaCeilLog2(k)]++
			nasize++
		}
		totaluse++
	}
	na := luaComputeSizes(&nums, &nasize)
	tb.luaResize(nasize, totaluse-na, ek, stored)
}

// luaComputeSizes is computesizes: the array size (into *narray) that
// more than half its slots would use, and how many keys it takes.
func luaComputeSizes(nums *[luaMaxBits + 1]int, narray *int) int {
	a, na, n := 0, 0, 0
	for i, twotoi := 0, 1; twotoi/2 < *narray; i, twotoi = i+1, twotoi*2 {
		if nums[i] > 0 {
			a += nums[i]
			if a > twotoi/2 { // more than half the elements present?
				n = twotoi // the best size so far
				na = a     // all elements below n go to the array part
			}
		}
		if a == *narray {
			break // all elements counted
		}
	}
	*narray = n
	return na
}

// luaResize is resize(t, nasize, nhsize): the live keys are re-inserted
// (the dead ones dropped); ek, the key being set, is not among them yet
// (stored: it is in gopher-lua's storage, counted below). The free nodes
// are what the re-inserted keys leave.
func (tb *LTable) luaResize(nasize, nhsize int, ek luaKey, stored bool) {
	tb.lsa = int32(nasize)
	tb.lnode = int32(luaNodes(nhsize))
	tb.ldead = nil
	used := 0
	tb.luaCount(func(k int) {
		if k == 0 || k > nasize {
			used++ // in a node
		}
	})
	if stored {
		if k := ek.int(); k == 0 || k > nasize {
			used-- // re-inserted by the caller
		}
	}
	tb.lfree = tb.lnode - int32(used)
	if tb.lfree < 0 {
		tb.lfree = 0
	}
}

// luaResizeArray is luaH_resizearray (SETLIST of a constructor whose last
// item has several values): the array part grows to n, the hash part
// keeps its size.
func (tb *LTable) luaResizeArray(n int) {
	tb.luaResize(n, int(tb.lnode), luaKey{}, false)
}

// luaGetN is luaH_getn.
func (tb *LTable) luaGetN() int {
	j := int(tb.lsa)
	if j > 0 && tb.RawGetInt(j) == LNil {
		// a border in the array part: binary search for it
		i := 0
		for j-i > 1 {
			m := int(uint(i+j) / 2)
			if tb.RawGetInt(m) == LNil {
				j = m
			} else {
				i = m
			}
		}
		return i
	}
	if tb.lnode == 0 {
		return j // the hash part is empty
	}
	return tb.luaUnboundSearch(j)
}

// luaUnboundSearch is unbound_search: a border past j, in the hash part.
func (tb *LTable) luaUnboundSearch(j int) int {
	i := j // zero or a present index
	j++
	// find i and j such that i is present and j is not
	for tb.RawGetInt(j) != LNil {
		i = j
		j *= 2
		if j > luaMaxInt { // overflow: a linear search
			i = 1
			for tb.RawGetInt(i) != LNil {
				i++
			}
			return i - 1
		}
	}
	// a binary search between them
	for j-i > 1 {
		m := int(uint(i+j) / 2)
		if tb.RawGetInt(m) == LNil {
			j = m
		} else {
			i = m
		}
	}
	return i
}
