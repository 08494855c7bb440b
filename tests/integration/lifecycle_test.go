package integration

import (
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

func TestQuit(t *testing.T) {
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, "+OK", "SET", "k", "v")
	// Commands pipelined after QUIT are not executed.
	c.WriteRaw("QUIT\r\nSET k after-quit\r\n")
	expectRead(t, c, "+OK")
	expectClosed(t, c)
	expect(t, testutil.Dial(t, srv.Addr), `"v"`, "GET", "k")
	// QUIT with arguments: Valkey 8 accepts any arity (-1) for QUIT.
	c = testutil.Dial(t, srv.Addr)
	expect(t, c, "+OK", "QUIT", "extra")
	expectClosed(t, c)
}

// TestClientKill kills another client by id and by address; the victim's
// connection closes, the killer's does not. Valkey 8 and Redis 7.0 agree on
// all of it, so it also runs against redis-server.
func TestClientKill(t *testing.T) {
	forServers(t, nil, func(t *testing.T, srv *testutil.Proc) {
		killer := testutil.Dial(t, srv.Addr)

		victim := testutil.Dial(t, srv.Addr)
		id := strings.TrimPrefix(victim.Do("CLIENT", "ID"), ":")
		expect(t, killer, ":1", "CLIENT", "KILL", "ID", id)
		expectClosed(t, victim)
		expect(t, killer, ":0", "CLIENT", "KILL", "ID", id) // already gone

		// Old form: CLIENT KILL addr:port.
		victim = testutil.Dial(t, srv.Addr)
		addr := clientField(t, victim.Do("CLIENT", "INFO"), "addr")
		expect(t, killer, "+OK", "CLIENT", "KILL", addr)
		expectClosed(t, victim)
		expect(t, killer, "-ERR No such client", "CLIENT", "KILL", addr)

		// New form with ADDR: a client skips itself unless SKIPME no, and
		// then gets its reply before the connection closes.
		self := testutil.Dial(t, srv.Addr)
		selfAddr := clientField(t, self.Do("CLIENT", "INFO"), "addr")
		expect(t, self, ":0", "CLIENT", "KILL", "ADDR", selfAddr)
		expect(t, self, "+PONG", "PING")
		expect(t, self, ":1", "CLIENT", "KILL", "ADDR", selfAddr, "SKIPME", "no")
		expectClosed(t, self)

		expect(t, killer, "-ERR client-id should be greater than 0", "CLIENT", "KILL", "ID", "notanumber")
		expect(t, killer, "-ERR syntax error", "CLIENT", "KILL", "ID", "1", "BOGUS")
		expect(t, killer, "+PONG", "PING")
	})
}

// clientField extracts name=value from a CLIENT INFO line.
func clientField(t *testing.T, info, name string) string {
	t.Helper()
	info = strings.Trim(info, `"`)
	for _, f := range strings.Fields(info) {
		if v, ok := strings.CutPrefix(f, name+"="); ok {
			return v
		}
	}
	t.Fatalf("no %s in CLIENT INFO %q", name, info)
	return ""
}

// TestShutdown: SHUTDOWN (a dedicated instance, since it ends the process)
// closes every client and the process exits with status 0.
func TestShutdown(t *testing.T) {
	for _, args := range [][]string{{"SHUTDOWN"}, {"SHUTDOWN", "NOSAVE"}} {
		t.Run(strings.Join(args, "_"), func(t *testing.T) {
			srv := testutil.StartCorvid(t)
			other := testutil.Dial(t, srv.Addr)
			expect(t, other, "+PONG", "PING")
			c := testutil.Dial(t, srv.Addr)
			// On success Valkey does not reply: the connection just closes.
			if got := c.Do(args...); got != "<EOF>" {
				t.Errorf("%v replied %s", args, got)
			}
			code, ok := srv.WaitExit(10 * time.Second)
			if !ok {
				t.Fatalf("process still running 10s after %v", args)
			}
			if code != 0 {
				t.Fatalf("exit status %d after %v; output:\n%s", code, args, srv.Output())
			}
			expectClosed(t, other)
			if conn, err := net.DialTimeout("tcp", srv.Addr, time.Second); err == nil {
				conn.Close()
				t.Error("port still accepting after SHUTDOWN")
			}
		})
	}
	// Arguments are checked before anything stops.
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, "-ERR syntax error", "SHUTDOWN", "BOGUS")
	expect(t, c, "+PONG", "PING")
}

// TestSignals: SIGTERM and SIGINT shut down gracefully with status 0.
func TestSignals(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			srv := testutil.StartCorvid(t)
			c := testutil.Dial(t, srv.Addr)
			expect(t, c, "+OK", "SET", "k", "v")
			if err := srv.Signal(sig); err != nil {
				t.Fatal(err)
			}
			code, ok := srv.WaitExit(10 * time.Second)
			if !ok {
				t.Fatalf("process still running 10s after %v", sig)
			}
			if code != 0 {
				t.Fatalf("exit status %d after %v; output:\n%s", code, sig, srv.Output())
			}
			expectClosed(t, c)
			if !strings.Contains(srv.Output(), "bye bye") {
				t.Errorf("no shutdown message in the log:\n%s", srv.Output())
			}
		})
	}
}
