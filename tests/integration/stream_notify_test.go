package integration

import (
	"slices"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// streamNotifyScript exercises every stream command's keyspace events
// (class t, and n, g, m) and replies; "&" lines block a second client
// and "<" reads what it was served, "~" marks a reply that shows idle
// times (not compared): notify_test.go's directives.
var streamNotifyScript = []string{
	"XADD s 1-1 f v", "XADD s 1-2 f v g w", "XADD s NOMKSTREAM 2-0 a b", "XADD nos NOMKSTREAM 1-1 a b",
	"XADD s 1-1 f v", "XADD s MAXLEN 2 3-0 f v", "XADD s MAXLEN ~ 1 4-0 f v", "XADD s MINID 4 5-0 f v",
	"XTRIM s MAXLEN 1", "XTRIM s MAXLEN 1", "XTRIM nokey MAXLEN 0", "XTRIM s MAXLEN BAD",
	"XDEL s 1-1", "XDEL s 5-0 9-9", "XDEL nokey 1-1", "XADD s 6-0 f v", "XADD s 7-0 f v",
	"XSETID s 9-0", "XSETID s 1-0", "XSETID nokey 1-0",
	"XLEN s", "XLEN nokey", "XRANGE nokey - +", "XREVRANGE nokey + -", "XINFO STREAM nokey", "XPENDING nokey g",
	"XREAD STREAMS s nokey 0 0",
	"XGROUP CREATE s g 0", "XGROUP CREATE s g 0", "XGROUP CREATE ms g $ MKSTREAM", "XGROUP CREATE nokey g 0",
	"XGROUP SETID s g 0", "XGROUP SETID s nog 0",
	"XGROUP CREATECONSUMER s g c1", "XGROUP CREATECONSUMER s g c1",
	"XREADGROUP GROUP g c2 COUNT 1 STREAMS s >", "XREADGROUP GROUP g c2 STREAMS s 0", "XREADGROUP GROUP g c3 NOACK STREAMS s >",
	"XREADGROUP GROUP g c3 STREAMS nokey >",
	"XACK s g 6-0", "XACK s g 6-0", "XCLAIM s g c4 0 6-0 7-0 FORCE JUSTID", "XCLAIM s g c4 0 6-0",
	"XAUTOCLAIM s g c5 0 0", "XPENDING s g", "~XPENDING s g - + 10", "XINFO GROUPS s", "~XINFO CONSUMERS s g",
	"XGROUP DELCONSUMER s g c5", "XGROUP DELCONSUMER s g c5", "XGROUP DESTROY s g", "XGROUP DESTROY s g",
	"XGROUP CREATE s g $",
	"&XREADGROUP GROUP g b BLOCK 0 STREAMS s >", "XADD s 10-0 f v", "<",
	"&XREAD BLOCK 0 STREAMS s $", "XADD s 11-0 f v", "<", "XREADGROUP GROUP g b STREAMS s >",
	"&XREADGROUP GROUP g b BLOCK 0 STREAMS s >", "DEL s", "<",
	"XADD s 1-1 f v", "XGROUP CREATE s g $",
	"&XREADGROUP GROUP g b BLOCK 0 STREAMS s >", "XGROUP DESTROY s g", "<",
	"SET str x", "XADD str 1-1 f v", "XGROUP CREATE str g 0", "XREADGROUP GROUP g c STREAMS str >",
	"COPY s s2", "RENAME s2 s3", "TYPE s3", "OBJECT ENCODING s3", "DEL s3",
}

// TestStreamNotifyDifferential runs streamNotifyScript on Corvid and
// valkey-server 8.0.1 under several notify-keyspace-events settings: the
// same replies, and the same events for each command.
func TestStreamNotifyDifferential(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	cv := testutil.StartCorvid(t)
	vk := testutil.StartValkey(t)
	sides := []*notifySide{newNotifySide(t, "corvid", cv.Addr, 0), newNotifySide(t, "valkey", vk.Addr, 0)}
	for _, flags := range []string{"KEA", "Kt", "Et", "Egn", "Em"} {
		t.Run(flags, func(t *testing.T) {
			var results [2][]stepResult
			for i, s := range sides {
				s.t = t
				s.mark.Do("FLUSHALL")
				if r := s.mark.Do("CONFIG", "SET", "notify-keyspace-events", flags); r != "+OK" {
					t.Fatalf("%s: CONFIG SET notify-keyspace-events %s: %s", s.name, flags, r)
				}
				for _, line := range streamNotifyScript {
					results[i] = append(results[i], s.run(line))
				}
				s.mark.Do("CONFIG", "SET", "notify-keyspace-events", "")
			}
			for j, line := range streamNotifyScript {
				c, v := results[0][j], results[1][j]
				if c.reply != v.reply {
					t.Errorf("%s: reply\ncorvid: %s\nvalkey: %s", line, c.reply, v.reply)
				}
				if line == "DEL s" {
					// The XREADGROUP this deletion wakes runs its read
					// again by itself, right after the DEL in Corvid and
					// before its reply in Valkey: its keymiss event comes
					// on either side of the DEL's reply.
					results[0][j+1].events = append(c.events, results[0][j+1].events...)
					results[1][j+1].events = append(v.events, results[1][j+1].events...)
					continue
				}
				if !slices.Equal(c.events, v.events) {
					t.Errorf("%s: events\ncorvid: %q\nvalkey: %q", line, c.events, v.events)
				}
			}
		})
	}
}
