package lua

import "testing"

// luaLenCases are tables built by scripts and the length Lua 5.1 gives
// them (Valkey 8.0.1's answers to the same scripts; the script
// differential test compares the two servers directly).
var luaLenCases = []struct {
	code string
	want int
}{
	{`local t = {} t[10]=nil t[9]=10 t[8]=nil t[7]=10`, 0},
	{`local t = {1, 2, 3, 4, 5} t[4] = nil`, 5},
	{`local t = {} for i=1,5 do t[i]=i end t[4] = nil`, 3},
	{`local t = {1, nil, 3}`, 3},
	{`local t = {nil, nil, 3}`, 3},
	{`local t = {1, 2, nil, 4}`, 4},
	{`local t = {n = 1, 1, 2, nil, 4}`, 4},
	{`local function f() return 1, 2, nil, 4 end local t = {f()}`, 4},
	{`local function f() return 1, nil, nil, nil, nil, 6 end local t = {f()}`, 6},
	{`local t = {} t[1] = 1 t[3] = 3`, 1},
	{`local t = {} t[1] = 1 t[2] = 2 t[4] = 4`, 4},
	{`local t = {} t[2] = 2`, 0},
	{`local t = {} t[1] = 1 t[2] = 2 t[3] = 3 t[5] = 5 t[6] = 6`, 3},
	{`local t = {} for i = 1, 10 do t[i] = i end t[5] = nil`, 10},
	{`local t = {} for i = 1, 10 do t[i] = i end t[10] = nil t[9] = nil`, 8},
	{`local t = {} for i = 1, 17 do t[i] = i end t[16] = nil`, 15},
	{`local t = {a = 1, b = 2} t[1] = 1 t[2] = 2 t[4] = 4`, 4},
	{`local t = {} t.x = 1 t[1] = 1 t[2] = 2 t[3] = nil t[4] = 4`, 4},
	{`local t = {1, 2, 3} t[5] = 5`, 3},
	{`local t = {1, 2, 3} t[4] = 4 t[6] = 6`, 6},
	{`local t = {} for i = 1, 100 do t[i] = i end for i = 1, 100, 3 do t[i] = nil end`, 63},
	{`local t = {} for i = 100, 1, -1 do t[i] = i end t[50] = nil`, 100},
	{`local t = {} t[1] = 1 t[2] = nil t[3] = 3`, 1},
	{`local t = {} t.a = 1 t.b = 2 t.c = 3 t.a = nil t.d = 4 t[1] = 1 t[3] = 3`, 1},
	{`local t = {} table.insert(t, 1) table.insert(t, 2) table.insert(t, 3) t[2] = nil`, 1},
	{`local t = {} t[1] = 1 t[2] = 2 t[3] = 3 t[4] = 4 t[5] = 5 t[3] = nil`, 5},
	{`local t = {unpack({1, 2, 3, nil, 5})}`, 5},
	{`local t = {1, 2, 3} t[2] = nil t[5] = 5`, 1},
	{`local t = {} for i = 1, 8 do t[i] = i end t[8] = nil t[9] = 9`, 7},
	{`local t = {} t[3] = 3 t[2] = 2 t[1] = 1`, 3},
	{`local t = {} t[4] = 4 t[3] = 3 t[2] = 2 t[1] = 1`, 4},
	{`local t = {} t[4] = 4 t[3] = 3 t[2] = 2 t[1] = 1 t[5] = 5 t[3] = nil`, 5},
	{`local t = {} for i = 1, 30 do t[i * 2] = i end`, 0},
	{`local t = {[1] = 1, [2] = 2, [4] = 4}`, 4},
	{`local t = {[1] = 1, [2] = 2, [3] = 3, [5] = 5}`, 3},
	{`local t = {x = 1, y = 2, [1] = 1, [2] = 2, [3] = 3, [5] = 5} t[3] = nil`, 2},
}

func TestLuaTableLength(t *testing.T) {
	L := NewState()
	defer L.Close()
	for _, c := range luaLenCases {
		if err := L.DoString(c.code + " return #t"); err != nil {
			t.Fatalf("%s: %v", c.code, err)
		}
		got := L.Get(-1)
		L.Pop(1)
		if got != LNumber(c.want) {
			t.Errorf("%s: #t is %v, Lua 5.1 says %d", c.code, got, c.want)
		}
	}
}

// TestLuaTableSizes checks the model's sizes against ltable.c's for tables
// built key by key.
func TestLuaTableSizes(t *testing.T) {
	tb := newLTable(0, 0)
	for i := 1; i <= 5; i++ {
		tb.RawSetInt(i, LNumber(i))
	}
	if tb.lsa != 8 || tb.lnode != 0 {
		t.Errorf("1..5: sizearray %d, nodes %d; Lua: 8, 0", tb.lsa, tb.lnode)
	}
	tb.RawSetString("a", LTrue)
	tb.RawSetString("b", LTrue)
	if tb.lsa != 8 || tb.lnode != 2 || tb.lfree != 0 {
		t.Errorf("+a, b: sizearray %d, nodes %d, free %d; Lua: 8, 2, 0", tb.lsa, tb.lnode, tb.lfree)
	}
	tb.RawSetString("a", LNil) // a stays as a node until the next rehash
	tb.RawSetString("a", LTrue)
	if tb.lnode != 2 || tb.lfree != 0 {
		t.Errorf("a removed and set again: nodes %d, free %d; Lua: 2, 0", tb.lnode, tb.lfree)
	}
	tb.RawSetString("c", LTrue) // a rehash: 5 + 3 keys
	if tb.lsa != 8 || tb.lnode != 4 || tb.lfree != 1 {
		t.Errorf("+c: sizearray %d, nodes %d, free %d; Lua: 8, 4, 1", tb.lsa, tb.lnode, tb.lfree)
	}
	tb.Clear()
	if tb.lsa != 0 || tb.lnode != 0 || tb.Len() != 0 {
		t.Errorf("cleared: sizearray %d, nodes %d, # %d", tb.lsa, tb.lnode, tb.Len())
	}
}
