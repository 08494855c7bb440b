package integration

import (
	"strconv"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestIOStats: INFO stats total_reads_processed and
// total_writes_processed count the reads of clients' sockets and the
// writes to them, as Valkey's readQueryFromClient and writeToClient do:
// n separate round trips grow each by at least n, on every network path
// (both event loops, the goroutine path, TLS), and CONFIG RESETSTAT
// zeroes them (what follows it counts again: the read of the INFO that
// shows them, RESETSTAT's own reply). Run on valkey-server 8.0.1 too,
// when present, for the same semantics.
func TestIOStats(t *testing.T) {
	const n = 50
	servers := map[string]string{}
	for _, e := range []string{"io_uring", "epoll", "goroutine"} {
		servers["corvid "+e] = testutil.StartCorvid(t, "--net-engine", e).Addr
	}
	if testutil.HaveValkey(t) {
		servers["valkey"] = testutil.StartValkey(t).Addr
	}
	for name, addr := range servers {
		t.Run(name, func(t *testing.T) {
			ctl := testutil.Dial(t, addr)
			c := testutil.Dial(t, addr)
			ioStatsCheck(t, ctl, n, func() {
				for range n {
					expect(t, c, "+PONG", "PING")
				}
			})
		})
	}
	t.Run("corvid TLS", func(t *testing.T) {
		f := testutil.NewTLSFiles(t)
		p, taddr := testutil.StartCorvidTLS(t, f, true)
		ctl := testutil.Dial(t, p.Addr)
		c := tlsClient(t, taddr, f.ClientConfig(t, true), 2)
		ctx := testCtx(t, time.Minute)
		if err := c.Ping(ctx).Err(); err != nil { // the handshake, before counting
			t.Fatal(err)
		}
		ioStatsCheck(t, ctl, n, func() {
			for range n {
				if err := c.Ping(ctx).Err(); err != nil {
					t.Fatal(err)
				}
			}
		})
	})
}

// ioStatsCheck runs trips (n round trips) and checks the counters that
// INFO on ctl shows grew by at least n, then that CONFIG RESETSTAT
// zeroes them.
func ioStatsCheck(t *testing.T, ctl *testutil.Raw, n int64, trips func()) {
	t.Helper()
	counts := func() (reads, writes int64) {
		f := infoFields(t, ctl, "stats")
		r, err1 := strconv.ParseInt(f["total_reads_processed"], 10, 64)
		w, err2 := strconv.ParseInt(f["total_writes_processed"], 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("total_reads_processed=%q total_writes_processed=%q", f["total_reads_processed"], f["total_writes_processed"])
		}
		return r, w
	}
	r0, w0 := counts()
	trips()
	r1, w1 := counts()
	t.Logf("%d round trips: total_reads_processed %d -> %d, total_writes_processed %d -> %d", n, r0, r1, w0, w1)
	if r1-r0 < n || w1-w0 < n {
		t.Errorf("after %d round trips: reads grew by %d, writes by %d; want at least %d each", n, r1-r0, w1-w0, n)
	}
	expect(t, ctl, "+OK", "CONFIG", "RESETSTAT")
	// Counted since: the read of the INFO below, and the write of
	// RESETSTAT's reply (the INFO's own reply is written after it
	// renders).
	r2, w2 := counts()
	t.Logf("after CONFIG RESETSTAT: total_reads_processed %d, total_writes_processed %d", r2, w2)
	if r2 > 1 || w2 > 1 {
		t.Errorf("after CONFIG RESETSTAT: total_reads_processed %d, total_writes_processed %d; want at most 1 each", r2, w2)
	}
}
