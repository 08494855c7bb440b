package db

import (
	"math"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/ds"
)

// HashCommands are the hash group's procedures: the commands here and
// HRANDFIELD/HSCAN in hashes_rand.go. Encodings are described in
// hashes_type.go.
var HashCommands = []Handler{
	{Spec: command.Hset, Proc: hsetCommand},
	{Spec: command.Hmset, Proc: hmsetCommand},
	{Spec: command.Hsetnx, Proc: hsetnxCommand},
	{Spec: command.Hget, Proc: hgetCommand},
	{Spec: command.Hmget, Proc: hmgetCommand},
	{Spec: command.Hdel, Proc: hdelCommand},
	{Spec: command.Hlen, Proc: hlenCommand},
	{Spec: command.Hstrlen, Proc: hstrlenCommand},
	{Spec: command.Hexists, Proc: hexistsCommand},
	{Spec: command.Hkeys, Proc: hkeysCommand},
	{Spec: command.Hvals, Proc: hvalsCommand},
	{Spec: command.Hgetall, Proc: hgetallCommand},
	{Spec: command.Hincrby, Proc: hincrbyCommand},
	{Spec: command.Hincrbyfloat, Proc: hincrbyfloatCommand},
	{Spec: command.Hrandfield, Proc: hrandfieldCommand},
	{Spec: command.Hscan, Proc: hscanCommand},
}

// hashLookupWriteOrCreate is hashTypeLookupWriteOrCreate.
func (c *Ctx) hashLookupWriteOrCreate(key []byte) *Object {
	o := c.LookupWrite(key)
	if o != nil {
		if o.Type != TypeHash {
			c.W.Error(ErrWrongType)
			return nil
		}
		return o
	}
	o = c.Create(key, TypeHash)
	o.SetValue(ds.NewListpack())
	return o
}

// HSET key field value [field value ...]
func hsetCommand(c *Ctx) { c.hsetGeneric("hset") }

// HMSET key field value [field value ...]
func hmsetCommand(c *Ctx) { c.hsetGeneric("hmset") }

func (c *Ctx) hsetGeneric(name string) {
	if len(c.Argv)%2 == 1 {
		c.W.Error("ERR wrong number of arguments for '" + name + "' command")
		return
	}
	key := c.Argv[1]
	o := c.hashLookupWriteOrCreate(key)
	if o == nil {
		return
	}
	args := c.Argv[2:]
	hashTryConversion(c.cfg(), o, args)
	created := 0
	for i := 0; i < len(args); i += 2 {
		if !hashSet(c.cfg(), o, args[i], args[i+1]) {
			created++
		}
	}
	c.touchN(key, len(args)/2)
	c.Notify(NotifyHash, "hset", key)
	if name == "hset" {
		c.W.Int(int64(created))
	} else {
		c.W.OK()
	}
}

// HSETNX key field value
func hsetnxCommand(c *Ctx) {
	key := c.Argv[1]
	o := c.hashLookupWriteOrCreate(key)
	if o == nil {
		return
	}
	if _, ok := hashGet(o.Value(), c.Argv[2]); ok {
		c.W.Int(0)
		return
	}
	hashTryConversion(c.cfg(), o, c.Argv[2:4])
	hashSet(c.cfg(), o, c.Argv[2], c.Argv[3])
	c.Touch(key)
	c.Notify(NotifyHash, "hset", key)
	c.W.Int(1)
}

// HGET key field
func hgetCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	if !ok {
		return
	}
	if o == nil {
		c.W.Null()
		return
	}
	if v, ok := hashGet(o.Value(), c.Argv[2]); ok {
		c.W.Bulk(v)
	} else {
		c.W.Null()
	}
}

// HMGET key field [field ...]
func hmgetCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	if !ok {
		return
	}
	c.W.ArrayLen(len(c.Argv) - 2)
	for _, f := range c.Argv[2:] {
		if o == nil {
			c.W.Null()
			continue
		}
		if v, ok := hashGet(o.Value(), f); ok {
			c.W.Bulk(v)
		} else {
			c.W.Null()
		}
	}
}

// HDEL key field [field ...]
func hdelCommand(c *Ctx) {
	c.removeMembers(c.Argv[1], TypeHash, c.Argv[2:], hashDelete, hashLen, NotifyHash, "hdel")
}

// HLEN key
func hlenCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	switch {
	case !ok:
	case o == nil:
		c.W.Int(0)
	default:
		c.W.Int(int64(hashLen(o)))
	}
}

// HSTRLEN key field
func hstrlenCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	v, _ := hashGet(o.Value(), c.Argv[2])
	c.W.Int(int64(len(v)))
}

// HEXISTS key field
func hexistsCommand(c *Ctx) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	if !ok {
		return
	}
	if o == nil {
		c.W.Int(0)
		return
	}
	if _, ok := hashGet(o.Value(), c.Argv[2]); ok {
		c.W.Int(1)
	} else {
		c.W.Int(0)
	}
}

// HKEYS key
func hkeysCommand(c *Ctx) { c.hgetallGeneric(true, false) }

// HVALS key
func hvalsCommand(c *Ctx) { c.hgetallGeneric(false, true) }

// HGETALL key
func hgetallCommand(c *Ctx) { c.hgetallGeneric(true, true) }

// hgetallGeneric is genericHgetallCommand: fields and/or values, in
// encoding order. Both together are a map (a flat array in RESP2).
func (c *Ctx) hgetallGeneric(fields, values bool) {
	o, ok := c.lookupReadAs(c.Argv[1], TypeHash)
	if !ok {
		return
	}
	both := fields && values
	if o == nil {
		if both {
			c.W.MapLen(0)
		} else {
			c.W.ArrayLen(0)
		}
		return
	}
	n := hashLen(o)
	if both {
		c.W.MapLen(n)
	} else {
		c.W.ArrayLen(n)
	}
	hashRange(o.Value(), func(f, v []byte) bool {
		if fields {
			c.W.Bulk(f)
		}
		if values {
			c.W.Bulk(v)
		}
		return true
	})
}

// HINCRBY key field increment
func hincrbyCommand(c *Ctx) {
	incr, ok := c.IntArg(3)
	if !ok {
		return
	}
	key := c.Argv[1]
	o := c.hashLookupWriteOrCreate(key)
	if o == nil {
		return
	}
	var cur int64
	if v, found := hashGet(o.Value(), c.Argv[2]); found {
		if cur, ok = ParseInt(v); !ok {
			c.W.Error("ERR hash value is not an integer")
			return
		}
	}
	if (incr < 0 && cur < 0 && incr < math.MinInt64-cur) || (incr > 0 && cur > 0 && incr > math.MaxInt64-cur) {
		c.W.Error(ErrOverflow)
		return
	}
	cur += incr
	var buf [24]byte
	hashSet(c.cfg(), o, c.Argv[2], AppendInt(buf[:0], cur))
	c.Touch(key)
	c.Notify(NotifyHash, "hincrby", key)
	c.W.Int(cur)
}

// HINCRBYFLOAT key field increment
func hincrbyfloatCommand(c *Ctx) {
	// The increment is checked before the key, as in Valkey.
	if _, inf, ok := parseLongDouble(c.Argv[3]); !ok {
		c.W.Error(ErrNotFloat)
		return
	} else if inf {
		c.W.Error("ERR value is NaN or Infinity")
		return
	}
	key := c.Argv[1]
	o := c.hashLookupWriteOrCreate(key)
	if o == nil {
		return
	}
	cur, found := hashGet(o.Value(), c.Argv[2])
	b, errMsg := hashIncrFloat(cur, found, c.Argv[3])
	if errMsg != "" {
		c.W.Error(errMsg)
		return
	}
	hashSet(c.cfg(), o, c.Argv[2], b)
	c.Touch(key)
	c.Notify(NotifyHash, "hincrbyfloat", key)
	c.W.Bulk(b)
	c.OwnAs(argHSET, key, c.Argv[2], b) // the sum replays exactly
}
