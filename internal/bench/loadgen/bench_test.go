package loadgen

import (
	"context"
	"io"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/options"
	"github.com/corvid-kv/corvid/internal/bench/stats"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// memConn answers every request with "+OK" without a network or a server,
// so a benchmark measures the client alone. Requests all have the same
// length (fixed-width keys and data), so counting them is a division.
type memConn struct {
	net.Conn
	reqLen  int
	owed    int
	reply   []byte
	written int64
}

func (m *memConn) Write(b []byte) (int, error) {
	m.owed += len(b) / m.reqLen
	m.written += int64(len(b))
	return len(b), nil
}

func (m *memConn) Read(b []byte) (int, error) {
	if m.owed == 0 {
		return 0, io.EOF
	}
	n := 0
	for m.owed > 0 && n+len(m.reply) <= len(b) {
		n += copy(b[n:], m.reply)
		m.owed--
	}
	return n, nil
}

func (m *memConn) Close() error                     { return nil }
func (m *memConn) SetDeadline(time.Time) error      { return nil }
func (m *memConn) SetReadDeadline(time.Time) error  { return nil }
func (m *memConn) SetWriteDeadline(time.Time) error { return nil }

// BenchmarkClientHotPath measures one client connection's request loop:
// key generation, encoding, one write per batch, reply scanning, counters
// and latency recording. It reports ops per CPU-second of the whole
// process (the figure compared with redis-benchmark in docs/benchmarking.md).
func BenchmarkClientHotPath(b *testing.B) {
	for _, pipe := range []int{1, 16, 64} {
		b.Run("pipeline="+strconv.Itoa(pipe), func(b *testing.B) { benchHotPath(b, pipe) })
	}
}

func benchHotPath(b *testing.B, pipe int) {
	cfg, _, err := options.Parse([]string{"-t", "1", "-c", "1", "-n", strconv.Itoa(max(b.N, 1)),
		"--pipeline", strconv.Itoa(pipe), "--command=set __key__ __data__", "--command-key-pattern=R",
		"--key-minimum=1000000", "--key-maximum=9999999", "-d", "32", "-R", "-p", "1"})
	if err != nil {
		b.Fatal(err)
	}
	w, err := compile(cfg)
	if err != nil {
		b.Fatal(err)
	}
	req := w.cmds[0].tmpl.Append(nil, []byte("memtier-1234567"), make([]byte, 32))
	mc := &memConn{reqLen: len(req), reply: []byte("+OK\r\n")}
	r := &runner{ctx: context.Background(), cfg: cfg, w: w, addrs: []string{"mem"}}
	g, err := newGen(w, 1, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	var lv live
	c := &client{r: r, gen: g, rec: newRecorder(len(w.rows)), live: &lv,
		counters: make([]stats.Counters, len(w.rows)), samples: make([]sample, 0, 256),
		ring: make([]pending, pipe), conn: wire.NewConn(mc, "mem")}
	b.ReportAllocs()
	cpu0 := stats.CPUTime()
	r.base = time.Now()
	b.ResetTimer()
	c.runStandalone(context.Background())
	b.StopTimer()
	cpu := stats.CPUTime() - cpu0
	if c.err != nil {
		b.Fatal(c.err)
	}
	if got := c.counters[0].Ops; got != uint64(max(b.N, 1)) {
		b.Fatalf("ops %d want %d", got, b.N)
	}
	if cpu > 0 {
		b.ReportMetric(float64(b.N)/cpu.Seconds(), "ops/cpu-sec")
	}
}

// The hot path must not allocate per request.
func TestHotPathAllocations(t *testing.T) {
	res := testing.Benchmark(func(b *testing.B) { benchHotPath(b, 16) })
	if res.N < 1000 || res.AllocsPerOp() != 0 {
		t.Fatalf("N=%d allocs/op=%d", res.N, res.AllocsPerOp())
	}
}
