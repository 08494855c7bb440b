// Package server is corvid-server's network front end and command
// dispatcher.
//
// # Threads
//
// By default event loops own the sockets (package netloop, on io_uring
// where the kernel allows it, else epoll): each loop reads a ready
// client's input, runs every complete command inline, and writes the
// round's replies once (netpath.go). A command that may wait (blocking
// commands, DEBUG, any command CLIENT PAUSE holds) detaches its client
// from the loop to a goroutine of its own until it is done. With
// net-engine goroutine every connection has one goroutine instead, which
// runs the same batch code (client.go) on Go's netpoller. Either way,
// commands take the keyspace stripe locks their key specs name (in
// ascending order), so commands on different keys run in parallel on
// every loop. Output from other goroutines (pushes) goes through
// Client.Push (push.go), never to the socket directly. See
// docs/architecture.md, "Network path".
//
// # Locks
//
// Order: keyspace stripes (ascending) → watch registry (leaf); keyspace
// stripes → pub/sub registry (pubsub.Registry, shared for a publish) →
// a client's outbox mutex (leaf): keyspace notifications and tracking
// invalidations are pushed by procedures holding stripes; the tracking
// table's locks (package tracking) are taken after the stripes too. The client
// registry mutex (Server.mu) and a client's own mutex are never held while
// a stripe is being taken. Procedures never block while holding stripes;
// blocking commands release them before they wait. Three exceptions,
// all run off the event loops: MIGRATE holds its keys' stripes across the
// exchange with the target (bounded by its timeout: migrate.go), DEBUG
// SLEEP and DEBUG LOADAOF hold every stripe, as Valkey blocks the server. Maxmemory eviction runs
// in dispatch before a command takes its stripes (memory_cmds.go), so a
// command never evicts while it holds a stripe.
//
// Replication (repl_primary.go, repl_replica.go, repl_failover.go):
// keyspace stripes → replState.mu → effects stream mutex (attaching the
// sink) → repl.Buffer mutex (leaf); the sink itself takes no replState
// lock, and a snapshot's AtStart takes replState.mu with every stripe
// held, so replState.mu is never held while a stripe or the rdb begin
// lock is taken, nor across I/O; a replica's connection
// is written under replica.wmu only. The replica's link goroutine applies
// the primary's stream one command at a time on a fake client, holding no
// lock between commands; stopping it (REPLICAOF) waits for it unless the
// caller holds every stripe (inside EXEC), which would deadlock.
//
// # Buffers
//
// A command's argv aliases the connection's read buffer and is valid until
// the next read; anything kept longer (MULTI queues, slowlog entries,
// client names) is copied.
//
// A client's replies go to its resp.Writer (c.w), owned by whoever runs
// its batches. Past replyBlockBytes the writer fills blocks (outbuf.go);
// flush hands the full blocks to the connection, which owns them from
// then on (netloop.Conn.WriteBlocks keeps them until sent; the goroutine
// path's writev is done with them when it returns), and Reset forgets
// them: nothing may keep a slice of c.w's output across a flush.
package server
