// Package pubsub is corvid-bench pubsub: a fan-out benchmark that
// memtier_benchmark cannot run. N subscriber connections subscribe to C
// channels (subscriber i to every channel j with j ≡ i mod min(N, C), so
// every channel has a subscriber and every subscriber a channel); P
// publisher connections publish, as fast as their PUBLISH replies come
// back (with --pipeline requests in flight), for --test-time; every
// message carries its publisher, a per-publisher sequence number and its
// send time (payload.go), so each subscriber measures publish-to-delivery
// latency and checks that each publisher's messages arrive in order.
//
// Run reports PUBLISH ops/s, delivered messages/s (summed over
// subscribers, counting only messages received within the measuring
// window), the latency percentiles of delivery, and a check: no message
// out of order, every subscriber heard from every publisher, and, when no
// subscriber was dropped, delivered == the sum of the PUBLISH replies
// (each is the number of receivers).
//
// Goroutines: one per connection, no more. A subscriber's goroutine owns
// its socket, read buffer, order state and counters; it publishes its
// delivered count to one shared atomic per read (the publishers' --max-lag
// flow control reads it) and its latency samples to a histogram group
// under the group's mutex once per 256 samples (lock order: subscriber ->
// group, never nested). A publisher's goroutine owns its socket and
// counters. Run reads the owned fields only after every goroutine ended.
//
// Hot path: parsing a frame, decoding a payload, the order check and
// recording a latency never allocate; a read buffer grows only when one
// frame does not fit in it.
//
// Time: one monotonic base taken when every subscriber has confirmed its
// subscriptions; send and receive times are nanoseconds since it, so
// latency never crosses clocks. A message's receive time is when the read
// that brought it returned.
package pubsub
