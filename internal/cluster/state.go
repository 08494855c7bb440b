package cluster

import (
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Cluster states (CLUSTER_OK, CLUSTER_FAIL).
const (
	StateOK   = 0
	StateFail = 1
)

// Node is what this node knows of one cluster node, its own included
// (Valkey's clusterNode). Every field is guarded by Cluster.mu.
type Node struct {
	Name      string // 40 hex characters
	IP        string // "" while unknown (myself before a MEET)
	Port      int    // client port
	PPort     int    // the other client port: TLS, or TCP with tls-cluster (tls.go)
	CPort     int    // bus port
	Hostname  string
	HumanName string
	// ClientIPv4 and ClientIPv6: the addresses it announces to clients
	// of each family (cluster-announce-client-ipv4/-ipv6), "" for none.
	ClientIPv4, ClientIPv6 string
	Flags                  uint16
	ShardID                string
	// Primary is this replica's primary (PrimaryName when it is not known
	// yet); Replicas the replicas of this primary.
	Primary     *Node
	PrimaryName string
	Replicas    []*Node

	CTime        int64 // ms: created
	PingSent     int64 // ms: the PING in flight, 0 for none
	PongReceived int64 // ms
	DataReceived int64 // ms: the last message from it
	FailTime     int64 // ms: marked FAIL
	votedTime    int64 // ms: this primary last voted for a replica of this node
	orphanedTime int64 // ms: since when this primary has had no working replica (0: it has)
	ConfigEpoch  uint64
	ReplOffset   uint64

	slots    [slotBytes]byte
	NumSlots int
	// failReports: who reported this node failing (PFAIL or FAIL in
	// their gossip), and when (ms).
	failReports map[*Node]int64

	link   *link // outbound: ours, to it
	inLink *link // inbound: its, to us
}

func (n *Node) hasSlot(s int) bool { return n.slots[s>>3]&(1<<(s&7)) != 0 }

// IsPrimary and the rest read the flags.
func (n *Node) IsPrimary() bool   { return n.Flags&FlagPrimary != 0 }
func (n *Node) IsReplica() bool   { return n.Flags&FlagReplica != 0 }
func (n *Node) IsMyself() bool    { return n.Flags&FlagMyself != 0 }
func (n *Node) InHandshake() bool { return n.Flags&FlagHandshake != 0 }
func (n *Node) Failed() bool      { return n.Flags&FlagFail != 0 }
func (n *Node) TimedOut() bool    { return n.Flags&FlagPFail != 0 }

// Route is one node as routing needs it: immutable once published.
type Route struct {
	Name     string
	IP       string
	Hostname string
	Port     int
	// TCPPort and TLSPort are the node's client ports by transport
	// (tls.go): a client is given the one of its own connection.
	TCPPort, TLSPort int
	// ClientIPv4 and ClientIPv6 replace IP for clients of that address
	// family when set (ClientIP).
	ClientIPv4, ClientIPv6 string
}

// ClientIP is the address shown to a client (clusterNodeIp): the
// announced client address of the client's family, else IP.
func (r *Route) ClientIP(ipv6 bool) string {
	if ipv6 && r.ClientIPv6 != "" {
		return r.ClientIPv6
	}
	if !ipv6 && r.ClientIPv4 != "" {
		return r.ClientIPv4
	}
	return r.IP
}

// Routing is an immutable snapshot of slot ownership, swapped whole
// (Cluster.Routing) whenever an owner, an address or the cluster state
// changes. Owner[slot] is 0 for an unassigned slot, else 1 + an index into
// Nodes; Self is 1 + this node's index.
type Routing struct {
	Owner     [Slots]uint16
	Nodes     []Route
	Self      uint16
	OK        bool           // cluster_state:ok
	Primary   uint16         // a replica's primary (index as Owner), 0 for a primary
	Migrating map[int]uint16 // slot -> owner-style index of the target
	Importing map[int]uint16 // slot -> index of the source
}

// Options configure a Cluster (the cluster-* directives).
type Options struct {
	ConfigFile    string // nodes.conf path ("" in tests: nothing saved)
	IP            string // cluster-announce-ip ("" for none)
	Port          int    // client port announced
	BusPort       int    // bus port announced
	ListenBusPort int    // bus port listened on (0: none, tests)
	BindAddr      string // address the bus listens on ("" for all)
	// Announced, when set, is read at start and on every cron tick:
	// what this node announces instead of IP, Port and BusPort (""
	// or 0 for those): cluster-announce-ip, -port, -bus-port.
	Announced    func() (ip string, port, busPort int)
	NodeTimeout  func() int64
	FullCoverage func() bool
	Hostname     func() string
	// HumanName is cluster-announce-human-nodename; ClientIPs are
	// cluster-announce-client-ipv4 and -ipv6. Read with the address.
	HumanName func() string
	ClientIPs func() (v4, v6 string)
	// NoFailover is cluster-replica-no-failover (myself's nofailover
	// flag, read by the cron).
	NoFailover func() bool
	// ReplicaMigration is cluster-allow-replica-migration and
	// cluster-migration-barrier.
	ReplicaMigration func() (allow bool, barrier int)
	// BlacklistTTL is cluster-blacklist-ttl, in seconds: how long a
	// forgotten node is not re-added from gossip.
	BlacklistTTL func() int64
	// Validity is cluster-replica-validity-factor, repl-ping-replica-period
	// (seconds) and this replica's data age: the milliseconds since it
	// last heard from its primary (link up) or since the link went down.
	// The cron reads it before it takes the lock, as ReplOffset.
	Validity func() (factor int, pingPeriod int64, dataAge int64)
	// PingInterval is cluster-ping-interval (ms; 0: half the node
	// timeout), how long after its last PONG a node is pinged again.
	PingInterval func() int64
	// SendBufLimit is cluster-link-sendbuf-limit (bytes; 0: none): a
	// link with more bytes queued for its writer is freed by the cron.
	SendBufLimit func() int64
	Logf         func(level byte, format string, args ...any)
	// OnSlotsLost is called, without the lock, with slots another node
	// took from this one (their keys are stale here).
	OnSlotsLost func(slots []int)
	// OnPublish delivers a PUBLISH (shard false) or SPUBLISH another
	// node sent over the bus to this node's subscribers. It is called
	// from a link's reader without the lock; the slices are the
	// message's own.
	OnPublish func(shard bool, channel, message []byte)
	// ReplOffset is this node's replication offset, read by the cron
	// before it takes the lock (announced in every header).
	ReplOffset func() int64
	// OnPauseWrites is called, without the lock, to pause (true) or
	// resume the server's writes for a manual failover; the calls pair.
	OnPauseWrites func(on bool)
	// OnRoleChange is called, without the lock, when this node became a
	// replica of ip:port (a failover elsewhere took its slots) or a
	// primary (ip "": it won an election): the server starts or stops
	// replicating.
	OnRoleChange func(ip string, port int)
	// TLSCluster is tls-cluster (nil: no): the bus runs over TLS, and
	// the port a node announces first (Node.Port) is its TLS port. Read
	// by New and on every cron tick.
	TLSCluster func() bool
	// BusTLS returns the TLS configurations of new links (server for
	// the accepted, client for the dialled; nil when the bus is
	// plaintext), read for every link, so a reload applies to new ones.
	BusTLS func() (server, client *tls.Config)
	// TLSPort is the TLS client port announced (cluster-announce-tls-
	// port, else tls-port; 0 for none), read with Announced.
	TLSPort func() int
	// TLSReplication is tls-replication: a replica replicates from its
	// primary's TLS port rather than its TCP port.
	TLSReplication func() bool
}

// Cluster is this node's view of the cluster: the nodes, the slot table,
// the epochs, and the bus's links. See the package comment for its
// goroutines and lock order.
type Cluster struct {
	opt Options

	mu            sync.Mutex
	myself        *Node
	nodes         map[string]*Node
	slots         [Slots]*Node
	migrating     map[int]*Node
	importing     map[int]*Node
	currentEpoch  uint64
	lastVoteEpoch uint64
	state         int
	size          int
	startTime     int64
	minorityTime  int64
	blacklist     map[string]int64 // forgotten nodes: name -> expiry (ms)
	announcedIP   string           // cluster-announce-ip, "" for none
	tlsCluster    bool             // Options.TLSCluster as last applied (tls.go)
	// what the end of the locked section must do (unlock)
	dirtyRouting, dirtySave, dirtyState bool
	dirtyFsync                          bool // save with fsync before any message leaves (nodesconf.go)
	replyWaits                          bool // the section's caller waits for the save (lockReply)
	lostSlots                           []int
	pubs                                []*Message  // PUBLISHes received, delivered by unlock
	role                                *roleChange // for the server after unlock
	pauseReqs                           []bool      // manual failover: pause/resume writes, after unlock
	mfPaused                            bool
	mf                                  manualState
	failover                            failoverState
	cantFailoverLogged                  int64    // ms: the last "unable to failover" log line
	validity                            validity // Options.Validity, as the cron last read it

	stats struct {
		sent, received [TypeCount]int64
		linksExceeded  int64 // links freed over cluster-link-sendbuf-limit
	}

	routing atomic.Pointer[Routing]

	// saving nodes.conf (nodesconf.go): saveGen and savedGen under mu
	saveMu            sync.Mutex
	saveGen, savedGen uint64
	saveKick          chan struct{}
	tmpSeq            atomic.Int64

	// the bus (gossip.go)
	ln      netListener
	stop    chan struct{}
	wg      sync.WaitGroup
	closed  bool
	linkSeq int64
	links   map[*link]struct{}
	tick    int
	nowFn   func() int64
}

// RandomName returns a new 40-hex-character node or shard ID.
func RandomName() string {
	var b [NameLen / 2]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func nowMs() int64 { return time.Now().UnixMilli() }

// New creates the cluster state: loaded from opt.ConfigFile when it
// exists, else a fresh node (a new ID, primary, no slots), saved at once.
func New(opt Options) (*Cluster, error) {
	if opt.NodeTimeout == nil {
		opt.NodeTimeout = func() int64 { return 15000 }
	}
	if opt.FullCoverage == nil {
		opt.FullCoverage = func() bool { return true }
	}
	if opt.Hostname == nil {
		opt.Hostname = func() string { return "" }
	}
	if opt.Logf == nil {
		opt.Logf = func(byte, string, ...any) {}
	}
	if opt.HumanName == nil {
		opt.HumanName = func() string { return "" }
	}
	if opt.ClientIPs == nil {
		opt.ClientIPs = func() (string, string) { return "", "" }
	}
	if opt.NoFailover == nil {
		opt.NoFailover = func() bool { return false }
	}
	if opt.ReplicaMigration == nil {
		opt.ReplicaMigration = func() (bool, int) { return true, 1 }
	}
	if opt.BlacklistTTL == nil {
		opt.BlacklistTTL = func() int64 { return 60 }
	}
	if opt.Validity == nil {
		opt.Validity = func() (int, int64, int64) { return 0, 10, 0 }
	}
	if opt.PingInterval == nil {
		opt.PingInterval = func() int64 { return 0 }
	}
	if opt.SendBufLimit == nil {
		opt.SendBufLimit = func() int64 { return 0 }
	}
	cl := &Cluster{opt: opt, nodes: map[string]*Node{}, migrating: map[int]*Node{}, importing: map[int]*Node{},
		blacklist: map[string]int64{}, links: map[*link]struct{}{}, state: StateFail, nowFn: nowMs,
		saveKick: make(chan struct{}, 1)}
	cl.startTime = cl.now()
	cl.tlsCluster = opt.TLSCluster != nil && opt.TLSCluster()
	loaded := false
	if opt.ConfigFile != "" {
		ok, err := cl.loadConfig(opt.ConfigFile)
		if err != nil {
			return nil, err
		}
		loaded = ok
	}
	if !loaded {
		me := cl.newNode(RandomName(), FlagMyself|FlagPrimary)
		me.ShardID = RandomName()
		cl.myself = me
		cl.addNode(me)
		cl.dirtySave = true
	}
	// This node takes PUBLISH with the light header (and says so in every
	// header, as Valkey 8.0).
	cl.myself.Flags |= FlagLightPublish
	cl.applyMyAddress()
	cl.dirtyRouting, cl.dirtyState = true, true
	cl.mu.Lock()
	cl.unlock()
	return cl, nil
}

func (cl *Cluster) now() int64 { return cl.nowFn() }

// applyMyAddress sets myself's announced address, hostname, human
// nodename, client addresses and nofailover flag from the options
// (clusterUpdateMyself*); true when they changed.
func (cl *Cluster) applyMyAddress() bool {
	me := cl.myself
	changed := false
	if h := cl.opt.HumanName(); h != me.HumanName {
		me.HumanName, changed = h, true
	}
	if v4, v6 := cl.opt.ClientIPs(); v4 != me.ClientIPv4 || v6 != me.ClientIPv6 {
		me.ClientIPv4, me.ClientIPv6, changed = v4, v6, true
	}
	flags := me.Flags &^ FlagNoFailover
	if cl.opt.NoFailover() {
		flags |= FlagNoFailover
	}
	if flags != me.Flags {
		me.Flags, changed = flags, true
		cl.dirtyState = true
	}
	return cl.applyMyEndpoint() || changed
}

// applyMyEndpoint sets myself's announced address and hostname.
func (cl *Cluster) applyMyEndpoint() bool {
	me := cl.myself
	ip, port, bus := cl.opt.IP, cl.opt.Port, cl.opt.BusPort
	if cl.opt.Announced != nil {
		aip, ap, ab := cl.opt.Announced()
		if aip != "" {
			ip = aip
		}
		if ap != 0 {
			port = ap
		}
		if ab != 0 {
			bus = ab
		}
	}
	cl.announcedIP = ip
	h := cl.opt.Hostname()
	port, pport := cl.orient(port, cl.myTLSPort())
	if me.Port == port && me.PPort == pport && me.CPort == bus && (ip == "" || me.IP == ip) && me.Hostname == h {
		return false
	}
	me.Port, me.PPort, me.CPort, me.Hostname = port, pport, bus, h
	if ip != "" {
		me.IP = ip
	}
	return true
}

func (cl *Cluster) newNode(name string, flags uint16) *Node {
	return &Node{Name: name, Flags: flags, CTime: cl.now(), failReports: map[*Node]int64{}}
}

func (cl *Cluster) addNode(n *Node) { cl.nodes[n.Name] = n }

// delNode removes n: its slots, its links, the failure reports it made,
// its place among its primary's replicas (clusterDelNode).
func (cl *Cluster) delNode(n *Node) {
	for s := range Slots {
		if cl.slots[s] == n {
			cl.slots[s] = nil
		}
		if cl.migrating[s] == n {
			delete(cl.migrating, s)
		}
		if cl.importing[s] == n {
			delete(cl.importing, s)
		}
	}
	for _, o := range cl.nodes {
		delete(o.failReports, n)
		if o.Primary == n {
			o.Primary = nil
		}
	}
	if n.Primary != nil {
		n.Primary.removeReplica(n)
	}
	cl.freeLink(n.link)
	cl.freeLink(n.inLink)
	delete(cl.nodes, n.Name)
	cl.dirtyRouting, cl.dirtyState, cl.dirtySave = true, true, true
}

func (n *Node) removeReplica(r *Node) {
	for i, x := range n.Replicas {
		if x == r {
			n.Replicas = append(n.Replicas[:i], n.Replicas[i+1:]...)
			return
		}
	}
}

// renameNode gives a handshake node the name it announced.
func (cl *Cluster) renameNode(n *Node, name string) {
	delete(cl.nodes, n.Name)
	n.Name = name
	cl.nodes[name] = n
}

// addSlot assigns slot s to n; false when it is already assigned.
func (cl *Cluster) addSlot(n *Node, s int) bool {
	if cl.slots[s] != nil {
		return false
	}
	cl.slots[s] = n
	n.slots[s>>3] |= 1 << (s & 7)
	n.NumSlots++
	cl.dirtyRouting, cl.dirtyState, cl.dirtySave = true, true, true
	return true
}

// delSlot unassigns slot s; false when it was not assigned. Its
// migrating or importing state stays (clusterDelSlot): an import goes on
// though the slot's owner changed meanwhile.
func (cl *Cluster) delSlot(s int) bool {
	n := cl.slots[s]
	if n == nil {
		return false
	}
	n.slots[s>>3] &^= 1 << (s & 7)
	n.NumSlots--
	cl.slots[s] = nil
	cl.dirtyRouting, cl.dirtyState, cl.dirtySave = true, true, true
	return true
}

// unlock ends a locked section: it recomputes the cluster state,
// publishes a new routing snapshot and saves nodes.conf when the section
// changed what they depend on, then releases the lock. Lost slots are
// reported after the lock is released.
func (cl *Cluster) unlock() {
	if cl.dirtyState {
		cl.dirtyState = false
		cl.updateState()
	}
	if cl.dirtyRouting {
		cl.dirtyRouting = false
		cl.publish()
	}
	var wait uint64
	switch {
	case cl.dirtyFsync || cl.dirtySave && (cl.stop == nil || cl.closed):
		// Durable now (or, before Start, no saver: at once).
		if err := cl.saveNow(); err != nil {
			cl.opt.Logf('#', "Could not save the cluster configuration: %v", err)
		}
	case cl.dirtySave:
		cl.dirtySave = false
		cl.saveGen++
		if cl.replyWaits {
			wait = cl.saveGen
		} else {
			select {
			case cl.saveKick <- struct{}{}:
			default:
			}
		}
	}
	cl.replyWaits = false
	lost, pubs, role, pauses := cl.lostSlots, cl.pubs, cl.role, cl.pauseReqs
	cl.lostSlots, cl.pubs, cl.role, cl.pauseReqs = nil, nil, nil, nil
	cl.mu.Unlock()
	if wait != 0 {
		cl.saveUpTo(wait)
	}
	for _, on := range pauses {
		if cl.opt.OnPauseWrites != nil {
			cl.opt.OnPauseWrites(on)
		}
	}
	if role != nil && cl.opt.OnRoleChange != nil {
		cl.opt.OnRoleChange(role.ip, role.port)
	}
	if len(lost) > 0 && cl.opt.OnSlotsLost != nil {
		cl.opt.OnSlotsLost(lost)
	}
	for _, m := range pubs {
		if cl.opt.OnPublish != nil {
			cl.opt.OnPublish(m.Type == TypePublishShard, m.Channel, m.Payload)
		}
	}
}

// publish builds and swaps in a new routing snapshot.
func (cl *Cluster) publish() {
	r := &Routing{OK: cl.state == StateOK}
	idx := map[*Node]uint16{}
	get := func(n *Node) uint16 {
		if i, ok := idx[n]; ok {
			return i
		}
		r.Nodes = append(r.Nodes, routeOf(n))
		i := uint16(len(r.Nodes))
		idx[n] = i
		return i
	}
	r.Self = get(cl.myself)
	if p := cl.myself.Primary; p != nil && cl.myself.IsReplica() {
		r.Primary = get(p)
	}
	var last *Node // owners come in runs: one map lookup per run
	var lastIdx uint16
	for s, n := range cl.slots {
		if n != nil {
			if n != last {
				last, lastIdx = n, get(n)
			}
			r.Owner[s] = lastIdx
		}
	}
	if len(cl.migrating) > 0 {
		r.Migrating = map[int]uint16{}
		for s, n := range cl.migrating {
			r.Migrating[s] = get(n)
		}
	}
	if len(cl.importing) > 0 {
		r.Importing = map[int]uint16{}
		for s, n := range cl.importing {
			r.Importing[s] = get(n)
		}
	}
	cl.fillPorts(r.Nodes)
	cl.routing.Store(r)
}

// Routing returns the current slot table: lock-free, for every keyed
// command. Never nil after New.
func (cl *Cluster) Routing() *Routing { return cl.routing.Load() }

// updateState recomputes cluster_state (clusterUpdateState).
func (cl *Cluster) updateState() {
	now := cl.now()
	const writableDelay = 2000
	if cl.myself.IsPrimary() && cl.state == StateFail && now-cl.startTime < writableDelay {
		// Revisit when the delay is over (the cron marks the state dirty).
		return
	}
	newState := StateOK
	if cl.opt.FullCoverage() {
		for _, n := range cl.slots {
			if n == nil || n.Failed() {
				newState = StateFail
				break
			}
		}
	}
	size, reachable := 0, 0
	for _, n := range cl.nodes {
		if n.IsPrimary() && n.NumSlots > 0 {
			size++
			if n.Flags&(FlagFail|FlagPFail) == 0 {
				reachable++
			}
		}
	}
	cl.size = size
	if reachable < size/2+1 {
		newState = StateFail
		cl.minorityTime = now
	}
	if newState != cl.state {
		rejoinDelay := min(max(cl.opt.NodeTimeout(), 500), 5000)
		if newState == StateOK && cl.myself.IsPrimary() && now-cl.minorityTime < rejoinDelay {
			return
		}
		cl.opt.Logf('*', "Cluster state changed: %s", map[int]string{StateOK: "ok", StateFail: "fail"}[newState])
		cl.state = newState
		cl.dirtyRouting = true
	}
}

// Lock-taking accessors for the server's commands.

// MyID is this node's name.
func (cl *Cluster) MyID() string {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.myself.Name
}

// MyShardID is this node's shard ID.
func (cl *Cluster) MyShardID() string {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.myself.ShardID
}

// Info is CLUSTER INFO's text.
func (cl *Cluster) Info() string {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	assigned, ok, pfail, fail := 0, 0, 0, 0
	for _, n := range cl.slots {
		if n == nil {
			continue
		}
		assigned++
		switch {
		case n.Failed():
			fail++
		case n.TimedOut():
			pfail++
		default:
			ok++
		}
	}
	myEpoch := cl.myself.ConfigEpoch
	if cl.myself.IsReplica() && cl.myself.Primary != nil {
		myEpoch = cl.myself.Primary.ConfigEpoch
	}
	var b strings.Builder
	st := "ok"
	if cl.state != StateOK {
		st = "fail"
	}
	line := func(k string, v any) { b.WriteString(k + ":" + toStr(v) + "\r\n") }
	line("cluster_state", st)
	line("cluster_slots_assigned", assigned)
	line("cluster_slots_ok", ok)
	line("cluster_slots_pfail", pfail)
	line("cluster_slots_fail", fail)
	line("cluster_known_nodes", len(cl.nodes))
	line("cluster_size", cl.size)
	line("cluster_current_epoch", cl.currentEpoch)
	line("cluster_my_epoch", myEpoch)
	var sent, recv int64
	for t, v := range cl.stats.sent {
		if v != 0 {
			line("cluster_stats_messages_"+typeNames[t]+"_sent", v)
			sent += v
		}
	}
	line("cluster_stats_messages_sent", sent)
	for t, v := range cl.stats.received {
		if v != 0 {
			line("cluster_stats_messages_"+typeNames[t]+"_received", v)
			recv += v
		}
	}
	line("cluster_stats_messages_received", recv)
	line("total_cluster_links_buffer_limit_exceeded", cl.stats.linksExceeded)
	return b.String()
}

var typeNames = [TypeCount]string{"ping", "pong", "meet", "fail", "publish", "auth-req", "auth-ack", "update", "mfstart", "module", "publishshard"}

func toStr(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case int:
		return strconv.Itoa(v)
	case int64:
		return strconv.FormatInt(v, 10)
	case uint64:
		return strconv.FormatUint(v, 10)
	}
	return ""
}

// Nodes is CLUSTER NODES's text (clients' form: no aux fields) for an
// IPv4 client with the ports of tls-cluster's transport (NodesFor).
func (cl *Cluster) Nodes() string {
	cl.mu.Lock()
	tls := cl.tlsCluster
	cl.mu.Unlock()
	return cl.NodesFor(tls, false)
}

// NodesFor is CLUSTER NODES's text for a client connected over TLS (tls)
// or not, of the IPv6 family (ipv6) or not: each node's ip:port carries
// the client port of that transport and the address announced to that
// family (Route.ClientIP).
func (cl *Cluster) NodesFor(tls, ipv6 bool) string {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var b strings.Builder
	for _, n := range cl.sortedNodes() {
		b.WriteString(cl.describe(n, false, tls, ipv6))
		b.WriteByte('\n')
	}
	return b.String()
}

// sortedNodes lists the nodes in a stable order (by name, myself last as
// Valkey's dict order puts it nowhere in particular).
func (cl *Cluster) sortedNodes() []*Node {
	ns := make([]*Node, 0, len(cl.nodes))
	for _, n := range cl.nodes {
		ns = append(ns, n)
	}
	sort.Slice(ns, func(i, j int) bool { return ns[i].Name < ns[j].Name })
	return ns
}

// flagString is representClusterNodeFlags.
func flagString(f uint16) string {
	var parts []string
	for _, x := range []struct {
		f uint16
		s string
	}{{FlagMyself, "myself"}, {FlagPrimary, "master"}, {FlagReplica, "slave"}, {FlagPFail, "fail?"},
		{FlagFail, "fail"}, {FlagHandshake, "handshake"}, {FlagNoAddr, "noaddr"}, {FlagNoFailover, "nofailover"}} {
		if f&x.f != 0 {
			parts = append(parts, x.s)
		}
	}
	if len(parts) == 0 {
		return "noflags"
	}
	return strings.Join(parts, ",")
}

// describe is clusterGenNodeDescription: one line of CLUSTER NODES, or of
// nodes.conf when file is set (the hostname slot always present, the aux
// fields, and the open slots of myself). tls picks the port shown: the
// node's TLS port, else its TCP port (the file's: tls-cluster's). A
// client's line shows the address announced to its family (ipv6), the
// file the bus address.
func (cl *Cluster) describe(n *Node, file, tls, ipv6 bool) string {
	var b strings.Builder
	b.WriteString(n.Name)
	b.WriteByte(' ')
	ip := n.IP
	if !file {
		r := routeOf(n)
		ip = r.ClientIP(ipv6)
	}
	b.WriteString(ip + ":" + strconv.Itoa(cl.clientPort(n, tls)) + "@" + strconv.Itoa(n.CPort))
	if file {
		b.WriteString("," + n.Hostname)
		if n.ClientIPv6 != "" {
			b.WriteString(",client-ipv6=" + n.ClientIPv6)
		}
		if n.ClientIPv4 != "" {
			b.WriteString(",client-ipv4=" + n.ClientIPv4)
		}
		b.WriteString(cl.auxPort(n, tls))
		if n.HumanName != "" {
			b.WriteString(",nodename=" + n.HumanName)
		}
		b.WriteString(",shard-id=" + n.ShardID)
	} else if n.Hostname != "" {
		b.WriteString("," + n.Hostname)
	}
	b.WriteByte(' ')
	b.WriteString(flagString(n.Flags))
	b.WriteByte(' ')
	switch {
	case n.Primary != nil:
		b.WriteString(n.Primary.Name)
	case n.PrimaryName != "":
		b.WriteString(n.PrimaryName)
	default:
		b.WriteByte('-')
	}
	pingSent, pong := n.PingSent, n.PongReceived
	if n.IsMyself() {
		pingSent, pong = 0, 0
	}
	epoch := n.ConfigEpoch
	if n.IsReplica() && n.Primary != nil {
		epoch = n.Primary.ConfigEpoch
	}
	linkState := "disconnected"
	if n.link != nil && n.link.connected || n.IsMyself() {
		linkState = "connected"
	}
	b.WriteString(" " + strconv.FormatInt(pingSent, 10) + " " + strconv.FormatInt(pong, 10) + " " +
		strconv.FormatUint(epoch, 10) + " " + linkState)
	for _, r := range n.slotRanges() {
		if r[0] == r[1] {
			b.WriteString(" " + strconv.Itoa(r[0]))
		} else {
			b.WriteString(" " + strconv.Itoa(r[0]) + "-" + strconv.Itoa(r[1]))
		}
	}
	if n.IsMyself() {
		for _, s := range sortedKeys(cl.migrating) {
			b.WriteString(" [" + strconv.Itoa(s) + "->-" + cl.migrating[s].Name + "]")
		}
		for _, s := range sortedKeys(cl.importing) {
			b.WriteString(" [" + strconv.Itoa(s) + "-<-" + cl.importing[s].Name + "]")
		}
	}
	return b.String()
}

func sortedKeys(m map[int]*Node) []int {
	ks := make([]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	return ks
}

// slotRanges lists n's slots as [start, end] ranges.
func (n *Node) slotRanges() [][2]int {
	var rs [][2]int
	start := -1
	for i, b := range n.slots {
		// A byte that neither starts nor ends a range is skipped whole:
		// nodes.conf and CLUSTER NODES describe every node on each save.
		if b == 0 && start < 0 || b == 0xff && start >= 0 {
			continue
		}
		for j := range 8 {
			s := i<<3 | j
			if b&(1<<j) != 0 {
				if start < 0 {
					start = s
				}
			} else if start >= 0 {
				rs = append(rs, [2]int{start, s - 1})
				start = -1
			}
		}
	}
	if start >= 0 {
		rs = append(rs, [2]int{start, Slots - 1})
	}
	return rs
}

// SlotRange is one CLUSTER SLOTS entry: a range and its serving nodes
// (the primary first).
type SlotRange struct {
	Start, End int
	Nodes      []Route
	IDs        []string
}

// NodeInfo is one node of CLUSTER SHARDS.
type NodeInfo struct {
	Route
	Primary    bool
	ReplOffset uint64
	Failed     bool
}

// Shard is one CLUSTER SHARDS entry.
type Shard struct {
	Ranges [][2]int
	Nodes  []NodeInfo
}

func routeOf(n *Node) Route {
	return Route{Name: n.Name, IP: n.IP, Hostname: n.Hostname, Port: n.Port, ClientIPv4: n.ClientIPv4, ClientIPv6: n.ClientIPv6}
}

// Slots is CLUSTER SLOTS's data (clusterGenNodesSlotsInfo): contiguous
// ranges of one primary, in slot order, with its replicas that are not
// failing.
func (cl *Cluster) Slots() []SlotRange {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var out []SlotRange
	start := -1
	for s := 0; s <= Slots; s++ {
		if start >= 0 && (s == Slots || cl.slots[s] != cl.slots[start]) {
			n := cl.slots[start]
			r := SlotRange{Start: start, End: s - 1, Nodes: []Route{routeOf(n)}}
			for _, rep := range n.Replicas {
				if !rep.Failed() {
					r.Nodes = append(r.Nodes, routeOf(rep))
				}
			}
			cl.fillPorts(r.Nodes)
			out = append(out, r)
			start = -1
		}
		if s < Slots && start < 0 && cl.slots[s] != nil {
			start = s
		}
	}
	return out
}

// Shards is CLUSTER SHARDS's data: one entry per shard ID, the primary
// first.
func (cl *Cluster) Shards() []Shard {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	byID := map[string][]*Node{}
	var ids []string
	for _, n := range cl.sortedNodes() {
		if n.InHandshake() {
			continue
		}
		if _, ok := byID[n.ShardID]; !ok {
			ids = append(ids, n.ShardID)
		}
		byID[n.ShardID] = append(byID[n.ShardID], n)
	}
	var out []Shard
	for _, id := range ids {
		ns := byID[id]
		sort.SliceStable(ns, func(i, j int) bool { return ns[i].IsPrimary() && !ns[j].IsPrimary() })
		var sh Shard
		prim := ns[0]
		if prim.IsReplica() && prim.Primary != nil {
			prim = prim.Primary
		}
		sh.Ranges = prim.slotRanges()
		for _, n := range ns {
			sh.Nodes = append(sh.Nodes, NodeInfo{Route: routeOf(n), Primary: n.IsPrimary(), ReplOffset: n.ReplOffset, Failed: n.Failed()})
		}
		for i := range sh.Nodes {
			cl.fillPort(&sh.Nodes[i].Route)
		}
		out = append(out, sh)
	}
	return out
}

// CountFailureReports is CLUSTER COUNT-FAILURE-REPORTS; false for an
// unknown node.
func (cl *Cluster) CountFailureReports(name string) (int, bool) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	n := cl.nodes[name]
	if n == nil {
		return 0, false
	}
	cl.cleanFailReports(n)
	return len(n.failReports), true
}

func (cl *Cluster) cleanFailReports(n *Node) {
	maxAge := cl.opt.NodeTimeout() * 2
	now := cl.now()
	for r, t := range n.failReports {
		if now-t > maxAge {
			delete(n.failReports, r)
		}
	}
}

// Errors of the slot commands, as Valkey words them.
const (
	ErrInvalidSlot = "Invalid or out of range slot"
)

// SlotArg is one argument of ADDSLOTS/DELSLOTS(RANGE): a range, or the
// error its parsing met (reported in its turn).
type SlotArg struct {
	Start, End int
	Err        string
}

// ChangeSlots assigns the slots to this node (or unassigns them, del),
// all or none, checking the arguments in order as Valkey does: the first
// bad argument, busy (or free) slot, or repeated slot is the error
// (without "ERR ").
func (cl *Cluster) ChangeSlots(args []SlotArg, del bool) string {
	cl.lockReply()
	defer cl.unlock()
	seen := map[int]bool{}
	for _, a := range args {
		if a.Err != "" {
			return a.Err
		}
		for s := a.Start; s <= a.End; s++ {
			if del && cl.slots[s] == nil {
				return "Slot " + strconv.Itoa(s) + " is already unassigned"
			}
			if !del && cl.slots[s] != nil {
				return "Slot " + strconv.Itoa(s) + " is already busy"
			}
			if seen[s] {
				return "Slot " + strconv.Itoa(s) + " specified multiple times"
			}
			seen[s] = true
		}
	}
	for s := range seen {
		if del {
			cl.delSlot(s)
			delete(cl.migrating, s)
			delete(cl.importing, s)
		} else {
			delete(cl.importing, s)
			cl.addSlot(cl.myself, s)
		}
	}
	return ""
}

// AddSlots assigns slots to this node (see ChangeSlots).
func (cl *Cluster) AddSlots(slots []int) string {
	args := make([]SlotArg, len(slots))
	for i, s := range slots {
		args[i] = SlotArg{Start: s, End: s}
	}
	return cl.ChangeSlots(args, false)
}

// FlushSlots unassigns this node's slots; false when it holds keys.
func (cl *Cluster) FlushSlots() {
	cl.lockReply()
	defer cl.unlock()
	for s, n := range cl.slots {
		if n == cl.myself {
			cl.delSlot(s)
		}
	}
}

// Forget is CLUSTER FORGET: "" or the error text.
func (cl *Cluster) Forget(name string) string {
	cl.lockReply()
	defer cl.unlock()
	n := cl.nodes[name]
	switch {
	case n == nil:
		return "Unknown node " + name
	case n == cl.myself:
		return "I tried hard but I can't forget myself..."
	case cl.myself.IsReplica() && cl.myself.Primary == n:
		return "Can't forget my master!"
	}
	cl.blacklist[name] = cl.now() + cl.opt.BlacklistTTL()*1000
	cl.delNode(n)
	return ""
}

// BumpEpoch is CLUSTER BUMPEPOCH: "BUMPED n" or "STILL n".
func (cl *Cluster) BumpEpoch() string {
	cl.lockReply()
	defer cl.unlock()
	maxEpoch := cl.maxEpoch()
	if cl.myself.ConfigEpoch == 0 || cl.myself.ConfigEpoch != maxEpoch {
		cl.currentEpoch++
		cl.myself.ConfigEpoch = cl.currentEpoch
		cl.dirtySave, cl.dirtyFsync = true, true
		return "BUMPED " + strconv.FormatUint(cl.myself.ConfigEpoch, 10)
	}
	return "STILL " + strconv.FormatUint(cl.myself.ConfigEpoch, 10)
}

// SetConfigEpoch is CLUSTER SET-CONFIG-EPOCH: "" or the error text.
func (cl *Cluster) SetConfigEpoch(e int64) string {
	cl.lockReply()
	defer cl.unlock()
	switch {
	case e < 0:
		return "Invalid config epoch specified: " + strconv.FormatInt(e, 10)
	case len(cl.nodes) > 1:
		return "The user can assign a config epoch only when the node does not know any other node."
	case cl.myself.ConfigEpoch != 0:
		return "Node config epoch is already non-zero"
	}
	cl.myself.ConfigEpoch = uint64(e)
	if cl.currentEpoch < uint64(e) {
		cl.currentEpoch = uint64(e)
	}
	cl.dirtySave, cl.dirtyState, cl.dirtyFsync = true, true, true
	return ""
}

// IsReplica reports whether this node is a replica.
func (cl *Cluster) IsReplica() bool {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.myself.IsReplica()
}

// Reset is CLUSTER RESET [HARD|SOFT] (clusterReset): forget every other
// node, drop the slots; HARD also takes a new ID and zeroes the epochs.
func (cl *Cluster) Reset(hard bool) {
	cl.lockReply()
	defer cl.unlock()
	for s := range cl.slots {
		cl.delSlot(s)
	}
	clear(cl.migrating)
	clear(cl.importing)
	for _, n := range cl.nodes {
		if n != cl.myself {
			cl.delNode(n)
		}
	}
	me := cl.myself
	me.Flags = me.Flags&(FlagLightPublish|FlagNoFailover) | FlagMyself | FlagPrimary
	me.Primary, me.PrimaryName, me.Replicas = nil, "", nil
	if hard {
		cl.currentEpoch, cl.lastVoteEpoch = 0, 0
		me.ConfigEpoch = 0
		delete(cl.nodes, me.Name)
		me.Name = RandomName()
		me.ShardID = RandomName()
		cl.nodes[me.Name] = me
	}
	cl.dirtySave, cl.dirtyRouting, cl.dirtyState, cl.dirtyFsync = true, true, true, true
}

// SaveConfig writes nodes.conf now, with fsync (CLUSTER SAVECONFIG).
func (cl *Cluster) SaveConfig() error {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return cl.saveNow()
}

// Refresh applies the options this node announces (address, hostname,
// human nodename, client addresses, nofailover) now, as the cron does on
// each tick: after a CONFIG SET, whose reply follows the save.
func (cl *Cluster) Refresh() {
	cl.lockReply()
	defer cl.unlock()
	if cl.applyMyAddress() {
		cl.dirtySave, cl.dirtyRouting = true, true
	}
}

// lockReply locks mu for a client's command: the unlock that ends the
// section returns once its change to nodes.conf is saved.
func (cl *Cluster) lockReply() {
	cl.mu.Lock()
	cl.replyWaits = true
}

// KnownNodes is how many nodes this node knows (itself included).
func (cl *Cluster) KnownNodes() int {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	return len(cl.nodes)
}

// SetSlot is CLUSTER SETSLOT <slot> IMPORTING|MIGRATING|NODE|STABLE
// [node]: "" or the error text. hasKeys says whether this node holds keys
// of the slot (the caller counts them: no keyspace lock is taken under
// the cluster's).
func (cl *Cluster) SetSlot(slot int, action, name string, hasKeys bool) string {
	cl.lockReply()
	defer cl.unlock()
	if cl.myself.IsReplica() {
		return "Please use SETSLOT only with masters."
	}
	n := cl.nodes[name]
	switch action {
	case "migrating":
		if cl.slots[slot] != cl.myself {
			return "I'm not the owner of hash slot " + strconv.Itoa(slot)
		}
		if n == nil {
			return "I don't know about node " + name
		}
		if n.IsReplica() {
			return "Target node is not a master"
		}
		cl.migrating[slot] = n
	case "importing":
		if cl.slots[slot] == cl.myself {
			return "I'm already the owner of hash slot " + strconv.Itoa(slot)
		}
		if n == nil {
			return "I don't know about node " + name
		}
		if n.IsReplica() {
			return "Target node is not a master"
		}
		cl.importing[slot] = n
	case "stable":
		delete(cl.migrating, slot)
		delete(cl.importing, slot)
	case "node":
		if n == nil {
			return "Unknown node " + name
		}
		if n.IsReplica() {
			return "Target node is not a master"
		}
		if cl.slots[slot] == cl.myself && n != cl.myself && hasKeys {
			return "Can't assign hashslot " + strconv.Itoa(slot) + " to a different node while I still hold keys for this hash slot."
		}
		if n != cl.myself {
			delete(cl.migrating, slot)
		}
		importing := cl.importing[slot] != nil
		if n == cl.myself && importing {
			delete(cl.importing, slot)
			// The import is over: this node claims the slot with a new
			// epoch, without agreement (clusterBumpConfigEpochWithoutConsensus).
			maxEpoch := cl.maxEpoch()
			if cl.myself.ConfigEpoch == 0 || cl.myself.ConfigEpoch != maxEpoch {
				cl.currentEpoch++
				cl.myself.ConfigEpoch = cl.currentEpoch
				cl.dirtyFsync = true
			}
		}
		wasMine := cl.slots[slot] == cl.myself
		cl.delSlot(slot)
		cl.addSlot(n, slot)
		if n == cl.myself && importing {
			// Let every node know at once (clusterBroadcastPong): a
			// node that has not heard of the new epoch could take the
			// next import without a bump, below a stale claim of ours.
			cl.broadcastPong()
		}
		// A primary that gave its last slot away follows its new owner,
		// with cluster-allow-replica-migration.
		if allow, _ := cl.opt.ReplicaMigration(); wasMine && n != cl.myself && cl.myself.NumSlots == 0 && allow {
			cl.opt.Logf('*', "Lost my last slot during slot migration. Reconfiguring myself as a replica of %s in shard %s",
				n.Name, n.ShardID)
			cl.setMyPrimary(n)
			cl.dirtyFsync = true
		}
	}
	cl.dirtyRouting, cl.dirtySave = true, true
	return ""
}

// Replicas is CLUSTER REPLICAS: the replicas' CLUSTER NODES lines (ports
// and addresses as Nodes), or Valkey's error text.
func (cl *Cluster) Replicas(name string) ([]string, string) {
	cl.mu.Lock()
	tls := cl.tlsCluster
	cl.mu.Unlock()
	return cl.ReplicasFor(name, tls, false)
}

// ReplicasFor is Replicas with the ports of a TLS client (tls) or not and
// the addresses of an IPv6 client (ipv6) or not.
func (cl *Cluster) ReplicasFor(name string, tls, ipv6 bool) ([]string, string) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	n := cl.nodes[name]
	switch {
	case n == nil:
		return nil, "Unknown node " + name
	case n.IsReplica():
		return nil, "The specified node is not a master"
	}
	var out []string
	for _, r := range n.Replicas {
		out = append(out, cl.describe(r, false, tls, ipv6))
	}
	return out, ""
}

// Replicate makes this node a replica of the named primary (CLUSTER
// REPLICATE: clusterSetPrimary). It returns the primary's address for the
// replication link, or Valkey's error text. hasKeys says whether this
// node holds keys.
func (cl *Cluster) Replicate(name string, hasKeys bool) (ip string, port int, err string) {
	cl.lockReply()
	defer cl.unlock()
	n := cl.nodes[name]
	me := cl.myself
	switch {
	case n == nil:
		return "", 0, "Unknown node " + name
	case n == me:
		return "", 0, "Can't replicate myself"
	case n.IsReplica():
		return "", 0, "I can only replicate a master, not a replica."
	case me.IsPrimary() && (me.NumSlots != 0 || hasKeys):
		return "", 0, "To set a master the node must be empty and without assigned slots."
	}
	cl.setMyPrimary(n)
	cl.role = nil // the server starts the replication with the reply
	return n.IP, cl.replPort(n), ""
}

// PrimaryAddr is the address of this replica's primary ("" for a
// primary): where a replica loaded from nodes.conf replicates from.
func (cl *Cluster) PrimaryAddr() (string, int) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	if p := cl.myself.Primary; p != nil && cl.myself.IsReplica() {
		return p.IP, cl.replPort(p)
	}
	return "", 0
}

// LinkInfo is one CLUSTER LINKS entry.
type LinkInfo struct {
	To         bool // ours to the node ("to"), else its to us ("from")
	Node       string
	CreateTime int64 // ms
	Queued     int64 // bytes waiting for the writer
}

// Links lists the bus's links to and from other nodes (CLUSTER LINKS).
func (cl *Cluster) Links() []LinkInfo {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	var out []LinkInfo
	for _, n := range cl.sortedNodes() {
		if n == cl.myself {
			continue
		}
		for _, l := range []*link{n.link, n.inLink} {
			if l != nil && l.connected {
				out = append(out, LinkInfo{To: !l.inbound, Node: n.Name, CreateTime: l.ctime, Queued: l.queued.Load()})
			}
		}
	}
	return out
}
