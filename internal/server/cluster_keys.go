package server

import (
	"math"
	"sort"

	"github.com/corvid-kv/corvid/internal/cluster"
)

// The keys of hash slots, in cluster mode. The keyspace is in slot mode
// (cluster.go's initCluster turns it on before anything is loaded): each
// stripe holds a fixed group of slots and counts its keys per slot
// (internal/db/cluster_keys.go), so these read a counter or walk the one
// stripe of a slot, never the whole keyspace. Counts and key lists are
// database 0's (the only one cluster mode serves) and include keys that
// have expired but are not collected yet, as Valkey's per-slot dicts do.

func clusterCountkeysinslotCommand(c *Client) {
	if clusterOn(c) == nil {
		return
	}
	slot, ok := parseInt64(c, c.ctx.Argv[2])
	if !ok {
		return
	}
	if slot < 0 || slot >= cluster.Slots {
		c.w.Error("ERR Invalid slot")
		return
	}
	c.w.Int(int64(c.srv.ks.CountKeysInSlot(int(slot), c.ctx.Locked)))
}

func clusterGetkeysinslotCommand(c *Client) {
	if clusterOn(c) == nil {
		return
	}
	slot, ok := parseInt64(c, c.ctx.Argv[2])
	if !ok {
		return
	}
	count, ok := parseInt64(c, c.ctx.Argv[3])
	if !ok {
		return
	}
	if slot < 0 || slot >= cluster.Slots || count < 0 {
		c.w.Error("ERR Invalid slot or number of keys")
		return
	}
	keys := c.srv.ks.KeysInSlot(int(slot), int(min(count, math.MaxInt32)), c.ctx.Locked)
	sort.Strings(keys)
	c.w.ArrayLen(len(keys))
	for _, k := range keys {
		c.w.BulkString(k)
	}
}

// deleteSlotsKeys deletes the keys of slots another node took over
// (Valkey's dirty slots), as the server's own deletions. Only the stripes
// of those slots are walked, one at a time.
func (s *Server) deleteSlotsKeys(slots []int) {
	s.slotStats.reset(slots...)
	keys := s.ks.KeysInSlots(slots)
	if len(keys) == 0 {
		return
	}
	s.log.warn("I lost ownership of %d slot(s) holding %d key(s): deleting them", len(slots), len(keys))
	for i := 0; i < len(keys); i += 100 {
		argv := [][]byte{[]byte("DEL")}
		for _, k := range keys[i:min(i+100, len(keys))] {
			argv = append(argv, []byte(k))
		}
		s.runInternal(argv)
	}
}

// runInternal runs a command as the server itself (no client
// connection; its reply is dropped).
func (s *Server) runInternal(argv [][]byte) {
	c := s.fakeClient()
	c.primaryLink = true // not routed
	if err := c.replayOne(argv); err != nil {
		s.log.warn("Deleting the keys of lost slots: %v", err)
	}
}
