package db

import (
	"slices"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/resp"
)

// Set algebra: SINTER/SINTERCARD/SINTERSTORE and SUNION/SDIFF and their
// STORE forms. The result sets are built with setAdd from the encodings
// Valkey starts with, so a stored result has Valkey's encoding and a reply
// lists members in the order Valkey's temporary set would.

// SINTER key [key ...]
func sinterCommand(c *Ctx) { c.sinterGeneric(c.Argv[1:], nil, false, 0) }

// SINTERSTORE destination key [key ...]
func sinterstoreCommand(c *Ctx) { c.sinterGeneric(c.Argv[2:], c.Argv[1], false, 0) }

// SINTERCARD numkeys key [key ...] [LIMIT limit]
func sintercardCommand(c *Ctx) {
	const numkeysMsg = "ERR numkeys should be greater than 0"
	numkeys, ok := ParseInt(c.Argv[1])
	if !ok || numkeys < 1 {
		c.W.Error(numkeysMsg)
		return
	}
	if numkeys > int64(len(c.Argv)-2) {
		c.W.Error("ERR Number of keys can't be greater than number of args")
		return
	}
	var limit int64
	for j := 2 + int(numkeys); j < len(c.Argv); j++ {
		if EqualFold(c.Argv[j], "LIMIT") && j+1 < len(c.Argv) {
			j++
			if limit, ok = c.positiveArg(j, "ERR LIMIT can't be negative"); !ok {
				return
			}
			continue
		}
		c.W.Error(ErrSyntax)
		return
	}
	c.sinterGeneric(c.Argv[2:2+numkeys], nil, true, limit)
}

// lookupSets looks every key up as a set. Missing keys are nil; a key of
// another type writes WRONGTYPE (ok false).
func (c *Ctx) lookupSets(keys [][]byte) ([]*Object, bool) {
	sets := make([]*Object, len(keys))
	for i, k := range keys {
		o, ok := c.lookupReadAs(k, TypeSet)
		if !ok {
			return nil, false
		}
		sets[i] = o
	}
	return sets, true
}

// storeSetResult stores a non-empty result at dst (replacing any value and
// its TTL, announced as event) or deletes dst, and replies with the
// result's size.
func (c *Ctx) storeSetResult(dst []byte, res *Object, event string) {
	n := setLen(res)
	if n == 0 {
		c.dropStored(dst)
		c.W.Int(0)
		return
	}
	o := c.Create(dst, TypeSet)
	o.SetValue(res.Value())
	c.Touch(dst)
	c.Notify(NotifySet, event, dst)
	c.W.Int(int64(n))
}

// sinterGeneric is Valkey's sinterGenericCommand.
func (c *Ctx) sinterGeneric(keys [][]byte, dst []byte, cardOnly bool, limit int64) {
	sets, ok := c.lookupSets(keys)
	if !ok {
		return
	}
	if slices.Contains(sets, nil) {
		switch {
		case dst != nil:
			c.dropStored(dst)
			c.W.Int(0)
		case cardOnly:
			c.W.Int(0)
		default:
			c.W.SetLen(0)
		}
		return
	}
	// Smallest first: its members are the candidates. The sort is stable
	// like glibc's qsort (a merge sort), so ties keep the argument order.
	slices.SortStableFunc(sets, func(a, b *Object) int { return setLen(a) - setLen(b) })

	var res *Object
	var out *resp.Writer
	if dst != nil {
		// Valkey starts the result as an intset when the smallest set is
		// one, else as a listpack, and converts at the end.
		if _, isInt := sets[0].Value().(*ds.IntSet); isInt {
			res = newObject(TypeSet, ds.NewIntSet())
		} else {
			res = newObject(TypeSet, &ds.Pack{})
		}
	} else if !cardOnly {
		out = resp.NewWriter(256)
		out.Proto = c.W.Proto
	}
	var card int64
	onlyInts := true
	setRange(sets[0], func(m []byte) bool {
		for _, s := range sets[1:] {
			if s != sets[0] && !setHas(s, m) {
				return true
			}
		}
		switch {
		case cardOnly:
			card++
			return limit == 0 || card < limit
		case dst == nil:
			out.Bulk(m)
			card++
		default:
			if onlyInts {
				if _, ok := ParseInt(m); !ok {
					onlyInts = false
				}
			}
			setAdd(c.cfg(), res, m)
		}
		return true
	})
	switch {
	case cardOnly:
		c.W.Int(card)
	case dst != nil:
		if setLen(res) > 0 {
			if onlyInts {
				setMaybeToIntset(c.cfg(), res)
			}
			if p, isPack := res.Value().(*ds.Pack); isPack {
				p.ShrinkToFit()
			}
		}
		c.storeSetResult(dst, res, "sinterstore")
	default:
		c.W.SetLen(int(card))
		c.W.Raw(out.Bytes())
	}
}

// SUNION key [key ...]
func sunionCommand(c *Ctx) { c.sunionDiffGeneric(c.Argv[1:], nil, false) }

// SUNIONSTORE destination key [key ...]
func sunionstoreCommand(c *Ctx) { c.sunionDiffGeneric(c.Argv[2:], c.Argv[1], false) }

// SDIFF key [key ...]
func sdiffCommand(c *Ctx) { c.sunionDiffGeneric(c.Argv[1:], nil, true) }

// SDIFFSTORE destination key [key ...]
func sdiffstoreCommand(c *Ctx) { c.sunionDiffGeneric(c.Argv[2:], c.Argv[1], true) }

// setUnionOf adds every member of the sets, in order, to a set that starts
// as an empty intset, as Valkey's union does.
func setUnionOf(cfg *settings, sets []*Object) *Object {
	res := newObject(TypeSet, ds.NewIntSet())
	for _, s := range sets {
		if s == nil {
			continue
		}
		setRange(s, func(m []byte) bool {
			setAdd(cfg, res, m)
			return true
		})
	}
	return res
}

// sunionDiffGeneric is Valkey's sunionDiffGenericCommand.
func (c *Ctx) sunionDiffGeneric(keys [][]byte, dst []byte, diff bool) {
	sets, ok := c.lookupSets(keys)
	if !ok {
		return
	}
	var res *Object
	if !diff {
		res = setUnionOf(c.cfg(), sets)
	} else {
		res = setDiffOf(c.cfg(), sets)
	}
	if dst != nil {
		event := "sunionstore"
		if diff {
			event = "sdiffstore"
		}
		c.storeSetResult(dst, res, event)
		return
	}
	c.writeSetReply(res)
}

// setDiffOf computes sets[0] minus the others with whichever of Valkey's
// two algorithms it would pick (the choice can change the result's
// encoding: algorithm 2 adds members that it later removes).
func setDiffOf(cfg *settings, sets []*Object) *Object {
	res := newObject(TypeSet, ds.NewIntSet())
	first := sets[0]
	if first == nil {
		return res
	}
	for _, s := range sets[1:] {
		if s == first {
			return res // a set minus itself
		}
	}
	var work1, work2 int
	for _, s := range sets {
		if s == nil {
			continue
		}
		work1 += setLen(first)
		work2 += setLen(s)
	}
	if work1/2 <= work2 {
		// Algorithm 1: test each member of the first set against the
		// others, biggest first.
		others := slices.Clone(sets[1:])
		slices.SortStableFunc(others, func(a, b *Object) int { return sizeOrZero(b) - sizeOrZero(a) })
		setRange(first, func(m []byte) bool {
			for _, s := range others {
				if s != nil && setHas(s, m) {
					return true
				}
			}
			setAdd(cfg, res, m)
			return true
		})
		return res
	}
	// Algorithm 2: copy the first set, then remove everything else.
	card := 0
	for i, s := range sets {
		if s == nil {
			continue
		}
		setRange(s, func(m []byte) bool {
			if i == 0 {
				if setAdd(cfg, res, m) {
					card++
				}
			} else if setRemove(res, m) {
				card--
			}
			return true
		})
		if card == 0 {
			break
		}
	}
	return res
}

func sizeOrZero(o *Object) int {
	if o == nil {
		return 0
	}
	return setLen(o)
}
