package server

import (
	"net"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
)

// newTestClient builds a server and a client that is not attached to a
// socket: tests feed requests into its reader and read its writer.
func newTestClient(tb testing.TB) *Client {
	tb.Helper()
	cfg, err := config.Load("", nil)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := New(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	a, b := net.Pipe()
	tb.Cleanup(func() { a.Close(); b.Close() })
	c := &Client{srv: s, conn: a, id: 1, rd: resp.NewReader(), w: resp.NewWriter(64 << 10)}
	c.w.SetBlockSize(replyBlockBytes) // as accept does
	c.ctx = db.Ctx{KS: s.ks, W: c.w, Client: c}
	c.authed = true
	return c
}

func pipeline(n int, cmd ...string) []byte {
	var one []byte
	one = append(one, '*')
	one = strconv.AppendInt(one, int64(len(cmd)), 10)
	one = append(one, "\r\n"...)
	for _, a := range cmd {
		one = append(one, '$')
		one = strconv.AppendInt(one, int64(len(a)), 10)
		one = append(one, "\r\n"...)
		one = append(one, a...)
		one = append(one, "\r\n"...)
	}
	var out []byte
	for i := 0; i < n; i++ {
		out = append(out, one...)
	}
	return out
}

// TestHotPathZeroAllocs proves that parsing, dispatching, executing and
// answering GET and SET on an existing key allocates nothing.
func TestHotPathZeroAllocs(t *testing.T) {
	c := newTestClient(t)
	val := string(make([]byte, 128))
	c.rd.Feed(pipeline(1, "SET", "key:1", val))
	c.runBuffered()
	c.w.Reset()
	for _, tc := range []struct {
		name string
		req  []byte
	}{
		{"GET", pipeline(16, "GET", "key:1")},
		{"SET", pipeline(16, "SET", "key:1", val)},
		{"INCR", pipeline(16, "INCR", "ctr")},
	} {
		allocs := testing.AllocsPerRun(200, func() {
			c.rd.Feed(tc.req)
			c.runBuffered()
			c.w.Reset()
		})
		if allocs != 0 {
			t.Errorf("%s: %v allocations per 16-command pipeline", tc.name, allocs)
		}
	}
}

func benchPipeline(b *testing.B, cmd ...string) {
	c := newTestClient(b)
	req := pipeline(16, cmd...)
	c.rd.Feed(req)
	c.runBuffered()
	c.w.Reset()
	b.ReportAllocs()
	b.SetBytes(int64(len(req)))
	for b.Loop() {
		c.rd.Feed(req)
		c.runBuffered()
		c.w.Reset()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*16), "ns/cmd")
}

// BenchmarkPipelineGET and friends measure the in-process cost of a command
// (parse + dispatch + lock + execute + reply) without the network.
func BenchmarkPipelineGET(b *testing.B) { benchPipeline(b, "GET", "key:000001") }
func BenchmarkPipelineSET(b *testing.B) {
	benchPipeline(b, "SET", "key:000001", string(make([]byte, 128)))
}
func BenchmarkPipelineINCR(b *testing.B) { benchPipeline(b, "INCR", "counter") }
