// Package loadgen drives servers with memtier_benchmark's workload model:
// for every server, threads × clients connections, each keeping up to
// --pipeline requests in flight. Engines: by default one event loop per
// thread driving that thread's connections (memtier's design), on
// io_uring where the kernel allows (uring.go) or epoll (evloop.go); and
// one goroutine per connection (client.go; cluster mode,
// --reconnect-interval, unix sockets, --tls, --client-io goroutines).
//
// TLS (--tls): every connection is a tls.Conn (wire.DialTLS), cluster
// nodes learnt from CLUSTER SLOTS or MOVED/ASK included, and runs on the
// goroutine engine, since the event loops drive raw sockets. A batch of
// up to --pipeline requests is written with one Write call on the
// tls.Conn, so it travels as one TLS record (up to 16 KB) and one TCP
// write, as a batch is one TCP write in plaintext; memtier instead seals
// each pipelined request into its own record and write. Measure with that
// in mind: corvid-bench's TLS load is per batch, memtier's per request.
//
// Ownership and lifetime:
//   - A client's loop (or its goroutine) owns its connection(s), key
//     generators, random source, value buffer and counters; nothing on its
//     request path locks or allocates. Every recorder (one per server per
//     --threads group) holds the latency histograms; clients buffer samples
//     and take the group's mutex once per 256 samples, so there is one lock
//     order: client -> group, never nested.
//   - Live progress reads per-client atomic counters; it never touches the
//     histograms.
//   - In cluster mode the slot map is shared through an atomic pointer and
//     replaced copy-on-write when a MOVED reply teaches a new owner.
//
// Timing (coordinated omission): without --rate-limiting the test is closed
// loop, like memtier — a request's latency runs from the write of the batch
// that carried it to the read that returned its reply, so a stalled server
// slows the senders and the stall is under-sampled. With --rate-limiting
// each connection has a schedule (request k is due at start + k/rate) and
// latency is measured from the request's intended send time, not from when
// it was actually written: when the server stalls, the requests that should
// have been sent during the stall are charged the wait. That is the
// coordinated-omission correction HdrHistogram describes.
package loadgen
