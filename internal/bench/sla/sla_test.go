package sla

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/matrix"
	"github.com/corvid-kv/corvid/internal/bench/options"
)

// server answers every RESP request with +OK after delay. It counts
// request lines crudely: every "*" at the start of a line begins a request.
func server(t *testing.T, delay time.Duration) string {
	t.Helper()
	var slow atomic.Bool
	slow.Store(true)
	return switchable(t, delay, &slow)
}

// switchable is server, with the delay only while slow is set.
func switchable(t *testing.T, delay time.Duration, slow *atomic.Bool) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if strings.HasPrefix(line, "*") {
						// consume the bulk strings of this request
						n := 0
						for _, ch := range line[1 : len(line)-2] {
							n = n*10 + int(ch-'0')
						}
						for i := 0; i < 2*n; i++ {
							if _, err := r.ReadString('\n'); err != nil {
								return
							}
						}
						if slow.Load() {
							time.Sleep(delay)
						}
						if _, err := c.Write([]byte("+OK\r\n")); err != nil {
							return
						}
					}
				}
			}(c)
		}
	}()
	return ln.Addr().String()
}

func base(t *testing.T) *options.Config {
	c, _, err := options.Parse([]string{"--test-time", "150ms", "-d", "4", "-p", "1"})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSearchRaisesConnectionsThenInstances(t *testing.T) {
	a, b := server(t, 0), server(t, 0)
	// A bound no step can miss (the search's order is under test, not
	// the machine's latency).
	res, err := Run(context.Background(), Config{Base: base(t), Targets: []matrix.Target{{Name: "a", Addr: a}, {Name: "b", Addr: b}},
		Bound: time.Hour, Conns: []int{1, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Curve) != 3 || res.Curve[2].Phase != "instances" || res.Curve[2].Instances != 2 || len(res.Curve[2].PerInst) != 2 {
		t.Fatalf("%+v", res.Curve)
	}
	if res.Best == nil || !res.Best.OK {
		t.Fatalf("best %+v", res.Best)
	}
	for _, p := range res.Curve {
		if p.OK && p.OpsSec > res.Best.OpsSec {
			t.Fatalf("best %v is not the highest within bound (%v)", res.Best.OpsSec, p.OpsSec)
		}
	}
	var sb strings.Builder
	Write(&sb, res)
	if !strings.Contains(sb.String(), "answer:") {
		t.Fatal(sb.String())
	}
}

func TestSearchStopsAtFirstViolation(t *testing.T) {
	slow := server(t, 3*time.Millisecond)
	res, err := Run(context.Background(), Config{Base: base(t), Targets: []matrix.Target{{Name: "s", Addr: slow}, {Name: "s2", Addr: slow}},
		Bound: time.Millisecond, Conns: []int{1, 2, 4}})
	if err != nil {
		t.Fatal(err)
	}
	// The step over the bound is run once more, then ends the search.
	if len(res.Curve) != 2 || res.Curve[0].OK || res.Curve[1].OK || res.Curve[1].Retry != 1 || res.Best != nil {
		t.Fatalf("%+v best %+v", res.Curve, res.Best)
	}
	var sb strings.Builder
	Write(&sb, res)
	if !strings.Contains(sb.String(), "no step kept p99 at or under 1.000 ms") {
		t.Fatal(sb.String())
	}
}

// TestSearchRetriesAStall: a step over the bound once (here: the server
// stalls until the first step is over) is run again,
// and the search goes on from the run within the bound; with retries
// off, it stops there. The bound is far above a loopback round trip and
// far below the stall.
func TestSearchRetriesAStall(t *testing.T) {
	for _, retries := range []int{0, -1} {
		// Slow until the first step has been measured (its log line).
		var slow atomic.Bool
		slow.Store(true)
		addr := switchable(t, 300*time.Millisecond, &slow)
		stalled := writerFunc(func(b []byte) (int, error) { slow.Store(false); return len(b), nil })
		res, err := Run(context.Background(), Config{Base: base(t), Targets: []matrix.Target{{Name: "s", Addr: addr}},
			Bound: 100 * time.Millisecond, Conns: []int{1, 2}, Retries: retries, Log: stalled})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, p := range res.Curve {
			got = append(got, fmt.Sprintf("%d/%d/%v", p.Conns, p.Retry, p.OK))
		}
		want := "1/0/false 1/1/true 2/0/true"
		if retries < 0 {
			want = "1/0/false"
		}
		if strings.Join(got, " ") != want {
			t.Errorf("retries %d: curve (conns/retry/within) %v, want %s", retries, got, want)
		}
		if (res.Best != nil) != (retries == 0) {
			t.Errorf("retries %d: best %+v", retries, res.Best)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
