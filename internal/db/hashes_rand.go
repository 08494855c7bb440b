package db

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/corvid-kv/corvid/internal/ds"
)

// HRANDFIELD key [count [WITHVALUES]]
func hrandfieldCommand(c *Ctx) {
	if len(c.Argv) >= 3 {
		l, ok := c.rangeLongArg(2)
		if !ok {
			return
		}
		withValues := false
		switch {
		case len(c.Argv) > 4 || len(c.Argv) == 4 && !EqualFold(c.Argv[3], "WITHVALUES"):
			c.W.Error(ErrSyntax)
			return
		case len(c.Argv) == 4:
			withValues = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				c.W.Error("ERR value is out of range")
				return
			}
		}
		c.hrandfieldWithCount(l, withValues)
		return
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	if !ok {
		return
	}
	if o == nil {
		c.W.Null()
		return
	}
	f, _ := hashRandomPair(o.Value())
	c.W.Bulk(f)
}

// hashRandomPair returns a random field and its value.
func hashRandomPair(v any) (field, value []byte) {
	switch h := v.(type) {
	case *ds.Listpack:
		i := rand.IntN(h.Len() / 2)
		p := 0
		for ; i > 0; i-- {
			p = h.Skip(h.Skip(p))
		}
		f, vp := h.Next(p)
		val, _ := h.Next(vp)
		return f, val
	case *hashDict:
		k, v, _ := h.Random(nil)
		return k, v
	}
	panic("db: not a hash")
}

// hrandfieldWithCount is hrandfieldWithCountCommand. A negative count
// returns that many fields, possibly repeated, in random order; a positive
// one returns distinct fields.
func (c *Ctx) hrandfieldWithCount(l int64, withValues bool) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	if !ok {
		return
	}
	if o == nil {
		c.W.ArrayLen(0)
		return
	}
	size := int64(hashLen(o))
	count, uniq := l, true
	if l < 0 {
		count, uniq = -l, false
	}
	if count == 0 {
		c.W.ArrayLen(0)
		return
	}
	resp3 := c.W.Proto >= 3
	header := func(n int64) {
		if withValues && !resp3 {
			c.W.ArrayLen(int(2 * n))
		} else {
			c.W.ArrayLen(int(n))
		}
	}
	pair := func(f, v []byte) {
		if withValues && resp3 {
			c.W.ArrayLen(2)
		}
		c.W.Bulk(f)
		if withValues {
			c.W.Bulk(v)
		}
	}

	// Repeats allowed (or just one field): sample with replacement.
	if !uniq || count == 1 {
		header(count)
		if lp, ok := o.Value().(*ds.Listpack); ok {
			offs := lpPairOffsets(lp)
			for ; count > 0; count-- {
				p := offs[rand.IntN(len(offs))]
				f, vp := lp.Next(p)
				v, _ := lp.Next(vp)
				pair(f, v)
			}
			return
		}
		for ; count > 0; count-- {
			f, v := hashRandomPair(o.Value())
			pair(f, v)
		}
		return
	}

	// The whole hash (in encoding order).
	if count >= size {
		header(size)
		hashRange(o.Value(), func(f, v []byte) bool {
			pair(f, v)
			return true
		})
		return
	}

	header(count)
	if lp, ok := o.Value().(*ds.Listpack); ok {
		// Distinct fields in listpack order, each kept with probability
		// needed/remaining (selection sampling, as lpRandomPairsUnique).
		need, left := count, size
		for p := 0; p < lp.End() && need > 0; left-- {
			f, vp := lp.Next(p)
			v, next := lp.Next(vp)
			if rand.Int64N(left) < need {
				pair(f, v)
				need--
			}
			p = next
		}
		return
	}
	d := o.Value().(*hashDict)
	if count*3 > size {
		// Most of the hash: take all the fields and drop random ones.
		pairs := make([][2][]byte, 0, size)
		d.Range(func(k, v []byte) bool {
			pairs = append(pairs, [2][]byte{k, v})
			return true
		})
		rand.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
		for _, p := range pairs[:count] {
			pair(p[0], p[1])
		}
		return
	}
	// A small part of a big hash: random fields until enough distinct.
	seen := make(map[string]struct{}, count)
	for int64(len(seen)) < count {
		k, v, _ := d.Random(nil)
		if _, dup := seen[string(k)]; dup {
			continue
		}
		seen[string(k)] = struct{}{}
		pair(k, v)
	}
}

// lpPairOffsets lists the offsets of a listpack hash's fields.
func lpPairOffsets(lp *ds.Listpack) []int {
	offs := make([]int, 0, lp.Len()/2)
	for p := 0; p < lp.End(); p = lp.Skip(lp.Skip(p)) {
		offs = append(offs, p)
	}
	return offs
}

// HSCAN key cursor [MATCH pattern] [COUNT count] [NOVALUES]
//
// A listpack-encoded hash is returned whole in one call with cursor 0, as
// Valkey does; a hashtable is walked with StrMap.Scan's cursor.
func hscanCommand(c *Ctx) {
	cursor, ok := c.scanCursor(2)
	if !ok {
		return
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	if !ok {
		return
	}
	if o == nil {
		c.W.ArrayLen(2)
		c.W.BulkString("0")
		c.W.ArrayLen(0)
		return
	}
	args, ok := c.parseScanArgs(3, scanHash)
	if !ok {
		return
	}
	var out [][]byte // field, value pairs (or fields) in reply order
	add := func(f, v []byte) {
		if !args.match(f) {
			return
		}
		out = append(out, f)
		if !args.noValues {
			out = append(out, v)
		}
	}
	var next uint64
	switch h := o.Value().(type) {
	case *ds.Listpack:
		hashRange(h, func(f, v []byte) bool {
			add(f, v)
			return true
		})
	case *hashDict:
		// As Valkey: until COUNT items (fields and values both count)
		// were collected, at most 10*COUNT steps per call.
		next = scanSteps(cursor, args.count, func(int64) bool { return int64(len(out)) >= args.count }, func(c uint64) uint64 {
			return h.Scan(c, add)
		})
	}
	var buf [20]byte
	c.W.ArrayLen(2)
	c.W.Bulk(strconv.AppendUint(buf[:0], next, 10))
	c.W.ArrayLen(len(out))
	for _, b := range out {
		c.W.Bulk(b)
	}
}
