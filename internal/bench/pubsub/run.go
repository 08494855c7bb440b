package pubsub

import (
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// DialTimeout bounds connecting, the handshake and the subscriptions of
// one connection.
var DialTimeout = 10 * time.Second

// The end of a run: after the publishers stop, Run waits for the messages
// still in flight until every one counted by a PUBLISH reply arrived, or
// none arrived for drainIdle, at most drainMax; then each subscriber reads
// what is left until nothing comes for stopIdle (stalled subscribers read
// their whole backlog then).
var (
	drainIdle = 500 * time.Millisecond
	drainMax  = 10 * time.Second
	stopIdle  = 300 * time.Millisecond
)

// shared is the state every connection's goroutine reads.
type shared struct {
	ctx      context.Context
	cfg      *Config
	names    []string // channel names
	base     time.Time
	deadline int64 // ns after base: the end of the measuring window

	delivered atomic.Int64 // messages of ours read by subscribers
	fastRead  atomic.Int64 // ... by fast subscribers (the drain's progress)
	expected  atomic.Int64 // sum of PUBLISH replies read by publishers
	stopping  atomic.Bool  // set before stop is closed
	stopAt    atomic.Int64 // when stopping was set, ns after base
	stop      chan struct{}
}

// now is the time since base in nanoseconds (monotonic).
func (sh *shared) now() int64 { return int64(time.Since(sh.base)) }

func (sh *shared) channel(i int) string { return sh.names[i] }

// drainDeadline is the read deadline of a subscriber draining after the
// stop: stopIdle from now, but not past drainMax after the stop.
func (sh *shared) drainDeadline() time.Time {
	d := time.Now().Add(stopIdle)
	if limit := sh.base.Add(time.Duration(sh.stopAt.Load()) + drainMax); d.After(limit) {
		return limit
	}
	return d
}

// channelsOf returns subscriber i's channels: every j < channels with
// j ≡ i mod min(subscribers, channels).
func channelsOf(i, subscribers, channels int) []int {
	m := min(subscribers, channels)
	var out []int
	for j := i % m; j < channels; j += m {
		out = append(out, j)
	}
	return out
}

// kindOf returns subscriber i's kind: the stalled ones last, the slow ones
// before them.
func kindOf(i int, cfg *Config) subKind {
	switch {
	case i >= cfg.Subscribers-cfg.StalledSubscribers:
		return subStalled
	case i >= cfg.Subscribers-cfg.StalledSubscribers-cfg.SlowSubscribers:
		return subSlow
	}
	return subFast
}

// dial connects and runs the handshake, then hands over the socket.
func dial(cfg *Config, addr string) (net.Conn, error) {
	c, err := wire.Dial(cfg.Network(), addr, DialTimeout)
	if err != nil {
		return nil, err
	}
	_ = c.SetDeadline(time.Now().Add(DialTimeout))
	if err := c.Handshake(cfg.Auth, cfg.Protocol, 0); err != nil {
		_ = c.Close()
		return nil, err
	}
	_ = c.SetDeadline(time.Time{})
	nc, err := c.NetConn()
	if err != nil {
		_ = c.Close()
		return nil, err
	}
	return nc, nil
}

// Run connects and subscribes every subscriber, publishes for the test
// time, drains, and returns the result. log (may be nil) gets progress
// notes. An error means the run could not be made (a connection or
// subscription refused, a publisher's connection lost); a failed check is
// in the Result.
func Run(ctx context.Context, cfg *Config, addr string, log io.Writer) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sh := &shared{ctx: ctx, cfg: cfg, deadline: int64(cfg.TestTime), stop: make(chan struct{})}
	for i := 0; i < cfg.Channels; i++ {
		sh.names = append(sh.names, cfg.Prefix+strconv.Itoa(i))
	}
	subCmd := map[Mode]string{ModeChannel: "SUBSCRIBE", ModePattern: "PSUBSCRIBE", ModeSharded: "SSUBSCRIBE"}[cfg.Mode]

	groups := make([]*histGroup, min(cfg.Subscribers, 16))
	for i := range groups {
		groups[i] = &histGroup{h: stats.NewHist()}
	}
	subs := make([]*subscriber, cfg.Subscribers)
	for i := range subs {
		subs[i] = &subscriber{sh: sh, id: i, kind: kindOf(i, cfg), channels: channelsOf(i, cfg.Subscribers, cfg.Channels),
			buf: make([]byte, 16<<10), order: newOrderCheck(cfg.Publishers), group: groups[i%len(groups)],
			samples: make([]int64, 0, 256)}
	}
	pubs := make([]*publisher, cfg.Publishers)
	closeAll := func() {
		for _, s := range subs {
			if s.nc != nil {
				_ = s.nc.Close()
			}
		}
		for _, p := range pubs {
			if p != nil {
				_ = p.nc.Close()
			}
		}
	}

	// Connect and subscribe everybody (64 at a time), then the publishers.
	t0 := time.Now()
	var wg sync.WaitGroup
	var firstErr atomic.Pointer[error]
	sem := make(chan struct{}, 64)
	for _, s := range subs {
		wg.Add(1)
		sem <- struct{}{}
		go func(s *subscriber) {
			defer wg.Done()
			defer func() { <-sem }()
			nc, err := dial(cfg, addr)
			if err == nil {
				s.nc = nc
				err = s.subscribe(subCmd)
			}
			if err != nil {
				err = fmt.Errorf("subscriber %d: %w", s.id, err)
				firstErr.CompareAndSwap(nil, &err)
			}
		}(s)
	}
	wg.Wait()
	for i := range pubs {
		if firstErr.Load() != nil {
			break
		}
		nc, err := dial(cfg, addr)
		if err != nil {
			err = fmt.Errorf("publisher %d: %w", i, err)
			firstErr.CompareAndSwap(nil, &err)
			break
		}
		pubs[i] = newPublisher(sh, i, nc)
	}
	if e := firstErr.Load(); e != nil {
		closeAll()
		return nil, fmt.Errorf("cannot connect to %s: %w", addr, *e)
	}
	fmt.Fprintf(log, "%d subscribers on %d channels subscribed in %.2fs; publishing for %s\n",
		cfg.Subscribers, cfg.Channels, time.Since(t0).Seconds(), cfg.TestTime)

	cpu0 := stats.CPUTime()
	var srv0 time.Duration
	if cfg.ServerPID > 0 {
		var err error
		if srv0, err = procCPU(cfg.ServerPID); err != nil {
			closeAll()
			return nil, fmt.Errorf("--server-pid: %w", err)
		}
	}
	sh.base = time.Now()
	var subWG, pubWG sync.WaitGroup
	for _, s := range subs {
		subWG.Add(1)
		go func(s *subscriber) {
			defer subWG.Done()
			s.run()
		}(s)
	}
	for _, p := range pubs {
		pubWG.Add(1)
		go func(p *publisher) {
			defer pubWG.Done()
			p.run()
		}(p)
	}
	// Cancellation closes every connection so blocked reads return.
	watchDone := make(chan struct{})
	defer close(watchDone)
	go func() {
		select {
		case <-ctx.Done():
			sh.stopping.Store(true)
			closeAll()
		case <-watchDone:
		}
	}()

	pubWG.Wait()
	pubEnd := sh.now()
	sh.waitDrain(pubEnd)
	sh.stopAt.Store(sh.now())
	sh.stopping.Store(true)
	close(sh.stop)
	wake := time.Now().Add(stopIdle)
	for _, s := range subs {
		_ = s.nc.SetReadDeadline(wake)
	}
	subWG.Wait()
	cpu := stats.CPUTime() - cpu0
	srvCPU := time.Duration(-1)
	if cfg.ServerPID > 0 {
		if t, err := procCPU(cfg.ServerPID); err == nil {
			srvCPU = t - srv0
		}
	}
	closeAll()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, p := range pubs {
		if p.err != nil {
			return nil, p.err
		}
	}
	res := collect(cfg, addr, subs, pubs, groups, time.Duration(pubEnd), cpu)
	if srvCPU >= 0 {
		res.ServerCPU = srvCPU.Seconds()
		if res.Delivered > 0 {
			res.ServerCPUPerMsg = srvCPU.Seconds() * 1e6 / float64(res.Delivered)
		}
	}
	return res, nil
}

// waitDrain waits until every message counted by a PUBLISH reply was
// delivered, or the fast subscribers receive nothing for drainIdle (slow
// ones would keep trickling), at most drainMax.
func (sh *shared) waitDrain(from int64) {
	last, lastAt := sh.fastRead.Load(), sh.now()
	for sh.ctx.Err() == nil {
		f := sh.fastRead.Load()
		now := sh.now()
		if sh.delivered.Load() >= sh.expected.Load() || now-from > int64(drainMax) {
			return
		}
		if f != last {
			last, lastAt = f, now
		} else if now-lastAt > int64(drainIdle) {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}
