package cluster

import (
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// sortedLines sorts a nodes.conf's node lines (Valkey writes them in its
// dict's order) and keeps the vars line last.
func sortedLines(s string) []string {
	var nodes, vars []string
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		if strings.HasPrefix(l, "vars ") {
			vars = append(vars, l)
		} else {
			nodes = append(nodes, l)
		}
	}
	sort.Strings(nodes)
	return append(nodes, vars...)
}

// TestNodesConfRoundTrip loads each nodes.conf a real valkey-server wrote
// and writes it back: the same lines, but for the ping/pong times (Valkey
// keeps only whether they were set, and sets them to the load time) and
// the link state (a loaded node has no link yet).
func TestNodesConfRoundTrip(t *testing.T) {
	files, _ := filepath.Glob("testdata/nodesconf/*.conf")
	if len(files) == 0 {
		t.Fatal("no testdata")
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			cl := &Cluster{nodes: map[string]*Node{}, migrating: map[int]*Node{}, importing: map[int]*Node{},
				nowFn: func() int64 { return 1234 }, opt: Options{NodeTimeout: func() int64 { return 15000 }}}
			if err := cl.parseConfig(string(data)); err != nil {
				t.Fatal(err)
			}
			want, got := sortedLines(string(data)), sortedLines(string(cl.configText()))
			if len(want) != len(got) {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for i := range want {
				w, g := strings.Fields(want[i]), strings.Fields(got[i])
				if len(w) >= 8 && w[0] != "vars" {
					// ping-sent and pong-received: set or not.
					for _, j := range []int{4, 5} {
						if (w[j] == "0") != (g[j] == "0") {
							t.Errorf("line %d field %d: got %s want %s", i, j, g[j], w[j])
						}
						w[j], g[j] = "", ""
					}
					// the link state is the running node's, not loaded
					w[7], g[7] = "", ""
				}
				if strings.Join(w, " ") != strings.Join(g, " ") {
					t.Errorf("line %d:\n got %s\nwant %s", i, got[i], want[i])
				}
			}
			if cl.myself == nil || cl.currentEpoch != 3 {
				t.Errorf("myself %v currentEpoch %d", cl.myself, cl.currentEpoch)
			}
		})
	}
}

// TestSaveLoad saves a fresh node's configuration and loads it again.
func TestSaveLoad(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodes.conf")
	cl, err := New(Options{ConfigFile: path, Port: 7000, BusPort: 17000})
	if err != nil {
		t.Fatal(err)
	}
	if e := cl.AddSlots([]int{0, 1, 2, 100}); e != "" {
		t.Fatal(e)
	}
	if e := cl.AddSlots([]int{2}); e != "Slot 2 is already busy" {
		t.Fatal(e)
	}
	cl.SetConfigEpoch(5)
	cl2, err := New(Options{ConfigFile: path, Port: 7000, BusPort: 17000})
	if err != nil {
		t.Fatal(err)
	}
	if cl2.MyID() != cl.MyID() || cl2.Nodes() != cl.Nodes() {
		t.Fatalf("reloaded:\n%s\nwas:\n%s", cl2.Nodes(), cl.Nodes())
	}
	if !strings.Contains(cl.Nodes(), ":7000@17000 myself,master - 0 0 5 connected 0-2 100") {
		t.Fatal(cl.Nodes())
	}
}

// TestGossipThreeNodes joins three in-process nodes with MEETs, gives
// each a third of the slots, and waits until every node routes every
// slot and the cluster is ok.
func TestGossipThreeNodes(t *testing.T) {
	var cls []*Cluster
	for i := range 3 {
		port := testutil.FreePort(t)
		cl, err := New(Options{IP: "127.0.0.1", Port: 7000 + i, BusPort: port, ListenBusPort: port,
			BindAddr: "127.0.0.1", NodeTimeout: func() int64 { return 2000 }})
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.Start(); err != nil {
			t.Fatal(err)
		}
		defer cl.Stop()
		cls = append(cls, cl)
	}
	per := Slots / 3
	for i, cl := range cls {
		var s []int
		for j := i * per; j < (i+1)*per || i == 2 && j < Slots; j++ {
			s = append(s, j)
		}
		cl.AddSlots(s)
		cl.SetConfigEpoch(int64(i + 1))
	}
	cls[0].Meet("127.0.0.1", 7001, cls[1].opt.BusPort)
	cls[0].Meet("127.0.0.1", 7002, cls[2].opt.BusPort)
	waitConverged(t, cls, 15*time.Second, "the cluster did not converge")
	for _, cl := range cls {
		r := cl.Routing()
		if got := r.Nodes[r.Owner[Slots-1]-1].Port; got != 7002 {
			t.Errorf("slot 16383 routed to %d", got)
		}
	}
}

// TestBusBadInput: a peer that sends something else than the bus
// protocol is disconnected; a PING from an unknown node gets a PONG (and
// teaches it nothing); the node goes on.
func TestBusBadInput(t *testing.T) {
	port := testutil.FreePort(t)
	cl, err := New(Options{IP: "127.0.0.1", Port: 7000, BusPort: port, ListenBusPort: port, BindAddr: "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatalf("read %d bytes, want the link closed", n)
	}
	c.Close()

	c, err = net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ping := Message{Header: Header{Type: TypePing, Sender: name("0123456789012345678901234567890123456789"), Port: 1, CPort: 2}}
	c.Write(ping.Encode(nil))
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, FullLen*2)
	got := 0
	for {
		n, err := c.Read(buf[got:])
		if err != nil {
			t.Fatal(err)
		}
		got += n
		if l, err := MessageLen(buf[:got]); err == nil && got >= l {
			m, err := Decode(buf[:l])
			if err != nil || m.Type != TypePong || string(m.Sender[:]) != cl.MyID() {
				t.Fatalf("reply %+v, %v", m, err)
			}
			break
		}
	}
	if cl.KnownNodes() != 1 {
		t.Errorf("a PING from an unknown node added it: %s", cl.Nodes())
	}
}

// waitConverged waits until every node of cls is ok and knows all of
// them, or fails with msg (and the nodes' views) after d.
func waitConverged(t *testing.T, cls []*Cluster, d time.Duration, msg string) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		ok := true
		for _, cl := range cls {
			if !cl.Routing().OK || cl.KnownNodes() != len(cls) {
				ok = false
			}
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			for _, cl := range cls {
				t.Logf("%s\n%s", cl.Info(), cl.Nodes())
			}
			t.Fatal(msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSlotRanges: the byte-skipping scan finds the same ranges as a walk
// over every slot, at the bitmap's edges, across byte boundaries and on
// random maps.
func TestSlotRanges(t *testing.T) {
	walk := func(n *Node) [][2]int {
		var rs [][2]int
		for s := 0; s < Slots; s++ {
			if !n.hasSlot(s) {
				continue
			}
			if len(rs) > 0 && rs[len(rs)-1][1] == s-1 {
				rs[len(rs)-1][1] = s
			} else {
				rs = append(rs, [2]int{s, s})
			}
		}
		return rs
	}
	set := func(ranges ...[2]int) *Node {
		n := &Node{}
		for _, r := range ranges {
			for s := r[0]; s <= r[1]; s++ {
				n.slots[s>>3] |= 1 << (s & 7)
			}
		}
		return n
	}
	cases := map[string]*Node{
		"empty":       set(),
		"all":         set([2]int{0, Slots - 1}),
		"first":       set([2]int{0, 0}),
		"last":        set([2]int{Slots - 1, Slots - 1}),
		"byte edges":  set([2]int{7, 8}, [2]int{15, 15}, [2]int{16, 23}, [2]int{40, 4095}),
		"to the end":  set([2]int{5461, Slots - 1}),
		"alternating": set([2]int{1, 1}, [2]int{3, 3}, [2]int{5, 9}, [2]int{11, 11}),
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 50 {
		n, on := &Node{}, false
		for s := range Slots {
			// Runs of mean length 1+i*20: the state flips with that
			// probability's inverse.
			if rng.IntN(1+i*20) == 0 {
				on = !on
			}
			if on {
				n.slots[s>>3] |= 1 << (s & 7)
			}
		}
		cases["random "+strconv.Itoa(i)] = n
	}
	for name, n := range cases {
		got, want := n.slotRanges(), walk(n)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
