package cluster

import "math/rand/v2"

// Automatic failover (cluster_legacy.c's clusterHandleReplicaFailover and
// clusterSendFailoverAuthIfNeeded): a replica whose primary is FAIL asks
// the primaries for their vote in a new epoch, after a delay that grows
// with its rank among its primary's replicas; with a majority it takes
// its primary's slots with that epoch and tells everyone. A primary
// votes once per epoch, and once per 2 node timeouts for a given failed
// primary. Manual failover (CLUSTER FAILOVER, MFSTART) is not built.

// failoverState is a replica's election in progress. Guarded by mu.
type failoverState struct {
	authTime  int64  // ms: when the election starts (or started)
	authCount int    // votes received
	authSent  bool   // the request went out
	authEpoch uint64 // the epoch asked for
	authRank  int
}

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
	if !me.IsReplica() || p == nil || !p.Failed() || p.NumSlots == 0 || me.Flags&FlagNoFailover != 0 {
		return
	}
	now := cl.now()
	timeout := cl.opt.NodeTimeout()
	authTimeout := max(timeout*2, 2000)
	authRetry := authTimeout * 2
	f := &cl.failover
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
	if !f.authSent {
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
		for _, n := range cl.nodes {
			if n.link != nil && n.Flags&(FlagMyself|FlagHandshake) == 0 {
				cl.send(n.link, m)
			}
		}
		cl.dirtySave = true
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
	old := p
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
	cl.dirtySave, cl.dirtyState, cl.dirtyRouting = true, true, true
	cl.updateState()
	// Everyone learns the new configuration at once.
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
	cl.dirtySave = true
	cl.opt.Logf('#', "Failover auth granted to %s for epoch %d", sender.Name, cl.currentEpoch)
	cl.send(l, cl.header(TypeFailoverAuthAck))
}
