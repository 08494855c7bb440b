package db

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestIDMapModel checks idMap against a sorted slice under random
// inserts (mostly appends, as streams and PELs grow), deletions (from
// the front, as trimming and acknowledging go, and anywhere), lookups,
// seeks and walks both ways, and its memory count against a recount.
func TestIDMapModel(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 3))
		var acct int64
		m := idMap[int]{acct: &acct}
		var model []streamID
		vals := map[streamID]int{}
		next := uint64(1)
		for op := range 5000 {
			switch k := r.IntN(10); {
			case k < 4:
				id := streamID{next, 0}
				if r.IntN(4) == 0 {
					id = streamID{uint64(r.IntN(int(next) + 1)), uint64(r.IntN(3))}
				} else {
					next += uint64(1 + r.IntN(3))
				}
				_, exists := vals[id]
				if got := m.Insert(id, op); got == exists {
					t.Fatalf("seed %d op %d: Insert(%v) = %v, present %v", seed, op, id, got, exists)
				}
				if !exists {
					vals[id] = op
					i, _ := slices.BinarySearchFunc(model, id, streamID.cmp)
					model = slices.Insert(model, i, id)
				}
			case k < 7 && len(model) > 0:
				i := 0
				if r.IntN(2) == 0 {
					i = r.IntN(len(model))
				}
				id := model[i]
				if !m.Delete(id) {
					t.Fatalf("seed %d op %d: Delete(%v) missed", seed, op, id)
				}
				model = slices.Delete(model, i, i+1)
				delete(vals, id)
			case k < 8:
				id := streamID{uint64(r.IntN(int(next) + 2)), uint64(r.IntN(3))}
				c := m.Seek(id)
				i, _ := slices.BinarySearchFunc(model, id, streamID.cmp)
				if c.Valid() != (i < len(model)) || c.Valid() && c.ID() != model[i] {
					t.Fatalf("seed %d op %d: Seek(%v) wrong", seed, op, id)
				}
				le := m.SeekLE(id)
				j := i - 1
				if i < len(model) && model[i] == id {
					j = i
				}
				if le.Valid() != (j >= 0) || le.Valid() && le.ID() != model[j] {
					t.Fatalf("seed %d op %d: SeekLE(%v) wrong", seed, op, id)
				}
				if c.Valid() && r.IntN(3) == 0 {
					id := c.ID()
					c.DeleteAt() // leaves the cursor on the next entry
					model = slices.Delete(model, i, i+1)
					delete(vals, id)
					if c.Valid() != (i < len(model)) || c.Valid() && c.ID() != model[i] {
						t.Fatalf("seed %d op %d: cursor after DeleteAt wrong", seed, op)
					}
				}
			default:
				if p := m.Get(streamID{next / 2, 0}); (p != nil) != (vals[streamID{next / 2, 0}] != 0 || slices.Contains(model, streamID{next / 2, 0})) {
					t.Fatalf("seed %d op %d: Get wrong", seed, op)
				}
			}
			if m.Len() != len(model) {
				t.Fatalf("seed %d op %d: Len %d, want %d", seed, op, m.Len(), len(model))
			}
			if acct != m.memBytes() {
				t.Fatalf("seed %d op %d: memory count %d, recount %d", seed, op, acct, m.memBytes())
			}
		}
		var fwd, back []streamID
		for c := m.Start(); c.Valid(); c.Next() {
			fwd = append(fwd, c.ID())
		}
		for c := m.End(); c.Valid(); c.Prev() {
			back = append(back, c.ID())
		}
		slices.Reverse(back)
		if !slices.Equal(fwd, model) || !slices.Equal(back, model) {
			t.Fatalf("seed %d: walks differ from the model", seed)
		}
		m.release()
		if acct != 0 {
			t.Fatalf("seed %d: %d bytes counted after release", seed, acct)
		}
	}
}
