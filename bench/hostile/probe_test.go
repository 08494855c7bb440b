package main

import (
	"net"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

func TestMedian(t *testing.T) {
	ms := func(v ...int) []time.Duration {
		var out []time.Duration
		for _, x := range v {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	for _, tc := range []struct {
		in   []time.Duration
		want time.Duration
	}{
		{nil, 0},
		{ms(7), 7 * time.Millisecond},
		{ms(3, 1, 2), 2 * time.Millisecond},
		{ms(4, 1, 3, 2), 3 * time.Millisecond}, // upper middle
		{ms(9, 9, 1, 9, 1), 9 * time.Millisecond},
	} {
		in := append([]time.Duration(nil), tc.in...)
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("median reordered its argument: %v", tc.in)
				break
			}
		}
	}
}

func TestNextSlot(t *testing.T) {
	t0 := time.Unix(1000, 0)
	for _, tc := range []struct {
		name  string
		every time.Duration
		now   time.Time
		want  time.Time
	}{
		{"on pace", time.Millisecond, t0.Add(300 * time.Microsecond), t0.Add(time.Millisecond)},
		{"late: at once, no catch-up burst", time.Millisecond, t0.Add(5 * time.Millisecond), t0.Add(5 * time.Millisecond)},
		{"back to back", 0, t0.Add(time.Microsecond), t0.Add(time.Microsecond)},
	} {
		if got := nextSlot(t0, tc.every, tc.now); !got.Equal(tc.want) {
			t.Errorf("%s: nextSlot = %v, want %v", tc.name, got.Sub(t0), tc.want.Sub(t0))
		}
	}
}

func TestTicksToDuration(t *testing.T) {
	if d := ticksToDuration(325, 100); d != 3250*time.Millisecond {
		t.Errorf("ticksToDuration(325, 100) = %v, want 3.25s", d)
	}
}

// fakePONG answers every command on a with reply until a closes.
func fakePONG(a net.Conn, reply string) {
	srv := wire.NewConn(a, "")
	for {
		if _, err := srv.ReadValue(); err != nil {
			return
		}
		if _, err := a.Write([]byte(reply)); err != nil {
			return
		}
	}
}

func TestProber(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go fakePONG(a, "+PONG\r\n")
	p := &prober{c: wire.NewConn(b, "pipe"), timeout: time.Minute}
	if _, err := p.median(5); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	close(done)
	if _, n, err := p.until(done); err != nil || n != 1 {
		t.Errorf("until a closed channel: %d PINGs, %v; want exactly 1", n, err)
	}
	// A paced prober does not wait for its next slot once done is closed.
	p.every = time.Hour
	if _, n, err := p.until(done); err != nil || n != 1 {
		t.Errorf("paced, until a closed channel: %d PINGs, %v; want 1", n, err)
	}
}

func TestProberWrongReply(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go fakePONG(a, "+OK\r\n")
	p := &prober{c: wire.NewConn(b, "pipe"), timeout: time.Minute}
	if _, err := p.median(1); err == nil || err.Error() != "prober: PING answered OK" {
		t.Errorf("median with +OK replies: %v", err)
	}
}
