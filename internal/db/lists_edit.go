package db

import "github.com/corvid-kv/corvid/internal/ds"

// LINSERT key BEFORE | AFTER pivot element
func linsertCommand(c *Ctx) {
	var after bool
	switch w := c.Argv[2]; {
	case EqualFold(w, "AFTER"):
		after = true
	case EqualFold(w, "BEFORE"):
	default:
		c.W.Error(ErrSyntax)
		return
	}
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeList)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	ql := listOf(o)
	v := c.Argv[4]
	// Converted before the pivot is searched, found or not (Valkey cannot
	// convert while it iterates, so it converts up front).
	ql.PrepareGrow(c.cfg().listConfig(), len(v), 1)
	if !ql.Insert(c.Argv[3], v, after) {
		c.W.Int(-1)
		return
	}
	c.Touch(key)
	c.Notify(NotifyList, "linsert", key)
	c.SignalReady(key)
	c.W.Int(int64(ql.Len()))
}

// LREM key count element
func lremCommand(c *Ctx) {
	n, ok := c.rangeLongArg(2)
	if !ok {
		return
	}
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeList)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	ql := listOf(o)
	fromTail := n < 0
	if fromTail {
		n = -n
	}
	// n == 0 removes every match (Remove's convention too).
	removed := ql.Remove(c.Argv[3], int(min(n, int64(ql.Len()))), fromTail)
	if removed > 0 {
		c.listRemoved(key, ql, removed, "lrem")
	}
	c.W.Int(int64(removed))
}

// listWhere parses LEFT/RIGHT; true means the head (LEFT).
func (c *Ctx) listWhere(i int) (head, ok bool) {
	switch a := c.Argv[i]; {
	case EqualFold(a, "LEFT"):
		return true, true
	case EqualFold(a, "RIGHT"):
		return false, true
	}
	c.W.Error(ErrSyntax)
	return false, false
}

// LMOVE source destination LEFT | RIGHT LEFT | RIGHT
func lmoveCommand(c *Ctx) {
	from, ok := c.listWhere(3)
	if !ok {
		return
	}
	to, ok := c.listWhere(4)
	if !ok {
		return
	}
	c.lmoveGeneric(from, to)
}

// RPOPLPUSH source destination
func rpoplpushCommand(c *Ctx) { c.lmoveGeneric(false, true) }

func (c *Ctx) lmoveGeneric(from, to bool) {
	v, errMsg, ok := c.listMove(c.Argv[1], c.Argv[2], from, to, nil)
	switch {
	case errMsg != "":
		c.W.Error(errMsg)
	case !ok:
		c.W.Null()
	default:
		c.W.Bulk(v)
	}
}

// listMove pops from src and pushes onto dst, as lmoveGenericCommand. It
// returns the moved element (appended to buf), or ok == false when src is
// missing, or the WRONGTYPE error text. Both keys' stripes are held.
func (c *Ctx) listMove(src, dst []byte, from, to bool, buf []byte) (v []byte, errMsg string, ok bool) {
	so := c.LookupWrite(src)
	if so == nil {
		return nil, "", false
	}
	if so.Type != TypeList {
		return nil, ErrWrongType, false
	}
	do := c.LookupWrite(dst)
	if do != nil && do.Type != TypeList {
		return nil, ErrWrongType, false
	}
	sl := listOf(so)
	// Pop into our own buffer: when src and dst are the same list the push
	// may reuse the bytes the element occupied.
	if from {
		v = sl.PopHead(buf)
	} else {
		v = sl.PopTail(buf)
	}
	if do == nil {
		do = c.createList(dst)
	}
	c.listPush(listOf(do), v, to)
	// The destination changes first, then the source is cleaned up: with
	// src == dst a one-element list is rotated, not deleted.
	c.signalDB(c.DB, dst)
	c.Notify(NotifyList, pushName(to), dst)
	c.SignalReady(dst)
	c.listRemoved(src, sl, 1, popName(from))
	return v, "", true
}

// LMPOP numkeys key [key ...] LEFT | RIGHT [COUNT count]
func lmpopCommand(c *Ctx) {
	keys, head, count, ok := c.parseMpop(1)
	if !ok {
		return
	}
	for _, k := range keys {
		o := c.LookupWrite(k)
		if o == nil {
			continue
		}
		if o.Type != TypeList {
			c.W.Error(ErrWrongType)
			return
		}
		ql := listOf(o)
		n := int(min(count, int64(ql.Len())))
		c.W.ArrayLen(2)
		c.W.Bulk(k)
		c.listPopRangeReply(ql, head, n)
		c.listRemoved(k, ql, n, popName(head))
		if c.Propagating() {
			c.OwnAs(popArg(head), k, itoa(int64(n))) // the key it chose
		}
		return
	}
	c.W.NullArray()
}

// parseMpop parses LMPOP/BLMPOP's numkeys at argv[at], the keys, the
// direction and COUNT, as lmpopGenericCommand.
func (c *Ctx) parseMpop(at int) (keys [][]byte, head bool, count int64, ok bool) {
	numkeys, okN := ParseInt(c.Argv[at])
	if !okN || numkeys < 1 {
		c.W.Error("ERR numkeys should be greater than 0")
		return nil, false, 0, false
	}
	// The direction follows the keys: numkeys is compared with what
	// remains instead of added to an index, which would overflow.
	if numkeys >= int64(len(c.Argv)-at-1) {
		c.W.Error(ErrSyntax)
		return nil, false, 0, false
	}
	whereIdx := at + int(numkeys) + 1
	if head, ok = c.listWhere(whereIdx); !ok {
		return nil, false, 0, false
	}
	count = -1
	for j := whereIdx + 1; j < len(c.Argv); j++ {
		if count == -1 && EqualFold(c.Argv[j], "COUNT") && j+1 < len(c.Argv) {
			j++
			n, okC := ParseInt(c.Argv[j])
			if !okC || n < 1 {
				c.W.Error("ERR count should be greater than 0")
				return nil, false, 0, false
			}
			count = n
			continue
		}
		c.W.Error(ErrSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return c.Argv[at+1 : whereIdx], head, count, true
}

// listCopy duplicates a list for COPY.
func listCopy(o *Object) any { return listOf(o).Clone() }

// listEncoding is OBJECT ENCODING of a list.
func listEncoding(ql *ds.Quicklist) string {
	if ql.IsListpack() {
		return "listpack"
	}
	return "quicklist"
}
