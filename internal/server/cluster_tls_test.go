package server

import (
	"crypto/tls"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/internal/tlsconf"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// newTLSPortClusterClient is newClusterTestClient with tls-port 6390
// (nothing listens: the bus is not started) and the extra arguments.
func newTLSPortClusterClient(tb testing.TB, args ...string) *Client {
	tb.Helper()
	return newClusterTestClient(tb, append([]string{"--port", "6379", "--tls-port", "6390"}, args...)...)
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

// TestClusterBusTLSConfigs: the bus's configurations are nil with
// tls-cluster no; with it, the accepting side requires a client
// certificate whatever tls-auth-clients says (Valkey's
// clusterAcceptHandler), the dialling side is the bundle's client
// configuration, and a rebuilt bundle (a CONFIG SET of a tls-* file)
// gives the next links new configurations.
func TestClusterBusTLSConfigs(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	files := []string{"--tls-cert-file", f.ServerCert, "--tls-key-file", f.ServerKey, "--tls-ca-cert-file", f.CACert,
		"--tls-auth-clients", "no"}
	plain := newTLSPortClusterClient(t, files...).srv
	if err := plain.configureTLS(); err != nil {
		t.Fatal(err)
	}
	if srv, cli := plain.clusterBusTLS(); srv != nil || cli != nil {
		t.Fatal("tls-cluster no: the bus has TLS configurations")
	}
	s := newTLSPortClusterClient(t, append(files, "--tls-cluster", "yes")...).srv
	if err := s.configureTLS(); err != nil {
		t.Fatal(err)
	}
	b := s.tls.bundle.Load()
	srv, cli := s.clusterBusTLS()
	if srv == nil || srv.ClientAuth != tls.RequireAndVerifyClientCert || b.Server.ClientAuth != tls.NoClientCert || cli != b.Client {
		t.Fatalf("bus configurations: server %+v client %p (bundle's %p)", srv, cli, b.Client)
	}
	if again, _ := s.clusterBusTLS(); again != srv {
		t.Error("the bus's server configuration is rebuilt for every link")
	}
	b2, err := tlsconf.Build(s.cfg.TLS())
	if err != nil {
		t.Fatal(err)
	}
	s.tls.bundle.Store(b2)
	if srv2, cli2 := s.clusterBusTLS(); srv2 == srv || cli2 != b2.Client || srv2.ClientAuth != tls.RequireAndVerifyClientCert {
		t.Error("a rebuilt bundle does not reach the bus's new links")
	}
}
