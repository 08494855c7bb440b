package ds

import "math/bits"

// ResizePolicy says when a Dict may resize on its own, as Valkey's
// dict_can_resize (which Valkey flips while a fork child is alive).
type ResizePolicy uint8

const (
	// ResizeEnable grows a table when it holds as many keys as buckets and
	// shrinks it when at most 1/8 of the buckets' worth of keys remain.
	ResizeEnable ResizePolicy = iota
	// ResizeAvoid only resizes past 4 keys per bucket or below 1/32, and
	// only rehashes a started resize when it is that lopsided.
	ResizeAvoid
	// ResizeForbid never resizes (beyond allocating the first table) and
	// stalls a rehash in progress. Chains grow instead.
	ResizeForbid
)

const (
	initialSize      = 4 // smallest table, as DICT_HT_INITIAL_SIZE
	forceResizeRatio = 4 // dict_force_resize_ratio
	minFill          = 8 // shrink when used*minFill <= size (HASHTABLE_MIN_FILL)
	emptyVisitFactor = 10
)

// SetResizePolicy sets when the Dict resizes itself.
func (d *Dict[V]) SetResizePolicy(p ResizePolicy) { d.policy = p }

// PauseAutoResize stops automatic growing and shrinking until a matching
// ResumeAutoResize, for example while deleting many keys in a row. Calls
// nest. Explicit Expand and Shrink still work.
func (d *Dict[V]) PauseAutoResize() { d.pauseResize++ }

// ResumeAutoResize undoes one PauseAutoResize. It does not resize by itself;
// call ResizeIfNeeded for that.
func (d *Dict[V]) ResumeAutoResize() {
	if d.pauseResize == 0 {
		panic("ds: ResumeAutoResize without PauseAutoResize")
	}
	d.pauseResize--
}

// IsRehashing reports whether a resize is in progress.
func (d *Dict[V]) IsRehashing() bool { return d.rehashIdx >= 0 }

// Buckets returns the sizes of the main table and of the rehash target
// (0 when not rehashing).
func (d *Dict[V]) Buckets() (main, target int) { return len(d.tables[0]), len(d.tables[1]) }

// Expand starts growing the table so that it has at least n buckets. It
// returns false, doing nothing, while rehashing, when n < Len() or when the
// table is already that big.
func (d *Dict[V]) Expand(n int) bool {
	if d.rehashIdx >= 0 || d.used[0] > n || len(d.tables[0]) >= n {
		return false
	}
	return d.resize(n)
}

// Shrink starts shrinking the table to the smallest power of two (at least
// 4) holding Len() keys at one per bucket, regardless of the fill threshold
// and the policy. It returns false while rehashing or iterating, or when the
// table is already that small.
func (d *Dict[V]) Shrink() bool {
	if d.rehashIdx >= 0 || d.pauseRehash > 0 || len(d.tables[0]) <= initialSize {
		return false
	}
	if tableSize(d.used[0]) >= len(d.tables[0]) {
		return false
	}
	return d.resize(d.used[0])
}

// ResizeIfNeeded applies the automatic grow/shrink rule now, as Valkey's
// cron does for dicts that saw no writes. It reports whether a resize
// started.
func (d *Dict[V]) ResizeIfNeeded() bool {
	if d.rehashIdx >= 0 || len(d.tables[0]) == 0 {
		return false
	}
	d.expandIfNeeded()
	if d.rehashIdx < 0 {
		d.shrinkIfNeeded()
	}
	return d.rehashIdx >= 0
}

// Rehash moves up to n buckets to the new table (visiting at most 10n empty
// ones) and reports whether rehashing is still in progress. A cron can call
// it to finish a resize of a Dict that sees no traffic.
func (d *Dict[V]) Rehash(n int) bool {
	if d.pauseRehash > 0 {
		return d.rehashIdx >= 0
	}
	d.rehash(n)
	return d.rehashIdx >= 0
}

// tableSize is the power-of-two table size for n keys, at least 4.
func tableSize(n int) int {
	if n <= initialSize {
		return initialSize
	}
	if n > 1<<62 {
		return 1 << 62
	}
	return 1 << bits.Len(uint(n-1))
}

// resize replaces the main table by one sized for n keys, directly if the
// Dict is empty, else by starting an incremental rehash.
func (d *Dict[V]) resize(n int) bool {
	size := tableSize(n)
	if size == len(d.tables[0]) {
		return false
	}
	nt := make([]*entry[V], size)
	if d.tables[0] == nil || d.used[0] == 0 {
		// Nothing to move: not really a rehash.
		d.tables[0] = nt
		d.used[0] = 0
		return true
	}
	d.tables[1] = nt
	d.used[1] = 0
	d.rehashIdx = 0
	return true
}

func (d *Dict[V]) expandIfNeeded() {
	if d.rehashIdx >= 0 {
		return
	}
	size := len(d.tables[0])
	if size == 0 {
		d.resize(initialSize)
		return
	}
	if d.pauseResize > 0 || d.pauseRehash > 0 {
		return
	}
	used := d.used[0]
	if (d.policy == ResizeEnable && used >= size) ||
		(d.policy != ResizeForbid && used >= forceResizeRatio*size) {
		d.resize(used + 1)
	}
}

func (d *Dict[V]) shrinkIfNeeded() {
	if d.rehashIdx >= 0 || d.pauseResize > 0 || d.pauseRehash > 0 {
		return
	}
	size := len(d.tables[0])
	if size <= initialSize {
		return
	}
	used := d.used[0]
	if (d.policy == ResizeEnable && used*minFill <= size) ||
		(d.policy != ResizeForbid && used*minFill*forceResizeRatio <= size) {
		d.resize(used)
	}
}

// rehashAllowed applies the policy to a resize in progress.
func (d *Dict[V]) rehashAllowed() bool {
	switch d.policy {
	case ResizeForbid:
		return false
	case ResizeAvoid:
		s0, s1 := len(d.tables[0]), len(d.tables[1])
		if (s1 > s0 && s1 < forceResizeRatio*s0) || (s1 < s0 && s0 < minFill*forceResizeRatio*s1) {
			return false
		}
	}
	return true
}

// stepFor does the rehash work an operation on hash h owes: if h's bucket
// in the old table still holds keys, move that bucket (it is about to be
// touched anyway, so it is in cache); otherwise do one ordinary step.
func (d *Dict[V]) stepFor(h uint64) {
	if d.rehashIdx < 0 || d.pauseRehash > 0 {
		return
	}
	idx := int(h & uint64(len(d.tables[0])-1))
	if idx >= d.rehashIdx && d.tables[0][idx] != nil {
		if d.rehashAllowed() {
			d.moveBucket(idx)
			d.rehashDone()
		}
		return
	}
	d.rehash(1)
}

// rehash moves up to n non-empty buckets, giving up after 10n empty ones so
// that a sparse table cannot make one call slow.
func (d *Dict[V]) rehash(n int) {
	if d.rehashIdx < 0 || !d.rehashAllowed() {
		return
	}
	emptyVisits := n * emptyVisitFactor
	t0 := d.tables[0]
	for ; n > 0 && d.used[0] != 0; n-- {
		for t0[d.rehashIdx] == nil {
			d.rehashIdx++
			emptyVisits--
			if emptyVisits == 0 {
				return
			}
		}
		d.moveBucket(d.rehashIdx)
		d.rehashIdx++
	}
	d.rehashDone()
}

// moveBucket moves every entry of old-table bucket idx to the new table.
func (d *Dict[V]) moveBucket(idx int) {
	t0, t1 := d.tables[0], d.tables[1]
	m1 := uint64(len(t1) - 1)
	grow := len(t1) > len(t0)
	for e := t0[idx]; e != nil; {
		next := e.next
		var j uint64
		if grow {
			j = HashString(e.key()) & m1
		} else {
			// Shrinking: sizes are powers of two, so the new index is
			// the old one masked, with no need to rehash the key.
			j = uint64(idx) & m1
		}
		e.next = t1[j]
		t1[j] = e
		d.used[0]--
		d.used[1]++
		e = next
	}
	t0[idx] = nil
}

// rehashDone finishes a resize once the old table is empty.
func (d *Dict[V]) rehashDone() {
	if d.rehashIdx < 0 || d.used[0] != 0 {
		return
	}
	d.tables[0], d.used[0] = d.tables[1], d.used[1]
	d.tables[1], d.used[1] = nil, 0
	d.rehashIdx = -1
}

// Stats is the bucket and key counts of the main table and, while
// rehashing, of the target table (DEBUG HTSTATS).
func (d *Dict[V]) Stats() (mainSlots, mainUsed, targetSlots, targetUsed int) {
	return len(d.tables[0]), d.used[0], len(d.tables[1]), d.used[1]
}
