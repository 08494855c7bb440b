package main

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// caseSpec is one data set: keys keys of perKey elements each.
type caseSpec struct {
	name   string // one of allCases
	cmd    string // the write command: RPUSH, SADD, ZADD, HSET or SET
	key    string // the key, or for several keys the prefix of key<i>
	keys   int
	perKey int
	// size is the length of each value or member; 0 means -size. The
	// small-encoding cases use -smallsize, short enough for listpacks.
	size int
}

func (c caseSpec) elements() int { return c.keys * c.perKey }

// keyName is the name of key i.
func (c caseSpec) keyName(i int) string {
	if c.keys == 1 {
		return c.key
	}
	return c.key + strconv.Itoa(i)
}

// countCommand reads back how many elements key 0 holds (a string key:
// whether it exists).
func (c caseSpec) countCommand() []string {
	cmd := map[string]string{"RPUSH": "LLEN", "SADD": "SCARD", "ZADD": "ZCARD", "HSET": "HLEN", "SET": "EXISTS"}[c.cmd]
	return []string{cmd, c.keyName(0)}
}

// pairs reports whether each element is two arguments (score or field, then
// the value).
func (c caseSpec) pairs() bool { return c.cmd == "ZADD" || c.cmd == "HSET" }

var allCases = []string{"list", "set", "zset", "hash", "smallhash", "smallzset", "string",
	"lplist", "lpset", "lpzset", "lphash", "onelist", "oneset", "onezset", "onehash"}

// lpElements is the size of each collection in the lp* cases: well
// inside every listpack limit of both servers (128 entries, 64-byte
// values) when elements are -smallsize bytes.
const lpElements = 10

// elemNames names a collection type's keys and elements in row labels.
func elemNames(cmd string) (key, elem string) {
	switch cmd {
	case "RPUSH":
		return "list", "element"
	case "SADD":
		return "set", "member"
	case "ZADD":
		return "set", "member"
	}
	return "hash", "field"
}

// smallZSetMembers is the size of each small sorted set: two members of
// -size bytes, skiplist-encoded in both servers once they pass
// zset-max-listpack-value (64), as in bench/keyspace-scaling.sh's ZADD
// rows at 10^5-10^7 keys.
const smallZSetMembers = 2

// listNames splits a comma-separated list (-cases, -peer) into its names,
// trimmed, in order, each once, empty ones dropped.
func listNames(list string) []string {
	var out []string
	for name := range strings.SplitSeq(list, ",") {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// makeCases returns the cases named in the comma-separated list names.
func makeCases(names string, n, small, fields, smallSize int) ([]caseSpec, error) {
	var out []caseSpec
	for _, name := range listNames(names) {
		switch name {
		case "list":
			out = append(out, caseSpec{name, "RPUSH", "mem:list", 1, n, 0})
		case "set":
			out = append(out, caseSpec{name, "SADD", "mem:set", 1, n, 0})
		case "zset":
			out = append(out, caseSpec{name, "ZADD", "mem:zset", 1, n, 0})
		case "hash":
			out = append(out, caseSpec{name, "HSET", "mem:hash", 1, n, 0})
		case "smallhash":
			out = append(out, caseSpec{name, "HSET", "h:", small, fields, 0})
		case "smallzset":
			out = append(out, caseSpec{name, "ZADD", "z:", small, smallZSetMembers, 0})
		case "string":
			// The seed's SET: n keys of one value each, SET by SET.
			out = append(out, caseSpec{name, "SET", "s:", n, 1, 0})
		case "lplist", "lpset", "lpzset", "lphash", "onelist", "oneset", "onezset", "onehash":
			// -small collections of lpElements (lp*) or one (one*)
			// element of -smallsize bytes: listpack-encoded in both.
			per := lpElements
			typ, one := strings.CutPrefix(name, "one")
			if one {
				per = 1
			} else {
				typ = strings.TrimPrefix(name, "lp")
			}
			cmd := map[string]string{"list": "RPUSH", "set": "SADD", "zset": "ZADD", "hash": "HSET"}[typ]
			out = append(out, caseSpec{name, cmd, name + ":", small, per, smallSize})
		default:
			return nil, fmt.Errorf("unknown case %q (want some of %s)", name, strings.Join(allCases, ","))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no cases")
	}
	return out, nil
}

// valueAlphabet has 64 printable characters, so 6 random bits pick one.
const valueAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// generator produces a case's write commands, the same for the same seed.
type generator struct {
	spec caseSpec
	per  int // elements per command at most
	size int // value length
	rng  *rand.Rand
	k, i int // next key, next element of that key
	val  []byte
	num  []byte
}

func newGenerator(spec caseSpec, per, size int, seed uint64) *generator {
	return &generator{spec: spec, per: per, size: size,
		rng: rand.New(rand.NewPCG(seed, 0x6d656d70657265)), val: make([]byte, size)}
}

// value fills g.val with "<idx>:" and random characters up to g.size
// bytes (the prefix is cut if size is shorter than it).
func (g *generator) value(idx int) []byte {
	v := strconv.AppendInt(g.val[:0], int64(idx), 10)
	v = append(v, ':')
	v = v[:min(len(v), g.size)]
	for len(v) < g.size {
		r := g.rng.Uint64()
		for j := 0; j < 10 && len(v) < g.size; j++ {
			v = append(v, valueAlphabet[r&63])
			r >>= 6
		}
	}
	g.val = v
	return v
}

// next appends the next command to b; ok is false when all are written.
func (g *generator) next(b []byte) (out []byte, ok bool) {
	s := g.spec
	if g.k >= s.keys {
		return b, false
	}
	cnt := min(g.per, s.perKey-g.i)
	argc := 2 + cnt
	if s.pairs() {
		argc += cnt
	}
	b = appendArrayHeader(b, argc)
	b = appendBulk(b, s.cmd)
	b = appendBulk(b, s.keyName(g.k))
	for e := g.i; e < g.i+cnt; e++ {
		idx := g.k*s.perKey + e
		switch s.cmd {
		case "ZADD":
			g.num = strconv.AppendFloat(g.num[:0], g.rng.Float64()*1e6, 'g', -1, 64)
			b = appendBulk(b, g.num)
		case "HSET":
			g.num = strconv.AppendInt(append(g.num[:0], "f:"...), int64(e), 10)
			b = appendBulk(b, g.num)
		}
		b = appendBulk(b, g.value(idx))
	}
	g.i += cnt
	if g.i >= s.perKey {
		g.k, g.i = g.k+1, 0
	}
	return b, true
}

// peerVersions are the versions issues 4 and 32 compare against, by peer.
var peerVersions = map[string]string{"redis": "7.0.15", "valkey": "8.0.1"}

// parsePeers reads -peer: a comma-separated list of redis and valkey, in
// the order of the report's columns. A name given twice counts once.
func parsePeers(list string) ([]string, error) {
	out := listNames(list)
	for _, name := range out {
		if _, ok := peerVersions[name]; !ok {
			return nil, fmt.Errorf("-peer: unknown server %q (want redis, valkey or both, comma-separated)", name)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-peer: no server (want redis, valkey or both, comma-separated)")
	}
	return out, nil
}

// turnOrder is the order the servers measure case k in: corvid, then the
// peers, rotated by k, so the first server changes from case to case.
func turnOrder(k int, peers []string) []string {
	all := append([]string{"corvid"}, peers...)
	out := make([]string, len(all))
	for i := range all {
		out[i] = all[(k+i)%len(all)]
	}
	return out
}
