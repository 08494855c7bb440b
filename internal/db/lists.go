package db

import (
	"math"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/ds"
)

// ListCommands are the list group's procedures: the commands here, the
// edits by position or value in lists_edit.go, and the blocking family in
// lists_block.go.
//
// A list's Object.Value() is a *ds.Quicklist, which carries both of Valkey's
// encodings ("listpack" and "quicklist") and converts between them at
// Valkey's thresholds (list-max-listpack-size, read on every write). An
// empty list is never stored: the command that empties a list deletes the
// key.
var ListCommands = []Handler{
	{Spec: command.Lpush, Proc: lpushCommand},
	{Spec: command.Rpush, Proc: rpushCommand},
	{Spec: command.Lpushx, Proc: lpushxCommand},
	{Spec: command.Rpushx, Proc: rpushxCommand},
	{Spec: command.Lpop, Proc: lpopCommand},
	{Spec: command.Rpop, Proc: rpopCommand},
	{Spec: command.Llen, Proc: llenCommand},
	{Spec: command.Lrange, Proc: lrangeCommand},
	{Spec: command.Lindex, Proc: lindexCommand},
	{Spec: command.Lset, Proc: lsetCommand},
	{Spec: command.Linsert, Proc: linsertCommand},
	{Spec: command.Lrem, Proc: lremCommand},
	{Spec: command.Ltrim, Proc: ltrimCommand},
	{Spec: command.Lpos, Proc: lposCommand},
	{Spec: command.Lmove, Proc: lmoveCommand},
	{Spec: command.Rpoplpush, Proc: rpoplpushCommand},
	{Spec: command.Lmpop, Proc: lmpopCommand},
	{Spec: command.Blpop, Proc: blpopCommand, Lock: LockNone},
	{Spec: command.Brpop, Proc: brpopCommand, Lock: LockNone},
	{Spec: command.Blmove, Proc: blmoveCommand, Lock: LockNone},
	{Spec: command.Brpoplpush, Proc: brpoplpushCommand, Lock: LockNone},
	{Spec: command.Blmpop, Proc: blmpopCommand, Lock: LockNone},
}

// errRangeLong is getRangeLongFromObjectOrReply's message for the range
// [-LONG_MAX, LONG_MAX] (LPOS RANK, LREM count, HRANDFIELD count): only
// LONG_MIN is refused, because it cannot be negated.
const errRangeLong = "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807"

// listOf returns the list stored in o (which must be a list).
func listOf(o *Object) *ds.Quicklist { return o.Value().(*ds.Quicklist) }

// createList stores a new empty list under key.
func (c *Ctx) createList(key []byte) *Object {
	o := c.Create(key, TypeList)
	o.SetValue(ds.NewQuicklist())
	return o
}

// listRemoved is listElementsRemoved: after n elements left the list at
// key, announce event (lpop, rpop, lrem), delete the key if the list is
// empty ("del") or else let it shrink back to a listpack, and count the
// change.
func (c *Ctx) listRemoved(key []byte, ql *ds.Quicklist, n int, event string) {
	empty := ql.Len() == 0
	c.removedFrom(NotifyList, event, key, empty)
	if !empty {
		ql.TryShrink(c.cfg().listFill())
	}
	c.touchN(key, n)
}

// listPush pushes one value onto ql, converting its encoding first.
func (c *Ctx) listPush(ql *ds.Quicklist, v []byte, head bool) {
	ql.PrepareGrow(c.cfg().listConfig(), len(v), 1)
	if head {
		ql.PushHead(v)
	} else {
		ql.PushTail(v)
	}
}

// LPUSH key element [element ...]
func lpushCommand(c *Ctx) { c.pushGeneric(true, false) }

// RPUSH key element [element ...]
func rpushCommand(c *Ctx) { c.pushGeneric(false, false) }

// LPUSHX key element [element ...]
func lpushxCommand(c *Ctx) { c.pushGeneric(true, true) }

// RPUSHX key element [element ...]
func rpushxCommand(c *Ctx) { c.pushGeneric(false, true) }

// pushGeneric is pushGenericCommand. xx pushes only onto an existing list.
func (c *Ctx) pushGeneric(head, xx bool) {
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeList)
	if !ok {
		return
	}
	if o == nil {
		if xx {
			c.W.Int(0)
			return
		}
		o = c.createList(key)
	}
	ql := listOf(o)
	vals := c.Argv[2:]
	// One conversion check for the whole batch, as Valkey does.
	total := 0
	for _, v := range vals {
		total += len(v)
	}
	ql.PrepareGrow(c.cfg().listConfig(), total, len(vals))
	for _, v := range vals {
		if head {
			ql.PushHead(v)
		} else {
			ql.PushTail(v)
		}
	}
	c.touchN(key, len(vals))
	c.Notify(NotifyList, pushName(head), key)
	c.SignalReady(key)
	c.W.Int(int64(ql.Len()))
}

// LPOP key [count]
func lpopCommand(c *Ctx) { c.popGeneric(true) }

// RPOP key [count]
func rpopCommand(c *Ctx) { c.popGeneric(false) }

func (c *Ctx) popGeneric(head bool) {
	if len(c.Argv) > 3 {
		c.W.Error("ERR wrong number of arguments for '" + popName(head) + "' command")
		return
	}
	hasCount := len(c.Argv) == 3
	var count int64
	if hasCount {
		n, ok := ParseInt(c.Argv[2])
		if !ok || n < 0 {
			c.W.Error(ErrNotPositive)
			return
		}
		count = n
	}
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeList)
	if !ok {
		return
	}
	if o == nil {
		if hasCount {
			c.W.NullArray()
		} else {
			c.W.Null()
		}
		return
	}
	ql := listOf(o)
	if hasCount && count == 0 {
		c.W.ArrayLen(0)
		return
	}
	if !hasCount {
		if head {
			c.W.Bulk(ql.Head())
			ql.DelRange(0, 1)
		} else {
			c.W.Bulk(ql.Tail())
			ql.DelRange(ql.Len()-1, 1)
		}
		c.listRemoved(key, ql, 1, popName(head))
		return
	}
	n := int(min(count, int64(ql.Len())))
	c.listPopRangeReply(ql, head, n)
	c.listRemoved(key, ql, n, popName(head))
}

// popName is the name of a pop from the head (lpop) or the tail (rpop),
// as an error text and an event.
func popName(head bool) string {
	if head {
		return "lpop"
	}
	return "rpop"
}

// pushName is the event of a push onto the head (lpush) or the tail.
func pushName(head bool) string {
	if head {
		return "lpush"
	}
	return "rpush"
}

// listPopRangeReply writes n elements from one end of ql (in pop order) as
// an array and deletes them.
func (c *Ctx) listPopRangeReply(ql *ds.Quicklist, head bool, n int) {
	c.W.ArrayLen(n)
	if head {
		ql.Range(0, n, false, c.W.Bulk)
		ql.DelRange(0, n)
	} else {
		ql.Range(ql.Len()-1, n, true, c.W.Bulk)
		ql.DelRange(ql.Len()-n, n)
	}
}

// LLEN key
func llenCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeList)
	switch {
	case !ok:
	case o == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(listOf(o).Len()))
	}
}

// LRANGE key start stop
func lrangeCommand(c *Ctx) {
	start, ok := c.IntArg(2)
	if !ok {
		return
	}
	end, ok := c.IntArg(3)
	if !ok {
		return
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeList)
	if !ok {
		return
	}
	if o == nil {
		c.W.ArrayLen(0)
		return
	}
	ql := listOf(o)
	from, n := rankRange(start, end, int64(ql.Len()))
	c.W.ArrayLen(n)
	ql.Range(from, n, false, c.W.Bulk)
}

// LINDEX key index
func lindexCommand(c *Ctx) {
	// Valkey looks the key up before it parses the index.
	o, ok := c.lookupReadAs(c.Argv[1], TypeList)
	if !ok {
		return
	}
	if o == nil {
		c.W.Null()
		return
	}
	i, ok := c.IntArg(2)
	if !ok {
		return
	}
	ql := listOf(o)
	if i < -int64(ql.Len()) || i >= int64(ql.Len()) {
		c.W.Null()
		return
	}
	v, _ := ql.Index(int(i))
	c.W.Bulk(v)
}

// LSET key index element
func lsetCommand(c *Ctx) {
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeList)
	if !ok {
		return
	}
	if o == nil {
		c.W.Error(ErrNoSuchKey)
		return
	}
	i, ok := c.IntArg(2)
	if !ok {
		return
	}
	ql := listOf(o)
	v := c.Argv[3]
	// The growing check runs first, even if the index turns out to be out
	// of range (the conversion then stays), as in Valkey.
	ql.PrepareGrow(c.cfg().listConfig(), len(v), 1)
	if i < -int64(ql.Len()) || i >= int64(ql.Len()) || !ql.Replace(int(i), v) {
		c.W.Error(ErrOutOfRange)
		return
	}
	ql.TryShrink(c.cfg().listFill())
	c.Touch(key)
	c.Notify(NotifyList, "lset", key)
	c.W.OK()
}

// LTRIM key start stop
func ltrimCommand(c *Ctx) {
	start, ok := c.IntArg(2)
	if !ok {
		return
	}
	end, ok := c.IntArg(3)
	if !ok {
		return
	}
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeList)
	if !ok {
		return
	}
	if o == nil {
		c.W.OK()
		return
	}
	ql := listOf(o)
	llen := int64(ql.Len())
	from, n := rankRange(start, end, llen)
	ltrim, rtrim := int64(from), llen-int64(from)-int64(n)
	if n == 0 {
		ltrim, rtrim = llen, 0
	}
	ql.DelRange(0, int(ltrim))
	ql.DelRange(ql.Len()-int(rtrim), int(rtrim))
	empty := ql.Len() == 0
	c.removedFrom(NotifyList, "ltrim", key, empty)
	if !empty {
		ql.TryShrink(c.cfg().listFill())
	}
	// Valkey signals the key as modified even when nothing was trimmed
	// (a WATCH of it fails), and counts only what was removed as dirty.
	c.Touch(key)
	c.Dirty += int(ltrim+rtrim) - 1
	c.W.OK()
}

// rangeLongArg parses argv[i] into [-LONG_MAX, LONG_MAX] as Valkey's
// getRangeLongFromObjectOrReply(..., -LONG_MAX, LONG_MAX, NULL).
func (c *Ctx) rangeLongArg(i int) (int64, bool) {
	n, ok := c.IntArg(i)
	if !ok {
		return 0, false
	}
	if n == math.MinInt64 {
		c.W.Error(errRangeLong)
		return 0, false
	}
	return n, true
}

// LPOS key element [RANK rank] [COUNT num-matches] [MAXLEN len]
func lposCommand(c *Ctx) {
	ele := c.Argv[2]
	rank, count, maxlen := int64(1), int64(-1), int64(0)
	argv := c.Argv
	for j := 3; j < len(argv); j++ {
		more := j+1 < len(argv)
		switch a := argv[j]; {
		case EqualFold(a, "RANK") && more:
			j++
			n, ok := c.rangeLongArg(j)
			if !ok {
				return
			}
			if n == 0 {
				c.W.Error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use negative to start from the end of the list")
				return
			}
			rank = n
		case EqualFold(a, "COUNT") && more:
			j++
			var ok bool
			if count, ok = c.positiveArg(j, "ERR COUNT can't be negative"); !ok {
				return
			}
		case EqualFold(a, "MAXLEN") && more:
			j++
			var ok bool
			if maxlen, ok = c.positiveArg(j, "ERR MAXLEN can't be negative"); !ok {
				return
			}
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	fromTail := rank < 0
	if fromTail {
		rank = -rank
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeList)
	if !ok {
		return
	}
	if o == nil {
		if count != -1 {
			c.W.ArrayLen(0)
		} else {
			c.W.Null()
		}
		return
	}
	ql := listOf(o)
	llen := int64(ql.Len())
	var index, matches int64
	matchIndex := int64(-1)
	var found []int64
	ql.Scan(fromTail, func(v []byte) bool {
		if maxlen != 0 && index >= maxlen {
			return false
		}
		if string(v) == string(ele) {
			matches++
			if matches >= rank {
				mi := index
				if fromTail {
					mi = llen - index - 1
				}
				if count == -1 {
					matchIndex = mi
					return false
				}
				found = append(found, mi)
				if count != 0 && matches-rank+1 >= count {
					return false
				}
			}
		}
		index++
		return true
	})
	if count != -1 {
		c.W.ArrayLen(len(found))
		for _, i := range found {
			c.W.Int(i)
		}
		return
	}
	if matchIndex == -1 {
		c.W.Null()
		return
	}
	c.W.Int(matchIndex)
}
