package cmdfuzz

import (
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/corvid-kv/corvid/internal/command"
)

// skipped lists the commands (full names, as command.Meta.FullName) the
// fuzzer never sends, each with the reason: they would end the experiment
// (stop the server, change the connection's mode so that replies no
// longer follow requests one to one, close or silence the connection,
// reach outside loopback) or lock every later command out on the
// reference server. A command found here after mutation is regenerated.
var skipped = map[string]string{
	"shutdown":     "stops the server",
	"monitor":      "turns the connection into a MONITOR stream",
	"subscribe":    "turns the connection into a subscriber",
	"psubscribe":   "turns the connection into a subscriber",
	"ssubscribe":   "turns the connection into a subscriber",
	"quit":         "closes the connection",
	"reset":        "resets the connection (protocol, db, name) behind the fuzzer's back",
	"failover":     "replication role change",
	"replicaof":    "replication role change; connects to a random host",
	"slaveof":      "replication role change; connects to a random host",
	"sync":         "turns the connection into a replication stream",
	"psync":        "turns the connection into a replication stream",
	"replconf":     "replication handshake: marks the client as a replica",
	"migrate":      "connects to a random host (not loopback-only)",
	"client|kill":  "could kill the fuzzer's own connection",
	"client|pause": "pauses every client for up to the fuzzed timeout",
	"client|tracking": "sends unsolicited invalidation messages (RESP3 push) " +
		"that break the one-reply-per-request lockstep",
	"script|debug": "YES and SYNC turn the connection into a Lua debugging session " +
		"(Corvid has no debugger and refuses them: docs/compatibility.md)",
	"pfselftest":  "takes seconds on the reference server and tests nothing of Corvid's",
	"acl|setuser": "could disable or restrict the default user on the reference server",
	"acl|deluser": "could delete users the reference server needs",
	"acl|load":    "reloads users from a file",
	"save": "whether a background save is still running is timing: Valkey's forked child " +
		"and Corvid's snapshot end at different moments (tests/integration/persist_test.go tests them)",
	"bgsave":       "as save",
	"bgrewriteaof": "as save (tests/integration/aofrun_test.go tests it, with appendonly yes and no)",
}

// skippedName reports whether argv would run a skipped command, as the
// server resolves it (so a mutated subcommand name is caught), or is one
// of the two HTTP-looking names both servers drop the connection for.
func skippedName(argv []string) bool {
	if len(argv) == 0 {
		return true
	}
	switch strings.ToLower(argv[0]) {
	case "post", "host:":
		return true
	}
	bs := make([][]byte, len(argv))
	for i, a := range argv {
		bs[i] = []byte(a)
	}
	m := command.Resolve(bs)
	if m == nil {
		return false
	}
	_, skip := skipped[m.FullName]
	return skip
}

// safeConfig lists the directives CONFIG SET may change, with Valkey
// 8.0.1's defaults, which every batch restores. None of them can stop
// the server, close or silence a connection, persist anything, or limit
// memory: that excludes port, bind, dir, dbfilename, save, appendonly,
// requirepass, maxmemory, maxclients, timeout, proto-max-bulk-len,
// client-query-buffer-limit, notify-keyspace-events (pushes), and the
// rest of the config table. latency-monitor-threshold is left out too:
// with it on, whether LATENCY GRAPH has samples (or answers "No samples
// available") depends on how long commands took on each server.
var safeConfig = []struct{ name, def string }{
	{"hash-max-listpack-entries", "128"},
	{"hash-max-listpack-value", "64"},
	{"set-max-intset-entries", "512"},
	{"set-max-listpack-entries", "128"},
	{"set-max-listpack-value", "64"},
	{"zset-max-listpack-entries", "128"},
	{"zset-max-listpack-value", "64"},
	{"list-max-listpack-size", "-2"},
	{"list-compress-depth", "0"},
	{"slowlog-log-slower-than", "10000"},
	{"slowlog-max-len", "128"},
	{"maxmemory-policy", "noeviction"},
	{"maxmemory-samples", "5"},
	{"lfu-log-factor", "10"},
	{"lfu-decay-time", "1"},
	{"activerehashing", "yes"},
	{"active-expire-effort", "1"},
	{"hz", "10"},
	{"lazyfree-lazy-user-del", "no"},
	{"lazyfree-lazy-user-flush", "no"},
}

// junkConfig are names CONFIG SET must refuse on both servers: unknown
// directives and immutable ones (whose refusal text is compared too).
var junkConfig = []string{
	"nosuch-directive", "", "HZZ", "daemonize", "databases",
	"enable-debug-command", "io-threads", "cluster-enabled", "unixsocket",
}

// configName picks a parameter for CONFIG SET: a safe directive (any
// letter case) or a refused one.
func configName(r *rand.Rand, safe []string) string {
	if r.IntN(5) == 0 || len(safe) == 0 {
		return junkConfig[r.IntN(len(junkConfig))]
	}
	n := safe[r.IntN(len(safe))]
	if r.IntN(10) == 0 {
		n = strings.ToUpper(n)
	}
	return n
}

// isSafeConfigName reports whether CONFIG SET may be sent name.
func isSafeConfigName(name string, safe []string) bool {
	for _, s := range safe {
		if strings.EqualFold(s, name) {
			return true
		}
	}
	for _, s := range junkConfig {
		if s == name {
			return true
		}
	}
	return false
}

// blockingTimeouts are the timeouts a blocking command may carry outside
// MULTI: each makes the command return within milliseconds or be refused
// ("timeout is negative", "not a float", "out of range"). Zero (block
// forever), small positive seconds and hex ("0x10" is 16 s to strtold)
// are kept for MULTI, where nothing blocks.
var blockingTimeouts = []string{
	"0.01", "0.01", "0.01", "0.001", "0.002", "-1", "-0.01", "nan", "inf", "-inf",
	"+inf", "1e308", "-1e308", "9223372036854775807", "-9223372036854775808",
	"9223372036854775808", "abc", "", " 1", "1e400",
}

// blockingMillis are the millisecond timeouts for WAIT, WAITAOF and
// XREAD/XREADGROUP BLOCK outside MULTI, chosen the same way.
var blockingMillis = []string{
	"10", "10", "1", "2", "-1", "abc", "", "9223372036854775807",
	"-9223372036854775808", "9223372036854775808", "1.5",
}

// guard rewrites argv where it would exhaust the machine or stall the
// lockstep on any server: a blocking command's timeout, a random-count
// with repetition of billions of elements, an offset that allocates half
// a gigabyte, a CONFIG SET of a directive outside the safe list, CLIENT
// REPLY OFF|SKIP. inMulti relaxes the blocking rules (nothing blocks in
// a transaction). The rewrite looks at argv as the server will parse it,
// after mutation, so a moved argument is caught too.
func guard(r *rand.Rand, argv []string, inMulti bool, safe []string) []string {
	if len(argv) == 0 {
		return argv
	}
	name := strings.ToLower(argv[0])
	pick := func(pool []string) string { return pool[r.IntN(len(pool))] }
	switch name {
	case "blpop", "brpop", "bzpopmin", "bzpopmax":
		if !inMulti && len(argv) >= 2 && !oneOf(argv[len(argv)-1], blockingTimeouts) {
			argv[len(argv)-1] = pick(blockingTimeouts)
		}
	case "blmove":
		if !inMulti && len(argv) >= 6 && !oneOf(argv[5], blockingTimeouts) {
			argv[5] = pick(blockingTimeouts)
		}
	case "brpoplpush":
		if !inMulti && len(argv) >= 4 && !oneOf(argv[3], blockingTimeouts) {
			argv[3] = pick(blockingTimeouts)
		}
	case "blmpop", "bzmpop":
		if !inMulti && len(argv) >= 2 && !oneOf(argv[1], blockingTimeouts) {
			argv[1] = pick(blockingTimeouts)
		}
	case "wait":
		if !inMulti && len(argv) >= 3 && !oneOf(argv[2], blockingMillis) {
			argv[2] = pick(blockingMillis)
		}
	case "waitaof":
		if !inMulti && len(argv) >= 4 && !oneOf(argv[3], blockingMillis) {
			argv[3] = pick(blockingMillis)
		}
	case "xread", "xreadgroup":
		for i := 1; i+1 < len(argv); i++ {
			if strings.EqualFold(argv[i], "BLOCK") && !inMulti && !oneOf(argv[i+1], blockingMillis) {
				argv[i+1] = pick(blockingMillis)
			}
		}
	case "srandmember", "hrandfield", "zrandmember":
		// A negative count asks for that many elements with repetition:
		// -2^63+1 would have the server write forever. Keep the
		// refused -2^63 and modest counts.
		if len(argv) >= 3 {
			if n, err := strconv.ParseInt(strings.TrimSpace(argv[2]), 10, 64); err == nil && n < -1000 && n != -1<<63 {
				argv[2] = pick([]string{"-9223372036854775808", "-1000", "-9223372036854775807"})
				if argv[2] == "-9223372036854775807" && !(name != "srandmember" && len(argv) >= 4) {
					// Only refused with WITHVALUES/WITHSCORES (<-LONG_MAX/2).
					argv[2] = "-1000"
				}
			}
		}
	case "setbit", "setrange", "bitfield":
		// Offsets up to 2^32 bits (512 MB) are valid and allocate that
		// much on every server; keep them one time in a hundred.
		for i := 2; i < len(argv); i++ {
			if bigOffset(argv[i], name == "bitfield") && r.IntN(100) != 0 {
				argv[i] = pick([]string{"4294967296", "16777215", "-1", "4294967295000"})
			}
		}
	case "config":
		if len(argv) >= 2 && strings.EqualFold(argv[1], "set") {
			for i := 2; i < len(argv); i += 2 {
				if !isSafeConfigName(argv[i], safe) {
					argv[i] = configName(r, safe)
				}
			}
		}
	case "client":
		if len(argv) >= 3 && strings.EqualFold(argv[1], "reply") {
			for i := 2; i < len(argv); i++ {
				if strings.EqualFold(argv[i], "off") || strings.EqualFold(argv[i], "skip") {
					argv[i] = "ON"
				}
			}
		}
	}
	return argv
}

// bigOffset reports whether s is an offset (in bits or bytes, '#'-scaled
// for BITFIELD) large enough to allocate more than a few megabytes, but
// not so large that every server refuses it.
func bigOffset(s string, hash bool) bool {
	t := strings.TrimSpace(s)
	scaled := false
	if hash && strings.HasPrefix(t, "#") {
		t, scaled = t[1:], true
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(t, "+"), 0, 64)
	if err != nil {
		if f, ferr := strconv.ParseFloat(t, 64); ferr == nil && f >= 1<<24 && f < 1<<36 {
			return true
		}
		return false
	}
	if scaled {
		return n >= 1<<18 && n < 1<<33
	}
	return n >= 1<<24 && n < 1<<36
}

func oneOf(s string, pool []string) bool {
	for _, p := range pool {
		if s == p {
			return true
		}
	}
	return false
}
