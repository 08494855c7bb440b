package repl

// History is what a server knows of the replication histories it holds
// (Valkey's replid, replid2 and second_replid_offset): the stream of ID,
// and, after a promotion or a change of primary, the previous stream ID2,
// which it holds up to offset Off2-1. A replica that asks to continue
// either may (psync2).
type History struct {
	ID   string
	ID2  string
	Off2 int64 // second_repl_offset: -1 when there is no ID2
}

// NewHistory is a fresh history: a new ID, no ID2.
func NewHistory() History { return History{ID: NewID(), ID2: ZeroID, Off2: -1} }

// Continues reports whether a replica asking for offset off of stream id
// is asking for this server's history (the backlog must still hold off).
func (h History) Continues(id string, off int64) bool {
	return id == h.ID || id == h.ID2 && off <= h.Off2
}

// Shift starts a new stream at end (the current master_repl_offset),
// keeping the old one as ID2 (Valkey's shiftReplicationId): a promoted
// replica still answers partial resyncs of its former siblings.
func (h *History) Shift(end int64) {
	h.ID2 = h.ID
	h.Off2 = end + 1
	h.ID = NewID()
}

// Clear forgets ID2 and takes a new ID (changeReplicationId and
// clearReplicationId2).
func (h *History) Clear() { *h = NewHistory() }
