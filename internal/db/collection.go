package db

// Helpers the collection types (lists, hashes, sets, sorted sets) share.

// lookupReadAs is LookupRead for a command on values of type t: a key
// holding another type writes WRONGTYPE and gives ok false; a missing key
// is (nil, true).
func (c *Ctx) lookupReadAs(key []byte, t Type) (o *Object, ok bool) {
	return c.checkType(c.LookupRead(key), t)
}

// lookupWriteAs is lookupReadAs for a command that may change the value.
func (c *Ctx) lookupWriteAs(key []byte, t Type) (o *Object, ok bool) {
	return c.checkType(c.LookupWrite(key), t)
}

func (c *Ctx) checkType(o *Object, t Type) (*Object, bool) {
	if o != nil && o.Type != t {
		c.W.Error(ErrWrongType)
		return nil, false
	}
	return o, true
}

// touchN records n changes to key (Valkey adds n to server.dirty) and
// invalidates its WATCHes once. It does nothing when n is 0.
func (c *Ctx) touchN(key []byte, n int) {
	if n <= 0 {
		return
	}
	c.Touch(key)
	c.Dirty += n - 1
}

// removeMembers is the loop of SREM, ZREM and HDEL: it removes each of
// members from the collection at key with remove, deletes the key as soon
// as size reports it empty (the members left are not looked at), counts
// the removals as changes, announces them as event of class (and "del"
// when the key went) and replies with their number. A missing key
// replies 0; another type, WRONGTYPE.
//
// Valkey's zremCommand tests for emptiness after every argument and
// sremCommand/hdelCommand only after a removal; the replies, deletions
// and dirty counts are the same (a collection that exists is not empty,
// and only a removal can empty it), so all three use this loop.
func (c *Ctx) removeMembers(key []byte, t Type, members [][]byte, remove func(o *Object, m []byte) bool, size func(o *Object) int, class int, event string) {
	o, ok := c.lookupWriteAs(key, t)
	if !ok {
		return
	}
	deleted, emptied := 0, false
	if o != nil {
		for _, m := range members {
			if !remove(o, m) {
				continue
			}
			deleted++
			if emptied = size(o) == 0; emptied {
				c.Delete(key)
				break
			}
		}
	}
	if deleted > 0 {
		c.Notify(class, event, key)
		if emptied {
			c.Notify(NotifyGeneric, "del", key)
		}
	}
	c.touchN(key, deleted)
	c.W.Int(int64(deleted))
}

// rankRange turns LRANGE-style ranks (negative ones count from the end)
// into the first index and the count of the elements they select in a
// collection of llen, as Valkey's lrange, ltrim, zrange and
// zremrangebyrank do; n is 0 when the range is empty.
func rankRange(start, end, llen int64) (from, n int) {
	if start < 0 {
		start += llen
	}
	if end < 0 {
		end += llen
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= llen {
		return 0, 0
	}
	if end >= llen {
		end = llen - 1
	}
	return int(start), int(end - start + 1)
}

// removedFrom announces that the command took elements out of the
// collection at key (event, of class) and, when the collection is left
// empty, deletes the key and announces "del": the tail of Valkey's SREM,
// ZREM, HDEL, LPOP, LREM, LTRIM, ZREMRANGEBY* and ZPOP*.
func (c *Ctx) removedFrom(class int, event string, key []byte, empty bool) {
	c.Notify(class, event, key)
	if empty {
		c.Delete(key)
		c.Notify(NotifyGeneric, "del", key)
	}
}

// dropStored deletes the destination of a STORE command whose result is
// empty (Valkey's dbDelete: an expired key is deleted too) and counts and
// announces the deletion when there was a key.
func (c *Ctx) dropStored(dst []byte) {
	if c.dropKey(dst) {
		c.Touch(dst)
		c.Notify(NotifyGeneric, "del", dst)
	}
}
