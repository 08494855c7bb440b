package main

import (
	"net"
	"testing"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

func TestAppendBulk(t *testing.T) {
	b := appendArrayHeader(nil, 3)
	b = appendBulk(b, "SET")
	b = appendBulk(b, []byte("a\r\nb"))
	b = appendBulk(b, "")
	if want := "*3\r\n$3\r\nSET\r\n$4\r\na\r\nb\r\n$0\r\n\r\n"; string(b) != want {
		t.Errorf("encoded %q, want %q", b, want)
	}
}

// TestPipeline sends three batches to a fake server that answers :1 to
// every command but the fifth, which gets +OK.
func TestPipeline(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	go func() {
		srv := wire.NewConn(a, "")
		var reply []byte
		for i := 1; i <= 6; i++ {
			if _, err := srv.ReadValue(); err != nil {
				return
			}
			if i != 5 {
				reply = append(reply, ":1\r\n"...)
			} else {
				reply = append(reply, "+OK\r\n"...)
			}
			if !srv.Buffered() { // the end of a batch
				if _, err := a.Write(reply); err != nil {
					return
				}
				reply = reply[:0]
			}
		}
	}()
	c := wire.NewConn(b, "pipe")
	for range 3 {
		c.Out = appendArrayHeader(c.Out, 2)
		c.Out = appendBulk(appendBulk(c.Out, "RPUSH"), "k")
	}
	if err := pipeline(c, 3, false); err != nil {
		t.Fatal(err)
	}
	c.Out = wire.AppendCommand(c.Out, "RPUSH", "k")
	c.Out = wire.AppendCommand(c.Out, "RPUSH", "k")
	if err := pipeline(c, 2, false); err == nil || err.Error() != "pipelined write: want an integer reply, got OK" {
		t.Fatalf("pipeline = %v", err)
	}
	// SET's batches want +OK: an integer is refused.
	c.Out = wire.AppendCommand(c.Out, "SET", "k", "v")
	if err := pipeline(c, 1, true); err == nil || err.Error() != "pipelined write: want +OK, got 1" {
		t.Fatalf("pipeline of SET = %v", err)
	}
}
