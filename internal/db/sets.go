package db

import (
	"math"
	"math/rand/v2"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/ds"
)

// SetCommands are the set group's procedures: the single-key commands
// here, the multi-set algebra in sets_ops.go and SSCAN in sets_scan.go.
// Encodings are in sets_type.go.
var SetCommands = []Handler{
	{Spec: command.Sadd, Proc: saddCommand},
	{Spec: command.Srem, Proc: sremCommand},
	{Spec: command.Smove, Proc: smoveCommand},
	{Spec: command.Sismember, Proc: sismemberCommand},
	{Spec: command.Smismember, Proc: smismemberCommand},
	{Spec: command.Scard, Proc: scardCommand},
	{Spec: command.Smembers, Proc: smembersCommand},
	{Spec: command.Spop, Proc: spopCommand},
	{Spec: command.Srandmember, Proc: srandmemberCommand},
	{Spec: command.Sinter, Proc: sinterCommand},
	{Spec: command.Sintercard, Proc: sintercardCommand},
	{Spec: command.Sinterstore, Proc: sinterstoreCommand},
	{Spec: command.Sunion, Proc: sunionCommand},
	{Spec: command.Sunionstore, Proc: sunionstoreCommand},
	{Spec: command.Sdiff, Proc: sdiffCommand},
	{Spec: command.Sdiffstore, Proc: sdiffstoreCommand},
	{Spec: command.Sscan, Proc: sscanCommand},
}

// positiveArg is getPositiveLongFromObjectOrReply: a non-negative integer,
// with msg for both a non-integer and a negative value.
func (c *Ctx) positiveArg(i int, msg string) (int64, bool) {
	n, ok := ParseInt(c.Argv[i])
	if !ok || n < 0 {
		c.W.Error(msg)
		return 0, false
	}
	return n, true
}

// SADD key member [member ...]
func saddCommand(c *Ctx) {
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeSet)
	if !ok {
		return
	}
	members := c.Argv[2:]
	if o == nil {
		o = c.Create(key, TypeSet)
		o.SetValue(newSetFor(c.cfg(), members[0], len(members)))
	} else {
		setMaybeConvert(c.cfg(), o, len(members))
	}
	if p, isPack := o.Value().(*ds.Pack); isPack && len(members) > 1 {
		packReserve(c.cfg(), p, members)
	}
	added := 0
	for _, m := range members {
		if setAdd(c.cfg(), o, m) {
			added++
		}
	}
	if added > 0 {
		c.touchN(key, added)
		c.Notify(NotifySet, "sadd", key)
	}
	c.W.Int(int64(added))
}

// SREM key member [member ...]
func sremCommand(c *Ctx) {
	c.removeMembers(c.Argv[1], TypeSet, c.Argv[2:], setRemove, setLen, NotifySet, "srem")
}

// SMOVE source destination member
func smoveCommand(c *Ctx) {
	srcKey, dstKey, m := c.Argv[1], c.Argv[2], c.Argv[3]
	src := c.LookupWrite(srcKey)
	dst := c.LookupWrite(dstKey)
	if src == nil {
		c.W.Int(0)
		return
	}
	if src.Type != TypeSet || (dst != nil && dst.Type != TypeSet) {
		c.W.Error(ErrWrongType)
		return
	}
	if string(srcKey) == string(dstKey) {
		if setHas(src, m) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
		return
	}
	if !setRemove(src, m) {
		c.W.Int(0)
		return
	}
	c.removedFrom(NotifySet, "srem", srcKey, setLen(src) == 0)
	if dst == nil {
		dst = c.Create(dstKey, TypeSet)
		dst.SetValue(newSetFor(c.cfg(), m, 1))
	}
	c.Touch(srcKey)
	if setAdd(c.cfg(), dst, m) {
		c.Touch(dstKey)
		c.Notify(NotifySet, "sadd", dstKey)
	}
	c.W.Int(1)
}

// SISMEMBER key member
func sismemberCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeSet)
	if !ok {
		return
	}
	c.intBool(o != nil && setHas(o, c.Argv[2]))
}

// intBool writes :1 or :0 (Valkey's shared.cone/czero, integers in RESP3
// too).
func (c *Ctx) intBool(b bool) {
	if b {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

// SMISMEMBER key member [member ...]
func smismemberCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeSet)
	if !ok {
		return
	}
	c.W.ArrayLen(len(c.Argv) - 2)
	for _, m := range c.Argv[2:] {
		c.intBool(o != nil && setHas(o, m))
	}
}

// SCARD key
func scardCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(setLen(o)))
}

// SMEMBERS key
func smembersCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.SetLen(0)
		return
	}
	c.W.SetLen(setLen(o))
	setRange(o, func(m []byte) bool {
		c.W.Bulk(m)
		return true
	})
}

// SPOP key [count]
func spopCommand(c *Ctx) {
	if len(c.Argv) == 3 {
		c.spopWithCount()
		return
	}
	if len(c.Argv) > 3 {
		c.W.Error(ErrSyntax)
		return
	}
	key := c.Argv[1]
	o, ok := c.lookupWriteAs(key, TypeSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.Null()
		return
	}
	m := setPopRandom(o)
	c.W.Bulk(m)
	c.OwnAs(argSREM, key, m) // the member it chose, not another
	c.removedFrom(NotifySet, "spop", key, setLen(o) == 0)
	c.Touch(key)
}

// spopProp collects what SPOP with a count removed, for its propagation
// as SREM commands of at most spopBatch members (Valkey's batching); it
// does nothing unless the command is propagating.
type spopProp struct {
	c       *Ctx
	key     []byte
	members [][]byte
}

const spopBatch = 1024

func (p *spopProp) add(m []byte) {
	if p.c.Propagating() {
		p.members = append(p.members, append([]byte(nil), m...))
		if len(p.members) == spopBatch {
			p.flush()
		}
	}
}

func (p *spopProp) flush() {
	if len(p.members) > 0 {
		p.c.OwnAs(append([][]byte{argSREM, p.key}, p.members...)...)
		p.members = p.members[:0]
	}
}

// spopMoveStrategyMul is SPOP_MOVE_STRATEGY_MUL: when fewer than 1/5 of
// the requested count would remain, build the remainder instead.
const spopMoveStrategyMul = 5

func (c *Ctx) spopWithCount() {
	key := c.Argv[1]
	count, ok := c.positiveArg(2, ErrNotPositive)
	if !ok {
		return
	}
	o, ok := c.lookupWriteAs(key, TypeSet)
	if !ok {
		return
	}
	if o == nil || count == 0 {
		c.W.SetLen(0)
		return
	}
	size := int64(setLen(o))
	if count >= size {
		// The whole set, in the order SUNION of the one set would give.
		c.writeSetReply(setUnionOf(c.cfg(), []*Object{o}))
		c.removedFrom(NotifySet, "spop", key, true)
		c.touchN(key, int(size))
		c.ownDeletion(key, c.KS.lazy.serverDel.Load())
		return
	}
	remaining := size - count
	c.W.SetLen(int(count))
	prop := spopProp{c: c, key: key}
	defer prop.flush()
	if remaining*spopMoveStrategyMul > count {
		if p, isPack := o.Value().(*ds.Pack); isPack {
			// One pass over the listpack: pick count entries in order.
			offs := packSample(p, int(count))
			for _, off := range offs {
				m, _ := p.Entry(off)
				c.W.Bulk(m)
				prop.add(m)
			}
			for i := len(offs) - 1; i >= 0; i-- {
				p.Delete(offs[i])
			}
		} else {
			for range count {
				m := setPopRandom(o)
				c.W.Bulk(m)
				prop.add(m)
			}
		}
	} else {
		// Keep `remaining` random members in a new set and reply with
		// everything else.
		var keep *Object
		if p, isPack := o.Value().(*ds.Pack); isPack {
			keep = newObject(TypeSet, &ds.Pack{})
			offs := packSample(p, int(remaining))
			for _, off := range offs {
				m, _ := p.Entry(off)
				setAdd(c.cfg(), keep, m)
			}
			for i := len(offs) - 1; i >= 0; i-- {
				p.Delete(offs[i])
			}
		} else {
			_, isInt := o.Value().(*ds.IntSet)
			for range remaining {
				var scratch [20]byte
				m := setRandom(o, scratch[:])
				if keep == nil {
					if isInt {
						keep = newObject(TypeSet, ds.NewIntSet())
					} else {
						keep = newObject(TypeSet, &ds.Pack{})
					}
				}
				setAdd(c.cfg(), keep, m)
				setRemove(o, m)
			}
		}
		setRange(o, func(m []byte) bool {
			c.W.Bulk(m)
			prop.add(m)
			return true
		})
		o.SetValue(keep.Value())
	}
	c.touchN(key, int(count))
	c.Notify(NotifySet, "spop", key)
}

// packSample picks k distinct entries of p uniformly (selection sampling,
// Knuth's algorithm S) and returns their offsets in listpack order, as
// Valkey's lpNextRandom walk does.
func packSample(p *ds.Pack, k int) []int {
	offs := make([]int, 0, k)
	n := p.Len()
	off := 0
	for i := 0; i < n && len(offs) < k; i++ {
		if rand.IntN(n-i) < k-len(offs) {
			offs = append(offs, off)
		}
		off = p.Next(off)
	}
	return offs
}

// srandmemberSubStrategyMul is SRANDMEMBER_SUB_STRATEGY_MUL.
const srandmemberSubStrategyMul = 3

// SRANDMEMBER key [count]
func srandmemberCommand(c *Ctx) {
	if len(c.Argv) == 3 {
		c.srandmemberWithCount()
		return
	}
	if len(c.Argv) > 3 {
		c.W.Error(ErrSyntax)
		return
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.Null()
		return
	}
	var scratch [20]byte
	c.W.Bulk(setRandom(o, scratch[:]))
}

// countArg parses a signed count as getRangeLongFromObjectOrReply with
// -LONG_MAX..LONG_MAX.
func (c *Ctx) countArg(i int) (int64, bool) {
	n, ok := ParseInt(c.Argv[i])
	if !ok {
		c.W.Error(ErrNotInt)
		return 0, false
	}
	if n == math.MinInt64 {
		c.W.Error(errRangeLong)
		return 0, false
	}
	return n, true
}

func (c *Ctx) srandmemberWithCount() {
	l, ok := c.countArg(2)
	if !ok {
		return
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.ArrayLen(0)
		return
	}
	uniq := l >= 0
	count := l
	if !uniq {
		count = -l
	}
	if count == 0 {
		c.W.ArrayLen(0)
		return
	}
	size := int64(setLen(o))
	var scratch [20]byte
	// Repetitions allowed (or a single member): independent draws.
	if !uniq || count == 1 {
		c.W.ArrayLen(int(count))
		for range count {
			c.W.Bulk(setRandom(o, scratch[:]))
		}
		return
	}
	if count >= size {
		c.W.ArrayLen(int(size))
		setRange(o, func(m []byte) bool {
			c.W.Bulk(m)
			return true
		})
		return
	}
	if p, isPack := o.Value().(*ds.Pack); isPack {
		c.W.ArrayLen(int(count))
		for _, off := range packSample(p, int(count)) {
			m, _ := p.Entry(off)
			c.W.Bulk(m)
		}
		return
	}
	// Distinct members from a big set: either copy it and drop random
	// members, or draw until enough distinct ones were seen.
	picked := ds.NewStrMap(int(count))
	if count*srandmemberSubStrategyMul > size {
		setRange(o, func(m []byte) bool {
			picked.Add(m)
			return true
		})
		for n := size; n > count; n-- {
			k, _, _ := picked.Random(nil)
			picked.Delete(k)
		}
	} else {
		for int64(picked.Len()) < count {
			picked.Add(setRandom(o, scratch[:]))
		}
	}
	c.W.ArrayLen(int(count))
	picked.Range(func(k, _ []byte) bool {
		c.W.Bulk(k)
		return true
	})
}

// writeSetReply writes a whole temporary set as a set reply.
func (c *Ctx) writeSetReply(o *Object) {
	c.W.SetLen(setLen(o))
	setRange(o, func(m []byte) bool {
		c.W.Bulk(m)
		return true
	})
}
