package db

import "math"

// Conditions of EXPIRE and friends (Valkey's EXPIRE_NX ... EXPIRE_LT).
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// EXPIRE key seconds [NX | XX | GT | LT]
func expireCommand(c *Ctx) { c.expireGeneric(c.Now, true, "expire") }

// PEXPIRE key milliseconds [NX | XX | GT | LT]
func pexpireCommand(c *Ctx) { c.expireGeneric(c.Now, false, "pexpire") }

// EXPIREAT key unix-time-seconds [NX | XX | GT | LT]
func expireatCommand(c *Ctx) { c.expireGeneric(0, true, "expireat") }

// PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]
func pexpireatCommand(c *Ctx) { c.expireGeneric(0, false, "pexpireat") }

// expireGeneric implements the four EXPIRE forms as Valkey's
// expireGenericCommand: options are checked before the time, the time may
// be negative (only overflow is an error), and a resulting time that is not
// in the future deletes the key.
func (c *Ctx) expireGeneric(base int64, seconds bool, cmd string) {
	key := c.Argv[1]
	flags, ok := c.expireFlags()
	if !ok {
		return
	}
	when, ok := c.IntArg(2)
	if !ok {
		return
	}
	if seconds {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.W.Error(invalidExpire(cmd))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		c.W.Error(invalidExpire(cmd))
		return
	}
	when += base

	o := c.LookupWrite(key)
	if o == nil {
		c.W.Int(0)
		return
	}
	// A key without a TTL has an infinite one: GT never beats it and LT
	// always does.
	cur := c.ExpireOf(key, o)
	switch {
	case flags&expireNX != 0 && cur != 0,
		flags&expireXX != 0 && cur == 0,
		flags&expireGT != 0 && (cur == 0 || when <= cur),
		flags&expireLT != 0 && cur != 0 && when >= cur:
		c.W.Int(0)
		return
	}

	if when <= c.Now && !c.Replica {
		// Already expired: delete now, propagated as the deletion of an
		// expired key is (UNLINK, or DEL with lazyfree-lazy-expire off)
		// and announced as a "del" (Valkey 8.0; later versions say
		// "expired").
		c.Delete(key)
		c.Touch(key)
		c.Notify(NotifyGeneric, "del", key)
		c.ownDeletion(key, c.KS.lazy.expire.Load())
		c.W.Int(1)
		return
	}
	if when == 0 {
		// Only reachable on a replica; 0 would mean "no TTL" here, and
		// any past time behaves the same until the primary's DEL.
		when = -1
	}
	c.SetExpire(key, o, when)
	c.Touch(key)
	c.Notify(NotifyGeneric, "expire", key)
	c.W.Int(1)
	if c.Propagating() {
		// As PEXPIREAT with the absolute time, the options kept (they
		// decide the same way on the same data).
		argv := append([][]byte{argPEXPIREAT, key, itoa(when)}, c.Argv[3:]...)
		c.OwnAs(argv...)
	}
}

// expireFlags parses the NX/XX/GT/LT words after the time argument.
func (c *Ctx) expireFlags() (int, bool) {
	flags := 0
	for _, a := range c.Argv[3:] {
		switch {
		case EqualFold(a, "NX"):
			flags |= expireNX
		case EqualFold(a, "XX"):
			flags |= expireXX
		case EqualFold(a, "GT"):
			flags |= expireGT
		case EqualFold(a, "LT"):
			flags |= expireLT
		default:
			// Valkey formats the option with %s: up to a NUL.
			c.W.Error("ERR Unsupported option " + string(CString(a)))
			return 0, false
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		c.W.Error("ERR NX and XX, GT or LT options at the same time are not compatible")
		return 0, false
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		c.W.Error("ERR GT and LT options at the same time are not compatible")
		return 0, false
	}
	return flags, true
}

// PERSIST key
func persistCommand(c *Ctx) {
	key := c.Argv[1]
	o := c.LookupWrite(key)
	if o == nil || !o.HasTTL() {
		c.W.Int(0)
		return
	}
	c.SetExpire(key, o, 0)
	c.Touch(key)
	c.Notify(NotifyGeneric, "persist", key)
	c.W.Int(1)
}

// TTL key
func ttlCommand(c *Ctx) { c.ttlGeneric(false, false) }

// PTTL key
func pttlCommand(c *Ctx) { c.ttlGeneric(true, false) }

// EXPIRETIME key
func expiretimeCommand(c *Ctx) { c.ttlGeneric(false, true) }

// PEXPIRETIME key
func pexpiretimeCommand(c *Ctx) { c.ttlGeneric(true, true) }

// ttlGeneric replies -2 for a missing key, -1 for a key without a TTL,
// otherwise the remaining (or absolute) time, never negative. Seconds are
// rounded to nearest as Valkey does ((ms+500)/1000), not truncated.
func (c *Ctx) ttlGeneric(ms, abs bool) {
	o := c.peekRead(c.Argv[1])
	switch {
	case o == nil:
		c.W.Int(-2)
		return
	case !o.HasTTL():
		c.W.Int(-1)
		return
	}
	t := c.ExpireOf(c.Argv[1], o)
	if !abs {
		t -= c.Now
	}
	if t < 0 {
		t = 0
	}
	if !ms {
		// (t+500)/1000 without overflowing near MaxInt64, where Valkey
		// too replies the mathematically rounded value.
		t = t/1000 + (t%1000+500)/1000
	}
	c.W.Int(t)
}
