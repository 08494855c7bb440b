package cluster

import (
	"crypto/tls"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/tlsconf"
	"github.com/corvid-kv/corvid/tests/testutil"
)

func flag(v bool) func() bool { return func() bool { return v } }

// TestHeaderPorts: the header's port is the TCP port and pport the TLS
// port without tls-cluster, the other way round with it, and so in the
// gossip sections (clusterBuildMessageHdr, clusterSetGossipEntry); a
// header read back gives a node those ports.
func TestHeaderPorts(t *testing.T) {
	for _, tlsCluster := range []bool{false, true} {
		cl, err := New(Options{IP: "127.0.0.1", Port: 7000, BusPort: 17000, TLSCluster: flag(tlsCluster),
			TLSPort: func() int { return 7100 }})
		if err != nil {
			t.Fatal(err)
		}
		cl.mu.Lock()
		m := cl.header(TypePing)
		g := gossipOf(cl.myself)
		cl.mu.Unlock()
		wantPort, wantPPort := uint16(7000), uint16(7100)
		if tlsCluster {
			wantPort, wantPPort = 7100, 7000
		}
		if m.Port != wantPort || m.PPort != wantPPort || m.CPort != 17000 {
			t.Errorf("tls-cluster %v: header port %d pport %d cport %d", tlsCluster, m.Port, m.PPort, m.CPort)
		}
		if g.Port != wantPort || g.PPort != wantPPort {
			t.Errorf("tls-cluster %v: gossip port %d pport %d", tlsCluster, g.Port, g.PPort)
		}
		// Encoded and decoded: the bytes at Valkey's offsets.
		d, err := Decode(m.Encode(nil))
		if err != nil {
			t.Fatal(err)
		}
		if d.Port != wantPort || d.PPort != wantPPort {
			t.Errorf("decoded port %d pport %d", d.Port, d.PPort)
		}
		// The routing snapshot has both, whatever the orientation.
		r := cl.Routing().Nodes[cl.Routing().Self-1]
		if r.TCPPort != 7000 || r.TLSPort != 7100 || r.ClientPort(true) != 7100 || r.ClientPort(false) != 7000 {
			t.Errorf("tls-cluster %v: route %+v", tlsCluster, r)
		}
	}
}

// TestNodesConfPorts: nodes.conf's ip:port carries tls-cluster's port
// and the aux field the other (tls-port without tls-cluster, tcp-port
// with it), as clusterGenNodeDescription writes them; a file written
// either way loads with the right ports either way.
func TestNodesConfPorts(t *testing.T) {
	const id1 = "75f311d837979478251cfd55f91e5f6d2c872f24"
	const id2 = "9725bce26f2a749da2f6431459d436f32967d00e"
	const shard1 = "14b9ea20ac06664f0e9a00dc7e478f003f09896a"
	const shard2 = "52d3035c19281857c3c116bb6279016f1fd834e3"
	plain := id1 + " 127.0.0.1:7001@17001,,tls-port=7101,shard-id=" + shard1 + " master - 0 1 2 connected 0-100\n" +
		id2 + " 127.0.0.1:7002@17002,,tls-port=7102,shard-id=" + shard2 + " myself,master - 0 0 1 connected 101-200\n" +
		"vars currentEpoch 2 lastVoteEpoch 0\n"
	withTLS := id1 + " 127.0.0.1:7101@17001,,tcp-port=7001,shard-id=" + shard1 + " master - 0 1 2 connected 0-100\n" +
		id2 + " 127.0.0.1:7102@17002,,tcp-port=7002,shard-id=" + shard2 + " myself,master - 0 0 1 connected 101-200\n" +
		"vars currentEpoch 2 lastVoteEpoch 0\n"
	load := func(text string, tlsCluster bool) *Cluster {
		t.Helper()
		cl := &Cluster{nodes: map[string]*Node{}, migrating: map[int]*Node{}, importing: map[int]*Node{},
			nowFn: func() int64 { return 1234 }, opt: Options{NodeTimeout: func() int64 { return 15000 }}, tlsCluster: tlsCluster}
		if err := cl.parseConfig(text); err != nil {
			t.Fatal(err)
		}
		return cl
	}
	// normalize blanks ping/pong and the link state (not round-tripped).
	normalize := func(s string) string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
			f := strings.Fields(l)
			if len(f) >= 8 {
				f[4], f[5], f[7] = "", "", ""
			}
			out = append(out, strings.Join(f, " "))
		}
		return strings.Join(out, "\n")
	}
	for _, tc := range []struct {
		name       string
		text       string
		tlsCluster bool
		want       string
	}{
		{"plain/plain", plain, false, plain},
		{"tls/tls", withTLS, true, withTLS},
		{"plain/tls", plain, true, withTLS},
		{"tls/plain", withTLS, false, plain},
	} {
		cl := load(tc.text, tc.tlsCluster)
		n := cl.nodes[id1]
		if cl.tcpPort(n) != 7001 || cl.tlsPort(n) != 7101 || n.CPort != 17001 {
			t.Errorf("%s: tcp %d tls %d cport %d", tc.name, cl.tcpPort(n), cl.tlsPort(n), n.CPort)
		}
		if got := string(cl.configText()); normalize(got) != normalize(tc.want) {
			t.Errorf("%s: wrote\n%s\nwant\n%s", tc.name, got, tc.want)
		}
	}
	// Without port aux fields (an older file) ip:port is tls-cluster's.
	old := strings.ReplaceAll(plain, ",tls-port=7101", "")
	for _, tlsCluster := range []bool{false, true} {
		cl := load(old, tlsCluster)
		n := cl.nodes[id1]
		if cl.clientPort(n, tlsCluster) != 7001 || cl.clientPort(n, !tlsCluster) != 0 {
			t.Errorf("tls-cluster %v: no aux: tcp %d tls %d", tlsCluster, cl.tcpPort(n), cl.tlsPort(n))
		}
	}
	// Both aux fields: ip:port is not used.
	both := strings.Replace(plain, "127.0.0.1:7001@17001,,tls-port=7101", "127.0.0.1:9@17001,,tcp-port=7001,tls-port=7101", 1)
	if cl := load(both, true); cl.tcpPort(cl.nodes[id1]) != 7001 || cl.tlsPort(cl.nodes[id1]) != 7101 {
		t.Errorf("both aux fields: %+v", cl.nodes[id1])
	}
	// A port Valkey's setter refuses makes the file corrupt.
	for _, bad := range []string{"tls-port=x", "tls-port=65536", "tls-port=", "tcp-port=123456"} {
		cl := &Cluster{nodes: map[string]*Node{}, migrating: map[int]*Node{}, importing: map[int]*Node{},
			nowFn: func() int64 { return 1234 }, opt: Options{NodeTimeout: func() int64 { return 15000 }}}
		if err := cl.parseConfig(strings.Replace(plain, "tls-port=7101", bad, 1)); err == nil {
			t.Errorf("%s: loaded", bad)
		}
	}
}

// TestClientPorts: CLUSTER NODES's and REPLICAS's ip:port, the routing
// snapshot and CLUSTER SLOTS give each node's TCP or TLS port by the
// client's transport; a replica replicates from its primary's TLS port
// with tls-replication; a change of tls-cluster keeps every port.
func TestClientPorts(t *testing.T) {
	var tlsCluster, tlsRepl bool
	cl, err := New(Options{IP: "127.0.0.1", Port: 7000, BusPort: 17000, TLSCluster: func() bool { return tlsCluster },
		TLSPort: func() int { return 7100 }, TLSReplication: func() bool { return tlsRepl }})
	if err != nil {
		t.Fatal(err)
	}
	// A primary learnt from a header: TCP 7001, TLS 7101.
	const other = "75f311d837979478251cfd55f91e5f6d2c872f24"
	cl.mu.Lock()
	p := cl.newNode(other, FlagPrimary)
	p.IP, p.Port, p.PPort, p.CPort, p.ShardID = "127.0.0.1", 7001, 7101, 17001, RandomName()
	cl.addNode(p)
	cl.addSlot(p, 5)
	cl.unlock()
	check := func(stage string) {
		t.Helper()
		if s := cl.NodesFor(true, false); !strings.Contains(s, other+" 127.0.0.1:7101@17001 ") || !strings.Contains(s, ":7100@17000 myself") {
			t.Errorf("%s: NODES over TLS:\n%s", stage, s)
		}
		if s := cl.NodesFor(false, false); !strings.Contains(s, other+" 127.0.0.1:7001@17001 ") || !strings.Contains(s, ":7000@17000 myself") {
			t.Errorf("%s: NODES over TCP:\n%s", stage, s)
		}
		r := cl.Routing()
		o := r.Nodes[r.Owner[5]-1]
		if o.ClientPort(true) != 7101 || o.ClientPort(false) != 7001 {
			t.Errorf("%s: route %+v", stage, o)
		}
		sl := cl.Slots()
		if len(sl) != 1 || sl[0].Nodes[0].TCPPort != 7001 || sl[0].Nodes[0].TLSPort != 7101 {
			t.Errorf("%s: slots %+v", stage, sl)
		}
		for _, sh := range cl.Shards() {
			for _, n := range sh.Nodes {
				if n.Name == other && (n.TCPPort != 7001 || n.TLSPort != 7101) {
					t.Errorf("%s: shards %+v", stage, n)
				}
			}
		}
	}
	check("tls-cluster no")
	// tls-cluster yes at run time: the ports follow.
	tlsCluster = true
	cl.mu.Lock()
	cl.cron()
	hp := cl.header(TypePing)
	cl.unlock()
	if hp.Port != 7100 || hp.PPort != 7000 {
		t.Errorf("header after tls-cluster yes: %d %d", hp.Port, hp.PPort)
	}
	check("tls-cluster yes")
	if _, port, e := cl.Replicate(other, false); e != "" || port != 7001 {
		t.Errorf("replicate without tls-replication: %d %q", port, e)
	}
	tlsRepl = true
	if _, port := cl.PrimaryAddr(); port != 7101 {
		t.Errorf("primary's port with tls-replication: %d", port)
	}
	if lines, _ := cl.ReplicasFor(other, true, false); len(lines) != 1 || !strings.Contains(lines[0], ":7100@17000 myself,slave") {
		t.Errorf("REPLICAS over TLS: %q", lines)
	}
}

// busTLSConfigs builds the bus's configurations from f as the server
// does: tlsconf's bundle, client certificates required.
func busTLSConfigs(t *testing.T, f *testutil.TLSFiles) func() (*tls.Config, *tls.Config) {
	b, err := tlsconf.Build(config.TLSSettings{CertFile: f.ServerCert, KeyFile: f.ServerKey, CACertFile: f.CACert,
		AuthClients: "yes", Cluster: true, Protocols: "TLSv1.2 TLSv1.3"})
	if err != nil {
		t.Fatal(err)
	}
	srv := b.Server.Clone()
	srv.ClientAuth = tls.RequireAndVerifyClientCert
	return func() (*tls.Config, *tls.Config) { return srv, b.Client }
}

// TestGossipOverTLS: three nodes whose bus runs over TLS meet and agree;
// a plaintext peer on a bus port gets no bus message back and is cut
// off; a node whose certificate another CA signed never links up.
func TestGossipOverTLS(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	busTLS := busTLSConfigs(t, f)
	start := func(i int, bt func() (*tls.Config, *tls.Config)) *Cluster {
		port := testutil.FreePort(t)
		cl, err := New(Options{IP: "127.0.0.1", Port: 7000 + i, BusPort: port, ListenBusPort: port, BindAddr: "127.0.0.1",
			NodeTimeout: func() int64 { return 2000 }, TLSCluster: flag(true), BusTLS: bt,
			TLSPort: func() int { return 7100 + i }})
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cl.Stop)
		return cl
	}
	var cls []*Cluster
	for i := range 3 {
		cls = append(cls, start(i, busTLS))
	}
	for i, cl := range cls {
		var s []int
		for j := i * (Slots / 3); j < (i+1)*(Slots/3) || i == 2 && j < Slots; j++ {
			s = append(s, j)
		}
		cl.AddSlots(s)
		cl.SetConfigEpoch(int64(i + 1))
	}
	// With tls-cluster, MEET names the TLS port.
	cls[0].Meet("127.0.0.1", 7101, cls[1].opt.BusPort)
	cls[0].Meet("127.0.0.1", 7102, cls[2].opt.BusPort)
	waitConverged(t, cls, 20*time.Second, "the cluster did not converge over TLS")
	for _, cl := range cls {
		r := cl.Routing()
		o := r.Nodes[r.Owner[Slots-1]-1]
		if o.TLSPort != 7102 || o.TCPPort != 7002 {
			t.Errorf("slot 16383 routed to %+v", o)
		}
	}

	// A plaintext peer: no bus message, the connection closed.
	addr := "127.0.0.1:" + strconv.Itoa(cls[0].opt.BusPort)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	ping := Message{Header: Header{Type: TypePing, Sender: name("0123456789012345678901234567890123456789"), Port: 1, CPort: 2}}
	c.Write(ping.Encode(nil))
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	var got []byte
	buf := make([]byte, 4096)
	for {
		n, err := c.Read(buf)
		got = append(got, buf[:n]...)
		if err != nil {
			if ne, ok := err.(net.Error); ok && ne.Timeout() {
				t.Fatal("the plaintext connection was not closed")
			}
			break
		}
	}
	c.Close()
	if len(got) >= 4 && string(got[:4]) == "RCmb" {
		t.Fatalf("a plaintext peer got a bus message: %q", got)
	}

	// A TLS client without a certificate is refused too (the bus always
	// requires one, as Valkey's).
	tc, err := tls.Dial("tcp", addr, &tls.Config{RootCAs: f.Pool, ServerName: "localhost"})
	if err == nil {
		tc.SetReadDeadline(time.Now().Add(10 * time.Second))
		_, err = tc.Read(make([]byte, 1))
		tc.Close()
	}
	if err == nil {
		t.Fatal("a TLS peer without a client certificate was served")
	}

	// A node with another CA's certificate: its links fail their
	// handshakes and it stays alone.
	other := testutil.NewTLSFiles(t)
	var current atomic.Pointer[func() (*tls.Config, *tls.Config)]
	bad := busTLSConfigs(t, other)
	current.Store(&bad)
	stranger := start(3, func() (*tls.Config, *tls.Config) { return (*current.Load())() })
	stranger.Meet("127.0.0.1", 7100, cls[0].opt.BusPort)
	// The MEET's handshake node goes once the handshake timeout (the
	// node timeout, 2 s) passes without a PONG: the links' TLS
	// handshakes failed all along.
	deadline := time.Now().Add(15 * time.Second)
	for stranger.KnownNodes() != 1 {
		if len(stranger.Links()) != 0 {
			t.Fatalf("the stranger has a link: %+v", stranger.Links())
		}
		if time.Now().After(deadline) {
			t.Fatalf("the stranger's handshake did not time out:\n%s", stranger.Nodes())
		}
		time.Sleep(50 * time.Millisecond)
	}
	if cls[0].KnownNodes() != 3 {
		t.Fatalf("a node of another CA was added:\n%s", cls[0].Nodes())
	}

	// Its certificates reloaded (the CA's now): the next links use them,
	// and it joins.
	current.Store(&busTLS)
	stranger.Meet("127.0.0.1", 7100, cls[0].opt.BusPort)
	deadline = time.Now().Add(20 * time.Second)
	for stranger.KnownNodes() != 4 || cls[0].KnownNodes() != 4 || strings.Contains(stranger.Nodes(), "handshake") {
		if time.Now().After(deadline) {
			t.Fatalf("the reloaded node did not join:\n%s\n%s", stranger.Nodes(), cls[0].Nodes())
		}
		time.Sleep(50 * time.Millisecond)
	}
}
