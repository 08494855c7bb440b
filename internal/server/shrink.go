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
// high-water mark since the last release; when used_memory has dropped
// from it by at least shrinkReleaseMin and by a fifth of it, and the last
// such release is at least shrinkReleaseGap old, it asks for the same
// release a flush does (debug.FreeOSMemory on its own goroutine, one at a
// time) and restarts the mark from used_memory. Garbage left behind is
// then under a quarter of what remains (a drop of less than a fifth of
// the mark), plus shrinkReleaseMin. A release is a full collection: its
// cost is the live heap's marking, paid once per fifth of the dataset
// freed and at most once per shrinkReleaseGap; a server whose memory
// goes up and down by less (a cache at steady state, eviction at
// maxmemory, where the memory limit already drives the scavenger) never
// pays it.
const (
	shrinkReleaseMin = 32 << 20
	shrinkReleaseGap = 2 * time.Second
)

// shrinkState is the introspection goroutine's own (no lock).
type shrinkState struct {
	mark int64 // used_memory's high-water mark since the last release
	seen int64 // serverExtras.lastRelease when mark was last reset
}

// noteShrink is called by the introspection tick with used_memory; it
// returns the bytes dropped when it asked for a release, else 0.
func (s *Server) noteShrink(st *shrinkState, used int64, now time.Time) int64 {
	e := s.ext()
	drop := st.due(e.lastRelease.Load(), used, now.UnixNano())
	if drop != 0 {
		s.releaseMemory(drop)
		st.seen, st.mark = e.lastRelease.Load(), used
	}
	e.shrinkMark.Store(st.mark)
	return drop
}

// due follows used_memory (used) at time now (unix nanoseconds), given
// the time of the last release asked for anywhere (last): it returns the
// drop from the mark when a release is due, else 0. A release asked for
// elsewhere (a flush) restarts the mark.
func (st *shrinkState) due(last, used, now int64) int64 {
	if last != st.seen {
		st.seen, st.mark = last, used
		return 0
	}
	if used > st.mark {
		st.mark = used
		return 0
	}
	drop := st.mark - used
	if drop < shrinkReleaseMin || drop < st.mark/5 || now-st.seen < int64(shrinkReleaseGap) {
		return 0
	}
	return drop
}
