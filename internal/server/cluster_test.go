package server

import (
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/resp"
)

// newClusterTestClient is newTestClient with cluster-enabled yes (the
// bus not started) and reads allowed while the cluster is down, so that
// a lone node serves its slots' reads before it is ever ok.
func newClusterTestClient(tb testing.TB, args ...string) *Client {
	tb.Helper()
	dir := tb.TempDir()
	cfg, err := config.Load("", append([]string{"--cluster-enabled", "yes", "--dir", dir,
		"--cluster-config-file", filepath.Join(dir, "nodes.conf"), "--cluster-allow-reads-when-down", "yes"}, args...))
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
	c.ctx = db.Ctx{KS: s.ks, W: c.w, Client: c}
	c.authed = true
	return c
}

func run(c *Client, cmd ...string) string {
	c.w.Reset()
	c.rd.Feed(pipeline(1, cmd...))
	c.runBuffered()
	out := string(c.w.Bytes())
	c.w.Reset()
	return out
}

// TestClusterRouting: a keyed command is checked against the slot table
// without allocating; writes are refused while the cluster is down,
// reads served (cluster-allow-reads-when-down), keys of two slots refused.
func TestClusterRouting(t *testing.T) {
	c := newClusterTestClient(t)
	for _, tc := range []struct {
		cmd  []string
		want string
	}{
		{[]string{"GET", "foo"}, "-CLUSTERDOWN Hash slot not served\r\n"},
		{[]string{"CLUSTER", "ADDSLOTSRANGE", "0", "16383"}, "+OK\r\n"},
		{[]string{"GET", "foo"}, "$-1\r\n"},
		{[]string{"SET", "foo", "1"}, "-CLUSTERDOWN The cluster is down and only accepts read commands\r\n"},
		{[]string{"MGET", "a", "b"}, "-CROSSSLOT Keys in request don't hash to the same slot\r\n"},
		{[]string{"MGET", "{a}1", "{a}2"}, "*2\r\n$-1\r\n$-1\r\n"},
		{[]string{"SELECT", "1"}, "-ERR SELECT is not allowed in cluster mode\r\n"},
		{[]string{"PING"}, "+PONG\r\n"},
		{[]string{"EVAL", "return server.call('GET', KEYS[1])", "1", "a"}, "$-1\r\n"},
		{[]string{"EVAL", "server.call('GET', 'a'); return server.call('GET', 'a')", "0"}, "$-1\r\n"},
	} {
		if got := run(c, tc.cmd...); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.cmd, got, tc.want)
		}
	}
	// A script with a #!lua line keeps its keys in one slot: the
	// declared keys' or its first (EVAL without one may cross slots).
	for _, cmd := range [][]string{
		{"EVAL", "#!lua\nserver.call('GET', 'a'); return server.call('GET', 'b')", "0"},
		{"EVAL", "#!lua\nreturn server.call('GET', 'b')", "1", "a"},
	} {
		if got := run(c, cmd...); !strings.HasPrefix(got, "-ERR Script attempted to access keys that do not hash to the same slot script: ") {
			t.Errorf("%v: %q", cmd, got)
		}
	}
	for _, cmd := range [][]string{
		{"EVAL", "#!lua flags=allow-cross-slot-keys\nserver.call('GET', 'a'); return server.call('GET', 'b')", "0"},
		{"EVAL", "server.call('GET', 'a'); return server.call('GET', 'b')", "0"},
	} {
		if got := run(c, cmd...); got != "$-1\r\n" {
			t.Errorf("%v: %q", cmd, got)
		}
	}
	if got := run(c, "EVAL", "#!lua flags=no-cluster\nreturn 1", "0"); got != "-ERR Can not run script on cluster, 'no-cluster' flag is set.\r\n" {
		t.Errorf("no-cluster: %q", got)
	}
	req := pipeline(16, "MGET", "{a}1", "{a}2")
	allocs := testing.AllocsPerRun(200, func() {
		c.rd.Feed(req)
		c.runBuffered()
		c.w.Reset()
	})
	if allocs != 0 {
		t.Errorf("%v allocations per 16 routed MGETs", allocs)
	}
}

// TestClusterOff: with cluster mode off, CLUSTER and the
// cluster commands answer that it is disabled, and INFO says so.
func TestClusterOff(t *testing.T) {
	c := newTestClient(t)
	for _, cmd := range [][]string{{"READONLY"}, {"READWRITE"}} { // Valkey 8.0: OK, not Redis 7.0's error
		if got := run(c, cmd...); got != "+OK\r\n" {
			t.Errorf("%v with cluster mode off: %q", cmd, got)
		}
	}
	for _, cmd := range [][]string{{"CLUSTER", "INFO"}, {"ASKING"}, {"CLUSTER", "KEYSLOT", "a"}} {
		if got := run(c, cmd...); got != "-ERR This instance has cluster support disabled\r\n" {
			t.Errorf("%v: %q", cmd, got)
		}
	}
}

// TestClusterSlotKeys: cluster mode puts the keyspace in slot mode (and
// only cluster mode does); COUNTKEYSINSLOT, GETKEYSINSLOT and SLOT-STATS
// read it alone and inside EXEC (every stripe held), and the keys of lost
// slots are deleted, those of other slots kept.
func TestClusterSlotKeys(t *testing.T) {
	if newTestClient(t).srv.ks.SlotStriping() {
		t.Fatal("slot mode with cluster mode off")
	}
	c := newClusterTestClient(t)
	ks := c.srv.ks
	if !ks.SlotStriping() {
		t.Fatal("cluster mode without slot mode")
	}
	// foo: slot 12182, {foo}x too; bar: 5061.
	for _, k := range []string{"foo", "{foo}x", "bar"} {
		e := rdb.NewEntry(0, []byte(k), rdb.KindString)
		e.String = []byte("v")
		if _, err := ks.LoadEntry(e, 0); err != nil {
			t.Fatal(err)
		}
	}
	want := []struct {
		cmd  []string
		want string
	}{
		{[]string{"CLUSTER", "COUNTKEYSINSLOT", "12182"}, ":2\r\n"},
		{[]string{"CLUSTER", "COUNTKEYSINSLOT", "5061"}, ":1\r\n"},
		{[]string{"CLUSTER", "COUNTKEYSINSLOT", "0"}, ":0\r\n"},
		{[]string{"CLUSTER", "GETKEYSINSLOT", "12182", "10"}, "*2\r\n$3\r\nfoo\r\n$6\r\n{foo}x\r\n"},
		{[]string{"CLUSTER", "GETKEYSINSLOT", "12182", "0"}, "*0\r\n"},
		{[]string{"CLUSTER", "GETKEYSINSLOT", "0", "10"}, "*0\r\n"},
	}
	for _, tc := range want {
		if got := run(c, tc.cmd...); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.cmd, got, tc.want)
		}
	}
	run(c, "MULTI")
	for _, tc := range want {
		run(c, tc.cmd...)
	}
	exec := "*" + strconv.Itoa(len(want)) + "\r\n"
	for _, tc := range want {
		exec += tc.want
	}
	if got := run(c, "EXEC"); got != exec {
		t.Errorf("EXEC: %q, want %q", got, exec)
	}
	run(c, "CLUSTER", "ADDSLOTS", "12182", "5061")
	if got := run(c, "CLUSTER", "SLOT-STATS", "SLOTSRANGE", "5061", "5061"); got != "*1\r\n*2\r\n:5061\r\n*2\r\n$9\r\nkey-count\r\n:1\r\n" {
		t.Errorf("SLOT-STATS: %q", got)
	}
	c.srv.deleteSlotsKeys([]int{12182, 0})
	if n, m := ks.CountKeysInSlot(12182, false), ks.CountKeysInSlot(5061, false); n != 0 || m != 1 {
		t.Errorf("after losing slot 12182: %d keys there, %d in slot 5061 (want 0, 1)", n, m)
	}
}
