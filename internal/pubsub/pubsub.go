// Package pubsub is the registry of pub/sub subscriptions and the
// fan-out of published messages: classic channels, glob patterns (Valkey's
// stringmatch, ds.Match) and shard channels, as Valkey 8.0.1 keeps them.
//
// # Ownership and delivery
//
// A subscriber (the server's client) owns its State: only its connection
// goroutine subscribes or unsubscribes it, so State needs no lock; the
// counts other goroutines read (CLIENT LIST's sub/psub/ssub) are atomics.
// Publish runs on the publisher's goroutine, encodes each message once per
// protocol and hands the bytes to every receiver's Deliver, which must
// only queue them (the server's Client.Push: append to an outbox, wake the
// owner). So a publisher never waits for a subscriber, every subscriber's
// socket is written by its own event loop (fan-out uses every core), and
// messages from one publisher to one channel reach each subscriber in
// publish order.
//
// # Locks
//
// Registry.mu is a reader/writer lock: Publish and the PUBSUB queries
// take it shared, subscribe and unsubscribe exclusively. Deliver runs
// under the shared lock and may take only leaf locks (the outbox mutex).
// Publish may be called with keyspace stripes held (keyspace
// notifications), so the order is stripes -> Registry.mu -> outbox; nothing
// here ever takes a stripe.
package pubsub

import (
	"slices"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/corvid-kv/corvid/internal/ds"
)

// Subscriber receives messages.
type Subscriber interface {
	// Proto is the subscriber's protocol (2 or 3): it picks the encoding.
	Proto() int
	// Deliver queues b, complete RESP, for the subscriber. b is valid
	// only during the call. from is what Publish was given: the
	// publishing client, when there is one.
	Deliver(b []byte, from any)
}

// Kind is a subscription namespace.
type Kind uint8

const (
	Channel Kind = iota // SUBSCRIBE
	Pattern             // PSUBSCRIBE
	Shard               // SSUBSCRIBE
)

// Registry holds every subscription of one server.
type Registry struct {
	mu sync.RWMutex
	// byName[Channel], byName[Shard]: channel -> its subscribers.
	byName [2]map[string]*subscribers
	// patterns in subscription order (their first subscriber's), for
	// matching each published channel against each.
	patterns []*patternSubs
	patIndex map[string]*patternSubs
	// total subscriptions of any kind; 0 lets Publish return at once.
	total atomic.Int64
	// clients counts subscribers with at least one subscription (INFO
	// pubsub_clients).
	clients atomic.Int64
}

type subscribers struct {
	list []Subscriber
}

func (s *subscribers) add(c Subscriber) { s.list = append(s.list, c) }

func (s *subscribers) remove(c Subscriber) {
	if i := slices.Index(s.list, c); i >= 0 {
		last := len(s.list) - 1
		s.list[i] = s.list[last]
		s.list[last] = nil
		s.list = s.list[:last]
	}
}

type patternSubs struct {
	pattern string
	subscribers
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		byName:   [2]map[string]*subscribers{{}, {}},
		patIndex: map[string]*patternSubs{},
	}
}

// State is one subscriber's subscriptions. Owned by the subscriber's
// goroutine; the counts are readable from any goroutine.
type State struct {
	sets   [3]map[string]struct{} // by Kind
	counts [3]atomic.Int32
}

// Count is the number of subscriptions of kind k. Any goroutine.
func (s *State) Count(k Kind) int { return int(s.counts[k].Load()) }

// Active reports whether the subscriber has any subscription. Owner only.
func (s *State) Active() bool {
	return len(s.sets[Channel])+len(s.sets[Pattern])+len(s.sets[Shard]) > 0
}

// Names returns the subscriber's subscriptions of kind k (any order).
// Owner only.
func (s *State) Names(k Kind) []string {
	out := make([]string, 0, len(s.sets[k]))
	for n := range s.sets[k] {
		out = append(out, n)
	}
	return out
}

// Subscribe adds c's subscription of kind k to name; false when it was
// already subscribed. Called by c's owner.
func (r *Registry) Subscribe(c Subscriber, st *State, k Kind, name string) bool {
	if st.sets[k] == nil {
		st.sets[k] = map[string]struct{}{}
	}
	if _, ok := st.sets[k][name]; ok {
		return false
	}
	wasActive := st.Active()
	st.sets[k][name] = struct{}{}
	st.counts[k].Add(1)
	r.mu.Lock()
	if k == Pattern {
		p := r.patIndex[name]
		if p == nil {
			p = &patternSubs{pattern: name}
			r.patIndex[name] = p
			r.patterns = append(r.patterns, p)
		}
		p.add(c)
	} else {
		m := r.byName[nameIdx(k)]
		s := m[name]
		if s == nil {
			s = &subscribers{}
			m[name] = s
		}
		s.add(c)
	}
	r.mu.Unlock()
	r.total.Add(1)
	if !wasActive {
		r.clients.Add(1)
	}
	return true
}

// Unsubscribe removes c's subscription of kind k to name; false when it
// had none. Called by c's owner.
func (r *Registry) Unsubscribe(c Subscriber, st *State, k Kind, name string) bool {
	if _, ok := st.sets[k][name]; !ok {
		return false
	}
	delete(st.sets[k], name)
	st.counts[k].Add(-1)
	r.mu.Lock()
	if k == Pattern {
		if p := r.patIndex[name]; p != nil {
			p.remove(c)
			if len(p.list) == 0 {
				delete(r.patIndex, name)
				r.patterns = slices.DeleteFunc(r.patterns, func(q *patternSubs) bool { return q == p })
			}
		}
	} else {
		m := r.byName[nameIdx(k)]
		if s := m[name]; s != nil {
			s.remove(c)
			if len(s.list) == 0 {
				delete(m, name) // an unused channel costs nothing
			}
		}
	}
	r.mu.Unlock()
	r.total.Add(-1)
	if !st.Active() {
		r.clients.Add(-1)
	}
	return true
}

// UnsubscribeAll drops every subscription of c (a closing connection,
// RESET).
func (r *Registry) UnsubscribeAll(c Subscriber, st *State) {
	for k := Channel; k <= Shard; k++ {
		for name := range st.sets[k] {
			r.Unsubscribe(c, st, k, name)
		}
	}
}

func nameIdx(k Kind) int {
	if k == Shard {
		return 1
	}
	return 0
}

// message encodes one published message lazily, once per protocol.
type message struct {
	kind    Kind
	channel []byte
	payload []byte
	enc     [2][]byte // by protocol: RESP2, RESP3
}

func (m *message) bytes(proto int) []byte {
	i := 0
	if proto >= 3 {
		i = 1
	}
	if m.enc[i] == nil {
		word := "message"
		if m.kind == Shard {
			word = "smessage"
		}
		b := getBuf(32 + len(word) + len(m.channel) + len(m.payload))
		b = appendHeader(b, proto, 3)
		b = appendBulk(b, word)
		b = appendBulk(b, m.channel)
		m.enc[i] = appendBulk(b, m.payload)
	}
	return m.enc[i]
}

// Publish sends payload to the subscribers of channel (kind Channel: and
// of every pattern matching it; kind Shard: shard subscribers only) and
// returns how many received it. from is passed on to Deliver.
func (r *Registry) Publish(k Kind, channel, payload []byte, from any) int {
	if r.total.Load() == 0 {
		return 0
	}
	m := message{kind: k, channel: channel, payload: payload}
	n := 0
	r.mu.RLock()
	if s := r.byName[nameIdx(k)][string(channel)]; s != nil {
		for _, c := range s.list {
			c.Deliver(m.bytes(c.Proto()), from)
			n++
		}
	}
	if k == Channel && len(r.patterns) > 0 {
		chs := string(channel)
		var enc [2][]byte
		for _, p := range r.patterns {
			if !ds.MatchString(p.pattern, chs, false) {
				continue
			}
			enc[0], enc[1] = nil, nil
			for _, c := range p.list {
				i, proto := 0, c.Proto()
				if proto >= 3 {
					i = 1
				}
				if enc[i] == nil {
					b := getBuf(48 + len(p.pattern) + len(chs) + len(payload))
					b = appendHeader(b, proto, 4)
					b = appendBulk(b, "pmessage")
					b = appendBulk(b, p.pattern)
					b = appendBulk(b, chs)
					enc[i] = appendBulk(b, payload)
				}
				c.Deliver(enc[i], from)
				n++
			}
			putBuf(enc[0])
			putBuf(enc[1])
		}
	}
	r.mu.RUnlock()
	putBuf(m.enc[0])
	putBuf(m.enc[1])
	return n
}

// bufPool recycles message encodings: Deliver copies what it keeps, so an
// encoding is garbage once Publish returns.
var bufPool sync.Pool

func getBuf(n int) []byte {
	if p, ok := bufPool.Get().(*[]byte); ok && cap(*p) >= n {
		return (*p)[:0]
	}
	return make([]byte, 0, max(n, 256))
}

func putBuf(b []byte) {
	if b != nil && cap(b) <= 64<<10 {
		bufPool.Put(&b)
	}
}

// Wanted reports whether a message to channel (kind Channel) could reach
// anyone: false lets a caller skip building it (keyspace notifications).
func (r *Registry) Wanted() bool { return r.total.Load() != 0 }

// Channels lists the active channels of kind k (Channel or Shard) that
// match pattern (every one when pattern is nil): PUBSUB CHANNELS and
// SHARDCHANNELS.
func (r *Registry) Channels(k Kind, pattern []byte) []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []string
	for name := range r.byName[nameIdx(k)] {
		if pattern == nil || ds.MatchString(string(pattern), name, false) {
			out = append(out, name)
		}
	}
	return out
}

// NumSub is the number of subscribers of channel of kind k (not counting
// patterns): PUBSUB NUMSUB and SHARDNUMSUB.
func (r *Registry) NumSub(k Kind, channel []byte) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if s := r.byName[nameIdx(k)][string(channel)]; s != nil {
		return len(s.list)
	}
	return 0
}

// NumPat is the number of distinct patterns subscribed to (PUBSUB
// NUMPAT, INFO pubsub_patterns).
func (r *Registry) NumPat() int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.patterns)
}

// NumChannels is the number of active channels of kind k (INFO
// pubsub_channels, pubsubshard_channels).
func (r *Registry) NumChannels(k Kind) int {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.byName[nameIdx(k)])
}

// Clients is the number of subscribers with any subscription.
func (r *Registry) Clients() int { return int(r.clients.Load()) }

// Reply encodes a subscription confirmation (subscribe, unsubscribe,
// psubscribe, ... with the name, or a null name, and the count) for the
// given protocol.
func Reply(b []byte, proto int, word string, name []byte, null bool, count int) []byte {
	b = appendHeader(b, proto, 3)
	b = appendBulk(b, word)
	if null {
		if proto >= 3 {
			b = append(b, "_\r\n"...)
		} else {
			b = append(b, "$-1\r\n"...)
		}
	} else {
		b = appendBulk(b, name)
	}
	b = append(b, ':')
	b = strconv.AppendInt(b, int64(count), 10)
	return append(b, '\r', '\n')
}

func appendHeader(b []byte, proto, n int) []byte {
	if proto >= 3 {
		b = append(b, '>')
	} else {
		b = append(b, '*')
	}
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\r', '\n')
}

// appendBulk appends s as a bulk string.
func appendBulk[S ~string | ~[]byte](b []byte, s S) []byte {
	b = append(b, '$')
	b = strconv.AppendInt(b, int64(len(s)), 10)
	b = append(b, '\r', '\n')
	b = append(b, s...)
	return append(b, '\r', '\n')
}

// AnySubscription reports whether fn is true of any of c's subscriptions
// (kind and channel or pattern). It walks the whole registry under its
// read lock, so it is for rare events: ACL changes that revoke channel
// permissions (the subscriber's own State belongs to its goroutine). A
// subscription made while it runs may be missed.
func (r *Registry) AnySubscription(c Subscriber, fn func(k Kind, name string) bool) bool {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, k := range [...]Kind{Channel, Shard} {
		for name, s := range r.byName[nameIdx(k)] {
			if slices.Contains(s.list, c) && fn(k, name) {
				return true
			}
		}
	}
	for _, p := range r.patterns {
		if slices.Contains(p.list, c) && fn(Pattern, p.pattern) {
			return true
		}
	}
	return false
}
