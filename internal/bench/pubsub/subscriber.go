package pubsub

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// subKind is how a subscriber reads.
type subKind uint8

const (
	subFast    subKind = iota // reads as fast as it can; its latencies are recorded
	subSlow                   // reads at most Config.SlowReadRate bytes/s
	subStalled                // does not read until the run stops
)

func (k subKind) String() string {
	return [...]string{"fast", "slow", "stalled"}[k]
}

// histGroup is a latency histogram shared by several subscribers.
type histGroup struct {
	mu sync.Mutex
	h  *hdrhistogram.Histogram
}

// subscriber is one subscribing connection. Its goroutine owns every
// field; Run reads them after the goroutine ended.
type subscriber struct {
	sh       *shared
	id       int
	kind     subKind
	channels []int
	nc       net.Conn
	buf      []byte // read buffer; unread bytes are buf[r:w]
	r, w     int
	order    orderCheck
	group    *histGroup
	samples  []int64 // latencies not yet in the group's histogram

	received uint64 // messages of ours
	inWindow uint64 // ... received by the end of the measuring window
	late     uint64 // ... received after it
	dropped  bool   // the server closed the connection (or it broke)
	err      error  // why, when dropped
}

// subscribe sends one (P|S)SUBSCRIBE per channel in one write and waits
// for every confirmation.
func (s *subscriber) subscribe(cmd string) error {
	var out []byte
	for _, ch := range s.channels {
		out = wire.AppendCommand(out, cmd, s.sh.channel(ch))
	}
	_ = s.nc.SetDeadline(time.Now().Add(DialTimeout))
	defer func() { _ = s.nc.SetDeadline(time.Time{}) }()
	if _, err := s.nc.Write(out); err != nil {
		return err
	}
	for confirmed := 0; confirmed < len(s.channels); {
		n, f, err := parseFrame(s.buf[s.r:s.w])
		if err != nil {
			return err
		}
		if n == 0 {
			if _, err := s.fill(0); err != nil {
				return err
			}
			continue
		}
		s.r += n
		switch f.kind {
		case frameSubscribed:
			confirmed++
		case frameError:
			return fmt.Errorf("%s: %s", cmd, f.payload)
		}
	}
	return nil
}

// fill reads once into the buffer, at most limit bytes (0: as much as
// fits), compacting or growing it first.
func (s *subscriber) fill(limit int) (int, error) {
	var err error
	s.buf, s.w, err = wire.MakeRoom(s.buf, s.r, s.w)
	s.r = 0
	if err != nil {
		return 0, err
	}
	end := len(s.buf)
	if limit > 0 && s.w+limit < end {
		end = s.w + limit
	}
	n, err := s.nc.Read(s.buf[s.w:end])
	s.w += n
	return n, err
}

// run is the subscriber's goroutine: read and account until the run stops
// and nothing more arrives, or the connection ends.
func (s *subscriber) run() {
	defer s.flushSamples()
	if s.kind == subStalled {
		<-s.sh.stop
	}
	limit := 0
	var start time.Time
	var total int64
	if s.kind == subSlow {
		limit = max(1, min(s.sh.cfg.SlowReadRate/20, len(s.buf))) // about 20 reads a second
		start = time.Now()
	}
	for {
		stopping := s.sh.stopping.Load()
		if stopping {
			// Drain: read everything still coming, until it stops coming.
			limit = 0
			_ = s.nc.SetReadDeadline(s.sh.drainDeadline())
		}
		n, err := s.fill(limit)
		if n > 0 {
			if perr := s.consume(s.sh.now()); perr != nil {
				s.end(perr)
				return
			}
		}
		if err != nil {
			s.end(err)
			return
		}
		if s.kind == subSlow && !stopping {
			total += int64(n)
			due := start.Add(time.Duration(total * int64(time.Second) / int64(s.sh.cfg.SlowReadRate)))
			if d := time.Until(due); d > 0 {
				t := time.NewTimer(d)
				select {
				case <-t.C:
				case <-s.sh.stop:
					t.Stop()
				}
			}
		}
	}
}

// end classifies how the read loop ended: a read deadline after the stop
// is the normal end; anything else means the connection was lost.
func (s *subscriber) end(err error) {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() && s.sh.stopping.Load() {
		return
	}
	if s.sh.ctx.Err() != nil {
		return // cancelled: Run closed the connection
	}
	s.dropped, s.err = true, err
}

// consume accounts every complete frame in the buffer, all read at at.
func (s *subscriber) consume(at int64) error {
	var got uint64
	for {
		n, f, err := parseFrame(s.buf[s.r:s.w])
		if err != nil {
			return err
		}
		if n == 0 {
			break
		}
		s.r += n
		if f.kind != frameMessage {
			continue
		}
		h, ok := DecodePayload(f.payload)
		if !ok {
			s.order.foreign++
			continue
		}
		got++
		s.order.see(h)
		if at <= s.sh.deadline {
			s.inWindow++
		} else {
			s.late++
		}
		if s.kind == subFast {
			s.samples = append(s.samples, max(at-h.Sent, 1))
			if len(s.samples) == cap(s.samples) {
				s.flushSamples()
			}
		}
	}
	if got > 0 {
		s.received += got
		s.sh.delivered.Add(int64(got))
		if s.kind == subFast {
			s.sh.fastRead.Add(int64(got))
		}
	}
	return nil
}

func (s *subscriber) flushSamples() {
	if len(s.samples) == 0 {
		return
	}
	s.group.mu.Lock()
	for _, ns := range s.samples {
		_ = s.group.h.RecordValue(min(ns, stats.HistHighest))
	}
	s.group.mu.Unlock()
	s.samples = s.samples[:0]
}
