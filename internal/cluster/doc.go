// Package cluster is Valkey 8.0.1's cluster mode as this node sees it:
//
//   - slot.go: the hash slot of a key (KeySlot: package keyslot's CRC16
//     with hash tags, which the keyspace shares);
//   - bus.go: the cluster bus's messages (the clusterMsg header, gossip
//     sections, ping extensions, FAIL, PUBLISH, UPDATE, MODULE, the light
//     header), encoded and decoded byte for byte as cluster_legacy.c, with
//     its clusterIsValidPacket length checks. Pure data: no I/O, no state;
//     a decoded Message does not alias its buffer; Encode only appends;
//   - state.go: the nodes (Node), the 16384-slot owner table, the open
//     (migrating/importing) slots, currentEpoch and lastVoteEpoch, the
//     cluster state, and what CLUSTER's subcommands read and change;
//   - nodesconf.go: nodes.conf in Valkey's format, loaded by New and saved
//     atomically (temporary file, rename) as Valkey's beforeSleep does:
//     with fsync (and the directory's) before anything leaves after a
//     change of epoch, vote or claim; before the reply of a client's
//     command otherwise (one save for concurrent commands, no fsync); by
//     the saver goroutine soon after a change the bus made;
//   - gossip.go: the bus: the listener, the links, MEET/PING/PONG with
//     gossip sections and extensions (hostname, human nodename, forgotten
//     node, shard ID, client IPv4 and IPv6), the handshake that gives a met node its real ID,
//     slot claims by config epoch (clusterUpdateSlotsConfigWith, UPDATE
//     both ways), config epoch collisions, PFAIL from the node timeout and
//     FAIL from a majority of primaries' failure reports or a FAIL message,
//     PUBLISH and SPUBLISH relayed to the other nodes (Publish, OnPublish);
//   - tls.go: the bus over TLS (tls-cluster: the handshakes of accepted
//     and dialled links, with the configurations Options.BusTLS gives
//     for each new link) and a node's two client ports (Node.Port is the
//     header's: the TLS port with tls-cluster, the TCP port without;
//     PPort the other), given to clients by their transport (Route's
//     TCPPort and TLSPort, NodesFor) and to a replica by tls-replication.
//
// Replicas: CLUSTER REPLICATE makes this node a replica (Replicate; the
// server starts the replication link), and other nodes' roles are learnt
// from their headers. failover.go: a replica of a FAIL primary runs an
// election (FAILOVER_AUTH_REQUEST/ACK, one vote per primary and epoch) and
// takes its primary's slots; a node whose shard's primary lost its last
// slot to another node follows it as a replica (OnRoleChange tells the
// server); CLUSTER FAILOVER FORCE runs that election at once (the
// primaries vote though the primary is up), TAKEOVER takes the slots with
// an epoch of its own, and without an option the replica sends MFSTART:
// its primary pauses writes (OnPauseWrites) and announces its offset in
// PINGs with the paused flag, and the election starts once the replica
// has processed that offset. A replica of a primary with the most
// working replicas moves to an orphaned primary (replica migration,
// cluster-migration-barrier, cluster-allow-replica-migration), and a
// replica with cluster-replica-no-failover never starts an election of
// its own. Not built yet: the replica validity factor, SLOT-STATS' CPU
// and network counters (cluster-slot-stats-enabled).
//
// # Goroutines
//
// Start runs one accept loop (the bus port), one cron (every 100 ms:
// handshake timeouts, connecting links, links over the send buffer
// limit, pings, PFAIL, a replica's election and migration), one saver
// (nodes.conf), and per link a reader and a writer; connecting an
// outbound link runs a short-lived dialer (which also runs the TLS
// handshake over TLS), and over TLS each accepted connection a
// short-lived handshake goroutine that makes the link once the handshake
// is done. Handshakes are bounded by the node timeout and cancelled by
// Stop. Stop closes the listener and every link and waits for all of
// them (the saver saves what is pending first).
//
// # Locks
//
// Cluster.mu guards everything in a Cluster but the routing snapshot and
// a link's queued-bytes counter (atomic): nodes, slots, epochs, links'
// fields, statistics. It is a leaf: nothing else is locked under it. The
// package's other lock, saveMu, serializes the deferred nodes.conf saves
// and is taken before mu, never under it (a save reads the text under
// mu, writes the file without it, renames it under mu). The only calls
// out of the package made under it are Options' small callbacks
// (NodeTimeout, FullCoverage, Hostname, TLSCluster, TLSPort,
// TLSReplication: configuration reads; Logf: the logger's own leaf
// lock), which must not call back into the Cluster. BusTLS is called
// without the lock. So
// a caller may hold keyspace stripes when it calls into the Cluster (a
// CLUSTER command inside EXEC does), and what needs the keyspace is done
// outside the lock: SetSlot is told whether the slot has keys, and
// OnSlotsLost is called after the lock is released.
//
// Every locked section that changes state ends in Cluster.unlock, which
// recomputes the cluster state, publishes a new Routing and saves
// nodes.conf (or has it saved: see nodesconf.go) when the section marked
// them dirty, then releases the lock; a client's command (lockReply)
// then waits for its save, without the lock.
//
// # Routing
//
// The server checks slot ownership on every keyed command without a lock:
// Routing returns an atomic pointer to an immutable snapshot (slot →
// owner index, the owners' addresses, cluster ok or not, open slots),
// replaced whole on every change of ownership, address or state.
//
// # Links and buffers
//
// A link belongs to the Cluster (Cluster.links) and to at most one node
// (Node.link for ours to it, Node.inLink for its to us). Its reader owns
// its read buffer and decodes whole messages into fresh Messages, then
// processes them under mu; anything it sends is encoded into a new slice
// and queued on the link's channel (never blocking under mu: a full queue
// frees the link), which only the writer goroutine drains to the socket;
// the bytes queued and not yet written are what CLUSTER LINKS shows and
// cluster-link-sendbuf-limit bounds (the cron frees a link over it).
// freeLink (under mu) closes the connection and the done channel, which
// ends both goroutines. Names (node IDs, shard IDs) are the 40-byte hex
// strings Valkey uses; multi-byte integers on the bus are big-endian.
package cluster
