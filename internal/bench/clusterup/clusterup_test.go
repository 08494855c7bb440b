package clusterup

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/bench/wire"
	"github.com/corvid-kv/corvid/internal/server"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestMain lets the test binary serve as a Corvid node (peer.Self), as
// cmd/corvid-bench does.
func TestMain(m *testing.M) {
	if os.Getenv(peer.ServeEnv) != "" {
		os.Exit(server.ServeArgs(os.Args[1:]))
	}
	os.Exit(m.Run())
}

func TestSplit(t *testing.T) {
	three, err := Split(3)
	if err != nil {
		t.Fatal(err)
	}
	// valkey-cli --cluster create's division of three primaries.
	if got := strings.Join([]string{three[0].String(), three[1].String(), three[2].String()}, " "); got != "0-5460 5461-10922 10923-16383" {
		t.Errorf("Split(3) = %s", got)
	}
	for n := 1; n <= MaxNodes; n++ {
		rs, err := Split(n)
		if err != nil || len(rs) != n {
			t.Fatalf("Split(%d): %v %v", n, rs, err)
		}
		lo, hi := wire.Slots, 0
		next := 0
		for _, r := range rs {
			if r.Start != next || r.End < r.Start {
				t.Fatalf("Split(%d): %v not contiguous at %d", n, rs, next)
			}
			size := r.End - r.Start + 1
			lo, hi = min(lo, size), max(hi, size)
			next = r.End + 1
		}
		if next != wire.Slots || hi-lo > 1 {
			t.Fatalf("Split(%d): ends at %d, sizes %d..%d", n, next, lo, hi)
		}
	}
	for _, n := range []int{0, -1, MaxNodes + 1} {
		if _, err := Split(n); err == nil {
			t.Errorf("Split(%d) accepted", n)
		}
	}
}

func TestInfoProblem(t *testing.T) {
	ok := "cluster_enabled:1\r\ncluster_state:ok\r\ncluster_slots_assigned:16384\r\ncluster_known_nodes:3\r\n"
	if p := InfoProblem(ok, 3); p != "" {
		t.Errorf("ok info: %q", p)
	}
	if p := InfoProblem(ok, 4); p != "knows 3 of 4 nodes" {
		t.Errorf("known nodes: %q", p)
	}
	bad := "cluster_state:fail\r\ncluster_slots_assigned:5461\r\ncluster_known_nodes:1\r\n"
	if p := InfoProblem(bad, 3); p != "cluster_state:fail, slots assigned 5461 of 16384, knows 1 of 3 nodes" {
		t.Errorf("fail info: %q", p)
	}
	if p := InfoProblem("", 1); !strings.Contains(p, "cluster_state:(none)") {
		t.Errorf("empty info: %q", p)
	}
}

func TestSlotMapAndExpected(t *testing.T) {
	nodes := []Node{{Addr: "127.0.0.1:7001"}, {Addr: "127.0.0.1:7002"}}
	plan, _ := Split(2)
	want := Expected(nodes, plan)
	got := SlotMap([]wire.SlotRange{{Start: 8192, End: 16383, Addr: "127.0.0.1:7002"}, {Start: 0, End: 8191, Addr: "127.0.0.1:7001"}})
	if strings.Join(got, ",") != strings.Join(want, ",") || want[0] != "0-8191 127.0.0.1:7001" {
		t.Errorf("got %v want %v", got, want)
	}
}

// checkCluster asserts every node serves the planned map and accepts a
// write for a key it owns.
func checkCluster(t *testing.T, c *Cluster) {
	t.Helper()
	plan, _ := Split(len(c.Nodes))
	want := Expected(c.Nodes, plan)
	for _, n := range c.Nodes {
		conn, err := wire.Dial("tcp", n.Addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		v, err := conn.Do("CLUSTER", "SLOTS")
		if err != nil {
			t.Fatal(err)
		}
		rs, err := wire.ParseClusterSlots(v, n.Addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := SlotMap(rs); strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: slots %v, want %v", n.Addr, got, want)
		}
		conn.Close()
	}
	// "a" hashes to slot 15495 (the last node's); "b" to 3300 (the first's).
	for _, k := range []struct {
		key  string
		node int
	}{{"a", len(c.Nodes) - 1}, {"b", 0}} {
		conn, err := wire.Dial("tcp", c.Nodes[k.node].Addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		if v, err := conn.Do("SET", k.key, "1"); err != nil || v.Err() != nil || v.Str != "OK" {
			t.Errorf("SET %s on %s: %+v %v", k.key, c.Nodes[k.node].Addr, v, err)
		}
		other := c.Nodes[(k.node+1)%len(c.Nodes)].Addr
		conn.Close()
		if conn, err = wire.Dial("tcp", other, 5*time.Second); err != nil {
			t.Fatal(err)
		}
		_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
		v, _ := conn.Do("GET", k.key)
		if e := v.Err(); e == nil || !strings.HasPrefix(e.Error(), "MOVED ") {
			t.Errorf("GET %s on %s: %+v, want MOVED", k.key, other, v)
		}
		conn.Close()
	}
}

// Three Corvid primaries (this test binary as child processes) formed
// without valkey-cli.
func TestStartCorvid(t *testing.T) {
	c, err := Start(context.Background(), peer.Server{Name: "corvid", Path: peer.Self}, 3, Options{FormTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	if len(c.Procs) != 3 || len(c.Addrs()) != 3 {
		t.Fatalf("nodes %v", c.Addrs())
	}
	checkCluster(t, c)
	c.Stop()
	c.Stop() // idempotent
}

func TestStartValkey(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("valkey-server not found")
	}
	c, err := Start(context.Background(), peer.Server{Name: "valkey", Path: testutil.ValkeyServerLookup()}, 2, Options{FormTimeout: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	checkCluster(t, c)
}

// A node that is not cluster-enabled fails at once with its address; a
// cluster whose nodes cannot meet (a wrong bus port) fails when the
// bounded wait ends, naming what each node reports.
func TestFormErrors(t *testing.T) {
	ctx := context.Background()
	plain, err := peer.Start(ctx, peer.Server{Name: "corvid", Path: peer.Self}, peer.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Stop()
	err = Form(ctx, []Node{{Addr: plain.Addr}}, time.Second)
	if err == nil || !strings.Contains(err.Error(), plain.Addr) || !strings.Contains(err.Error(), "ADDSLOTSRANGE") {
		t.Errorf("not cluster-enabled: %v", err)
	}

	var procs []*peer.Proc
	defer func() { stopAll(procs) }()
	var nodes []Node
	for range 2 {
		p, bus, err := startNode(ctx, peer.Server{Name: "corvid", Path: peer.Self}, Options{})
		if err != nil {
			t.Fatal(err)
		}
		procs = append(procs, p)
		nodes = append(nodes, Node{Addr: p.Addr, BusPort: bus})
	}
	closed, _ := peer.FreePort()
	nodes[1].BusPort = closed // MEET goes nowhere
	start := time.Now()
	err = Form(ctx, nodes, 2*time.Second)
	if err == nil || !strings.Contains(err.Error(), "not formed within 2s") || !strings.Contains(err.Error(), "knows 1 of 2 nodes") {
		t.Errorf("unreachable bus: %v", err)
	}
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("bounded wait took %s", d)
	}
}
