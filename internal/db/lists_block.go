package db

import (
	"time"
)

// The blocking list commands. Each parses its arguments like its Valkey
// counterpart, then hands Block a serve function that does what the
// non-blocking command would do to one key and stores the outcome in
// variables the procedure owns; the procedure writes the reply once Block
// returns true (see blocking.go).

// BLPOP key [key ...] timeout
func blpopCommand(c *Ctx) { c.blockingPop(true) }

// BRPOP key [key ...] timeout
func brpopCommand(c *Ctx) { c.blockingPop(false) }

func (c *Ctx) blockingPop(head bool) {
	timeout, ok := c.blockTimeoutArg(len(c.Argv) - 1)
	if !ok {
		return
	}
	var key, val []byte
	var errMsg string
	serve := func(sc *Ctx, k []byte) bool {
		o := sc.LookupWrite(k)
		if o == nil {
			return false
		}
		if o.Type != TypeList {
			if sc.Serving() {
				return false
			}
			errMsg = ErrWrongType
			return true
		}
		ql := listOf(o)
		if head {
			val = ql.PopHead(nil)
		} else {
			val = ql.PopTail(nil)
		}
		key = append([]byte(nil), k...)
		sc.listRemoved(k, ql, 1, popName(head))
		sc.OwnAs(popArg(head), k) // BLPOP k ... as LPOP k
		return true
	}
	if !c.Block(c.Argv[1:len(c.Argv)-1], timeout, serve) {
		return
	}
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	c.W.ArrayLen(2)
	c.W.Bulk(key)
	c.W.Bulk(val)
}

// BLMPOP timeout numkeys key [key ...] LEFT | RIGHT [COUNT count]
func blmpopCommand(c *Ctx) {
	keys, head, count, ok := c.parseMpop(2)
	if !ok {
		return
	}
	timeout, ok := c.blockTimeoutArg(1)
	if !ok {
		return
	}
	var key []byte
	var vals [][]byte
	var errMsg string
	serve := func(sc *Ctx, k []byte) bool {
		o := sc.LookupWrite(k)
		if o == nil {
			return false
		}
		if o.Type != TypeList {
			if sc.Serving() {
				return false
			}
			errMsg = ErrWrongType
			return true
		}
		ql := listOf(o)
		n := int(min(count, int64(ql.Len())))
		vals = make([][]byte, 0, n)
		for range n {
			if head {
				vals = append(vals, ql.PopHead(nil))
			} else {
				vals = append(vals, ql.PopTail(nil))
			}
		}
		key = append([]byte(nil), k...)
		sc.listRemoved(k, ql, n, popName(head))
		if sc.Propagating() {
			sc.OwnAs(popArg(head), k, itoa(int64(n))) // what it popped
		}
		return true
	}
	if !c.Block(keys, timeout, serve) {
		return
	}
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	c.W.ArrayLen(2)
	c.W.Bulk(key)
	c.W.ArrayLen(len(vals))
	for _, v := range vals {
		c.W.Bulk(v)
	}
}

// BLMOVE source destination LEFT | RIGHT LEFT | RIGHT timeout
func blmoveCommand(c *Ctx) {
	from, ok := c.listWhere(3)
	if !ok {
		return
	}
	to, ok := c.listWhere(4)
	if !ok {
		return
	}
	timeout, ok := c.blockTimeoutArg(5)
	if !ok {
		return
	}
	c.blockingMove(from, to, timeout)
}

// BRPOPLPUSH source destination timeout
func brpoplpushCommand(c *Ctx) {
	timeout, ok := c.blockTimeoutArg(3)
	if !ok {
		return
	}
	c.blockingMove(false, true, timeout)
}

func (c *Ctx) blockingMove(from, to bool, timeout time.Duration) {
	src, dst := c.Argv[1], c.Argv[2]
	rpoplpush := EqualFold(c.Argv[0], "brpoplpush")
	var val []byte
	var errMsg string
	var moved bool
	serve := func(sc *Ctx, k []byte) bool {
		o := sc.LookupWrite(k)
		if o == nil {
			return false
		}
		if o.Type != TypeList && sc.Serving() {
			return false
		}
		// listMove reports a wrong source or destination type; both end
		// the command (a served BLMOVE whose destination became a string
		// gets WRONGTYPE, as the re-executed command does in Valkey).
		val, errMsg, moved = sc.listMove(k, dst, from, to, nil)
		switch {
		case !moved:
		case rpoplpush:
			sc.OwnAs(argRPOPLPUSH, k, dst)
		default:
			sc.OwnAs(argLMOVE, k, dst, whereArg(from), whereArg(to))
		}
		return true
	}
	if c.Locked {
		// Inside MULTI/EXEC or a script: act as LMOVE, with a null bulk
		// (not Block's null array) for an empty source, as Valkey does.
		serve(c, src)
		switch {
		case errMsg != "":
			c.W.Error(errMsg)
		case !moved:
			c.W.Null()
		default:
			c.W.Bulk(val)
		}
		return
	}
	if !c.BlockWith([][]byte{src}, [][]byte{dst}, timeout, serve) {
		return
	}
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	c.W.Bulk(val)
}
