package server

import (
	"sort"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/corvid-kv/corvid/internal/cluster"
	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/tsc"
)

// CLUSTER SLOT-STATS and the per-slot counters behind it
// (cluster-slot-stats-enabled), as Valkey 8.0.1's cluster_slot_stats.c.
//
// key-count is always reported, from the keyspace's per-slot counts. With
// cluster-slot-stats-enabled yes every command run with a slot (a keyed
// command served here, c.cluster.slot >= 0) adds to its slot: cpu-usec,
// the command's run time (EXEC's and a script's include the commands they
// run, which add nothing of their own; a command queued in MULTI adds no
// time); network-bytes-in, the command's request as the client sent it
// (EXEC adds MULTI's 15 bytes, as Valkey's accounting does, and the
// commands it ran were counted as they were queued); network-bytes-out,
// its reply. The counters are atomic adds into a table allocated with the
// cluster (16384 x 24 bytes); with the directive off the cost is one
// configuration load per keyed command. A slot's counters are reset when
// it leaves this node (DELSLOTS, FLUSHSLOTS, taken over) and by CONFIG
// RESETSTAT.
//
// Not counted, where Valkey counts: the replication stream's bytes for
// the slot (times the replicas), the messages SPUBLISH delivers to this
// node's subscribers, and the time of a blocking command served after it
// waited (Valkey counts the run that serves it; here a blocking command
// adds bytes, no time).

// slotStat is one slot's counters.
type slotStat struct {
	cpu, in, out atomic.Int64
}

type slotStats [cluster.Slots]slotStat

// resetAll zeroes every slot's counters; reset those of the slots given.
func (t *slotStats) resetAll() {
	for i := range t {
		t.reset(i)
	}
}

func (t *slotStats) reset(slots ...int) {
	for _, s := range slots {
		t[s].cpu.Store(0)
		t[s].in.Store(0)
		t[s].out.Store(0)
	}
}

// slotStatsOn reports whether the command about to run counts toward a
// slot's statistics.
func (c *Client) slotStatsOn() bool {
	return c.srv.slotStats != nil && c.cluster.slot >= 0 && c.srv.cfg.ClusterSlotStatsEnabled()
}

// executeCounted runs (or queues) a command that passed execute's checks
// and adds it to its slot's counters.
func (c *Client) executeCounted(cm *cmd, argv [][]byte) {
	slot, start, mark := c.cluster.slot, tsc.Now(), c.w.Len()
	queued := c.multi != nil && !multiControl(cm.meta)
	in := requestBytes(argv, c.rd.Inline) // argv may be reused once it ran
	if cm.meta == command.Exec {
		in += 15 // *1\r\n$5\r\nmulti\r\n
	}
	if !c.run(cm, argv) {
		return // run again (after a pause, or off the loop), counted then
	}
	st := &c.srv.slotStats[slot]
	st.in.Add(int64(in))
	if n := c.w.Len() - mark; n > 0 {
		st.out.Add(int64(n))
	}
	if !queued && cm.meta.Flags&command.FlagBlocking == 0 {
		st.cpu.Add(tsc.Nanos(tsc.Now()-start) / 1000)
	}
}

// requestBytes is the size of a request as a client sends it: the
// multibulk form, or an inline line (its arguments separated by single
// spaces).
func requestBytes(argv [][]byte, inline bool) int {
	if inline {
		n := 2
		for i, a := range argv {
			if i > 0 {
				n++
			}
			n += len(a)
		}
		return n
	}
	n := 3 + decimalLen(len(argv))
	for _, a := range argv {
		n += 5 + decimalLen(len(a)) + len(a)
	}
	return n
}

func decimalLen(n int) int {
	d := 1
	for n >= 10 {
		n /= 10
		d++
	}
	return d
}

// slotStatMetric is an ORDERBY metric's index in slotStatValue, -1 for
// none.
func slotStatMetric(name string, enabled bool) int {
	switch strings.ToLower(name) {
	case "key-count":
		return 0
	case "cpu-usec":
		if enabled {
			return 1
		}
	case "network-bytes-in":
		if enabled {
			return 2
		}
	case "network-bytes-out":
		if enabled {
			return 3
		}
	}
	return -1
}

func (s *Server) slotStatValue(slot, metric int, counts []int) int64 {
	switch metric {
	case 0:
		return int64(counts[slot])
	case 1:
		return s.slotStats[slot].cpu.Load()
	case 2:
		return s.slotStats[slot].in.Load()
	default:
		return s.slotStats[slot].out.Load()
	}
}

// CLUSTER SLOT-STATS SLOTSRANGE start end | ORDERBY metric [LIMIT n]
// [ASC|DESC]: the statistics of the slots of this node's shard (a
// replica reports its primary's).
func clusterSlotStatsCommand(c *Client) {
	if clusterOn(c) == nil {
		return
	}
	argv := c.ctx.Argv
	r := c.srv.cluster.Routing()
	mine := func(s int) bool {
		o := r.Owner[s]
		return o != 0 && (o == r.Self || o == r.Primary)
	}
	enabled := c.srv.cfg.ClusterSlotStatsEnabled()
	var slots []int
	switch {
	case len(argv) == 5 && strings.EqualFold(string(argv[2]), "slotsrange"):
		start, ok1 := slotArg(argv[3])
		end, ok2 := slotArg(argv[4])
		if !ok1 || !ok2 {
			c.w.Error("ERR Invalid or out of range slot")
			return
		}
		if start > end {
			c.w.Error("ERR Start slot number " + strconv.Itoa(start) + " is greater than end slot number " + strconv.Itoa(end))
			return
		}
		for s := start; s <= end; s++ {
			if mine(s) {
				slots = append(slots, s)
			}
		}
		writeSlotStats(c, slots, c.srv.ks.SlotKeyCounts(c.ctx.Locked), enabled)
	case len(argv) >= 4 && strings.EqualFold(string(argv[2]), "orderby"):
		metric := slotStatMetric(string(argv[3]), enabled)
		if metric < 0 {
			c.w.Error("ERR Unrecognized sort metric for ORDERBY.")
			return
		}
		desc, limit := true, cluster.Slots
		limits, orders := 0, 0
		for i := 4; i < len(argv); i++ {
			switch a := strings.ToLower(string(argv[i])); {
			case a == "limit" && i+1 < len(argv):
				n, ok := db.ParseInt(argv[i+1])
				if !ok || n < 1 || n > cluster.Slots {
					c.w.Error("ERR Limit has to lie in between 1 and 16384 (maximum number of slots).")
					return
				}
				limit = int(n)
				i++
				limits++
			case a == "asc":
				desc = false
				orders++
			case a == "desc":
				desc = true
				orders++
			default:
				c.w.Error("ERR syntax error")
				return
			}
			if limits > 1 || orders > 1 {
				c.w.Error("ERR Multiple filters of the same type are disallowed.")
				return
			}
		}
		for s := range cluster.Slots {
			if mine(s) {
				slots = append(slots, s)
			}
		}
		counts := c.srv.ks.SlotKeyCounts(c.ctx.Locked)
		vals := make([]int64, cluster.Slots)
		for _, s := range slots {
			vals[s] = c.srv.slotStatValue(s, metric, counts)
		}
		// Ties in slot order, as Valkey's comparators.
		sort.SliceStable(slots, func(i, j int) bool {
			if desc {
				return vals[slots[i]] > vals[slots[j]]
			}
			return vals[slots[i]] < vals[slots[j]]
		})
		if len(slots) > limit {
			slots = slots[:limit]
		}
		writeSlotStats(c, slots, counts, enabled)
	default:
		c.subcommandSyntaxError()
	}
}

func writeSlotStats(c *Client, slots []int, counts []int, enabled bool) {
	c.w.ArrayLen(len(slots))
	for _, s := range slots {
		c.w.ArrayLen(2)
		c.w.Int(int64(s))
		if !enabled {
			c.w.MapLen(1)
			c.w.BulkString("key-count")
			c.w.Int(int64(counts[s]))
			continue
		}
		st := &c.srv.slotStats[s]
		c.w.MapLen(4)
		c.w.BulkString("key-count")
		c.w.Int(int64(counts[s]))
		c.w.BulkString("cpu-usec")
		c.w.Int(st.cpu.Load())
		c.w.BulkString("network-bytes-in")
		c.w.Int(st.in.Load())
		c.w.BulkString("network-bytes-out")
		c.w.Int(st.out.Load())
	}
}
