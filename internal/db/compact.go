package db

// Compacting string values after the dataset shrank.
//
// Go's heap does not move objects, so after random survivors are left
// (eviction, expiry of scattered keys) every 8 KiB span that keeps one
// live value stays resident: with 1 KB values 10% of survivors keep more
// than half the spans, with 128-byte values nearly all. CompactStrings
// copies every string value into a new allocation of the same capacity.
// The allocator places the copies in the free slots of partly used spans,
// filling a few of them, and the old copies die: after the next
// collection the spans that held only old copies are free and can go back
// to the operating system. That is what Valkey's active defragmentation
// does with jemalloc's hints; here the server asks for it when a memory
// release finds much of the heap's span memory unused
// (internal/server, shrink.go).
//
// Only a string's buffer moves, never the Object or its entry (callers
// hold *Object pointers; entries never move), and only under the key's
// stripe lock, so no command sees a value mid-move. The copy has the old
// one's length, capacity and bytes: memory accounting, replication and
// snapshots see no change. A Str() slice taken before the move stays valid
// (the old buffer lives while it is referenced) but no longer aliases the
// value: nothing keeps one across a release of the stripe lock to write
// through it.

// CompactStats says what a CompactStrings pass did.
type CompactStats struct {
	Keys  int   // values moved
	Bytes int64 // their capacity
}

// CompactStrings moves every string value of at least minLen bytes into
// a new buffer, locking one stripe at a time.
func (ks *Keyspace) CompactStrings(minLen int) CompactStats {
	var cs CompactStats
	for i := range ks.stripes {
		st := &ks.stripes[i]
		st.mu.Lock()
		for _, sh := range st.shards {
			if sh == nil {
				continue
			}
			sh.keys.Range(func(_ string, o *Object) bool {
				if o.Type == TypeString && o.kind() == kindStr && o.val != nil && int(o.n) >= minLen {
					b := o.Str()
					nb := make([]byte, len(b), cap(b))
					copy(nb, b)
					o.SetStr(nb)
					cs.Keys++
					cs.Bytes += int64(cap(b))
				}
				return true
			})
		}
		st.mu.Unlock()
	}
	return cs
}
