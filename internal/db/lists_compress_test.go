package db

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// listObject returns the list stored at key (nil if none).
func (h *lhHarness) listObject(cl *tClient, key string) *ds.Quicklist {
	h.ks.LockAll()
	defer h.ks.UnlockAll()
	cl.c.SetNow()
	o := cl.c.LookupRead([]byte(key))
	if o == nil || o.Type != TypeList {
		return nil
	}
	return listOf(o)
}

// TestListCompressSameReplies runs the same random list commands (pushes
// and pops of every kind, LRANGE, LINDEX, LSET, LINSERT, LREM, LPOS,
// LTRIM, LMOVE, SORT, DUMP/RESTORE) on a keyspace with
// list-compress-depth 0 and on one with depth 1..3, under a size-based
// and a count-based fill: every reply must be the same byte for byte, and
// DUMP payloads too (rdbcompression yes). At the end the compressed big
// list takes less memory, and with rdbcompression no its payload (LZF
// nodes, as Valkey) restores to the same list.
func TestListCompressSameReplies(t *testing.T) {
	for _, fill := range []int64{-2, 4} {
		for depth := int64(1); depth <= 3; depth++ {
			t.Run(fmt.Sprintf("fill%d/depth%d", fill, depth), func(t *testing.T) {
				testListCompressSameReplies(t, fill, depth)
			})
		}
	}
}

func testListCompressSameReplies(t *testing.T, fill, depth int64) {
	var hs [2]*lhHarness
	var cls [2]*tClient
	for i := range hs {
		hs[i] = newLHHarness(t)
		for _, hd := range SortCommands {
			hs[i].cmd[hd.Spec.FullName] = hd
		}
		d := int64(0)
		if i == 1 {
			d = depth
		}
		configure(hs[i].ks, func(s *Settings) {
			s.ListMaxListpackSize = fill
			s.ListCompressDepth = d
		})
		cls[i] = hs[i].client()
	}
	do := func(args ...string) string {
		t.Helper()
		a, b := hs[0].do(cls[0], args...), hs[1].do(cls[1], args...)
		if a != b {
			t.Fatalf("%.80s: depth 0 %.200q, depth %d %.200q", strings.Join(args, " "), a, depth, b)
		}
		return a
	}
	r := rand.New(rand.NewPCG(uint64(-fill), uint64(depth)))
	words := []string{"alpha", "beta", "gamma", "delta", "corvid", "valkey", "list", "node"}
	var pool []string // values pushed, for pivots, LREM and LPOS hits
	val := func() string {
		if len(pool) > 0 && r.IntN(4) == 0 {
			return pool[r.IntN(len(pool))]
		}
		var v string
		switch r.IntN(12) {
		case 0:
			v = strings.Repeat(words[r.IntN(len(words))], 1000+r.IntN(1000)) // a plain node
		case 1, 2:
			v = strconv.Itoa(r.IntN(1000) - 500)
		default:
			var b strings.Builder
			b.WriteString("item:" + strconv.Itoa(r.IntN(100000)) + ":")
			for range r.IntN(30) {
				b.WriteString(words[r.IntN(len(words))] + " ")
			}
			v = b.String()
		}
		pool = append(pool, v)
		return v
	}
	keys := []string{"big", "l1", "l2"}
	idx := func() string { return strconv.Itoa(r.IntN(400) - 200) }
	// A long list first, so that many nodes are interior.
	for range 300 {
		args := []string{"RPUSH", "big"}
		for range 10 {
			args = append(args, val())
		}
		do(args...)
	}
	for step := range 1500 {
		k := keys[r.IntN(len(keys))]
		switch r.IntN(17) {
		case 0, 1:
			do("LPUSH", k, val(), val())
		case 2, 3:
			do("RPUSH", k, val())
		case 4:
			do("LPOP", k)
		case 5:
			do("RPOP", k, strconv.Itoa(r.IntN(5)))
		case 6:
			do("LRANGE", k, idx(), idx())
		case 7:
			do("LINDEX", k, idx())
		case 8:
			do("LSET", k, idx(), val())
		case 9:
			do("LINSERT", k, []string{"BEFORE", "AFTER"}[r.IntN(2)], val(), val())
		case 10:
			do("LREM", k, strconv.Itoa(r.IntN(5)-2), val())
		case 11:
			do("LPOS", k, val(), "RANK", strconv.Itoa(r.IntN(5)-2+boolInt(r.IntN(5) == 2)), "COUNT", strconv.Itoa(r.IntN(3)))
		case 12:
			if r.IntN(10) == 0 {
				do("LTRIM", k, strconv.Itoa(r.IntN(20)), strconv.Itoa(-1-r.IntN(20)))
			}
		case 13:
			do("LMOVE", k, keys[r.IntN(len(keys))], []string{"LEFT", "RIGHT"}[r.IntN(2)], []string{"LEFT", "RIGHT"}[r.IntN(2)])
		case 14:
			do("SORT", k, "BY", "nosort", "LIMIT", strconv.Itoa(r.IntN(50)), strconv.Itoa(r.IntN(50)))
			if k != "big" { // sorting and dumping the big list is slow under -race
				do("SORT", k, "ALPHA", "DESC", "LIMIT", "0", "20")
			}
		case 15:
			if k == "big" && step%8 != 0 {
				break
			}
			p := do("DUMP", k)
			if !strings.HasPrefix(p, "$-") && step%5 == 0 {
				body := p[strings.Index(p, "\r\n")+2 : len(p)-2]
				do("RESTORE", "copy", "0", body, "REPLACE")
				do("LRANGE", "copy", "0", "-1")
			}
		case 16:
			do("OBJECT", "ENCODING", k)
			do("LLEN", k)
		}
	}
	for _, k := range keys {
		do("LRANGE", k, "0", "-1")
		do("DUMP", k)
	}
	// The long list: compressed nodes, less memory.
	plain, comp := hs[0].listObject(cls[0], "big"), hs[1].listObject(cls[1], "big")
	if comp == nil || comp.IsListpack() {
		t.Fatalf("big is not a quicklist")
	}
	if comp.CompressedNodes() == 0 || comp.MemUsage() >= plain.MemUsage() {
		t.Errorf("depth %d: %d of %d nodes compressed, MemUsage %d (depth 0: %d)",
			depth, comp.CompressedNodes(), comp.NodeCount(), comp.MemUsage(), plain.MemUsage())
	}
	// rdbcompression no: the interior nodes are still LZF strings, so the
	// payload is shorter than depth 0's, and it restores the same list.
	for _, h := range hs {
		h.ks.SetRDBCompression(false)
	}
	p0, p1 := hs[0].do(cls[0], "DUMP", "big"), hs[1].do(cls[1], "DUMP", "big")
	if len(p1) >= len(p0) {
		t.Errorf("rdbcompression no: payload %d bytes with depth %d, %d without", len(p1), depth, len(p0))
	}
	body := p1[strings.Index(p1, "\r\n")+2 : len(p1)-2]
	for i, h := range hs {
		if got := h.do(cls[i], "RESTORE", "back", "0", body); got != "+OK\r\n" {
			t.Fatalf("RESTORE: %q", got)
		}
	}
	if a, b := do("LRANGE", "back", "0", "-1"), do("LRANGE", "big", "0", "-1"); a != b {
		t.Errorf("the rdbcompression-no payload restores another list")
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
