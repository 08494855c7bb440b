package ds

import (
	"math"
	"slices"
	"testing"
)

// FuzzZSkip decodes the input as a stream of operations (op byte, score
// byte, member length byte, member bytes) applied to a ZSkip and to a map,
// and checks after every few operations that the skiplist, its spans, its
// hash table and its owners array (the nodes' only GC-visible references,
// see ZSkip) agree with the model. Removed members' nodes are freed by the
// collector while the fuzzer runs, so a dangling hidden link shows up as
// corrupted members.
func FuzzZSkip(f *testing.F) {
	f.Add([]byte("\x00\x01\x03abc\x00\x02\x03abd\x03\x00\x03abc\x06\x01\x00"))
	f.Add([]byte("\x00\x05\x00\x00\x05\x01a\x00\x05\x02ab\x07\x05\x00\x08\x00\x00\x09\x00\x00"))
	long := []byte{}
	for i := range 400 {
		long = append(long, byte(i%10), byte(i%7), 2, byte(i), byte(i>>8))
	}
	f.Add(long)
	f.Fuzz(func(t *testing.T, data []byte) {
		z := NewZSkip(0)
		model := map[string]float64{}
		check := func() {
			want := make([]zsEnt, 0, len(model))
			for k, s := range model {
				want = append(want, zsEnt{k, s})
			}
			slices.SortFunc(want, zsCmp)
			checkZSkip(t, z, want)
		}
		steps := 0
		for i := 0; i+2 < len(data); {
			op, sb, n := data[i], data[i+1], int(data[i+2]%48)
			i += 3
			member := data[i:min(i+n, len(data))]
			i += len(member)
			score := float64(int(sb%16) - 4)
			if sb == 0xff {
				score = math.Inf(1)
			}
			switch op % 10 {
			case 0, 1, 2, 3:
				added, _ := z.Add(member, score)
				if _, ok := model[string(member)]; ok == added {
					t.Fatalf("Add(%q) added=%v with the member present=%v", member, added, ok)
				}
				model[string(member)] = score
			case 4, 5:
				_, ok := model[string(member)]
				if z.Remove(member) != ok {
					t.Fatalf("Remove(%q) disagrees with the model", member)
				}
				delete(model, string(member))
			case 6:
				r := ScoreRange{Min: score, Max: score + float64(sb%3)}
				n := z.DeleteRangeByScore(r)
				m := 0
				for k, s := range model {
					if r.GteMin(s) && r.LteMax(s) {
						delete(model, k)
						m++
					}
				}
				if n != m {
					t.Fatalf("DeleteRangeByScore(%v) removed %d, want %d", r, n, m)
				}
			case 7:
				start := int(sb % 8)
				want := make([]zsEnt, 0, len(model))
				for k, s := range model {
					want = append(want, zsEnt{k, s})
				}
				slices.SortFunc(want, zsCmp)
				n := z.DeleteRangeByRank(start, start+int(sb%3))
				for j := start; j < min(start+int(sb%3)+1, len(want)); j++ {
					delete(model, want[j].m)
				}
				if n != max(0, min(start+int(sb%3)+1, len(want))-start) {
					t.Fatalf("DeleteRangeByRank removed %d", n)
				}
			case 8:
				if n := z.Random(); (n == nil) != (len(model) == 0) {
					t.Fatal("Random disagrees with emptiness")
				} else if n != nil {
					if s, ok := model[n.MemberString()]; !ok || s != n.Score() {
						t.Fatalf("Random returned %q (%v), not in the model", n.MemberString(), n.Score())
					}
				}
			case 9:
				seen := map[string]bool{}
				for c := z.Scan(0, func(n *ZNode) { seen[n.MemberString()] = true }); c != 0; {
					c = z.Scan(c, func(n *ZNode) { seen[n.MemberString()] = true })
				}
				if len(seen) != len(model) {
					t.Fatalf("Scan saw %d members, want %d", len(seen), len(model))
				}
			}
			if steps++; steps%16 == 0 {
				check()
			}
		}
		check()
	})
}
