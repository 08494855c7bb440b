package db

import (
	"math"
	"math/big"

	"github.com/corvid-kv/corvid/internal/command"
)

// StringCommands are the string group's procedures (the rest of the group
// lives in strings_range.go and bits.go).
var StringCommands = []Handler{
	{Spec: command.Get, Proc: getCommand},
	{Spec: command.Set, Proc: setCommand},
	{Spec: command.Setnx, Proc: setnxCommand},
	{Spec: command.Setex, Proc: setexCommand},
	{Spec: command.Psetex, Proc: psetexCommand},
	{Spec: command.Getset, Proc: getsetCommand},
	{Spec: command.Getdel, Proc: getdelCommand},
	{Spec: command.Getex, Proc: getexCommand},
	{Spec: command.Mget, Proc: mgetCommand},
	{Spec: command.Mset, Proc: msetCommand},
	{Spec: command.Msetnx, Proc: msetnxCommand},
	{Spec: command.Append, Proc: appendCommand},
	{Spec: command.Strlen, Proc: strlenCommand},
	{Spec: command.Incr, Proc: incrCommand},
	{Spec: command.Decr, Proc: decrCommand},
	{Spec: command.Incrby, Proc: incrbyCommand},
	{Spec: command.Decrby, Proc: decrbyCommand},
	{Spec: command.Incrbyfloat, Proc: incrbyfloatCommand},
	{Spec: command.Getrange, Proc: getrangeCommand},
	{Spec: command.Substr, Proc: getrangeCommand},
	{Spec: command.Setrange, Proc: setrangeCommand},
	{Spec: command.Lcs, Proc: lcsCommand},
	{Spec: command.Setbit, Proc: setbitCommand},
	{Spec: command.Getbit, Proc: getbitCommand},
	{Spec: command.Bitcount, Proc: bitcountCommand},
	{Spec: command.Bitpos, Proc: bitposCommand},
	{Spec: command.Bitop, Proc: bitopCommand},
	{Spec: command.Bitfield, Proc: bitfieldCommand},
	{Spec: command.BitfieldRo, Proc: bitfieldROCommand},
}

// GET key
func getCommand(c *Ctx) {
	o := c.LookupRead(c.Argv[1])
	switch {
	case o == nil:
		c.W.Null()
	case o.Type != TypeString:
		c.W.Error(ErrWrongType)
	default:
		c.W.Bulk(o.Str())
	}
}

// Flags of SET-like commands, as Valkey's OBJ_* flags.
const (
	setNX = 1 << iota
	setXX
	setGet
	setKeepTTL
	setEX
	setPX
	setEXAT
	setPXAT
	setPersist // GETEX only
)

// parseExpiry parses SET/GETEX options from argv[first:]. expireArg is the
// index of the time argument (0 if none). It writes the error reply itself.
func (c *Ctx) parseSetOptions(first int, getex bool) (flags, expireArg int, ok bool) {
	argv := c.Argv
	for j := first; j < len(argv); j++ {
		a := argv[j]
		next := j+1 < len(argv)
		switch {
		case !getex && EqualFold(a, "NX") && flags&(setXX) == 0:
			flags |= setNX
		case !getex && EqualFold(a, "XX") && flags&(setNX) == 0:
			flags |= setXX
		case !getex && EqualFold(a, "GET"):
			flags |= setGet
		case !getex && EqualFold(a, "KEEPTTL") && flags&(setEX|setPX|setEXAT|setPXAT) == 0:
			flags |= setKeepTTL
		case getex && EqualFold(a, "PERSIST") && flags&(setEX|setPX|setEXAT|setPXAT) == 0:
			flags |= setPersist
		case EqualFold(a, "EX") && flags&(setKeepTTL|setPersist|setPX|setEXAT|setPXAT) == 0 && next:
			flags |= setEX
			j++
			expireArg = j
		case EqualFold(a, "PX") && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPXAT) == 0 && next:
			flags |= setPX
			j++
			expireArg = j
		case EqualFold(a, "EXAT") && flags&(setKeepTTL|setPersist|setEX|setPX|setPXAT) == 0 && next:
			flags |= setEXAT
			j++
			expireArg = j
		case EqualFold(a, "PXAT") && flags&(setKeepTTL|setPersist|setEX|setPX|setEXAT) == 0 && next:
			flags |= setPXAT
			j++
			expireArg = j
		default:
			c.W.Error(ErrSyntax)
			return 0, 0, false
		}
	}
	return flags, expireArg, true
}

// expireAt converts the expire argument to absolute milliseconds as
// Valkey's getExpireMillisecondsOrReply does.
func (c *Ctx) expireAt(flags, arg int, cmd string) (int64, bool) {
	n, ok := ParseInt(c.Argv[arg])
	if !ok {
		c.W.Error(ErrNotInt)
		return 0, false
	}
	if n <= 0 {
		c.W.Error(invalidExpire(cmd))
		return 0, false
	}
	if flags&(setEX|setEXAT) != 0 {
		if n > math.MaxInt64/1000 {
			c.W.Error(invalidExpire(cmd))
			return 0, false
		}
		n *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		if n > math.MaxInt64-c.Now {
			c.W.Error(invalidExpire(cmd))
			return 0, false
		}
		n += c.Now
	}
	return n, true
}

func invalidExpire(cmd string) string { return "ERR invalid expire time in '" + cmd + "' command" }

// SET key value [NX | XX] [GET] [EX s | PX ms | EXAT ts | PXAT ms-ts | KEEPTTL]
func setCommand(c *Ctx) {
	flags, ea, ok := c.parseSetOptions(3, false)
	if !ok {
		return
	}
	c.setGeneric(flags, c.Argv[1], c.Argv[2], ea, "set", true)
}

// setGeneric implements SET and its legacy forms. okReply selects +OK
// (SET) versus :1/:0 (SETNX).
func (c *Ctx) setGeneric(flags int, key, val []byte, expireArg int, cmd string, okReply bool) {
	var when int64
	if expireArg > 0 {
		var ok bool
		if when, ok = c.expireAt(flags, expireArg, cmd); !ok {
			return
		}
	}
	var o *Object
	if flags&setGet != 0 {
		// GET reads the key first, as Valkey's getGenericCommand: a
		// miss counts and is announced.
		if o = c.LookupRead(key); o != nil && o.Type != TypeString {
			c.W.Error(ErrWrongType)
			return
		}
	} else {
		o = c.LookupWrite(key)
	}
	if (flags&setNX != 0 && o != nil) || (flags&setXX != 0 && o == nil) {
		switch {
		case flags&setGet != 0:
			if o == nil {
				c.W.Null()
			} else {
				c.W.Bulk(o.Str())
			}
		case okReply:
			c.W.Null()
		default:
			c.W.Int(0)
		}
		return
	}
	if flags&setGet != 0 {
		if o == nil {
			c.W.Null()
		} else {
			c.W.Bulk(o.Str()) // written before the value is overwritten
		}
	}
	if expireArg > 0 && when <= c.Now && !c.Replica {
		// A time already past (EXAT/PXAT) stores nothing: a key that
		// was there is deleted, propagated and announced as the
		// deletion of an expired key is, as Valkey 8.0 does.
		if o != nil {
			c.Delete(key)
			c.Touch(key)
			c.Notify(NotifyGeneric, "del", key)
			c.ownDeletion(key, c.KS.lazy.expire.Load())
		}
		c.setReply(flags, okReply)
		return
	}
	o = c.SetString(key, val, flags&setKeepTTL != 0)
	c.Notify(NotifyString, "set", key)
	if expireArg > 0 {
		c.SetExpire(key, o, when)
		c.Notify(NotifyGeneric, "expire", key)
	}
	c.Touch(key)
	if c.Propagating() {
		c.propagateSet(flags, key, val, expireArg, when, cmd)
	}
	c.setReply(flags, okReply)
}

// setReply writes a SET-like command's success reply: none with GET
// (the old value was the reply), +OK or :1.
func (c *Ctx) setReply(flags int, okReply bool) {
	if flags&setGet == 0 {
		if okReply {
			c.W.OK()
		} else {
			c.W.Int(1)
		}
	}
}

// propagateSet gives a SET-like command's op as Valkey's setGenericCommand
// does: a relative or second-based expiry as SET key value PXAT <ms> (so
// a replay sets the same deadline), and SET without its GET options.
func (c *Ctx) propagateSet(flags int, key, val []byte, expireArg int, when int64, cmd string) {
	switch {
	case expireArg > 0 && flags&setPXAT == 0:
		c.OwnAs(argSET, key, val, argPXAT, itoa(when))
	case flags&setGet != 0 && cmd == "set":
		argv := make([][]byte, 0, len(c.Argv))
		for j, a := range c.Argv {
			if j < 3 || !EqualFold(a, "GET") {
				argv = append(argv, a)
			}
		}
		c.OwnAs(argv...)
	}
}

// SETNX key value
func setnxCommand(c *Ctx) { c.setGeneric(setNX, c.Argv[1], c.Argv[2], 0, "setnx", false) }

// SETEX key seconds value
func setexCommand(c *Ctx) { c.setGeneric(setEX, c.Argv[1], c.Argv[3], 2, "setex", true) }

// PSETEX key milliseconds value
func psetexCommand(c *Ctx) { c.setGeneric(setPX, c.Argv[1], c.Argv[3], 2, "psetex", true) }

// GETSET key value
func getsetCommand(c *Ctx) { c.setGeneric(setGet, c.Argv[1], c.Argv[2], 0, "getset", true) }

// GETDEL key
func getdelCommand(c *Ctx) {
	key := c.Argv[1]
	o := c.LookupRead(key)
	switch {
	case o == nil:
		c.W.Null()
	case o.Type != TypeString:
		c.W.Error(ErrWrongType)
	default:
		c.W.Bulk(o.Str())
		c.Delete(key)
		c.Touch(key)
		c.Notify(NotifyGeneric, "del", key)
		c.OwnAs(argDEL, key)
	}
}

// GETEX key [EX s | PX ms | EXAT ts | PXAT ms-ts | PERSIST]
func getexCommand(c *Ctx) {
	key := c.Argv[1]
	flags, ea, ok := c.parseSetOptions(2, true)
	if !ok {
		return
	}
	o := c.LookupRead(key)
	if o == nil {
		c.W.Null()
		return
	}
	if o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	// Valkey checks the time's value only once the key is known to be a
	// string: a missing key answers nil whatever the time says.
	var when int64
	if ea > 0 {
		if when, ok = c.expireAt(flags, ea, "getex"); !ok {
			return
		}
	}
	c.W.Bulk(o.Str())
	switch {
	case ea > 0 && when <= c.Now:
		// An absolute time in the past deletes the key, as Valkey does.
		c.Delete(key)
		c.Touch(key)
		c.Notify(NotifyGeneric, "del", key)
		c.ownDeletion(key, c.KS.lazy.expire.Load())
	case ea > 0:
		c.SetExpire(key, o, when)
		c.Touch(key)
		c.Notify(NotifyGeneric, "expire", key)
		if c.Propagating() {
			c.OwnAs(argPEXPIREAT, key, itoa(when))
		}
	case flags&setPersist != 0 && o.HasTTL():
		c.SetExpire(key, o, 0)
		c.Touch(key)
		c.Notify(NotifyGeneric, "persist", key)
		c.OwnAs(argPERSIST, key)
	}
}

// MGET key [key ...]
func mgetCommand(c *Ctx) {
	c.W.ArrayLen(len(c.Argv) - 1)
	for _, k := range c.Argv[1:] {
		o := c.LookupRead(k)
		if o == nil || o.Type != TypeString {
			c.W.Null()
		} else {
			c.W.Bulk(o.Str())
		}
	}
}

// MSET key value [key value ...]
func msetCommand(c *Ctx) {
	if len(c.Argv)%2 != 1 {
		c.W.Error("ERR wrong number of arguments for 'mset' command")
		return
	}
	for j := 1; j < len(c.Argv); j += 2 {
		c.SetString(c.Argv[j], c.Argv[j+1], false)
		c.Notify(NotifyString, "set", c.Argv[j])
		c.Touch(c.Argv[j])
	}
	c.W.OK()
}

// MSETNX key value [key value ...]
func msetnxCommand(c *Ctx) {
	if len(c.Argv)%2 != 1 {
		c.W.Error("ERR wrong number of arguments for 'msetnx' command")
		return
	}
	for j := 1; j < len(c.Argv); j += 2 {
		if c.LookupWrite(c.Argv[j]) != nil {
			c.W.Int(0)
			return
		}
	}
	for j := 1; j < len(c.Argv); j += 2 {
		c.SetString(c.Argv[j], c.Argv[j+1], false)
		c.Notify(NotifyString, "set", c.Argv[j])
		c.Touch(c.Argv[j])
	}
	c.W.Int(1)
}

// APPEND key value
func appendCommand(c *Ctx) {
	key, val := c.Argv[1], c.Argv[2]
	o := c.LookupWrite(key)
	if o == nil {
		c.SetString(key, val, false)
		c.Touch(key)
		c.Notify(NotifyString, "append", key)
		c.W.Int(int64(len(val)))
		return
	}
	if o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	if !c.checkStringLength(int64(len(o.Str())), int64(len(val))) {
		return
	}
	s := o.Str()
	b := grow(s, int64(len(s)+len(val)))
	copy(b[len(s):], val)
	o.SetStr(b)
	o.SetForm(StrRaw)
	c.Touch(key)
	c.Notify(NotifyString, "append", key)
	c.W.Int(int64(len(o.Str())))
}

// STRLEN key
func strlenCommand(c *Ctx) {
	o := c.LookupRead(c.Argv[1])
	switch {
	case o == nil:
		c.W.Int(0)
	case o.Type != TypeString:
		c.W.Error(ErrWrongType)
	default:
		c.W.Int(int64(len(o.Str())))
	}
}

// INCR key
func incrCommand(c *Ctx) { c.incrDecr(1) }

// DECR key
func decrCommand(c *Ctx) { c.incrDecr(-1) }

// INCRBY key increment
func incrbyCommand(c *Ctx) {
	if n, ok := c.IntArg(2); ok {
		c.incrDecr(n)
	}
}

// DECRBY key decrement
func decrbyCommand(c *Ctx) {
	n, ok := c.IntArg(2)
	if !ok {
		return
	}
	if n == math.MinInt64 {
		c.W.Error("ERR decrement would overflow")
		return
	}
	c.incrDecr(-n)
}

func (c *Ctx) incrDecr(by int64) {
	key := c.Argv[1]
	o := c.LookupWrite(key)
	var cur int64
	if o != nil {
		if o.Type != TypeString {
			c.W.Error(ErrWrongType)
			return
		}
		var ok bool
		if cur, ok = ParseInt(o.Str()); !ok {
			c.W.Error(ErrNotInt)
			return
		}
	}
	if (by < 0 && cur < 0 && by < math.MinInt64-cur) || (by > 0 && cur > 0 && by > math.MaxInt64-cur) {
		c.W.Error(ErrOverflow)
		return
	}
	cur += by
	if o == nil {
		o = c.SetString(key, nil, false)
	}
	// Format in place: the buffer is reused, so INCR does not allocate.
	// The result is an int whatever the old value was (APPEND's raw,
	// INCRBYFLOAT's float form): Valkey makes a new integer object.
	o.SetStr(AppendInt(o.Str()[:0], cur))
	o.SetForm(StrPlain)
	c.Touch(key)
	c.Notify(NotifyString, "incrby", key)
	c.W.Int(cur)
}

// INCRBYFLOAT key increment
//
// Computed in 80-bit long double precision like Valkey (see
// hashes_float.go), so 0.1+0.2 prints "0.3" and results beyond the double
// range still work.
func incrbyfloatCommand(c *Ctx) {
	key := c.Argv[1]
	o := c.LookupWrite(key)
	if o != nil && o.Type != TypeString {
		c.W.Error(ErrWrongType)
		return
	}
	// Valkey parses the value and then the increment, and only then
	// rejects an infinite operand: "inf" stored with an increment that is
	// not a number is "not a valid float", not "NaN or Infinity".
	sum := new(big.Float).SetPrec(ldMantBits).SetMode(big.ToNearestEven)
	curInf := false
	if o != nil {
		v, inf, ok := parseLongDouble(o.Str())
		if !ok {
			c.W.Error(ErrNotFloat)
			return
		}
		curInf = inf
		if !inf {
			sum.Set(v)
		}
	}
	in, inf, ok := parseLongDouble(c.Argv[2])
	if !ok {
		c.W.Error(ErrNotFloat)
		return
	}
	if inf || curInf {
		c.W.Error(ErrNaN)
		return
	}
	sum.Add(sum, in)
	if sum.MantExp(nil) > ldMaxExp {
		c.W.Error(ErrNaN)
		return
	}
	out := appendLongDoubleHuman(nil, sum)
	if o == nil {
		o = c.SetString(key, out, false)
	} else {
		o.SetStr(append(o.Str()[:0], out...))
	}
	o.SetForm(StrFloat)
	c.Touch(key)
	c.Notify(NotifyString, "incrbyfloat", key)
	c.W.Bulk(o.Str())
	// The sum is what replays exactly (Valkey: SET key sum KEEPTTL).
	c.OwnAs(argSET, key, o.Str(), argKEEPTTL)
}
