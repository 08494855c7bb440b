package compat

// The two lists of differences the scripts (testdata/*.txt) allow. A key
// is a script line exactly as written (a line whose reply differs only in
// one place of a script is written in a distinct letter case there); a
// value is a reply in the canonical form of testutil.Raw.

// corvidDifferences lists the script lines where Corvid intentionally
// answers otherwise than Valkey 8.0.1, its reference; the value is
// Corvid's reply. TestScripts compares every other line byte for byte.
// Each entry says why: a Valkey bug Corvid does not copy, listed in
// docs/compatibility.md too. random_test.go's knownDifference tolerates
// the same ones in random sequences (or the generator avoids them).
var corvidDifferences = map[string]string{
	// lists.txt, LSET with an index beyond 32 bits. Valkey 8.0.1 passes
	// the index to listTypeReplaceAtIndex as an int, so it wraps and sets
	// element 0 or the last one (LINDEX, with a long, finds nothing);
	// Corvid answers "index out of range", as Redis 7.0 does. The script
	// sets both ends back before it compares the list again.
	"LSET l 4294967296 x":           "-ERR index out of range",
	"LSET l 9223372036854775807 x":  "-ERR index out of range",
	"LSET l -9223372036854775808 x": "-ERR index out of range",
	// zsets.txt, a negative LIMIT offset of a score or member range on a
	// skiplist. Valkey 8.0.1 (Redis 7.2's zslNthInRange, redis/redis#12450)
	// counts it from the other end of the range and answers elements,
	// where on a listpack it answers none; Redis fixed it to none on every
	// encoding (redis/redis#13952, #14043), as Redis 7.0 and Corvid answer.
	// ZRANGESTORE so stores nothing, and deletes its destination.
	"ZRANGE negsk -inf +inf BYSCORE LIMIT -1 2":             "*[]",
	"ZRANGE negsk +inf -inf BYSCORE REV LIMIT -2 10":        "*[]",
	"ZRANGEBYSCORE negsk 2 4 LIMIT -1 1":                    "*[]",
	"ZREVRANGEBYSCORE negsk 4 2 WITHSCORES LIMIT -1 1":      "*[]",
	"ZRANGESTORE negdst negsk -inf +inf BYSCORE LIMIT -1 2": ":0",
	"EXISTS negdst":                              ":0",
	"ZRANGEBYLEX neglx - + LIMIT -2 10":          "*[]",
	"ZREVRANGEBYLEX neglx + - LIMIT -1 1":        "*[]",
	"ZRANGE neglx [b + BYLEX LIMIT -1 5":         "*[]",
	"ZRANGE negsk -inf +inf BYSCORE LIMIT -1 -1": "*[]",
}

// redisDifferences lists the script lines where Redis 7.0.15 (Debian's
// redis-server, the server most users come from) answers otherwise than
// Valkey 8.0.1; the value is Redis's reply. TestScriptsRedis proves the
// list: Redis must give exactly this and Valkey something else, and on
// every other line the two must agree. Each entry says what changed.
var redisDifferences = map[string]string{
	// bitmaps.txt, BITCOUNT with a start and no end. Valkey 8.0 made the
	// end optional (it defaults to the last byte; bitcount.json history
	// "8.0.0"); Redis 7.0 answers a syntax error.
	"BITCOUNT f 1":  "-ERR syntax error",
	"BITCOUNT f -1": "-ERR syntax error",
	// bitmaps.txt, BITCOUNT/BITPOS argument errors. Since Redis 7.2 (so in
	// Valkey 8) the range arguments are parsed before the key is looked up,
	// so a missing key or a key of the wrong type no longer hides an
	// argument error (Redis 7.0 answered 0, -1/0 or WRONGTYPE first).
	// Valkey 8 also parses the BIT|BYTE unit before the end argument, so a
	// command wrong in both is a syntax error rather than "not an integer".
	"BITCOUNT missing a b":     ":0",
	"BITCOUNT missing 0 1 FOO": ":0",
	"BITCOUNT f 0 b FOO":       "-ERR value is not an integer or out of range",
	"BITCOUNT lst x":           "-WRONGTYPE Operation against a key holding the wrong kind of value",
	"BITPOS missing 0 a":       ":0",
	"BITPOS lst 1 0 1 BAD":     "-WRONGTYPE Operation against a key holding the wrong kind of value",
	// multi.txt, nested MULTI and WATCH inside MULTI. Valkey 8.0 gave MULTI
	// and WATCH the NO_MULTI command flag (valkey-io/valkey#723, see
	// ../shared/valkey-8.0.1-commands/multi.json and watch.json), so
	// processCommand rejects them with its generic text and flags the
	// transaction: the following EXEC aborts. Redis 7.0 answers from the
	// command itself ("ERR MULTI calls can not be nested", "ERR WATCH inside
	// MULTI is not allowed") and still executes the transaction. The script
	// writes these lines in a distinct letter case so that only they match.
	"multi":   "-ERR MULTI calls can not be nested",
	"Exec":    "*[+OK]",
	"GET n1":  `"v"`,
	"WATCH x": "-ERR WATCH inside MULTI is not allowed",
	"exec":    "*[+OK]",
	"GET w1":  `"v"`,
	// errors.txt, a one-element list made by LPUSH. Valkey 8 (from Redis
	// 7.2) encodes small lists as a listpack (list-max-listpack-size);
	// Redis 7.0 always reports quicklist.
	"OBJECT ENCODING list": `"quicklist"`,
	// hashes.txt, HSCAN NOVALUES (new in Valkey 8.0); Redis 7.0 answers a
	// syntax error. A negative cursor is "invalid cursor" in Valkey 8
	// (from Redis 7.2); Redis 7.0 took it as a huge unsigned one.
	"HSCAN s 0 NOVALUES":          "-ERR syntax error",
	"HSCAN s 0 MATCH n* NOVALUES": "-ERR syntax error",
	"HSCAN s -1":                  `*["0", *["name", "alice", "age", "30", "city", "paris", "nation", "fr"]]`,
	// sets.txt, ZSCAN's NOSCORES and HSCAN's NOVALUES (both new in Valkey
	// 8.0) are options SSCAN knows and refuses by name; Redis 7.0 only
	// answers a syntax error.
	"SSCAN sc 0 NOVALUES": "-ERR syntax error",
	"SSCAN sc 0 NOSCORES": "-ERR syntax error",
	// sets.txt, small sets of strings. Valkey 8 (since Redis 7.2) keeps a
	// set of at most set-max-listpack-entries members of at most
	// set-max-listpack-value bytes in a listpack; Redis 7.0 has no listpack
	// sets and reports hashtable. sp128 has exactly 128 members (the
	// limit) before a 129th makes it a hashtable in both.
	"OBJECT ENCODING w":     `"hashtable"`,
	"OBJECT ENCODING wi":    `"hashtable"`,
	"OBJECT ENCODING wu":    `"hashtable"`,
	"OBJECT ENCODING sp128": `"hashtable"`,
	// zsets.txt, ZRANK/ZREVRANK WITHSCORE (Valkey 8, from Redis 7.2): the
	// commands take an optional fourth argument, so a wrong one is a
	// syntax error rather than an arity error; without the member the
	// reply is a null array. RESP3 lines are lower case to keep the keys
	// unique.
	"ZRANK k a b":               "-ERR wrong number of arguments for 'zrank' command",
	"ZRANK k c WITHSCORE":       "-ERR wrong number of arguments for 'zrank' command",
	"ZREVRANK k c WITHSCORE":    "-ERR wrong number of arguments for 'zrevrank' command",
	"ZRANK k nosuch WITHSCORE":  "-ERR wrong number of arguments for 'zrank' command",
	"ZRANK missing a WITHSCORE": "-ERR wrong number of arguments for 'zrank' command",
	"zrank k c WITHSCORE":       "-ERR wrong number of arguments for 'zrank' command",
	// zsets.txt, ZSCAN NOSCORES (Valkey 8.0) and the NOVALUES word it
	// knows but refuses; Redis 7.0 answers a syntax error for both.
	"ZSCAN zs 0 NOSCORES": "-ERR syntax error",
	"ZSCAN zs 0 NOVALUES": "-ERR syntax error",
	// zsets.txt, score formatting. Valkey 8 replies doubles with d2string:
	// integers up to 2^62 in full, otherwise fpconv_dtoa's shortest
	// round-trip digits (plain up to 1e-7, then d.de-x without padding).
	// Redis 7.0 printed %.17g. A listpack also stores its scores with
	// d2string, which ZSCAN shows.
	"ZSCORE fmt a":        `"0.10000000000000001"`,
	"ZSCORE fmt b":        `"3.2999999999999998"`,
	"ZSCORE fmt c":        `"1e+17"`,
	"ZSCORE fmt e":        `"1.0000000000000001e-05"`,
	"ZSCORE fmt f":        `"1.4999999999999999e-07"`,
	"ZSCAN fmt 0 MATCH b": `*["0", *["b", "3.2999999999999998"]]`,
	// zsets.txt, ZADD announcing 129 pairs (all the same member) converts a
	// listpack zset to a skiplist before adding (zsetTypeMaybeConvert,
	// Redis 7.2+); Redis 7.0 converts only when the 129th member arrives.
	"OBJECT ENCODING hint": `"listpack"`,
	// connection.txt, READONLY/READWRITE with cluster mode off: Valkey 8.0
	// answers OK (the flag matters only to a cluster replica's routing);
	// Redis 7.0 refuses them as cluster commands.
	"READONLY":  "-ERR This instance has cluster support disabled",
	"READWRITE": "-ERR This instance has cluster support disabled",
}

// ignoredCommands are commands whose replies legitimately differ between
// any two servers (ids, the clock): their lines run but are not compared.
var ignoredCommands = map[string]bool{
	"CLIENT ID": true,
	"TIME":      true,
}
