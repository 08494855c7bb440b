package db

import (
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/ds"
)

// ZSetCommands are the sorted set group's procedures: the member commands
// here, ranges in zsets_range.go, pops and random members in zsets_pop.go,
// the algebra in zsets_ops.go. Encodings are in zsets_type.go and score
// parsing/printing in zsets_float.go.
var ZSetCommands = []Handler{
	{Spec: command.Zadd, Proc: zaddCommand},
	{Spec: command.Zincrby, Proc: zincrbyCommand},
	{Spec: command.Zrem, Proc: zremCommand},
	{Spec: command.Zcard, Proc: zcardCommand},
	{Spec: command.Zscore, Proc: zscoreCommand},
	{Spec: command.Zmscore, Proc: zmscoreCommand},
	{Spec: command.Zrank, Proc: zrankCommand},
	{Spec: command.Zrevrank, Proc: zrevrankCommand},
	{Spec: command.Zcount, Proc: zcountCommand},
	{Spec: command.Zlexcount, Proc: zlexcountCommand},

	{Spec: command.Zrange, Proc: zrangeCommand},
	{Spec: command.Zrangestore, Proc: zrangestoreCommand},
	{Spec: command.Zrevrange, Proc: zrevrangeCommand},
	{Spec: command.Zrangebyscore, Proc: zrangebyscoreCommand},
	{Spec: command.Zrevrangebyscore, Proc: zrevrangebyscoreCommand},
	{Spec: command.Zrangebylex, Proc: zrangebylexCommand},
	{Spec: command.Zrevrangebylex, Proc: zrevrangebylexCommand},
	{Spec: command.Zremrangebyrank, Proc: zremrangebyrankCommand},
	{Spec: command.Zremrangebyscore, Proc: zremrangebyscoreCommand},
	{Spec: command.Zremrangebylex, Proc: zremrangebylexCommand},

	{Spec: command.Zpopmin, Proc: zpopminCommand},
	{Spec: command.Zpopmax, Proc: zpopmaxCommand},
	{Spec: command.Zmpop, Proc: zmpopCommand},
	{Spec: command.Bzpopmin, Proc: bzpopminCommand, Lock: LockNone},
	{Spec: command.Bzpopmax, Proc: bzpopmaxCommand, Lock: LockNone},
	{Spec: command.Bzmpop, Proc: bzmpopCommand, Lock: LockNone},
	{Spec: command.Zrandmember, Proc: zrandmemberCommand},

	{Spec: command.Zunion, Proc: zunionCommand},
	{Spec: command.Zinter, Proc: zinterCommand},
	{Spec: command.Zdiff, Proc: zdiffCommand},
	{Spec: command.Zunionstore, Proc: zunionstoreCommand},
	{Spec: command.Zinterstore, Proc: zinterstoreCommand},
	{Spec: command.Zdiffstore, Proc: zdiffstoreCommand},
	{Spec: command.Zintercard, Proc: zintercardCommand},

	{Spec: command.Zscan, Proc: zscanCommand},
}

// createZSet makes key a new sorted set holding val and wakes clients
// blocked on it, as Valkey's dbAdd does.
func (c *Ctx) createZSet(key []byte, val any) *Object {
	o := c.Create(key, TypeZSet)
	o.SetValue(val)
	c.zsetReady(key)
	return o
}

// zsetReady tells blocked BZPOP*/BZMPOP clients that key holds a non-empty
// sorted set.
func (c *Ctx) zsetReady(key []byte) { c.SignalReady(key) }

// ZADD key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]
func zaddCommand(c *Ctx) { c.zaddGeneric(0) }

// ZINCRBY key increment member
func zincrbyCommand(c *Ctx) { c.zaddGeneric(zaddIncr) }

// zaddGeneric is zaddGenericCommand, shared by ZADD and ZINCRBY (which
// therefore also parses option words after the key).
func (c *Ctx) zaddGeneric(flags int) {
	key := c.Argv[1]
	argv := c.Argv
	ch := false
	idx := 2
opts:
	for ; idx < len(argv); idx++ {
		switch a := argv[idx]; {
		case EqualFold(a, "NX"):
			flags |= zaddNX
		case EqualFold(a, "XX"):
			flags |= zaddXX
		case EqualFold(a, "CH"):
			ch = true
		case EqualFold(a, "INCR"):
			flags |= zaddIncr
		case EqualFold(a, "GT"):
			flags |= zaddGT
		case EqualFold(a, "LT"):
			flags |= zaddLT
		default:
			break opts
		}
	}
	incr, nx, xx := flags&zaddIncr != 0, flags&zaddNX != 0, flags&zaddXX != 0
	gt, lt := flags&zaddGT != 0, flags&zaddLT != 0
	elements := len(argv) - idx
	if elements%2 != 0 || elements == 0 {
		c.W.Error(ErrSyntax)
		return
	}
	elements /= 2
	if nx && xx {
		c.W.Error("ERR XX and NX options at the same time are not compatible")
		return
	}
	if (gt && nx) || (lt && nx) || (gt && lt) {
		c.W.Error("ERR GT, LT, and/or NX options at the same time are not compatible")
		return
	}
	if incr && elements > 1 {
		c.W.Error("ERR INCR option supports a single increment-element pair")
		return
	}
	// Every score is parsed before anything changes: the command applies
	// fully or not at all.
	var stack [8]float64
	scores := stack[:0]
	maxLen := 0
	for j := 0; j < elements; j++ {
		s, ok := c.doubleArg(idx+2*j, ErrNotFloat)
		if !ok {
			return
		}
		scores = append(scores, s)
		maxLen = max(maxLen, len(argv[idx+2*j+1]))
	}
	o, ok := c.lookupWriteAs(key, TypeZSet)
	if !ok {
		return
	}
	var added, updated, processed int
	var score float64
	nanErr := false
	if o != nil || !xx { // a missing key with XX: nothing to do
		if o == nil {
			o = c.createZSet(key, newZSetFor(c.cfg(), elements, maxLen))
		} else {
			zsetMaybeConvert(c.cfg(), o, elements, maxLen)
		}
		// Several new members get one allocation of the size they need
		// (ds.Pack.Reserve) rather than growing it a quarter at a time.
		if p, isPack := o.Value().(*ds.ZPack); isPack && elements > 1 && !xx && c.cfg().zsetFits(p.Len()+elements, maxLen) {
			size := 0
			for j := range elements {
				size += ds.ZPackEntrySize(len(argv[idx+2*j+1]))
			}
			p.Reserve(size)
		}
		for j, s := range scores {
			out, ns := zsetAdd(c.cfg(), o, s, argv[idx+2*j+1], flags)
			if out&zaddNaN != 0 {
				nanErr = true
				break
			}
			if out&zaddAdded != 0 {
				added++
			}
			if out&zaddUpdated != 0 {
				updated++
			}
			if out&zaddNop == 0 {
				processed++
			}
			score = ns
		}
		if added+updated > 0 {
			c.touchN(key, added+updated)
			if incr {
				c.Notify(NotifyZset, "zincr", key)
			} else {
				c.Notify(NotifyZset, "zadd", key)
			}
		}
	}
	switch {
	case nanErr:
		c.W.Error("ERR resulting score is not a number (NaN)")
	case incr:
		if processed > 0 {
			c.replyScore(score)
		} else {
			c.W.Null()
		}
	case ch:
		c.W.Int(int64(added + updated))
	default:
		c.W.Int(int64(added))
	}
}

// ZREM key member [member ...]
func zremCommand(c *Ctx) {
	c.removeMembers(c.Argv[1], TypeZSet, c.Argv[2:], zsetDel, zsetLen, NotifyZset, "zrem")
}

// ZCARD key
func zcardCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(zsetLen(o)))
}

// ZSCORE key member
func zscoreCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.Null()
		return
	}
	if s, ok := zsetScore(o, c.Argv[2]); ok {
		c.replyScore(s)
	} else {
		c.W.Null()
	}
}

// ZMSCORE key member [member ...]
func zmscoreCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	c.W.ArrayLen(len(c.Argv) - 2)
	for _, m := range c.Argv[2:] {
		if o == nil {
			c.W.Null()
			continue
		}
		if s, ok := zsetScore(o, m); ok {
			c.replyScore(s)
		} else {
			c.W.Null()
		}
	}
}

// ZRANK key member [WITHSCORE]
func zrankCommand(c *Ctx) { c.zrankGeneric(false) }

// ZREVRANK key member [WITHSCORE]
func zrevrankCommand(c *Ctx) { c.zrankGeneric(true) }

func (c *Ctx) zrankGeneric(reverse bool) {
	if len(c.Argv) > 4 {
		c.W.Error("ERR wrong number of arguments for '" + strings.ToLower(string(c.Argv[0])) + "' command")
		return
	}
	withScore := false
	if len(c.Argv) == 4 {
		if !EqualFold(c.Argv[3], "WITHSCORE") {
			c.W.Error(ErrSyntax)
			return
		}
		withScore = true
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	var rank int
	var score float64
	found := false
	if o != nil {
		rank, score, found = zsetRank(o, c.Argv[2], reverse)
	}
	switch {
	case !found && withScore:
		c.W.NullArray()
	case !found:
		c.W.Null()
	case withScore:
		c.W.ArrayLen(2)
		c.W.Int(int64(rank))
		c.replyScore(score)
	default:
		c.W.Int(int64(rank))
	}
}

// ZCOUNT key min max
func zcountCommand(c *Ctx) { c.zcountGeneric(zrangeScore) }

// ZLEXCOUNT key min max
func zlexcountCommand(c *Ctx) { c.zcountGeneric(zrangeLex) }

func (c *Ctx) zcountGeneric(rtype int) {
	_, _, spec, ok := c.rangeArgs(rtype, 2, 3)
	if !ok {
		return
	}
	o, ok := c.lookupReadAs(c.Argv[1], TypeZSet)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(zsetCountIn(o, spec)))
}
