package server

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/resp"
)

// newTLSPortClusterClient is newClusterTestClient with tls-port 6390
// (nothing listens: the bus is not started) and the extra arguments.
func newTLSPortClusterClient(tb testing.TB, args ...string) *Client {
	tb.Helper()
	dir := tb.TempDir()
	cfg, err := config.Load("", append([]string{"--cluster-enabled", "yes", "--dir", dir, "--port", "6379", "--tls-port", "6390",
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
	c := &Client{srv: s, conn: a, id: 1, rd: resp.NewReader(), w: resp.NewWriter(64 << 10), unblock: make(chan int, 1)}
	c.ctx = db.Ctx{KS: s.ks, W: c.w, Client: c}
	c.authed = true
	return c
}

// TestClusterClientPorts: CLUSTER NODES and SLOTS give a client over TLS
// the TLS port and a plaintext one the TCP port (shouldReturnTlsInfo);
// the server's own clients (no connection) follow tls-cluster; CLUSTER
// SHARDS has both, as port and tls-port; with tls-cluster the bus port
// derives from tls-port.
func TestClusterClientPorts(t *testing.T) {
	for _, tlsCluster := range []bool{false, true} {
		var c *Client
		bus := "@16379 "
		if tlsCluster {
			c = newTLSPortClusterClient(t, "--tls-cluster", "yes")
			bus = "@16390 "
		} else {
			c = newTLSPortClusterClient(t)
		}
		if r := run(c, "CLUSTER", "ADDSLOTSRANGE", "0", "16383"); r != "+OK\r\n" {
			t.Fatal(r)
		}
		for _, tc := range []struct {
			overTLS, fake bool
			port          string
		}{{false, false, "6379"}, {true, false, "6390"}, {false, true, map[bool]string{false: "6379", true: "6390"}[tlsCluster]}} {
			c.overTLS = tc.overTLS
			conn := c.conn
			if tc.fake {
				c.conn = nil
			}
			nodes := run(c, "CLUSTER", "NODES")
			slots := run(c, "CLUSTER", "SLOTS")
			shards := run(c, "CLUSTER", "SHARDS")
			c.conn = conn
			if !strings.Contains(nodes, ":"+tc.port+bus+"myself,master") {
				t.Errorf("tls-cluster %v, %+v: CLUSTER NODES %q", tlsCluster, tc, nodes)
			}
			if !strings.Contains(slots, "$9\r\n127.0.0.1\r\n:"+tc.port+"\r\n") && !strings.Contains(slots, "\r\n:"+tc.port+"\r\n$40\r\n") {
				t.Errorf("tls-cluster %v, %+v: CLUSTER SLOTS %q", tlsCluster, tc, slots)
			}
			if !strings.Contains(shards, "$4\r\nport\r\n:6379\r\n$8\r\ntls-port\r\n:6390\r\n") || !strings.Contains(shards, "*16\r\n$2\r\nid") {
				t.Errorf("tls-cluster %v: CLUSTER SHARDS %q", tlsCluster, shards)
			}
		}
	}
}
