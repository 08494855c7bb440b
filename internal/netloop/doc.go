// Package netloop is Corvid's event-loop engine for TCP connections: N
// loops, each owning an epoll instance (or an io_uring: Options.URing,
// uring.go) and the connections attached to it, with level-triggered
// readiness and every ready connection of one epoll_wait (every
// completion of one io_uring_enter) handled in a batch.
//
// It exists because, on loopback, a non-pipelined request costs the server
// mostly kernel time, and Go's goroutine-per-connection path adds a read
// that returns EAGAIN, a park and an unpark per request; an event loop
// reads, runs and writes a connection's batch inline with two syscalls
// (measured in docs/architecture.md, "Network path").
//
// # Ownership
//
// A Conn is owned by exactly one goroutine at a time:
//
//   - attached: by its loop. The loop calls Handler.OnReadable when the
//     socket is readable (or the handler asked to run again: Again),
//     OnTick on every tick, OnWake after another goroutine called Wake,
//     and OnDrained when held-back output has been written; only from
//     those calls may the handler use Read, Write, Close, CloseWhenFlushed,
//     Again and Detach.
//   - detached: by the goroutine that Detach starts. It may use Read,
//     ReadBlocking, Write (which then blocks until written), Close, and
//     finally Attach to give the connection back to its loop. It may lend
//     reading to another goroutine while it does no I/O itself (Corvid's
//     disconnect watcher of a blocked client uses ReadBlocking), and must
//     take it back (SetReadDeadline(time.Now()) interrupts ReadBlocking)
//     before it does I/O, Attach or Close again.
//
// Shutdown, Wake, SetReadDeadline and FD may be called from any goroutine
// at any time. Shutdown is how another goroutine (CLIENT KILL, server
// shutdown) ends a connection; the owner then sees end-of-file or a write
// error and closes it. The fd number is only closed by the owner, under
// Conn.mu, so Shutdown never hits a reused descriptor. Wake is how another
// goroutine hands output to an attached connection without touching it:
// the handler keeps the output (Corvid's client outbox), Wake queues the
// Conn on its loop and pokes the eventfd, and the loop calls OnWake; wakes
// coalesce, and a Conn woken while detached gets OnWake when it is
// attached again.
//
// # Output
//
// Write on an attached Conn collects the bytes when Options.DeferWrite is
// set (always on a ring, and in Corvid) and the loop writes each Conn's
// collected output once every ready connection of the round has run;
// without it Write writes at once. What the socket does not take is kept
// in the Conn's pending buffer and the fd is switched from EPOLLIN to
// EPOLLOUT (on a ring: the Conn's receives pause), so the loop stops
// reading that client until its output has drained (back-pressure). A
// detached Conn's Write first drains pending output, then waits with
// poll(2) whenever the socket is full.
//
// WriteBlocks hands over a list of buffers (a large reply's blocks,
// resp.Writer) instead of bytes to copy: an attached Conn keeps them in
// its block queue, after the output collected so far, until the kernel
// has taken them (epoll writes them in turn until the socket is full; a
// ring sends one block per send), and output written after them waits
// behind them. From then on the blocks belong to the Conn, which drops
// them once sent (a ring may reuse one as its next collecting buffer);
// the caller must not touch them again.
//
// # io_uring
//
// On a ring, a buffer handed to the kernel (a connection's receive buffer
// while a receive is in flight, its send buffer while a send is) is the
// kernel's until the completion arrives; the loop keeps the Conn in its
// slot table, and so the buffers reachable, until then, even after Close.
// Most receives name no buffer: the kernel takes one of the loop's pool
// (uring.go, rxPool) when data arrives; a pool buffer is the Conn's from
// that completion until the loop provides it again, once the handler has
// read it or the Conn leaves the loop (its unread bytes then move to a
// buffer of the Conn's own), and the kernel's while provided. A receive
// that finds the pool empty (ENOBUFS) is issued again after the round, up
// to rxRetries times, before one into a buffer of the Conn's own. No receive
// is in flight while OnReadable runs, and Detach waits for a send in
// flight, so the owner of a detached Conn never shares the socket with
// the kernel.
//
// # Lock order
//
// loop.mu (the inbox and the wake list), Conn.mu and the mutex of
// Conn.rd (readState, made on first use) are leaves;
// none is held while a handler runs.
package netloop
