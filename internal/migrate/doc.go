// Package migrate is the client side of MIGRATE, as Valkey 8.0.1's
// migrateCommand (cluster.c) does it: the command's arguments (Parse),
// the cache of connections to target instances (Cache), and the exchange
// over one of them (Cache.Migrate): AUTH when asked, SELECT when the
// connection's database is not the destination, one RESTORE per key with
// its remaining TTL (and REPLACE), pipelined in one write, then one reply
// line per command. The keys themselves (finding them, serializing them
// with DUMP's format, deleting them once the target has them) are the
// server's business (internal/server/migrate.go).
//
// # Ownership of connections
//
// A Cache holds at most MaxSockets connections, one per name: the host
// and port arguments exactly as given ("host:port"), so "localhost" and
// "127.0.0.1" are two entries, as in Valkey. At any moment a connection
// is owned either by the cache (idle) or by the one Migrate call that
// took it (busy): only its owner reads, writes, closes it or reads its
// selected database. Valkey runs one MIGRATE at a time; Corvid may run
// several, so a Migrate that finds its name's connection busy dials one
// of its own, which afterwards becomes the name's entry if the name has
// none by then and is closed otherwise. A connection that failed (an I/O
// error or a timeout) is closed and forgotten, never cached again; one on
// which the target answered an error stays, with its database unknown.
//
// # Locks
//
// Cache.mu guards the map, each connection's busy flag, cached flag and
// last-use time. It is a leaf: held for map operations only, never during
// I/O or while waiting for anything else. The server calls Migrate with
// the keys' stripes held and the cache never takes a stripe, so the
// order is stripes, then Cache.mu.
//
// # Lifetimes
//
// A connection is cached from its first successful connect until it
// fails, the cache needs its slot for another name (a random idle one is
// closed, as Valkey's migrateGetSocket does), or it has been idle for
// more than IdleTTL: a sweeper goroutine, which runs only while the cache
// holds connections, checks every Tick (one second, as serverCron calls
// migrateCloseTimedoutSockets). Close closes the idle connections at once
// and the busy ones when their Migrate returns, and waits for the
// sweeper; the server closes its cache when it stops.
//
// # Timeouts and retries
//
// The timeout bounds every step (the connect, each 64 KiB written, each
// read), not the exchange as a whole, as Valkey's syncWrite/syncRead do.
// A connection that fails before the first RESTORE's reply arrives, other
// than by a timeout, is replaced and the exchange tried once more (the
// cached one is often just closed by the target). Errors keep Valkey's
// wording, including its quirk that a refused or timed out connect is
// reported as "IOERR error or timeout writing to target instance" (its
// non-blocking connect is never checked); only an address that does not
// resolve is "IOERR error or timeout connecting to the client".
package migrate
