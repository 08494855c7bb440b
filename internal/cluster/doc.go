// Package cluster holds the parts of Valkey 8.0.1's cluster mode that are
// pure data: the hash slot of a key (KeySlot: CRC16 with hash tags) and the
// cluster bus's messages (bus.go: the clusterMsg header, gossip sections,
// ping extensions, FAIL, PUBLISH, UPDATE, MODULE, and the light header),
// encoded and decoded byte for byte as Valkey's cluster_legacy.c does, with
// its clusterIsValidPacket length checks.
//
// Invariants: nothing here does I/O or keeps state; a decoded Message does
// not alias the buffer it was decoded from (strings and slices are copies),
// so a link may reuse its read buffer at once; Encode appends to the slice
// it is given and never reads it. All multi-byte integers on the bus are
// big-endian (Valkey's htons/htonl/htonu64). Names (node IDs, shard IDs)
// are the 40-byte hex strings Valkey uses, kept as written (no NUL
// trimming: Valkey compares them with memcmp).
package cluster
