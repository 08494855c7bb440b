package cmdfuzz

import (
	"fmt"
	"strings"
)

// keyNames is the keyspace the generator draws keys from: one or two keys
// of every type Corvid serves, in each of its encodings, plus keys that do
// not exist. setupCmds creates them.
var keyNames = []string{
	"str", "int", "float", "bigstr", "bits", "ttlkey",
	"list", "biglist", "hash", "bighash", "set", "intset", "bigset",
	"zset", "bigzset", "lexzset", "stream", "bigstream", "missing", "dst",
}

// setupCmds creates the keyspace at the start of every batch (after
// FLUSHALL, on a fresh connection): strings (embstr, int, raw, a bitmap,
// one with a TTL), lists (listpack, quicklist), hashes (listpack,
// hashtable), sets (listpack, intset, hashtable), sorted sets (listpack,
// skiplist, all-equal scores for the lex commands), streams (one node
// with a group and pending entries, several nodes with a tombstone), and
// one key in db 1. HyperLogLogs and geo sets are left out.
func setupCmds() [][]string {
	var biglist, bighash, bigset, bigzset []string
	var bigstream [][]string
	for i := range 250 {
		bigstream = append(bigstream, []string{"XADD", "bigstream", fmt.Sprintf("%d-%d", 1+i/3, i%3), "f", fmt.Sprint(i)})
	}
	for i := range 100 {
		biglist = append(biglist, fmt.Sprintf("e%d%s", i, strings.Repeat("-", 96)))
	}
	for i := range 200 {
		bighash = append(bighash, fmt.Sprintf("f%d", i), fmt.Sprint(i))
		bigzset = append(bigzset, fmt.Sprint(i), fmt.Sprintf("m%d", i))
	}
	for i := range 600 {
		bigset = append(bigset, fmt.Sprintf("m%d", i))
	}
	return append(bigstream, [][]string{
		{"SET", "str", "hello"},
		{"SET", "int", "42"},
		{"SET", "float", "3.5"},
		{"SET", "bigstr", strings.Repeat("abcdefghij", 30)},
		{"SETBIT", "bits", "100", "1"},
		{"SET", "ttlkey", "v", "EX", "100000"},
		{"RPUSH", "list", "a", "b", "c", "1", "2", "3"},
		append([]string{"RPUSH", "biglist"}, biglist...),
		{"HSET", "hash", "f1", "v1", "f2", "2", "f3", "3.5"},
		append([]string{"HSET", "bighash"}, bighash...),
		{"SADD", "set", "a", "b", "c"},
		{"SADD", "intset", "1", "2", "3", "100"},
		append([]string{"SADD", "bigset"}, bigset...),
		{"ZADD", "zset", "1", "a", "2", "b", "3", "c"},
		append([]string{"ZADD", "bigzset"}, bigzset...),
		{"ZADD", "lexzset", "0", "a", "0", "b", "0", "c", "0", "d"},
		{"XADD", "stream", "1-1", "f", "v"},
		{"XADD", "stream", "1-2", "f", "v", "g", "w"},
		{"XADD", "stream", "2-0", "f", "3"},
		{"XGROUP", "CREATE", "stream", "grp", "0"},
		{"XREADGROUP", "GROUP", "grp", "c1", "COUNT", "2", "STREAMS", "stream", ">"},
		{"XGROUP", "CREATE", "bigstream", "grp", "$"},
		{"XDEL", "bigstream", "10-1"},
		{"SELECT", "1"},
		{"SET", "str", "db1"},
		{"SELECT", "0"},
	}...)
}
