package loadgen

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/corvid-kv/corvid/internal/bench/wire"
)

// maxRedirects bounds how often one request follows MOVED/ASK before it is
// counted as an error (a slot map that keeps moving is a broken cluster).
const maxRedirects = 5

// topology is an immutable slot map; replaced whole on change.
type topology struct {
	nodes []string
	slots [wire.Slots]uint16
}

// clusterShared is the slot map all clients of a run consult.
type clusterShared struct {
	mu   sync.Mutex // serialises writers; readers use the atomic pointer
	topo atomic.Pointer[topology]
}

func newClusterShared(ranges []wire.SlotRange) *clusterShared {
	t := &topology{}
	idx := map[string]uint16{}
	for _, r := range ranges {
		n, ok := idx[r.Addr]
		if !ok {
			n = uint16(len(t.nodes))
			idx[r.Addr] = n
			t.nodes = append(t.nodes, r.Addr)
		}
		for s := r.Start; s <= r.End; s++ {
			t.slots[s] = n
		}
	}
	cs := &clusterShared{}
	cs.topo.Store(t)
	return cs
}

func (cs *clusterShared) owner(slot int) string {
	t := cs.topo.Load()
	return t.nodes[t.slots[slot]]
}

// moved records that slot now lives at addr (copy-on-write).
func (cs *clusterShared) moved(slot int, addr string) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	old := cs.topo.Load()
	if old.nodes[old.slots[slot]] == addr {
		return
	}
	t := &topology{nodes: old.nodes, slots: old.slots}
	n := -1
	for i, a := range t.nodes {
		if a == addr {
			n = i
		}
	}
	if n < 0 {
		t.nodes = append(append([]string(nil), old.nodes...), addr)
		n = len(t.nodes) - 1
	}
	t.slots[slot] = uint16(n)
	cs.topo.Store(t)
}

// clusterState is a client's private view: one connection per node.
type clusterState struct {
	shared *clusterShared
	conns  []*wire.Conn
	byAddr map[string]int
	keyBuf []byte
	redirQ []redirect
}

type redirect struct {
	p    pending
	slot int
	addr string
	ask  bool
}

func (c *client) clusterConn(addr string) (int, error) {
	cs := c.cluster
	if i, ok := cs.byAddr[addr]; ok {
		return i, nil
	}
	conn, err := c.r.dial(addr)
	if err != nil {
		return 0, err
	}
	cs.byAddr[addr] = len(cs.conns)
	cs.conns = append(cs.conns, conn)
	return len(cs.conns) - 1, nil
}

func (c *client) closeCluster() {
	for _, cn := range c.cluster.conns {
		_ = cn.Close()
	}
}

// runCluster sends a batch of up to --pipeline requests routed by slot,
// one write per node, then reads every reply; MOVED/ASK replies are
// followed after the batch is drained so redirected requests never
// interleave with replies still owed on the same connection.
func (c *client) runCluster(ctx context.Context) {
	cs := c.cluster
	defer c.closeCluster()
	pipeline := c.r.cfg.Pipeline
	for {
		nowNs := c.now()
		for c.n < pipeline {
			ok, due := c.canSend(nowNs)
			if !ok {
				if due > 0 && c.n == 0 {
					nowNs = c.sleepUntil(ctx, due, nowNs)
					continue
				}
				break
			}
			cmd, keyIdx, key, data := c.gen.next()
			ni, err := c.clusterConn(cs.shared.owner(wire.Slot(key)))
			if err != nil {
				c.fail(err)
				return
			}
			conn := cs.conns[ni]
			before := len(conn.Out)
			conn.Out = c.r.w.cmds[cmd].tmpl.Append(conn.Out, key, data)
			c.push(pending{cmd: int32(cmd), row: int32(c.r.w.cmds[cmd].row), keyIdx: keyIdx,
				size: int32(len(conn.Out) - before), sent: due, node: int32(ni), dlen: int32(len(data))})
			c.sentReq++
		}
		if c.n == 0 {
			break
		}
		t := c.now()
		for _, conn := range cs.conns {
			if err := conn.Flush(); err != nil {
				c.fail(err)
				return
			}
		}
		var b batch
		for c.n > 0 {
			p := c.pop()
			if c.r.interval == 0 {
				p.sent = t
			}
			conn := cs.conns[p.node]
			nb, kind, msg, err := conn.Next()
			if err != nil {
				c.fail(err)
				return
			}
			p.size += int32(nb)
			if kind == wire.KindMoved || kind == wire.KindAsk {
				if slot, addr, ok := wire.Redirect(msg); ok {
					cs.redirQ = append(cs.redirQ, redirect{p: p, slot: slot, addr: addr, ask: kind == wire.KindAsk})
					continue
				}
			}
			at := int64(conn.LastRead.Sub(c.r.base))
			c.record(p, 0, kind, msg, at)
			b.add(p, 0, at)
		}
		for len(cs.redirQ) > 0 {
			rd := cs.redirQ[0]
			cs.redirQ = cs.redirQ[1:]
			if err := c.follow(rd, &b); err != nil {
				c.fail(err)
				return
			}
		}
		cs.redirQ = cs.redirQ[:0]
		c.publish(&b)
	}
	c.flushSamples()
}

// follow re-sends one redirected request (synchronously) until it gets a
// final reply or runs out of redirects.
func (c *client) follow(rd redirect, b *batch) error {
	cs := c.cluster
	p := rd.p
	ctr := &c.counters[p.row]
	slot, addr, ask := rd.slot, rd.addr, rd.ask
	for {
		if ask {
			ctr.Ask++
		} else {
			ctr.Moved++
			cs.shared.moved(slot, addr)
		}
		p.redirs++
		ni, err := c.clusterConn(addr)
		if err != nil {
			return err
		}
		conn := cs.conns[ni]
		if ask {
			conn.Out = wire.AppendCommand(conn.Out, "ASKING")
		}
		cs.keyBuf = c.gen.keyFor(cs.keyBuf, p.keyIdx)
		before := len(conn.Out)
		conn.Out = c.r.w.cmds[p.cmd].tmpl.Append(conn.Out, cs.keyBuf, c.gen.value[:p.dlen])
		p.size += int32(len(conn.Out) - before)
		if err := conn.Flush(); err != nil {
			return err
		}
		if ask {
			if _, _, _, err := conn.Next(); err != nil { // the ASKING +OK
				return err
			}
		}
		nb, kind, msg, err := conn.Next()
		if err != nil {
			return err
		}
		p.size += int32(nb)
		if (kind == wire.KindMoved || kind == wire.KindAsk) && p.redirs < maxRedirects {
			s, a, ok := wire.Redirect(msg)
			if ok {
				slot, addr, ask = s, a, kind == wire.KindAsk
				continue
			}
		}
		at := int64(conn.LastRead.Sub(c.r.base))
		// Moved/Ask were counted above; record must not count them again.
		c.record(p, 0, kindForRecord(kind), msg, at)
		b.add(p, 0, at)
		return nil
	}
}

// kindForRecord maps a redirect that ran out of hops to a plain error.
func kindForRecord(k wire.Kind) wire.Kind {
	if k == wire.KindMoved || k == wire.KindAsk {
		return wire.KindError
	}
	return k
}
