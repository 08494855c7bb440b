package lua

import (
	"strings"
)

func OpenTable(L *LState) int {
	tabmod := L.RegisterModule(TabLibName, tableFuncs)
	L.Push(tabmod)
	return 1
}

var tableFuncs = map[string]LGFunction{
	"getn":     tableGetN,
	"concat":   tableConcat,
	"foreach":  tableForeach,
	"foreachi": tableForeachi,
	"insert":   tableInsert,
	"maxn":     tableMaxN,
	"remove":   tableRemove,
	"setn":     tableSetn,
	"sort":     tableSort,
}

// tableForeach is Lua 5.1's (deprecated) foreach: f(k, v) for every
// pair, stopping at the first value f returns that is not nil.
func tableForeach(L *LState) int {
	tbl := L.CheckTable(1)
	fn := L.CheckFunction(2)
	for k, v := tbl.Next(LNil); k != LNil; k, v = tbl.Next(k) {
		L.Push(fn)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if ret := L.Get(-1); ret != LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tableForeachi is Lua 5.1's foreachi: f(i, t[i]) for i in 1..#t.
func tableForeachi(L *LState) int {
	tbl := L.CheckTable(1)
	n := tbl.Len()
	fn := L.CheckFunction(2)
	for i := 1; i <= n; i++ {
		L.Push(fn)
		L.Push(LNumber(i))
		L.Push(tbl.RawGetInt(i))
		L.Call(2, 1)
		if ret := L.Get(-1); ret != LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

// tableSetn is Lua 5.1's setn, which a Lua built without LUA_COMPAT_GETN
// (as Valkey's) refuses.
func tableSetn(L *LState) int {
	L.CheckTable(1)
	L.RaiseError("'setn' is obsolete")
	return 0
}

// The table library as Lua 5.1's ltablib.c: the length is the table's
// border (#), elements are read and written raw, and sort is Lua's own
// quicksort (the order it leaves elements its comparison finds equal in,
// and when it finds an order function invalid, are Lua's).

func tableSort(L *LState) int {
	tbl := L.CheckTable(1)
	n := tbl.Len()
	var fn LValue = LNil
	if L.GetTop() >= 2 && L.Get(2) != LNil {
		fn = L.CheckFunction(2)
	}
	L.SetTop(2)
	s := &luaSorter{L: L, t: tbl, fn: fn}
	s.auxsort(1, n)
	return 0
}

type luaSorter struct {
	L  *LState
	t  *LTable
	fn LValue
}

// lt is sort_comp: the order function's answer, or a < b.
func (s *luaSorter) lt(a, b LValue) bool {
	if s.fn == LNil {
		return lessThan(s.L, a, b)
	}
	L := s.L
	L.Push(s.fn)
	L.Push(a)
	L.Push(b)
	L.Call(2, 1)
	return LVAsBool(L.reg.Pop())
}

func (s *luaSorter) get(i int) LValue    { return s.t.RawGetInt(i) }
func (s *luaSorter) set(i int, v LValue) { s.L.RawSetInt(s.t, i, v) }

// auxsort is ltablib.c's auxsort, with its stack slots as variables.
func (s *luaSorter) auxsort(l, u int) {
	for l < u { // for tail recursion
		// sort elements a[l], a[(l+u)/2] and a[u]
		al, au := s.get(l), s.get(u)
		if s.lt(au, al) { // a[u] < a[l]?
			s.set(l, au)
			s.set(u, al)
		}
		if u-l == 1 {
			break // only 2 elements
		}
		i := (l + u) / 2
		ai := s.get(i)
		al = s.get(l)
		if s.lt(ai, al) { // a[i] < a[l]?
			s.set(i, al)
			s.set(l, ai)
		} else {
			au = s.get(u)
			if s.lt(au, ai) { // a[u] < a[i]?
				s.set(i, au)
				s.set(u, ai)
			}
		}
		if u-l == 2 {
			break // only 3 elements
		}
		p := s.get(i) // the pivot
		s.set(i, s.get(u-1))
		s.set(u-1, p)
		// a[l] <= P == a[u-1] <= a[u], only need to sort from l+1 to u-2
		i = l
		j := u - 1
		for { // invariant: a[l..i] <= P <= a[j..u]
			var aj LValue
			for { // repeat ++i until a[i] >= P
				i++
				ai = s.get(i)
				if !s.lt(ai, p) {
					break
				}
				if i > u {
					s.L.RaiseError("invalid order function for sorting")
				}
			}
			for { // repeat --j until a[j] <= P
				j--
				aj = s.get(j)
				if !s.lt(p, aj) {
					break
				}
				if j < l {
					s.L.RaiseError("invalid order function for sorting")
				}
			}
			if j < i {
				break
			}
			s.set(i, aj)
			s.set(j, ai)
		}
		au1 := s.get(u - 1)
		s.set(u-1, s.get(i)) // swap the pivot (a[u-1]) with a[i]
		s.set(i, au1)
		// a[l..i-1] <= a[i] == P <= a[i+1..u]; sort the smaller half
		// recursively and the larger one in the loop
		if i-l < u-i {
			j = l
			i = i - 1
			l = i + 2
		} else {
			j = i + 1
			i = u
			u = j - 2
		}
		s.auxsort(j, i)
	}
}

func tableGetN(L *LState) int {
	L.Push(LNumber(L.CheckTable(1).Len()))
	return 1
}

// tableMaxN is Lua 5.1's maxn: the largest positive numeric key, 0 when
// there is none.
func tableMaxN(L *LState) int {
	tbl := L.CheckTable(1)
	var max LNumber
	for k, _ := tbl.Next(LNil); k != LNil; k, _ = tbl.Next(k) {
		if n, ok := k.(LNumber); ok && n > max {
			max = n
		}
	}
	L.Push(max)
	return 1
}

// tableRemove is Lua 5.1's tremove: nothing when the position is out of
// 1..#t, else the element, the ones after it moved down.
func tableRemove(L *LState) int {
	tbl := L.CheckTable(1)
	e := tbl.Len()
	pos := L.OptInt(2, e)
	if !(1 <= pos && pos <= e) {
		return 0 // nothing to remove
	}
	L.Push(tbl.RawGetInt(pos))
	for ; pos < e; pos++ {
		L.RawSetInt(tbl, pos, tbl.RawGetInt(pos+1))
	}
	L.RawSetInt(tbl, e, LNil)
	return 1
}

// tableConcat is Lua 5.1's tconcat: the interval is not clamped to the
// table's length, and a value that is not a string or a number is an
// error.
func tableConcat(L *LState) int {
	sep := L.OptString(2, "")
	tbl := L.CheckTable(1)
	i := L.OptInt(3, 1)
	last := L.OptInt(4, 0)
	if L.Get(4) == LNil {
		last = tbl.Len()
	}
	var b strings.Builder
	field := func(i int) {
		v := tbl.RawGetInt(i)
		if !LVCanConvToString(v) {
			// Valkey's Lua words it so (stock 5.1: "(at index %d)")
			L.RaiseError("invalid value (%s) at index %d in table for 'concat'", v.Type().String(), i)
		}
		b.WriteString(LVAsString(v))
	}
	for ; i < last; i++ {
		field(i)
		b.WriteString(sep)
	}
	if i == last { // the last value, when the interval was not empty
		field(i)
	}
	L.Push(LString(b.String()))
	return 1
}

// tableInsert is Lua 5.1's tinsert: at #t+1, or at a position with the
// elements from there moved up.
func tableInsert(L *LState) int {
	tbl := L.CheckTable(1)
	e := tbl.Len() + 1 // the first empty element
	var pos int
	switch L.GetTop() {
	case 2:
		pos = e
	case 3:
		pos = L.CheckInt(2)
		if pos > e {
			e = pos // "grow" the array if necessary
		}
		for i := e; i > pos; i-- { // move up elements
			L.RawSetInt(tbl, i, tbl.RawGetInt(i-1))
		}
	default:
		L.RaiseError("wrong number of arguments to 'insert'")
	}
	L.RawSetInt(tbl, pos, L.Get(L.GetTop()))
	return 0
}
