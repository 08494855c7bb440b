package cluster

import (
	"context"
	"crypto/tls"
	"net"
	"strconv"
	"time"
)

// The bus over TLS (tls-cluster yes) and a node's two client ports, as
// Valkey 8.0.1's cluster_legacy.c has them.
//
// Links: with Options.BusTLS giving configurations, an accepted
// connection runs the server side of a TLS handshake on a goroutine of
// its own (the accept loop goes on) and becomes a link only once it is
// done; a dialled one runs the client side on the dialer's goroutine,
// and a failed handshake ends like a failed dial (the link is freed,
// PingSent set). Both are bounded by the node timeout (at least a
// second, as the dial) and cut short by Stop. The configurations are
// read for every new link, so a reloaded certificate applies to the next
// links and established ones keep theirs (Valkey's connTypeOfCluster is
// likewise read per connection).
//
// Ports: Valkey keeps a node's tcp_port and tls_port; the header's port
// is the TLS one with tls-cluster and the TCP one without, pport the
// other (clusterBuildMessageHdr, and the gossip sections likewise).
// Corvid's Node keeps them in that order, Port the header's and PPort the
// other, oriented by tls-cluster as last applied (Cluster.tlsCluster): a
// change of tls-cluster swaps every other node's pair (applyTLSCluster),
// and myself's is re-derived from the options. Clients are given the
// port of their own connection's transport (Route.TCPPort, TLSPort;
// NodesFor), a replica replicates from its primary's TLS port with
// tls-replication (replPort), and nodes.conf writes the tls-cluster port
// in ip:port@cport and the other as an aux field (auxPort, loadPorts).

// busTLSConn is an established TLS link. Close closes the socket at
// once, without a close_notify alert: freeLink closes under mu, and
// crypto/tls would write the alert under a five-second deadline to a
// peer that may not read.
type busTLSConn struct{ *tls.Conn }

func (c busTLSConn) Close() error { return c.NetConn().Close() }

// busTLS returns the configurations for a new link; nil ones for a
// plaintext bus.
func (cl *Cluster) busTLS() (server, client *tls.Config) {
	if cl.opt.BusTLS == nil {
		return nil, nil
	}
	return cl.opt.BusTLS()
}

// handshakeTimeout bounds a link's TLS handshake as its dial is bounded.
func (cl *Cluster) handshakeTimeout() time.Duration {
	return time.Duration(max(cl.opt.NodeTimeout(), 1000)) * time.Millisecond
}

// handshakeContext ends at timeout or when the Cluster stops.
func (cl *Cluster) handshakeContext(timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	stop := cl.stop
	go func() {
		select {
		case <-stop:
			cancel()
		case <-ctx.Done():
		}
	}()
	return ctx, cancel
}

// acceptTLS takes a connection the bus listener accepted when the bus
// runs over TLS: false for a plaintext bus (the caller makes the link).
// Else a goroutine runs the server side of the handshake and adds the
// inbound link when it succeeds; a failed one closes the connection.
// Called by acceptLoop without mu.
func (cl *Cluster) acceptTLS(raw net.Conn) bool {
	srv, _ := cl.busTLS()
	if srv == nil {
		return false
	}
	timeout := cl.handshakeTimeout()
	cl.wg.Add(1) // acceptLoop's own count keeps the group above zero
	go func() {
		defer cl.wg.Done()
		tc := tls.Server(raw, srv)
		ctx, cancel := cl.handshakeContext(timeout)
		err := tc.HandshakeContext(ctx)
		cancel()
		if err != nil {
			raw.Close()
			cl.opt.Logf('-', "Error accepting cluster node connection: %v", err)
			return
		}
		cl.mu.Lock()
		defer cl.mu.Unlock()
		if cl.closed {
			raw.Close()
			return
		}
		l := cl.newLink(nil, true)
		l.conn = busTLSConn{tc}
		l.connected = true
		cl.startLink(l)
	}()
	return true
}

// dialTLS runs the client side of the handshake on a link's dialled
// connection when the bus runs over TLS; it returns conn itself for a
// plaintext bus. On failure conn is closed. Called without mu.
func (cl *Cluster) dialTLS(conn net.Conn, addr string, timeout time.Duration) (net.Conn, error) {
	_, cli := cl.busTLS()
	if cli == nil {
		return conn, nil
	}
	tc := tls.Client(conn, cli)
	ctx, cancel := cl.handshakeContext(timeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		conn.Close()
		cl.opt.Logf('-', "Connection with node at %s failed: %v", addr, err)
		return nil, err
	}
	return busTLSConn{tc}, nil
}

// orient orders a node's TCP and TLS client ports as the header does:
// the TLS port first with tls-cluster. mu held.
func (cl *Cluster) orient(tcp, tls int) (port, pport int) {
	if cl.tlsCluster {
		return tls, tcp
	}
	return tcp, tls
}

// myTLSPort is the TLS port this node announces (0 for none).
func (cl *Cluster) myTLSPort() int {
	if cl.opt.TLSPort == nil {
		return 0
	}
	return cl.opt.TLSPort()
}

// tcpPort and tlsPort are n's client ports by transport. mu held.
func (cl *Cluster) tcpPort(n *Node) int {
	if cl.tlsCluster {
		return n.PPort
	}
	return n.Port
}

func (cl *Cluster) tlsPort(n *Node) int {
	if cl.tlsCluster {
		return n.Port
	}
	return n.PPort
}

// clientPort is clusterNodeClientPort: n's TLS port for a client over
// TLS, else its TCP port. mu held.
func (cl *Cluster) clientPort(n *Node, tls bool) int {
	if tls {
		return cl.tlsPort(n)
	}
	return cl.tcpPort(n)
}

// replPort is getNodeDefaultReplicationPort: where a replica of n
// connects, n's TLS port with tls-replication. mu held.
func (cl *Cluster) replPort(n *Node) int {
	return cl.clientPort(n, cl.opt.TLSReplication != nil && cl.opt.TLSReplication())
}

// fillPort sets a route's ports by transport from its node. mu held.
func (cl *Cluster) fillPort(r *Route) {
	if n := cl.nodes[r.Name]; n != nil {
		r.TCPPort, r.TLSPort = cl.tcpPort(n), cl.tlsPort(n)
	}
}

func (cl *Cluster) fillPorts(rs []Route) {
	for i := range rs {
		cl.fillPort(&rs[i])
	}
}

// ClientPort is the port a client connected over TLS (tls) or not
// reaches the route's node on.
func (r Route) ClientPort(tls bool) int {
	if tls {
		return r.TLSPort
	}
	return r.TCPPort
}

// applyTLSCluster follows a change of tls-cluster: the other nodes'
// ports are swapped so Port stays the header's (myself's is re-derived
// by applyMyAddress). mu held.
func (cl *Cluster) applyTLSCluster() {
	on := cl.opt.TLSCluster != nil && cl.opt.TLSCluster()
	if on == cl.tlsCluster {
		return
	}
	cl.tlsCluster = on
	for _, n := range cl.nodes {
		if n != cl.myself {
			n.Port, n.PPort = n.PPort, n.Port
		}
	}
	cl.dirtySave, cl.dirtyRouting = true, true
}

// auxPort is nodes.conf's port aux field (clusterGenNodeDescription
// skips the one that duplicates ip:port): the TCP port when ip:port
// carries the TLS one, else the TLS port. Valkey writes it even when 0.
func (cl *Cluster) auxPort(n *Node, tlsPrimary bool) string {
	if tlsPrimary {
		return ",tcp-port=" + strconv.Itoa(cl.tcpPort(n))
	}
	return ",tls-port=" + strconv.Itoa(cl.tlsPort(n))
}

// auxPorts are the port aux fields of a nodes.conf line.
type auxPorts struct {
	tcp, tls       int
	hasTCP, hasTLS bool
}

// set records tcp-port or tls-port; false for a value Valkey's setter
// refuses (1 to 5 characters, 0 to 65535).
func (p *auxPorts) set(k, v string) bool {
	x, err := strconv.Atoi(v)
	if len(v) < 1 || len(v) > 5 || err != nil || x < 0 || x > 65535 {
		return false
	}
	if k == "tcp-port" {
		p.tcp, p.hasTCP = x, true
	} else {
		p.tls, p.hasTLS = x, true
	}
	return true
}

// loadPorts sets n's ports from a nodes.conf line, n.Port holding the
// line's ip:port port (clusterLoadConfig): without port aux fields that
// port is tls-cluster's; with tls-port only it is the TCP port, with
// tcp-port only the TLS port; with both it is not used.
func (cl *Cluster) loadPorts(n *Node, p auxPorts) {
	tcp, tls := p.tcp, p.tls
	switch {
	case !p.hasTCP && !p.hasTLS:
		return
	case !p.hasTCP:
		tcp = n.Port
	case !p.hasTLS:
		tls = n.Port
	}
	n.Port, n.PPort = cl.orient(tcp, tls)
}
