package loadgen

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// DialTimeout bounds connecting to a server.
var DialTimeout = 5 * time.Second

// Progress configures the one-line live display (nil Out: none).
type Progress struct {
	Out      io.Writer
	Run      int
	Interval time.Duration // default 1s
}

type runner struct {
	ctx      context.Context
	cfg      *options.Config
	w        *workload
	addrs    []string
	base     time.Time
	start    int64       // ns after base when measuring began
	deadline int64       // ns after base; 0 = none
	interval int64       // ns between requests of one connection; 0 = unlimited
	tls      *tls.Config // --tls: every connection, cluster nodes included; nil = plaintext
	stopping atomic.Bool
}

// now is the time since base in nanoseconds (monotonic).
func (r *runner) now() int64 { return int64(time.Since(r.base)) }

// dial connects (over TLS with --tls) and runs the handshake (AUTH, HELLO,
// SELECT, and CLIENT TRACKING ON under --tracking).
func (r *runner) dial(addr string) (*wire.Conn, error) {
	var conn *wire.Conn
	var err error
	if r.tls != nil {
		conn, err = wire.DialTLS(r.cfg.Network(), addr, DialTimeout, r.tls)
	} else {
		conn, err = wire.Dial(r.cfg.Network(), addr, DialTimeout)
	}
	if err != nil {
		return nil, err
	}
	db := r.cfg.SelectDB
	if r.cfg.ClusterMode {
		db = 0
	}
	_ = conn.SetDeadline(time.Now().Add(DialTimeout))
	if err := conn.Handshake(r.cfg.Auth, r.cfg.Protocol, db); err != nil {
		_ = conn.Close()
		return nil, err
	}
	if r.cfg.Tracking {
		v, err := conn.Do("CLIENT", "TRACKING", "ON")
		if err == nil {
			err = v.Err()
		}
		if err != nil {
			_ = conn.Close()
			return nil, fmt.Errorf("CLIENT TRACKING ON: %w", err)
		}
	}
	conn.SkipPushes = true // RESP3 pushes are never replies
	_ = conn.SetDeadline(time.Time{})
	return conn, nil
}

// ping sends PING and waits for the reply (before the clock starts). Only
// the connection failing counts: an error reply (NOAUTH without -a) is
// left to the run, where it is counted as in plaintext.
func ping(conn *wire.Conn) error {
	_ = conn.SetDeadline(time.Now().Add(DialTimeout))
	defer conn.SetDeadline(time.Time{})
	if _, err := conn.Do("PING"); err != nil {
		return fmt.Errorf("PING: %w", err)
	}
	return nil
}

// ConnectError is returned when a server cannot be reached or refuses the
// handshake before the run starts.
type ConnectError struct {
	Addr string
	Err  error
}

func (e *ConnectError) Error() string {
	return fmt.Sprintf("cannot connect to %s: %v", e.Addr, e.Err)
}

func (e *ConnectError) Unwrap() error { return e.Err }

// drive runs every client to the end: on event loops where the run allows
// (evloop.go), else one goroutine per connection.
func (r *runner) drive(ctx context.Context, clients []*client) error {
	if loopEligible(r.cfg) {
		return r.driveLoops(clients)
	}
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func(c *client) {
			defer wg.Done()
			if c.cluster != nil {
				c.runCluster(ctx)
			} else {
				c.runStandalone(ctx)
				_ = c.conn.Close()
			}
		}(c)
	}
	wg.Wait()
	return nil
}

// Run performs one test iteration against every address at once and
// returns one Result per server (in cluster mode: one for the cluster).
func Run(ctx context.Context, cfg *options.Config, addrs []string, prog Progress) ([]*stats.Result, error) {
	if len(addrs) == 0 {
		return nil, errors.New("no server to run against")
	}
	w, err := compile(cfg)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r := &runner{ctx: ctx, cfg: cfg, w: w, addrs: addrs}
	if r.tls, err = cfg.TLS.ClientConfig(); err != nil {
		return nil, err
	}
	if cfg.RateLimit > 0 {
		r.interval = int64(time.Second) / int64(cfg.RateLimit)
	}

	// Pre-flight: every server answers the handshake, so an unreachable
	// one fails fast with its address instead of hundreds of dial errors.
	var shared *clusterShared
	for _, a := range addrs {
		conn, err := r.dial(a)
		if err == nil && r.tls != nil {
			// TLS 1.3 servers refuse a client certificate after the
			// client's side of the handshake is done: the refusal
			// arrives with the first reply. Ask for one here.
			err = ping(conn)
		}
		if err != nil {
			if conn != nil {
				_ = conn.Close()
			}
			return nil, &ConnectError{Addr: a, Err: err}
		}
		if cfg.ClusterMode && shared == nil {
			v, err := conn.Do("CLUSTER", "SLOTS")
			if err == nil {
				var ranges []wire.SlotRange
				ranges, err = wire.ParseClusterSlots(v, a)
				if err == nil {
					shared = newClusterShared(ranges)
				}
			}
			if err != nil {
				_ = conn.Close()
				return nil, fmt.Errorf("cluster mode: %s: %w", a, err)
			}
		}
		_ = conn.Close()
	}
	servers := addrs
	if cfg.ClusterMode {
		servers = addrs[:1] // the other addresses are just more seeds
	}

	perServer := cfg.TotalClients()
	var clients []*client
	recs := make([][]*recorder, len(servers))
	lives := make([]live, len(servers)*perServer)
	for s := range servers {
		for t := 0; t < cfg.Threads; t++ {
			recs[s] = append(recs[s], newRecorder(len(w.rows)))
		}
		for i := 0; i < perServer; i++ {
			seed := cfg.Seed
			if cfg.DistinctClientSeed {
				seed += uint64(i) + 1
			}
			g, err := newGen(w, seed, i, perServer)
			if err != nil {
				return nil, err
			}
			c := &client{r: r, srv: s, gen: g, rec: recs[s][i/cfg.Clients], live: &lives[s*perServer+i],
				counters: make([]stats.Counters, len(w.rows)), samples: make([]sample, 0, 256),
				ring: make([]pending, cfg.Pipeline)}
			if cfg.ClusterMode {
				c.cluster = &clusterState{shared: shared, byAddr: map[string]int{}}
			}
			clients = append(clients, c)
		}
	}

	// Connect everybody, then start the clock together.
	var wg sync.WaitGroup
	var connErr atomic.Pointer[ConnectError]
	sem := make(chan struct{}, 64)
	for _, c := range clients {
		if c.cluster != nil {
			continue // cluster clients dial nodes on first use
		}
		wg.Add(1)
		sem <- struct{}{}
		go func(c *client) {
			defer wg.Done()
			defer func() { <-sem }()
			conn, err := r.dial(addrs[c.srv])
			if err != nil {
				connErr.CompareAndSwap(nil, &ConnectError{Addr: addrs[c.srv], Err: err})
				return
			}
			c.conn = conn
			c.cur.Store(conn)
		}(c)
	}
	wg.Wait()
	if e := connErr.Load(); e != nil {
		for _, c := range clients {
			if c.conn != nil {
				_ = c.conn.Close()
			}
		}
		return nil, e
	}

	r.base = time.Now()
	if cfg.TestTime > 0 {
		r.deadline = int64(cfg.TestTime)
	}
	// Close connections on cancellation so blocked reads return.
	stopWatch := make(chan struct{})
	go func() {
		select {
		case <-ctx.Done():
			r.stopping.Store(true)
			for _, c := range clients {
				if cn := c.cur.Load(); cn != nil {
					_ = cn.Close()
				}
			}
		case <-stopWatch:
		}
	}()
	progDone := make(chan struct{})
	if prog.Out != nil {
		go r.progress(prog, lives, progDone)
	}
	if err := r.drive(ctx, clients); err != nil {
		close(stopWatch)
		if prog.Out != nil {
			progDone <- struct{}{}
			<-progDone
		}
		return nil, err
	}
	end := time.Now()
	close(stopWatch)
	if prog.Out != nil {
		progDone <- struct{}{}
		<-progDone
	}

	results := make([]*stats.Result, len(servers))
	var firstErr error
	failed := make([]int, len(servers))
	for s, a := range servers {
		res := &stats.Result{Server: a, Start: r.base, End: end, Cluster: cfg.ClusterMode, Waits: len(cfg.Commands) == 0}
		for i, row := range w.rows {
			cmd := &stats.Cmd{Name: row.name, TrackHits: row.trackHits, Hist: stats.NewHist()}
			for _, rec := range recs[s] {
				cmd.Hist.Merge(rec.hists[i])
			}
			res.Cmds = append(res.Cmds, cmd)
		}
		results[s] = res
	}
	for _, c := range clients {
		res := results[c.srv]
		for i := range c.counters {
			res.Cmds[i].Counters.Add(c.counters[i])
		}
		if res.FirstError == "" && c.firstErr != "" {
			res.FirstError = c.firstErr
		}
		if c.err != nil {
			failed[c.srv]++
			if firstErr == nil {
				firstErr = c.err
			}
		}
	}
	for s := range servers {
		if failed[s] == perServer {
			return results, fmt.Errorf("every connection to %s failed: %w", servers[s], firstErr)
		}
		if failed[s] > 0 && results[s].FirstError == "" {
			results[s].FirstError = fmt.Sprintf("%d of %d connections failed: %v", failed[s], perServer, firstErr)
		}
	}
	return results, nil
}
