package server

import "time"

// Giving memory back after the dataset shrinks without a flush.
//
// releaseAfterFlush covers FLUSHDB and FLUSHALL. A dataset can also shrink
// by DEL/UNLINK, expiry or eviction, key by key: nothing then collects
// the freed values until the program allocates as much again (Go collects
// when the heap has grown by GOGC percent over the last live heap), and
// the scavenger returns pages only down to the last heap goal, so RSS
// would stay at the old dataset's size. Valkey's allocator (jemalloc's
// decay) returns freed pages within seconds.
//
// So the introspection tick (every 100 ms) follows used_memory's
// high-water mark since the last release, and asks for the same release
// a flush does (debug.FreeOSMemory on its own goroutine, one at a time),
// then restarts the mark from used_memory, in two cases:
//
//   - A drop: used_memory is below the mark by at least shrinkReleaseMin
//     and by a fifth of the mark, the last release is at least
//     shrinkReleaseGap old, and either used_memory has stopped going down
//     for shrinkDropSettle (two ticks) or it has been going down for
//     shrinkReleaseGap since it left the mark. A DEL pipeline shorter
//     than that gets one release, at its end; a longer shrink (an expiry
//     cycle, a long pipeline) gets one per gap while it goes on. (A
//     release as soon as the drop passed a fifth collected a heap four
//     fifths full, then held the real one back by the gap: 2.1 s after a
//     1.5 s DEL of 90% of 1.1 GB.)
//   - A tail: after a drop release or a flush's, once used_memory has
//     stopped going down for shrinkSettle and is below the mark by at
//     least shrinkTailMin and a 32nd of itself, the gap respected: the
//     garbage a drop release leaves behind, what was deleted after it
//     asked, and what was unlinked while its collection marked (the
//     collector keeps what was reachable when its mark began). Without
//     it that garbage, up to a quarter of what remains plus
//     shrinkReleaseMin, stayed until the heap doubled again. A tail
//     fires at most once per drop or flush release, never after a tail.
//
// A release is a full collection: its cost is the live heap's marking
// plus returning the free pages (GODEBUG=gctrace=1: ~0.35 s of CPU with
// 1.1 GB live, 12-17 ms with 114 MB), paid at most once per
// shrinkReleaseGap, and only after used_memory really dropped: by a
// fifth of the mark (at most log(peak/remaining)/log(5/4) such releases
// per shrink, 11 for a 90% shrink), each followed by at most one tail.
// A server whose memory goes up and down by less than a fifth (a cache
// at steady state; eviction at a steady maxmemory, where used_memory
// stays within a percent of its mark) never pays it.
//
// What a collection cannot give back: objects are not moved, so a span
// (8 KiB for values up to 1 KiB) with one surviving object stays whole
// (random survivors, as eviction leaves them, keep most spans of small
// values resident; docs/benchmarks.md). So after its collection a release
// looks at the heap's span memory (fragmented): at least compactMinUnused
// of it, and half as much as the live objects take, free room in partly
// used spans. Then, once used_memory has stopped going down for
// shrinkSettle and the gap since the last release has passed, the tick
// asks for a compacting release (or makes the tail release, which comes
// then, a compacting one): it moves every string value to a new
// buffer (db.CompactStrings: the copies fill a few spans' free slots, the
// spans that held only old copies empty) and collects again. Not before
// the shrink is over: values moved while an expiry cycle or a DEL
// pipeline still deletes would be scattered again as they go. Keys'
// entries and collections' nodes do not move, so what they leave
// scattered stays. And the runtime never
// returns the structures that described the peak heap's spans (about 2%
// of the peak heap) nor the rest of its metadata (under 1% more).
const (
	compactMinUnused = 32 << 20
	shrinkReleaseMin = 32 << 20
	shrinkReleaseGap = 2 * time.Second
	shrinkDropSettle = 200 * time.Millisecond
	shrinkTailMin    = 4 << 20
	shrinkSettle     = time.Second
)

// Giving back the garbage of a burst of writes. A load leaves garbage
// behind it (replaced buffers, grown collections' old buffers, arguments)
// and free pages the collector has not returned, up to the heap goal: as
// much as the live heap at GOGC=100, 64 MB while the heap is small (the
// heap floor, gcfloor.go). Without more allocation no collection comes,
// and the scavenger keeps pages up to the goal, so RSS stays there (100k
// small sets: 2.8x Valkey's RSS a second after the load) where jemalloc
// returns dirty pages within seconds of the writes ending. So the tick
// also follows the runtime's allocation count: once less than
// idleAllocMax has been allocated for idleFor (the writes are over), and
// the heap holds at least idleReleaseMin and a quarter of the live heap
// in garbage and free pages, it asks for a release, once per quiet
// period (not again until allocation resumes), the gap respected. A busy
// server is never idle and pays nothing; one whose writes come in bursts
// pays a collection per burst at most.
const (
	idleAllocMax   = 4 << 20
	idleFor        = 2 * time.Second
	idleReleaseMin = 16 << 20
)

// shrinkState is the introspection goroutine's own (no lock).
type shrinkState struct {
	idle   idleState
	mark   int64 // used_memory's high-water mark since the last release
	markAt int64 // when used_memory was last at the mark (unix ns)
	seen   int64 // serverExtras.lastRelease when mark was last reset
	low    int64 // used_memory's low-water mark since it was at the mark
	lowAt  int64 // when used_memory last went below low by settleSlack (unix ns)
	tail   bool  // armed by a drop or flush release: one tail may follow
}

// noteShrink is called by the introspection tick with used_memory; it
// returns the bytes dropped when it asked for a release, else 0.
func (s *Server) noteShrink(st *shrinkState, used int64, now time.Time) int64 {
	e := s.ext()
	ns := now.UnixNano()
	drop := st.due(e.lastRelease.Load(), used, ns)
	// Compaction once the shrink is over and the last release found the
	// heap fragmented: its own release, or the tail due now.
	compact := e.fragmented.Load() && st.settled(ns)
	if drop != 0 || compact || st.idle.due(readHeapGarbage(), e.lastRelease.Load(), ns) {
		if compact {
			e.fragmented.Store(false)
			e.compactAsked.Store(true)
		} else if drop == 0 {
			e.idleReleases.Add(1)
		}
		s.releaseMemory(drop)
		st.restart(e.lastRelease.Load(), used)
	}
	e.shrinkMark.Store(st.mark)
	return drop
}

// settled reports whether used_memory has not gone down (by more than
// settleSlack) for shrinkSettle
// and the last release is shrinkReleaseGap old, at now (unix ns).
func (st *shrinkState) settled(now int64) bool {
	return now-st.lowAt >= int64(shrinkSettle) && now-st.seen >= int64(shrinkReleaseGap)
}

// settleSlack is how far under its low-water mark used_memory must go to
// count as still going down: at maxmemory every write evicts a little and
// clients' buffers come and go, so used_memory dips by a few KB all the
// time once a shrink is over, and counting every dip kept the compaction
// after an eviction waiting for a second without one (30 s and more with
// a client polling INFO). A megabyte, or a 128th of the mark.
func settleSlack(low int64) int64 { return max(1<<20, low/128) }

// restart resets the marks at a release asked for at last (unix ns).
func (st *shrinkState) restart(last, used int64) {
	st.seen, st.mark, st.markAt, st.low, st.lowAt = last, used, last, used, last
}

// due follows used_memory (used) at time now (unix nanoseconds), given
// the time of the last release asked for anywhere (last): it returns the
// drop from the mark when a release is due, else 0. A release asked for
// elsewhere (a flush) restarts the marks. A drop release, or a flush's,
// arms the tail; a tail release disarms it, so tails do not follow tails.
// The caller that releases calls restart.
func (st *shrinkState) due(last, used, now int64) int64 {
	if last != st.seen {
		st.restart(last, used)
		st.tail = true
		return 0
	}
	if used >= st.mark {
		// A new mark restarts the low-water mark but is no fall: lowAt
		// stays (used_memory a few bytes over the mark the last release
		// left, as it hovers once a shrink is over, had held back the
		// settle, and so the compaction, for good).
		st.mark, st.markAt, st.low = used, now, used
	}
	if used < st.low-settleSlack(st.low) {
		st.low, st.lowAt = used, now
	}
	drop := st.mark - used
	if now-st.seen < int64(shrinkReleaseGap) {
		return 0
	}
	if drop >= shrinkReleaseMin && drop >= st.mark/5 &&
		(now-st.lowAt >= int64(shrinkDropSettle) || now-st.markAt >= int64(shrinkReleaseGap)) {
		st.tail = true
		return drop
	}
	if st.tail && drop >= max(shrinkTailMin, used/32) && now-st.lowAt >= int64(shrinkSettle) {
		st.tail = false
		return drop
	}
	return 0
}

// afterRelease is run by the release goroutine after its collection.
// Asked to compact (compactAsked) and still fragmented, it compacts the
// string values and reports whether it moved any (the caller then
// collects again); otherwise it records whether the heap is fragmented,
// for the tick to ask for a compacting release once the shrink is over.
func (s *Server) afterRelease() bool {
	e := s.ext()
	frag := heapFragmented()
	if !e.compactAsked.Swap(false) || !frag {
		e.fragmented.Store(frag)
		return false
	}
	start := time.Now()
	cs := s.ks.CompactStrings(0)
	e.defragHits.Add(int64(cs.Keys))
	e.defragTime.Add(time.Since(start).Microseconds())
	return cs.Keys > 0
}

// heapFragmented reports whether the heap's partly used spans hold at
// least compactMinUnused of free room and half as much as its live
// objects.
func heapFragmented() bool {
	v := runtimeMetrics("/memory/classes/heap/unused:bytes", "/memory/classes/heap/objects:bytes")
	unused, objects := v[0], v[1]
	return unused >= compactMinUnused && unused >= objects/2
}

// heapGarbage is what the tick reads of the runtime for the idle release.
type heapGarbage struct {
	allocs  int64 // bytes allocated since the start (cumulative)
	garbage int64 // heap objects not live at the last collection, plus free pages not returned
	live    int64 // the live heap at the last collection
}

func readHeapGarbage() heapGarbage {
	v := runtimeMetrics(
		"/gc/heap/allocs:bytes",
		"/memory/classes/heap/objects:bytes",
		"/memory/classes/heap/free:bytes",
		"/gc/heap/live:bytes",
	)
	return heapGarbage{allocs: v[0], garbage: max(v[1]-v[3], 0) + v[2], live: v[3]}
}

// idleState follows allocation for the idle release (see idleAllocMax).
type idleState struct {
	allocs int64 // cumulative allocations when the quiet window began
	since  int64 // when it began (unix ns)
	fired  bool  // a release was asked for in this quiet period
}

// due reports whether an idle release is due at now (unix ns), given the
// runtime's figures and the time of the last release asked for anywhere.
// More than idleAllocMax allocated since the window began starts a new
// window (and a new quiet period).
func (st *idleState) due(h heapGarbage, last, now int64) bool {
	if st.since == 0 || h.allocs-st.allocs > idleAllocMax {
		st.allocs, st.since, st.fired = h.allocs, now, false
		return false
	}
	if st.fired || now-st.since < int64(idleFor) || now-last < int64(shrinkReleaseGap) {
		return false
	}
	if h.garbage < max(idleReleaseMin, h.live/4) {
		return false
	}
	st.fired = true
	return true
}
