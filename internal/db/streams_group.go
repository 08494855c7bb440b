package db

import (
	"math"
)

// Consumer groups: XGROUP, XACK, XPENDING, XCLAIM and XAUTOCLAIM.
//
// As in Valkey, only creating a stream (XGROUP CREATE ... MKSTREAM)
// counts as modifying the key for WATCH and client tracking; the other
// group commands change the stream's groups without signalling it.
// XCLAIM and XAUTOCLAIM propagate as one XCLAIM ... FORCE JUSTID LASTID
// per entry they claim or drop, XREADGROUP likewise (streams_read.go).

const (
	errXGroupNoKey   = "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically."
	errBusyGroup     = "BUSYGROUP Consumer Group name already exists"
	errEntriesRead   = "ERR value for ENTRIESREAD must be positive or -1"
	errXAutoClaimCnt = "ERR COUNT must be > 0"
)

var (
	argXCLAIM         = []byte("XCLAIM")
	argXGROUP         = []byte("XGROUP")
	argSETID          = []byte("SETID")
	argCREATECONSUMER = []byte("CREATECONSUMER")
	argENTRIESREAD    = []byte("ENTRIESREAD")
	argTIME           = []byte("TIME")
	argRETRYCOUNT     = []byte("RETRYCOUNT")
	argFORCE          = []byte("FORCE")
	argJUSTID         = []byte("JUSTID")
	argLASTID         = []byte("LASTID")
	argZero           = []byte("0")
)

// noGroupErr is the NOGROUP error of XPENDING, XCLAIM and XAUTOCLAIM.
func noGroupErr(key, group []byte) string {
	return "NOGROUP No such key '" + cname(key) + "' or consumer group '" + cname(group) + "'"
}

// noConsumerGroupErr is XGROUP's and XINFO CONSUMERS' NOGROUP error.
func noConsumerGroupErr(key, group []byte) string {
	return "NOGROUP No such consumer group '" + cname(group) + "' for key name '" + cname(key) + "'"
}

// propagateXClaim is streamPropagateXCLAIM: the XCLAIM that gives id (as
// idArg) to n's consumer on a replica, idempotently.
func (c *Ctx) propagateXClaim(key, group []byte, g *streamCG, idArg []byte, n *streamNACK) {
	if !c.Propagating() {
		return
	}
	c.Also(c.DB, argXCLAIM, key, group, n.consumer.name, argZero, idArg,
		argTIME, itoa(n.deliveryTime), argRETRYCOUNT, itoa(int64(n.deliveryCount)),
		argFORCE, argJUSTID, argLASTID, appendStreamID(nil, g.lastID))
}

// propagateGroupID is streamPropagateGroupID: XGROUP SETID with the
// group's last ID and read counter.
func (c *Ctx) propagateGroupID(key, group []byte, g *streamCG) {
	if c.Propagating() {
		c.Also(c.DB, argXGROUP, argSETID, key, group, appendStreamID(nil, g.lastID), argENTRIESREAD, itoa(g.entriesRead))
	}
}

// createConsumerNotify is streamCreateConsumer with SCC_DEFAULT: the new
// consumer is announced and counted as a change.
func (c *Ctx) createConsumerNotify(key []byte, s *stream, g *streamCG, name []byte) *streamConsumer {
	cn := s.createConsumer(g, name, c.Now)
	if cn != nil {
		c.Dirty++
		c.Notify(NotifyStream, "xgroup-createconsumer", key)
	}
	return cn
}

// xgroupPrologue is the part of xgroupCommand every subcommand but HELP
// runs: the CREATE/SETID options, the key (required unless MKSTREAM)
// and, for the subcommands that need it, the group.
type xgroupReq struct {
	o           *Object
	s           *stream
	g           *streamCG
	mkstream    bool
	entriesRead int64
}

func (c *Ctx) xgroupPrologue(create, setid, needGroup bool) (r xgroupReq, ok bool) {
	r.entriesRead = invalidEntriesRead
	argv := c.Argv
	for i := 5; i < len(argv); {
		opt := CString(argv[i])
		switch {
		case create && EqualFold(opt, "MKSTREAM"):
			r.mkstream = true
			i++
		case (create || setid) && EqualFold(opt, "ENTRIESREAD") && i+1 < len(argv):
			n, ok := c.IntArg(i + 1)
			if !ok {
				return r, false
			}
			if n < 0 && n != invalidEntriesRead {
				c.W.Error(errEntriesRead)
				return r, false
			}
			r.entriesRead = n
			i += 2
		default:
			c.subcommandSyntaxError()
			return r, false
		}
	}
	key := argv[2]
	if r.o = c.LookupWrite(key); r.o != nil {
		if r.o.Type != TypeStream {
			c.W.Error(ErrWrongType)
			return r, false
		}
		r.s = streamOf(r.o)
	}
	if !r.mkstream {
		if r.s == nil {
			c.W.Error(errXGroupNoKey)
			return r, false
		}
		if r.g = r.s.group(argv[3]); r.g == nil && needGroup {
			c.W.Error(noConsumerGroupErr(key, argv[3]))
			return r, false
		}
	}
	return r, true
}

// subcommandSyntaxError is addReplySubcommandSyntaxError.
func (c *Ctx) subcommandSyntaxError() {
	sub := cname(c.Argv[1])
	if len(sub) > 128 {
		sub = sub[:128]
	}
	name := []byte(cname(c.Argv[0]))
	for i, ch := range name {
		if 'a' <= ch && ch <= 'z' {
			name[i] = ch - 32
		}
	}
	c.W.Error("ERR unknown subcommand or wrong number of arguments for '" + sub + "'. Try " + string(name) + " HELP.")
}

// XGROUP CREATE key group <id | $> [MKSTREAM] [ENTRIESREAD entries-read]
func xgroupCreateCommand(c *Ctx) {
	r, ok := c.xgroupPrologue(true, false, false)
	if !ok {
		return
	}
	if len(c.Argv) > 8 {
		c.subcommandSyntaxError()
		return
	}
	var id streamID
	if a := c.Argv[4]; string(CString(a)) == "$" && len(a) == 1 {
		if r.s != nil {
			id = r.s.lastID
		}
	} else if id, _, ok = parseStreamID(a, 0, true, false); !ok {
		c.W.Error(errInvalidStreamID)
		return
	}
	key := c.Argv[2]
	if r.s == nil {
		o := c.Create(key, TypeStream)
		r.s = newStream()
		o.SetValue(r.s)
		c.streamChanged(key, 0, true)
	}
	if r.s.createGroup(c.Argv[3], id, r.entriesRead) == nil {
		c.W.Error(errBusyGroup)
		return
	}
	c.W.OK()
	c.streamChanged(key, 1, false)
	c.Notify(NotifyStream, "xgroup-create", key)
}

// XGROUP SETID key group <id | $> [ENTRIESREAD entries-read]
func xgroupSetidCommand(c *Ctx) {
	r, ok := c.xgroupPrologue(false, true, true)
	if !ok {
		return
	}
	if len(c.Argv) != 5 && len(c.Argv) != 7 {
		c.subcommandSyntaxError()
		return
	}
	var id streamID
	if a := c.Argv[4]; string(a) == "$" {
		id = r.s.lastID
	} else if id, _, ok = parseStreamID(a, 0, false, false); !ok {
		c.W.Error(errInvalidStreamID)
		return
	}
	r.g.lastID = id
	r.g.entriesRead = r.entriesRead
	c.W.OK()
	c.streamChanged(c.Argv[2], 1, false)
	c.Notify(NotifyStream, "xgroup-setid", c.Argv[2])
}

// XGROUP DESTROY key group
func xgroupDestroyCommand(c *Ctx) {
	r, ok := c.xgroupPrologue(false, false, false)
	if !ok {
		return
	}
	if r.g == nil {
		c.W.Int(0)
		return
	}
	key := c.Argv[2]
	r.s.destroyGroup(r.g)
	c.W.Int(1)
	c.streamChanged(key, 1, false)
	c.Notify(NotifyStream, "xgroup-destroy", key)
	// Blocked XREADGROUPs on it answer NOGROUP.
	c.SignalReady(key)
}

// XGROUP CREATECONSUMER key group consumer
func xgroupCreateconsumerCommand(c *Ctx) {
	r, ok := c.xgroupPrologue(false, false, true)
	if !ok {
		return
	}
	key := c.Argv[2]
	created := c.createConsumerNotify(key, r.s, r.g, c.Argv[4]) != nil
	if created {
		c.streamChanged(key, 0, false)
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

// XGROUP DELCONSUMER key group consumer
func xgroupDelconsumerCommand(c *Ctx) {
	r, ok := c.xgroupPrologue(false, false, true)
	if !ok {
		return
	}
	key := c.Argv[2]
	var pending int
	if cn := r.g.consumer(c.Argv[4]); cn != nil {
		pending = cn.pel.Len()
		r.s.deleteConsumer(r.g, cn)
		c.streamChanged(key, 1, false)
		c.Notify(NotifyStream, "xgroup-delconsumer", key)
	}
	c.W.Int(int64(pending))
}

var xgroupHelp = []string{
	"CREATE <key> <groupname> <id|$> [option]",
	"    Create a new consumer group. Options are:",
	"    * MKSTREAM",
	"      Create the empty stream if it does not exist.",
	"    * ENTRIESREAD entries_read",
	"      Set the group's entries_read counter (internal use).",
	"CREATECONSUMER <key> <groupname> <consumer>",
	"    Create a new consumer in the specified group.",
	"DELCONSUMER <key> <groupname> <consumer>",
	"    Remove the specified consumer.",
	"DESTROY <key> <groupname>",
	"    Remove the specified group.",
	"SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
	"    Set the current group ID and entries_read counter.",
}

// XGROUP HELP
func xgroupHelpCommand(c *Ctx) { writeHelp(c, "XGROUP", xgroupHelp) }

// streamGroupLookup looks up a stream for a group command that reads it
// and may change its groups (lookupKeyRead, then the PreWriter told).
func (c *Ctx) streamGroupLookup(key []byte) (*Object, bool) {
	o, ok := c.streamLookupRead(key)
	if o != nil {
		c.KS.beforeWrite(c.DB, key, o)
	}
	return o, ok
}

// XACK key group id [id ...]
func xackCommand(c *Ctx) {
	key := c.Argv[1]
	o, ok := c.streamGroupLookup(key)
	if !ok {
		return
	}
	var g *streamCG
	if o != nil {
		g = streamOf(o).group(c.Argv[2])
	}
	if g == nil {
		c.W.Int(0)
		return
	}
	ids := make([]streamID, 0, len(c.Argv)-3)
	for _, a := range c.Argv[3:] {
		id, _, ok := parseStreamID(a, 0, true, false)
		if !ok {
			c.W.Error(errInvalidStreamID)
			return
		}
		ids = append(ids, id)
	}
	s := streamOf(o)
	acked := 0
	for _, id := range ids {
		if n := g.pel.Get(id); n != nil {
			s.dropNACK(g, id, *n)
			acked++
		}
	}
	if acked > 0 {
		c.streamChanged(key, acked, false)
	}
	c.W.Int(int64(acked))
}

// XPENDING key group [[IDLE min-idle-time] start end count [consumer]]
func xpendingCommand(c *Ctx) {
	argv := c.Argv
	justInfo := len(argv) == 3
	if len(argv) != 3 && (len(argv) < 6 || len(argv) > 9) {
		c.W.Error(ErrSyntax)
		return
	}
	var start, end streamID
	var count, minIdle int64
	var consumerName []byte
	if len(argv) >= 6 {
		si := 3
		if EqualFold(CString(argv[3]), "IDLE") {
			n, ok := c.IntArg(4)
			if !ok {
				return
			}
			minIdle = n
			if len(argv) < 8 {
				c.W.Error(ErrSyntax)
				return
			}
			si += 2
		}
		n, ok := c.IntArg(si + 2)
		if !ok {
			return
		}
		count = max(n, 0)
		var ex bool
		if start, ex, ok = parseIntervalID(argv[si], 0); !ok {
			c.W.Error(errInvalidStreamID)
			return
		}
		if ex {
			if start, ok = start.incr(); !ok {
				c.W.Error(errIntervalStart)
				return
			}
		}
		if end, ex, ok = parseIntervalID(argv[si+1], math.MaxUint64); !ok {
			c.W.Error(errInvalidStreamID)
			return
		}
		if ex {
			if end, ok = end.decr(); !ok {
				c.W.Error(errIntervalEnd)
				return
			}
		}
		if si+3 < len(argv) {
			consumerName = argv[si+3]
		}
	}
	key := argv[1]
	o, ok := c.streamLookupRead(key)
	if !ok {
		return
	}
	var g *streamCG
	if o != nil {
		g = streamOf(o).group(argv[2])
	}
	if g == nil {
		c.W.Error(noGroupErr(key, argv[2]))
		return
	}
	if justInfo {
		c.W.ArrayLen(4)
		c.W.Int(int64(g.pel.Len()))
		if g.pel.Len() == 0 {
			c.W.Null()
			c.W.Null()
			c.W.NullArray()
			return
		}
		first, _ := g.pel.First()
		last, _ := g.pel.Last()
		writeStreamID(c.W, first)
		writeStreamID(c.W, last)
		n := 0
		for _, cn := range g.consumers {
			if cn.pel.Len() > 0 {
				n++
			}
		}
		c.W.ArrayLen(n)
		for _, cn := range g.consumers {
			if cn.pel.Len() > 0 {
				c.W.ArrayLen(2)
				c.W.Bulk(cn.name)
				c.W.BulkInt(int64(cn.pel.Len()))
			}
		}
		return
	}
	pel := &g.pel
	if consumerName != nil {
		cn := g.consumer(consumerName)
		if cn == nil {
			c.W.ArrayLen(0)
			return
		}
		pel = &cn.pel
	}
	mark := deferredLen(c.W)
	n := 0
	for cur := pel.Seek(start); count > 0 && cur.Valid() && cur.ID().cmp(end) <= 0; cur.Next() {
		nack := *cur.Val()
		if minIdle != 0 && c.Now-nack.deliveryTime < minIdle {
			continue
		}
		n++
		count--
		c.W.ArrayLen(4)
		writeStreamID(c.W, cur.ID())
		c.W.Bulk(nack.consumer.name)
		c.W.Int(max(c.Now-nack.deliveryTime, 0))
		c.W.Int(int64(nack.deliveryCount))
	}
	setDeferredLen(c.W, mark, n, false)
}

// XCLAIM key group consumer min-idle-time id [id ...] [IDLE ms] [TIME unix-time-milliseconds] [RETRYCOUNT count] [FORCE] [JUSTID] [LASTID lastid]
func xclaimCommand(c *Ctx) {
	argv := c.Argv
	key := argv[1]
	o, ok := c.streamGroupLookup(key)
	if !ok {
		return
	}
	var g *streamCG
	if o != nil {
		g = streamOf(o).group(argv[2])
	}
	if g == nil {
		c.W.Error(noGroupErr(key, argv[2]))
		return
	}
	s := streamOf(o)
	minIdle, ok := ParseInt(argv[4])
	if !ok {
		c.W.Error("ERR Invalid min-idle-time argument for XCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	var ids []streamID
	j := 5
	for ; j < len(argv); j++ {
		id, _, ok := parseStreamID(argv[j], 0, true, false)
		if !ok {
			break
		}
		ids = append(ids, id)
	}
	now := c.Now
	retry, delivery := int64(-1), int64(-1)
	force, justID := false, false
	var lastID streamID
	for ; j < len(argv); j++ {
		more := len(argv) - 1 - j
		opt := CString(argv[j])
		switch {
		case EqualFold(opt, "FORCE"):
			force = true
		case EqualFold(opt, "JUSTID"):
			justID = true
		case EqualFold(opt, "IDLE") && more > 0:
			j++
			n, ok := ParseInt(argv[j])
			if !ok {
				c.W.Error("ERR Invalid IDLE option argument for XCLAIM")
				return
			}
			delivery = now - n
		case EqualFold(opt, "TIME") && more > 0:
			j++
			n, ok := ParseInt(argv[j])
			if !ok {
				c.W.Error("ERR Invalid TIME option argument for XCLAIM")
				return
			}
			delivery = n
		case EqualFold(opt, "RETRYCOUNT") && more > 0:
			j++
			n, ok := ParseInt(argv[j])
			if !ok {
				c.W.Error("ERR Invalid RETRYCOUNT option argument for XCLAIM")
				return
			}
			retry = n
		case EqualFold(opt, "LASTID") && more > 0:
			j++
			id, _, ok := parseStreamID(argv[j], 0, true, false)
			if !ok {
				c.W.Error(errInvalidStreamID)
				return
			}
			lastID = id
		default:
			c.W.Error("ERR Unrecognized XCLAIM option '" + string(opt) + "'")
			return
		}
	}
	c.NoOwnOp()
	propagateLastID := false
	if lastID.cmp(g.lastID) > 0 {
		g.lastID = lastID
		propagateLastID = true
	}
	if delivery != -1 {
		if delivery < 0 || delivery > now {
			delivery = now
		}
	} else {
		delivery = now
	}
	cn := g.consumer(argv[3])
	if cn == nil {
		cn = c.createConsumerNotify(key, s, g, argv[3])
	}
	cn.seenTime = now
	mark := deferredLen(c.W)
	claimed := 0
	for k, id := range ids {
		idArg := argv[5+k]
		np := g.pel.Get(id)
		var nack *streamNACK
		if np != nil {
			nack = *np
		}
		if !s.entryExists(id) {
			if nack != nil {
				c.propagateXClaim(key, argv[2], g, idArg, nack)
				propagateLastID = false
				c.Dirty++
				s.dropNACK(g, id, nack)
			}
			continue
		}
		if force && nack == nil {
			nack = s.newNACK(nil, now)
			g.pel.Insert(id, nack)
		}
		if nack == nil {
			continue
		}
		if nack.consumer != nil && minIdle != 0 && now-nack.deliveryTime < minIdle {
			continue
		}
		if nack.consumer != cn && nack.consumer != nil {
			nack.consumer.pel.Delete(id)
		}
		nack.deliveryTime = delivery
		if retry >= 0 {
			nack.deliveryCount = uint64(retry)
		} else if !justID {
			nack.deliveryCount++
		}
		if nack.consumer != cn {
			cn.pel.Insert(id, nack)
			nack.consumer = cn
		}
		if justID {
			writeStreamID(c.W, id)
		} else {
			_, e, _ := s.findEntry(id)
			writeEntry(c.W, &e)
		}
		claimed++
		cn.activeTime = now
		c.propagateXClaim(key, argv[2], g, idArg, nack)
		propagateLastID = false
		c.Dirty++
	}
	if propagateLastID {
		c.propagateGroupID(key, argv[2], g)
		c.Dirty++
	}
	setDeferredLen(c.W, mark, claimed, false)
	c.streamChanged(key, 0, false)
}

// XAUTOCLAIM key group consumer min-idle-time start [COUNT count] [JUSTID]
func xautoclaimCommand(c *Ctx) {
	argv := c.Argv
	minIdle, ok := ParseInt(argv[4])
	if !ok {
		c.W.Error("ERR Invalid min-idle-time argument for XAUTOCLAIM")
		return
	}
	minIdle = max(minIdle, 0)
	start, ex, ok := parseIntervalID(argv[5], 0)
	if !ok {
		c.W.Error(errInvalidStreamID)
		return
	}
	if ex {
		if start, ok = start.incr(); !ok {
			c.W.Error(errIntervalStart)
			return
		}
	}
	count := int64(100)
	justID := false
	for j := 6; j < len(argv); j++ {
		more := len(argv) - 1 - j
		opt := CString(argv[j])
		switch {
		case EqualFold(opt, "COUNT") && more > 0:
			n, ok := ParseInt(argv[j+1])
			if !ok || n < 1 || n > math.MaxInt64/16 {
				c.W.Error(errXAutoClaimCnt)
				return
			}
			count = n
			j++
		case EqualFold(opt, "JUSTID"):
			justID = true
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	key := argv[1]
	o, ok := c.streamGroupLookup(key)
	if !ok {
		return
	}
	var g *streamCG
	if o != nil {
		g = streamOf(o).group(argv[2])
	}
	if g == nil {
		c.W.Error(noGroupErr(key, argv[2]))
		return
	}
	s := streamOf(o)
	c.NoOwnOp()
	now := c.Now
	cn := g.consumer(argv[3])
	if cn == nil {
		cn = c.createConsumerNotify(key, s, g, argv[3])
	}
	cn.seenTime = now
	attempts := count * 10
	var deleted []streamID
	c.W.ArrayLen(3)
	// The cursor comes first in the reply: it is written once known.
	mark := deferredLen(c.W)
	claimed := 0
	// cur is where Valkey's rax iterator would step next.
	cur := g.pel.Seek(start)
	for attempts > 0 {
		attempts--
		if count <= 0 || !cur.Valid() {
			break
		}
		id := cur.ID()
		nack := *cur.Val()
		if !s.entryExists(id) {
			c.propagateXClaim(key, argv[2], g, appendStreamID(nil, id), nack)
			c.Dirty++
			nack.consumer.pel.Delete(id)
			s.mem -= nackBytes
			cur.DeleteAt() // on the next entry
			deleted = append(deleted, id)
			count--
			continue
		}
		cur.Next()
		if minIdle != 0 && now-nack.deliveryTime < minIdle {
			continue
		}
		if nack.consumer != cn {
			nack.consumer.pel.Delete(id)
		}
		nack.deliveryTime = now
		if !justID {
			nack.deliveryCount++
		}
		if nack.consumer != cn {
			cn.pel.Insert(id, nack)
			nack.consumer = cn
		}
		if justID {
			writeStreamID(c.W, id)
		} else {
			_, e, _ := s.findEntry(id)
			writeEntry(c.W, &e)
		}
		claimed++
		count--
		cn.activeTime = now
		c.propagateXClaim(key, argv[2], g, appendStreamID(nil, id), nack)
		c.Dirty++
	}
	setDeferredLen(c.W, mark, claimed, false)
	var endID streamID
	if cur.Valid() {
		endID = cur.ID()
	}
	// Insert the cursor before the claimed entries.
	tail := c.W.CopyFrom(mark)
	c.W.Truncate(mark)
	writeStreamID(c.W, endID)
	c.W.Raw(tail)
	c.W.ArrayLen(len(deleted))
	for _, id := range deleted {
		writeStreamID(c.W, id)
	}
	c.streamChanged(key, 0, false)
}
