package clusterup

import (
	"context"
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/corvid-kv/corvid/internal/bench/peer"
	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// MaxNodes bounds a cluster's size (each node is a process on this machine).
const MaxNodes = 128

// Range is the slots [Start, End] of one node.
type Range struct{ Start, End int }

func (r Range) String() string { return fmt.Sprintf("%d-%d", r.Start, r.End) }

// Split divides the 16384 slots into n contiguous ranges whose sizes
// differ by at most one, as valkey-cli --cluster create does: range i
// ends at round((i+1) * 16384 / n) - 1 (for 3 nodes: 0-5460, 5461-10922,
// 10923-16383).
func Split(n int) ([]Range, error) {
	if n < 1 || n > MaxNodes {
		return nil, fmt.Errorf("a cluster needs 1..%d nodes, got %d", MaxNodes, n)
	}
	out := make([]Range, n)
	start := 0
	for i := range out {
		// round half away from zero of (i+1)*Slots/n, in integers
		end := (2*(i+1)*wire.Slots+n)/(2*n) - 1
		if i == n-1 {
			end = wire.Slots - 1
		}
		out[i] = Range{start, end}
		start = end + 1
	}
	return out, nil
}

// Node is one cluster-enabled server: its client address and bus port.
type Node struct {
	Addr    string // host:port
	BusPort int
}

// Options are a cluster's settings.
type Options struct {
	Peer        peer.Options  // io-threads and extra server options, as standalone servers get
	NodeTimeout int           // cluster-node-timeout in ms; 0: 15000 (the servers' default)
	FormTimeout time.Duration // how long Form waits for the cluster; 0: 60 s
}

func (o Options) nodeTimeout() int {
	if o.NodeTimeout > 0 {
		return o.NodeTimeout
	}
	return 15000
}

func (o Options) formTimeout() time.Duration {
	if o.FormTimeout > 0 {
		return o.FormTimeout
	}
	return 60 * time.Second
}

// Args are the cluster options of a node whose bus listens on busPort;
// the nodes.conf is relative to the node's own directory (--dir).
func Args(busPort, nodeTimeoutMs int) []string {
	return []string{"--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
		"--cluster-port", strconv.Itoa(busPort), "--cluster-node-timeout", strconv.Itoa(nodeTimeoutMs)}
}

// Cluster is a running, formed cluster.
type Cluster struct {
	Server peer.Server
	Procs  []*peer.Proc // one per node, in slot order
	Nodes  []Node
	once   sync.Once
}

// Addrs are the nodes' client addresses, in slot order.
func (c *Cluster) Addrs() []string {
	out := make([]string, len(c.Nodes))
	for i, n := range c.Nodes {
		out[i] = n.Addr
	}
	return out
}

// Stop stops every node (at once) and removes their directories.
func (c *Cluster) Stop() {
	c.once.Do(func() { stopAll(c.Procs) })
}

func stopAll(ps []*peer.Proc) {
	var wg sync.WaitGroup
	for _, p := range ps {
		wg.Add(1)
		go func() { defer wg.Done(); p.Stop() }()
	}
	wg.Wait()
}

// Start runs n cluster-enabled primaries of s, each on a free loopback
// port with a free bus port, its own temporary directory and nodes.conf,
// no persistence (peer.Options.Args), and forms them into one cluster.
func Start(ctx context.Context, s peer.Server, n int, o Options) (*Cluster, error) {
	if _, err := Split(n); err != nil {
		return nil, err
	}
	c := &Cluster{Server: s}
	for i := 0; i < n; i++ {
		p, bus, err := startNode(ctx, s, o)
		if err != nil {
			stopAll(c.Procs)
			return nil, fmt.Errorf("%s cluster node %d of %d: %w", s.Name, i+1, n, err)
		}
		c.Procs = append(c.Procs, p)
		c.Nodes = append(c.Nodes, Node{Addr: p.Addr, BusPort: bus})
	}
	if err := Form(ctx, c.Nodes, o.formTimeout()); err != nil {
		var logs []string
		for _, p := range c.Procs {
			logs = append(logs, fmt.Sprintf("--- %s log:\n%s", p.Addr, tail(p.Log(), 600)))
		}
		stopAll(c.Procs)
		return nil, fmt.Errorf("%s: %w\n%s", s.Name, err, strings.Join(logs, "\n"))
	}
	return c, nil
}

// startNode starts one node; a bus port taken before the node binds it
// is retried with another.
func startNode(ctx context.Context, s peer.Server, o Options) (*peer.Proc, int, error) {
	var last error
	for attempt := 0; attempt < 3; attempt++ {
		bus, err := peer.FreePort()
		if err != nil {
			return nil, 0, err
		}
		po := o.Peer
		po.Extra = append(append([]string(nil), o.Peer.Extra...), Args(bus, o.nodeTimeout())...)
		p, err := peer.Start(ctx, s, po)
		if err == nil {
			return p, bus, nil
		}
		last = err
		if ctx.Err() != nil {
			break
		}
	}
	return nil, 0, last
}

// Form makes nodes (fresh cluster-enabled servers that know no other node
// and own no slot) one cluster of primaries: node i gets Split(n)[i] by
// CLUSTER ADDSLOTSRANGE and config epoch i+1, the first node meets every
// other, and Form waits (at most timeout) until every node reports
// cluster_state:ok, knows all n nodes and returns the planned slot map.
func Form(ctx context.Context, nodes []Node, timeout time.Duration) error {
	plan, err := Split(len(nodes))
	if err != nil {
		return err
	}
	conns := make([]*wire.Conn, len(nodes))
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.Close()
			}
		}
	}()
	for i, n := range nodes {
		c, err := wire.Dial("tcp", n.Addr, 5*time.Second)
		if err != nil {
			return fmt.Errorf("cluster node %s: %w", n.Addr, err)
		}
		conns[i] = c
	}
	do := func(i int, args ...string) error {
		c := conns[i]
		_ = c.SetDeadline(time.Now().Add(10 * time.Second))
		v, err := c.Do(args...)
		if err == nil {
			err = v.Err()
		}
		if err != nil {
			return fmt.Errorf("cluster node %s: %s: %w", nodes[i].Addr, strings.Join(args, " "), err)
		}
		return nil
	}
	for i, r := range plan {
		if err := do(i, "CLUSTER", "ADDSLOTSRANGE", strconv.Itoa(r.Start), strconv.Itoa(r.End)); err != nil {
			return err
		}
		// Distinct epochs spare the nodes the collision resolution that
		// equal ones start (valkey-cli does the same).
		if err := do(i, "CLUSTER", "SET-CONFIG-EPOCH", strconv.Itoa(i+1)); err != nil {
			return err
		}
	}
	for i := 1; i < len(nodes); i++ {
		host, port, err := net.SplitHostPort(nodes[i].Addr)
		if err != nil {
			return fmt.Errorf("cluster node %q: %w", nodes[i].Addr, err)
		}
		if err := do(0, "CLUSTER", "MEET", host, port, strconv.Itoa(nodes[i].BusPort)); err != nil {
			return err
		}
	}
	want := Expected(nodes, plan)
	deadline := time.Now().Add(timeout)
	for {
		var problems []string
		for i, n := range nodes {
			if p := nodeState(conns[i], n.Addr, len(nodes), want); p != "" {
				problems = append(problems, n.Addr+": "+p)
			}
		}
		if len(problems) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("cluster of %d nodes not formed within %s: %s", len(nodes), timeout, strings.Join(problems, "; "))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Expected is the slot map Form waits for, in SlotMap's form.
func Expected(nodes []Node, plan []Range) []string {
	var out []string
	for i, r := range plan {
		out = append(out, fmt.Sprintf("%d-%d %s", r.Start, r.End, nodes[i].Addr))
	}
	sort.Strings(out)
	return out
}

// SlotMap renders CLUSTER SLOTS ranges as sorted "start-end host:port"
// lines, so two nodes' views compare as strings.
func SlotMap(rs []wire.SlotRange) []string {
	var out []string
	for _, r := range rs {
		out = append(out, fmt.Sprintf("%d-%d %s", r.Start, r.End, r.Addr))
	}
	sort.Strings(out)
	return out
}

// nodeState is "" when the node is ready, else what is missing.
func nodeState(c *wire.Conn, addr string, n int, want []string) string {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	v, err := c.Do("CLUSTER", "INFO")
	if err == nil {
		err = v.Err()
	}
	if err != nil {
		return "CLUSTER INFO: " + err.Error()
	}
	if p := InfoProblem(v.Str, n); p != "" {
		return p
	}
	v, err = c.Do("CLUSTER", "SLOTS")
	if err != nil {
		return "CLUSTER SLOTS: " + err.Error()
	}
	rs, err := wire.ParseClusterSlots(v, addr)
	if err != nil {
		return err.Error()
	}
	if got := SlotMap(rs); strings.Join(got, ", ") != strings.Join(want, ", ") {
		return "slot map " + strings.Join(got, ", ") + ", want " + strings.Join(want, ", ")
	}
	return ""
}

// InfoProblem reads a CLUSTER INFO reply: "" when the node reports
// cluster_state:ok with every slot assigned and n known nodes, else what
// it reports instead.
func InfoProblem(info string, n int) string {
	f := map[string]string{}
	for _, l := range strings.Split(info, "\n") {
		if k, v, ok := strings.Cut(strings.TrimSpace(l), ":"); ok {
			f[k] = v
		}
	}
	var p []string
	if f["cluster_state"] != "ok" {
		p = append(p, "cluster_state:"+orNone(f["cluster_state"]))
	}
	if s := f["cluster_slots_assigned"]; s != strconv.Itoa(wire.Slots) {
		p = append(p, fmt.Sprintf("slots assigned %s of %d", orNone(s), wire.Slots))
	}
	if k := f["cluster_known_nodes"]; k != strconv.Itoa(n) {
		p = append(p, fmt.Sprintf("knows %s of %d nodes", orNone(k), n))
	}
	return strings.Join(p, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
