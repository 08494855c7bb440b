package loadgen

import (
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/netloop"
)

// loopEngines are the event-loop engines this build and kernel run: epoll,
// and io_uring where available (not under the race detector).
func loopEngines() []string {
	if netloop.URingAvailable() {
		return []string{"epoll", "uring"}
	}
	return []string{"epoll"}
}

// eachLoopEngine runs f as a subtest on every event-loop engine.
func eachLoopEngine(t *testing.T, f func(t *testing.T, io string)) {
	for _, io := range loopEngines() {
		t.Run(io, func(t *testing.T) { f(t, io) })
	}
}

// Every client engine sends the same requests: with a constant seed every
// client's command and key sequence is fixed, so the server sees the same
// multiset of commands and the counters agree exactly.
func TestClientIOEnginesAgree(t *testing.T) {
	engines := append(loopEngines(), "goroutines")
	got := make([]map[string]int, len(engines))
	for i, io := range engines {
		f := newFake(t, simpleHandler())
		cfg := parse(t, "-t 2 -c 3 -n 200 --ratio 1:3 --key-maximum 40 --pipeline 4 -p 1 --client-io "+io)
		res, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
		if err != nil {
			t.Fatal(io, err)
		}
		sets, gets := row(t, res[0], "Sets"), row(t, res[0], "Gets")
		if sets.Ops != 300 || gets.Ops != 900 || sets.Hist.TotalCount() != 300 || gets.Hist.TotalCount() != 900 {
			t.Fatalf("%s: sets %d gets %d (histograms %d %d)", io, sets.Ops, gets.Ops, sets.Hist.TotalCount(), gets.Hist.TotalCount())
		}
		f.mu.Lock()
		got[i] = map[string]int{"SET": f.seen["SET"], "GET": f.seen["GET"]}
		f.mu.Unlock()
	}
	for i := range got[1:] {
		if got[0]["SET"] != got[i+1]["SET"] || got[0]["GET"] != got[i+1]["GET"] {
			t.Fatalf("%s %v, %s %v", engines[0], got[0], engines[i+1], got[i+1])
		}
	}
}

// A window the socket does not take at once (the server is not reading)
// is completed later (epoll: on EPOLLOUT; io_uring: the rest is sent
// again), and every reply is still counted. The server stops reading at
// the first request of each key until a write was partial (or, if none
// ever is, for hangTimeout, and the test fails).
func TestLoopPartialWrite(t *testing.T) { eachLoopEngine(t, testLoopPartialWrite) }

func testLoopPartialWrite(t *testing.T, io string) {
	var mu sync.Mutex
	stalled := map[string]bool{}
	h := simpleHandler()
	before := partialWrites.Load()
	f := newFake(t, func(a []string) string {
		mu.Lock()
		first := !stalled[a[1]]
		stalled[a[1]] = true
		mu.Unlock()
		if first { // the client's writes pile up
			for deadline := time.Now().Add(hangTimeout); partialWrites.Load() == before && time.Now().Before(deadline); {
				time.Sleep(time.Millisecond)
			}
		}
		return h(a)
	})
	cfg := parse(t, "-t 1 -c 2 -n 12 --ratio 1:0 -d 2000000 --pipeline 6 --key-maximum 3 -p 1 --client-io "+io)
	res, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	if ops := row(t, res[0], "Sets").Ops; ops != 24 {
		t.Fatalf("sets %d, want 24", ops)
	}
	if partialWrites.Load() == before {
		t.Fatal("no write was partial: the test did not exercise the rest of a window")
	}
}

// A server that hangs up after the first request fails every connection
// with a clear error; the run ends instead of waiting for replies.
func TestLoopServerHangsUp(t *testing.T) { eachLoopEngine(t, testLoopServerHangsUp) }

func testLoopServerHangsUp(t *testing.T, io string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				var b [64]byte
				_, _ = c.Read(b[:])
				_ = c.Close()
			}()
		}
	}()
	cfg := parse(t, "-t 1 -c 2 --test-time 300 -p 1 --client-io "+io)
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), cfg, []string{ln.Addr().String()}, Progress{})
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "every connection") {
			t.Fatalf("err %v", err)
		}
	case <-time.After(hangTimeout): // --test-time 300: far longer
		t.Fatal("run did not end")
	}
}
