package ds_test

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/ds"
)

// TestDictScanGuarantee checks Scan's contract: every key present for the
// whole iteration is returned at least once, while other keys are inserted
// and deleted between calls so that the table grows, shrinks and rehashes
// (including calls made with two tables live).
func TestDictScanGuarantee(t *testing.T) {
	for seed := range uint64(40) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			r := rand.New(rand.NewPCG(seed, 7))
			d := ds.New[int](0)
			stable := 20 + r.IntN(600)
			for i := range stable {
				d.UpsertString("s" + strconv.Itoa(i))
			}
			volatile := 0 // next volatile key to insert
			live := []int{}
			seen := map[string]int{}
			var cursor uint64
			calls := 0
			for {
				cursor = d.Scan(cursor, func(k string, _ *int) { seen[k]++ })
				calls++
				if cursor == 0 {
					break
				}
				if calls > 1<<20 {
					t.Fatal("scan does not terminate")
				}
				// Mutate between calls.
				switch x := r.IntN(10); {
				case x < 3: // burst of inserts: grows
					if len(live) > 4*stable {
						break
					}
					for range r.IntN(stable + 20) {
						d.UpsertString("v" + strconv.Itoa(volatile))
						live = append(live, volatile)
						volatile++
					}
				case x < 6: // burst of deletes: shrinks
					for range r.IntN(len(live) + 1) {
						j := r.IntN(len(live))
						d.DeleteString("v" + strconv.Itoa(live[j]))
						live[j] = live[len(live)-1]
						live = live[:len(live)-1]
					}
				case x < 7:
					d.Rehash(r.IntN(3))
				case x < 8:
					d.Shrink()
				case x < 9:
					d.Expand(d.Len() * (1 + r.IntN(4)))
				default:
					// Leave the Dict mid-rehash across calls.
					d.SetResizePolicy(ds.ResizePolicy(r.IntN(3)))
				}
			}
			for i := range stable {
				if seen["s"+strconv.Itoa(i)] == 0 {
					t.Fatalf("stable key s%d never returned (%d calls)", i, calls)
				}
			}
			mustCheck(t, d)
		})
	}
}

// TestDictScanNoResize checks the simple case: without changes a full scan
// returns each key exactly once, also when stopped mid-rehash.
func TestDictScanNoResize(t *testing.T) {
	d := ds.New[int](0)
	if c := d.Scan(0, func(string, *int) { t.Fatal("callback on empty dict") }); c != 0 {
		t.Fatal("empty scan cursor")
	}
	for i := range 3000 {
		d.UpsertString(strconv.Itoa(i))
	}
	for _, rehashing := range []bool{false, true} {
		if rehashing {
			// Pause so the next inserts start a resize that stays open.
			d.SetResizePolicy(ds.ResizeForbid)
			for i := 3000; i < 5000; i++ {
				d.UpsertString(strconv.Itoa(i))
			}
			d.SetResizePolicy(ds.ResizeEnable)
			d.ResizeIfNeeded()
			d.Rehash(3)
			if !d.IsRehashing() {
				t.Fatal("want a rehash in progress")
			}
		}
		seen := map[string]int{}
		var cursor uint64
		for {
			cursor = d.Scan(cursor, func(k string, _ *int) { seen[k]++ })
			if cursor == 0 {
				break
			}
		}
		if len(seen) != d.Len() {
			t.Fatalf("rehashing=%v: scan saw %d keys of %d", rehashing, len(seen), d.Len())
		}
		for k, n := range seen {
			if n != 1 {
				t.Fatalf("rehashing=%v: %q seen %d times", rehashing, k, n)
			}
		}
	}
}

// TestDictScanDelete deletes every key from the Scan callback, as FLUSH-like
// loops and expiry do.
func TestDictScanDelete(t *testing.T) {
	d := ds.New[int](0)
	for i := range 2000 {
		d.UpsertString(strconv.Itoa(i))
	}
	var cursor uint64
	for {
		cursor = d.Scan(cursor, func(k string, _ *int) { d.DeleteString(k) })
		if cursor == 0 {
			break
		}
	}
	if d.Len() != 0 {
		t.Fatalf("%d keys survived", d.Len())
	}
	mustCheck(t, d)
}
