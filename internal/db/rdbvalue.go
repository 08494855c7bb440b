package db

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// Conversion between the keyspace's values and package rdb's Entry: what
// a snapshot writes (ExportEntry, under the key's stripe), what a load
// inserts (LoadEntry) and what DUMP and RESTORE exchange (dump.go).
//
// Loading chooses each value's encoding from its content and the
// keyspace's settings, as Valkey's rdbLoadObject does for the RDB types
// that carry no encoding (RDB_TYPE_SET, RDB_TYPE_HASH, RDB_TYPE_ZSET_2,
// lists pushed one element at a time). An Entry does not say which RDB
// type it was read from, so where Valkey keeps a compact encoding as it
// was saved, Corvid may choose differently: a listpack set whose members
// are all integers (left so by an SREM) loads as an intset here and as a
// listpack in Valkey; a listpack whose elements exceed a lowered *-value
// limit loads as a hashtable (skiplist) here; a quicklist of several
// small nodes loads as a listpack here. With the same settings on both
// sides and values built by the usual commands, the encodings agree.

// ErrDuplicateKey is returned by LoadEntry for a key that is already in
// its database: Valkey refuses such a file (it logs "RDB has duplicated
// key '%s' in DB %d" and stops with "Duplicated key found in RDB file").
var ErrDuplicateKey = fmt.Errorf("db: duplicated key found in RDB file")

// dumpSettings are the keyspace's persistence settings that DUMP and the
// snapshot writer read (rdbcompression).
type dumpSettings struct {
	noCompress atomic.Bool // rdbcompression no
}

// SetRDBCompression applies rdbcompression (default yes): LZF for strings
// longer than 20 bytes in DUMP payloads and RDB files (RDBOptions).
func (ks *Keyspace) SetRDBCompression(on bool) { ks.dump.noCompress.Store(!on) }

// RDBOptions returns rdb.DefaultOptions with the keyspace's encoding
// thresholds as Limits and its rdbcompression setting: what DUMP uses,
// and what a snapshot should start from (the caller adds rdbchecksum and
// the AUX fields).
func (ks *Keyspace) RDBOptions() rdb.Options {
	o := rdb.DefaultOptions()
	o.Limits = ks.RDBLimits()
	o.Compression = !ks.dump.noCompress.Load()
	return o
}

// RDBLimits returns the keyspace's encoding thresholds (list-max-listpack-size,
// hash-, set- and zset-max-*) as rdb.Limits.
func (ks *Keyspace) RDBLimits() rdb.Limits {
	s := &ks.cfg
	return rdb.Limits{
		ListMaxListpackSize:    s.listFill(),
		HashMaxListpackEntries: clampInt(s.hashEntries.Load()),
		HashMaxListpackValue:   clampInt(s.hashValue.Load()),
		SetMaxIntsetEntries:    clampInt(s.intsetEntries.Load()),
		SetMaxListpackEntries:  clampInt(s.setEntries.Load()),
		SetMaxListpackValue:    clampInt(s.setValue.Load()),
		ZSetMaxListpackEntries: clampInt(s.zsetEntries.Load()),
		ZSetMaxListpackValue:   clampInt(s.zsetValue.Load()),
	}
}

// clampInt converts a setting to int without wrapping on 32-bit builds.
func clampInt(v int64) int {
	const maxInt = int64(^uint(0) >> 1)
	if v > maxInt {
		return int(maxInt)
	}
	return int(v)
}

// ExportEntry fills e with the key, value, expiry and access hints of o,
// which is key's value in database db, as Valkey's rdbSaveKeyValuePair
// would write them: ExpireMs is the absolute expiry (-1: none); Idle (the
// LRU idle time in seconds) is set only under an LRU maxmemory-policy and
// Freq (the decayed LFU counter) only under an LFU one, else both are -1.
//
// The caller holds key's stripe, and e is valid only while it does: e.Key,
// e.String and the elements of e.List, e.Set, e.ZSet and e.Hash alias the
// key and o's memory (an intset's members are formatted into one fresh
// buffer). Serialize e (rdb.Writer.WriteEntry, rdb.DumpPayload) before the
// stripe is released. The outer slices of e are reused (truncated and
// appended to), so one Entry can serve a whole walk without allocating
// per key; their previous elements are never written through.
//
// o must be a string, list, set, sorted set, hash or stream (the types
// the keyspace stores); any other type panics. A stream's node listpacks
// alias it, like the other types' elements.
func (ks *Keyspace) ExportEntry(db int, key []byte, o *Object, e *rdb.Entry) {
	e.DB, e.Key = db, key
	e.String = nil
	e.List, e.Set, e.ZSet, e.Hash = e.List[:0], e.Set[:0], e.ZSet[:0], e.Hash[:0]
	e.ListNodes, e.ListCompress = e.ListNodes[:0], 0
	e.Stream = nil
	e.ExpireMs = exportExpire(ks.expireOf(db, key, o))
	e.Idle, e.Freq = -1, -1
	switch pol := ks.EvictionPolicy(); {
	case pol.lru():
		e.Idle = IdleSeconds(o.LRU)
	case pol.lfu():
		e.Freq = int(ks.LFUDecr(o.LRU))
	}
	switch o.Type {
	case TypeString:
		e.Kind, e.String = rdb.KindString, o.Str()
	case TypeList:
		e.Kind = rdb.KindList
		ql := listOf(o)
		ql.Scan(false, func(v []byte) bool {
			e.List = append(e.List, v)
			return true
		})
		e.ListNodes = ql.NodeCounts(e.ListNodes[:0])
		e.ListCompress = ql.CompressDepth()
	case TypeSet:
		e.Kind = rdb.KindSet
		exportSet(o, e)
	case TypeZSet:
		e.Kind = rdb.KindZSet
		switch z := o.Value().(type) {
		case *ds.ZPack:
			for off := z.First(); off >= 0; off = z.Next(off) {
				m, s, _ := z.At(off)
				e.ZSet = append(e.ZSet, rdb.ZMember{Member: m, Score: s})
			}
		case *ds.ZSkip:
			for it := z.IterAt(0); it.Valid(); it.Next() {
				n := it.Node()
				e.ZSet = append(e.ZSet, rdb.ZMember{Member: n.Member(), Score: n.Score()})
			}
		}
	case TypeHash:
		e.Kind = rdb.KindHash
		hashRange(o.Value(), func(f, v []byte) bool {
			e.Hash = append(e.Hash, rdb.HashField{Field: f, Value: v})
			return true
		})
	case TypeStream:
		e.Kind, e.Stream = rdb.KindStream, exportStream(streamOf(o))
	default:
		panic(fmt.Sprintf("db: ExportEntry of a %s value", o.Type))
	}
}

// exportSet lists a set's members into e.Set in the encoding's order
// (insertion order for a listpack, as the writer wants it).
func exportSet(o *Object, e *rdb.Entry) {
	is, ok := o.Value().(*ds.IntSet)
	if !ok {
		setRange(o, func(m []byte) bool {
			e.Set = append(e.Set, m)
			return true
		})
		return
	}
	// setRange formats intset members into a scratch buffer; give them
	// one buffer of their own instead.
	n := is.Len()
	if n == 0 {
		return
	}
	buf := make([]byte, 0, n*max(digits10(is.Min()), digits10(is.Max())))
	for i := range n {
		start := len(buf)
		buf = strconv.AppendInt(buf, is.Get(i), 10)
		e.Set = append(e.Set, buf[start:len(buf):len(buf)])
	}
}

// exportExpire is Object.Expire as an Entry's ExpireMs: 0 (none) is -1.
// An Expire of -1 stands for the time 0 (a replica keeps past TTLs so,
// keys_expire.go), and is exported as 0.
func exportExpire(ms int64) int64 {
	switch ms {
	case 0:
		return -1
	case -1:
		return 0
	}
	return ms
}

// importExpire is the inverse of exportExpire.
func importExpire(ms int64) int64 {
	switch ms {
	case -1:
		return 0
	case 0:
		return -1
	}
	return ms
}

// ForEachInShard calls fn for every key of database db whose stripe is
// stripe, in the shard's dict order, expired keys included (Valkey saves
// them; the loader drops them). The caller holds that stripe (LockStripe),
// which keeps key and o valid for the call; fn must not add or delete keys.
// An error from fn stops the walk and is returned. Built with -tags
// invariants, a stripe that is not locked at all panics.
func (ks *Keyspace) ForEachInShard(db, stripe int, fn func(key []byte, o *Object) error) error {
	st := &ks.stripes[stripe]
	if Invariants && st.mu.TryLock() {
		st.mu.Unlock()
		panic(fmt.Sprintf("invariants: ForEachInShard of stripe %d without its lock", stripe))
	}
	sh := st.shards[db]
	if sh == nil {
		return nil
	}
	var err error
	sh.keys.Range(func(k string, o *Object) bool {
		err = fn(sbytes(k), o)
		return err == nil
	})
	return err
}

// ShardLen returns the number of keys, and of keys with a TTL, of database
// db in stripe stripe (a snapshot's RESIZEDB hints). The caller holds the
// stripe.
func (ks *Keyspace) ShardLen(db, stripe int) (keys, expires int) {
	sh := ks.stripes[stripe].shards[db]
	if sh == nil {
		return 0, 0
	}
	return sh.keys.Len(), sh.expires.Len()
}

// LoadEntry inserts e as a new key of database e.DB, as Valkey's RDB load
// does: the value gets the encoding Valkey's loader would give it under
// the keyspace's settings (see the top of this file), its expiry, and its
// access clock from e.Idle or e.Freq (objectSetLRUOrLFU: Freq under an LFU
// maxmemory-policy, Idle under any other, else a fresh clock).
//
// A key whose expiry is before nowMs is not loaded (loaded false), as on a
// Valkey primary; nowMs <= 0 loads every key whatever its expiry (a
// replica's full sync, an AOF preamble) and takes the clocks from the wall
// clock. A key already present is ErrDuplicateKey, wrapped with its name.
//
// LoadEntry takes the key's stripe itself and keeps the memory accounting;
// it tells no PreWriter, propagates nothing, and invalidates no WATCH: it
// is for loading before the keyspace serves. It may keep e's byte slices
// (an Entry from rdb.Loader or rdb.ParseDumpPayload belongs to the
// receiver); e must not be changed afterwards. A load into a live
// keyspace (DEBUG RELOAD, a replica's full sync while serving) needs more:
// PreWriter announcements, WATCH invalidation and effects, none of which
// happen here.
func (ks *Keyspace) LoadEntry(e *rdb.Entry, nowMs int64) (loaded bool, err error) {
	return ks.loadEntryLocking(e, nowMs, false)
}

// MergeEntry is LoadEntry replacing a key already present rather than
// failing (DEBUG RELOAD MERGE, Valkey's RDBFLAGS_ALLOW_DUP).
func (ks *Keyspace) MergeEntry(e *rdb.Entry, nowMs int64) (loaded bool, err error) {
	return ks.loadEntryLocking(e, nowMs, true)
}

func (ks *Keyspace) loadEntryLocking(e *rdb.Entry, nowMs int64, replace bool) (loaded bool, err error) {
	if e.DB < 0 || e.DB >= ks.ndb {
		return false, fmt.Errorf("db: RDB key %q in database %d, out of range", e.Key, e.DB)
	}
	h := ds.Hash(e.Key)
	si := ks.stripeOf(e.Key, h)
	st := &ks.stripes[si]
	st.mu.Lock()
	defer st.mu.Unlock()
	return ks.loadEntryIn(si, h, e, nowMs, replace)
}

// LoadEntryHeld is LoadEntry for a caller that holds every stripe
// (DEBUG LOADAOF, which replaces the dataset while no client runs).
func (ks *Keyspace) LoadEntryHeld(e *rdb.Entry, nowMs int64) (loaded bool, err error) {
	if e.DB < 0 || e.DB >= ks.ndb {
		return false, fmt.Errorf("db: RDB key %q in database %d, out of range", e.Key, e.DB)
	}
	h := ds.Hash(e.Key)
	return ks.loadEntryIn(ks.stripeOf(e.Key, h), h, e, nowMs, false)
}

// loadEntryIn inserts e into stripe si (held) under hash h, replacing a
// key already there if replace.
func (ks *Keyspace) loadEntryIn(si int, h uint64, e *rdb.Entry, nowMs int64, replace bool) (loaded bool, err error) {
	if nowMs > 0 && e.ExpireMs != -1 && e.ExpireMs < nowMs {
		return false, nil
	}
	clockMs := nowMs
	if clockMs <= 0 {
		clockMs = time.Now().UnixMilli()
	}
	sh := ks.shardAt(e.DB, si, true)
	if old := sh.keys.FindHashed(h, e.Key); old != nil {
		if !replace {
			// Valkey logs this line, then panics with ErrDuplicateKey's text.
			return false, fmt.Errorf("%w: RDB has duplicated key '%s' in DB %d", ErrDuplicateKey, e.Key, e.DB)
		}
		sh.setExpire(h, e.Key, old, 0)
		if v, ok := sh.keys.DeleteHashed(h, e.Key); ok {
			sh.unaccount(v.mem)
			sh.counted(e.Key, -1)
		}
	}
	var v Object
	if err := ks.buildValue(e, &v); err != nil {
		return false, err
	}
	v.LRU = ks.loadClock(e.Idle, int64(e.Freq), clockMs)
	o, _ := sh.keys.UpsertHashed(h, e.Key)
	sh.counted(e.Key, 1) // absent: a key there was deleted above
	*o = v
	if e.ExpireMs != -1 {
		sh.setExpire(h, e.Key, o, importExpire(e.ExpireMs))
	}
	sh.accountObj(o)
	ks.settle(e.DB, sh)
	return true, nil
}

// loadClock is objectSetLRUOrLFU with Valkey's lru_multiplier of 1000 (idle
// in seconds): the access clock of a key loaded or restored at nowMs with
// an LFU counter freq or an idle time idle (-1: not given).
func (ks *Keyspace) loadClock(idle, freq, nowMs int64) uint32 {
	if ks.lfu() {
		if freq >= 0 {
			return lfuMinutesAt(nowMs)<<8 | uint32(freq&0xff)
		}
	} else if idle >= 0 {
		// lru_idle*1000/LRU_CLOCK_RESOLUTION, wrapping as C's long long
		// does; the result is stored in the object's 24 bits.
		idle = idle * 1000 / 1000
		abs := int64(lruClockAt(nowMs)) - idle
		if abs < 0 {
			abs += lruClockMax
		}
		return uint32(abs) & lruClockMax
	}
	return ks.newClock(nowMs)
}

// buildValue sets v's type and value from e with the encoding Valkey's RDB
// loader chooses under the keyspace's settings. v.Str() may keep e.String.
func (ks *Keyspace) buildValue(e *rdb.Entry, v *Object) error {
	s := &ks.cfg
	switch e.Kind {
	case rdb.KindString:
		v.Type = TypeString
		v.SetForm(StrPlain)
		v.SetStr(e.String)
		if cap(v.Str()) > 2*len(v.Str())+32 || v.Str() == nil {
			v.SetStr(append(make([]byte, 0, len(e.String)), e.String...))
		}
	case rdb.KindList:
		v.Type = TypeList
		ql := ds.NewQuicklist()
		lc := s.listConfig()
		for _, x := range e.List {
			ql.PrepareGrow(lc, len(x), 1)
			ql.PushTail(x)
		}
		v.SetValue(ql)
	case rdb.KindSet:
		v.Type = TypeSet
		v.SetValue(loadSet(s, e.Set))
	case rdb.KindZSet:
		v.Type = TypeZSet
		v.SetValue(loadZSet(s, e.ZSet))
	case rdb.KindHash:
		v.Type = TypeHash
		v.SetValue(loadHash(s, e.Hash))
	case rdb.KindStream:
		if e.Stream == nil {
			return fmt.Errorf("db: RDB key %q is a stream without a value", e.Key)
		}
		v.Type = TypeStream
		v.SetValue(loadStream(e.Stream))
		return nil // an empty stream is a value
	default:
		return fmt.Errorf("db: RDB key %q of unsupported kind %s", e.Key, e.Kind)
	}
	if e.Kind != rdb.KindString && e.Len() == 0 {
		return fmt.Errorf("db: RDB key %q is an empty %s", e.Key, e.Kind)
	}
	return nil
}

// listpackSafe is LISTPACK_MAX_SAFETY_SIZE: lpSafeToAdd refuses a listpack
// that would grow past it.
const listpackSafe = 1 << 30

// loadSet builds a set as rdbLoadObject does for RDB_TYPE_SET: an intset
// while the members are integers (and there are at most
// set-max-intset-entries of them), a listpack once a non-integer comes
// while the set and its longest member fit one, else a hashtable.
// Duplicates (which package rdb refuses) are dropped.
func loadSet(s *settings, members [][]byte) any {
	n := len(members)
	var val any
	if n > s.intsetMaxEntries() {
		val = newSetDict(n)
	} else {
		val = ds.NewIntSet()
	}
	maxLen, sum := 0, 0
	for _, m := range members {
		maxLen, sum = max(maxLen, len(m)), sum+len(m)
		if is, ok := val.(*ds.IntSet); ok {
			if x, ok := ParseInt(m); ok {
				is.Add(x)
				continue
			}
			if int64(is.Len()) < s.setEntries.Load() && int64(maxLen) <= s.setValue.Load() && sum <= listpackSafe {
				val = setToPack(newObject(TypeSet, is))
			} else {
				val = setToDict(newObject(TypeSet, is), n)
			}
		}
		if p, ok := val.(*ds.Pack); ok {
			if int64(p.Len()) < s.setEntries.Load() && int64(len(m)) <= s.setValue.Load() && p.Bytes()+len(m) <= listpackSafe {
				if p.Find(m) < 0 {
					p.Append(m)
				}
				continue
			}
			val = setToDict(newObject(TypeSet, p), n)
		}
		val.(*setDict).Add(m)
	}
	if p, ok := val.(*ds.Pack); ok {
		p.ShrinkToFit()
	}
	return val
}

// loadHash builds a hash as rdbLoadObject does for RDB_TYPE_HASH: a
// hashtable from the start when there are more than
// hash-max-listpack-entries fields or once a field or value is longer
// than hash-max-listpack-value, else a listpack in the order given.
func loadHash(s *settings, fields []rdb.HashField) any {
	fits := int64(len(fields)) <= s.hashEntries.Load()
	maxv, size := s.hashValue.Load(), 0
	for _, f := range fields {
		size += len(f.Field) + len(f.Value)
		if !fits || int64(len(f.Field)) > maxv || int64(len(f.Value)) > maxv || size > listpackSafe {
			fits = false
			break
		}
	}
	if fits {
		lp := ds.NewListpack()
		for _, f := range fields {
			lp = lp.Append(f.Field).Append(f.Value)
		}
		return lp
	}
	d := newHashDict(len(fields))
	for _, f := range fields {
		d.Set(f.Field, f.Value)
	}
	return d
}

// loadZSet builds a sorted set as rdbLoadObject does for RDB_TYPE_ZSET_2:
// a skiplist, converted to a listpack when it has at most
// zset-max-listpack-entries members of at most zset-max-listpack-value
// bytes. Members are distinct (package rdb refuses duplicates).
func loadZSet(s *settings, members []rdb.ZMember) any {
	maxLen, sum := 0, 0
	for _, m := range members {
		maxLen, sum = max(maxLen, len(m.Member)), sum+len(m.Member)
	}
	if !s.zsetFits(len(members), maxLen) || sum > listpackSafe {
		z := ds.NewZSkip(len(members))
		for _, m := range members {
			z.Add(m.Member, m.Score)
		}
		return z
	}
	sorted := make([]rdb.ZMember, 0, len(members))
	for _, m := range members {
		sorted = append(sorted, rdb.ZMember{Member: m.Member, Score: packScore(m.Score)})
	}
	slices.SortFunc(sorted, func(a, b rdb.ZMember) int {
		if c := cmp.Compare(a.Score, b.Score); c != 0 {
			return c
		}
		return bytes.Compare(a.Member, b.Member)
	})
	p := &ds.ZPack{}
	for _, m := range sorted {
		p.Append(m.Member, m.Score)
	}
	p.ShrinkToFit()
	return p
}
