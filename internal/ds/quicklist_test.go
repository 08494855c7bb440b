package ds

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"unsafe"
)

// check verifies the quicklist's bookkeeping against its bytes, and the
// compression invariant.
func (q *Quicklist) check() error { return q.checkDeep(true) }

// checkDeep is check; deep is checkCompression's.
func (q *Quicklist) checkDeep(deep bool) error {
	total := 0
	if q.ql() == nil && q.one.count == 0 && q.one != (qlNode{}) {
		return fmt.Errorf("empty listpack with node %+v", q.one)
	}
	if s := q.ql(); s != nil && q.one != (qlNode{p: (*byte)(unsafe.Pointer(s)), state: true}) {
		return fmt.Errorf("quicklist encoding with an inline node %+v", q.one)
	}
	for i := range q.NodeCount() {
		n := q.view(i)
		if n.count == 0 {
			return fmt.Errorf("node %d empty", i)
		}
		cnt, sz := 0, vlpEmptySize
		for p := int(n.off); p < int(n.end); {
			var v []byte
			v, p = lpGet(n.buf(), p)
			cnt++
			sz += vlpEntrySize(v)
			if n.plain {
				sz = len(v)
			}
			if p > int(n.end) {
				return fmt.Errorf("node %d: entry overruns end", i)
			}
		}
		if cnt != int(n.count) {
			return fmt.Errorf("node %d: count %d, has %d", i, n.count, cnt)
		}
		if sz != int(n.sz) {
			return fmt.Errorf("node %d: sz %d, computed %d", i, n.sz, sz)
		}
		if n.plain && cnt != 1 {
			return fmt.Errorf("plain node %d with %d entries", i, cnt)
		}
		// Backward decoding must agree with forward decoding.
		back := 0
		for p := int(n.end); p > int(n.off); back++ {
			_, p = lpGetBack(n.buf(), p)
		}
		if back != cnt {
			return fmt.Errorf("node %d: %d entries backwards, %d forwards", i, back, cnt)
		}
		total += cnt
	}
	if total != q.Len() {
		return fmt.Errorf("count %d, nodes hold %d", q.Len(), total)
	}
	if s := q.ql(); s != nil {
		mem := s.nodeBytes
		q.recount()
		if mem != s.nodeBytes {
			return fmt.Errorf("nodeBytes %d, recount %d", mem, s.nodeBytes)
		}
	}
	return q.checkCompression(deep)
}

func (q *Quicklist) all() [][]byte {
	var out [][]byte
	q.Scan(false, func(v []byte) bool {
		out = append(out, bytes.Clone(v))
		return true
	})
	return out
}

func TestLpEntryCodec(t *testing.T) {
	for _, l := range []int{0, 1, 239, 240, 241, 1000, 4079, 4080, 4081, 70000} {
		v := bytes.Repeat([]byte{'x'}, l)
		buf := make([]byte, lpEntryLen(l)+3)
		n := lpPut(buf[1:], v)
		if n != lpEntryLen(l) {
			t.Fatalf("len %d: wrote %d want %d", l, n, lpEntryLen(l))
		}
		got, next := lpGet(buf, 1)
		if !bytes.Equal(got, v) || next != 1+n {
			t.Fatalf("len %d: forward decode wrong", l)
		}
		got, start := lpGetBack(buf, 1+n)
		if !bytes.Equal(got, v) || start != 1 {
			t.Fatalf("len %d: backward decode wrong (start %d)", l, start)
		}
	}
}

func TestVlpEntrySize(t *testing.T) {
	for _, c := range []struct {
		v    string
		want int
	}{
		{"0", 2}, {"127", 2}, {"128", 3}, {"-1", 3}, {"4095", 3}, {"4096", 4},
		{"-32768", 4}, {"32768", 5}, {"8388607", 5}, {"8388608", 6},
		{"2147483648", 10}, {"9223372036854775807", 10},
		{"9223372036854775808", 1 + 19 + 1}, {"01", 4}, {"-0", 4}, {"+1", 4},
		{"", 2}, {"a", 3}, {string(make([]byte, 63)), 65}, {string(make([]byte, 64)), 67},
		{string(make([]byte, 125)), 128}, {string(make([]byte, 126)), 130},
		{string(make([]byte, 4096)), 4096 + 5 + 2},
	} {
		if got := vlpEntrySize([]byte(c.v)); got != c.want {
			t.Errorf("vlpEntrySize(%q): %d, want %d", c.v, got, c.want)
		}
	}
}

// TestQuicklistModel runs random operations against a slice model for
// several fill factors, checking contents and bookkeeping after each.
func TestQuicklistModel(t *testing.T) {
	for _, fill := range []int{-2, -1, 0, 1, 3, 16, 128} {
		t.Run(strconv.Itoa(fill), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(fill+100), qlSeed))
			runQuicklistModel(t, ListConfig{Fill: fill}, r, 4000, 1, modelValue(r), nil)
		})
	}
}

// modelValue returns the value generator of the model tests: mostly short
// strings of one repeated letter, some small integers and some values too
// large to share a node.
func modelValue(r *rand.Rand) func() []byte {
	return func() []byte {
		switch r.IntN(10) {
		case 0:
			return bytes.Repeat([]byte{byte('a' + r.IntN(3))}, 200+r.IntN(9000))
		case 1, 2:
			return []byte(strconv.Itoa(r.IntN(300) - 100))
		}
		return bytes.Repeat([]byte{byte('a' + r.IntN(3))}, r.IntN(130))
	}
}

// runQuicklistModel applies steps random operations (pushes and pops at
// both ends, DelRange, Remove, Insert, Replace, Index and Range) to a
// quicklist built with cfg and to a slice, requiring the same results
// after each, and the same contents and sound bookkeeping (check) after
// every every-th (the compression flags after each); then onStep, if
// set, sees the list. The first half of the steps mostly pushes, so the
// list gets many nodes.
func runQuicklistModel(t *testing.T, cfg ListConfig, r *rand.Rand, steps, every int, val func() []byte, onStep func(*Quicklist)) {
	t.Helper()
	fill := cfg.Fill
	q := NewQuicklist()
	var model [][]byte
	for step := 0; step < steps; step++ {
		op := r.IntN(11)
		if step < steps/2 && op > 2 && r.IntN(3) > 0 {
			op = r.IntN(3) // grow first: many nodes
		}
		switch {
		case op <= 2:
			v := val()
			q.PrepareGrow(cfg, len(v), 1)
			if op == 0 {
				q.PushHead(v)
				model = append([][]byte{v}, model...)
			} else {
				q.PushTail(v)
				model = append(model, v)
			}
		case op == 3 && len(model) > 0:
			got := q.PopHead(nil)
			if !bytes.Equal(got, model[0]) {
				t.Fatalf("step %d: PopHead %q want %q", step, got, model[0])
			}
			model = model[1:]
		case op == 4 && len(model) > 0:
			got := q.PopTail(nil)
			if !bytes.Equal(got, model[len(model)-1]) {
				t.Fatalf("step %d: PopTail wrong", step)
			}
			model = model[:len(model)-1]
		case op == 5 && len(model) > 0:
			s := r.IntN(len(model))
			n := r.IntN(len(model)-s) + 1
			if r.IntN(4) > 0 {
				n = min(n, 3)
			}
			q.DelRange(s, n)
			model = append(model[:s:s], model[s+n:]...)
		case op == 6 && len(model) > 0:
			v := model[r.IntN(len(model))]
			cnt := r.IntN(3) - 1
			fromTail := cnt < 0
			if cnt < 0 {
				cnt = -cnt
			}
			got := q.Remove(v, cnt, fromTail)
			want := modelRemove(&model, v, cnt, fromTail)
			if got != want {
				t.Fatalf("step %d: Remove %d want %d", step, got, want)
			}
		case op == 7 && len(model) > 0:
			pivot := model[r.IntN(len(model))]
			v := val()
			after := r.IntN(2) == 0
			q.PrepareGrow(cfg, len(v), 1)
			if !q.Insert(pivot, v, after) {
				t.Fatalf("step %d: pivot not found", step)
			}
			i := slices.IndexFunc(model, func(e []byte) bool { return bytes.Equal(e, pivot) })
			if after {
				i++
			}
			model = slices.Insert(model, i, v)
		case op == 8 && len(model) > 0:
			i := r.IntN(len(model))
			v := val()
			q.PrepareGrow(cfg, len(v), 1)
			if !q.Replace(i-len(model)*r.IntN(2), v) {
				t.Fatalf("step %d: Replace out of range", step)
			}
			model[i] = v
		case op == 9 && len(model) > 0:
			i := r.IntN(len(model))
			got, ok := q.Index(i)
			if !ok || !bytes.Equal(got, model[i]) {
				t.Fatalf("step %d: Index(%d) wrong", step, i)
			}
			s := r.IntN(len(model))
			n := r.IntN(len(model)-s) + 1
			var rg [][]byte
			rev := r.IntN(2) == 0
			if rev {
				n = min(n, s+1)
			}
			q.Range(s, n, rev, func(v []byte) { rg = append(rg, bytes.Clone(v)) })
			var want [][]byte
			if !rev {
				want = model[s : s+n]
			} else {
				for j := 0; j < n; j++ {
					want = append(want, model[s-j])
				}
			}
			if !slices.EqualFunc(rg, want, bytes.Equal) {
				t.Fatalf("step %d: Range(%d,%d,%v) wrong", step, s, n, rev)
			}
		}
		if len(model) > 0 {
			q.TryShrink(fill)
		} else if q.Len() == 0 {
			q = NewQuicklist() // the key would be deleted
		}
		if err := q.checkCompression(false); err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if step%every == 0 || step == steps-1 {
			if err := q.checkDeep(step%(16*every) == 0); err != nil {
				t.Fatalf("step %d: %v", step, err)
			}
			if got := q.all(); !slices.EqualFunc(got, model, bytes.Equal) {
				t.Fatalf("step %d: contents differ: %d vs %d elements", step, len(got), len(model))
			}
		}
		if onStep != nil {
			onStep(q)
		}
	}
	c := q.Clone()
	if err := c.check(); err != nil || !slices.EqualFunc(c.all(), model, bytes.Equal) {
		t.Fatalf("clone differs: %v", err)
	}
}

func modelRemove(m *[][]byte, v []byte, count int, fromTail bool) int {
	s := *m
	removed := 0
	if !fromTail {
		out := s[:0:0]
		for _, e := range s {
			if bytes.Equal(e, v) && (count == 0 || removed < count) {
				removed++
				continue
			}
			out = append(out, e)
		}
		*m = out
		return removed
	}
	keep := make([]bool, len(s))
	for i := len(s) - 1; i >= 0; i-- {
		if bytes.Equal(s[i], v) && (count == 0 || removed < count) {
			removed++
			continue
		}
		keep[i] = true
	}
	out := s[:0:0]
	for i, e := range s {
		if keep[i] {
			out = append(out, e)
		}
	}
	*m = out
	return removed
}

// TestQuicklistEncodingThresholds checks the listpack/quicklist switch at
// Valkey's limits for 8 KiB nodes.
func TestQuicklistEncodingThresholds(t *testing.T) {
	q := NewQuicklist()
	v := bytes.Repeat([]byte{'x'}, 100) // 103 bytes as a Valkey entry
	n := 0
	for q.IsListpack() {
		q.PrepareGrow(ListConfig{Fill: -2}, len(v), 1)
		q.PushTail(v)
		n++
	}
	// 7 + 79*103 = 8144 and 8144+100 > 8192: the 80th push converts.
	if n != 80 {
		t.Fatalf("converted at push %d, want 80", n)
	}
	for q.Len() > 39 {
		q.PopTail(nil)
		q.TryShrink(-2)
		if q.IsListpack() {
			break
		}
	}
	// Back to listpack once a single node of at most 4096 bytes remains:
	// 7 + 39*103 = 4024.
	if !q.IsListpack() || q.Len() != 39 {
		t.Fatalf("shrunk at %d elements (listpack %v), want 39", q.Len(), q.IsListpack())
	}
}

func BenchmarkQuicklistPushHead(b *testing.B) {
	q := NewQuicklist()
	v := bytes.Repeat([]byte{'v'}, 128)
	b.ReportAllocs()
	for b.Loop() {
		q.PrepareGrow(ListConfig{Fill: -2}, len(v), 1)
		q.PushHead(v)
	}
}

// qlSeed is the second seed word of TestQuicklistModel's random stream
// (change it to explore other sequences).
var qlSeed uint64 = 7

// TestQuicklistPackedThreshold: while DEBUG QUICKLIST-PACKED-THRESHOLD is
// set, an element of at least that many bytes gets a plain node whatever
// the fill; 0 restores the default (only elements beyond a negative
// fill's node size are plain); a value near 4 GiB is refused.
func TestQuicklistPackedThreshold(t *testing.T) {
	defer SetQuicklistPackedThreshold(0)
	build := func() []int {
		q := NewQuicklist()
		q.setQL(&qlState{fill: -1}) // 4 KiB nodes
		for _, n := range []int{6312, 2202, 1000, 999} {
			q.PushTail(bytes.Repeat([]byte{'y'}, n))
		}
		return q.NodeCounts(nil)
	}
	tests := []struct {
		threshold uint64
		want      []int
	}{
		{0, []int{-1, 2, 1}},
		{1000, []int{-1, -1, -1, 1}},
		{1024, []int{-1, -1, 2}},
		{0, []int{-1, 2, 1}},
	}
	for _, tc := range tests {
		if !SetQuicklistPackedThreshold(tc.threshold) {
			t.Fatalf("threshold %d refused", tc.threshold)
		}
		if got := build(); !slices.Equal(got, tc.want) {
			t.Errorf("threshold %d: nodes %v, want %v", tc.threshold, got, tc.want)
		}
	}
	if SetQuicklistPackedThreshold(1<<32 - 1<<20 + 1) {
		t.Error("a threshold near 4 GiB was accepted")
	}
}
