package loadgen

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

func parse(t testing.TB, args string) *options.Config {
	t.Helper()
	c, _, err := options.Parse(strings.Fields(args))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func row(t *testing.T, r *stats.Result, name string) *stats.Cmd {
	t.Helper()
	for _, c := range r.Cmds {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no row %q in %+v", name, r.Cmds)
	return nil
}

func TestRequestsAndRatio(t *testing.T) {
	f := newFake(t, simpleHandler())
	cfg := parse(t, "-t 2 -c 3 -n 110 --ratio 1:10 --key-maximum 50 -p 1")
	res, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	r := res[0]
	sets, gets := row(t, r, "Sets"), row(t, r, "Gets")
	// 6 clients x 110 requests, 1 SET then 10 GETs per cycle.
	if sets.Ops != 60 || gets.Ops != 600 {
		t.Fatalf("sets %d gets %d", sets.Ops, gets.Ops)
	}
	if gets.Hits+gets.Misses != gets.Ops || gets.Hits == 0 || gets.Misses == 0 {
		t.Fatalf("hits %d misses %d", gets.Hits, gets.Misses)
	}
	if got := f.cmds.Load(); got != 660+6+6 && got != 660+6 { // +6 preflight connection has no commands
		t.Logf("server saw %d commands", got)
	}
	if sets.Hist.TotalCount() != 60 || gets.Hist.TotalCount() != 600 {
		t.Fatalf("histogram counts %d %d", sets.Hist.TotalCount(), gets.Hist.TotalCount())
	}
	if !r.Waits || sets.Bytes == 0 {
		t.Fatalf("waits %v bytes %d", r.Waits, sets.Bytes)
	}
}

func TestPipelineBatchesWrites(t *testing.T) {
	// Count how many reads the server needs: with --pipeline 16 a client's
	// batch arrives in one write, so far fewer reads than requests.
	var reads int
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan int, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				buf := make([]byte, 1<<16)
				n := 0
				for {
					m, err := c.Read(buf)
					if err != nil {
						done <- n
						return
					}
					n++
					cmds := strings.Count(string(buf[:m]), "*3\r\n$3\r\nSET")
					_, _ = c.Write([]byte(strings.Repeat("+OK\r\n", cmds)))
				}
			}(c)
		}
	}()
	cfg := parse(t, "-t 1 -c 1 -n 1600 --ratio 1:0 --pipeline 16 -p 1")
	res, err := Run(context.Background(), cfg, []string{ln.Addr().String()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	if ops := row(t, res[0], "Sets").Ops; ops != 1600 {
		t.Fatalf("ops %d", ops)
	}
	<-done // pre-flight connection
	reads = <-done
	if reads > 1600/16*2 {
		t.Fatalf("server needed %d reads for 1600 pipelined requests", reads)
	}
}

func TestArbitraryCommandsAndPlaceholders(t *testing.T) {
	var got []string
	f := newFake(t, func(a []string) string {
		if a[0] != "zadd" {
			return "+OK\r\n"
		}
		got = append(got, strings.Join(a, " ")) // single client: no race
		return ":1\r\n"
	})
	cfg2, _, err := options.Parse([]string{"-t", "1", "-c", "1", "-n", "3", "--key-prefix=", "--key-minimum=1", "--key-maximum=500", "-d", "4",
		"--command=zadd __key__ __key__ __data__", "--command-key-pattern=S", "-p", "1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg2, []string{f.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"zadd 1 1 xxxx", "zadd 2 2 xxxx", "zadd 3 3 xxxx"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("server saw %q", got)
	}
	if res[0].Waits || row(t, res[0], "Zadds").Ops != 3 {
		t.Fatalf("%+v", res[0].Cmds[0])
	}
}

func TestTestTimeStops(t *testing.T) {
	eachLoopEngine(t, func(t *testing.T, io string) {
		f := newFake(t, simpleHandler())
		cfg := parse(t, "-t 1 -c 2 --test-time 300ms -p 1 --client-io "+io)
		start := time.Now()
		res, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
		if err != nil {
			t.Fatal(err)
		}
		// That Run returned is the stop; its duration is at least the
		// test time, and within the time Run took. (How much longer than
		// the test time depends on the machine.)
		el := time.Since(start)
		if d := res[0].Duration(); d < 290*time.Millisecond || d > el {
			t.Fatalf("duration %v, Run took %v", d, el)
		}
		if res[0].Totals().Ops == 0 {
			t.Fatal("no ops")
		}
	})
}

func TestRateLimiting(t *testing.T) {
	eachLoopEngine(t, func(t *testing.T, io string) {
		f := newFake(t, simpleHandler())
		// 2 connections x 200 req/s for 0.5 s: about 200 requests.
		cfg := parse(t, "-t 1 -c 2 --rate-limiting 200 --test-time 500ms -p 1 --client-io "+io)
		res, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
		if err != nil {
			t.Fatal(err)
		}
		ops := res[0].Totals().Ops
		if ops < 150 || ops > 230 {
			t.Fatalf("rate limited run did %d ops, want ~200", ops)
		}
	})
}

// With --rate-limiting, latency is measured from the intended send time: a
// server that stalls once for 200ms charges the stall to every request that
// was due during it, so p99 reflects it (coordinated-omission correction).
func TestRateLimitedLatencyIncludesStall(t *testing.T) {
	eachLoopEngine(t, func(t *testing.T, io string) {
		var n int
		f := newFake(t, func(a []string) string {
			n++ // one client: no race
			if n == 20 {
				time.Sleep(200 * time.Millisecond)
			}
			return "+OK\r\n"
		})
		cfg := parse(t, "-t 1 -c 1 --rate-limiting 500 --test-time 600ms --ratio 1:0 -p 1 --client-io "+io)
		res, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
		if err != nil {
			t.Fatal(err)
		}
		h := row(t, res[0], "Sets").Hist
		// ~100 requests were due during the 200 ms stall; with CO correction
		// well over 10% of samples exceed 50 ms. Without it only one would.
		over := 0
		for _, b := range h.Distribution() {
			if b.From >= int64(50*time.Millisecond) {
				over += int(b.Count)
			}
		}
		if over < int(h.TotalCount()/10) {
			t.Fatalf("only %d of %d samples saw the stall", over, h.TotalCount())
		}
	})
}

func TestReconnectInterval(t *testing.T) {
	f := newFake(t, simpleHandler())
	cfg := parse(t, "-t 1 -c 1 -n 100 --reconnect-interval 10 -a pw -p 1")
	res, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	if res[0].Totals().Ops != 100 {
		t.Fatalf("ops %d", res[0].Totals().Ops)
	}
	// Each connection authenticates once: pre-flight, the first
	// connection, and a reconnect after every 10 of the first 90 requests.
	if got := f.count("AUTH"); got != 11 {
		t.Fatalf("AUTH sent %d times, want 11", got)
	}
}

func TestSelectDBAuthAndHello(t *testing.T) {
	f := newFake(t, func(a []string) string {
		switch strings.ToUpper(a[0]) {
		case "HELLO":
			return "%1\r\n+proto\r\n:3\r\n"
		}
		return "+OK\r\n"
	})
	cfg := parse(t, "-t 1 -c 2 -n 5 --select-db 2 -a u:p --protocol resp3 -p 1")
	if _, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{}); err != nil {
		t.Fatal(err)
	}
	// pre-flight + 2 clients
	for _, c := range []string{"AUTH", "HELLO", "SELECT"} {
		if got := f.count(c); got != 3 {
			t.Errorf("%s sent %d times, want 3", c, got)
		}
	}
}

func TestAuthFailureIsClear(t *testing.T) {
	f := newFake(t, func(a []string) string { return "-WRONGPASS invalid username-password pair\r\n" })
	cfg := parse(t, "-t 1 -c 1 -n 5 -a bad -p 1")
	_, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
	var ce *ConnectError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "WRONGPASS") {
		t.Fatalf("err = %v", err)
	}
}

func TestUnreachableServer(t *testing.T) {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := ln.Addr().String()
	ln.Close()
	cfg := parse(t, "-t 1 -c 1 -n 5 -p 1")
	_, err := Run(context.Background(), cfg, []string{addr}, Progress{})
	var ce *ConnectError
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "cannot connect to "+addr) {
		t.Fatalf("err = %v", err)
	}
}

func TestSeveralServersEachGetLoad(t *testing.T) {
	a, b := newFake(t, simpleHandler()), newFake(t, simpleHandler())
	cfg := parse(t, "-t 1 -c 2 -n 50 -p 1")
	res, err := Run(context.Background(), cfg, []string{a.addr(), b.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Totals().Ops != 100 || res[1].Totals().Ops != 100 {
		t.Fatalf("%d results", len(res))
	}
	sum := stats.Sum("all", res)
	if sum.Totals().Ops != 200 {
		t.Fatalf("sum %d", sum.Totals().Ops)
	}
}

func TestErrorsAreCounted(t *testing.T) {
	f := newFake(t, func(a []string) string {
		if strings.ToUpper(a[0]) == "INCR" {
			return "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
		}
		return "+OK\r\n"
	})
	c, _, err := options.Parse([]string{"-t", "1", "-c", "1", "-n", "10", "--command=incr __key__", "-p", "1"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), c, []string{f.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	if r := row(t, res[0], "Incrs"); r.Errors != 10 || !strings.HasPrefix(res[0].FirstError, "WRONGTYPE") {
		t.Fatalf("errors %d first %q", r.Errors, res[0].FirstError)
	}
}

// Cluster mode: node A claims every slot but answers MOVED for a third of
// them and ASK for another third, both pointing at node B. The client must
// follow both, count them, and learn MOVED slots (so later requests for a
// moved slot go straight to B) while ASK slots keep going to A.
func TestClusterModeFollowsMovedAndAsk(t *testing.T) {
	b := newFake(t, simpleHandler())
	var aAddr string
	a := newFake(t, func(args []string) string {
		switch strings.ToUpper(args[0]) {
		case "CLUSTER":
			host, port, _ := net.SplitHostPort(aAddr)
			return "*1\r\n*3\r\n:0\r\n:16383\r\n*2\r\n$" + strconv.Itoa(len(host)) + "\r\n" + host + "\r\n:" + port + "\r\n"
		case "SET", "GET":
			slot := wire.Slot([]byte(args[1]))
			switch slot % 3 {
			case 0:
				return "-MOVED " + strconv.Itoa(slot) + " " + b.addr() + "\r\n"
			case 1:
				return "-ASK " + strconv.Itoa(slot) + " " + b.addr() + "\r\n"
			}
			return simpleHandler()(args)
		}
		return "+OK\r\n"
	})
	aAddr = a.addr()
	cfg := parse(t, "--cluster-mode -t 1 -c 2 -n 600 --key-maximum 300 --pipeline 4 -p 1")
	res, err := Run(context.Background(), cfg, []string{a.addr()}, Progress{})
	if err != nil {
		t.Fatal(err)
	}
	tot := res[0].Totals()
	if tot.Ops != 1200 {
		t.Fatalf("ops %d", tot.Ops)
	}
	if tot.Errors != 0 {
		t.Fatalf("errors %d: %s", tot.Errors, res[0].FirstError)
	}
	if tot.Moved == 0 || tot.Ask == 0 {
		t.Fatalf("moved %d ask %d", tot.Moved, tot.Ask)
	}
	// ASK is followed every time (about a third of the requests); MOVED is
	// learnt, so it is seen at most once per slot per racing client.
	if tot.Ask < 300 || tot.Moved > 300 {
		t.Fatalf("moved %d ask %d", tot.Moved, tot.Ask)
	}
	if b.count("ASKING") != int(tot.Ask) {
		t.Fatalf("ASKING sent %d times, ASK counted %d", b.count("ASKING"), tot.Ask)
	}
	var out strings.Builder
	stats.WriteTable(&out, "ALL STATS", stats.Rows(res[0], []float64{50, 99}), true, []float64{50, 99})
	if !strings.Contains(out.String(), "MOVED/sec") || !strings.Contains(out.String(), "ASK/sec") {
		t.Fatal(out.String())
	}
}

func TestClusterModeNeedsSlots(t *testing.T) {
	f := newFake(t, func(a []string) string { return "-ERR This instance has cluster support disabled\r\n" })
	cfg := parse(t, "--cluster-mode -t 1 -c 1 -n 5 -p 1")
	if _, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{}); err == nil || !strings.Contains(err.Error(), "cluster support disabled") {
		t.Fatalf("err = %v", err)
	}
}

func TestProgressLine(t *testing.T) {
	f := newFake(t, simpleHandler())
	var out strings.Builder
	cfg := parse(t, "-t 1 -c 1 --test-time 250ms -p 1")
	if _, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{Out: &syncWriter{b: &out}, Run: 1, Interval: 50 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "[RUN #1") || !strings.Contains(s, "ops/sec") || !strings.HasSuffix(s, "\n") {
		t.Fatalf("%q", s)
	}
}

type syncWriter struct{ b *strings.Builder }

func (w *syncWriter) Write(p []byte) (int, error) { return w.b.Write(p) }

func TestCancelStopsRun(t *testing.T) {
	eachLoopEngine(t, func(t *testing.T, io string) {
		f := newFake(t, simpleHandler())
		cfg := parse(t, "-t 1 -c 2 --test-time 3600 -p 1 --client-io "+io)
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		defer cancel()
		done := make(chan error, 1)
		go func() {
			_, err := Run(ctx, cfg, []string{f.addr()}, Progress{})
			done <- err
		}()
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
		case <-time.After(hangTimeout): // the test time is an hour
			t.Fatal("cancel did not stop the run")
		}
	})
}

// --tracking turns CLIENT TRACKING on for every connection, over RESP3,
// and the invalidation pushes the server sends (here one before and one
// after every GET's reply) are not taken for replies on any engine.
func TestTrackingSkipsPushes(t *testing.T) {
	const push = ">2\r\n$10\r\ninvalidate\r\n*1\r\n$5\r\nkv_17\r\n"
	for _, io := range append(loopEngines(), "goroutines") {
		t.Run(io, func(t *testing.T) {
			f := newFake(t, func(a []string) string {
				switch strings.ToUpper(a[0]) {
				case "HELLO":
					return "%1\r\n+proto\r\n:3\r\n"
				case "GET":
					return push + "$3\r\nabc\r\n" + push
				}
				return "+OK\r\n"
			})
			cfg := parse(t, "-t 1 -c 3 -n 40 --ratio 0:1 --pipeline 4 --tracking -p 1 --client-io "+io)
			res, err := Run(context.Background(), cfg, []string{f.addr()}, Progress{})
			if err != nil {
				t.Fatal(err)
			}
			gets := row(t, res[0], "Gets")
			if gets.Ops != 120 || gets.Hits != 120 || gets.Errors != 0 {
				t.Fatalf("gets %+v", gets.Counters)
			}
			// pre-flight + 3 clients
			for _, c := range []string{"HELLO", "CLIENT"} {
				if got := f.count(c); got != 4 {
					t.Errorf("%s sent %d times, want 4", c, got)
				}
			}
		})
	}
}
