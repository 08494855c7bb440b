package db

import (
	"math"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/resp"
)

// StreamCommands are the stream group's procedures: the commands here,
// the consumer groups' in streams_group.go, XREAD and XREADGROUP in
// streams_read.go and XINFO in streams_info.go. The value is described in
// streams_type.go.
var StreamCommands = []Handler{
	{Spec: command.Xadd, Proc: xaddCommand},
	{Spec: command.Xrange, Proc: xrangeCommand},
	{Spec: command.Xrevrange, Proc: xrevrangeCommand},
	{Spec: command.Xlen, Proc: xlenCommand},
	{Spec: command.Xdel, Proc: xdelCommand},
	{Spec: command.Xtrim, Proc: xtrimCommand},
	{Spec: command.Xsetid, Proc: xsetidCommand},
	{Spec: command.Xread, Proc: xreadCommand, Lock: LockNone},
	{Spec: command.Xreadgroup, Proc: xreadgroupCommand, Lock: LockNone},
	{Spec: command.XgroupCreate, Proc: xgroupCreateCommand},
	{Spec: command.XgroupSetid, Proc: xgroupSetidCommand},
	{Spec: command.XgroupDestroy, Proc: xgroupDestroyCommand},
	{Spec: command.XgroupCreateconsumer, Proc: xgroupCreateconsumerCommand},
	{Spec: command.XgroupDelconsumer, Proc: xgroupDelconsumerCommand},
	{Spec: command.XgroupHelp, Proc: xgroupHelpCommand, Lock: LockNone},
	{Spec: command.Xack, Proc: xackCommand},
	{Spec: command.Xpending, Proc: xpendingCommand},
	{Spec: command.Xclaim, Proc: xclaimCommand},
	{Spec: command.Xautoclaim, Proc: xautoclaimCommand},
	{Spec: command.XinfoStream, Proc: xinfoStreamCommand},
	{Spec: command.XinfoGroups, Proc: xinfoGroupsCommand},
	{Spec: command.XinfoConsumers, Proc: xinfoConsumersCommand},
	{Spec: command.XinfoHelp, Proc: xinfoHelpCommand, Lock: LockNone},
}

// Reply texts of the stream commands, as Valkey 8.0.1 words them.
const (
	errXAddIDSmaller   = "ERR The ID specified in XADD is equal or smaller than the target stream top item"
	errXAddIDZero      = "ERR The ID specified in XADD must be greater than 0-0"
	errXAddExhausted   = "ERR The stream has exhausted the last possible ID, unable to add more items"
	errXAddTooLarge    = "ERR Elements are too large to be stored"
	errTrimBoth        = "ERR syntax error, MAXLEN and MINID options at the same time are not compatible"
	errTrimMaxLenNeg   = "ERR The MAXLEN argument must be >= 0."
	errTrimLimitNeg    = "ERR The LIMIT argument must be >= 0."
	errTrimLimitNoStr  = "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy"
	errTrimNoStrategy  = "ERR syntax error, XTRIM must be called with a trimming strategy"
	errTrimLimitNoApx  = "ERR syntax error, LIMIT cannot be used without the special ~ option"
	errIntervalStart   = "ERR invalid start ID for the interval"
	errIntervalEnd     = "ERR invalid end ID for the interval"
	errXSetIDSmaller   = "ERR The ID specified in XSETID is smaller than the target stream top item"
	errXSetIDMaxDel    = "ERR The ID specified in XSETID is smaller than current max_deleted_entry_id"
	errXSetIDGivenDel  = "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id"
	errXSetIDAdded     = "ERR The entries_added specified in XSETID is smaller than the target stream length"
	errXSetIDAddedNeg  = "ERR entries_added must be positive"
	errStreamArityXAdd = "ERR wrong number of arguments for 'xadd' command"
)

var (
	argEquals = []byte("=")
)

// streamLimits reads stream-node-max-bytes and -entries.
func (c *Ctx) streamLimits() nodeLimits {
	s := c.cfg()
	return nodeLimits{maxBytes: s.streamNodeBytes.Load(), maxEntries: s.streamNodeEntries.Load()}
}

// streamChanged records n changes to the stream at key: counted as dirty,
// re-measured, and (modified) announced to WATCH and client tracking, as
// Valkey's signalModifiedKey, which only some stream commands call.
func (c *Ctx) streamChanged(key []byte, n int, modified bool) {
	c.Dirty += n
	if modified {
		c.KS.keyChanged(c.DB, key, c.Client)
	}
	c.account(c.DB, key)
}

// streamLookupRead is lookupKeyRead plus checkType: nil and true for a
// missing key.
func (c *Ctx) streamLookupRead(key []byte) (*Object, bool) {
	return c.lookupReadAs(key, TypeStream)
}

// cname is a key or name as Valkey's "%s" formats it: up to a NUL.
func cname(b []byte) string { return string(CString(b)) }

// writeStreamID writes id as a bulk string.
func writeStreamID(w *resp.Writer, id streamID) {
	var tmp [42]byte
	w.Bulk(appendStreamID(tmp[:0], id))
}

// writeEntry writes one entry as [id, [field, value, ...]].
func writeEntry(w *resp.Writer, e *streamEntry) {
	w.ArrayLen(2)
	writeStreamID(w, e.id)
	w.ArrayLen(2 * e.numFields)
	e.each(func(f, v []byte) {
		w.Bulk(f)
		w.Bulk(v)
	})
}

// deferredLen remembers where an array whose length is not known yet
// begins; setDeferredLen writes its header there once it is.
func deferredLen(w *resp.Writer) int { return w.Len() }

func setDeferredLen(w *resp.Writer, mark, n int, asMap bool) {
	tail := w.CopyFrom(mark)
	w.Truncate(mark)
	if asMap {
		w.MapLen(n)
	} else {
		w.ArrayLen(n)
	}
	w.Raw(tail)
}

// XADD key [NOMKSTREAM] [<MAXLEN | MINID> [= | ~] threshold [LIMIT count]] <* | id> field value [field value ...]
func xaddCommand(c *Ctx) {
	var a trimArgs
	var x xaddArgs
	idPos, ok := c.parseAddTrim(&a, &x)
	if !ok {
		return
	}
	fieldPos := idPos + 1
	if n := len(c.Argv) - fieldPos; n < 2 || n%2 == 1 {
		c.W.Error(errStreamArityXAdd)
		return
	}
	if x.idGiven && x.seqGiven && x.id.isZero() {
		c.W.Error(errXAddIDZero)
		return
	}
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeStream)
	if !ok {
		return
	}
	if o == nil {
		if x.noMkStream {
			c.W.Null()
			return
		}
		o = c.Create(key, TypeStream)
		o.SetValue(newStream())
	}
	s := streamOf(o)
	if s.lastID == maxStreamID {
		c.W.Error(errXAddExhausted)
		return
	}
	// streamAppendItem's checks.
	var id streamID
	switch {
	case !x.idGiven:
		if c.Now > 0 && uint64(c.Now) > s.lastID.ms {
			id = streamID{uint64(c.Now), 0}
		} else {
			id, _ = s.lastID.incr()
		}
	case x.seqGiven:
		id = x.id
	case s.lastID.ms == x.id.ms:
		if s.lastID.seq == math.MaxUint64 {
			c.W.Error(errXAddIDSmaller)
			return
		}
		id = streamID{s.lastID.ms, s.lastID.seq + 1}
	default:
		id = x.id
	}
	if id.cmp(s.lastID) <= 0 {
		c.W.Error(errXAddIDSmaller)
		return
	}
	fields := c.Argv[fieldPos:]
	tot := 0
	for _, f := range fields {
		tot += len(f)
	}
	if tot > streamListpackMax {
		// The stream may have been created above: Valkey leaves it.
		c.account(c.DB, key)
		c.W.Error(errXAddTooLarge)
		return
	}
	s.appendEntry(id, fields, c.streamLimits())
	var idBuf [42]byte
	idStr := appendStreamID(idBuf[:0], id)
	c.W.Bulk(idStr)
	c.streamChanged(key, 1, true)
	c.Notify(NotifyStream, "xadd", key)

	var rewrite [][]byte
	if a.strategy != trimNone {
		if s.trim(&a) > 0 {
			c.Notify(NotifyStream, "xtrim", key)
		}
		c.account(c.DB, key)
		if a.approx && c.Propagating() {
			rewrite = append([][]byte(nil), c.Argv...)
			rewrite[a.argIdx-1] = argEquals
			rewrite[a.argIdx] = s.trimmedTo(a.strategy)
		}
	}
	if (!x.idGiven || !x.seqGiven) && c.Propagating() {
		if rewrite == nil {
			rewrite = append([][]byte(nil), c.Argv...)
		}
		rewrite[idPos] = append([]byte(nil), idStr...)
	}
	if rewrite != nil {
		c.OwnAs(rewrite...)
	}
	c.SignalReady(key)
}

// trimmedTo is streamRewriteTrimArgument's value: the stream's length
// (MAXLEN) or its first entry's ID, tombstones included (MINID).
func (s *stream) trimmedTo(strategy int) []byte {
	if strategy == trimMaxLen {
		return itoa(int64(s.length))
	}
	return appendStreamID(nil, s.edgeID(true, false))
}

// xaddArgs are XADD's own options.
type xaddArgs struct {
	id                streamID
	idGiven, seqGiven bool
	noMkStream        bool
}

// parseAddTrim is streamParseAddOrTrimArgsOrReply for XADD (x non-nil)
// or XTRIM: it returns the position of XADD's ID argument.
func (c *Ctx) parseAddTrim(a *trimArgs, x *xaddArgs) (int, bool) {
	argv := c.Argv
	xadd := x != nil
	limitGiven := false
	i := 2
	for ; i < len(argv); i++ {
		more := len(argv) - 1 - i
		opt := CString(argv[i])
		switch {
		case xadd && len(opt) == 1 && opt[0] == '*':
			// The common case: an auto-generated ID.
			return c.finishAddTrim(a, xadd, limitGiven, i)
		case EqualFold(opt, "MAXLEN") && more > 0, EqualFold(opt, "MINID") && more > 0:
			maxlen := opt[1]|0x20 == 'a'
			if a.strategy != trimNone {
				c.W.Error(errTrimBoth)
				return 0, false
			}
			a.approx = false
			next := CString(argv[i+1])
			if more >= 2 && len(next) == 1 && next[0] == '~' {
				a.approx = true
				i++
			} else if more >= 2 && len(next) == 1 && next[0] == '=' {
				i++
			}
			if maxlen {
				n, ok := c.IntArg(i + 1)
				if !ok {
					return 0, false
				}
				if n < 0 {
					c.W.Error(errTrimMaxLenNeg)
					return 0, false
				}
				a.maxLen = n
				a.strategy = trimMaxLen
			} else {
				id, _, ok := parseStreamID(argv[i+1], 0, true, false)
				if !ok {
					c.W.Error(errInvalidStreamID)
					return 0, false
				}
				a.minID = id
				a.strategy = trimMinID
			}
			i++
			a.argIdx = i
		case EqualFold(opt, "LIMIT") && more > 0:
			n, ok := c.IntArg(i + 1)
			if !ok {
				return 0, false
			}
			if n < 0 {
				c.W.Error(errTrimLimitNeg)
				return 0, false
			}
			a.limit = n
			limitGiven = true
			i++
		case xadd && EqualFold(opt, "NOMKSTREAM"):
			x.noMkStream = true
		case xadd:
			id, seqGiven, ok := parseStreamID(argv[i], 0, true, true)
			if !ok {
				c.W.Error(errInvalidStreamID)
				return 0, false
			}
			x.id, x.idGiven, x.seqGiven = id, true, seqGiven
			return c.finishAddTrim(a, xadd, limitGiven, i)
		default:
			c.W.Error(ErrSyntax)
			return 0, false
		}
	}
	return c.finishAddTrim(a, xadd, limitGiven, i)
}

func (c *Ctx) finishAddTrim(a *trimArgs, xadd, limitGiven bool, i int) (int, bool) {
	if a.limit != 0 && a.strategy == trimNone {
		c.W.Error(errTrimLimitNoStr)
		return 0, false
	}
	if !xadd && a.strategy == trimNone {
		c.W.Error(errTrimNoStrategy)
		return 0, false
	}
	switch {
	case c.Replica:
		// From a primary or the AOF: the count was made exact.
		a.limit = 0
	case limitGiven:
		if !a.approx {
			c.W.Error(errTrimLimitNoApx)
			return 0, false
		}
	case a.approx:
		// At most 100 nodes' worth, capped both ways (the product may
		// wrap, as Valkey's does).
		a.limit = 100 * c.cfg().streamNodeEntries.Load()
		if a.limit <= 0 {
			a.limit = 10000
		}
		if a.limit > 1000000 {
			a.limit = 1000000
		}
	default:
		a.limit = 0
	}
	return i, true
}

// XRANGE key start end [COUNT count]
func xrangeCommand(c *Ctx) { c.xrangeGeneric(false) }

// XREVRANGE key end start [COUNT count]
func xrevrangeCommand(c *Ctx) { c.xrangeGeneric(true) }

func (c *Ctx) xrangeGeneric(rev bool) {
	startArg, endArg := c.Argv[2], c.Argv[3]
	if rev {
		startArg, endArg = endArg, startArg
	}
	start, ex, ok := parseIntervalID(startArg, 0)
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
	end, ex, ok := parseIntervalID(endArg, math.MaxUint64)
	if !ok {
		c.W.Error(errInvalidStreamID)
		return
	}
	if ex {
		if end, ok = end.decr(); !ok {
			c.W.Error(errIntervalEnd)
			return
		}
	}
	count := int64(-1)
	for j := 4; j < len(c.Argv); j++ {
		if EqualFold(CString(c.Argv[j]), "COUNT") && j+1 < len(c.Argv) {
			n, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			count = max(n, 0)
			j++
			continue
		}
		c.W.Error(ErrSyntax)
		return
	}
	o, ok := c.streamLookupRead(c.Argv[1])
	if !ok {
		return
	}
	if o == nil {
		c.W.ArrayLen(0)
		return
	}
	if count == 0 {
		c.W.NullArray()
		return
	}
	c.replyRange(c.W, streamOf(o), start, end, max(count, 0), rev)
}

// replyRange writes the entries of s within [start, end] (at most count,
// 0: all) as an array, in order or backwards.
func (c *Ctx) replyRange(w *resp.Writer, s *stream, start, end streamID, count int64, rev bool) int64 {
	mark := deferredLen(w)
	var n int64
	s.iterate(start, end, rev, false, func(e *streamEntry) bool {
		writeEntry(w, e)
		n++
		return count == 0 || n < count
	})
	setDeferredLen(w, mark, int(n), false)
	return n
}

// XLEN key
func xlenCommand(c *Ctx) {
	o, ok := c.streamLookupRead(c.Argv[1])
	switch {
	case !ok:
	case o == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(streamOf(o).length))
	}
}

// XDEL key id [id ...]
func xdelCommand(c *Ctx) {
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeStream)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	ids := make([]streamID, 0, len(c.Argv)-2)
	for _, a := range c.Argv[2:] {
		id, _, ok := parseStreamID(a, 0, true, false)
		if !ok {
			c.W.Error(errInvalidStreamID)
			return
		}
		ids = append(ids, id)
	}
	s := streamOf(o)
	deleted, first := 0, false
	for _, id := range ids {
		if !s.deleteEntry(id) {
			continue
		}
		if id == s.firstID {
			first = true
		}
		if id.cmp(s.maxDeleted) > 0 {
			s.maxDeleted = id
		}
		deleted++
	}
	if deleted > 0 {
		if s.length == 0 {
			s.firstID = streamID{}
		} else if first {
			s.firstID = s.edgeID(true, true)
		}
		c.streamChanged(key, deleted, true)
		c.Notify(NotifyStream, "xdel", key)
	}
	c.W.Int(int64(deleted))
}

// XTRIM key <MAXLEN | MINID> [= | ~] threshold [LIMIT count]
func xtrimCommand(c *Ctx) {
	var a trimArgs
	if _, ok := c.parseAddTrim(&a, nil); !ok {
		return
	}
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeStream)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	s := streamOf(o)
	deleted := s.trim(&a)
	if deleted > 0 {
		c.Notify(NotifyStream, "xtrim", key)
		if a.approx && c.Propagating() {
			rewrite := append([][]byte(nil), c.Argv...)
			rewrite[a.argIdx-1] = argEquals
			rewrite[a.argIdx] = s.trimmedTo(a.strategy)
			c.OwnAs(rewrite...)
		}
		c.streamChanged(key, int(deleted), true)
	}
	c.W.Int(deleted)
}

// XSETID key last-id [ENTRIESADDED entries-added] [MAXDELETEDID max-deleted-id]
func xsetidCommand(c *Ctx) {
	id, _, ok := parseStreamID(c.Argv[2], 0, true, false)
	if !ok {
		c.W.Error(errInvalidStreamID)
		return
	}
	var maxDel streamID
	entriesAdded := int64(-1)
	for i := 3; i < len(c.Argv); i += 2 {
		more := len(c.Argv) - 1 - i
		opt := CString(c.Argv[i])
		switch {
		case EqualFold(opt, "ENTRIESADDED") && more > 0:
			n, ok := c.IntArg(i + 1)
			if !ok {
				return
			}
			if n < 0 {
				c.W.Error(errXSetIDAddedNeg)
				return
			}
			entriesAdded = n
		case EqualFold(opt, "MAXDELETEDID") && more > 0:
			md, _, ok := parseStreamID(c.Argv[i+1], 0, true, false)
			if !ok {
				c.W.Error(errInvalidStreamID)
				return
			}
			if id.cmp(md) < 0 {
				c.W.Error(errXSetIDGivenDel)
				return
			}
			maxDel = md
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	key := c.Argv[1]
	o := c.LookupWrite(key)
	if o == nil {
		c.W.Error(ErrNoSuchKey)
		return
	}
	if o.Type != TypeStream {
		c.W.Error(ErrWrongType)
		return
	}
	s := streamOf(o)
	if id.cmp(s.maxDeleted) < 0 {
		c.W.Error(errXSetIDMaxDel)
		return
	}
	if s.length > 0 {
		if id.cmp(s.lastValidID()) < 0 {
			c.W.Error(errXSetIDSmaller)
			return
		}
		if entriesAdded != -1 && s.length > uint64(entriesAdded) {
			c.W.Error(errXSetIDAdded)
			return
		}
	}
	s.lastID = id
	if entriesAdded != -1 {
		s.entriesAdded = uint64(entriesAdded)
	}
	if !maxDel.isZero() {
		s.maxDeleted = maxDel
	}
	c.W.OK()
	c.streamChanged(key, 1, false)
	c.Notify(NotifyStream, "xsetid", key)
}
