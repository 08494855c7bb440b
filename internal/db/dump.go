package db

import (
	"errors"

	"github.com/corvid-kv/corvid/internal/rdb"
)

// DUMP and RESTORE (Valkey's cluster.c): a value serialized as package
// rdb's DUMP payload, with the keyspace's encoding thresholds and
// rdbcompression (RDBOptions), and restored with the encoding Valkey's
// loader would choose (rdbvalue.go).

// Reply texts of RESTORE, as Valkey 8.0.1 words them.
const (
	errBusyKey      = "BUSYKEY Target key name already exists."
	errDumpPayload  = "ERR DUMP payload version or checksum are wrong"
	errBadFormat    = "ERR Bad data format"
	errRestoreTTL   = "ERR Invalid TTL value, must be >= 0"
	errRestoreIdle  = "ERR Invalid IDLETIME value, must be >= 0"
	errRestoreFreq  = "ERR Invalid FREQ value, must be >= 0 and <= 255"
	restoreArgTTLAt = "ABSTTL"
)

// DUMP key
func dumpCommand(c *Ctx) {
	key := c.Argv[1]
	o := c.LookupRead(key)
	if o == nil {
		c.W.Null()
		return
	}
	var e rdb.Entry
	c.KS.ExportEntry(c.DB, key, o, &e)
	p, err := rdb.DumpPayload(&e, c.KS.RDBOptions())
	if err != nil {
		// The keyspace never stores what the writer refuses (an empty
		// collection): a broken invariant.
		panic("db: DUMP of " + string(key) + ": " + err.Error())
	}
	c.W.Bulk(p)
}

// RESTORE key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]
//
// The checks come in Valkey's order: the options (IDLETIME and FREQ
// exclude each other: the second is a syntax error), the key's absence
// unless REPLACE, the TTL, the payload's footer, then its value. A TTL
// already in the past creates nothing; if REPLACE deleted the old value
// the command propagates as that deletion (UNLINK, or DEL with
// lazyfree-lazy-server-del off). A relative TTL propagates as absolute,
// the command's argv with the time rewritten and ABSTTL appended.
func restoreCommand(c *Ctx) {
	key := c.Argv[1]
	replace, absTTL := false, false
	idle, freq := int64(-1), int64(-1)
	for j := 4; j < len(c.Argv); j++ {
		a := CString(c.Argv[j])
		more := len(c.Argv) - j - 1
		switch {
		case EqualFold(a, "REPLACE"):
			replace = true
		case EqualFold(a, "ABSTTL"):
			absTTL = true
		case EqualFold(a, "IDLETIME") && more >= 1 && freq == -1:
			n, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			if n < 0 {
				c.W.Error(errRestoreIdle)
				return
			}
			idle = n
			j++
		case EqualFold(a, "FREQ") && more >= 1 && idle == -1:
			n, ok := c.IntArg(j + 1)
			if !ok {
				return
			}
			if n < 0 || n > 255 {
				c.W.Error(errRestoreFreq)
				return
			}
			freq = n
			j++
		default:
			c.W.Error(ErrSyntax)
			return
		}
	}
	if !replace && c.Lookup(key) != nil {
		c.W.Error(errBusyKey)
		return
	}
	ttl, ok := c.IntArg(2)
	if !ok {
		return
	}
	if ttl < 0 {
		c.W.Error(errRestoreTTL)
		return
	}
	e, err := parsePayload(c.Argv[3])
	if err != "" {
		c.W.Error(err)
		return
	}

	// REPLACE deletes without a lookup (an expired key too), so the
	// restored key is always a new one.
	deleted := replace && c.dropKey(key)
	if ttl != 0 && !absTTL {
		ttl += c.Now // wraps on overflow, as Valkey's long long does
	}
	if ttl != 0 && ttl <= c.Now && !c.Replica {
		// checkAlreadyExpired: nothing is created.
		if deleted {
			c.Touch(key)
			c.Notify(NotifyGeneric, "del", key)
			c.ownDeletion(key, c.KS.lazy.serverDel.Load())
		}
		c.W.OK()
		return
	}
	o := c.Create(key, typeOfKind(e.Kind))
	if err := c.KS.buildValue(e, o); err != nil {
		// ParseDumpPayload returns only what buildValue takes.
		panic("db: RESTORE: " + err.Error())
	}
	if ttl != 0 {
		c.SetExpire(key, o, ttl)
	}
	o.LRU = c.KS.loadClock(idle, freq, c.Now)
	c.keyAdded(c.DB, key, o.Type)
	c.Touch(key)
	c.Notify(NotifyGeneric, "restore", key)
	c.W.OK()
	if ttl != 0 && !absTTL && c.Propagating() {
		argv := make([][]byte, 0, len(c.Argv)+1)
		argv = append(argv, c.Argv[0], key, itoa(ttl))
		argv = append(argv, c.Argv[3:]...)
		c.OwnAs(append(argv, []byte(restoreArgTTLAt))...)
	}
}

// parsePayload decodes a RESTORE payload, or returns RESTORE's error text:
// Valkey's verifyDumpPayload (a footer, a version it reads, the CRC64)
// and then "Bad data format" for a value it cannot load (Corvid cannot
// load module values either).
func parsePayload(p []byte) (*rdb.Entry, string) {
	if len(p) < 10 {
		return nil, errDumpPayload
	}
	e, err := rdb.ParseDumpPayload(p)
	switch {
	case err == nil:
		return e, ""
	case errors.Is(err, rdb.ErrChecksum), errors.Is(err, rdb.ErrVersion):
		return nil, errDumpPayload
	}
	return nil, errBadFormat
}

// typeOfKind is the keyspace type of an rdb value kind.
func typeOfKind(k rdb.Kind) Type {
	switch k {
	case rdb.KindList:
		return TypeList
	case rdb.KindSet:
		return TypeSet
	case rdb.KindZSet:
		return TypeZSet
	case rdb.KindHash:
		return TypeHash
	case rdb.KindStream:
		return TypeStream
	}
	return TypeString
}
