// Package server is corvid-server's network front end and command
// dispatcher.
//
// # Threads
//
// By default every connection has one goroutine (with CORVID_NETLOOP=N,
// N epoll event loops own the sockets instead and run batches inline; see
// netpath.go and package netloop). The goroutine reads whatever the socket has,
// parses every complete command in the buffer, executes each one inline
// (taking the keyspace stripe locks the command's key specs name, in
// ascending order), appends the replies to one buffer, and writes that
// buffer with a single syscall. The Go scheduler runs these goroutines on
// all cores, so commands on different keys execute in parallel. See
// docs/architecture.md for why this beat an owner-goroutine design.
//
// # Locks
//
// Order: keyspace stripes (ascending) → watch registry (leaf). The client
// registry mutex (Server.mu) and a client's own mutex are never held while
// a stripe is being taken. Procedures never block while holding stripes;
// blocking commands release them before they wait. Maxmemory eviction runs
// in dispatch before a command takes its stripes (memory_cmds.go), so a
// command never evicts while it holds a stripe.
//
// # Buffers
//
// A command's argv aliases the connection's read buffer and is valid until
// the next read; anything kept longer (MULTI queues, slowlog entries,
// client names) is copied.
package server
