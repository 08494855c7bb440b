package db

// sharedIntegers is Valkey's OBJ_SHARED_INTEGERS: SET stores integer
// strings 0..9999 as references to preallocated shared objects.
const sharedIntegers = 10000

// sharedRefcount is OBJ_SHARED_REFCOUNT (INT_MAX), what OBJECT REFCOUNT
// shows for a shared object.
const sharedRefcount = 1<<31 - 1

// The OBJECT subcommands look keys up without touching the access clock, so
// inspecting a key does not change its idle time or frequency. They still
// count keyspace hits/misses, as Valkey's objectCommandLookup does, but do
// not announce a miss.

// OBJECT ENCODING key
func objectEncodingCommand(c *Ctx) {
	o := c.peekQuiet(c.Argv[2])
	if o == nil {
		c.W.Null()
		return
	}
	c.W.BulkString(ObjectEncoding(o))
}

// ObjectEncoding is what OBJECT ENCODING reports for o: "unknown" for an
// encoding it cannot name, as Valkey's strEncoding says.
func ObjectEncoding(o *Object) string {
	var e string
	switch o.Type {
	case TypeString:
		e = o.StrEncoding()
	case TypeList:
		e = listEncoding(listOf(o))
	case TypeHash:
		e = hashEncoding(o.Value())
	case TypeSet:
		e = setEncoding(o)
	case TypeZSet:
		e = zsetEncoding(o)
	case TypeStream:
		e = "stream"
	}
	if e == "" {
		return "unknown"
	}
	return e
}

// OBJECT FREQ key
func objectFreqCommand(c *Ctx) {
	o := c.peekQuiet(c.Argv[2])
	if o == nil {
		c.W.Null()
		return
	}
	if !c.KS.lfu() {
		c.W.Error("ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	// Decay is applied on read, as LFUDecrAndReturn: the stored counter is
	// only refreshed when the key is accessed.
	c.W.Int(int64(c.KS.lfuDecrAt(o.LRU, c.Now)))
}

// OBJECT IDLETIME key
func objectIdletimeCommand(c *Ctx) {
	o := c.peekQuiet(c.Argv[2])
	if o == nil {
		c.W.Null()
		return
	}
	if c.KS.lfu() {
		c.W.Error("ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when switching between policies at runtime LRU and LFU data will take some time to adjust.")
		return
	}
	c.W.Int(IdleSeconds(o.LRU))
}

// OBJECT REFCOUNT key
//
// Values are never shared between keys here, so the count is 1, except for
// the small integers that Valkey stores as shared objects: for those it
// reports INT_MAX and so do we (INCR results included). Valkey stops
// sharing when maxmemory is set with an LRU or LFU policy; that case reads
// INT_MAX here and 1 there.
func objectRefcountCommand(c *Ctx) {
	o := c.peekQuiet(c.Argv[2])
	if o == nil {
		c.W.Null()
		return
	}
	if o.Type == TypeString && isSharedInt(o.Str()) {
		c.W.Int(sharedRefcount)
		return
	}
	c.W.Int(1)
}

// isSharedInt reports whether b is the canonical form of 0..9999.
func isSharedInt(b []byte) bool {
	if len(b) == 0 || len(b) > 4 || !isCanonicalInt(b) || b[0] == '-' {
		return false
	}
	n, ok := ParseInt(b)
	return ok && n >= 0 && n < sharedIntegers
}

// objectHelp is OBJECT HELP's body; the header and the HELP footer are
// added by objectHelpCommand, as Valkey's addReplyHelp does.
var objectHelp = []string{
	"ENCODING <key>",
	"    Return the kind of internal representation used in order to store the value",
	"    associated with a <key>.",
	"FREQ <key>",
	"    Return the access frequency index of the <key>. The returned integer is",
	"    proportional to the logarithm of the recent access frequency of the key.",
	"IDLETIME <key>",
	"    Return the idle time of the <key>, that is the approximated number of",
	"    seconds elapsed since the last access to the key.",
	"REFCOUNT <key>",
	"    Return the number of references of the value associated with the specified",
	"    <key>.",
}

// OBJECT HELP
func objectHelpCommand(c *Ctx) { writeHelp(c, "OBJECT", objectHelp) }

// writeHelp writes a subcommand HELP reply in addReplyHelp's layout.
// Valkey 8 ends with "Print this help."; Redis 7.0 said "Prints".
func writeHelp(c *Ctx, cmd string, lines []string) {
	c.W.ArrayLen(len(lines) + 3)
	c.W.Simple(cmd + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:")
	for _, l := range lines {
		c.W.Simple(l)
	}
	c.W.Simple("HELP")
	c.W.Simple("    Print this help.")
}
