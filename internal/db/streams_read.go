package db

import (
	"math"
	"time"

	"github.com/corvid-kv/corvid/internal/resp"
)

// XREAD and XREADGROUP (xreadCommand). Both lock their keys themselves
// (LockNone): a read with BLOCK may wait (streams_block.go).

// xreadReq is a parsed XREAD or XREADGROUP.
type xreadReq struct {
	group          bool
	groupName      []byte
	consumerName   []byte
	noack          bool
	count          int64
	block          bool
	timeout        time.Duration
	keys, idArgs   [][]byte
	dollar         []streamID // "$" as resolved when the read blocked
	dollarResolved bool
}

// XREAD [COUNT count] [BLOCK milliseconds] STREAMS key [key ...] id [id ...]
func xreadCommand(c *Ctx) { c.xreadGeneric(false) }

// XREADGROUP GROUP group consumer [COUNT count] [BLOCK milliseconds] [NOACK] STREAMS key [key ...] id [id ...]
func xreadgroupCommand(c *Ctx) { c.xreadGeneric(true) }

func (c *Ctx) parseXRead(group bool) (*xreadReq, bool) {
	argv := c.Argv
	r := &xreadReq{group: group}
	name := "xread"
	if group {
		name = "xreadgroup"
	}
	streamsArg := 0
	for i := 1; i < len(argv); i++ {
		more := len(argv) - i - 1
		o := CString(argv[i])
		switch {
		case EqualFold(o, "BLOCK") && more > 0:
			// From a script, as inside MULTI, Valkey 8.0.1 answers as if
			// the read had timed out (c.Locked, below).
			i++
			d, ok := c.blockTimeoutMsArg(i)
			if !ok {
				return nil, false
			}
			r.block, r.timeout = true, d
		case EqualFold(o, "COUNT") && more > 0:
			i++
			n, ok := c.IntArg(i)
			if !ok {
				return nil, false
			}
			r.count = max(n, 0)
		case EqualFold(o, "STREAMS") && more > 0:
			streamsArg = i + 1
			n := len(argv) - streamsArg
			if n%2 != 0 {
				sym := "$"
				if group {
					sym = ">"
				}
				c.W.Error("ERR Unbalanced '" + name + "' list of streams: for each stream key an ID or '" + sym + "' must be specified.")
				return nil, false
			}
			r.keys = argv[streamsArg : streamsArg+n/2]
			r.idArgs = argv[streamsArg+n/2:]
			i = len(argv)
		case EqualFold(o, "GROUP") && more >= 2:
			if !group {
				c.W.Error("ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.")
				return nil, false
			}
			r.groupName, r.consumerName = argv[i+1], argv[i+2]
			i += 2
		case EqualFold(o, "NOACK"):
			if !group {
				c.W.Error("ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.")
				return nil, false
			}
			r.noack = true
		default:
			c.W.Error(ErrSyntax)
			return nil, false
		}
	}
	if streamsArg == 0 {
		c.W.Error(ErrSyntax)
		return nil, false
	}
	if group && r.groupName == nil {
		c.W.Error("ERR Missing GROUP option for XREADGROUP")
		return nil, false
	}
	return r, true
}

// blockTimeoutMsArg parses a BLOCK timeout in milliseconds as
// getTimeoutFromObjectOrReply(UNIT_MILLISECONDS) (0: forever).
func (c *Ctx) blockTimeoutMsArg(i int) (time.Duration, bool) {
	n, ok := ParseInt(c.Argv[i])
	if !ok {
		c.W.Error("ERR timeout is not an integer or out of range")
		return 0, false
	}
	if n < 0 {
		c.W.Error("ERR timeout is negative")
		return 0, false
	}
	if n > 0 && n > math.MaxInt64-c.Now {
		c.W.Error("ERR timeout is out of range")
		return 0, false
	}
	if n > math.MaxInt64/int64(time.Millisecond) {
		return 0, true // centuries: the same as forever
	}
	return time.Duration(n) * time.Millisecond, true
}

func (c *Ctx) xreadGeneric(group bool) {
	r, ok := c.parseXRead(group)
	if !ok {
		return
	}
	c.NoOwnOp() // what it changes propagates as XCLAIM and XGROUP
	if c.Locked {
		// Inside EXEC or a script: stripes are held, and a read may not
		// block (Valkey treats it as a timeout).
		if !c.xreadAttempt(r, c.W, true) {
			c.W.NullArray()
		}
		return
	}
	if !r.block {
		c.withStripes(r.keys, func() {
			if !c.xreadAttempt(r, c.W, true) {
				c.W.NullArray()
			}
		})
		return
	}
	out := resp.NewWriter(256)
	out.Proto = c.W.Proto
	first := true
	attempt := func(sc *Ctx) bool {
		out.Reset()
		ok := sc.xreadAttempt(r, out, first)
		first = false
		return ok
	}
	if c.blockOnStreams(r.keys, r.timeout, group, attempt) {
		c.W.Raw(out.Bytes())
	}
}

// xreadAttempt runs the read once with its keys' stripes held, writing
// into w: it reports whether it answered (entries, or an error). On the
// first attempt "$" resolves to the stream's last ID, and that ID is
// kept for later attempts (Valkey rewrites the argument when it blocks);
// "+" resolves anew every time.
func (c *Ctx) xreadAttempt(r *xreadReq, w *resp.Writer, first bool) bool {
	n := len(r.keys)
	if c.Serving() && !r.group {
		// Valkey re-runs a blocked XREAD only for a key that is a stream.
		any := false
		for _, k := range r.keys {
			if o := c.LookupDB(c.DB, k); o != nil && o.Type == TypeStream {
				any = true
				break
			}
		}
		if !any {
			return false
		}
	}
	ids := make([]streamID, n)
	groups := make([]*streamCG, n)
	for i, key := range r.keys {
		o := c.LookupRead(key)
		if o != nil && o.Type != TypeStream {
			w.Error(ErrWrongType)
			return true
		}
		if r.group {
			var g *streamCG
			if o != nil {
				g = streamOf(o).group(r.groupName)
			}
			if g == nil {
				w.Error("NOGROUP No such key '" + cname(key) + "' or consumer group '" + cname(r.groupName) + "' in XREADGROUP with GROUP option")
				return true
			}
			groups[i] = g
		}
		arg := CString(r.idArgs[i])
		switch {
		case string(arg) == "$":
			if r.group {
				w.Error("ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would just return an empty result set.")
				return true
			}
			switch {
			case r.dollarResolved:
				ids[i] = r.dollar[i]
			case o != nil:
				ids[i] = streamOf(o).lastID
			}
		case string(arg) == "+":
			if r.group {
				w.Error("ERR The + ID is meaningless in the context of XREADGROUP: you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new messages. The + ID would just return an empty result set.")
				return true
			}
			if o != nil {
				id, ok := streamOf(o).lastID.decr()
				if !ok {
					w.Error("ERR the stream last element ID is 0-0")
					return true
				}
				ids[i] = id
			}
		case string(arg) == ">":
			if !r.group {
				w.Error("ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.")
				return true
			}
			ids[i] = maxStreamID
		default:
			id, _, ok := parseStreamID(r.idArgs[i], 0, true, false)
			if !ok {
				w.Error(errInvalidStreamID)
				return true
			}
			ids[i] = id
		}
	}
	if first && !r.dollarResolved {
		// Kept whether or not the read blocks: only a blocked read reads
		// them again.
		r.dollar, r.dollarResolved = ids, true
		ids = append([]streamID(nil), ids...)
	}

	served := 0
	mark := 0
	for i, key := range r.keys {
		o := c.LookupRead(key)
		if o == nil {
			continue
		}
		s := streamOf(o)
		gt := ids[i]
		sync, history := false, false
		var cn *streamConsumer
		if r.group {
			g := groups[i]
			c.KS.beforeWrite(c.DB, key, o)
			if gt != maxStreamID {
				sync, history = true, true
			} else if s.length > 0 {
				if s.lastValidID().cmp(g.lastID) > 0 {
					sync = true
					gt = g.lastID
				}
			}
			if cn = g.consumer(r.consumerName); cn == nil {
				cn = c.createConsumerNotify(key, s, g, r.consumerName)
				if r.noack && c.Propagating() {
					c.Also(c.DB, argXGROUP, argCREATECONSUMER, key, r.groupName, cn.name)
				}
			}
			cn.seenTime = c.Now
		} else if s.length > 0 && s.lastValidID().cmp(gt) > 0 {
			sync = true
		}
		if sync {
			served++
			if served == 1 {
				mark = deferredLen(w)
			}
			start, _ := gt.incr()
			if w.Proto < 3 {
				w.ArrayLen(2)
			}
			w.Bulk(key)
			switch {
			case !r.group:
				c.replyRange(w, s, start, maxStreamID, r.count, false)
			case history:
				c.replyHistory(w, s, start, r.count, cn)
			default:
				c.replyGroupRange(w, key, r, s, groups[i], cn, start)
			}
			if r.group {
				c.Dirty++
			}
		}
		if r.group {
			c.account(c.DB, key)
		}
	}
	if served == 0 {
		return false
	}
	setDeferredLen(w, mark, served, w.Proto >= 3)
	return true
}

// replyGroupRange is streamReplyWithRange with a group, for ">": the new
// entries from start, each delivered to cn (in the group's and cn's PEL
// unless NOACK), the group's last ID and read counter advanced, and the
// deliveries propagated as XCLAIMs (none with NOACK), then one XGROUP
// SETID with the group's new last ID and read counter.
func (c *Ctx) replyGroupRange(w *resp.Writer, key []byte, r *xreadReq, s *stream, g *streamCG, cn *streamConsumer, start streamID) {
	mark := deferredLen(w)
	var n int64
	propagateLastID := false
	now := c.Now
	// The walk changes the group (its PEL, last ID and counter), never
	// the stream's nodes.
	s.iterate(start, maxStreamID, false, false, func(e *streamEntry) bool {
		if e.id.cmp(g.lastID) > 0 {
			s.advanceGroup(g, e.id)
			// Valkey 7.2+ propagates the group's ID and read counter
			// after any read that moved it (XCLAIM's LASTID carries no
			// read counter), NOACK or not.
			propagateLastID = true
		}
		writeEntry(w, e)
		if !r.noack {
			nack := s.newNACK(cn, now)
			if !g.pel.Insert(e.id, nack) {
				// Delivered before (XGROUP SETID moved the group back):
				// the entry changes hands.
				s.mem -= nackBytes
				nack = *g.pel.Get(e.id)
				nack.consumer.pel.Delete(e.id)
				nack.consumer = cn
				nack.deliveryTime = now
				nack.deliveryCount = 1
			}
			cn.pel.Insert(e.id, nack)
			cn.activeTime = now
			if c.Propagating() {
				c.propagateXClaim(key, r.groupName, g, appendStreamID(nil, e.id), nack)
			}
		}
		n++
		return r.count == 0 || n < r.count
	})
	if propagateLastID {
		c.propagateGroupID(key, r.groupName, g)
	}
	setDeferredLen(w, mark, int(n), false)
}

// replyHistory is streamReplyWithRangeFromConsumerPEL: the entries of
// cn's PEL from start (at most count, 0: all), each delivered again; an
// entry the stream no longer holds comes with a null in place of its
// fields.
func (c *Ctx) replyHistory(w *resp.Writer, s *stream, start streamID, count int64, cn *streamConsumer) {
	mark := deferredLen(w)
	var n int64
	for cur := cn.pel.Seek(start); cur.Valid() && (count == 0 || n < count); cur.Next() {
		id := cur.ID()
		if _, e, ok := s.findEntry(id); ok {
			writeEntry(w, &e)
			nack := *cur.Val()
			nack.deliveryTime = c.Now
			nack.deliveryCount++
		} else {
			w.ArrayLen(2)
			writeStreamID(w, id)
			w.NullArray()
		}
		n++
	}
	setDeferredLen(w, mark, int(n), false)
}
