package server

import (
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/cluster"
	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/pubsub"
)

// Cluster mode (cluster-enabled yes): the state and the bus live in
// package cluster; this file builds them from the configuration, answers
// CLUSTER, ASKING, READONLY and READWRITE, and routes keyed commands as
// Valkey's getNodeByQuery. s.cluster is nil when cluster mode is off, and
// then the only cost on the command path is that nil check.
//
// Slot ownership meets the striped keyspace here and in cluster_keys.go:
// a keyed command's keys are hashed to their slot (CRC16) against the
// lock-free routing snapshot before the command takes any stripe; the
// keyspace is put in slot mode (db.Keyspace.SetSlotStriping) before
// anything is loaded, so each stripe holds a fixed group of slots and
// counts its keys per slot: COUNTKEYSINSLOT, GETKEYSINSLOT, SLOT-STATS,
// SETSLOT NODE's check and the deletion of lost slots' keys read those
// counts and walk only the stripes concerned.

// clusterClient is a client's cluster-mode state.
type clusterClient struct {
	asking   bool  // ASKING: the next command may use an importing slot
	readonly bool  // READONLY: reads may be served by a replica
	pos      []int // scratch for the key positions of routed commands
	slot     int   // the slot of the command running (-1: no keys), for its scripts
}

const (
	errClusterDisabled = "ERR This instance has cluster support disabled"
	errCrossSlot       = "CROSSSLOT Keys in request don't hash to the same slot"
	errUnbound         = "CLUSTERDOWN Hash slot not served"
	errClusterDown     = "CLUSTERDOWN The cluster is down"
	errClusterDownRO   = "CLUSTERDOWN The cluster is down and only accepts read commands"
	errTryAgain        = "TRYAGAIN Multiple keys request during rehashing of slot"
)

// initCluster builds the cluster state when cluster-enabled is yes,
// loading (or creating) nodes.conf. The bus starts with startCluster.
func (s *Server) initCluster() error {
	cfg := s.cfg
	if !cfg.ClusterEnabled() {
		return nil
	}
	path := cfg.ClusterConfigFile()
	if !filepath.IsAbs(path) && cfg.Dir() != "" {
		path = filepath.Join(cfg.Dir(), path)
	}
	port := cfg.Port()
	busPort := cfg.ClusterPort()
	if busPort == 0 {
		busPort = s.clusterDefaultClientPort() + 10000
	}
	bind := ""
	if b := cfg.Bind(); len(b) == 1 && b[0] != "*" && !strings.Contains(b[0], "*") {
		bind = strings.TrimPrefix(b[0], "-")
	}
	cl, err := cluster.New(cluster.Options{
		ConfigFile: path,
		Port:       port,
		BusPort:    busPort,
		Announced: func() (string, int, int) {
			return s.cfg.ClusterAnnounceIP(), s.cfg.ClusterAnnouncePort(), s.cfg.ClusterAnnounceBusPort()
		},
		ListenBusPort: busPort,
		BindAddr:      bind,
		NodeTimeout:   func() int64 { return s.cfg.ClusterNodeTimeout() },
		FullCoverage:  func() bool { return s.cfg.ClusterRequireFullCoverage() },
		Hostname:      func() string { return s.cfg.ClusterAnnounceHostname() },
		HumanName:     func() string { return s.cfg.ClusterAnnounceHumanNodename() },
		ClientIPs: func() (string, string) {
			return s.cfg.ClusterAnnounceClientIPv4(), s.cfg.ClusterAnnounceClientIPv6()
		},
		NoFailover: func() bool { return s.cfg.ClusterReplicaNoFailover() },
		ReplicaMigration: func() (bool, int) {
			return s.cfg.ClusterAllowReplicaMigration(), s.cfg.ClusterMigrationBarrier()
		},
		BlacklistTTL: func() int64 { return s.cfg.ClusterBlacklistTTL() },
		Validity: func() (int, int64, int64) {
			return s.cfg.ClusterReplicaValidityFactor(), s.cfg.ReplPingReplicaPeriod(), s.replDataAge()
		},
		PingInterval: func() int64 { return s.cfg.ClusterPingInterval() },
		SendBufLimit: func() int64 { return s.cfg.ClusterLinkSendbufLimit() },
		Logf: func(level byte, f string, a ...any) {
			switch level {
			case '#':
				s.log.warn(f, a...)
			case '*':
				s.log.notice(f, a...)
			default:
				s.log.verbose(f, a...)
			}
		},
		OnSlotsLost:   s.deleteSlotsKeys,
		ReplOffset:    s.replOffset,
		OnPauseWrites: func(on bool) { s.pause.pauseFailover(on) },
		OnRoleChange: func(ip string, port int) {
			if ip == "" {
				s.log.notice("Cluster failover: this node is a primary now")
				s.stopReplication(false)
				return
			}
			s.startReplication(ip, port, false)
		},
		TLSCluster:     func() bool { return s.cfg.TLSCluster() },
		BusTLS:         s.clusterBusTLS,
		TLSPort:        s.clusterTLSPort,
		TLSReplication: func() bool { return s.cfg.TLSReplication() },
		OnPublish: func(shard bool, channel, message []byte) {
			k := pubsub.Channel
			if shard {
				k = pubsub.Shard
			}
			s.pubsub.Publish(k, channel, message, nil)
		},
	})
	if err != nil {
		return err
	}
	s.cluster = cl
	s.ks.SetSlotStriping(true)
	s.ks.SetClusterMode(true)
	s.slotStats = new(slotStats)
	return nil
}

// startCluster listens on the bus port and starts the cluster's cron.
func (s *Server) startCluster() error {
	if s.cluster == nil {
		return nil
	}
	s.log.notice("Cluster mode: this node is %s", s.cluster.MyID())
	if err := s.cluster.Start(); err != nil {
		return err
	}
	if host, port := s.cluster.PrimaryAddr(); host != "" {
		// A replica by its nodes.conf: replicate from its primary.
		s.startReplication(host, port, false)
	}
	return nil
}

func (s *Server) stopCluster() {
	if s.cluster != nil {
		s.cluster.Stop()
	}
}

// clusterEnabledInt is INFO's cluster_enabled.
func (s *Server) clusterEnabledInt() int64 {
	if s.cluster != nil {
		return 1
	}
	return 0
}

// Routing outcomes of getNodeByQuery (CLUSTER_REDIR_*), for the errors
// a client and a script each get.
const (
	routeLocal = iota
	routeMoved
	routeAsk
	routeCrossSlot
	routeUnbound
	routeDown
	routeDownRO
	routeTryAgain
)

// route is Valkey's getNodeByQuery for a command about to run (for EXEC,
// its queued commands): where its keys are served, the slot (-1 for no
// keys) and, when not here, the client's error.
func (c *Client) route(cm *cmd, argv [][]byte, asking bool) (kind, slot int, msg string) {
	m := cm.meta
	isExec := m == command.Exec
	r := c.srv.cluster.Routing()
	slot = -1
	owner := uint16(0)
	var firstKey []byte
	multiple, migrating, importing := false, false, false
	missing := 0
	write, pubsubShard := false, false
	kind = routeLocal
	check := func(qm *command.Meta, qargv [][]byte) bool {
		if isPubsubShard(qm) {
			pubsubShard = true
		}
		var pos []int
		if qm.Flags&command.FlagPubsub != 0 {
			pos, _ = qm.SpecKeyPositions(qargv, c.cluster.pos[:0], command.SearchIncludeNotKeys)
		} else {
			pos = qm.KeyPositions(qargv, c.cluster.pos[:0])
		}
		c.cluster.pos = pos[:0]
		if len(pos) > 0 && qm.Flags&command.FlagWrite != 0 {
			write = true
		}
		for _, p := range pos {
			key := qargv[p]
			sl := cluster.KeySlot(key)
			if slot < 0 {
				slot, firstKey = sl, key
				owner = r.Owner[sl]
				if owner == 0 {
					kind, msg = routeUnbound, errUnbound
					return false
				}
				if owner == r.Self && r.Migrating != nil {
					_, migrating = r.Migrating[sl]
				}
				if r.Importing != nil {
					_, importing = r.Importing[sl]
				}
			} else if sl != slot {
				kind, msg = routeCrossSlot, errCrossSlot
				return false
			} else if string(key) != string(firstKey) {
				multiple = true
			}
			if (migrating || importing) && !c.srv.ks.KeyExists(0, key, time.Now().UnixMilli(), c.ctx.Locked) {
				missing++
			}
		}
		return true
	}
	if isExec {
		if c.multi == nil {
			return routeLocal, -1, ""
		}
		for _, q := range c.multi.cmds {
			if !check(q.cm.meta, q.argv) {
				break
			}
		}
	} else {
		check(m, argv)
	}
	if kind != routeLocal {
		return kind, slot, msg
	}
	if slot < 0 {
		return routeLocal, -1, "" // no keys
	}
	if !r.OK {
		if pubsubShard {
			if !c.srv.cfg.ClusterAllowPubsubshardWhenDown() {
				return routeDown, slot, errClusterDown
			}
		} else if !c.srv.cfg.ClusterAllowReadsWhenDown() {
			return routeDown, slot, errClusterDown
		} else if write {
			return routeDownRO, slot, errClusterDownRO
		}
	}
	switch {
	case (migrating || importing) && m == command.Migrate:
		return routeLocal, slot, "" // MIGRATE works on the local node of an open slot
	case migrating && missing > 0:
		if multiple {
			return routeTryAgain, slot, errTryAgain
		}
		return routeAsk, slot, c.redirect("ASK", slot, &r.Nodes[r.Migrating[slot]-1])
	case importing && (asking || m.Flags&command.FlagAsking != 0):
		if multiple && missing > 0 {
			return routeTryAgain, slot, errTryAgain
		}
		return routeLocal, slot, ""
	case (c.cluster.readonly || pubsubShard) && !write && r.Primary != 0 && r.Primary == owner:
		// READONLY: a replica serves its primary's reads, and its
		// sharded channels in any case.
		return routeLocal, slot, ""
	case owner != r.Self:
		return routeMoved, slot, c.redirect("MOVED", slot, &r.Nodes[owner-1])
	}
	return routeLocal, slot, ""
}

// clusterRefused routes a command about to run (route) and answers the
// redirection or error; true when the command must not run here. The
// slot of a command run here is kept for the scripts it runs.
func (c *Client) clusterRefused(cm *cmd, argv [][]byte) bool {
	c.cluster.slot = -1
	if c.primaryLink {
		return false
	}
	m := cm.meta
	if m != command.Exec && !m.HasKeys() && !isPubsubShard(m) {
		return false // (the sharded channels are key specs with the not-key flag)
	}
	kind, slot, msg := c.route(cm, argv, c.cluster.asking)
	if kind == routeLocal {
		c.cluster.slot = slot
		return false
	}
	if m == command.Exec {
		// discardTransaction: the redirection itself is the reply.
		c.multi = nil
		c.unwatch()
		cm.stats.shard[c.ctx.Shard].rejected.Add(1)
		c.srv.errs.count(msg)
		c.srv.stats.totalErrors.Add(1)
		c.w.Error(msg)
		return true
	}
	c.reject(cm, msg)
	return true
}

// scriptClusterCheck is Valkey's scriptVerifyClusterState for a command
// a script calls: "" to run it, else the script's error (without "ERR ").
// slot is the run's slot so far (-1 for none), updated.
func (c *Client) scriptClusterCheck(cm *cmd, argv [][]byte, slot *int, crossSlotOK bool) string {
	if c.srv.cluster == nil || c.primaryLink {
		return ""
	}
	kind, sl, _ := c.route(cm, argv, c.cluster.asking)
	switch kind {
	case routeLocal:
	case routeDownRO:
		return "Script attempted to execute a write command while the cluster is down and readonly"
	case routeDown:
		return "Script attempted to execute a command while the cluster is down"
	case routeCrossSlot:
		return "Command '" + cm.name + "' in script attempted to access keys that don't hash to the same slot"
	case routeTryAgain:
		return "Unable to execute command in script because undeclared keys were accessed during rehashing of the slot"
	case routeUnbound:
		return "Script attempted to access a slot not served"
	default:
		return "Script attempted to access a non local key in a cluster node script"
	}
	if sl != -1 && !crossSlotOK {
		if *slot == -1 {
			*slot = sl
		} else if *slot != sl {
			return "Script attempted to access keys that do not hash to the same slot"
		}
	}
	return ""
}

// clusterAfterCall ends ASKING's effect after one command (outside
// MULTI), as Valkey's resetClient.
func (c *Client) clusterAfterCall(cm *cmd) {
	if c.cluster.asking && c.multi == nil && cm.meta != command.Asking {
		c.cluster.asking = false
	}
}

func askingCommand(c *Client) {
	if c.srv.cluster == nil {
		c.w.Error(errClusterDisabled)
		return
	}
	c.cluster.asking = true
	c.w.OK()
}

// READONLY and READWRITE answer OK with cluster mode off too: Valkey 8.0
// dropped Redis 7.0's "cluster support disabled" for them (the flag only
// matters to a cluster replica's routing).
func readonlyCommand(c *Client) {
	c.cluster.readonly = true
	c.w.OK()
}

func readwriteCommand(c *Client) {
	c.cluster.readonly = false
	c.w.OK()
}

// clusterReply answers +OK for a cluster change that succeeded (e is
// ""), else Valkey's error e. A node name the client gave may carry CR
// or LF: Writer.Error trims them at the end and maps the rest to spaces,
// as Valkey's addReplyErrorFormat.
func clusterReply(c *Client, e string) {
	if e != "" {
		c.w.Error("ERR " + e)
		return
	}
	c.w.OK()
}

// clusterOn answers the cluster-disabled error and returns nil when
// cluster mode is off.
func clusterOn(c *Client) *cluster.Cluster {
	if c.srv.cluster == nil {
		c.w.Error(errClusterDisabled)
	}
	return c.srv.cluster
}

func clusterInfoCommand(c *Client) {
	if cl := clusterOn(c); cl != nil {
		c.w.Verbatim("txt", cl.Info())
	}
}

func clusterMyidCommand(c *Client) {
	if cl := clusterOn(c); cl != nil {
		c.w.BulkString(cl.MyID())
	}
}

func clusterMyshardidCommand(c *Client) {
	if cl := clusterOn(c); cl != nil {
		c.w.BulkString(cl.MyShardID())
	}
}

func clusterNodesCommand(c *Client) {
	if cl := clusterOn(c); cl != nil {
		c.w.Verbatim("txt", cl.NodesFor(c.tlsInfo(), c.clientIPv6()))
	}
}

func clusterSlotsCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	rs := cl.Slots()
	c.w.ArrayLen(len(rs))
	for _, r := range rs {
		c.w.ArrayLen(2 + len(r.Nodes))
		c.w.Int(int64(r.Start))
		c.w.Int(int64(r.End))
		for i := range r.Nodes {
			writeNodeEntry(c, &r.Nodes[i])
		}
	}
}

func clusterShardsCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	shards := cl.Shards()
	c.w.ArrayLen(len(shards))
	for _, sh := range shards {
		c.w.MapLen(2)
		c.w.BulkString("slots")
		c.w.ArrayLen(2 * len(sh.Ranges))
		for _, r := range sh.Ranges {
			c.w.Int(int64(r[0]))
			c.w.Int(int64(r[1]))
		}
		c.w.BulkString("nodes")
		c.w.ArrayLen(len(sh.Nodes))
		for _, n := range sh.Nodes {
			fields := 6 + shardPortFields(n.Route)
			if n.Hostname != "" {
				fields++
			}
			c.w.MapLen(fields)
			c.w.BulkString("id")
			c.w.BulkString(n.Name)
			writeShardPorts(c, n.Route)
			c.w.BulkString("ip")
			c.w.BulkString(c.nodeIP(&n.Route))
			c.w.BulkString("endpoint")
			c.w.BulkString(c.preferredEndpoint(&n.Route))
			if n.Hostname != "" {
				c.w.BulkString("hostname")
				c.w.BulkString(n.Hostname)
			}
			c.w.BulkString("role")
			if n.Primary {
				c.w.BulkString("master")
			} else {
				c.w.BulkString("replica")
			}
			c.w.BulkString("replication-offset")
			c.w.Int(int64(n.ReplOffset))
			c.w.BulkString("health")
			switch {
			case n.Failed:
				c.w.BulkString("fail")
			case !n.Primary && n.ReplOffset == 0:
				c.w.BulkString("loading")
			default:
				c.w.BulkString("online")
			}
		}
	}
}

func clusterKeyslotCommand(c *Client) {
	if clusterOn(c) != nil {
		c.w.Int(int64(cluster.KeySlot(c.ctx.Argv[2])))
	}
}

// parseInt64 answers Valkey's not-an-integer error when b is not one.
func parseInt64(c *Client, b []byte) (int64, bool) {
	n, ok := db.ParseInt(b)
	if !ok {
		c.w.Error(db.ErrNotInt)
	}
	return n, ok
}

// slotArg parses one slot argument (getSlotOrReply).
func slotArg(b []byte) (int, bool) {
	n, ok := db.ParseInt(b)
	if !ok || n < 0 || n >= cluster.Slots {
		return 0, false
	}
	return int(n), true
}

// changeSlots runs ADDSLOTS/DELSLOTS(RANGE): the arguments as ranges,
// checked in order as Valkey does.
func changeSlots(c *Client, ranged, del bool) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	argv := c.ctx.Argv
	if ranged && len(argv)%2 == 1 {
		c.w.Error("ERR wrong number of arguments for '" + c.curCmd.name + "' command")
		return
	}
	var args []cluster.SlotArg
	step := 1
	if ranged {
		step = 2
	}
	for i := 2; i < len(argv); i += step {
		start, ok1 := slotArg(argv[i])
		end, ok2 := start, true
		if ranged && ok1 {
			end, ok2 = slotArg(argv[i+1])
		}
		switch {
		case !ok1 || !ok2:
			args = append(args, cluster.SlotArg{Err: "Invalid or out of range slot"})
		case start > end:
			args = append(args, cluster.SlotArg{Err: "start slot number " + strconv.Itoa(start) +
				" is greater than end slot number " + strconv.Itoa(end)})
		default:
			args = append(args, cluster.SlotArg{Start: start, End: end})
		}
	}
	if !ranged {
		// ADDSLOTS and DELSLOTS parse every argument before checking any.
		for _, a := range args {
			if a.Err != "" {
				c.w.Error("ERR " + a.Err)
				return
			}
		}
	}
	e := cl.ChangeSlots(args, del)
	if e == "" && del {
		for _, a := range args {
			for sl := a.Start; sl <= a.End; sl++ {
				c.srv.slotStats.reset(sl)
			}
		}
	}
	clusterReply(c, e)
}

func clusterAddslotsCommand(c *Client)      { changeSlots(c, false, false) }
func clusterAddslotsrangeCommand(c *Client) { changeSlots(c, true, false) }
func clusterDelslotsCommand(c *Client)      { changeSlots(c, false, true) }
func clusterDelslotsrangeCommand(c *Client) { changeSlots(c, true, true) }

func (c *Client) dbEmpty() bool {
	return c.srv.ks.DBSize(0, c.ctx.Locked) == 0
}

func clusterFlushslotsCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	if !c.dbEmpty() {
		c.w.Error("ERR DB must be empty to perform CLUSTER FLUSHSLOTS.")
		return
	}
	cl.FlushSlots()
	c.srv.slotStats.resetAll()
	c.w.OK()
}

func clusterMeetCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	argv := c.ctx.Argv
	if len(argv) > 5 {
		c.w.Error("ERR wrong number of arguments for 'cluster|meet' command")
		return
	}
	port, ok := db.ParseInt(argv[3])
	if !ok {
		c.w.Error("ERR Invalid base port specified: " + cstr(argv[3]))
		return
	}
	cport := port + 10000
	if len(argv) == 5 {
		if cport, ok = db.ParseInt(argv[4]); !ok {
			c.w.Error("ERR Invalid bus port specified: " + cstr(argv[4]))
			return
		}
	}
	if port < 0 || port > 65535 || cport < 0 || cport > 65535 || !cl.Meet(string(argv[2]), int(port), int(cport)) {
		c.w.Error("ERR Invalid node address specified: " + cstr(argv[2]) + ":" + cstr(argv[3]))
		return
	}
	c.w.OK()
}

func clusterForgetCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	clusterReply(c, cl.Forget(string(c.ctx.Argv[2])))
}

func clusterResetCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	argv := c.ctx.Argv
	hard := false
	if len(argv) == 3 {
		switch strings.ToLower(string(argv[2])) {
		case "hard":
			hard = true
		case "soft":
		default:
			c.w.Error("ERR syntax error")
			return
		}
	} else if len(argv) > 3 {
		c.w.Error("ERR syntax error")
		return
	}
	replica := cl.IsReplica()
	if !replica && !c.dbEmpty() {
		c.w.Error("ERR CLUSTER RESET can't be called with master nodes containing keys")
		return
	}
	cl.Reset(hard)
	c.srv.slotStats.resetAll()
	if replica {
		// A replica becomes an empty primary.
		c.srv.stopReplication(c.ctx.Locked)
		c.srv.ks.FlushDB(0)
	}
	c.w.OK()
}

func clusterSaveconfigCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	if err := cl.SaveConfig(); err != nil {
		c.w.Error("ERR error saving the cluster node config: " + err.Error())
		return
	}
	c.w.OK()
}

func clusterBumpepochCommand(c *Client) {
	if cl := clusterOn(c); cl != nil {
		c.w.Simple(cl.BumpEpoch())
	}
}

func clusterSetConfigEpochCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	e, ok := parseInt64(c, c.ctx.Argv[2])
	if !ok {
		return
	}
	clusterReply(c, cl.SetConfigEpoch(e))
}

func clusterCountFailureReportsCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	n, ok := cl.CountFailureReports(string(c.ctx.Argv[2]))
	if !ok {
		c.w.Error("ERR Unknown node " + cstr(c.ctx.Argv[2]))
		return
	}
	c.w.Int(int64(n))
}

func clusterSetslotCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	argv := c.ctx.Argv
	slot, ok := slotArg(argv[2])
	if !ok {
		c.w.Error("ERR Invalid or out of range slot")
		return
	}
	action := strings.ToLower(string(argv[3]))
	name := ""
	switch {
	case (action == "migrating" || action == "importing" || action == "node") && len(argv) >= 5:
		name = string(argv[4])
	case action == "stable" && len(argv) >= 4:
	default:
		c.w.Error("ERR Invalid CLUSTER SETSLOT action or number of arguments. Try CLUSTER HELP")
		return
	}
	hasKeys := action == "node" && c.srv.ks.CountKeysInSlot(slot, c.ctx.Locked) > 0
	clusterReply(c, cl.SetSlot(slot, action, name, hasKeys))
}

func clusterReplicasCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	lines, e := cl.ReplicasFor(string(c.ctx.Argv[2]), c.tlsInfo(), c.clientIPv6())
	if e != "" {
		c.w.Error("ERR " + e)
		return
	}
	c.w.ArrayLen(len(lines))
	for _, l := range lines {
		c.w.BulkString(l)
	}
}

func clusterReplicateCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	host, port, e := cl.Replicate(string(c.ctx.Argv[2]), !c.dbEmpty())
	if e != "" {
		c.w.Error("ERR " + e)
		return
	}
	c.srv.startReplication(host, port, c.ctx.Locked)
	c.w.OK()
}

// CLUSTER LINKS: the bus's connections. Corvid queues whole messages
// for each link's writer, as Valkey's send queue: both buffer fields are
// the bytes queued and not yet written.
func clusterLinksCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	links := cl.Links()
	c.w.ArrayLen(len(links))
	for _, l := range links {
		c.w.MapLen(6)
		c.w.BulkString("direction")
		if l.To {
			c.w.BulkString("to")
		} else {
			c.w.BulkString("from")
		}
		c.w.BulkString("node")
		c.w.BulkString(l.Node)
		c.w.BulkString("create-time")
		c.w.Int(l.CreateTime)
		c.w.BulkString("events")
		if l.Queued > 0 {
			c.w.BulkString("rw")
		} else {
			c.w.BulkString("r")
		}
		c.w.BulkString("send-buffer-allocated")
		c.w.Int(l.Queued)
		c.w.BulkString("send-buffer-used")
		c.w.Int(l.Queued)
	}
}

// CLUSTER FAILOVER [FORCE|TAKEOVER]
func clusterFailoverCommand(c *Client) {
	cl := clusterOn(c)
	if cl == nil {
		return
	}
	argv := c.ctx.Argv
	force, takeover := false, false
	if len(argv) == 3 {
		switch strings.ToLower(string(argv[2])) {
		case "force":
			force = true
		case "takeover":
			takeover = true
		default:
			c.w.Error("ERR syntax error")
			return
		}
	} else if len(argv) > 3 {
		c.w.Error("ERR syntax error")
		return
	}
	clusterReply(c, cl.Failover(force, takeover))
}

var clusterHelpLines = []string{
	"CLUSTER <subcommand> [<arg> [value] [opt] ...]. Subcommands are:",
	"ADDSLOTS <slot> [<slot> ...]", "    Assign the slots to this node.",
	"ADDSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]", "    Assign the slots of the ranges to this node.",
	"BUMPEPOCH", "    Give this node a new, higher config epoch.",
	"COUNT-FAILURE-REPORTS <node-id>", "    Number of failure reports about <node-id>.",
	"COUNTKEYSINSLOT <slot>", "    Number of keys of <slot>.",
	"DELSLOTS <slot> [<slot> ...]", "    Unassign the slots.",
	"DELSLOTSRANGE <start slot> <end slot> [<start slot> <end slot> ...]", "    Unassign the slots of the ranges.",
	"FAILOVER [FORCE|TAKEOVER]", "    Make this replica its shard's primary (FORCE: by an election now; TAKEOVER: at once).",
	"FLUSHSLOTS", "    Unassign every slot of this node.",
	"FORGET <node-id>", "    Drop a node from this node's view of the cluster.",
	"GETKEYSINSLOT <slot> <count>", "    Up to <count> keys of <slot>.",
	"INFO", "    The cluster's state and counters.",
	"KEYSLOT <key>", "    The hash slot of <key>.",
	"LINKS", "    The bus's connections to and from other nodes.",
	"MEET <ip> <port> [<bus-port>]", "    Join the node at that address.",
	"MYID", "    This node's ID.",
	"MYSHARDID", "    This node's shard ID.",
	"NODES", "    The nodes as this node sees them, one per line.",
	"REPLICAS <node-id>", "    The replicas of <node-id>, as NODES lists them.",
	"REPLICATE <node-id>", "    Make this node a replica of <node-id>.",
	"RESET [HARD|SOFT]", "    Forget the cluster (HARD: take a new ID too).",
	"SAVECONFIG", "    Write the cluster configuration file now.",
	"SET-CONFIG-EPOCH <epoch>", "    Set this node's config epoch (only while it knows no other node).",
	"SETSLOT <slot> (IMPORTING <node-id>|MIGRATING <node-id>|STABLE|NODE <node-id>)", "    Change a slot's state.",
	"SHARDS", "    The shards: their slot ranges and nodes.",
	"SLOTS", "    The slot ranges with their nodes.",
	"SLOT-STATS SLOTSRANGE <start> <end> | ORDERBY key-count [LIMIT <n>] [ASC|DESC]", "    Statistics of this node's slots.",
	"HELP", "    Print this help.",
}

func clusterHelpCommand(c *Client) {
	if clusterOn(c) == nil {
		return
	}
	c.w.ArrayLen(len(clusterHelpLines))
	for _, l := range clusterHelpLines {
		c.w.Simple(l)
	}
}

// clusterHandlers lists the commands of cluster mode.
func clusterHandlers() []srvHandler {
	return []srvHandler{
		{spec: command.Asking, proc: askingCommand},
		{spec: command.Readonly, proc: readonlyCommand},
		{spec: command.Readwrite, proc: readwriteCommand},
		{spec: command.ClusterInfo, proc: clusterInfoCommand},
		{spec: command.ClusterMyid, proc: clusterMyidCommand},
		{spec: command.ClusterMyshardid, proc: clusterMyshardidCommand},
		{spec: command.ClusterNodes, proc: clusterNodesCommand},
		{spec: command.ClusterSlots, proc: clusterSlotsCommand},
		{spec: command.ClusterShards, proc: clusterShardsCommand},
		{spec: command.ClusterKeyslot, proc: clusterKeyslotCommand},
		{spec: command.ClusterCountkeysinslot, proc: clusterCountkeysinslotCommand},
		{spec: command.ClusterGetkeysinslot, proc: clusterGetkeysinslotCommand},
		{spec: command.ClusterAddslots, proc: clusterAddslotsCommand},
		{spec: command.ClusterAddslotsrange, proc: clusterAddslotsrangeCommand},
		{spec: command.ClusterDelslots, proc: clusterDelslotsCommand},
		{spec: command.ClusterDelslotsrange, proc: clusterDelslotsrangeCommand},
		{spec: command.ClusterFlushslots, proc: clusterFlushslotsCommand},
		{spec: command.ClusterMeet, proc: clusterMeetCommand},
		{spec: command.ClusterForget, proc: clusterForgetCommand},
		{spec: command.ClusterReset, proc: clusterResetCommand},
		{spec: command.ClusterSaveconfig, proc: clusterSaveconfigCommand},
		{spec: command.ClusterBumpepoch, proc: clusterBumpepochCommand},
		{spec: command.ClusterSetConfigEpoch, proc: clusterSetConfigEpochCommand},
		{spec: command.ClusterCountFailureReports, proc: clusterCountFailureReportsCommand},
		{spec: command.ClusterSetslot, proc: clusterSetslotCommand},
		{spec: command.ClusterReplicas, proc: clusterReplicasCommand},
		{spec: command.ClusterReplicate, proc: clusterReplicateCommand},
		{spec: command.ClusterLinks, proc: clusterLinksCommand},
		{spec: command.ClusterFailover, proc: clusterFailoverCommand},
		{spec: command.ClusterSlotStats, proc: clusterSlotStatsCommand},
		{spec: command.ClusterSlaves, proc: clusterReplicasCommand},
		{spec: command.ClusterHelp, proc: clusterHelpCommand},
	}
}
