package aof

import (
	"strconv"

	"github.com/corvid-kv/corvid/internal/effects"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// writeStream writes the commands that rebuild a stream, as Valkey's
// rewriteStreamObject: an XADD per live entry (or, for an empty stream,
// XADD key MAXLEN 0 0-1 x y), XSETID with the last ID, entries added and
// greatest deleted ID, then per group XGROUP CREATE ... ENTRIESREAD, and
// per consumer an XCLAIM ... TIME RETRYCOUNT JUSTID FORCE for each of its
// pending entries, or XGROUP CREATECONSUMER when it has none.
func (c *CommandWriter) writeStream(key []byte, s *rdb.Stream) {
	id := func(id rdb.StreamID) []byte {
		b := strconv.AppendUint(nil, id.Ms, 10)
		b = append(b, '-')
		return strconv.AppendUint(b, id.Seq, 10)
	}
	bs := func(s string) []byte { return []byte(s) }
	if s.Length > 0 {
		s.Entries(func(eid rdb.StreamID, fv [][]byte) bool {
			c.args = append(c.args[:0], bs("XADD"), key, id(eid))
			c.args = append(c.args, fv...)
			c.buf = effects.AppendCommand(c.buf, c.args...)
			if len(c.buf) >= 1<<16 {
				c.flush()
			}
			return true
		})
	} else {
		c.buf = effects.AppendCommand(c.buf, bs("XADD"), key, bs("MAXLEN"), bs("0"), bs("0-1"), bs("x"), bs("y"))
	}
	c.buf = effects.AppendCommand(c.buf, bs("XSETID"), key, id(s.LastID),
		bs("ENTRIESADDED"), strconv.AppendUint(nil, s.EntriesAdded, 10),
		bs("MAXDELETEDID"), id(s.MaxDeletedID))
	for _, g := range s.Groups {
		c.buf = effects.AppendCommand(c.buf, bs("XGROUP"), bs("CREATE"), key, g.Name, id(g.LastID),
			bs("ENTRIESREAD"), strconv.AppendInt(nil, g.EntriesRead, 10))
		nacks := make(map[rdb.StreamID]rdb.StreamNACK, len(g.Pending))
		for _, n := range g.Pending {
			nacks[n.ID] = n
		}
		for _, cn := range g.Consumers {
			if len(cn.Pending) == 0 {
				c.buf = effects.AppendCommand(c.buf, bs("XGROUP"), bs("CREATECONSUMER"), key, g.Name, cn.Name)
				continue
			}
			for _, pid := range cn.Pending {
				n := nacks[pid]
				c.buf = effects.AppendCommand(c.buf, bs("XCLAIM"), key, g.Name, cn.Name, bs("0"), id(pid),
					bs("TIME"), strconv.AppendInt(nil, n.DeliveryTime, 10),
					bs("RETRYCOUNT"), strconv.AppendInt(nil, int64(n.DeliveryCount), 10),
					bs("JUSTID"), bs("FORCE"))
				if len(c.buf) >= 1<<16 {
					c.flush()
				}
			}
		}
	}
}
