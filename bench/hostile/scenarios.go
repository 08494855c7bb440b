package main

import (
	"fmt"
	"io"
	"net"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// scenario is one attack; run measures it on a fresh server, filling r
// (scenario, server and obufDisc are set) as far as it gets.
type scenario struct {
	key   string // for -scenarios
	label string // for the table
	run   func(c *config, s *benchproc.Server, r *result) error
}

// scenarios maps the keys of allScenarios to their attacks; bigCmd is
// the large RPUSH, encoded once for every server.
func scenarios(bigCmd func() []byte) map[string]scenario {
	return map[string]scenario{
		"multibulk": {"multibulk", "large multibulk", func(c *config, s *benchproc.Server, r *result) error {
			return largeMultibulk(c, s, r, bigCmd())
		}},
		"slowreader": {"slowreader", "slow reader", func(c *config, s *benchproc.Server, r *result) error {
			return slowReader(c, s, r, "")
		}},
		"obuflimit": {"obuflimit", "slow reader, obuf limit", func(c *config, s *benchproc.Server, r *result) error {
			return slowReader(c, s, r, c.obufLimit)
		}},
		"idle": {"idle", "idle connections", idleConnections},
	}
}

// baseline waits c.settle, then takes the RSS before the attack and the
// prober's idle median.
func baseline(c *config, s *benchproc.Server, p *prober, r *result) error {
	time.Sleep(c.settle)
	var err error
	if r.rssBase, err = rssBytes(s); err != nil {
		return err
	}
	r.idlePing, err = p.median(c.pings)
	return err
}

// attack is what a scenario that attacks with one connection sets up: the
// prober (its idle baseline taken), the attacking connection, the CPU
// ticks and the RSS sampling from the start of the attack.
type attack struct {
	p      *prober
	nc     net.Conn
	ticks0 uint64
	peak   *rssPeak
}

func startAttack(c *config, s *benchproc.Server, r *result) (*attack, error) {
	p, err := dialProber(s.Addr, c.pingEvery, c.timeout)
	if err != nil {
		return nil, err
	}
	if err := baseline(c, s, p, r); err != nil {
		p.Close()
		return nil, err
	}
	nc, err := net.DialTimeout("tcp", s.Addr, 5*time.Second)
	if err != nil {
		p.Close()
		return nil, err
	}
	ticks0, err := s.CPUTicks()
	if err != nil {
		nc.Close()
		p.Close()
		return nil, err
	}
	return &attack{p: p, nc: nc, ticks0: ticks0, peak: sampleRSS(s)}, nil
}

func (a *attack) close() {
	a.peak.Stop()
	a.nc.Close()
	a.p.Close()
}

// largeMultibulk writes cmd (RPUSH with c.n arguments) in one Write and
// waits for its reply while the prober runs.
func largeMultibulk(c *config, s *benchproc.Server, r *result, cmd []byte) error {
	a, err := startAttack(c, s, r)
	if err != nil {
		return err
	}
	defer a.close()
	p, nc, peak := a.p, a.nc, a.peak
	done := make(chan struct{})
	var reply wire.Value
	var sendErr error
	go func() {
		defer close(done)
		_ = nc.SetDeadline(time.Now().Add(c.timeout))
		start := time.Now()
		if _, sendErr = nc.Write(cmd); sendErr == nil {
			reply, sendErr = wire.NewConn(nc, s.Addr).ReadValue()
		}
		r.wall = time.Since(start)
	}()
	busy, n, perr := p.until(done)
	<-done
	r.busyPing, r.pingSamples = busy, n
	r.rssGrowth = peak.Stop() - r.rssBase
	if r.cpu, err = cpuSince(s, a.ticks0); err != nil {
		return err
	}
	switch {
	case sendErr != nil:
		return fmt.Errorf("RPUSH: %w", sendErr)
	case perr != nil:
		return perr
	case reply.Type != ':' || reply.Int != int64(c.n):
		return fmt.Errorf("RPUSH answered %s, want :%d", reply.Text(), c.n)
	}
	return nil
}

// idleConnections opens c.conns connections one after another, each
// sending PING and reading +PONG, and measures the RSS they hold and the
// prober's round trip with them open.
func idleConnections(c *config, s *benchproc.Server, r *result) error {
	p, err := dialProber(s.Addr, c.pingEvery, c.timeout)
	if err != nil {
		return err
	}
	defer p.Close()
	if err := baseline(c, s, p, r); err != nil {
		return err
	}
	r.perConn = true
	conns := make([]net.Conn, 0, c.conns)
	defer func() {
		for _, nc := range conns {
			nc.Close()
		}
	}()
	ticks0, err := s.CPUTicks()
	if err != nil {
		return err
	}
	start := time.Now()
	buf := make([]byte, 7)
	for i := range c.conns {
		nc, err := net.DialTimeout("tcp", s.Addr, 5*time.Second)
		if err != nil {
			return fmt.Errorf("connection %d: %w", i+1, err)
		}
		conns = append(conns, nc)
		_ = nc.SetDeadline(time.Now().Add(c.timeout))
		if _, err := nc.Write([]byte("PING\r\n")); err != nil {
			return fmt.Errorf("connection %d: %w", i+1, err)
		}
		if _, err := io.ReadFull(nc, buf); err != nil || string(buf) != "+PONG\r\n" {
			return fmt.Errorf("connection %d: PING answered %q (%v)", i+1, buf, err)
		}
	}
	r.wall = time.Since(start)
	if r.cpu, err = cpuSince(s, ticks0); err != nil {
		return err
	}
	time.Sleep(c.settle)
	after, err := rssBytes(s)
	if err != nil {
		return err
	}
	r.rssGrowth = (after - r.rssBase) / int64(c.conns)
	r.busyPing, err = p.median(c.pings)
	r.pingSamples = c.pings
	return err
}
