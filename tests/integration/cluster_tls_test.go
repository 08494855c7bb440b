package integration

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/internal/cluster"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// Cluster mode over TLS (tls-cluster yes) and TLS ports as Valkey 8.0.1
// announces and reports them. The peer valkey-server here is built
// without TLS, so there is no Valkey node on a TLS bus to test against;
// the ports' exchange on a plaintext bus (the header's pport, nodes.conf's
// tls-port) is checked against a Valkey node that announces a TLS port
// (cluster-announce-tls-port) in TestClusterTLSPortMixed.

// tlsClusterNode is a Corvid node with a plaintext and a TLS listener.
type tlsClusterNode struct {
	p                 *testutil.Proc
	tlsAddr           string
	port, tport, cbus int
	id                string
}

func portOf(addr string) int {
	p, _ := strconv.Atoi(addr[strings.LastIndexByte(addr, ':')+1:])
	return p
}

func startTLSClusterNode(t *testing.T, f *testutil.TLSFiles, args ...string) tlsClusterNode {
	t.Helper()
	bus := testutil.FreePort(t)
	args = append([]string{"--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus), "--cluster-node-timeout", "5000",
		"--save", "", "--appendonly", "no", "--repl-diskless-sync-delay", "0"}, args...)
	p, taddr := testutil.StartCorvidTLS(t, f, true, args...)
	n := tlsClusterNode{p: p, tlsAddr: taddr, port: p.Port, tport: portOf(taddr), cbus: bus}
	c := testutil.Dial(t, p.Addr)
	defer c.Close()
	n.id = strings.Trim(c.Do("CLUSTER", "MYID"), "\"")
	return n
}

// formTLSCluster gives each node a third of the slots and has the first
// meet the others at port (its TLS or TCP port, by tls-cluster) and bus
// port, then waits for cluster_state:ok everywhere.
func formTLSCluster(t *testing.T, nodes []tlsClusterNode, port func(tlsClusterNode) int) {
	t.Helper()
	per := cluster.Slots / len(nodes)
	for i, n := range nodes {
		c := testutil.Dial(t, n.p.Addr)
		end := (i+1)*per - 1
		if i == len(nodes)-1 {
			end = cluster.Slots - 1
		}
		if r := c.Do("CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(i*per), strconv.Itoa(end)); r != "+OK" {
			t.Fatalf("ADDSLOTSRANGE: %s", r)
		}
		if r := c.Do("CLUSTER", "SET-CONFIG-EPOCH", strconv.Itoa(i+1)); r != "+OK" {
			t.Fatalf("SET-CONFIG-EPOCH: %s", r)
		}
		c.Close()
	}
	c := testutil.Dial(t, nodes[0].p.Addr)
	defer c.Close()
	for _, n := range nodes[1:] {
		if r := c.Do("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(port(n)), strconv.Itoa(n.cbus)); r != "+OK" {
			t.Fatalf("MEET: %s", r)
		}
	}
	for _, n := range nodes {
		waitClusterOK(t, n.p.Addr, len(nodes))
	}
}

// keyOwnedBy finds a key whose slot nodes[i] serves (slots as
// formTLSCluster split them).
func keyOwnedBy(nodes int, i int) (string, int) {
	per := cluster.Slots / nodes
	for k := 0; ; k++ {
		key := "key:" + strconv.Itoa(k)
		s := cluster.KeySlot([]byte(key))
		if s/per == i || i == nodes-1 && s >= i*per {
			return key, s
		}
	}
}

// TestClusterTLSBus: three Corvid primaries with tls-cluster yes and
// tls-replication yes form a cluster over a TLS bus (MEET names TLS
// ports); a plaintext peer on a bus port is dropped; a TLS cluster client
// works through CLUSTER SLOTS and MOVED redirects naming TLS ports and a
// plaintext one through TCP ports; NODES, SLOTS and SHARDS report ports
// as Valkey does; nodes.conf carries the TLS port and tcp-port=; a fourth
// node replicates a primary over TLS from its TLS port.
func TestClusterTLSBus(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	var nodes []tlsClusterNode
	for range 3 {
		nodes = append(nodes, startTLSClusterNode(t, f, "--tls-cluster", "yes", "--tls-replication", "yes"))
	}
	formTLSCluster(t, nodes, func(n tlsClusterNode) int { return n.tport })
	ctx := testCtx(t, 2*time.Minute)

	// A plaintext connection to a bus port: no bus message, closed.
	for _, n := range nodes {
		conn, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(n.cbus), 2*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conn.Write([]byte("RCmb\x00\x00\x08\x00\x00\x01\x00\x00PING\r\n"))
		conn.SetReadDeadline(time.Now().Add(15 * time.Second))
		var got []byte
		buf := make([]byte, 4096)
		for {
			k, err := conn.Read(buf)
			got = append(got, buf[:k]...)
			if err != nil {
				if ne, ok := err.(net.Error); ok && ne.Timeout() {
					t.Fatalf("bus port %d: the plaintext connection was not closed", n.cbus)
				}
				break
			}
		}
		conn.Close()
		if strings.Contains(string(got), "RCmb") {
			t.Fatalf("bus port %d answered a plaintext peer: %q", n.cbus, got)
		}
	}

	// MOVED names the owner's TLS port to a TLS client, its TCP port to
	// a plaintext one.
	key, slot := keyOwnedBy(3, 2)
	tc := tlsClient(t, nodes[0].tlsAddr, f.ClientConfig(t, true), 2)
	wantTLS := "MOVED " + strconv.Itoa(slot) + " 127.0.0.1:" + strconv.Itoa(nodes[2].tport)
	if err := tc.Get(ctx, key).Err(); err == nil || err.Error() != wantTLS {
		t.Errorf("TLS client: %v, want %s", err, wantTLS)
	}
	pc := testutil.Dial(t, nodes[0].p.Addr)
	wantTCP := "MOVED " + strconv.Itoa(slot) + " 127.0.0.1:" + strconv.Itoa(nodes[2].port)
	if r := pc.Do("GET", key); !strings.Contains(r, wantTCP) {
		t.Errorf("plaintext client: %s, want %s", r, wantTCP)
	}
	// A script runs as its caller: its error names no port, but a
	// CLUSTER NODES inside it has the caller's transport's ports.
	tlsNodes, err := tc.Do(ctx, "EVAL", "return redis.call('CLUSTER', 'NODES')", "0").Text()
	if err != nil {
		t.Fatal(err)
	}
	plainNodes := pc.Do("CLUSTER", "NODES")
	for _, n := range nodes {
		if !strings.Contains(tlsNodes, n.id+" 127.0.0.1:"+strconv.Itoa(n.tport)+"@"+strconv.Itoa(n.cbus)) {
			t.Errorf("CLUSTER NODES over TLS (from a script) lacks %s's TLS port:\n%s", n.id, tlsNodes)
		}
		if !strings.Contains(plainNodes, n.id+" 127.0.0.1:"+strconv.Itoa(n.port)+"@"+strconv.Itoa(n.cbus)) {
			t.Errorf("CLUSTER NODES over TCP lacks %s's TCP port:\n%s", n.id, plainNodes)
		}
	}
	// CLUSTER SLOTS by transport; CLUSTER SHARDS has both ports.
	tslots, err := tc.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	pclient := redis.NewClient(&redis.Options{Addr: nodes[0].p.Addr})
	defer pclient.Close()
	pslots, err := pclient.ClusterSlots(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for i := range tslots {
		tp, pp := portOf(tslots[i].Nodes[0].Addr), portOf(pslots[i].Nodes[0].Addr)
		var owner *tlsClusterNode
		for j := range nodes {
			if nodes[j].id == tslots[i].Nodes[0].ID {
				owner = &nodes[j]
			}
		}
		if owner == nil || tp != owner.tport || pp != owner.port {
			t.Errorf("CLUSTER SLOTS %d-%d: TLS %d, TCP %d, owner %+v", tslots[i].Start, tslots[i].End, tp, pp, owner)
		}
	}
	shards, err := tc.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, sh := range shards {
		for _, sn := range sh.Nodes {
			for _, n := range nodes {
				if sn.ID == n.id && (sn.Port != int64(n.port) || sn.TLSPort != int64(n.tport)) {
					t.Errorf("CLUSTER SHARDS: %+v, want port %d tls-port %d", sn, n.port, n.tport)
				}
			}
		}
	}

	// Cluster clients over each transport.
	tcc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{nodes[1].tlsAddr}, TLSConfig: f.ClientConfig(t, true)})
	defer tcc.Close()
	pcc := redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{nodes[1].p.Addr}})
	defer pcc.Close()
	for i := range 300 {
		k := "k" + strconv.Itoa(i)
		if err := tcc.Set(ctx, k, i, 0).Err(); err != nil {
			t.Fatalf("TLS cluster client SET %s: %v", k, err)
		}
	}
	for i := range 300 {
		k := "k" + strconv.Itoa(i)
		for _, cc := range []*redis.ClusterClient{tcc, pcc} {
			if v, err := cc.Get(ctx, k).Int(); err != nil || v != i {
				t.Fatalf("GET %s: %d %v", k, v, err)
			}
		}
	}

	// nodes.conf: ip:port carries the TLS port, tcp-port= the TCP one.
	data, err := os.ReadFile(filepath.Join(nodes[0].p.Dir, "nodes.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		want := n.id + " 127.0.0.1:" + strconv.Itoa(n.tport) + "@" + strconv.Itoa(n.cbus) + ",,tcp-port=" + strconv.Itoa(n.port) + ",shard-id="
		if !strings.Contains(string(data), want) {
			t.Errorf("nodes.conf lacks %q:\n%s", want, data)
		}
	}

	// A replica of nodes[0], over the TLS bus and TLS replication.
	r := startTLSClusterNode(t, f, "--tls-cluster", "yes", "--tls-replication", "yes")
	rc := testutil.Dial(t, r.p.Addr)
	if res := rc.Do("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(nodes[0].tport), strconv.Itoa(nodes[0].cbus)); res != "+OK" {
		t.Fatalf("MEET: %s", res)
	}
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(rc.Do("CLUSTER", "NODES"), nodes[0].id) || strings.Contains(rc.Do("CLUSTER", "NODES"), "handshake") {
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not learn the primary:\n%s", rc.Do("CLUSTER", "NODES"))
		}
		time.Sleep(50 * time.Millisecond)
	}
	if res := rc.Do("CLUSTER", "REPLICATE", nodes[0].id); res != "+OK" {
		t.Fatalf("REPLICATE: %s", res)
	}
	for {
		info, _ := strconv.Unquote(rc.Do("INFO", "replication"))
		if strings.Contains(info, "master_port:"+strconv.Itoa(nodes[0].tport)+"\r\n") && strings.Contains(info, "master_link_status:up") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica's link to its primary's TLS port is not up:\n%s", info)
		}
		time.Sleep(50 * time.Millisecond)
	}
	key0, _ := keyOwnedBy(3, 0)
	if err := tcc.Set(ctx, key0, "replicated", 0).Err(); err != nil {
		t.Fatal(err)
	}
	rc.Do("READONLY")
	for rc.Do("GET", key0) != "\"replicated\"" {
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not get %s: %s", key0, rc.Do("GET", key0))
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, n := range nodes {
		waitClusterOK(t, n.p.Addr, 4)
	}
}

// TestClusterTLSPortMixed: with tls-cluster no but tls-port set, the bus
// is plaintext and the header's pport carries the TLS port: a TLS client
// is redirected to TLS ports, a plaintext one to TCP ports, and a
// Valkey 8.0.1 node (built without TLS: it announces a TLS port with
// cluster-announce-tls-port) and Corvid learn each other's TLS ports
// over the bus (CLUSTER SHARDS, nodes.conf). A Corvid node's
// cluster-announce-tls-port set at run time reaches the others.
func TestClusterTLSPortMixed(t *testing.T) {
	f := testutil.NewTLSFiles(t)
	nodes := []tlsClusterNode{startTLSClusterNode(t, f), startTLSClusterNode(t, f)}
	formTLSCluster(t, nodes, func(n tlsClusterNode) int { return n.port })
	ctx := testCtx(t, time.Minute)
	key, slot := keyOwnedBy(2, 1)
	tc := tlsClient(t, nodes[0].tlsAddr, f.ClientConfig(t, true), 3)
	want := "MOVED " + strconv.Itoa(slot) + " 127.0.0.1:" + strconv.Itoa(nodes[1].tport)
	if err := tc.Get(ctx, key).Err(); err == nil || err.Error() != want {
		t.Errorf("TLS client: %v, want %s", err, want)
	}
	pc := testutil.Dial(t, nodes[0].p.Addr)
	want = "MOVED " + strconv.Itoa(slot) + " 127.0.0.1:" + strconv.Itoa(nodes[1].port)
	if r := pc.Do("GET", key); !strings.Contains(r, want) {
		t.Errorf("plaintext client: %s, want %s", r, want)
	}
	data, err := os.ReadFile(filepath.Join(nodes[0].p.Dir, "nodes.conf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes {
		want := n.id + " 127.0.0.1:" + strconv.Itoa(n.port) + "@" + strconv.Itoa(n.cbus) + ",,tls-port=" + strconv.Itoa(n.tport) + ",shard-id="
		if !strings.Contains(string(data), want) {
			t.Errorf("nodes.conf lacks %q:\n%s", want, data)
		}
	}

	// cluster-announce-tls-port replaces tls-port in what a node
	// announces, at run time.
	c1 := testutil.Dial(t, nodes[1].p.Addr)
	for _, announced := range []int{6391, 0} {
		if r := c1.Do("CONFIG", "SET", "cluster-announce-tls-port", strconv.Itoa(announced)); r != "+OK" {
			t.Fatalf("CONFIG SET: %s", r)
		}
		want := "MOVED " + strconv.Itoa(slot) + " 127.0.0.1:" + strconv.Itoa(announced)
		if announced == 0 {
			want = "MOVED " + strconv.Itoa(slot) + " 127.0.0.1:" + strconv.Itoa(nodes[1].tport)
		}
		deadline := time.Now().Add(20 * time.Second)
		for {
			err := tc.Get(ctx, key).Err()
			if err != nil && err.Error() == want {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("cluster-announce-tls-port %d: %v, want %s", announced, err, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}

	if !testutil.HaveValkey(t) {
		return
	}
	vk := startClusterValkey(t)
	const vkTLS = 6390 // announced only: nothing listens there
	vc := testutil.Dial(t, vk.p.Addr)
	if r := vc.Do("CONFIG", "SET", "cluster-announce-tls-port", strconv.Itoa(vkTLS)); r != "+OK" {
		t.Fatalf("CONFIG SET: %s", r)
	}
	vid := strings.Trim(vc.Do("CLUSTER", "MYID"), "\"")
	if r := pc.Do("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(vk.p.Port), strconv.Itoa(vk.busPort)); r != "+OK" {
		t.Fatalf("MEET: %s", r)
	}
	for _, n := range nodes {
		waitClusterOK(t, n.p.Addr, 3)
	}
	waitClusterOK(t, vk.p.Addr, 3)
	vclient := redis.NewClient(&redis.Options{Addr: vk.p.Addr})
	defer vclient.Close()
	cclient := redis.NewClient(&redis.Options{Addr: nodes[0].p.Addr})
	defer cclient.Close()
	// Each side's CLUSTER SHARDS: the other's TLS port as it announced it.
	deadline := time.Now().Add(20 * time.Second)
	for {
		bad := ""
		for _, c := range []*redis.Client{vclient, cclient} {
			shards, err := c.ClusterShards(ctx).Result()
			if err != nil {
				t.Fatal(err)
			}
			for _, sh := range shards {
				for _, sn := range sh.Nodes {
					wantTLS := int64(vkTLS)
					wantTCP := int64(vk.p.Port)
					for _, n := range nodes {
						if sn.ID == n.id {
							wantTLS, wantTCP = int64(n.tport), int64(n.port)
						}
					}
					if sn.ID != vid && wantTLS == vkTLS {
						continue // a node this test did not start
					}
					if sn.TLSPort != wantTLS || sn.Port != wantTCP {
						bad += c.Options().Addr + ": " + sn.ID + " port " + strconv.FormatInt(sn.Port, 10) + " tls-port " + strconv.FormatInt(sn.TLSPort, 10) + "\n"
					}
				}
			}
		}
		if bad == "" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("CLUSTER SHARDS' ports:\n%s", bad)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// Valkey's own nodes.conf has Corvid's TLS port as tls-port=.
	vdata, err := os.ReadFile(filepath.Join(vk.p.Dir, "nodes.conf"))
	if err != nil {
		t.Fatal(err)
	}
	want = nodes[0].id + " 127.0.0.1:" + strconv.Itoa(nodes[0].port) + "@" + strconv.Itoa(nodes[0].cbus) + ",,tls-port=" + strconv.Itoa(nodes[0].tport)
	if !strings.Contains(string(vdata), want) {
		t.Errorf("Valkey's nodes.conf lacks %q:\n%s", want, vdata)
	}
}
