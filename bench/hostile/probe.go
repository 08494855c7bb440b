package main

import (
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/corvid-kv/corvid/bench/internal/benchproc"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// prober is the other client: it measures its own PING round trip, one
// PING every `every` (back to back when 0, or when a round trip takes
// longer), so that its own load on the server is about the same whatever
// the server. It belongs to one goroutine.
type prober struct {
	c       *wire.Conn
	every   time.Duration // the pace of PINGs
	timeout time.Duration // bound of one PING
}

func dialProber(addr string, every, timeout time.Duration) (*prober, error) {
	c, err := dial(addr)
	if err != nil {
		return nil, err
	}
	return &prober{c: c, every: every, timeout: timeout}, nil
}

func (p *prober) Close() error { return p.c.Close() }

// ping sends one PING and returns its round trip.
func (p *prober) ping() (time.Duration, error) {
	_ = p.c.SetDeadline(time.Now().Add(p.timeout))
	start := time.Now()
	v, err := benchproc.Do(p.c, "PING")
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("prober: %w", err)
	}
	if v.Type != '+' || v.Str != "PONG" {
		return 0, fmt.Errorf("prober: PING answered %s", v.Text())
	}
	return d, nil
}

// median runs n PINGs at the prober's pace and returns their median
// round trip.
func (p *prober) median(n int) (time.Duration, error) {
	var lats []time.Duration
	err := p.loop(func() bool { return len(lats) >= n }, nil, &lats)
	return median(lats), err
}

// until runs PINGs at the prober's pace until done is closed, at least
// one, and returns their median round trip and how many there were.
func (p *prober) until(done <-chan struct{}) (time.Duration, int, error) {
	var lats []time.Duration
	err := p.loop(func() bool {
		select {
		case <-done:
			return true
		default:
			return false
		}
	}, done, &lats)
	return median(lats), len(lats), err
}

// loop PINGs, appending round trips to lats, until enough() after a
// PING; it waits for the next slot of the pace, or for wake to close.
func (p *prober) loop(enough func() bool, wake <-chan struct{}, lats *[]time.Duration) error {
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	next := time.Now()
	for {
		d, err := p.ping()
		if err != nil {
			return err
		}
		*lats = append(*lats, d)
		if enough() {
			return nil
		}
		next = nextSlot(next, p.every, time.Now())
		if wait := time.Until(next); wait > 0 {
			t.Reset(wait)
			select {
			case <-t.C:
			case <-wake:
				return nil
			}
		}
	}
}

// nextSlot is when the PING after one scheduled at prev is due: prev +
// every, or now if that has passed (a slow round trip does not cause a
// burst of catch-up PINGs).
func nextSlot(prev time.Time, every time.Duration, now time.Time) time.Time {
	if n := prev.Add(every); n.After(now) {
		return n
	}
	return now
}

// median is the middle of ds (the upper middle for an even count), 0 for
// none. ds is not changed.
func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

// rssEvery is how often rssPeak samples VmRSS.
const rssEvery = 2 * time.Millisecond

// rssPeak samples a server's VmRSS every rssEvery until stopped and keeps
// the highest.
type rssPeak struct {
	stop chan struct{}
	once sync.Once // closes stop
	done chan struct{}
	peak int64 // KiB; written by the sampler, read after done
}

func sampleRSS(s *benchproc.Server) *rssPeak {
	r := &rssPeak{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(r.done)
		t := time.NewTicker(rssEvery)
		defer t.Stop()
		for {
			if kib, err := s.RSSKiB(); err == nil && kib > r.peak {
				r.peak = kib
			}
			select {
			case <-r.stop:
				return
			case <-t.C:
			}
		}
	}()
	return r
}

// Stop ends the sampling and returns the peak in bytes (0 if no sample
// was read: the process was gone). A second call returns the same.
func (r *rssPeak) Stop() int64 {
	r.once.Do(func() { close(r.stop) })
	<-r.done
	return r.peak * 1024
}

// rssBytes is the server's VmRSS in bytes.
func rssBytes(s *benchproc.Server) (int64, error) {
	kib, err := s.RSSKiB()
	return kib * 1024, err
}

// cpuSince is the server CPU time spent since ticks0 (utime+stime).
func cpuSince(s *benchproc.Server, ticks0 uint64) (time.Duration, error) {
	t, err := s.CPUTicks()
	if err != nil {
		return 0, err
	}
	return ticksToDuration(t-ticks0, benchproc.ClockTicks()), nil
}

func ticksToDuration(ticks uint64, hz float64) time.Duration {
	return time.Duration(float64(ticks) / hz * float64(time.Second))
}
