package server

import (
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/corvid-kv/corvid/internal/command"
	"github.com/corvid-kv/corvid/internal/db"
	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
)

// DEBUG, the subcommands Valkey's own tooling and test suites rely on.
// DEBUG has no subcommand table in Valkey (it parses argv[1] itself), so
// neither does it here.

// debugRefusal is Valkey's text for a protected command that is disabled.
const debugRefusal = "ERR DEBUG command not allowed. If the enable-debug-command option is set to \"local\", " +
	"you can run it from a local connection, otherwise you need to set this option in the configuration file, " +
	"and then restart the server."

// protectedRefusal returns the rejection for a PROTECTED command
// (enable-debug-command no|yes|local) or "" when it may run.
//
// Valkey rejects in processCommand, right after the arity check and
// before queueing in MULTI (so the transaction is flagged and rejected_calls
// counts it); execute() does the same, and the check in debugCommand stays
// as a safety net.
func (c *Client) protectedRefusal(cm *cmd) string {
	if cm.meta.Flags&command.FlagProtected == 0 || cm.meta != command.Debug {
		return ""
	}
	switch c.srv.cfg.EnableDebugCommand() {
	case "yes":
		return ""
	case "local":
		if c.isLocal() {
			return ""
		}
	}
	return debugRefusal
}

func debugCommand(c *Client) {
	if msg := c.protectedRefusal(c.srv.table.find(command.Debug)); msg != "" {
		c.w.Error(msg)
		return
	}
	argv := c.ctx.Argv
	sub := strings.ToLower(string(argv[1]))
	argc := len(argv)
	s := c.srv
	w := c.w
	switch {
	case sub == "help" && argc == 2:
		c.writeHelp("DEBUG", debugHelp)
	case sub == "sleep" && argc == 3:
		debugSleep(c, strtodPrefix(string(argv[2])))
	case sub == "set-active-expire" && argc == 3:
		s.expire.Store(atoiPrefix(argv[2]) != 0)
		w.OK()
	case sub == "set-disable-deny-scripts" && argc == 3:
		s.scriptDenyOff.Store(atoiPrefix(argv[2]) != 0)
		w.OK()
	case sub == "object" && (argc == 3 || argc == 4):
		debugObject(c)
	case sub == "protocol" && argc == 3:
		debugProtocol(c, argv[2])
	case (sub == "stringmatch-len" || sub == "stringmatch-test") && argc == 2:
		globFuzz(2000)
		w.Simple("Apparently Valkey did not crash: test passed")
	case sub == "digest" && argc == 2:
		d := c.datasetDigest()
		w.Simple(hex.EncodeToString(d[:]))
	case sub == "digest-value":
		debugDigestValue(c)
	case sub == "change-repl-id" && argc == 2:
		s.log.notice("Changing replication IDs after receiving DEBUG change-repl-id")
		s.repl.mu.Lock()
		s.repl.hist.Clear()
		s.repl.mu.Unlock()
		w.OK()
	case sub == "quicklist-packed-threshold" && argc == 3:
		n, ok := memToBytes(string(argv[2]))
		if !ok || !ds.SetQuicklistPackedThreshold(n) { // 0 restores the default
			w.Error("ERR argument must be a memory value bigger than 1 and smaller than 4gb")
			return
		}
		w.OK()
	case sub == "listpack" && argc == 3:
		debugEncodingDump(c, "listpack", "Not a listpack encoded object.", "Listpack structure printed on stdout")
	case sub == "quicklist" && (argc == 3 || argc == 4):
		debugEncodingDump(c, "quicklist", "Not a quicklist encoded object.", "Quicklist structure printed on stdout")
	case sub == "populate" && argc >= 3 && argc <= 5:
		debugPopulate(c)
	case sub == "log" && argc == 3:
		s.log.warn("DEBUG LOG: %s", string(argv[2]))
		w.OK()
	case sub == "error" && argc == 3:
		w.Error(string(argv[2])) // the text is the whole error, code included
	case sub == "reload":
		debugReload(c)
	case sub == "loadaof":
		debugLoadAOF(c)
	case sub == "pause-cron" && argc == 3:
		s.cronPaused.Store(atoiPrefix(argv[2]) != 0)
		w.OK()
	case sub == "replybuffer" && argc == 4:
		arg := string(argv[3])
		switch strings.ToLower(string(argv[2])) {
		case "peak-reset-time":
			switch {
			case strings.EqualFold(arg, "never"):
				s.rbufs.peakReset.Store(-1)
			case strings.EqualFold(arg, "reset"):
				s.rbufs.peakReset.Store(replyPeakResetDefault)
			default:
				n, ok := db.ParseInt(argv[3])
				if !ok {
					w.Error(db.ErrNotInt)
					return
				}
				s.rbufs.peakReset.Store(n)
			}
		case "resizing":
			s.rbufs.off.Store(atoiPrefix(argv[3]) == 0)
		default:
			c.subcommandSyntaxError()
			return
		}
		w.OK()
	case sub == "htstats" && argc >= 3:
		debugHTStats(c)
	case sub == "htstats-key" && argc >= 3:
		debugHTStatsKey(c)
	case sub == "jmap":
		w.Error("ERR DEBUG JMAP is not supported")
	default:
		c.subcommandSyntaxError()
	}
}

var debugHelp = []string{
	"CHANGE-REPL-ID",
	"    Give the instance new replication ids (for replication tests only).",
	"DIGEST",
	"    Reply with a hex signature of the whole dataset (all zeros when empty).",
	"DIGEST-VALUE <key> [<key> ...]",
	"    Reply with a hex signature of the value of each key.",
	"ERROR <string>",
	"    Reply with <string> as an error (for client tests).",
	"LISTPACK <key>",
	"    Dump the listpack behind <key> to the server's standard output.",
	"LOG <message>",
	"    Write <message> to the server log.",
	"OBJECT <key> [fast]",
	"    Reply with low level facts about the value at <key>.",
	"POPULATE <count> [<prefix>] [<size>]",
	"    Create <count> string keys <prefix>:<n> (prefix 'key') that do not exist yet.",
	"HTSTATS <dbid> [full]",
	"    Reply with the sizes of the key and TTL tables of database <dbid>.",
	"HTSTATS-KEY <key> [full]",
	"    Reply with the sizes of the hash table behind the value at <key>.",
	"PAUSE-CRON <0|1>",
	"    Stop (1) or resume (0) the periodic jobs: active expiry, save points, replication cron.",
	"PROTOCOL <type>",
	"    Reply with a sample value of a RESP type: string, integer, double, bignum,",
	"    null, array, set, map, attrib, push, verbatim, true or false.",
	"QUICKLIST <key> [<0|1>]",
	"    Dump the quicklist behind <key> to the server's standard output.",
	"QUICKLIST-PACKED-THRESHOLD <size>",
	"    Set the size above which list elements are stored as plain nodes (0: default).",
	"REPLYBUFFER PEAK-RESET-TIME <NEVER|RESET|milliseconds>",
	"    Set how often a client's reply buffer peak is forgotten (RESET: 5000 ms).",
	"REPLYBUFFER RESIZING <0|1>",
	"    Switch the resizing of clients' reply buffers off (0) or on (1).",
	"SET-ACTIVE-EXPIRE <0|1>",
	"    Switch the background expiry of keys off (0) or on (1).",
	"SET-DISABLE-DENY-SCRIPTS <0|1>",
	"    Let scripts call commands they may not call otherwise (1), for tests.",
	"SLEEP <seconds>",
	"    Stall the keyspace for <seconds> (decimals allowed).",
	"STRINGMATCH-LEN",
	"    Fuzz the glob matcher; reply if nothing broke.",
}

// debugSleep stalls for secs seconds with every stripe held, so that data
// commands from all clients wait, which is what tests use DEBUG SLEEP for
// (Valkey's single thread simply sleeps). Valkey converts secs to whole
// microseconds in a long long: a value that does not fit (1e13, 1e308,
// inf) or is not positive (nan, -1, junk) does not sleep at all, and
// neither does Corvid. A sleep that does fit can still be centuries long
// (an operator's typo), so it ends early when the server shuts down
// (SIGTERM, SHUTDOWN) or the sleeping client is killed: it never wedges
// shutdown while it holds the stripes.
func debugSleep(c *Client, secs float64) {
	if d, ok := debugSleepDuration(secs); ok {
		c.withAllKeys(func() {
			t := time.NewTimer(d)
			defer t.Stop()
			select {
			case <-t.C:
			case <-c.srv.stop:
			case <-c.srv.leaving:
			case <-c.unblockCh():
			}
		})
	}
	c.w.OK()
}

// debugSleepDuration is Valkey's `(long long)(secs * 1000000)`
// microseconds, with the conversions C leaves undefined refused: ok is
// false when there is nothing to sleep.
func debugSleepDuration(secs float64) (time.Duration, bool) {
	us := secs * 1e6
	if !(us >= 1 && us < 1<<63) { // also false for NaN
		return 0, false
	}
	us = math.Trunc(us)
	if us >= float64(math.MaxInt64/int64(time.Microsecond)) {
		return math.MaxInt64, true // ~292 years: ends with the server
	}
	return time.Duration(us) * time.Microsecond, true
}

// debugProtocol replies with Valkey's sample value of each RESP type; the
// writer supplies the RESP2 fallbacks.
func debugProtocol(c *Client, name []byte) {
	w := c.w
	switch strings.ToLower(string(name)) {
	case "string":
		w.BulkString("Hello World")
	case "integer":
		w.Int(12345)
	case "double":
		w.Double(3.141)
	case "bignum":
		w.BigNumber("1234567999999999999999999999999999999")
	case "null":
		w.Null()
	case "array":
		w.ArrayLen(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case "set":
		w.SetLen(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
		}
	case "map":
		w.MapLen(3)
		for j := int64(0); j < 3; j++ {
			w.Int(j)
			w.Bool(j == 1)
		}
	case "attrib":
		if w.Proto >= 3 {
			w.AttrLen(1)
			w.BulkString("key-popularity")
			w.ArrayLen(2)
			w.BulkString("key:123")
			w.Int(90)
		}
		// An attribute only decorates the reply that follows it.
		w.BulkString("Some real reply following the attribute")
	case "push":
		if w.Proto < 3 {
			w.Error("ERR RESP2 is not supported by this command")
			return
		}
		w.PushLen(2)
		w.BulkString("server-cpu-usage")
		w.Int(42)
		// Pushes are out of band; a normal reply follows for the caller.
		w.BulkString("Some real reply following the push reply")
	case "true":
		w.Bool(true)
	case "false":
		w.Bool(false)
	case "verbatim":
		w.Verbatim("txt", "This is a verbatim\nstring")
	default:
		w.Error("ERR Wrong protocol type name. Please use one of the following: " +
			"string|integer|double|bignum|null|array|set|map|attrib|push|verbatim|true|false")
	}
}

// Optional interfaces a collection value (db.Object.Value()) may implement so
// DEBUG can describe it the way Valkey does. Values that do not are
// reported with what the generic code knows.
type (
	// debugDigester calls fn once per element with the element's parts:
	// list: the element (in order); set: the member; hash: field, value;
	// zset: member, score in reply format; stream: id, then fields and
	// values.
	debugDigester interface {
		DigestElements(fn func(parts ...[]byte))
	}
	// debugDescriber adds encoding details to DEBUG OBJECT (" ql_nodes:3 ...").
	debugDescriber interface{ DebugObjectExtra(fast bool) string }
	// debugDumper prints the encoding's internal layout (DEBUG LISTPACK).
	debugDumper interface{ DebugDump() string }
)

// xorDigest and mixDigest are Valkey's digest primitives: xor adds an
// unordered element, mix folds an ordered one into the running digest.
func xorDigest(d *[20]byte, p []byte) {
	h := sha1.Sum(p)
	for i := range d {
		d[i] ^= h[i]
	}
}

func mixDigest(d *[20]byte, p []byte) {
	xorDigest(d, p)
	*d = sha1.Sum(d[:])
}

// valkeyTypeCode is the OBJ_* number Valkey mixes into a value's digest.
func valkeyTypeCode(t db.Type) uint32 {
	switch t {
	case db.TypeString:
		return 0
	case db.TypeList:
		return 1
	case db.TypeSet:
		return 2
	case db.TypeZSet:
		return 3
	case db.TypeHash:
		return 4
	case db.TypeStream:
		return 6
	}
	return 5 // OBJ_MODULE
}

// xorObjectDigest ports Valkey's function of that name.
func xorObjectDigest(d *[20]byte, o *db.Object) {
	var aux [4]byte
	binary.BigEndian.PutUint32(aux[:], valkeyTypeCode(o.Type))
	mixDigest(d, aux[:])
	if o.Type == db.TypeString {
		mixDigest(d, o.Str())
	} else if dg, ok := o.Value().(debugDigester); ok {
		dg.DigestElements(func(parts ...[]byte) {
			switch o.Type {
			case db.TypeList, db.TypeStream:
				for _, p := range parts {
					mixDigest(d, p)
				}
			case db.TypeSet:
				for _, p := range parts {
					xorDigest(d, p)
				}
			default: // hash, zset: each pair hashed on its own, then xored
				var ele [20]byte
				for _, p := range parts {
					mixDigest(&ele, p)
				}
				xorDigest(d, ele[:])
			}
		})
	}
	if o.HasTTL() {
		xorDigest(d, []byte("!!expire!!"))
	}
}

// datasetDigest is computeDatasetDigest: per database (mixing its index),
// the xor of every key's SHA1(key) mixed with its value digest. Keys whose
// TTL passed but that were not collected yet are included, as in Valkey.
func (c *Client) datasetDigest() [20]byte {
	var final [20]byte
	ks := c.srv.ks
	unlock := c.lockAllKeys()
	defer unlock()
	for dbi := 0; dbi < ks.Databases(); dbi++ {
		if ks.DBSize(dbi, true) == 0 {
			continue
		}
		var aux [4]byte
		binary.BigEndian.PutUint32(aux[:], uint32(dbi))
		mixDigest(&final, aux[:])
		ks.Keys(dbi, math.MinInt64, func(key string, o *db.Object) {
			var d [20]byte
			mixDigest(&d, []byte(key))
			xorObjectDigest(&d, o)
			xorDigest(&final, d[:])
		})
	}
	return final
}

// DEBUG DIGEST-VALUE key [key ...]: one digest per key, zeros if missing.
func debugDigestValue(c *Client) {
	keys := c.ctx.Argv[2:]
	c.w.ArrayLen(len(keys))
	for _, k := range keys {
		var d [20]byte
		c.withKey(k, func() {
			if o := c.ctx.LookupDB(c.ctx.DB, k); o != nil {
				xorObjectDigest(&d, o)
			}
		})
		c.w.Simple(hex.EncodeToString(d[:]))
	}
}

// DEBUG OBJECT key [fast]
func debugObject(c *Client) {
	argv := c.ctx.Argv
	fast := len(argv) == 4 && db.EqualFold(argv[3], "fast")
	key := argv[2]
	unlock := c.lockKey(key)
	defer unlock()
	o := c.ctx.FindDB(c.ctx.DB, key) // an expired key is reported, not expired
	if o == nil {
		c.w.Error(db.ErrNoSuchKey)
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Value at:%p refcount:%d encoding:%s", o, objectRefcount(o), db.ObjectEncoding(o))
	if !fast {
		fmt.Fprintf(&b, " serializedlength:%d", c.serializedLen(key, o))
	}
	// Either pair is meaningful, depending on maxmemory-policy; Valkey 8
	// prints both (Redis 7.0 has no lfu_* fields).
	fmt.Fprintf(&b, " lru:%d lru_seconds_idle:%d", o.LRU, db.IdleSeconds(o.LRU))
	fmt.Fprintf(&b, " lfu_freq:%d lfu_access_time_minutes:%d", c.ctx.KS.LFUDecr(o.LRU), o.LRU>>8)
	if d, ok := o.Value().(debugDescriber); ok {
		b.WriteString(d.DebugObjectExtra(fast))
	}
	c.w.Simple(b.String())
}

// debugLookup finds DEBUG's key argument (argv[2]) with its stripe locked
// until unlock; when the key is missing it answers the error and o is nil.
func debugLookup(c *Client) (o *db.Object, unlock func()) {
	key := c.ctx.Argv[2]
	unlock = c.lockKey(key)
	if o = c.ctx.LookupDB(c.ctx.DB, key); o == nil {
		c.w.Error(db.ErrNoSuchKey)
	}
	return o, unlock
}

// debugEncodingDump implements DEBUG LISTPACK / QUICKLIST: the layout goes
// to standard output, the reply only confirms.
func debugEncodingDump(c *Client, enc, wrongMsg, okMsg string) {
	o, unlock := debugLookup(c)
	defer unlock()
	if o == nil {
		return
	}
	if db.ObjectEncoding(o) != enc {
		c.w.Error("ERR " + wrongMsg)
		return
	}
	if d, ok := o.Value().(debugDumper); ok {
		fmt.Println(d.DebugDump())
	}
	c.w.Simple(okMsg)
}

// DEBUG POPULATE count [prefix] [size]: create prefix:N = value:N for
// every N below count that does not exist yet (padded or cut to size).
func debugPopulate(c *Client) {
	argv := c.ctx.Argv
	// getPositiveLongFromObjectOrReply: one message for both failures.
	count, ok := db.ParseInt(argv[2])
	if !ok || count < 0 {
		c.w.Error(db.ErrNotPositive)
		return
	}
	prefix := "key"
	if len(argv) >= 4 {
		prefix = string(argv[3])
	}
	size := int64(0)
	if len(argv) == 5 {
		n, ok := db.ParseInt(argv[4])
		if !ok || n < 0 {
			c.w.Error(db.ErrNotPositive)
			return
		}
		size = n
	}
	ctx := &c.ctx
	dirty := ctx.Dirty
	// One scratch buffer for every value: SetString copies it. A fresh
	// buffer per key would leave a garbage object of the value's size
	// class between every two live values, and after the collector ran,
	// spans half full of holes (RSS 1.25x used_memory at 10^6 128-byte
	// values, which bench/keyspace-scaling.sh then reported).
	var kb, vb []byte
	var sized []byte
	if size > 0 {
		sized = make([]byte, size)
	}
	// Size the dicts first, as Valkey's dbExpand: filling 10^7 keys one
	// by one otherwise rehashes every table on the way up (a fifth of the
	// CPU of such a fill, and twice Redis's time for it). Expand needs
	// every stripe; inside EXEC they are held already.
	c.withAllKeys(func() { c.srv.ks.Expand(ctx.DB, count) })
	for j := int64(0); j < count; j++ {
		kb = strconv.AppendInt(append(append(kb[:0], prefix...), ':'), j, 10)
		vb = strconv.AppendInt(append(vb[:0], "value:"...), j, 10)
		val := vb
		if size > 0 {
			clear(sized)
			copy(sized, vb)
			val = sized
		}
		c.withKey(kb, func() {
			if ctx.LookupDB(ctx.DB, kb) == nil {
				ctx.SetString(kb, val, false)
				ctx.Touch(kb) // invalidates WATCH, as signalModifiedKey does
			}
		})
	}
	ctx.Dirty = dirty // Valkey's POPULATE does not count as changes
	c.w.OK()
}

// objectRefcount mirrors OBJECT REFCOUNT: shared small integers report
// INT_MAX, everything else 1.
func objectRefcount(o *db.Object) int64 {
	if o.Type == db.TypeString && o.StrEncoding() == "int" && len(o.Str()) <= 4 && o.Str()[0] != '-' {
		return 1<<31 - 1
	}
	return 1
}

// serializedLen is rdbSavedObjectLen: the size of the value as the RDB
// writer stores it (compressed as rdbcompression says), which is a DUMP
// payload without its type byte and its 10-byte footer.
func (c *Client) serializedLen(key []byte, o *db.Object) int64 {
	var e rdb.Entry
	ks := c.srv.ks
	ks.ExportEntry(c.ctx.DB, key, o, &e)
	p, err := rdb.DumpPayload(&e, ks.RDBOptions())
	if err != nil {
		return 0
	}
	return int64(len(p) - 11)
}

// memToBytes parses Valkey's memory values: digits with an optional
// b, k, kb, m, mb, g or gb suffix (k = 1000, kb = 1024).
func memToBytes(s string) (uint64, bool) {
	units := []struct {
		suffix string
		mul    uint64
	}{{"gb", 1 << 30}, {"mb", 1 << 20}, {"kb", 1 << 10}, {"g", 1e9}, {"m", 1e6}, {"k", 1e3}, {"b", 1}}
	lower := strings.ToLower(s)
	mul := uint64(1)
	for _, u := range units {
		if strings.HasSuffix(lower, u.suffix) {
			lower, mul = lower[:len(lower)-len(u.suffix)], u.mul
			break
		}
	}
	n, err := strconv.ParseUint(lower, 10, 64)
	if err != nil || (mul > 1 && n > math.MaxUint64/mul) {
		return 0, false
	}
	return n * mul, true
}

// strtodPrefix parses the longest numeric prefix like C's strtod, 0 when
// there is none (DEBUG SLEEP does not validate its argument).
func strtodPrefix(s string) float64 {
	s = strings.TrimLeft(s, " \t")
	for end := len(s); end > 0; end-- {
		if f, err := strconv.ParseFloat(s[:end], 64); err == nil {
			return f
		}
	}
	return 0
}

// atoiPrefix is C's atoi.
func atoiPrefix(b []byte) int64 {
	i, neg := 0, false
	for i < len(b) && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var n int64
	for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		n = n*10 + int64(b[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// globFuzz runs the glob matcher over random patterns and strings, as
// Valkey's stringmatchlen_fuzz_test does; a bug shows as a panic.
func globFuzz(rounds int) {
	const alphabet = "ab*?[]^-\\xyz"
	rnd := func(n int) string {
		b := make([]byte, rand.IntN(n))
		for i := range b {
			b[i] = alphabet[rand.IntN(len(alphabet))]
		}
		return string(b)
	}
	for i := 0; i < rounds; i++ {
		command.Glob(rnd(32), rnd(32), i%2 == 0)
	}
}

// tableStatsText renders table sizes as Valkey's dictGetStats does in its
// short form (Corvid's tables have no chains to describe, so "full" adds
// nothing): the main table, then the rehashing target if there is one.
func tableStatsText(b *strings.Builder, mainSlots, mainUsed, targetSlots, targetUsed int) {
	one := func(i int, name string, slots, used int) {
		fmt.Fprintf(b, "Hash table %d stats (%s):\n", i, name)
		if used == 0 {
			b.WriteString("No stats available for empty dictionaries\n")
			return
		}
		fmt.Fprintf(b, " table size: %d\n number of elements: %d\n", slots, used)
	}
	one(0, "main hash table", mainSlots, mainUsed)
	if targetSlots > 0 {
		one(1, "rehashing target", targetSlots, targetUsed)
	}
}

// DEBUG HTSTATS dbid [full]: the key and TTL tables of a database, summed
// over the stripes (each stripe has its own pair).
func debugHTStats(c *Client) {
	argv := c.ctx.Argv
	dbid, ok := db.ParseInt(argv[2])
	if !ok {
		c.w.Error(db.ErrNotInt)
		return
	}
	if dbid < 0 || dbid >= int64(c.srv.cfg.Databases()) {
		c.w.Error("ERR Out of range database")
		return
	}
	var b strings.Builder
	ks := c.srv.ks
	for _, part := range []struct {
		title   string
		expires bool
	}{{"[Dictionary HT]\n", false}, {"[Expires HT]\n", true}} {
		b.WriteString(part.title)
		ms, mu, ts, tu := ks.TableStats(int(dbid), part.expires, c.ctx.Locked)
		if mu+tu > 0 {
			tableStatsText(&b, ms, mu, ts, tu)
		}
	}
	c.w.Verbatim("txt", b.String())
}

// DEBUG HTSTATS-KEY key [full]: the member table of a set, hash or sorted
// set in its hashtable or skiplist encoding.
func debugHTStatsKey(c *Client) {
	o, unlock := debugLookup(c)
	defer unlock()
	if o == nil {
		return
	}
	t, ok := o.Value().(interface {
		TableStats() (mainSlots, mainUsed, targetSlots, targetUsed int)
	})
	if !ok {
		c.w.Error("ERR The value stored at the specified key is not represented using an hash table")
		return
	}
	var b strings.Builder
	ms, mu, ts, tu := t.TableStats()
	tableStatsText(&b, ms, mu, ts, tu)
	c.w.Verbatim("txt", b.String())
}
