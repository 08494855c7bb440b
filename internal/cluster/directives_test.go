package cluster

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

func nm(c byte) string { return strings.Repeat(string(c), NameLen) }

// loadTest builds a Cluster from a nodes.conf text (names written as one
// repeated character, @X for nm('X')), with a clock the test moves.
func loadTest(t *testing.T, text string, opt Options) (*Cluster, *int64) {
	t.Helper()
	for c := byte('0'); c <= 'z'; c++ {
		text = strings.ReplaceAll(text, "@"+string(c)+" ", nm(c)+" ")
	}
	path := filepath.Join(t.TempDir(), "nodes.conf")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	opt.ConfigFile = path
	cl, err := New(opt)
	if err != nil {
		t.Fatal(err)
	}
	now := int64(1_000_000)
	cl.mu.Lock()
	cl.nowFn = func() int64 { return now }
	cl.mu.Unlock()
	return cl, &now
}

// TestReplicaNoFailover: a replica of a FAIL primary schedules an
// election, unless cluster-replica-no-failover is set (then it shows
// the nofailover flag and never starts one); a manual FORCE still does.
func TestReplicaNoFailover(t *testing.T) {
	const conf = `@a 127.0.0.1:7000@17000 master,fail - 0 0 1 connected 0-16383
@b 127.0.0.1:7001@17001 myself,slave @a 0 0 1 connected
vars currentEpoch 1 lastVoteEpoch 0
`
	for _, noFailover := range []bool{false, true} {
		t.Run(strconv.FormatBool(noFailover), func(t *testing.T) {
			cl, _ := loadTest(t, conf, Options{NoFailover: func() bool { return noFailover }})
			cl.mu.Lock()
			cl.applyMyAddress()
			cl.handleReplicaFailover()
			scheduled := cl.failover.authTime != 0
			cl.unlock()
			if scheduled == noFailover {
				t.Fatalf("election scheduled: %v with no-failover %v", scheduled, noFailover)
			}
			if got := strings.Contains(cl.Nodes(), " myself,slave,nofailover "+nm('a')); got != noFailover {
				t.Fatalf("nofailover flag %v:\n%s", got, cl.Nodes())
			}
			if noFailover {
				if e := cl.Failover(true, false); e != "" {
					t.Fatal(e)
				}
				cl.mu.Lock()
				started := cl.failover.authSent
				cl.mu.Unlock()
				if !started {
					t.Fatal("CLUSTER FAILOVER FORCE did not start an election")
				}
			}
		})
	}
}

// TestReplicaValidityFactor: a replica whose data is older than the
// ping period plus factor node timeouts (beyond the node timeout itself)
// does not schedule an election, and says why once; factor 0 turns the
// check off, and a manual FORCE skips it.
func TestReplicaValidityFactor(t *testing.T) {
	const conf = `@a 127.0.0.1:7000@17000 master,fail - 0 0 1 connected 0-16383
@b 127.0.0.1:7001@17001 myself,slave @a 0 0 1 connected
vars currentEpoch 1 lastVoteEpoch 0
`
	const timeout = 1000 // ms; ping period 10 s: the limit is 10 s + factor x 1 s past the timeout
	for _, tc := range []struct {
		factor    int
		age       int64
		scheduled bool
	}{
		{0, 1_000_000, true},
		{10, 20_000, true},  // 20 s - 1 s = 19 s <= 10 s + 10 s
		{10, 21_001, false}, // 20.001 s > 20 s
		{1, 11_000, true},   // 10 s <= 11 s
		{1, 12_001, false},
	} {
		t.Run(strconv.Itoa(tc.factor)+"/"+strconv.FormatInt(tc.age, 10), func(t *testing.T) {
			var logs []string
			cl, now := loadTest(t, conf, Options{
				NodeTimeout: func() int64 { return timeout },
				Logf: func(_ byte, f string, a ...any) {
					if strings.Contains(f, "unable to failover") {
						logs = append(logs, f)
					}
				},
			})
			cl.mu.Lock()
			cl.applyMyAddress()
			cl.nodes[nm('a')].FailTime = *now - 2*timeout
			cl.validity = validity{factor: tc.factor, period: 10, age: tc.age}
			cl.handleReplicaFailover()
			cl.handleReplicaFailover()
			scheduled := cl.failover.authTime != 0
			cl.unlock()
			if scheduled != tc.scheduled {
				t.Fatalf("election scheduled: %v, want %v", scheduled, tc.scheduled)
			}
			if want := map[bool]int{true: 0, false: 1}[tc.scheduled]; len(logs) != want {
				t.Fatalf("logged %d times, want %d: %q", len(logs), want, logs)
			}
			if !tc.scheduled {
				if e := cl.Failover(true, false); e != "" {
					t.Fatal(e)
				}
				cl.mu.Lock()
				started := cl.failover.authSent
				cl.mu.Unlock()
				if !started {
					t.Fatal("CLUSTER FAILOVER FORCE did not start an election")
				}
			}
		})
	}
}

// TestReplicaMigration: primary a has two working replicas, b lost its
// only one (FAIL); after b has been orphaned for 5 s the replica of a
// with the smallest name becomes b's replica, unless migration is not
// allowed, the barrier keeps it, or it is not the smallest.
func TestReplicaMigration(t *testing.T) {
	const conf = `@a 127.0.0.1:7000@17000 master - 0 0 1 connected 0-5000
@b 127.0.0.1:7001@17001 master - 0 0 2 connected 5001-10000
@c 127.0.0.1:7002@17002 master - 0 0 3 connected 10001-16383
@M 127.0.0.1:7003@17003 myself,slave @a 0 0 1 connected
@O 127.0.0.1:7004@17004 slave @a 0 0 1 connected
@3 127.0.0.1:7005@17005 slave,fail @b 0 0 2 connected
vars currentEpoch 3 lastVoteEpoch 0
`
	for _, tc := range []struct {
		name    string
		allow   bool
		barrier int
		other   byte // the other replica of a's name
		migrate bool
	}{
		{"migrates", true, 1, 'O', true},
		{"not allowed", false, 1, 'O', false},
		{"barrier", true, 2, 'O', false},
		{"not the smallest", true, 1, '1', false},
		{"barrier 0", true, 0, 'O', true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(conf, "@O ", "@"+string(tc.other)+" ", 1)
			cl, now := loadTest(t, text, Options{ReplicaMigration: func() (bool, int) { return tc.allow, tc.barrier }})
			step := func() {
				cl.mu.Lock()
				cl.replicaMigrationCron()
				cl.mu.Unlock()
			}
			step()
			*now += replicaMigrationDelay
			step()
			if p := cl.myself.Primary.Name; p != nm('a') {
				t.Fatalf("migrated before the delay to %s", p)
			}
			*now += 1
			step()
			cl.mu.Lock()
			got := cl.myself.Primary.Name == nm('b')
			role := cl.role
			cl.unlock()
			if got != tc.migrate {
				t.Fatalf("migrated %v, want %v:\n%s", got, tc.migrate, cl.Nodes())
			}
			if got && (role == nil || role.port != 7001) {
				t.Fatalf("the server was not told to replicate b: %+v", role)
			}
		})
	}
}

// TestLostLastSlot: a primary whose last slot another primary takes by a
// higher config epoch becomes its replica when that primary took exactly
// its slots (a failover) or when cluster-allow-replica-migration is yes;
// else it stays an empty primary.
func TestLostLastSlot(t *testing.T) {
	const conf = `@a 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 5
@b 127.0.0.1:7001@17001 master - 0 0 2 connected 0-4 6-16383
vars currentEpoch 2 lastVoteEpoch 0
`
	for _, tc := range []struct {
		name    string
		allow   bool
		all     bool // b claims every slot, else only slot 5
		replica bool
	}{
		{"resharded, allowed", true, true, true},
		{"resharded, not allowed", false, true, false},
		{"failover, not allowed", false, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, _ := loadTest(t, conf, Options{ReplicaMigration: func() (bool, int) { return tc.allow, 1 }})
			var slots [slotBytes]byte
			for s := range Slots {
				if tc.all || s == 5 {
					slots[s>>3] |= 1 << (s & 7)
				}
			}
			cl.mu.Lock()
			b := cl.nodes[nm('b')]
			b.ConfigEpoch = 3
			cl.updateSlotsConfigWith(b, 3, &slots)
			replica, numSlots := cl.myself.IsReplica() && cl.myself.Primary == b, cl.myself.NumSlots
			cl.unlock()
			if replica != tc.replica || numSlots != 0 {
				t.Fatalf("replica of b: %v (want %v), %d slots:\n%s", replica, tc.replica, numSlots, cl.Nodes())
			}
		})
	}
}

// TestBlacklistTTL: CLUSTER FORGET keeps the node out of gossip for
// cluster-blacklist-ttl seconds, and the forgotten-node extension
// carries what is left of it.
func TestBlacklistTTL(t *testing.T) {
	const conf = `@a 127.0.0.1:7000@17000 myself,master - 0 0 1 connected
@b 127.0.0.1:7001@17001 master - 0 0 2 connected
vars currentEpoch 2 lastVoteEpoch 0
`
	cl, now := loadTest(t, conf, Options{BlacklistTTL: func() int64 { return 3 }})
	if e := cl.Forget(nm('b')); e != "" {
		t.Fatal(e)
	}
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if cl.blacklist[nm('b')] != *now+3000 {
		t.Fatalf("expiry %d, want now+3000", cl.blacklist[nm('b')]-*now)
	}
	*now += 2999
	if !cl.blacklisted(nm('b')) {
		t.Fatal("not blacklisted before the TTL")
	}
	*now += 2
	if cl.blacklisted(nm('b')) {
		t.Fatal("still blacklisted after the TTL")
	}
}

// TestPingExtensionsExchanged: two in-process nodes; the first announces
// a human nodename and client addresses; the second learns them from its
// pings, shows each family's address in CLUSTER NODES, keeps them in
// nodes.conf (Valkey's aux fields and order), and forgets them when the
// first stops announcing them.
func TestPingExtensionsExchanged(t *testing.T) {
	var cls []*Cluster
	human, v4, v6 := "alpha", "10.1.2.3", "fd00::7"
	for i := range 2 {
		port := testutil.FreePort(t)
		opt := Options{IP: "127.0.0.1", Port: 7000 + i, BusPort: port, ListenBusPort: port,
			BindAddr: "127.0.0.1", NodeTimeout: func() int64 { return 2000 },
			ConfigFile: filepath.Join(t.TempDir(), "nodes.conf")}
		if i == 0 {
			opt.HumanName = func() string { return human }
			opt.ClientIPs = func() (string, string) { return v4, v6 }
			opt.PingInterval = func() int64 { return 100 }
		}
		cl, err := New(opt)
		if err != nil {
			t.Fatal(err)
		}
		if err := cl.Start(); err != nil {
			t.Fatal(err)
		}
		defer cl.Stop()
		cls = append(cls, cl)
	}
	cls[1].Meet("127.0.0.1", 7000, cls[0].opt.BusPort)
	id := cls[0].MyID()
	wait := func(what string, ok func(n *Node) bool) {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			cls[1].mu.Lock()
			n := cls[1].nodes[id]
			done := n != nil && ok(n)
			cls[1].mu.Unlock()
			if done {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s:\n%s", what, cls[1].Nodes())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	wait("the extensions were not learnt", func(n *Node) bool {
		return n.HumanName == human && n.ClientIPv4 == v4 && n.ClientIPv6 == v6
	})
	if s := cls[1].NodesFor(false, false); !strings.Contains(s, id+" 10.1.2.3:7000@") {
		t.Errorf("IPv4 client's CLUSTER NODES:\n%s", s)
	}
	if s := cls[1].NodesFor(false, true); !strings.Contains(s, id+" fd00::7:7000@") {
		t.Errorf("IPv6 client's CLUSTER NODES:\n%s", s)
	}
	if s := cls[1].NodesFor(false, false); strings.Contains(s, "alpha") {
		t.Errorf("CLUSTER NODES shows the human nodename:\n%s", s)
	}
	cls[1].SaveConfig()
	data, _ := os.ReadFile(cls[1].opt.ConfigFile)
	if !strings.Contains(string(data), id+" 127.0.0.1:7000@"+strconv.Itoa(cls[0].opt.BusPort)+
		",,client-ipv6=fd00::7,client-ipv4=10.1.2.3,tls-port=0,nodename=alpha,shard-id=") {
		t.Errorf("nodes.conf:\n%s", data)
	}
	cls[0].mu.Lock()
	human, v4, v6 = "", "", ""
	cls[0].mu.Unlock()
	wait("the extensions were not dropped", func(n *Node) bool {
		return n.HumanName == "" && n.ClientIPv4 == "" && n.ClientIPv6 == ""
	})
}

// TestLinkSendBufLimit: a link whose peer does not read holds its queued
// bytes; over cluster-link-sendbuf-limit the link is freed and counted.
func TestLinkSendBufLimit(t *testing.T) {
	const conf = `@a 127.0.0.1:7000@17000 myself,master - 0 0 1 connected
@b 127.0.0.1:7001@17001 master - 0 0 2 connected
vars currentEpoch 2 lastVoteEpoch 0
`
	cl, _ := loadTest(t, conf, Options{})
	ours, theirs := net.Pipe() // nobody reads theirs
	defer theirs.Close()
	cl.mu.Lock()
	b := cl.nodes[nm('b')]
	l := cl.newLink(b, false)
	l.conn, l.connected = ours, true
	b.link = l
	cl.startLink(l)
	cl.sendPing(l, TypePing)
	cl.sendPing(l, TypePing)
	queued := l.queued.Load()
	cl.freeLinksOverLimit(b, queued) // at the limit: kept
	kept := b.link == l
	cl.freeLinksOverLimit(b, queued-1)
	freed := b.link == nil
	cl.mu.Unlock()
	if queued < 2*headerLen || !kept || !freed {
		t.Fatalf("queued %d, kept at the limit %v, freed over it %v", queued, kept, freed)
	}
	if info := cl.Info(); !strings.Contains(info, "total_cluster_links_buffer_limit_exceeded:1\r\n") {
		t.Fatal(info)
	}
	cl.wg.Wait()
}

// TestSaveDeferred: a client's change is on disk when its call returns;
// a change from the bus is written by the saver soon after, without the
// caller waiting; an epoch change is written before anything is sent.
func TestSaveDeferred(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nodes.conf")
	cl, err := New(Options{ConfigFile: path, Port: 7000, BusPort: 17000})
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Start(); err != nil {
		t.Fatal(err)
	}
	defer cl.Stop()
	read := func() string {
		b, _ := os.ReadFile(path)
		return string(b)
	}
	if e := cl.AddSlots([]int{7}); e != "" {
		t.Fatal(e)
	}
	if !strings.Contains(read(), " connected 7\n") {
		t.Fatalf("ADDSLOTS returned before the save:\n%s", read())
	}
	cl.mu.Lock()
	cl.myself.HumanName = "bus-change"
	cl.dirtySave = true
	cl.unlock()
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(read(), "nodename=bus-change") {
		if time.Now().After(deadline) {
			t.Fatalf("the saver did not save:\n%s", read())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cl.mu.Lock()
	cl.currentEpoch = 42
	cl.dirtySave, cl.dirtyFsync = true, true
	cl.durable()
	text := read()
	cl.mu.Unlock()
	if !strings.Contains(text, "vars currentEpoch 42 ") {
		t.Fatalf("an epoch change was not saved before sending:\n%s", text)
	}
	if tmps, _ := filepath.Glob(path + ".tmp-*"); len(tmps) != 0 {
		t.Errorf("temporary files left: %v", tmps)
	}
}

// TestPublishLightHeader: PUBLISH goes with the light header to a node
// whose PING said it takes it, with the full header to one whose did
// not; this node says it takes it in its own headers.
func TestPublishLightHeader(t *testing.T) {
	const conf = `@a 127.0.0.1:7000@17000 myself,master - 0 0 1 connected
@b 127.0.0.1:7001@17001 master - 0 0 2 connected
@c 127.0.0.1:7002@17002 master - 0 0 3 connected
vars currentEpoch 3 lastVoteEpoch 0
`
	cl, _ := loadTest(t, conf, Options{})
	got := map[byte]chan *Message{}
	cl.mu.Lock()
	if cl.header(TypePing).Flags&FlagLightPublish == 0 {
		t.Error("this node does not announce the light header")
	}
	for _, c := range []byte{'b', 'c'} {
		n := cl.nodes[nm(c)]
		// What the node's PING said.
		flags := uint16(FlagPrimary)
		if c == 'b' {
			flags |= FlagLightPublish
		}
		var ip [ipLen]byte
		copy(ip[:], "127.0.0.1")
		ping := &Message{Header: Header{Type: TypePing, Sender: name(nm(c)), Port: uint16(n.Port), CPort: uint16(n.CPort),
			Flags: flags, ConfigEpoch: n.ConfigEpoch, CurrentEpoch: 3, MyIP: ip}}
		cl.processPing(&link{inbound: true, freed: true}, ping, n, cl.now())

		ours, theirs := net.Pipe()
		defer theirs.Close()
		l := cl.newLink(n, false)
		l.conn, l.connected = ours, true
		n.link = l
		cl.startLink(l)
		ch := make(chan *Message, 4)
		got[c] = ch
		go func() {
			defer close(ch)
			buf := make([]byte, 1<<16)
			have := 0
			for {
				k, err := theirs.Read(buf[have:])
				if err != nil {
					return
				}
				have += k
				for {
					ml, err := MessageLen(buf[:have])
					if err != nil || have < ml {
						break
					}
					m, _ := Decode(buf[:ml])
					ch <- m
					copy(buf, buf[ml:have])
					have -= ml
				}
			}
		}()
	}
	cl.mu.Unlock()
	cl.Publish(false, []byte("ch"), []byte("hello"))
	for c, light := range map[byte]bool{'b': true, 'c': false} {
		select {
		case m := <-got[c]:
			if m == nil || m.Type != TypePublish || m.Light != light || string(m.Channel) != "ch" || string(m.Payload) != "hello" {
				t.Errorf("%c got %+v, want light %v", c, m, light)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("%c got nothing", c)
		}
	}
	cl.mu.Lock()
	for _, n := range cl.nodes {
		cl.freeLink(n.link)
	}
	cl.mu.Unlock()
	cl.wg.Wait()
}

// TestSetSlotLastSlot: CLUSTER SETSLOT <slot> NODE <other> that takes
// this primary's last slot makes it the other's replica, with
// cluster-allow-replica-migration (else it stays an empty primary).
func TestSetSlotLastSlot(t *testing.T) {
	const conf = `@a 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 5
@b 127.0.0.1:7001@17001 master - 0 0 2 connected 0-4 6-16383
vars currentEpoch 2 lastVoteEpoch 0
`
	for _, allow := range []bool{true, false} {
		t.Run(strconv.FormatBool(allow), func(t *testing.T) {
			cl, _ := loadTest(t, conf, Options{ReplicaMigration: func() (bool, int) { return allow, 1 }})
			var roleIP string
			cl.opt.OnRoleChange = func(ip string, port int) { roleIP = ip + ":" + strconv.Itoa(port) }
			if e := cl.SetSlot(5, "node", nm('b'), false); e != "" {
				t.Fatal(e)
			}
			replica := cl.IsReplica()
			if replica != allow || allow && roleIP != "127.0.0.1:7001" {
				t.Fatalf("replica %v (role change %q), want %v:\n%s", replica, roleIP, allow, cl.Nodes())
			}
		})
	}
}

// TestBumpEpochAboveCurrent: an epoch bumped without consensus ends above
// the current epoch too, not only above the config epochs known
// (clusterGetMaxEpoch): a node that has not yet heard another's new
// config epoch but has seen the current epoch it came with.
func TestBumpEpochAboveCurrent(t *testing.T) {
	for _, tc := range []struct {
		conf, want string
	}{
		{"@a 127.0.0.1:7000@17000 myself,master - 0 0 2 connected\n@b 127.0.0.1:7001@17001 master - 0 0 1 connected\nvars currentEpoch 3 lastVoteEpoch 0\n", "BUMPED 4"},
		{"@a 127.0.0.1:7000@17000 myself,master - 0 0 3 connected\n@b 127.0.0.1:7001@17001 master - 0 0 1 connected\nvars currentEpoch 3 lastVoteEpoch 0\n", "STILL 3"},
		{"@a 127.0.0.1:7000@17000 myself,master - 0 0 0 connected\nvars currentEpoch 0 lastVoteEpoch 0\n", "BUMPED 1"},
	} {
		cl, _ := loadTest(t, tc.conf, Options{})
		if got := cl.BumpEpoch(); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.conf, got, tc.want)
		}
	}
}
