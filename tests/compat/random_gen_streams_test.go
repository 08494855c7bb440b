package compat

import (
	"strconv"
	"strings"
)

// The streams family: every stream command, with explicit IDs (an XADD
// with "*" takes the clock, which two servers read at different times;
// "<ms>-*" does not), groups, deliveries and claims. Delivery and seen
// times are the clock's too: XCLAIM sets them with TIME in the distant
// past (deterministic) or IDLE (relative), and the replies that show
// times or idle durations are normalized (normalizeStream). The node
// limits change now and then (CONFIG SET, on both servers), so that
// nodes split and "~" trims at several granularities, and XINFO's
// radix-tree figures are compared with small nodes.

// streamClock is the last <ms> an XADD of the family used, per
// generator: IDs mostly grow, so XADD mostly succeeds.
var streamClock = map[*gen]int{}

// streamAddID is XADD's ID: the next milliseconds with an automatic or
// small explicit sequence, and now and then a stale or invalid one.
func (g *gen) streamAddID() string {
	ms := streamClock[g]
	if g.chance(70) {
		ms += g.r.IntN(3)
		streamClock[g] = ms
	}
	switch g.r.IntN(10) {
	case 0:
		return strconv.Itoa(g.r.IntN(ms+1)) + "-" + strconv.Itoa(g.r.IntN(4))
	case 1:
		return g.pick("0-0", "0-*", "x", "1-x", "-", "+", "18446744073709551615-18446744073709551615", "18446744073709551615-*")
	case 2, 3, 4:
		return strconv.Itoa(ms+1) + "-" + strconv.Itoa(g.r.IntN(3))
	}
	return strconv.Itoa(ms+1) + "-*"
}

// streamID is an ID near the family's entries: mostly one of the last
// IDs XADD used.
func (g *gen) streamID() string {
	ms := streamClock[g] + 2
	switch g.r.IntN(10) {
	case 0:
		return strconv.Itoa(g.r.IntN(ms + 1))
	case 1:
		return g.pick("0", "0-0", "18446744073709551615-18446744073709551615", "x")
	case 2, 3:
		return strconv.Itoa(g.r.IntN(ms+1)) + "-" + strconv.Itoa(g.r.IntN(3))
	}
	return strconv.Itoa(max(0, ms-1-g.r.IntN(12))) + "-" + g.pick("0", "0", "0", "1")
}

// streamBound is a range bound of XRANGE, XPENDING or XAUTOCLAIM.
func (g *gen) streamBound(low bool) string {
	switch g.r.IntN(6) {
	case 0:
		if low {
			return "-"
		}
		return "+"
	case 1:
		return "(" + g.streamID()
	}
	return g.streamID()
}

// streamKey is a key of the family, the last (which other types
// overwrite now and then) less often.
func (g *gen) streamKey() string {
	if g.chance(80) {
		return g.keys[g.r.IntN(len(g.keys)-1)]
	}
	return g.keys[len(g.keys)-1]
}

func (g *gen) streamKeys() []string {
	ks := []string{g.streamKey()}
	if g.chance(40) {
		ks = append(ks, g.streamKey())
	}
	return ks
}

func (g *gen) streamGroup() string    { return g.pick("g1", "g1", "g1", "g2", "123") }
func (g *gen) streamConsumer() string { return g.pick("c1", "c1", "c2", "c3", "42") }

func (g *gen) streamFields() []string {
	var out []string
	names := []string{"f", "f", "g", "h", "1", "x"}
	for i := range 1 + g.r.IntN(3) {
		if i == 0 && g.chance(70) {
			out = append(out, "f", g.value())
			continue
		}
		out = append(out, names[g.r.IntN(len(names))], g.value())
	}
	return out
}

// streamTrim is a MAXLEN or MINID option (and LIMIT), or nothing.
func (g *gen) streamTrim() []string {
	var out []string
	if g.chance(50) {
		out = append(out, "MAXLEN", g.pick("", "=", "~", "~"), g.pick("0", "3", "10", "20", "40", "40", "-1"))
	} else {
		out = append(out, "MINID", g.pick("", "=", "~"), g.streamID())
	}
	if g.chance(30) {
		out = append(out, "LIMIT", g.pick("0", "1", "5", "100", "-1"))
	}
	return strings.Fields(strings.Join(out, " "))
}

var streamCmds = []func(g *gen) []string{
	func(g *gen) []string { return cat("XADD", g.streamKey(), g.streamAddID(), g.streamFields()) },
	func(g *gen) []string { return cat("XADD", g.streamKey(), g.streamAddID(), g.streamFields()) },
	func(g *gen) []string { return cat("XADD", g.streamKey(), g.streamAddID(), g.streamFields()) },
	func(g *gen) []string {
		a := cat("XADD", g.streamKey())
		if g.chance(30) {
			a = append(a, "NOMKSTREAM")
		}
		if g.chance(70) {
			a = append(a, g.streamTrim()...)
		}
		return cat(a, g.streamAddID(), g.streamFields())
	},
	func(g *gen) []string {
		a := cat(g.pick("XRANGE", "XREVRANGE"), g.streamKey())
		lo, hi := g.streamBound(true), g.streamBound(false)
		if a[0] == "XREVRANGE" {
			lo, hi = hi, lo
		}
		a = append(a, lo, hi)
		if g.chance(50) {
			a = append(a, "COUNT", g.pick("0", "1", "2", "5", "-1", "x"))
		}
		return a
	},
	func(g *gen) []string { return cat("XLEN", g.streamKey()) },
	func(g *gen) []string { return cat("XDEL", g.streamKey(), g.members(1, 3, g.streamID)) },
	func(g *gen) []string { return cat("XTRIM", g.streamKey(), g.streamTrim()) },
	func(g *gen) []string {
		a := cat("XSETID", g.streamKey(), g.streamID())
		if g.chance(30) {
			a = append(a, "ENTRIESADDED", g.pick("0", "5", "100", "-1"))
		}
		if g.chance(30) {
			a = append(a, "MAXDELETEDID", g.streamID())
		}
		return a
	},
	func(g *gen) []string {
		ks := g.streamKeys()
		a := []string{"XREAD"}
		if g.chance(40) {
			a = append(a, "COUNT", g.pick("0", "1", "2", "-3"))
		}
		if g.chance(15) {
			a = append(a, "BLOCK", "1")
		}
		a = append(a, "STREAMS")
		a = append(a, ks...)
		for range ks {
			a = append(a, g.pick("0", "$", "+", g.streamID(), ">"))
		}
		return a
	},
	func(g *gen) []string {
		a := []string{"XREADGROUP", "GROUP", g.streamGroup(), g.streamConsumer()}
		if g.chance(40) {
			a = append(a, "COUNT", g.pick("0", "1", "2"))
		}
		if g.chance(20) {
			a = append(a, "NOACK")
		}
		if g.chance(10) {
			a = append(a, "BLOCK", "1")
		}
		ks := []string{g.streamKey()}
		if g.chance(15) {
			ks = append(ks, g.streamKey())
		}
		a = append(a, "STREAMS")
		a = append(a, ks...)
		for range ks {
			a = append(a, g.pick(">", ">", ">", "0", g.streamID(), "$"))
		}
		return a
	},
	func(g *gen) []string {
		return cat("XREADGROUP", "GROUP", g.streamGroup(), g.streamConsumer(), "STREAMS", g.streamKey(), ">")
	},
	func(g *gen) []string {
		a := cat("XGROUP", "CREATE", g.streamKey(), g.streamGroup(), g.pick("$", "0", g.streamID()))
		if g.chance(50) {
			a = append(a, "MKSTREAM")
		}
		if g.chance(20) {
			a = append(a, "ENTRIESREAD", g.pick("0", "3", "-1", "-2"))
		}
		return a
	},
	func(g *gen) []string {
		a := cat("XGROUP", "SETID", g.streamKey(), g.streamGroup(), g.pick("$", "0", "-", "+", g.streamID()))
		if g.chance(30) {
			a = append(a, "ENTRIESREAD", g.pick("0", "2", "-1"))
		}
		return a
	},
	func(g *gen) []string {
		switch g.r.IntN(6) {
		case 0:
			return cat("XGROUP", "DESTROY", g.streamKey(), g.streamGroup())
		case 4, 5:
			return cat("XGROUP", "CREATECONSUMER", g.streamKey(), g.streamGroup(), g.streamConsumer())
		case 1:
			return cat("XGROUP", "CREATECONSUMER", g.streamKey(), g.streamGroup(), g.streamConsumer())
		case 2:
			return cat("XGROUP", "DELCONSUMER", g.streamKey(), g.streamGroup(), g.streamConsumer())
		}
		return cat("XGROUP", g.pick("HELP", "BAD"))
	},
	func(g *gen) []string { return cat("XACK", g.streamKey(), g.streamGroup(), g.members(1, 3, g.streamID)) },
	func(g *gen) []string {
		a := cat("XPENDING", g.streamKey(), g.streamGroup())
		if g.chance(70) {
			if g.chance(30) {
				a = append(a, "IDLE", g.pick("0", "99999999", "x"))
			}
			a = append(a, g.streamBound(true), g.streamBound(false), g.pick("1", "10", "0", "-1"))
			if g.chance(30) {
				a = append(a, g.streamConsumer())
			}
		}
		return a
	},
	func(g *gen) []string {
		a := cat("XCLAIM", g.streamKey(), g.streamGroup(), g.streamConsumer(), g.pick("0", "0", "99999999", "-5", "x"))
		a = append(a, g.members(1, 3, g.streamID)...)
		for _, opt := range []string{"IDLE", "TIME", "RETRYCOUNT", "FORCE", "JUSTID", "LASTID"} {
			if !g.chance(25) {
				continue
			}
			switch opt {
			case "IDLE":
				a = append(a, opt, g.pick("0", "1000", "-1", "x"))
			case "TIME":
				a = append(a, opt, g.pick("1000000", "1500000000000", "-5"))
			case "RETRYCOUNT":
				a = append(a, opt, g.pick("0", "5", "-1"))
			case "LASTID":
				a = append(a, opt, g.streamID())
			default:
				a = append(a, opt)
			}
		}
		return a
	},
	func(g *gen) []string {
		a := cat("XAUTOCLAIM", g.streamKey(), g.streamGroup(), g.streamConsumer(), g.pick("0", "0", "99999999"), g.streamBound(true))
		if g.chance(50) {
			a = append(a, "COUNT", g.pick("1", "2", "10", "0"))
		}
		if g.chance(30) {
			a = append(a, "JUSTID")
		}
		return a
	},
	func(g *gen) []string {
		switch g.r.IntN(5) {
		case 0:
			return cat("XINFO", "STREAM", g.streamKey(), "FULL", g.opt("", "COUNT 2", "COUNT 0", "COUNT -1"))
		case 1:
			return cat("XINFO", "GROUPS", g.streamKey())
		case 2:
			return cat("XINFO", "CONSUMERS", g.streamKey(), g.streamGroup())
		case 3:
			return cat("XINFO", g.pick("HELP", "STREAM"), g.streamKey())
		}
		return cat("XINFO", "STREAM", g.streamKey())
	},
	func(g *gen) []string {
		if g.chance(50) {
			return cat("CONFIG", "SET", "stream-node-max-entries", g.pick("2", "3", "5", "100"))
		}
		return cat("CONFIG", "SET", "stream-node-max-bytes", g.pick("60", "200", "4096"))
	},
	func(g *gen) []string {
		if g.chance(10) {
			return cat(g.pick("SET", "LPUSH", "SADD"), g.keys[len(g.keys)-1], "x")
		}
		if g.chance(10) {
			return cat("DEL", g.streamKey())
		}
		return cat("XGROUP", "CREATE", g.streamKey(), g.streamGroup(), g.pick("0", "$"), "MKSTREAM")
	},
	func(g *gen) []string {
		a := []string{"XREADGROUP", "GROUP", g.streamGroup(), g.streamConsumer(), "COUNT", g.pick("1", "2", "3")}
		return cat(a, "STREAMS", g.streamKey(), g.pick(">", ">", "0"))
	},
	func(g *gen) []string {
		return cat("XCLAIM", g.streamKey(), g.streamGroup(), g.streamConsumer(), "0", g.members(1, 4, g.streamID), g.opt("", "JUSTID", "TIME 1000000", "RETRYCOUNT 9 JUSTID"))
	},
	func(g *gen) []string { return cat("XINFO", "HELP") },
}

// normalizeStream replaces what the clock decides in the replies of the
// stream commands: delivery, seen and active times that are "now"
// (unix milliseconds past 2020; the family's TIME values are older), and
// the idle and inactive durations XPENDING and XINFO CONSUMERS report.
func normalizeStream(argv []string, r tree) tree {
	switch strings.ToUpper(argv[0]) {
	case "XINFO":
		return streamTimes(r)
	case "XPENDING":
		if r.kind == '*' && len(argv) > 3 {
			for i := range r.elems {
				if e := &r.elems[i]; e.kind == '*' && len(e.elems) == 4 {
					e.elems[2] = tree{kind: ':', s: "idle"}
				}
			}
		}
	}
	return r
}

func streamTimes(r tree) tree {
	if r.kind == ':' {
		if n, err := strconv.ParseInt(r.s, 10, 64); err == nil && n > 1_577_836_800_000 {
			return tree{kind: ':', s: "now"}
		}
		return r
	}
	for i := range r.elems {
		if e := r.elems[i]; i+1 < len(r.elems) && e.kind == '$' && (e.s == "idle" || e.s == "inactive") {
			if v := r.elems[i+1]; v.kind == ':' && v.s != "-1" {
				r.elems[i+1] = tree{kind: ':', s: "duration"}
			}
			continue
		}
		r.elems[i] = streamTimes(r.elems[i])
	}
	return r
}
