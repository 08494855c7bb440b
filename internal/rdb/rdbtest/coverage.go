package rdbtest

import (
	"bytes"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// Coverage returns a fixed dataset with every encoding Valkey 8.0.1 uses
// for strings, lists, sets, sorted sets and hashes under the default
// limits, on both sides of every threshold, with integer and compressible
// strings, expiries, and three databases. Keys are named after what they
// cover.
func Coverage() []*rdb.Entry {
	r := rand.New(rand.NewPCG(1, 2))
	g := gen{r}
	var out []*rdb.Entry
	add := func(db int, key string, kind rdb.Kind) *rdb.Entry {
		e := rdb.NewEntry(db, []byte(key), kind)
		out = append(out, e)
		return e
	}
	ints := func(n int, lo, hi int64) [][]byte {
		return uniq(n, func() []byte { return strconv.AppendInt(nil, lo+r.Int64N(hi-lo+1), 10) })
	}
	strs := func(n, l int) [][]byte {
		return uniq(n, func() []byte { return append([]byte(fmt.Sprintf("m%d:", r.IntN(1e9))), g.text(l)...)[:max(l, 1)] })
	}
	rep := func(s string, n int) []byte { return bytes.Repeat([]byte(s), n) }

	// Strings (db 0).
	strings := map[string][]byte{
		"str:int8": []byte("12"), "str:int-neg": []byte("-100"), "str:int16": []byte("3000"),
		"str:int32": []byte("2147483647"), "str:int64": []byte("9223372036854775807"),
		"str:int-min": []byte("-9223372036854775808"), "str:leading-zero": []byte("007"),
		"str:plus": []byte("+5"), "str:empty": {}, "str:short": []byte("hello"),
		"str:embstr44": rep("e", 44), "str:raw45": rep("r", 45),
		"str:21-compressible": rep("a", 21), "str:20-uncompressed": rep("a", 20),
		"str:text-1k": g.text(1000), "str:random-1k": g.bytes(1000),
		"str:text-100k": g.text(100000), "str:float": []byte("3.14"),
	}
	for _, k := range slices.Sorted(maps.Keys(strings)) {
		add(0, k, rdb.KindString).String = strings[k]
	}
	add(0, "12345", rdb.KindString).String = []byte("integer key")
	add(0, "-7", rdb.KindString).String = []byte("negative integer key")
	add(0, string(rep("K", 30)), rdb.KindString).String = []byte("compressible key")

	// Lists (db 0).
	add(0, "list:small", rdb.KindList).List = [][]byte{[]byte("a"), []byte("1"), []byte("-4096"), []byte("70000"), []byte("5000000000"), rep("z", 100), rep("y", 5000)}
	add(0, "list:listpack-8k", rdb.KindList).List = strs(150, 50)
	add(0, "list:quicklist", rdb.KindList).List = strs(1000, 40)
	add(0, "list:ints", rdb.KindList).List = ints(3000, -1<<40, 1<<40)
	l := add(0, "list:plain", rdb.KindList)
	l.List = [][]byte{[]byte("head"), g.text(9000), []byte("mid"), g.bytes(20000), []byte("tail")}
	add(0, "list:one-plain", rdb.KindList).List = [][]byte{g.text(8193)}
	add(0, "list:8192", rdb.KindList).List = [][]byte{g.text(8192)}

	// Sets (db 1).
	add(1, "set:intset16", rdb.KindSet).Set = ints(50, -30000, 30000)
	add(1, "set:intset32", rdb.KindSet).Set = append(ints(50, -30000, 30000), []byte("100000"))
	add(1, "set:intset64", rdb.KindSet).Set = append(ints(50, -30000, 30000), []byte("-10000000000"))
	add(1, "set:intset512", rdb.KindSet).Set = ints(512, 0, 1<<50)
	add(1, "set:ints513", rdb.KindSet).Set = ints(513, 0, 1<<50)
	add(1, "set:listpack", rdb.KindSet).Set = append(strs(20, 10), []byte("42"), []byte("-1"))
	add(1, "set:listpack128", rdb.KindSet).Set = strs(128, 64)
	add(1, "set:hashtable129", rdb.KindSet).Set = strs(129, 10)
	add(1, "set:long-member", rdb.KindSet).Set = append(strs(5, 10), rep("L", 65))
	add(1, "set:big", rdb.KindSet).Set = strs(2000, 30)
	add(1, "set:not-canonical", rdb.KindSet).Set = [][]byte{[]byte("01"), []byte("1"), []byte("-0"), []byte("0")}

	// Sorted sets (db 1).
	zs := func(members [][]byte) []rdb.ZMember {
		out := make([]rdb.ZMember, len(members))
		for i, m := range members {
			out[i] = rdb.ZMember{Member: m, Score: g.score()}
		}
		return out
	}
	add(1, "zset:listpack", rdb.KindZSet).ZSet = zs(strs(10, 8))
	special := []float64{math.Inf(1), math.Inf(-1), 0, 0.1, 1e-7, 1e20, 2.5e-5, -3.75, 1e17, 1.7976931348623157e308,
		123456789012345678, 1000000.5, -1e-300, 5e-324, 0.30000000000000004, 4611686018427387904, -4611686018427387904, 1 << 62, 1.5e300, 33.333333333333336}
	zsp := add(1, "zset:scores", rdb.KindZSet)
	for i, s := range special {
		zsp.ZSet = append(zsp.ZSet, rdb.ZMember{Member: []byte(fmt.Sprintf("s%d", i)), Score: s})
	}
	tie := add(1, "zset:ties", rdb.KindZSet)
	for _, m := range []string{"b", "a", "10", "c", "2"} {
		tie.ZSet = append(tie.ZSet, rdb.ZMember{Member: []byte(m), Score: 1})
	}
	add(1, "zset:listpack128", rdb.KindZSet).ZSet = zs(strs(128, 64))
	add(1, "zset:skiplist129", rdb.KindZSet).ZSet = zs(strs(129, 10))
	add(1, "zset:long-member", rdb.KindZSet).ZSet = zs(append(strs(3, 5), rep("M", 65)))
	add(1, "zset:big", rdb.KindZSet).ZSet = zs(strs(1500, 25))
	zsk := add(1, "zset:skiplist-scores", rdb.KindZSet)
	zsk.ZSet = append(zs(strs(200, 8)), zsp.ZSet...)

	// Hashes (db 5).
	hs := func(fields [][]byte, vl int) []rdb.HashField {
		out := make([]rdb.HashField, len(fields))
		for i, f := range fields {
			var v []byte
			if i%3 == 0 {
				v = strconv.AppendInt(nil, r.Int64N(1<<40)-1<<39, 10)
			} else {
				v = g.text(r.IntN(vl + 1))
			}
			out[i] = rdb.HashField{Field: f, Value: v}
		}
		return out
	}
	add(5, "hash:listpack", rdb.KindHash).Hash = hs(strs(10, 8), 20)
	add(5, "hash:listpack512", rdb.KindHash).Hash = hs(strs(512, 64), 64)
	add(5, "hash:hashtable513", rdb.KindHash).Hash = hs(strs(513, 8), 8)
	add(5, "hash:long-value", rdb.KindHash).Hash = append(hs(strs(3, 8), 8), rdb.HashField{Field: []byte("f"), Value: rep("V", 65)})
	add(5, "hash:long-field", rdb.KindHash).Hash = append(hs(strs(3, 8), 8), rdb.HashField{Field: rep("F", 65), Value: []byte("v")})
	add(5, "hash:int-fields", rdb.KindHash).Hash = hs(ints(30, -5000, 5000), 10)
	add(5, "hash:big", rdb.KindHash).Hash = hs(strs(1000, 20), 200)

	// Expiries, spread over types and databases.
	for i, e := range out {
		if i%4 == 1 {
			e.ExpireMs = 4102444800000 + int64(i)*1000 // in 2100
		}
	}
	return out
}
