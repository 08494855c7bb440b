package server

import (
	"crypto/tls"
	"net"

	"github.com/corvid-kv/corvid/internal/cluster"
	"github.com/corvid-kv/corvid/internal/tlsconf"
)

// Cluster mode and TLS (Valkey 8.0.1's cluster_legacy.c): with
// tls-cluster yes the bus's links run over TLS (package cluster dials
// and accepts them with the configurations clusterBusTLS gives, read for
// every new link, so a CONFIG SET that rebuilds the TLS configuration
// applies to the next links), and the port a node announces first is its
// TLS port. Clients are told each node's port of their own connection's
// transport (shouldReturnTlsInfo): a client connected over TLS gets TLS
// ports in MOVED and ASK, CLUSTER SLOTS, NODES and REPLICAS, a plaintext
// one TCP ports; the server's own clients (no connection) get the ports
// of tls-cluster's transport. CLUSTER SHARDS reports both.

// busTLSConfig is a bundle's configurations for the bus.
type busTLSConfig struct {
	bundle         *tlsconf.Bundle
	server, client *tls.Config
}

// clusterBusTLS returns the TLS configurations of the bus's new links,
// nil ones when tls-cluster is no. The accepting side always asks for
// and verifies a client certificate, whatever tls-auth-clients says:
// Valkey's clusterAcceptHandler accepts with TLS_CLIENT_AUTH_YES. The
// dialling side is the replication link's client configuration
// (tls-client-cert-file, else the server's certificate; the peer's chain
// checked against the CA).
func (s *Server) clusterBusTLS() (server, client *tls.Config) {
	if !s.cfg.TLSCluster() {
		return nil, nil
	}
	b := s.tls.bundle.Load()
	if b == nil {
		return nil, nil
	}
	if bc := s.tls.bus.Load(); bc != nil && bc.bundle == b {
		return bc.server, bc.client
	}
	srv := b.Server.Clone()
	srv.ClientAuth = tls.RequireAndVerifyClientCert
	bc := &busTLSConfig{bundle: b, server: srv, client: b.Client}
	s.tls.bus.Store(bc)
	return bc.server, bc.client
}

// clusterTLSPort is the TLS port cluster mode announces:
// cluster-announce-tls-port, else tls-port.
func (s *Server) clusterTLSPort() int {
	if p := s.cfg.ClusterAnnounceTLSPort(); p != 0 {
		return p
	}
	return s.cfg.TLSPort()
}

// clusterDefaultClientPort is Valkey's defaultClientPort: the port the
// bus port derives from (+10000) when cluster-port is 0.
func (s *Server) clusterDefaultClientPort() int {
	if s.cfg.TLSCluster() {
		return s.cfg.TLSPort()
	}
	return s.cfg.Port()
}

// isTLSConn reports whether an accepted connection runs over TLS.
func isTLSConn(conn net.Conn) bool {
	switch conn.(type) {
	case *tlsConn, *loopTLSConn:
		return true
	}
	return false
}

// tlsInfo is Valkey's shouldReturnTlsInfo: whether this client is told
// nodes' TLS ports. A client without a connection (the server's own:
// AOF loading, deleting lost slots' keys) follows tls-cluster; a script
// runs on its caller's client.
func (c *Client) tlsInfo() bool {
	if c.conn == nil {
		return c.srv.cfg.TLSCluster()
	}
	return c.overTLS
}

// shardPortFields counts and writeShardPorts writes a CLUSTER SHARDS
// node's ports (addNodeDetailsToShardReply): "port", the TCP port, and
// "tls-port", each when it is not 0, whatever the client's transport.
func shardPortFields(n cluster.Route) int {
	k := 0
	if n.TCPPort != 0 {
		k++
	}
	if n.TLSPort != 0 {
		k++
	}
	return k
}

func writeShardPorts(c *Client, n cluster.Route) {
	if n.TCPPort != 0 {
		c.w.BulkString("port")
		c.w.Int(int64(n.TCPPort))
	}
	if n.TLSPort != 0 {
		c.w.BulkString("tls-port")
		c.w.Int(int64(n.TLSPort))
	}
}
