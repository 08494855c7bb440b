package cluster

import (
	"math/rand/v2"
	"sort"
)

// Automatic failover (cluster_legacy.c's clusterHandleReplicaFailover and
// clusterSendFailoverAuthIfNeeded): a replica whose primary is FAIL asks
// the primaries for their vote in a new epoch, after a delay that grows
// with its rank among its primary's replicas; with a majority it takes
// its primary's slots with that epoch and tells everyone. A primary
// votes once per epoch, and once per 2 node timeouts for a given failed
// primary. A replica whose data is too old (cluster-replica-validity-factor)
// does not stand. Manual failover: CLUSTER FAILOVER [FORCE|TAKEOVER]
// (MFSTART, the primary's pause) below and in gossip.go.

// failoverState is a replica's election in progress. Guarded by mu.
type failoverState struct {
	authTime  int64  // ms: when the election starts (or started)
	authCount int    // votes received
	authSent  bool   // the request went out
	authEpoch uint64 // the epoch asked for
	authRank  int
	// manualEnd is set by CLUSTER FAILOVER FORCE: until then the
	// election runs at once and without the primary failing, and asks
	// the primaries to vote anyway (MFlagForceAck).
	manualEnd int64
}

// mfTimeout is CLUSTER_MF_TIMEOUT.
const mfTimeout = 5000

// roleChange is what the server must do after a locked section: start
// replicating from ip:port, or stop replicating (ip "").
type roleChange struct {
	ip   string
	port int
}

// rank is this replica's rank among its primary's replicas: how many
// have a higher replication offset (clusterGetReplicaRank).
func (cl *Cluster) rank() int {
	me := cl.myself
	p := me.Primary
	if p == nil {
		return 0
	}
	r := 0
	for _, o := range p.Replicas {
		if o != me && o.Flags&FlagNoFailover == 0 && o.ReplOffset > me.ReplOffset {
			r++
		}
	}
	return r
}

// handleReplicaFailover runs from the cron and after a vote. mu held.
func (cl *Cluster) handleReplicaFailover() {
	me := cl.myself
	p := me.Primary
	now := cl.now()
	f := &cl.failover
	manual := f.manualEnd != 0 && now < f.manualEnd
	if f.manualEnd != 0 && !manual {
		cl.opt.Logf('#', "Manual failover timed out.")
		f.manualEnd = 0
	}
	if !me.IsReplica() || p == nil || !p.Failed() && !manual || p.NumSlots == 0 || me.Flags&FlagNoFailover != 0 && !manual {
		return
	}
	timeout := cl.opt.NodeTimeout()
	if !manual && cl.dataTooOld(timeout, now) {
		return
	}
	authTimeout := max(timeout*2, 2000)
	authRetry := authTimeout * 2
	if manual && f.authTime == 0 {
		// A manual failover starts its election at once.
		f.authTime, f.authCount, f.authSent, f.authRank = now, 0, false, 0
	}
	if elapsed := now - f.authTime; elapsed > authRetry {
		// Schedule a new election: 500 ms fixed, up to 500 ms random,
		// one second per rank.
		f.authTime = now + 500 + rand.Int64N(500)
		f.authCount = 0
		f.authSent = false
		f.authRank = cl.rank()
		f.authTime += int64(f.authRank) * 1000
		cl.opt.Logf('#', "Start of election delayed for %d milliseconds (rank #%d, offset %d).",
			f.authTime-now, f.authRank, me.ReplOffset)
		return
	}
	if !f.authSent && !manual {
		// A better rank since the schedule delays the election.
		if r := cl.rank(); r > f.authRank {
			f.authTime += int64(r-f.authRank) * 1000
			f.authRank = r
		}
	}
	if now < f.authTime || now-f.authTime > authTimeout {
		return
	}
	if !f.authSent {
		cl.currentEpoch++
		f.authEpoch = cl.currentEpoch
		f.authSent = true
		cl.opt.Logf('#', "Starting a failover election for epoch %d.", cl.currentEpoch)
		m := cl.header(TypeFailoverAuthRequest)
		if manual {
			m.MFlags[0] |= MFlagForceAck
		}
		cl.dirtySave, cl.dirtyFsync = true, true // durable before the request leaves (send)
		for _, n := range cl.nodes {
			if n.link != nil && n.Flags&(FlagMyself|FlagHandshake) == 0 {
				cl.send(n.link, m)
			}
		}
		return
	}
	if f.authCount < cl.size/2+1 {
		return
	}
	// Elected: take the primary's slots with the new epoch.
	cl.opt.Logf('#', "Failover election won: I'm the new master.")
	if me.ConfigEpoch < f.authEpoch {
		me.ConfigEpoch = f.authEpoch
	}
	cl.replacePrimary()
}

// replacePrimary makes this replica the primary of its shard with its
// primary's slots, and tells everyone (clusterFailoverReplaceYourPrimary).
func (cl *Cluster) replacePrimary() {
	me := cl.myself
	old := me.Primary
	cl.failover = failoverState{}
	cl.resetManual()
	old.removeReplica(me)
	me.Flags = me.Flags&^FlagReplica | FlagPrimary
	me.Primary, me.PrimaryName = nil, ""
	for s := range Slots {
		if cl.slots[s] == old {
			cl.delSlot(s)
			cl.addSlot(me, s)
		}
	}
	cl.role = &roleChange{}
	cl.dirtySave, cl.dirtyState, cl.dirtyRouting, cl.dirtyFsync = true, true, true, true
	cl.updateState()
	cl.durable()
	cl.broadcastPong() // everyone learns the new configuration at once
}

// broadcastPong sends a PONG to every node with a link
// (clusterBroadcastPong(CLUSTER_BROADCAST_ALL)). mu held.
func (cl *Cluster) broadcastPong() {
	for _, n := range cl.nodes {
		if n.link != nil && n.Flags&(FlagMyself|FlagHandshake) == 0 {
			cl.sendPing(n.link, TypePong)
		}
	}
}

// sendFailoverAuthIfNeeded answers a replica's vote request
// (clusterSendFailoverAuthIfNeeded). mu held.
func (cl *Cluster) sendFailoverAuthIfNeeded(l *link, sender *Node, m *Message) {
	me := cl.myself
	if !me.IsPrimary() || me.NumSlots == 0 {
		return
	}
	if m.CurrentEpoch < cl.currentEpoch || cl.lastVoteEpoch == cl.currentEpoch {
		return
	}
	p := sender.Primary
	if !sender.IsReplica() || p == nil {
		return
	}
	force := m.MFlags[0]&MFlagForceAck != 0
	if !p.Failed() && !force {
		return
	}
	now := cl.now()
	if now-p.votedTime < cl.opt.NodeTimeout()*2 {
		return
	}
	for s := range Slots {
		if m.Slots[s>>3]&(1<<(s&7)) == 0 {
			continue
		}
		if o := cl.slots[s]; o != nil && o.ConfigEpoch > m.ConfigEpoch {
			return // the request's claims are stale
		}
	}
	cl.lastVoteEpoch = cl.currentEpoch
	p.votedTime = now
	cl.dirtySave, cl.dirtyFsync = true, true // durable before the vote leaves (send)
	cl.opt.Logf('#', "Failover auth granted to %s for epoch %d", sender.Name, cl.currentEpoch)
	cl.send(l, cl.header(TypeFailoverAuthAck))
}

// Failover is CLUSTER FAILOVER FORCE (force) or TAKEOVER (takeover) on
// a replica: "" or Valkey's error text. TAKEOVER takes the slots at once
// with an epoch of its own; FORCE runs an election now, asking the
// primaries to vote although the primary is not failing.
func (cl *Cluster) Failover(force, takeover bool) string {
	cl.lockReply()
	defer cl.unlock()
	me := cl.myself
	switch {
	case me.IsPrimary():
		return "You should send CLUSTER FAILOVER to a replica"
	case me.Primary == nil:
		return "I'm a replica but my master is unknown to me"
	case !force && !takeover && (me.Primary.Failed() || me.Primary.link == nil):
		return "Master is down or failed, please use CLUSTER FAILOVER FORCE"
	}
	if takeover {
		cl.opt.Logf('#', "Taking over the master (user request).")
		maxEpoch := cl.maxEpoch()
		if me.ConfigEpoch == 0 || me.ConfigEpoch != maxEpoch {
			cl.currentEpoch++
			me.ConfigEpoch = cl.currentEpoch
			cl.dirtySave, cl.dirtyFsync = true, true
		}
		cl.replacePrimary()
		return ""
	}
	if !force {
		// Ask the primary to pause its writes and tell its offset; the
		// election starts once this replica has processed that much.
		cl.opt.Logf('#', "Manual failover user request accepted.")
		cl.failover = failoverState{}
		cl.mf = manualState{end: cl.now() + mfTimeout, primaryOffset: -1}
		cl.send(me.Primary.link, cl.header(TypeMFStart))
		return ""
	}
	cl.opt.Logf('#', "Forced failover user request accepted.")
	cl.failover = failoverState{manualEnd: cl.now() + mfTimeout}
	cl.handleReplicaFailover()
	return ""
}

// manualState is a manual failover (CLUSTER FAILOVER without an option)
// in progress, on either side. Guarded by mu.
type manualState struct {
	end int64 // ms: when it times out; 0 for none
	// The primary's side: the replica that asked, when this node's
	// writes were paused (the server is told after the lock).
	replica  *Node
	pausedAt int64
	// The replica's side: the paused primary's offset (-1 until a PING
	// with the paused flag tells it).
	primaryOffset int64
}

// mfPausedFlag is how long after pausing its writes a primary starts
// announcing the pause (and its offset): commands already running when
// the pause began have finished, and the cron has read the offset again.
const mfPausedFlag = 200

// setPause asks the server, after the lock, to pause or resume writes for
// a manual failover; it keeps the requests paired.
func (cl *Cluster) setPause(on bool) {
	if on == cl.mfPaused {
		return
	}
	cl.mfPaused = on
	cl.pauseReqs = append(cl.pauseReqs, on)
}

// resetManual ends a manual failover on either side (resetManualFailover).
func (cl *Cluster) resetManual() {
	cl.mf = manualState{}
	cl.setPause(false)
}

// processMFStart: this primary's replica asks for a manual failover.
func (cl *Cluster) processMFStart(sender *Node) {
	me := cl.myself
	if !me.IsPrimary() || sender.Primary != me {
		return
	}
	cl.resetManual()
	cl.opt.Logf('#', "Manual failover requested by replica %s.", sender.Name)
	now := cl.now()
	cl.mf = manualState{end: now + mfTimeout, replica: sender, pausedAt: now, primaryOffset: -1}
	cl.setPause(true)
}

// manualCron runs every cron tick for a manual failover in progress.
func (cl *Cluster) manualCron() {
	mf := &cl.mf
	if mf.end == 0 {
		return
	}
	now := cl.now()
	if now > mf.end {
		cl.opt.Logf('#', "Manual failover timed out.")
		cl.resetManual()
		return
	}
	me := cl.myself
	if me.IsPrimary() {
		if mf.replica != nil && mf.replica.link != nil && now-mf.pausedAt >= mfPausedFlag {
			cl.sendPing(mf.replica.link, TypePing) // carries the paused flag and the offset
		}
		return
	}
	if mf.primaryOffset >= 0 && int64(me.ReplOffset) >= mf.primaryOffset && cl.failover.manualEnd == 0 {
		cl.opt.Logf('#', "All primary replication stream processed, manual failover can start.")
		cl.failover = failoverState{manualEnd: mf.end}
		cl.handleReplicaFailover()
	}
}

// addReplica lists r among p's replicas, sorted by name, and marks p as
// a primary that had replicas, a target of replica migration
// (clusterNodeAddReplica).
func addReplica(p, r *Node) {
	for _, x := range p.Replicas {
		if x == r {
			return
		}
	}
	p.Replicas = append(p.Replicas, r)
	sort.Slice(p.Replicas, func(i, j int) bool { return p.Replicas[i].Name < p.Replicas[j].Name })
	p.Flags |= FlagMigrateTo
}

// setMyPrimary makes this node a replica of n, closing its open slots
// (clusterSetPrimary); the server is told to replicate from n after the
// lock. This node holds no slots.
func (cl *Cluster) setMyPrimary(n *Node) {
	me := cl.myself
	if me.IsPrimary() {
		me.Flags = me.Flags&^(FlagPrimary|FlagMigrateTo) | FlagReplica
	} else if me.Primary != nil {
		me.Primary.removeReplica(me)
	}
	clear(cl.migrating)
	clear(cl.importing)
	me.Primary, me.PrimaryName = n, ""
	addReplica(n, me)
	me.ShardID = n.ShardID
	cl.resetManual()
	cl.failover = failoverState{}
	cl.role = &roleChange{ip: n.IP, port: cl.replPort(n)}
	cl.dirtySave, cl.dirtyState, cl.dirtyRouting = true, true, true
}

// countOKReplicas is how many of n's replicas are not FAIL
// (clusterCountNonFailingReplicas).
func countOKReplicas(n *Node) int {
	c := 0
	for _, r := range n.Replicas {
		if !r.Failed() {
			c++
		}
	}
	return c
}

// replicaMigrationDelay is CLUSTER_REPLICA_MIGRATION_DELAY: how long a
// primary must have been orphaned before a replica migrates to it.
const replicaMigrationDelay = 5000

// replicaMigrationCron is clusterCron's part for replica migration: a
// replica of a primary with the most working replicas (at least two)
// considers moving to an orphaned primary, one with slots that had
// replicas and has no working one. mu held.
func (cl *Cluster) replicaMigrationCron() {
	me := cl.myself
	if !me.IsReplica() {
		return
	}
	orphaned, maxReplicas, mine := 0, 0, 0
	for _, n := range cl.nodes {
		if n.Flags&(FlagMyself|FlagNoAddr|FlagHandshake) != 0 || !n.IsPrimary() || n.Failed() {
			continue
		}
		ok := countOKReplicas(n)
		if ok == 0 && n.NumSlots > 0 && n.Flags&FlagMigrateTo != 0 {
			orphaned++
		}
		maxReplicas = max(maxReplicas, ok)
		if me.Primary == n {
			mine = ok
		}
	}
	if allow, _ := cl.opt.ReplicaMigration(); orphaned > 0 && maxReplicas >= 2 && mine == maxReplicas && allow {
		cl.handleReplicaMigration(maxReplicas)
	}
}

// handleReplicaMigration is clusterHandleReplicaMigration: when the
// cluster is ok and this node's primary keeps more than
// cluster-migration-barrier working replicas, the replica with the
// smallest name among those of the primaries with maxReplicas working
// replicas becomes a replica of an orphaned primary, once that primary
// has been orphaned for replicaMigrationDelay. mu held.
func (cl *Cluster) handleReplicaMigration(maxReplicas int) {
	me := cl.myself
	if cl.state != StateOK || me.Primary == nil {
		return
	}
	ok := 0
	for _, r := range me.Primary.Replicas {
		if !r.Failed() && !r.TimedOut() {
			ok++
		}
	}
	if _, barrier := cl.opt.ReplicaMigration(); ok <= barrier {
		return
	}
	now := cl.now()
	var target *Node
	candidate := me
	for _, n := range cl.sortedNodes() {
		okr := 0
		orphan := !n.IsReplica() && !n.Failed() && n.Flags&FlagMigrateTo != 0
		if n.IsPrimary() {
			okr = countOKReplicas(n)
		}
		if okr > 0 {
			orphan = false
		}
		if orphan {
			if target == nil && n.NumSlots > 0 {
				target = n
			}
			if n.orphanedTime == 0 {
				n.orphanedTime = now
			}
		} else {
			n.orphanedTime = 0
		}
		if okr == maxReplicas {
			for _, r := range n.Replicas {
				if r.Name < candidate.Name {
					candidate = r
				}
			}
		}
	}
	if target != nil && candidate == me && now-target.orphanedTime > replicaMigrationDelay {
		cl.opt.Logf('*', "Migrating to orphaned primary %s", target.Name)
		cl.setMyPrimary(target)
	}
}

// maxEpoch is the highest config epoch known, or the current epoch when
// that is higher (clusterGetMaxEpoch): a node that bumps its epoch
// without consensus must end above every epoch it has heard of.
func (cl *Cluster) maxEpoch() uint64 {
	m := cl.currentEpoch
	for _, n := range cl.nodes {
		m = max(m, n.ConfigEpoch)
	}
	return m
}

// dataTooOld is clusterHandleReplicaFailover's data age check: with
// cluster-replica-validity-factor set, a replica that has not heard from
// its primary for longer than the ping period plus factor node timeouts
// (the node timeout itself not counted) does not stand for election; a
// manual failover skips the check. mu held.
func (cl *Cluster) dataTooOld(timeout, now int64) bool {
	factor, period, age := cl.validity.factor, cl.validity.period, cl.validity.age
	if age > timeout {
		age -= timeout
	}
	if factor == 0 || age <= period*1000+timeout*int64(factor) {
		return false
	}
	// clusterLogCantFailover: at most every 10 s for the same reason,
	// and not before the primary has been failing for a node timeout.
	if cl.cantFailoverLogged == 0 || now-cl.cantFailoverLogged > 10000 {
		if p := cl.myself.Primary; p != nil && now-p.FailTime > timeout {
			cl.cantFailoverLogged = now
			cl.opt.Logf('*', "Currently unable to failover: Disconnected from primary for longer than allowed. Please check the 'cluster-replica-validity-factor' configuration option.")
		}
	}
	return true
}

// validity is what dataTooOld needs from the server (Options.Validity).
type validity struct {
	factor      int
	period, age int64
}
