package server

import (
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/cluster"
	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/config"
)

// What a cluster node shows a client of itself and the other nodes
// (cluster.c's clusterNodeIp and clusterNodePreferredEndpoint): the
// address a node announced for the client's family
// (cluster-announce-client-ipv4/-ipv6, else its bus address), and, in
// redirections, CLUSTER SLOTS and CLUSTER SHARDS, the endpoint
// cluster-preferred-endpoint-type chooses.

// clientIPv6 reports whether the client connected over IPv6 (its peer
// address is "[...]:port").
func (c *Client) clientIPv6() bool { return strings.HasPrefix(c.peerAddr(), "[") }

// nodeIP is the address of n shown to this client.
func (c *Client) nodeIP(n *cluster.Route) string { return n.ClientIP(c.clientIPv6()) }

// preferredEndpoint is n's endpoint for this client: its IP, its
// hostname ("?" when it announces none), or "" (unknown-endpoint).
func (c *Client) preferredEndpoint(n *cluster.Route) string {
	switch c.srv.cfg.ClusterPreferredEndpointType() {
	case config.EndpointHostname:
		if n.Hostname != "" {
			return n.Hostname
		}
		return "?"
	case config.EndpointUnknown:
		return ""
	}
	return c.nodeIP(n)
}

// redirect is a MOVED or ASK error (clusterRedirectClient).
func (c *Client) redirect(kind string, slot int, n *cluster.Route) string {
	return kind + " " + strconv.Itoa(slot) + " " + c.preferredEndpoint(n) + ":" + strconv.Itoa(n.ClientPort(c.tlsInfo()))
}

// isPubsubShard: SPUBLISH, SSUBSCRIBE and SUNSUBSCRIBE, which
// cluster-allow-pubsubshard-when-down lets through a cluster that is down.
func isPubsubShard(m *command.Meta) bool {
	return m == command.Spublish || m == command.Ssubscribe || m == command.Sunsubscribe
}

// writeNodeEntry is one node of a CLUSTER SLOTS range
// (addNodeToNodeReply): the preferred endpoint (null for
// unknown-endpoint), the port, the ID, and a map of the other known
// endpoints.
func writeNodeEntry(c *Client, n *cluster.Route) {
	typ := c.srv.cfg.ClusterPreferredEndpointType()
	c.w.ArrayLen(4)
	if typ == config.EndpointUnknown {
		c.w.Null()
	} else {
		c.w.BulkString(c.preferredEndpoint(n))
	}
	c.w.Int(int64(n.ClientPort(c.tlsInfo())))
	c.w.BulkString(n.Name)
	withIP := typ != config.EndpointIP
	withHost := typ != config.EndpointHostname && n.Hostname != ""
	c.w.MapLen(btoi(withIP) + btoi(withHost))
	if withIP {
		c.w.BulkString("ip")
		c.w.BulkString(c.nodeIP(n))
	}
	if withHost {
		c.w.BulkString("hostname")
		c.w.BulkString(n.Hostname)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// applyClusterConfig applies a CONFIG SET of what this node announces
// (address, hostname, human nodename, client addresses, nofailover) at
// once, as Valkey's apply functions, rather than at the cluster's next
// cron tick.
func (s *Server) applyClusterConfig() {
	if s.cluster != nil {
		s.cluster.Refresh()
	}
}
