package cluster

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"strconv"
	"sync/atomic"
	"time"
)

type netListener = net.Listener

// sendQueue is how many messages a link buffers for its writer before the
// link is dropped (a peer that does not read), whatever
// cluster-link-sendbuf-limit says (that limit, in bytes, is the cron's:
// Options.SendBufLimit).
const sendQueue = 1024

// link is one TCP connection of the bus (clusterLink). An outbound link
// (inbound false) is ours to node; an inbound one was accepted, and node
// is set once its sender is known. The reader and writer goroutines own
// conn's two directions; every other field is guarded by Cluster.mu.
type link struct {
	cl        *Cluster
	conn      net.Conn
	node      *Node
	inbound   bool
	connected bool // outbound: the dial succeeded
	ctime     int64
	out       chan []byte
	done      chan struct{}
	freed     bool
	// queued is how many bytes were queued and not yet written (added by
	// the senders under mu, subtracted by the writer without it).
	queued atomic.Int64
}

// Start listens on the bus port and starts the cron. Stop ends both.
func (cl *Cluster) Start() error {
	cl.mu.Lock()
	cl.stop = make(chan struct{})
	cl.mu.Unlock()
	if cl.opt.ListenBusPort != 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort(cl.opt.BindAddr, strconv.Itoa(cl.opt.ListenBusPort)))
		if err != nil {
			return err
		}
		cl.ln = ln
		cl.wg.Add(1)
		go cl.acceptLoop(ln)
	}
	cl.wg.Add(2)
	go cl.cronLoop()
	go cl.saverLoop()
	return nil
}

// Stop closes the listener and every link and waits for the goroutines.
func (cl *Cluster) Stop() {
	cl.mu.Lock()
	if cl.closed || cl.stop == nil {
		cl.closed = true
		cl.mu.Unlock()
		return
	}
	cl.closed = true
	close(cl.stop)
	if cl.ln != nil {
		cl.ln.Close()
	}
	for l := range cl.links {
		cl.freeLink(l)
	}
	cl.mu.Unlock()
	cl.wg.Wait()
}

func (cl *Cluster) acceptLoop(ln net.Listener) {
	defer cl.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return
			}
			time.Sleep(10 * time.Millisecond)
			continue
		}
		if cl.acceptTLS(conn) {
			continue // the handshake's goroutine adds the link
		}
		cl.mu.Lock()
		if cl.closed {
			cl.mu.Unlock()
			conn.Close()
			return
		}
		l := cl.newLink(nil, true)
		l.conn = conn
		l.connected = true
		cl.startLink(l)
		cl.mu.Unlock()
	}
}

func (cl *Cluster) newLink(n *Node, inbound bool) *link {
	l := &link{cl: cl, node: n, inbound: inbound, ctime: cl.now(), out: make(chan []byte, sendQueue), done: make(chan struct{})}
	cl.links[l] = struct{}{}
	return l
}

// startLink starts l's reader and writer. mu held.
func (cl *Cluster) startLink(l *link) {
	cl.wg.Add(2)
	go l.writeLoop()
	go l.readLoop()
}

// freeLink closes l (idempotent) and detaches it from its node. mu held.
func (cl *Cluster) freeLink(l *link) {
	if l == nil || l.freed {
		return
	}
	l.freed = true
	delete(cl.links, l)
	if l.node != nil {
		if l.node.link == l {
			l.node.link = nil
		}
		if l.node.inLink == l {
			l.node.inLink = nil
		}
	}
	close(l.done)
	if l.conn != nil {
		l.conn.Close()
	}
}

func (l *link) writeLoop() {
	defer l.cl.wg.Done()
	w := bufio.NewWriterSize(l.conn, 64<<10)
	for {
		select {
		case b := <-l.out:
			w.Write(b)
			n := len(b)
			for more := true; more; {
				select {
				case b := <-l.out:
					w.Write(b)
					n += len(b)
				default:
					more = false
				}
			}
			l.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
			err := w.Flush()
			l.queued.Add(-int64(n))
			if err != nil {
				l.cl.mu.Lock()
				l.cl.freeLink(l)
				l.cl.mu.Unlock()
				return
			}
		case <-l.done:
			return
		}
	}
}

func (l *link) readLoop() {
	defer l.cl.wg.Done()
	r := bufio.NewReaderSize(l.conn, 64<<10)
	buf := make([]byte, 0, FullLen)
	for {
		head, err := r.Peek(8)
		if err == nil {
			var n int
			n, err = MessageLen(head)
			if err == nil {
				if cap(buf) < n {
					buf = make([]byte, n)
				}
				buf = buf[:n]
				_, err = io.ReadFull(r, buf)
			}
		}
		var m *Message
		if err == nil {
			m, err = Decode(buf)
		}
		l.cl.mu.Lock()
		if err != nil || l.freed {
			l.cl.freeLink(l)
			l.cl.mu.Unlock()
			return
		}
		l.cl.process(l, m)
		l.cl.unlock()
	}
}

// send queues msg on l; a full queue drops the link. mu held.
func (cl *Cluster) send(l *link, m *Message) {
	if l == nil || l.freed || !l.connected {
		return
	}
	cl.durable()
	if int(m.Type) < TypeCount {
		cl.stats.sent[m.Type]++
	}
	cl.enqueue(l, m.Encode(nil))
}

// durable saves nodes.conf with fsync now when the section changed an
// epoch, a vote or a claim: before anything that advertises it leaves.
// mu held.
func (cl *Cluster) durable() {
	if cl.dirtyFsync {
		if err := cl.saveNow(); err != nil {
			cl.opt.Logf('#', "Could not save the cluster configuration: %v", err)
		}
	}
}

// enqueue hands b to l's writer; a full queue frees the link. mu held.
func (cl *Cluster) enqueue(l *link, b []byte) {
	l.queued.Add(int64(len(b))) // before the writer can take it
	select {
	case l.out <- b:
	default:
		l.queued.Add(-int64(len(b)))
		cl.freeLink(l)
	}
}

// header fills a message's header as this node (clusterBuildMessageHdr).
func (cl *Cluster) header(typ uint16) *Message {
	me := cl.myself
	m := &Message{}
	m.Type = typ
	copy(m.Sender[:], me.Name)
	prim := me
	if me.IsReplica() && me.Primary != nil {
		prim = me.Primary
		copy(m.ReplicaOf[:], prim.Name)
	}
	m.Slots = prim.slots
	if cl.announcedIP != "" {
		copy(m.MyIP[:], cl.announcedIP)
	}
	m.Port = uint16(me.Port)
	m.PPort = uint16(me.PPort) // the other client port (tls.go)
	m.CPort = uint16(me.CPort)
	m.Flags = me.Flags
	m.State = byte(cl.state)
	m.CurrentEpoch = cl.currentEpoch
	m.ConfigEpoch = prim.ConfigEpoch
	m.Offset = me.ReplOffset
	if me.IsPrimary() && cl.mf.end != 0 && cl.mf.pausedAt != 0 && cl.now()-cl.mf.pausedAt >= mfPausedFlag {
		m.MFlags[0] |= MFlagPaused
	}
	return m
}

// sendPing sends a PING, PONG or MEET with gossip sections and the ping
// extensions (clusterSendPing). mu held.
func (cl *Cluster) sendPing(l *link, typ uint16) {
	if l == nil || l.freed || !l.connected {
		return
	}
	m := cl.header(typ)
	if l.node != nil && typ == TypePing && l.node.PingSent == 0 && !l.inbound {
		l.node.PingSent = cl.now()
	}
	wanted := max(3, len(cl.nodes)/10)
	fresh := len(cl.nodes) - 2
	if wanted > fresh {
		wanted = fresh
	}
	candidates := make([]*Node, 0, len(cl.nodes))
	var pfail []*Node
	for _, n := range cl.nodes {
		if n.Flags&FlagPFail != 0 && n != cl.myself && !n.InHandshake() {
			pfail = append(pfail, n)
			continue
		}
		if n == cl.myself || n.Flags&(FlagHandshake|FlagNoAddr) != 0 || n.link == nil && n.NumSlots == 0 {
			continue
		}
		candidates = append(candidates, n)
	}
	rand.Shuffle(len(candidates), func(i, j int) { candidates[i], candidates[j] = candidates[j], candidates[i] })
	if len(candidates) > wanted && wanted >= 0 {
		candidates = candidates[:max(wanted, 0)]
	}
	for _, n := range append(candidates, pfail...) {
		m.Gossip = append(m.Gossip, gossipOf(n))
	}
	if h := cl.myself.Hostname; h != "" {
		m.Exts = append(m.Exts, Ext{Type: ExtHostname, Data: []byte(h)})
	}
	if h := cl.myself.HumanName; h != "" {
		m.Exts = append(m.Exts, Ext{Type: ExtHumanNodename, Data: []byte(h)})
	}
	if ip := cl.myself.ClientIPv4; ip != "" {
		m.Exts = append(m.Exts, Ext{Type: ExtClientIPv4, Data: []byte(ip)})
	}
	if ip := cl.myself.ClientIPv6; ip != "" {
		m.Exts = append(m.Exts, Ext{Type: ExtClientIPv6, Data: []byte(ip)})
	}
	now := cl.now()
	for name, exp := range cl.blacklist {
		if exp > now {
			var nm [NameLen]byte
			copy(nm[:], name)
			m.Exts = append(m.Exts, ForgottenNode(nm, uint64((exp-now)/1000)))
		}
	}
	var sid [NameLen]byte
	copy(sid[:], cl.myself.ShardID)
	m.Exts = append(m.Exts, ShardID(sid))
	cl.send(l, m)
}

func gossipOf(n *Node) Gossip {
	g := Gossip{PingSent: uint32(n.PingSent / 1000), PongReceived: uint32(n.PongReceived / 1000),
		Port: uint16(n.Port), CPort: uint16(n.CPort), Flags: n.Flags, PPort: uint16(n.PPort)}
	copy(g.Name[:], n.Name)
	copy(g.IP[:], n.IP)
	return g
}

func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}

// remoteIP is the link's peer address, without the port.
func remoteIP(c net.Conn) string {
	if a, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	h, _, _ := net.SplitHostPort(c.RemoteAddr().String())
	return h
}

func localIP(c net.Conn) string {
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok {
		return a.IP.String()
	}
	h, _, _ := net.SplitHostPort(c.LocalAddr().String())
	return h
}

// process handles one message (clusterProcessPacket). mu held.
func (cl *Cluster) process(l *link, m *Message) {
	now := cl.now()
	if int(m.Type) < TypeCount {
		cl.stats.received[m.Type]++
	}
	if m.Light {
		// PUBLISH over the light header: only from a known node's link.
		if l.node != nil && (m.Type == TypePublish || m.Type == TypePublishShard) {
			cl.pubs = append(cl.pubs, m)
		}
		return
	}
	senderName := string(m.Sender[:])
	sender := cl.nodes[senderName]
	if sender != nil && sender.InHandshake() {
		sender = nil
	}
	if sender != nil {
		sender.DataReceived = now
		if l.inbound && l.node == nil {
			// The inbound link's node (setClusterNodeToInboundClusterLink).
			if sender.inLink != nil && sender.inLink != l {
				cl.freeLink(sender.inLink)
			}
			sender.inLink = l
			l.node = sender
		}
		if m.CurrentEpoch > cl.currentEpoch {
			cl.currentEpoch = m.CurrentEpoch
			cl.dirtySave, cl.dirtyFsync = true, true
		}
		if m.ConfigEpoch > sender.ConfigEpoch && isZero(m.ReplicaOf[:]) {
			sender.ConfigEpoch = m.ConfigEpoch
			cl.dirtySave, cl.dirtyState, cl.dirtyFsync = true, true, true
		}
		sender.ReplOffset = m.Offset
	}
	switch m.Type {
	case TypePing, TypePong, TypeMeet:
		cl.processPing(l, m, sender, now)
	case TypePublish, TypePublishShard:
		if sender != nil {
			cl.pubs = append(cl.pubs, m)
		}
	case TypeMFStart:
		if sender != nil {
			cl.processMFStart(sender)
		}
	case TypeFailoverAuthRequest:
		if sender != nil {
			cl.sendFailoverAuthIfNeeded(l, sender, m)
		}
	case TypeFailoverAuthAck:
		if sender != nil && sender.IsPrimary() && sender.NumSlots > 0 && m.CurrentEpoch >= cl.failover.authEpoch {
			cl.failover.authCount++
			cl.handleReplicaFailover()
		}
	case TypeFail:
		if sender == nil {
			return
		}
		failing := cl.nodes[string(m.FailName[:])]
		if failing != nil && failing.Flags&(FlagFail|FlagMyself) == 0 {
			cl.opt.Logf('*', "FAIL message received from %s (%s) about %s (%s)", sender.Name, sender.HumanName, failing.Name, failing.HumanName)
			failing.Flags |= FlagFail
			failing.Flags &^= FlagPFail
			failing.FailTime = now
			cl.dirtySave, cl.dirtyState = true, true
		}
	case TypeUpdate:
		if sender == nil {
			return
		}
		n := cl.nodes[string(m.UpdateName[:])]
		if n == nil || n.ConfigEpoch >= m.UpdateEpoch {
			return
		}
		if n.IsReplica() {
			cl.setPrimaryFlags(n)
		}
		n.ConfigEpoch = m.UpdateEpoch
		cl.updateSlotsConfigWith(n, m.UpdateEpoch, &m.UpdateSlots)
		cl.dirtySave, cl.dirtyFsync = true, true
	}
}

func isZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// setPrimaryFlags turns a node into a primary (clusterSetNodeAsPrimary).
func (cl *Cluster) setPrimaryFlags(n *Node) {
	if n.IsPrimary() {
		return
	}
	if n.Primary != nil {
		n.Primary.removeReplica(n)
		if n != cl.myself {
			n.Flags |= FlagMigrateTo
		}
	}
	n.Flags = n.Flags&^FlagReplica | FlagPrimary
	n.Primary, n.PrimaryName = nil, ""
	cl.dirtySave, cl.dirtyState = true, true
}

func (cl *Cluster) processPing(l *link, m *Message, sender *Node, now int64) {
	// Learn our own IP from the first MEET (or any message while we do
	// not know it), unless it is announced.
	if (m.Type == TypeMeet || cl.myself.IP == "") && cl.announcedIP == "" {
		if ip := localIP(l.conn); ip != "" && ip != cl.myself.IP {
			cl.myself.IP = ip
			cl.dirtySave, cl.dirtyRouting = true, true
		}
	}
	// A MEET from an unknown node: add it, in handshake, under a random
	// name, to be connected to by the cron.
	if sender == nil && m.Type == TypeMeet {
		n := cl.newNode(RandomName(), FlagHandshake)
		n.IP = cstring(m.MyIP[:])
		if n.IP == "" {
			n.IP = remoteIP(l.conn)
		}
		n.Port, n.CPort, n.PPort = int(m.Port), int(m.CPort), int(m.PPort)
		cl.addNode(n)
		cl.dirtySave = true
		cl.processGossip(m, nil)
	}
	if m.Type == TypePing || m.Type == TypeMeet {
		cl.sendPing(l, TypePong)
	}
	if !l.inbound && l.node != nil {
		ln := l.node
		if ln.InHandshake() {
			if sender != nil {
				// Already known under its name: update its address and
				// drop the handshake node.
				cl.updateAddress(sender, l, m)
				cl.delNode(ln)
				return
			}
			name := string(m.Sender[:])
			cl.opt.Logf('-', "Handshake with node %s completed.", name)
			cl.renameNode(ln, name)
			ln.Flags &^= FlagHandshake
			ln.Flags |= m.Flags & (FlagPrimary | FlagReplica)
			cl.dirtySave, cl.dirtyState, cl.dirtyRouting = true, true, true
			sender = nil // as Valkey: the rest waits for the next message
		} else if ln.Name != string(m.Sender[:]) {
			// The node at that address has another ID now.
			ln.Flags |= FlagNoAddr
			ln.IP = ""
			ln.Port, ln.CPort = 0, 0
			cl.freeLink(l)
			cl.dirtySave = true
			return
		}
	}
	// Extensions: shard ID, hostname, human nodename, forgotten nodes.
	if sender != nil && m.MFlags[0]&MFlagExtData != 0 {
		cl.processExts(sender, m)
	}
	if sender != nil && m.Type == TypePing && !l.inbound {
		// (Valkey updates on inbound PINGs; an inbound link is the peer's.)
	}
	if sender != nil && m.Type == TypePing && l.inbound {
		if cl.updateAddress(sender, l, m) {
			cl.dirtySave, cl.dirtyRouting = true, true
		}
	}
	// PONG: the node is reachable.
	if !l.inbound && l.node != nil && m.Type == TypePong {
		n := l.node
		n.PongReceived = now
		n.PingSent = 0
		if n.TimedOut() {
			n.Flags &^= FlagPFail
			cl.dirtyState, cl.dirtyRouting = true, true
		} else if n.Failed() {
			cl.clearFailureIfNeeded(n)
		}
	}
	if sender == nil {
		return
	}
	// A manual failover: the paused primary's offset.
	if me := cl.myself; me.IsReplica() && me.Primary == sender && m.MFlags[0]&MFlagPaused != 0 &&
		cl.mf.end != 0 && cl.mf.primaryOffset < 0 {
		cl.mf.primaryOffset = int64(m.Offset)
		cl.manualCron()
	}
	// The nofailover flag is the sender's to say (replicas' ranks), and
	// so is whether it takes PUBLISH with the light header.
	if nf := m.Flags & FlagNoFailover; sender.Flags&FlagNoFailover != nf {
		sender.Flags = sender.Flags&^FlagNoFailover | nf
		cl.dirtySave = true
	}
	sender.Flags = sender.Flags&^FlagLightPublish | m.Flags&FlagLightPublish
	// Role.
	if isZero(m.ReplicaOf[:]) {
		cl.setPrimaryFlags(sender)
	} else {
		pname := string(m.ReplicaOf[:])
		if sender.IsPrimary() {
			for s := range Slots {
				if cl.slots[s] == sender {
					cl.delSlot(s)
				}
			}
			sender.Flags = sender.Flags&^(FlagPrimary|FlagMigrateTo) | FlagReplica
			cl.dirtySave, cl.dirtyState = true, true
		}
		if p := cl.nodes[pname]; p != nil && sender.Primary != p {
			if sender.Primary != nil {
				sender.Primary.removeReplica(sender)
			}
			sender.Primary = p
			sender.PrimaryName = ""
			addReplica(p, sender)
			sender.ShardID = p.ShardID
			cl.dirtySave = true
		}
	}
	// Slots: adopt the claims of a higher config epoch.
	if sender.IsPrimary() && sender.slots != m.Slots {
		cl.updateSlotsConfigWith(sender, m.ConfigEpoch, &m.Slots)
		// Tell a sender with a stale claim who owns the slot now.
		for s := range Slots {
			if m.Slots[s>>3]&(1<<(s&7)) == 0 {
				continue
			}
			o := cl.slots[s]
			if o == sender || o == nil || cl.importing[s] != nil {
				continue
			}
			if o.ConfigEpoch > m.ConfigEpoch {
				u := cl.header(TypeUpdate)
				u.UpdateEpoch = o.ConfigEpoch
				copy(u.UpdateName[:], o.Name)
				u.UpdateSlots = o.slots
				cl.send(l, u)
				break
			}
		}
	}
	// Config epoch collision between two primaries.
	if sender.IsPrimary() && cl.myself.IsPrimary() && m.ConfigEpoch == cl.myself.ConfigEpoch &&
		sender.Name > cl.myself.Name {
		cl.currentEpoch++
		cl.myself.ConfigEpoch = cl.currentEpoch
		cl.dirtySave, cl.dirtyFsync = true, true
		cl.durable()
		cl.opt.Logf('#', "WARNING: configEpoch collision with node %s. configEpoch set to %d", sender.Name, cl.currentEpoch)
	}
	cl.processGossip(m, sender)
}

// processExts applies a PING's extensions to its sender.
func (cl *Cluster) processExts(sender *Node, m *Message) {
	hostname, human, ipv4, ipv6 := "", "", "", ""
	for _, e := range m.Exts {
		switch e.Type {
		case ExtHostname:
			hostname = string(e.Data)
		case ExtHumanNodename:
			human = string(e.Data)
		case ExtClientIPv4:
			ipv4 = string(e.Data)
		case ExtClientIPv6:
			ipv6 = string(e.Data)
		case ExtForgottenNode:
			if len(e.Data) >= NameLen+8 {
				name := string(e.Data[:NameLen])
				if n := cl.nodes[name]; n != nil && n != cl.myself && !(cl.myself.IsReplica() && cl.myself.Primary == n) {
					ttl := int64(e.Data[NameLen])<<56 | int64(e.Data[NameLen+1])<<48 | int64(e.Data[NameLen+2])<<40 |
						int64(e.Data[NameLen+3])<<32 | int64(e.Data[NameLen+4])<<24 | int64(e.Data[NameLen+5])<<16 |
						int64(e.Data[NameLen+6])<<8 | int64(e.Data[NameLen+7])
					cl.blacklist[name] = cl.now() + ttl*1000
					cl.delNode(n)
				}
			}
		case ExtShardID:
			if len(e.Data) >= NameLen {
				id := string(e.Data[:NameLen])
				if sender.ShardID != id {
					sender.ShardID = id
					for _, r := range sender.Replicas {
						r.ShardID = id
					}
					cl.dirtySave = true
				}
			}
		}
	}
	if sender.Hostname != hostname {
		sender.Hostname = hostname
		cl.dirtySave, cl.dirtyRouting = true, true
	}
	if sender.HumanName != human {
		sender.HumanName = human
		cl.dirtySave = true
	}
	if sender.ClientIPv4 != ipv4 || sender.ClientIPv6 != ipv6 {
		sender.ClientIPv4, sender.ClientIPv6 = ipv4, ipv6
		cl.dirtySave, cl.dirtyRouting = true, true
	}
}

// updateAddress records the address a node's message came from when it
// differs (nodeUpdateAddressIfNeeded); true when it changed.
func (cl *Cluster) updateAddress(n *Node, l *link, m *Message) bool {
	if n == cl.myself || l == n.link {
		return false
	}
	ip := cstring(m.MyIP[:])
	if ip == "" {
		ip = remoteIP(l.conn)
	}
	if ip == n.IP && int(m.Port) == n.Port && int(m.PPort) == n.PPort && int(m.CPort) == n.CPort {
		return false
	}
	n.IP, n.Port, n.CPort, n.PPort = ip, int(m.Port), int(m.CPort), int(m.PPort)
	cl.freeLink(n.link)
	n.Flags &^= FlagNoAddr
	cl.opt.Logf('-', "Address updated for node %s, now %s:%d", n.Name, ip, n.Port)
	return true
}

// updateSlotsConfigWith gives sender the slots it claims with a higher
// config epoch than their owners' (clusterUpdateSlotsConfigWith). Keys
// of slots this node loses are reported (OnSlotsLost).
func (cl *Cluster) updateSlotsConfigWith(sender *Node, epoch uint64, slots *[slotBytes]byte) {
	if sender == cl.myself {
		return
	}
	me := cl.myself
	cur := me // the primary of this node's shard
	if me.IsReplica() && me.Primary != nil {
		cur = me.Primary
	}
	var newPrimary *Node
	claimed, migrated := 0, 0 // the sender's slots, and ours among them it takes
	for s := range Slots {
		if slots[s>>3]&(1<<(s&7)) == 0 {
			continue
		}
		claimed++
		o := cl.slots[s]
		if o == sender || cl.importing[s] != nil {
			continue
		}
		if o == nil || o.ConfigEpoch < epoch {
			if o == me {
				cl.lostSlots = append(cl.lostSlots, s)
			}
			if o == cur {
				newPrimary = sender
				migrated++
			}
			if cl.migrating[s] != nil && sender.ShardID != me.ShardID {
				// Moved by an operator, not a failover in our shard.
				cl.opt.Logf('*', "Slot %d is no longer being migrated to node %s.", s, cl.migrating[s].Name)
				delete(cl.migrating, s)
			}
			cl.delSlot(s)
			cl.addSlot(sender, s)
			cl.dirtyFsync = true
		}
	}
	// Our shard's primary lost its last slot to sender: follow sender as
	// a replica when it took exactly our shard's slots (a failover, or
	// the old primary back) or, with cluster-allow-replica-migration,
	// when the slots were moved away by resharding.
	allow, _ := cl.opt.ReplicaMigration()
	if newPrimary != nil && cur.NumSlots == 0 && newPrimary != me.Primary && (allow || claimed == migrated) {
		cl.opt.Logf('#', "Configuration change detected. Reconfiguring myself as a replica of %s", newPrimary.Name)
		cl.lostSlots = nil // the replication's full sync replaces the data
		cl.setMyPrimary(newPrimary)
	} else if p := me.Primary; me.IsReplica() && p != nil && p.IsReplica() && p.Primary != nil && p.Primary != me {
		// No sub-replicas: follow our primary's primary.
		cl.lostSlots = nil
		cl.setMyPrimary(p.Primary)
	}
}

// processGossip reads a PING's gossip sections
// (clusterProcessGossipSection): failure reports, and new nodes to meet.
func (cl *Cluster) processGossip(m *Message, sender *Node) {
	now := cl.now()
	for i := range m.Gossip {
		g := &m.Gossip[i]
		name := string(g.Name[:])
		n := cl.nodes[name]
		if n != nil {
			if sender != nil && sender.IsPrimary() && n != cl.myself {
				if g.Flags&(FlagFail|FlagPFail) != 0 {
					if _, ok := n.failReports[sender]; !ok {
						cl.opt.Logf('-', "Node %s (%s) reported node %s (%s) as not reachable.", sender.Name, sender.HumanName, n.Name, n.HumanName)
					}
					n.failReports[sender] = now
					cl.markFailingIfNeeded(n)
				} else {
					delete(n.failReports, sender)
				}
			}
			// A fresher pong seen by someone else: no need to ping it.
			if g.Flags&(FlagFail|FlagPFail) == 0 && n.PingSent == 0 && len(n.failReports) == 0 {
				if pr := int64(g.PongReceived) * 1000; pr <= now+500 && pr > n.PongReceived {
					n.PongReceived = pr
				}
			}
			// A node we see failing, at a new address by the gossip.
			if n.Flags&(FlagFail|FlagPFail) != 0 && n.link == nil && g.Flags&FlagNoAddr == 0 &&
				(cstring(g.IP[:]) != n.IP || int(g.Port) != n.Port || int(g.PPort) != n.PPort || int(g.CPort) != n.CPort) && n != cl.myself {
				n.IP, n.Port, n.PPort, n.CPort = cstring(g.IP[:]), int(g.Port), int(g.PPort), int(g.CPort)
				n.Flags &^= FlagNoAddr
				cl.dirtySave, cl.dirtyRouting = true, true
			}
			continue
		}
		if sender == nil || g.Flags&FlagNoAddr != 0 || cl.blacklisted(name) {
			continue
		}
		nn := cl.newNode(name, g.Flags&(FlagPrimary|FlagReplica))
		nn.IP, nn.Port, nn.CPort, nn.PPort = cstring(g.IP[:]), int(g.Port), int(g.CPort), int(g.PPort)
		nn.ShardID = RandomName()
		cl.addNode(nn)
		cl.dirtySave, cl.dirtyState = true, true
	}
}

func (cl *Cluster) blacklisted(name string) bool {
	exp, ok := cl.blacklist[name]
	if ok && exp <= cl.now() {
		delete(cl.blacklist, name)
		return false
	}
	return ok
}

// markFailingIfNeeded turns PFAIL into FAIL when a majority of the
// primaries agree, and tells everyone (markNodeAsFailingIfNeeded).
func (cl *Cluster) markFailingIfNeeded(n *Node) {
	if !n.TimedOut() || n.Failed() {
		return
	}
	cl.cleanFailReports(n)
	failures := len(n.failReports)
	if cl.myself.IsPrimary() {
		failures++
	}
	if failures < cl.size/2+1 {
		return
	}
	cl.opt.Logf('*', "Marking node %s (%s) as failing (quorum reached).", n.Name, n.HumanName)
	n.Flags = n.Flags&^FlagPFail | FlagFail
	n.FailTime = cl.now()
	m := cl.header(TypeFail)
	copy(m.FailName[:], n.Name)
	for _, o := range cl.nodes {
		if o.link != nil && o.Flags&(FlagMyself|FlagHandshake) == 0 {
			cl.send(o.link, m)
		}
	}
	cl.dirtySave, cl.dirtyState, cl.dirtyRouting = true, true, true
}

// clearFailureIfNeeded clears FAIL on a node that is reachable again
// (clearNodeFailureIfNeeded).
func (cl *Cluster) clearFailureIfNeeded(n *Node) {
	now := cl.now()
	if n.IsReplica() || n.NumSlots == 0 || n.IsPrimary() && now-n.FailTime > cl.opt.NodeTimeout()*2 {
		cl.opt.Logf('*', "Clear FAIL state for node %s (%s): is reachable again.", n.Name, n.HumanName)
		n.Flags &^= FlagFail
		cl.dirtySave, cl.dirtyState, cl.dirtyRouting = true, true, true
	}
}

// Meet starts a handshake with the node at ip:port, bus port cport
// (CLUSTER MEET): false when the address is invalid.
func (cl *Cluster) Meet(ip string, port, cport int) bool {
	addr := net.ParseIP(ip)
	if addr == nil || port <= 0 || port > 65535 || cport <= 0 || cport > 65535 {
		return false
	}
	norm := addr.String()
	cl.mu.Lock()
	defer cl.unlock()
	for _, n := range cl.nodes {
		if n.InHandshake() && n.IP == norm && n.Port == port && n.CPort == cport {
			return true // already in progress
		}
	}
	n := cl.newNode(RandomName(), FlagHandshake|FlagMeet)
	n.IP, n.Port, n.CPort = norm, port, cport
	n.ShardID = RandomName()
	cl.addNode(n)
	return true
}

func (cl *Cluster) cronLoop() {
	defer cl.wg.Done()
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-cl.stop:
			return
		case <-t.C:
			var off int64
			if cl.opt.ReplOffset != nil {
				off = cl.opt.ReplOffset()
			}
			factor, period, age := cl.opt.Validity()
			cl.mu.Lock()
			cl.myself.ReplOffset = uint64(off)
			cl.validity = validity{factor, period, age}
			cl.cron()
			cl.unlock()
		}
	}
}

// cron runs every 100 ms (clusterCron): handshake timeouts, links to
// (re)connect, pings, PFAIL. mu held.
func (cl *Cluster) cron() {
	cl.tick++
	now := cl.now()
	cl.applyTLSCluster()
	if cl.applyMyAddress() {
		cl.dirtySave, cl.dirtyRouting = true, true
	}
	timeout := cl.opt.NodeTimeout()
	handshakeTimeout := max(timeout, 1000)
	cl.dirtyState = true
	limit := cl.opt.SendBufLimit()
	for _, n := range cl.nodes {
		if n == cl.myself || n.Flags&FlagNoAddr != 0 {
			continue
		}
		cl.freeLinksOverLimit(n, limit)
		if n.InHandshake() && now-n.CTime > handshakeTimeout {
			cl.delNode(n)
			continue
		}
		if n.link == nil {
			cl.connect(n)
		}
	}
	cl.manualCron()
	if cl.myself.IsReplica() {
		cl.handleReplicaFailover()
		cl.replicaMigrationCron()
	}
	pingInterval := cl.opt.PingInterval()
	if pingInterval <= 0 {
		pingInterval = timeout / 2
	}
	// Every second, ping the node with the oldest pong of five random ones.
	if cl.tick%10 == 0 {
		var best *Node
		var cands []*Node
		for _, n := range cl.nodes {
			cands = append(cands, n)
		}
		for range 5 {
			if len(cands) == 0 {
				break
			}
			n := cands[rand.IntN(len(cands))]
			if n.link == nil || !n.link.connected || n.PingSent != 0 || n.Flags&(FlagMyself|FlagHandshake) != 0 {
				continue
			}
			if best == nil || n.PongReceived < best.PongReceived {
				best = n
			}
		}
		if best != nil {
			cl.sendPing(best.link, TypePing)
		}
	}
	for _, n := range cl.nodes {
		if n.Flags&(FlagMyself|FlagNoAddr|FlagHandshake) != 0 {
			continue
		}
		if l := n.link; l != nil && l.connected && now-l.ctime > timeout && n.PingSent != 0 &&
			now-n.PingSent > timeout/2 && now-n.DataReceived > timeout/2 {
			cl.freeLink(l) // a link that does not answer: reconnect
		}
		if l := n.link; l != nil && l.connected && n.PingSent == 0 && now-n.PongReceived > pingInterval {
			cl.sendPing(l, TypePing)
			continue
		}
		if n.PingSent == 0 {
			continue
		}
		if now-n.PingSent > timeout && now-n.DataReceived > timeout && n.Flags&(FlagPFail|FlagFail) == 0 {
			cl.opt.Logf('-', "*** NODE %s possibly failing", n.Name)
			n.Flags |= FlagPFail
			cl.dirtyRouting = true
			if cl.size == 1 && cl.myself.IsPrimary() {
				cl.markFailingIfNeeded(n)
			}
		}
	}
}

// freeLinksOverLimit frees n's links whose peer does not read fast
// enough: more than limit bytes (0: no limit) queued for the writer
// (clusterNodeCronFreeLinkOnBufferLimitReached). mu held.
func (cl *Cluster) freeLinksOverLimit(n *Node, limit int64) {
	if limit <= 0 {
		return
	}
	for _, l := range []*link{n.link, n.inLink} {
		if l != nil && l.queued.Load() > limit {
			dir := "to"
			if l.inbound {
				dir = "from"
			}
			cl.opt.Logf('#', "Freeing cluster link(%s node %s, used memory: %d) due to exceeding send buffer memory limit.",
				dir, n.Name, l.queued.Load())
			cl.freeLink(l)
			cl.stats.linksExceeded++
		}
	}
}

// connect opens an outbound link to n in the background; the first
// message is a MEET for a node we were told to meet, else a PING. mu held.
func (cl *Cluster) connect(n *Node) {
	if cl.closed {
		return
	}
	l := cl.newLink(n, false)
	n.link = l
	addr := net.JoinHostPort(n.IP, strconv.Itoa(n.CPort))
	timeout := time.Duration(max(cl.opt.NodeTimeout(), 1000)) * time.Millisecond
	cl.wg.Add(1)
	go func() {
		defer cl.wg.Done()
		conn, err := net.DialTimeout("tcp", addr, timeout)
		if err == nil {
			conn, err = cl.dialTLS(conn, addr, timeout) // unchanged when the bus is plaintext
		}
		cl.mu.Lock()
		defer cl.unlock()
		if err != nil || l.freed {
			if conn != nil {
				conn.Close()
			}
			cl.freeLink(l)
			if err != nil && n.PingSent == 0 && cl.nodes[n.Name] == n {
				// As if the PING had gone out: without a ping in
				// flight a node that refuses connections would never
				// time out.
				n.PingSent = cl.now()
			}
			return
		}
		l.conn = conn
		l.connected = true
		l.ctime = cl.now()
		cl.startLink(l)
		typ := uint16(TypePing)
		if n.Flags&FlagMeet != 0 {
			typ = TypeMeet
		}
		old := n.PingSent
		cl.sendPing(l, typ)
		if old != 0 {
			n.PingSent = old // a reconnection does not restart the timeout
		}
		if typ == TypeMeet {
			n.PingSent = cl.now()
		}
		n.Flags &^= FlagMeet
	}()
}

// Publish sends a PUBLISH to every other node, or an SPUBLISH to the
// other nodes of this node's shard (clusterPropagatePublish): with the
// light header to the nodes that announce they take it, else the full
// one. Each form is encoded once.
func (cl *Cluster) Publish(shard bool, channel, message []byte) {
	cl.mu.Lock()
	defer cl.mu.Unlock()
	typ := uint16(TypePublish)
	if shard {
		typ = TypePublishShard
	}
	cl.durable()
	var full, light []byte
	for _, n := range cl.nodes {
		if n == cl.myself || n.Flags&(FlagHandshake|FlagNoAddr) != 0 {
			continue
		}
		if shard && n.ShardID != cl.myself.ShardID {
			continue
		}
		l := n.link
		if l == nil || l.freed || !l.connected {
			continue
		}
		cl.stats.sent[typ]++
		if n.Flags&FlagLightPublish != 0 {
			if light == nil {
				lm := &Message{Header: Header{Type: typ, Light: true}, Channel: channel, Payload: message}
				light = lm.Encode(nil)
			}
			cl.enqueue(l, light)
			continue
		}
		if full == nil {
			m := cl.header(typ)
			m.Channel, m.Payload = channel, message
			full = m.Encode(nil)
		}
		cl.enqueue(l, full)
	}
}
