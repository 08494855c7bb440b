package integration

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/cluster"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// The cluster-* directives that change what a node does: no automatic
// failover, replica migration, sharded pub/sub while down, the endpoint
// shown to clients, the client addresses and human nodename announced on
// the bus, against Corvid nodes and, where a client sees it, compared
// with valkey-server.

func startDirCorvid(t *testing.T, timeoutMs int, extra ...string) clusterNode {
	t.Helper()
	bus := testutil.FreePort(t)
	args := []string{"--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus),
		"--cluster-node-timeout", strconv.Itoa(timeoutMs), "--save", "", "--appendonly", "no"}
	return clusterNode{p: testutil.StartCorvidIn(t, t.TempDir(), append(args, extra...)...), busPort: bus}
}

func startDirValkey(t *testing.T, timeoutMs int, extra ...string) clusterNode {
	t.Helper()
	bus := testutil.FreePort(t)
	args := []string{"--cluster-enabled", "yes", "--cluster-port", strconv.Itoa(bus),
		"--cluster-node-timeout", strconv.Itoa(timeoutMs)}
	return clusterNode{p: testutil.StartValkeyIn(t, t.TempDir(), append(args, extra...)...), busPort: bus}
}

func nodeID(t *testing.T, n clusterNode) string {
	t.Helper()
	return strings.Trim(testutil.Dial(t, n.p.Addr).Do("CLUSTER", "MYID"), `"`)
}

func clusterNodesText(t *testing.T, addr string) string {
	t.Helper()
	c := testutil.Dial(t, addr)
	defer c.Close()
	s, _ := strconv.Unquote(c.Do("CLUSTER", "NODES"))
	return s
}

// eventually polls cond until it holds, failing after d.
func eventually(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok, state := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s:\n%s", what, state)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// never checks for d that cond does not hold.
func never(t *testing.T, d time.Duration, what string, cond func() (bool, string)) {
	t.Helper()
	deadline := time.Now().Add(d)
	for time.Now().Before(deadline) {
		if ok, state := cond(); ok {
			t.Fatalf("%s:\n%s", what, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// addReplica makes r a replica of the primary with ID prim (MEET through
// via, CLUSTER REPLICATE) and waits until via sees it so.
func addReplica(t *testing.T, r, via clusterNode, prim string) string {
	t.Helper()
	rc := testutil.Dial(t, r.p.Addr)
	if got := rc.Do("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(via.p.Port), strconv.Itoa(via.busPort)); got != "+OK" {
		t.Fatalf("CLUSTER MEET: %s", got)
	}
	eventually(t, 20*time.Second, "the new node does not know the primary", func() (bool, string) {
		s := clusterNodesText(t, r.p.Addr)
		return strings.Contains(s, prim+" "), s
	})
	if got := rc.Do("CLUSTER", "REPLICATE", prim); got != "+OK" {
		t.Fatalf("CLUSTER REPLICATE: %s", got)
	}
	id := nodeID(t, r)
	eventually(t, 20*time.Second, "the replica is not seen", func() (bool, string) {
		s := clusterNodesText(t, via.p.Addr)
		return regexp.MustCompile(id + ` \S+ slave\S* ` + prim + ` `).MatchString(s), s
	})
	return id
}

// primaryOf is the primary ID that addr sees for node id ("-" for a
// primary, "" when unknown).
func primaryOf(t *testing.T, addr, id string) string {
	for _, l := range strings.Split(clusterNodesText(t, addr), "\n") {
		if f := strings.Fields(l); len(f) >= 4 && f[0] == id {
			if strings.Contains(f[2], "master") {
				return "-"
			}
			return f[3]
		}
	}
	return ""
}

// TestClusterReplicaNoFailover: the only replica of a primary killed
// with SIGKILL has cluster-replica-no-failover yes: it shows nofailover,
// is not promoted, and the cluster stays down; once the directive is set
// back to no it wins an election and the cluster is ok.
func TestClusterReplicaNoFailover(t *testing.T) {
	valkeyCLIPath(t)
	const timeout = 1000
	var nodes []clusterNode
	for range 3 {
		nodes = append(nodes, startDirCorvid(t, timeout))
	}
	clusterCreate(t, nodes)
	prim := nodeID(t, nodes[0])
	repl := startDirCorvid(t, timeout, "--cluster-replica-no-failover", "yes")
	replID := addReplica(t, repl, nodes[1], prim)
	eventually(t, 20*time.Second, "the nofailover flag is not gossiped", func() (bool, string) {
		s := clusterNodesText(t, nodes[1].p.Addr)
		return regexp.MustCompile(replID + ` \S+ slave,nofailover `).MatchString(s), s
	})
	// A replica serves its primary's sharded channels without READONLY
	// (getNodeByQuery), and redirects its keys.
	ch := "c0"
	for i := 0; cluster.KeySlot([]byte(ch)) > 5460; i++ {
		ch = "c" + strconv.Itoa(i)
	}
	rc := testutil.Dial(t, repl.p.Addr)
	if got := rc.Do("SPUBLISH", ch, "m"); got != ":0" {
		t.Errorf("SPUBLISH on the replica: %s", got)
	}
	if got := rc.Do("GET", ch); !strings.HasPrefix(got, "-MOVED ") {
		t.Errorf("GET on the replica: %s", got)
	}
	if err := nodes[0].p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	eventually(t, 20*time.Second, "the primary is not marked failing", func() (bool, string) {
		s := clusterNodesText(t, nodes[1].p.Addr)
		return regexp.MustCompile(prim + ` \S+ master,fail `).MatchString(s), s
	})
	never(t, 5*time.Second, "a no-failover replica was promoted", func() (bool, string) {
		info, _ := strconv.Unquote(testutil.Dial(t, nodes[1].p.Addr).Do("CLUSTER", "INFO"))
		s := clusterNodesText(t, repl.p.Addr)
		return primaryOf(t, repl.p.Addr, replID) != prim || !strings.Contains(info, "cluster_state:fail\r\n"), s + info
	})
	if got := testutil.Dial(t, repl.p.Addr).Do("CONFIG", "SET", "cluster-replica-no-failover", "no"); got != "+OK" {
		t.Fatal(got)
	}
	eventually(t, 30*time.Second, "the replica did not fail over once allowed", func() (bool, string) {
		s := clusterNodesText(t, nodes[1].p.Addr)
		return regexp.MustCompile(replID + ` \S+ master - .* 0-5460\b`).MatchString(s), s
	})
	waitClusterOK(t, nodes[1].p.Addr, 4)
}

// TestClusterReplicaMigration: primary A has two replicas, B one; B's
// replica is killed with SIGKILL. With cluster-allow-replica-migration
// no nothing moves; once it is yes, the replica of A with the smaller ID
// becomes B's replica and the other stays with A.
func TestClusterReplicaMigration(t *testing.T) {
	valkeyCLIPath(t)
	const timeout = 1000
	var nodes []clusterNode
	for range 3 {
		nodes = append(nodes, startDirCorvid(t, timeout))
	}
	clusterCreate(t, nodes)
	a, b := nodeID(t, nodes[0]), nodeID(t, nodes[1])
	var ra []clusterNode
	var raID []string
	for range 2 {
		r := startDirCorvid(t, timeout, "--cluster-allow-replica-migration", "no")
		ra = append(ra, r)
		raID = append(raID, addReplica(t, r, nodes[2], a))
	}
	rb := startDirCorvid(t, timeout, "--cluster-allow-replica-migration", "no")
	rbID := addReplica(t, rb, nodes[2], b)
	for _, r := range ra {
		eventually(t, 20*time.Second, "A's replica does not see B's", func() (bool, string) {
			return primaryOf(t, r.p.Addr, rbID) == b, clusterNodesText(t, r.p.Addr)
		})
	}
	if err := rb.p.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, r := range ra {
		eventually(t, 20*time.Second, "B's replica is not marked failing", func() (bool, string) {
			s := clusterNodesText(t, r.p.Addr)
			return regexp.MustCompile(rbID + ` \S+ slave,fail `).MatchString(s), s
		})
	}
	// Past the 5 s an orphaned primary waits for a migration.
	never(t, 7*time.Second, "a replica migrated with cluster-allow-replica-migration no", func() (bool, string) {
		return primaryOf(t, nodes[2].p.Addr, raID[0]) != a || primaryOf(t, nodes[2].p.Addr, raID[1]) != a,
			clusterNodesText(t, nodes[2].p.Addr)
	})
	for _, r := range ra {
		if got := testutil.Dial(t, r.p.Addr).Do("CONFIG", "SET", "cluster-allow-replica-migration", "yes"); got != "+OK" {
			t.Fatal(got)
		}
	}
	mover, stayer := 0, 1
	if raID[1] < raID[0] {
		mover, stayer = 1, 0
	}
	eventually(t, 30*time.Second, "no replica migrated to the orphaned primary", func() (bool, string) {
		return primaryOf(t, nodes[2].p.Addr, raID[mover]) == b, clusterNodesText(t, nodes[2].p.Addr)
	})
	never(t, 2*time.Second, "the other replica moved too", func() (bool, string) {
		return primaryOf(t, nodes[2].p.Addr, raID[stayer]) != a, clusterNodesText(t, nodes[2].p.Addr)
	})
	// The migrated replica replicates from B.
	rc := testutil.Dial(t, ra[mover].p.Addr)
	eventually(t, 30*time.Second, "the migrated replica does not replicate B", func() (bool, string) {
		info, _ := strconv.Unquote(rc.Do("INFO", "replication"))
		return strings.Contains(info, "master_port:"+strconv.Itoa(nodes[1].p.Port)+"\r\n") &&
			strings.Contains(info, "master_link_status:up\r\n"), info + clusterNodesText(t, ra[mover].p.Addr)
	})
}

// TestClusterPubsubShardWhenDown: on a one-node cluster that is down
// (a slot unassigned), SPUBLISH and SSUBSCRIBE are served while
// cluster-allow-pubsubshard-when-down is yes and refused with
// CLUSTERDOWN once it is no; the hidden cluster-ping-interval and
// cluster-link-sendbuf-limit are set and read back; CLUSTER NODES shows
// a CONFIG SET of the client address, hostname and nofailover at once.
// Reply for reply as valkey-server.
func TestClusterPubsubShardWhenDown(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("no valkey-server")
	}
	ch := "news"
	if cluster.KeySlot([]byte(ch)) == 16383 {
		t.Fatal("pick another channel")
	}
	run := func(n clusterNode) []string {
		c := testutil.Dial(t, n.p.Addr)
		var out []string
		do := func(args ...string) { out = append(out, strings.Join(args, " ")+" -> "+c.Do(args...)) }
		do("CLUSTER", "ADDSLOTSRANGE", "0", "16382")
		do("SPUBLISH", ch, "m")
		do("SSUBSCRIBE", ch, "other")
		do("SPUBLISH", "{x}", "m") // slot 16287
		do("CLUSTER", "DELSLOTS", "16287")
		do("SPUBLISH", "{x}", "m")
		do("GET", ch)
		sub := testutil.Dial(t, n.p.Addr)
		out = append(out, "SSUBSCRIBE -> "+sub.Do("SSUBSCRIBE", ch))
		do("PUBSUB", "SHARDNUMSUB", ch)
		do("SPUBLISH", ch, "m")
		out = append(out, "message -> "+sub.Read())
		do("CONFIG", "SET", "cluster-allow-pubsubshard-when-down", "no")
		do("SPUBLISH", ch, "m")
		sub2 := testutil.Dial(t, n.p.Addr)
		out = append(out, "SSUBSCRIBE -> "+sub2.Do("SSUBSCRIBE", ch))
		do("CONFIG", "SET", "cluster-allow-reads-when-down", "yes")
		do("SPUBLISH", ch, "m")
		do("GET", ch)
		do("CONFIG", "SET", "cluster-ping-interval", "500")
		do("CONFIG", "GET", "cluster-ping-interval")
		do("CONFIG", "SET", "cluster-link-sendbuf-limit", "1mb")
		do("CONFIG", "GET", "cluster-link-sendbuf-limit")
		do("CONFIG", "SET", "cluster-ping-interval", "0")
		// What a node announces shows at once after CONFIG SET.
		norm := strings.NewReplacer(nodeID(t, n), "<id>", strconv.Itoa(n.p.Port), "<port>", strconv.Itoa(n.busPort), "<bus>")
		do("CONFIG", "SET", "cluster-announce-client-ipv4", "10.9.8.7", "cluster-replica-no-failover", "yes")
		out = append(out, "NODES -> "+norm.Replace(c.Do("CLUSTER", "NODES")))
		do("CONFIG", "SET", "cluster-announce-client-ipv4", "", "cluster-announce-hostname", "h.example")
		out = append(out, "NODES -> "+norm.Replace(c.Do("CLUSTER", "NODES")))
		do("CONFIG", "SET", "cluster-replica-no-failover", "no")
		out = append(out, "NODES -> "+norm.Replace(c.Do("CLUSTER", "NODES")))
		return out
	}
	got := run(startDirCorvid(t, 5000))
	want := run(startDirValkey(t, 5000))
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Fatalf("corvid:\n%s\nvalkey:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// TestClusterPreferredEndpointType: a two-node cluster of each
// implementation (node b announces a hostname, a does not); node a's
// MOVED and ASK redirections, CLUSTER SLOTS and CLUSTER SHARDS under
// each cluster-preferred-endpoint-type, compared with valkey-server's
// once node IDs and ports are named.
func TestClusterPreferredEndpointType(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("no valkey-server")
	}
	keyB := "b0" // a key of b's half
	for i := 0; cluster.KeySlot([]byte(keyB)) < 8192; i++ {
		keyB = "b" + strconv.Itoa(i)
	}
	slotB := strconv.Itoa(cluster.KeySlot([]byte(keyB)))
	run := func(start func() clusterNode) []string {
		a, b := start(), start()
		ac, bc := testutil.Dial(t, a.p.Addr), testutil.Dial(t, b.p.Addr)
		ac.Do("CLUSTER", "ADDSLOTSRANGE", "0", "8191")
		bc.Do("CLUSTER", "ADDSLOTSRANGE", "8192", "16383")
		bc.Do("CONFIG", "SET", "cluster-announce-hostname", "host-b.example")
		ac.Do("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(b.p.Port), strconv.Itoa(b.busPort))
		idA, idB := nodeID(t, a), nodeID(t, b)
		eventually(t, 20*time.Second, "the two nodes do not agree", func() (bool, string) {
			info := ac.Do("CLUSTER", "INFO")
			s := clusterNodesText(t, a.p.Addr)
			return strings.Contains(info, "cluster_state:ok") && strings.Contains(s, idB+" 127.0.0.1:"+strconv.Itoa(b.p.Port)+"@"+strconv.Itoa(b.busPort)+",host-b.example "), s
		})
		eventually(t, 20*time.Second, "b does not see the cluster ok", func() (bool, string) {
			info := bc.Do("CLUSTER", "INFO")
			return strings.Contains(info, "cluster_state:ok"), info
		})
		norm := strings.NewReplacer(idA, "<id-a>", idB, "<id-b>", strconv.Itoa(a.p.Port), "<port-a>", strconv.Itoa(b.p.Port), "<port-b>")
		var out []string
		for _, typ := range []string{"ip", "hostname", "unknown-endpoint"} {
			out = append(out, "type "+typ+": "+ac.Do("CONFIG", "SET", "cluster-preferred-endpoint-type", typ))
			out = append(out, "GET -> "+norm.Replace(ac.Do("GET", keyB)))
			out = append(out, "SLOTS -> "+norm.Replace(ac.Do("CLUSTER", "SLOTS")))
			shards := strings.Split(norm.Replace(ac.Do("CLUSTER", "SHARDS")), `*["slots", `)
			for i := range shards {
				shards[i] = strings.TrimRight(shards[i], "], ")
			}
			sort.Strings(shards) // the shards' order is Valkey's dict's
			out = append(out, "SHARDS -> "+strings.Join(shards, " | "))
		}
		bc.Do("CLUSTER", "SETSLOT", slotB, "MIGRATING", idA)
		for _, typ := range []string{"ip", "hostname", "unknown-endpoint"} {
			bc.Do("CONFIG", "SET", "cluster-preferred-endpoint-type", typ)
			out = append(out, "ASK "+typ+" -> "+norm.Replace(bc.Do("GET", keyB)))
		}
		return out
	}
	got := run(func() clusterNode { return startDirCorvid(t, 5000) })
	want := run(func() clusterNode { return startDirValkey(t, 5000) })
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("corvid:\n%s\n\nvalkey:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestClusterAnnounceClientIPsMixed: a Valkey node and a Corvid node,
// each announcing client addresses of both families and a human
// nodename: each shows the other's client address for the client's
// family in CLUSTER NODES and in MOVED, and keeps the other's fields in
// its nodes.conf (so each sent what the other parsed).
func TestClusterAnnounceClientIPsMixed(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("no valkey-server")
	}
	v := startDirValkey(t, 5000, "--cluster-announce-client-ipv4", "10.0.0.1", "--cluster-announce-client-ipv6", "fd00::1",
		"--cluster-announce-human-nodename", "v-node")
	c := startDirCorvid(t, 5000, "--cluster-announce-client-ipv4", "10.0.0.2", "--cluster-announce-client-ipv6", "fd00::2",
		"--cluster-announce-human-nodename", "c-node")
	vc, cc := testutil.Dial(t, v.p.Addr), testutil.Dial(t, c.p.Addr)
	vc.Do("CLUSTER", "ADDSLOTSRANGE", "0", "8191")
	cc.Do("CLUSTER", "ADDSLOTSRANGE", "8192", "16383")
	vc.Do("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(c.p.Port), strconv.Itoa(c.busPort))
	vID, cID := nodeID(t, v), nodeID(t, c)
	lineHas := func(n clusterNode, id, addr string) (bool, string) {
		s := clusterNodesText(t, n.p.Addr)
		return strings.Contains(s, id+" "+addr+" ") || strings.Contains(s, id+" "+addr+","), s
	}
	eventually(t, 20*time.Second, "valkey does not show corvid's client IPv4", func() (bool, string) {
		return lineHas(v, cID, "10.0.0.2:"+strconv.Itoa(c.p.Port)+"@"+strconv.Itoa(c.busPort))
	})
	eventually(t, 20*time.Second, "corvid does not show valkey's client IPv4", func() (bool, string) {
		return lineHas(c, vID, "10.0.0.1:"+strconv.Itoa(v.p.Port)+"@"+strconv.Itoa(v.busPort))
	})
	for _, n := range []clusterNode{v, c} {
		eventually(t, 20*time.Second, "the cluster is not ok", func() (bool, string) {
			info := testutil.Dial(t, n.p.Addr).Do("CLUSTER", "INFO")
			return strings.Contains(info, "cluster_state:ok"), info
		})
	}
	keyC := "c0"
	for i := 0; cluster.KeySlot([]byte(keyC)) < 8192; i++ {
		keyC = "c" + strconv.Itoa(i)
	}
	keyV := "v0"
	for i := 0; cluster.KeySlot([]byte(keyV)) >= 8192; i++ {
		keyV = "v" + strconv.Itoa(i)
	}
	if got, want := vc.Do("GET", keyC), "-MOVED "+strconv.Itoa(cluster.KeySlot([]byte(keyC)))+" 10.0.0.2:"+strconv.Itoa(c.p.Port); got != want {
		t.Errorf("valkey's MOVED: %s, want %s", got, want)
	}
	if got, want := cc.Do("GET", keyV), "-MOVED "+strconv.Itoa(cluster.KeySlot([]byte(keyV)))+" 10.0.0.1:"+strconv.Itoa(v.p.Port); got != want {
		t.Errorf("corvid's MOVED: %s, want %s", got, want)
	}
	// IPv6 clients (where the loopback has ::1).
	v6 := true
	for _, x := range []*testutil.Raw{vc, cc} {
		if got := x.Do("CONFIG", "SET", "bind", "127.0.0.1 ::1"); got != "+OK" {
			t.Logf("no IPv6 loopback: %s", got)
			v6 = false
		}
	}
	if v6 {
		for _, tc := range []struct {
			n       clusterNode
			id, ip  string
			port    int
			key     string
			otherID string
		}{{v, cID, "fd00::2", c.p.Port, keyC, vID}, {c, vID, "fd00::1", v.p.Port, keyV, cID}} {
			x := testutil.Dial(t, "[::1]:"+strconv.Itoa(tc.n.p.Port))
			s, _ := strconv.Unquote(x.Do("CLUSTER", "NODES"))
			if !strings.Contains(s, tc.id+" "+tc.ip+":"+strconv.Itoa(tc.port)+"@") {
				t.Errorf("%s over IPv6: CLUSTER NODES:\n%s", tc.n.p.Addr, s)
			}
			if got, want := x.Do("GET", tc.key), "-MOVED "+strconv.Itoa(cluster.KeySlot([]byte(tc.key)))+" "+tc.ip+":"+strconv.Itoa(tc.port); got != want {
				t.Errorf("%s over IPv6: %s, want %s", tc.n.p.Addr, got, want)
			}
		}
	}
	// Each keeps the other's announced fields in its nodes.conf.
	for _, tc := range []struct {
		n      clusterNode
		id, ip string
		v6     string
		human  string
	}{{v, cID, "10.0.0.2", "fd00::2", "c-node"}, {c, vID, "10.0.0.1", "fd00::1", "v-node"}} {
		want := ",client-ipv6=" + tc.v6 + ",client-ipv4=" + tc.ip + ",tls-port=0,nodename=" + tc.human + ",shard-id="
		eventually(t, 20*time.Second, "nodes.conf lacks the other node's fields", func() (bool, string) {
			testutil.Dial(t, tc.n.p.Addr).Do("CLUSTER", "SAVECONFIG")
			data, _ := os.ReadFile(filepath.Join(tc.n.p.Dir, "nodes.conf"))
			for _, l := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(l, tc.id+" ") && strings.Contains(l, want) {
					return true, ""
				}
			}
			return false, string(data)
		})
	}
}

// TestClusterLastSlotResharded: primary A (ten slots) with replica RA,
// primary B (the rest); valkey-cli --cluster reshard moves A's ten slots
// to B. With cluster-allow-replica-migration no on A and RA, A stays an
// empty primary and RA its replica; after the slots came back and the
// directive is yes, the same reshard makes both B's replicas. What each
// node becomes is compared with valkey-server's nodes in the same steps.
func TestClusterLastSlotResharded(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("no valkey-server")
	}
	valkeyCLIPath(t)
	run := func(start func() clusterNode) []string {
		a, b, ra := start(), start(), start()
		ac, bc := testutil.Dial(t, a.p.Addr), testutil.Dial(t, b.p.Addr)
		ac.Do("CLUSTER", "ADDSLOTSRANGE", "0", "9")
		bc.Do("CLUSTER", "ADDSLOTSRANGE", "10", "16383")
		ac.Do("CLUSTER", "SET-CONFIG-EPOCH", "1")
		bc.Do("CLUSTER", "SET-CONFIG-EPOCH", "2")
		ac.Do("CLUSTER", "MEET", "127.0.0.1", strconv.Itoa(b.p.Port), strconv.Itoa(b.busPort))
		idA, idB := nodeID(t, a), nodeID(t, b)
		eventually(t, 20*time.Second, "b does not know a", func() (bool, string) {
			s := clusterNodesText(t, b.p.Addr)
			return strings.Contains(s, idA+" "), s
		})
		idRA := addReplica(t, ra, b, idA)
		for _, n := range []clusterNode{a, b, ra} {
			waitClusterOK(t, n.p.Addr, 3)
		}
		for _, n := range []clusterNode{a, ra} {
			testutil.Dial(t, n.p.Addr).Do("CONFIG", "SET", "cluster-allow-replica-migration", "no")
		}
		reshard := func(from, to string) {
			t.Helper()
			// valkey-cli wants every node to agree first.
			eventually(t, 20*time.Second, "the nodes do not agree", func() (bool, string) {
				out, err := runCLI(t, 30*time.Second, "--cluster", "check", b.p.Addr)
				return err == nil && strings.Contains(out, "[OK] All nodes agree about slots configuration."), out
			})
			out, err := runCLI(t, 60*time.Second, "--cluster", "reshard", b.p.Addr, "--cluster-from", from,
				"--cluster-to", to, "--cluster-slots", "10", "--cluster-yes")
			if err != nil || strings.Contains(out, "ERR") {
				t.Fatalf("--cluster reshard: %v\n%s", err, out)
			}
		}
		roles := func() string {
			name := strings.NewReplacer(idA, "A", idB, "B", "-", "primary")
			return "A:" + name.Replace(primaryOf(t, b.p.Addr, idA)) + " RA:" + name.Replace(primaryOf(t, b.p.Addr, idRA))
		}
		var out []string
		reshard(idA, idB)
		never(t, 3*time.Second, "A or RA moved with cluster-allow-replica-migration no", func() (bool, string) {
			r := roles()
			return r != "A:primary RA:A", r
		})
		out = append(out, "allow no: "+roles())
		reshard(idB, idA)
		eventually(t, 20*time.Second, "a did not get its slots back", func() (bool, string) {
			return roles() == "A:primary RA:A", roles()
		})
		for _, n := range []clusterNode{a, ra} {
			testutil.Dial(t, n.p.Addr).Do("CONFIG", "SET", "cluster-allow-replica-migration", "yes")
		}
		reshard(idA, idB)
		eventually(t, 20*time.Second, "A and RA do not follow B", func() (bool, string) {
			return roles() == "A:B RA:B", roles() + "\nRA sees:\n" + clusterNodesText(t, ra.p.Addr) + "A sees:\n" + clusterNodesText(t, a.p.Addr) + b.p.Output()
		})
		out = append(out, "allow yes: "+roles())
		return out
	}
	got := run(func() clusterNode { return startDirCorvid(t, 2000) })
	want := run(func() clusterNode { return startDirValkey(t, 2000) })
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("corvid:\n%s\nvalkey:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
