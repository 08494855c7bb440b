// Package tracking is the server side of client-side caching (CLIENT
// TRACKING), with Valkey 8.0.1's rules and messages (its tracking.c and
// the tracking parts of clientCommand).
//
// Two modes, as in Valkey:
//
//   - Default mode: the keys a tracking client reads are remembered in a
//     table of key -> clients (Remember). Any change to a key (Invalidate)
//     sends each remembered client an invalidation for it and forgets
//     them all: the client is told once and must read the key again to
//     be told again. Keys are global, not per database, as in Valkey.
//   - Broadcast (BCAST) mode: a client names prefixes (the empty prefix
//     matches every key) and hears about every changed key under them,
//     whoever read what. Changed keys are collected per prefix and sent
//     in batches (FlushBroadcast), one array of keys per prefix, in key
//     order, like Valkey's per-event-loop broadcast.
//
// A flush (FLUSHDB, FLUSHALL) sends every tracking client one null
// invalidation and empties the table (Flush). The table is bounded by
// tracking-table-max-keys: Limit evicts random keys, telling their
// clients, as Valkey's trackingLimitUsedSlots does.
//
// The table needs to hear of key changes (it says so through onActive)
// while a client tracks, and while entries left by clients that stopped
// remain (Valkey drops those as their keys change, and INFO counts them);
// the server turns the keyspace's change reports off otherwise.
//
// # Delivery
//
// An invalidation goes to the client itself if it speaks RESP3 (a push
// ">2 invalidate <keys>"), or, with REDIRECT, to the redirect client: as
// the same push if that one speaks RESP3, as a pub/sub message on
// __redis__:invalidate if it speaks RESP2 and has any subscription. A
// redirect client that is gone makes the tracking client get
// "tracking-redir-broken" (RESP3 only) and its broken_redirect flag.
// Conn.Push only queues bytes; the connection's owner writes them, so no
// sender ever blocks on a receiver.
//
// # Ownership
//
// A Tracker belongs to one connection for the connection's life (it is
// created at its first CLIENT TRACKING ON and kept across OFF and ON, as
// Valkey keeps a client's ID in the table). Enable, Disable, SetCaching,
// EndCommand, Reads and Info are called only by the owner's goroutine;
// the flags and the redirect other goroutines read when they deliver are
// atomics. Table entries hold *Tracker values and are dropped lazily (when
// the key changes, is evicted or flushed), as Valkey drops IDs: a closed
// connection's Tracker lets go of the connection (Close), so a stale entry
// retains only the small Tracker.
//
// # Locks
//
// Invalidate, Flush and Remember run with keyspace stripes held (a key's
// change, and a read being remembered, happen under the key's stripe, so a
// change can never slip between a read and its remembering). So every lock
// here is taken after the stripes, and none is held while another of them
// is taken except as shown:
//
//	stripes -> key shard (one of 64)
//	stripes -> tracker registry -> onActive (the keyspace's atomics only)
//	stripes -> broadcast mutex
//	broadcast mutex -> Resolver (the server's client registry) -> Conn.Push (outbox)
//	Resolver -> Conn.Push, without table locks (default mode, flushes)
//	limit mutex -> key shard
//
// Deliveries of default mode, of flushes and of Limit are made after the
// key shard and registry locks are released; broadcast batches are
// delivered under the broadcast mutex (FlushBroadcast runs without
// stripes), which keeps them in order. Nothing here takes a stripe,
// blocks, or calls back into the keyspace.
package tracking
