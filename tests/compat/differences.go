package compat

// valkeyOverrides lists commands whose reply from Valkey 8.0.1 (and so
// Corvid) intentionally differs from Redis 7.0.15's. The key is the script
// line exactly as written; the value is the reply Corvid must give, in the
// canonical form of testutil.Raw. Each entry says why.
var valkeyOverrides = map[string]string{
	// bitmaps.txt, BITCOUNT with a start and no end. Valkey 8.0 made the
	// end optional (it defaults to the last byte; bitcount.json history
	// "8.0.0"); Redis 7.0 answers a syntax error.
	"BITCOUNT f 1":  ":22",
	"BITCOUNT f -1": ":4",
	// bitmaps.txt, BITCOUNT/BITPOS argument errors. Since Redis 7.2 (so in
	// Valkey 8) the range arguments are parsed before the key is looked up,
	// so a missing key or a key of the wrong type no longer hides an
	// argument error (Redis 7.0 answered 0, -1/0 or WRONGTYPE first).
	// Valkey 8 also parses the BIT|BYTE unit before the end argument, so a
	// command wrong in both is a syntax error rather than "not an integer".
	"BITCOUNT missing a b":     "-ERR value is not an integer or out of range",
	"BITCOUNT missing 0 1 FOO": "-ERR syntax error",
	"BITCOUNT f 0 b FOO":       "-ERR syntax error",
	"BITCOUNT lst x":           "-ERR value is not an integer or out of range",
	"BITPOS missing 0 a":       "-ERR value is not an integer or out of range",
	"BITPOS lst 1 0 1 BAD":     "-ERR syntax error",
	// multi.txt, nested MULTI and WATCH inside MULTI. Valkey 8.0 gave MULTI
	// and WATCH the NO_MULTI command flag (valkey-io/valkey#723, see
	// ../shared/valkey-8.0.1-commands/multi.json and watch.json), so
	// processCommand rejects them with its generic text and flags the
	// transaction: the following EXEC aborts. Redis 7.0 answers from the
	// command itself ("ERR MULTI calls can not be nested", "ERR WATCH inside
	// MULTI is not allowed") and still executes the transaction. The script
	// writes these lines in a distinct letter case so that only they match.
	"multi":   "-ERR Command not allowed inside a transaction",
	"Exec":    "-EXECABORT Transaction discarded because of previous errors.",
	"GET n1":  "(nil)",
	"WATCH x": "-ERR Command not allowed inside a transaction",
	"exec":    "-EXECABORT Transaction discarded because of previous errors.",
	"GET w1":  "(nil)",
	// errors.txt, a one-element list made by LPUSH. Valkey 8 (from Redis
	// 7.2) encodes small lists as a listpack (list-max-listpack-size);
	// Redis 7.0 always reports quicklist.
	"OBJECT ENCODING list": `"listpack"`,
	// sets.txt, ZSCAN's NOSCORES and HSCAN's NOVALUES (both new in Valkey
	// 8.0) are options SSCAN knows and refuses by name; Redis 7.0 only
	// answers a syntax error.
	"SSCAN sc 0 NOVALUES": "-ERR NOVALUES option can only be used in HSCAN",
	"SSCAN sc 0 NOSCORES": "-ERR NOSCORES option can only be used in ZSCAN",
	// sets.txt, small sets of strings. Valkey 8 (since Redis 7.2) keeps a
	// set of at most set-max-listpack-entries members of at most
	// set-max-listpack-value bytes in a listpack; Redis 7.0 has no listpack
	// sets and reports hashtable. sp128 has exactly 128 members (the
	// limit) before a 129th makes it a hashtable in both.
	"OBJECT ENCODING w":     `"listpack"`,
	"OBJECT ENCODING wi":    `"listpack"`,
	"OBJECT ENCODING wu":    `"listpack"`,
	"OBJECT ENCODING sp128": `"listpack"`,
	// zsets.txt, ZRANK/ZREVRANK WITHSCORE (Valkey 8, from Redis 7.2): the
	// commands take an optional fourth argument, so a wrong one is a
	// syntax error rather than an arity error; without the member the
	// reply is a null array. RESP3 lines are lower case to keep the keys
	// unique.
	"ZRANK k a b":               "-ERR syntax error",
	"ZRANK k c WITHSCORE":       `*[:2, "3"]`,
	"ZREVRANK k c WITHSCORE":    `*[:1, "3"]`,
	"ZRANK k nosuch WITHSCORE":  "(nil-array)",
	"ZRANK missing a WITHSCORE": "(nil-array)",
	"zrank k c WITHSCORE":       "(nil)",
	// zsets.txt, ZSCAN NOSCORES (Valkey 8.0) and the NOVALUES word it
	// knows but refuses; Redis 7.0 answers a syntax error for both.
	"ZSCAN zs 0 NOSCORES": `*["0", *["a", "b", "c"]]`,
	"ZSCAN zs 0 NOVALUES": "-ERR NOVALUES option can only be used in HSCAN",
	// zsets.txt, score formatting. Valkey 8 replies doubles with d2string:
	// integers up to 2^62 in full, otherwise fpconv_dtoa's shortest
	// round-trip digits (plain up to 1e-7, then d.de-x without padding).
	// Redis 7.0 printed %.17g. A listpack also stores its scores with
	// d2string, which ZSCAN shows.
	"ZSCORE fmt a":        `"0.1"`,
	"ZSCORE fmt b":        `"3.3"`,
	"ZSCORE fmt c":        `"100000000000000000"`,
	"ZSCORE fmt e":        `"0.00001"`,
	"ZSCORE fmt f":        `"1.5e-7"`,
	"ZSCAN fmt 0 MATCH b": `*["0", *["b", "3.3"]]`,
	// zsets.txt, ZADD announcing 129 pairs (all the same member) converts a
	// listpack zset to a skiplist before adding (zsetTypeMaybeConvert,
	// Redis 7.2+); Redis 7.0 converts only when the 129th member arrives.
	"OBJECT ENCODING hint": `"skiplist"`,
}

// ignoredPrefixes are reply fields that legitimately differ between any two
// servers (ids, addresses, versions) and are compared only by type.
var ignoredCommands = map[string]bool{
	"CLIENT ID": true,
	"TIME":      true,
}
