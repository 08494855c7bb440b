package migrate

import (
	"bufio"
	"errors"
	"net"
	"sync"
	"time"
)

// The cache's limits, Valkey's (cluster.c).
const (
	// MaxSockets is MIGRATE_SOCKET_CACHE_ITEMS: a new name beyond it
	// closes a random idle connection first.
	MaxSockets = 64
	// IdleTTL is MIGRATE_SOCKET_CACHE_TTL: a connection unused for more
	// than this many whole seconds is closed by the sweeper.
	IdleTTL = 10 * time.Second
)

// errClosed fails a Migrate on a closed cache (the server is stopping);
// it is reported as a failed connection.
var errClosed = errors.New("migrate: connection cache closed")

// Options configure a Cache. The zero value is Valkey's behaviour.
type Options struct {
	// Now is the clock idle times are measured with (time.Now if nil);
	// tests inject one to age connections without waiting.
	Now func() time.Time
	// Tick is how often the sweeper looks for idle connections (one
	// second if zero, as serverCron runs migrateCloseTimedoutSockets).
	Tick time.Duration
	// Wrap, if set, is applied to every new connection before its first
	// exchange, within the MIGRATE's timeout: the TLS client handshake
	// when tls-cluster is on (Valkey's MIGRATE dials with the cluster's
	// connection type). It returns nc itself to leave it as it is; an
	// error closes nc and fails the MIGRATE as a failed write does.
	Wrap func(nc net.Conn, timeout time.Duration) (net.Conn, error)
}

// Cache holds the connections MIGRATE keeps open to its targets, one
// per "host:port" name. See the package documentation for who owns a
// connection when, and the lock order.
type Cache struct {
	now  func() time.Time
	tick time.Duration
	wrap func(net.Conn, time.Duration) (net.Conn, error)

	mu struct {
		sync.Mutex
		socks   map[string]*socket
		closed  bool
		sweeper bool // the sweeper goroutine is running
	}
	stop    chan struct{} // closed by Close: the sweeper exits
	sweeps  sync.WaitGroup
	closeMu sync.Once
}

// socket is one connection to a target.
type socket struct {
	name string
	nc   net.Conn
	rd   *bufio.Reader
	dr   deadlineReader

	// lastDB is the database the target has selected on this connection
	// (-1: unknown, so the next exchange sends SELECT). Only the owner
	// reads or writes it.
	lastDB int64

	// Guarded by Cache.mu.
	busy    bool      // a Migrate owns it (out of the sweeper's reach)
	cached  bool      // it is the entry of its name in Cache.mu.socks
	lastUse time.Time // when a Migrate last took or returned it
}

// deadlineReader gives every read of the connection the exchange's
// timeout afresh: the timeout bounds the time the target may stay silent,
// not the whole exchange (Valkey's syncRead, per byte).
type deadlineReader struct {
	nc      net.Conn
	timeout time.Duration
}

func (d *deadlineReader) Read(p []byte) (int, error) {
	d.nc.SetReadDeadline(time.Now().Add(d.timeout))
	return d.nc.Read(p)
}

// NewCache returns an empty cache. It starts no goroutine until it holds
// a connection.
func NewCache(o Options) *Cache {
	c := &Cache{now: o.Now, tick: o.Tick, wrap: o.Wrap, stop: make(chan struct{})}
	if c.now == nil {
		c.now = time.Now
	}
	if c.tick <= 0 {
		c.tick = time.Second
	}
	c.mu.socks = make(map[string]*socket)
	return c
}

// Len is the number of cached connections, busy or idle (INFO's
// migrate_cached_sockets).
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.mu.socks)
}

// take returns name's cached connection if it is idle, else a new one to
// addr (the caller owns it either way until put). A new connection is
// cached at once if name has no entry, as Valkey's migrateGetSocket
// does; when every entry is taken, an idle one chosen at random is
// closed first.
func (c *Cache) take(name, addr, host string, timeout time.Duration) (*socket, error) {
	c.mu.Lock()
	if c.mu.closed {
		c.mu.Unlock()
		return nil, errClosed
	}
	if s := c.mu.socks[name]; s != nil && !s.busy {
		s.busy = true
		s.lastUse = c.now()
		c.mu.Unlock()
		return s, nil
	}
	var evicted *socket
	if _, ok := c.mu.socks[name]; !ok && len(c.mu.socks) >= MaxSockets {
		evicted = c.evictLocked()
	}
	c.mu.Unlock()
	if evicted != nil {
		evicted.nc.Close()
	}

	nc, err := dial(host, addr, timeout)
	if err != nil {
		return nil, err
	}
	if c.wrap != nil {
		wrapped, err := c.wrap(nc, timeout)
		if err != nil {
			nc.Close()
			return nil, &wrapError{err}
		}
		nc = wrapped
	}
	s := &socket{name: name, nc: nc, lastDB: -1, busy: true}
	s.dr.nc = nc
	s.rd = bufio.NewReaderSize(&s.dr, 4096)
	c.mu.Lock()
	s.lastUse = c.now()
	c.cacheLocked(s)
	c.mu.Unlock()
	return s, nil
}

// wrapError is Options.Wrap's failure: Valkey's TLS connect completes
// its handshake after connect() returned, so it learns of a failure at
// the first write, as of a refused connection.
type wrapError struct{ err error }

func (e *wrapError) Error() string { return e.err.Error() }
func (e *wrapError) Unwrap() error { return e.err }

// put gives s back after an exchange. A connection that failed (ok
// false) is closed and forgotten, so the next MIGRATE connects afresh.
// A connection that is not its name's entry (dialled while the entry was
// busy) becomes the entry if the name has none by now, else it is
// closed.
func (c *Cache) put(s *socket, ok bool) {
	c.mu.Lock()
	s.busy = false
	s.lastUse = c.now()
	keep := ok && !c.mu.closed
	switch {
	case !keep && s.cached:
		delete(c.mu.socks, s.name)
		s.cached = false
	case keep && !s.cached:
		keep = c.cacheLocked(s)
	}
	c.mu.Unlock()
	if !keep {
		s.nc.Close()
	}
}

// cacheLocked makes s its name's entry if the name has none and there is
// room, and reports whether it did. It starts the sweeper if needed.
func (c *Cache) cacheLocked(s *socket) bool {
	if c.mu.closed || c.mu.socks[s.name] != nil {
		return false
	}
	if len(c.mu.socks) >= MaxSockets {
		ev := c.evictLocked()
		if ev == nil {
			return false
		}
		ev.nc.Close() // idle, hence ours; closing a TCP socket does not block
	}
	c.mu.socks[s.name] = s
	s.cached = true
	if !c.mu.sweeper {
		c.mu.sweeper = true
		c.sweeps.Add(1)
		go c.sweep()
	}
	return true
}

// evictLocked removes an idle entry chosen at random (map order) and
// returns it for the caller to close; nil when every entry is busy.
func (c *Cache) evictLocked() *socket {
	for name, s := range c.mu.socks {
		if !s.busy {
			delete(c.mu.socks, name)
			s.cached = false
			return s
		}
	}
	return nil
}

// CloseIdle closes the idle connections unused for more than IdleTTL
// (in whole seconds of the cache's clock, as Valkey's
// migrateCloseTimedoutSockets compares unix times) and returns how many
// it closed. The sweeper runs it every Tick.
func (c *Cache) CloseIdle() int {
	now := c.now().Unix()
	var idle []*socket
	c.mu.Lock()
	for name, s := range c.mu.socks {
		if !s.busy && now-s.lastUse.Unix() > int64(IdleTTL/time.Second) {
			delete(c.mu.socks, name)
			s.cached = false
			idle = append(idle, s)
		}
	}
	c.mu.Unlock()
	for _, s := range idle {
		s.nc.Close()
	}
	return len(idle)
}

// sweep is the sweeper goroutine: it runs while the cache holds
// connections.
func (c *Cache) sweep() {
	defer c.sweeps.Done()
	t := time.NewTicker(c.tick)
	defer t.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-t.C:
		}
		c.CloseIdle()
		c.mu.Lock()
		if len(c.mu.socks) == 0 {
			c.mu.sweeper = false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
	}
}

// Close closes every idle connection and stops the sweeper; a busy one is
// closed when its Migrate returns. A Migrate after Close fails as if the
// target could not be reached.
func (c *Cache) Close() {
	c.closeMu.Do(func() {
		var idle []*socket
		c.mu.Lock()
		c.mu.closed = true
		for name, s := range c.mu.socks {
			delete(c.mu.socks, name)
			s.cached = false
			if !s.busy {
				idle = append(idle, s)
			}
		}
		close(c.stop)
		c.mu.Unlock()
		for _, s := range idle {
			s.nc.Close()
		}
		c.sweeps.Wait()
	})
}
