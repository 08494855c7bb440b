package db

import (
	"math"
	"strconv"
	"strings"
	"testing"
	"time"
)

// bothEncodings runs f once with the default thresholds (small sorted sets
// are listpacks) and once with zset-max-listpack-entries 0 (every sorted
// set is a skiplist): replies must not depend on the encoding.
func bothEncodings(t *testing.T, f func(t *testing.T, h *collHarness)) {
	for _, e := range []struct {
		name string
		max  int64
	}{{"listpack", 128}, {"skiplist", 0}} {
		t.Run(e.name, func(t *testing.T) {
			h := newCollHarness(t)
			configure(h.ks, func(s *Settings) { s.ZSetMaxListpackEntries = e.max })
			f(t, h)
		})
	}
}

func TestZAdd(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		h.run([]step{
			sl(rInt(3), "ZADD z 1 a 2 b 3 c"),
			sl(rInt(0), "ZADD z 1 a"),
			sl(rInt(0), "ZADD z 1.5 a"),
			sl(rInt(2), "ZADD z CH 2.5 a 4 d"),
			sl(rInt(0), "ZADD z CH 4 d"),
			sl("-ERR XX and NX options at the same time are not compatible\r\n", "ZADD z NX XX 1 a"),
			sl("-ERR GT, LT, and/or NX options at the same time are not compatible\r\n", "ZADD z GT LT 1 a"),
			sl("-ERR GT, LT, and/or NX options at the same time are not compatible\r\n", "ZADD z NX GT 1 a"),
			sl("-ERR INCR option supports a single increment-element pair\r\n", "ZADD z INCR 1 a 2 b"),
			sl(rSyntax, "ZADD z 1"),
			sl(rSyntax, "ZADD z NX"),
			sl(rSyntax, "ZADD z 1 a 2"),
			sl("-"+ErrNotFloat+"\r\n", "ZADD z x a"),
			sl("-"+ErrNotFloat+"\r\n", "ZADD z nan a"),
			sl("-"+ErrNotFloat+"\r\n", "ZADD z 1e400 a"),
			sl("-"+ErrNotFloat+"\r\n", "ZADD z 1e-400 a"),
			sl("-"+ErrNotFloat+"\r\n", "ZADD z 1,5 a"),
			sl(rInt(1), "ZADD z NX 10 a 5 e"),
			sl(rInt(0), "ZADD z XX 10 a 6 f"),
			sl(rBulk("10"), "ZSCORE z a"),
			sl(rNull, "ZSCORE z f"),
			sl(rInt(0), "ZADD z GT 5 a"),
			sl(rInt(1), "ZADD z GT CH 20 a"),
			sl(rInt(0), "ZADD z LT CH 30 a"),
			sl(rInt(1), "ZADD z LT CH 0.5 a"),
			sl(rInt(1), "ZADD z GT 7 g"), // GT still adds new members
			sl(rBulk("3"), "ZADD z INCR 2.5 a"),
			sl(rBulk("-1"), "ZADD z INCR -1 fresh"),
			sl(rNull, "ZADD z NX INCR 1 a"),
			sl(rNull, "ZADD z XX INCR 1 nosuch"),
			sl(rNull, "ZADD z GT INCR -1 a"),
			sl(rBulk("2"), "ZADD z LT INCR -1 a"),
			sl(rInt(0), "ZADD nokey XX 1 a"),
			sl(rNull, "ZADD nokey XX INCR 1 a"),
			sl(rInt(0), "EXISTS nokey"),
			sl(rInt(2), "ZADD inf inf hi -inf lo"),
			sl(rBulk("inf"), "ZSCORE inf hi"),
			sl(rBulk("-inf"), "ZSCORE inf lo"),
			sl("-ERR resulting score is not a number (NaN)\r\n", "ZINCRBY inf -inf hi"),
			sl("-ERR resulting score is not a number (NaN)\r\n", "ZADD inf INCR +inf lo"),
			sl(rBulk("inf"), "ZSCORE inf hi"),
			sl(rBulk("5"), "ZINCRBY new 5 m"),
			sl(rBulk("4.75"), "ZINCRBY new -0.25 m"),
			sl(rSyntax, "ZINCRBY new nx m"), // ZINCRBY parses ZADD's options
			sl("-"+ErrNotFloat+"\r\n", "ZINCRBY new x m"),
			sl(rOK, "SET str x"),
			sl(rWrongType, "ZADD str 1 a"),
			sl(rWrongType, "ZINCRBY str 1 a"),
			sl(rInt(1), "ZREM z a x"),
			sl(rInt(0), "ZREM nokey a"),
			sl(rInt(2), "ZADD r 1 a 2 b"),
			sl(rInt(2), "ZREM r a b c"),
			sl(rInt(0), "EXISTS r"),
		})
	})
}

func TestZSetReads(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		h.run([]step{
			sl(rInt(4), "ZADD k 1 a 2 b 3 c 3 d"),
			sl(rInt(4), "ZCARD k"),
			sl(rInt(0), "ZCARD nokey"),
			sl(rArr(rBulk("1"), rNull, rBulk("3")), "ZMSCORE k a x d"),
			sl(rArr(rNull, rNull), "ZMSCORE nokey a b"),
			sl(rNull, "ZSCORE nokey a"),
			sl(rInt(0), "ZRANK k a"),
			sl(rInt(3), "ZRANK k d"),
			sl(rInt(0), "ZREVRANK k d"),
			sl(rNull, "ZRANK k x"),
			sl(rNull, "ZRANK nokey a"),
			sl(rArr(rInt(2), rBulk("3")), "ZRANK k c WITHSCORE"),
			sl(rArr(rInt(1), rBulk("3")), "ZREVRANK k c withscore"),
			sl(rNullArr, "ZRANK k x WITHSCORE"),
			sl(rNullArr, "ZRANK nokey x WITHSCORE"),
			sl(rSyntax, "ZRANK k a b"),
			sl("-ERR wrong number of arguments for 'zrevrank' command\r\n", "ZREVRANK k a b c"),
			sl(rInt(4), "ZCOUNT k -inf +inf"),
			sl(rInt(1), "ZCOUNT k (1 (3"),
			sl(rInt(3), "ZCOUNT k (1 3"),
			sl(rInt(0), "ZCOUNT k 3 1"),
			sl(rInt(0), "ZCOUNT k (3 3"),
			sl(rInt(1), "ZCOUNT k ( 1"), // "(" alone is an exclusive 0
			sl("-ERR min or max is not a float\r\n", "ZCOUNT k x 1"),
			sl("-ERR min or max is not a float\r\n", "ZCOUNT k 1 (nan"),
			sl(rInt(0), "ZCOUNT nokey 0 1"),
			sl(rInt(4), "ZADD lx 0 a 0 b 0 c 0 d"),
			sl(rInt(4), "ZLEXCOUNT lx - +"),
			sl(rInt(2), "ZLEXCOUNT lx [b [c"),
			sl(rInt(1), "ZLEXCOUNT lx (b (d"),
			sl(rInt(0), "ZLEXCOUNT lx + -"),
			sl(rInt(0), "ZLEXCOUNT lx [c [b"),
			sl("-ERR min or max not valid string range item\r\n", "ZLEXCOUNT lx a b"),
			sl("-ERR min or max not valid string range item\r\n", "ZLEXCOUNT lx -x +"),
			sl(rInt(0), "ZLEXCOUNT nokey - +"),
		})
	})
}

func TestZRange(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		h.do(line("ZADD k 1 a 2 b 3 c 3 d")...)
		h.do(line("ZADD lx 0 a 0 b 0 c 0 d 0 e")...)
		h.run([]step{
			sl(rBulks("a", "b", "c", "d"), "ZRANGE k 0 -1"),
			sl(rBulks("a", "1", "b", "2"), "ZRANGE k 0 1 WITHSCORES"),
			sl(rBulks("c", "d"), "ZRANGE k -2 -1"),
			sl(rBulks("a", "b", "c", "d"), "ZRANGE k -100 100"),
			sl(rNoItems, "ZRANGE k 5 10"),
			sl(rNoItems, "ZRANGE k 2 1"),
			sl(rBulks("d", "c"), "ZRANGE k 0 1 REV"),
			sl(rBulks("d", "3", "c", "3"), "ZREVRANGE k 0 1 WITHSCORES"),
			sl(rNoItems, "ZRANGE nokey 0 -1"),
			sl("-ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX\r\n", "ZRANGE k 0 -1 LIMIT 0 1"),
			sl(rBulks("a", "b", "c", "d"), "ZRANGE k 0 -1 LIMIT 0 -1"), // -1 is "no LIMIT"
			sl("-ERR syntax error, WITHSCORES not supported in combination with BYLEX\r\n", "ZRANGE k - + BYLEX WITHSCORES"),
			sl(rSyntax, "ZRANGE k 0 -1 REV REV"),
			sl(rSyntax, "ZRANGE k 0 -1 BYSCORE BYLEX"),
			sl(rSyntax, "ZREVRANGE k 0 -1 REV"),
			sl("-"+ErrNotInt+"\r\n", "ZRANGE k a b"),
			sl(rBulks("b", "c", "d"), "ZRANGE k (1 3 BYSCORE"),
			sl(rBulks("d", "c", "b"), "ZRANGE k 3 (1 BYSCORE REV"),
			sl(rBulks("b", "c"), "ZRANGE k -inf +inf BYSCORE LIMIT 1 2"),
			sl(rBulks("b", "c", "d"), "ZRANGE k -inf +inf BYSCORE LIMIT 1 -5"),
			sl(rNoItems, "ZRANGE k -inf +inf BYSCORE LIMIT 1 0"),
			sl(rNoItems, "ZRANGE k -inf +inf BYSCORE LIMIT -1 2"),
			sl(rNoItems, "ZRANGE k -inf +inf BYSCORE LIMIT 4 2"),
			sl(rBulks("c", "b"), "ZRANGE k +inf -inf BYSCORE REV LIMIT 1 2"),
			sl(rBulks("c", "3", "b", "2"), "ZREVRANGEBYSCORE k 3 1 WITHSCORES LIMIT 1 2"),
			sl(rBulks("a", "1"), "ZRANGEBYSCORE k -inf 1 WITHSCORES"),
			sl("-ERR min or max is not a float\r\n", "ZRANGEBYSCORE k x 1"),
			sl(rSyntax, "ZRANGEBYSCORE k 1 2 REV"),
			sl(rBulks("b", "c", "d"), "ZRANGEBYLEX lx [b (e"),
			sl(rBulks("d", "c", "b"), "ZREVRANGEBYLEX lx (e [b"),
			sl(rBulks("c", "d"), "ZRANGE lx - + BYLEX LIMIT 2 2"),
			sl(rBulks("c", "b"), "ZRANGE lx + - BYLEX REV LIMIT 2 2"),
			sl(rNoItems, "ZRANGEBYLEX lx (d (d"),
			sl("-ERR min or max not valid string range item\r\n", "ZRANGEBYLEX lx b d"),
			// ZRANGESTORE
			sl(rInt(2), "ZRANGESTORE dst k 0 1"),
			sl(rBulks("a", "1", "b", "2"), "ZRANGE dst 0 -1 WITHSCORES"),
			sl(rInt(2), "ZRANGESTORE dst lx [c [b BYLEX REV"),
			sl(rBulks("b", "0", "c", "0"), "ZRANGE dst 0 -1 WITHSCORES"),
			sl(rInt(0), "ZRANGESTORE dst k 5 10"),
			sl(rInt(0), "EXISTS dst"),
			sl(rInt(0), "ZRANGESTORE dst nokey 0 -1"),
			sl(rSyntax, "ZRANGESTORE dst k 0 -1 WITHSCORES"),
			// ZREMRANGEBY*
			sl(rInt(5), "ZADD rr 1 a 2 b 3 c 4 d 5 e"),
			sl(rInt(1), "ZREMRANGEBYRANK rr 0 0"),
			sl(rInt(1), "ZREMRANGEBYRANK rr -1 -1"),
			sl(rInt(0), "ZREMRANGEBYRANK rr 5 10"),
			sl(rInt(1), "ZREMRANGEBYSCORE rr (2 3"),
			sl(rInt(0), "ZREMRANGEBYSCORE rr 100 200"),
			sl(rBulks("b", "d"), "ZRANGE rr 0 -1"),
			sl(rInt(2), "ZREMRANGEBYLEX rr - +"),
			sl(rInt(0), "EXISTS rr"),
			sl("-"+ErrNotInt+"\r\n", "ZREMRANGEBYRANK rr x 1"),
			sl(rInt(0), "ZREMRANGEBYSCORE nokey 0 1"),
		})
	})
}

func TestZSetRESP3(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		h.c.W.Proto = 3
		pair := func(m, s string) string { return rArr(rBulk(m), rDbl3(s)) }
		h.run([]step{
			sl(rInt(4), "ZADD k 1 a 2.5 b 3 c 3 d"),
			sl(rArr(pair("a", "1"), pair("b", "2.5")), "ZRANGE k 0 1 WITHSCORES"),
			sl(rBulks("a", "b"), "ZRANGE k 0 1"),
			sl(rDbl3("2.5"), "ZSCORE k b"),
			sl(rNull3, "ZSCORE k x"),
			sl(rArr(rDbl3("1"), rNull3), "ZMSCORE k a x"),
			sl(rDbl3("1"), "ZINCRBY k 0 a"),
			sl(rNull3, "ZADD k NX INCR 1 a"),
			sl(rArr(rInt(1), rDbl3("2.5")), "ZRANK k b WITHSCORE"),
			sl(rNull3, "ZRANK k x WITHSCORE"),
			sl(rArr(pair("d", "3")), "ZREVRANGE k 0 0 WITHSCORES"),
			sl(rNoItems, "ZPOPMIN nokey"),
			sl(rArr(rBulk("a"), rDbl3("1")), "ZPOPMIN k"),
			sl(rArr(pair("b", "2.5")), "ZPOPMIN k 1"),
			sl(rArr(pair("d", "3"), pair("c", "3")), "ZPOPMAX k 2"),
			sl(rInt(3), "ZADD k 1 a 2 b 3 c"),
			sl(rArr(pair("c", "3"), pair("b", "2"), pair("a", "1")), "ZRANDMEMBER k 5 WITHSCORES"),
			sl(rArr(pair("a", "1"), pair("b", "2"), pair("c", "3")), "ZUNION 1 k WITHSCORES"),
			sl(rArr(rBulk("k"), rArr(pair("a", "1"), pair("b", "2"))), "ZMPOP 1 k MIN COUNT 2"),
			sl(rArr(rBulk("k"), rBulk("c"), rDbl3("3")), "BZPOPMIN k 0"),
			sl(rNull3, "ZMPOP 1 k MIN"),
			sl(rArr(rBulk("0"), rNoItems), "ZSCAN k 0"),
		})
	})
}

func TestZPops(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		h.run([]step{
			sl(rInt(4), "ZADD p 1 a 2 b 3 c 4 d"),
			sl(rBulks("a", "1"), "ZPOPMIN p"),
			sl(rBulks("d", "4"), "ZPOPMAX p"),
			sl(rNoItems, "ZPOPMIN p 0"),
			sl("-"+ErrNotPositive+"\r\n", "ZPOPMIN p -1"),
			sl("-"+ErrNotPositive+"\r\n", "ZPOPMIN p x"),
			sl(rSyntax, "ZPOPMIN p 1 2"),
			sl(rBulks("c", "3", "b", "2"), "ZPOPMAX p 10"),
			sl(rInt(0), "EXISTS p"),
			sl(rNoItems, "ZPOPMIN nokey 3"),
			sl(rInt(4), "ZADD p 1 a 2 b 3 c 4 d"),
			sl(rArr(rBulk("p"), rArr(rBulks("a", "1"))), "ZMPOP 1 p MIN"),
			sl(rArr(rBulk("p"), rArr(rBulks("d", "4"), rBulks("c", "3"))), "ZMPOP 2 nokey p MAX COUNT 2"),
			sl(rNullArr, "ZMPOP 1 nokey MIN"),
			sl("-ERR numkeys should be greater than 0\r\n", "ZMPOP 0 p MIN"),
			sl("-ERR numkeys should be greater than 0\r\n", "ZMPOP x p MIN"),
			sl(rSyntax, "ZMPOP 2 p MIN"),
			sl(rSyntax, "ZMPOP 1 p MIDDLE"),
			sl("-ERR count should be greater than 0\r\n", "ZMPOP 1 p MIN COUNT 0"),
			sl(rSyntax, "ZMPOP 1 p MIN COUNT 1 COUNT 1"),
			sl(rOK, "SET str x"),
			sl(rWrongType, "ZMPOP 2 str p MIN"),
			sl(rWrongType, "ZPOPMIN str"),
			sl(rArr(rBulk("p"), rBulk("b"), rBulk("2")), "BZPOPMIN nokey p 0"),
			sl(rInt(0), "EXISTS p"),
			sl("-ERR timeout is negative\r\n", "BZPOPMIN p -1"),
			sl("-ERR timeout is not a float or out of range\r\n", "BZPOPMIN p x"),
			sl("-ERR timeout is out of range\r\n", "BZPOPMIN p 1e300"),
			// 2^63 ms, and a wait that would overflow now+timeout:
			// refused as BLPOP refuses them (BZPOPMIN had its own copy of
			// the parser, which took both and blocked forever).
			sl("-ERR timeout is out of range\r\n", "BZPOPMIN p 9223372036854775.808"),
			sl("-ERR timeout is out of range\r\n", "BZPOPMIN p 9223372036854775"),
			// The timeout is a long double (string2ld), not a double:
			// 1e400 is in range and too long, 1e5000 and 1e-5000 are
			// refused, 1e-400 rounds up to 1 ms (found by tests/cmdfuzz).
			sl("-ERR timeout is out of range\r\n", "BZPOPMIN p 1e400"),
			sl("-ERR timeout is not a float or out of range\r\n", "BZPOPMIN p 1e5000"),
			sl("-ERR timeout is not a float or out of range\r\n", "BZPOPMIN p 1e-5000"),
			sl("-ERR timeout is not a float or out of range\r\n", "BZPOPMIN p 1"+strings.Repeat("0", 5200)),
			sl("-ERR timeout is not a float or out of range\r\n", "BZMPOP 1"+strings.Repeat("0", 5200)+" 1 p MIN"),
			sl(rNullArr, "BZPOPMIN nokey 1e-400"),
			sl(rWrongType, "BZPOPMIN nokey str 0"),
			sl(rNullArr, "BZPOPMIN nokey 0.01"),
			sl(rNullArr, "BZMPOP 0.01 1 nokey MIN"),
		})
	})
}

// TestBZPopBlocking parks clients on an empty key and serves them, first
// come first served, from the pushing command.
func TestBZPopBlocking(t *testing.T) {
	h := newCollHarness(t)
	start := func(args ...string) chan string {
		c := h.client()
		reply := make(chan string, 1)
		// Read the count before starting the client: read after, it could
		// already include this client and the wait below would never end.
		n := h.ks.BlockedWaiters()
		go func() { reply <- h.doOn(c, args...) }()
		// Wait until it is registered.
		deadline := time.Now().Add(5 * time.Second)
		for h.ks.BlockedWaiters() == n {
			if time.Now().After(deadline) {
				t.Fatal("client did not block")
			}
			time.Sleep(time.Millisecond)
		}
		return reply
	}
	first := start("BZPOPMIN", "k1", "k2", "0")
	second := start("BZMPOP", "0", "1", "k2", "MAX", "COUNT", "5")
	if got := h.do("ZADD", "k2", "1", "a", "2", "b", "3", "c"); got != rInt(3) {
		t.Fatalf("ZADD: %q", got)
	}
	want := []string{
		rArr(rBulk("k2"), rBulk("a"), rBulk("1")),
		rArr(rBulk("k2"), rArr(rBulks("c", "3"), rBulks("b", "2"))),
	}
	for i, ch := range []chan string{first, second} {
		w := want[i]
		select {
		case got := <-ch:
			if got != w {
				t.Errorf("client %d: got %q, want %q", i, got, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("client %d was not served", i)
		}
	}
	if got := h.do("EXISTS", "k2"); got != rInt(0) {
		t.Errorf("k2 left behind: %q", got)
	}
	// A store command creating the key serves a waiter too; a key of
	// another type does not.
	third := start("BZPOPMAX", "dst", "0")
	h.do("SET", "dst", "x")
	h.do("DEL", "dst")
	h.do("ZADD", "src", "7", "m")
	h.do("ZUNIONSTORE", "dst", "1", "src")
	select {
	case got := <-third:
		if w := rArr(rBulk("dst"), rBulk("m"), rBulk("7")); got != w {
			t.Errorf("got %q, want %q", got, w)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ZUNIONSTORE did not serve the waiter")
	}
}

func TestZRandMember(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		h.run([]step{
			sl(rNull, "ZRANDMEMBER nokey"),
			sl(rNoItems, "ZRANDMEMBER nokey 3"),
			sl(rInt(3), "ZADD rm 1 a 2 b 3 c"),
			sl(rNoItems, "ZRANDMEMBER rm 0"),
			sl(rBulks("c", "b", "a"), "ZRANDMEMBER rm 3"),
			sl(rBulks("c", "3", "b", "2", "a", "1"), "ZRANDMEMBER rm 10 WITHSCORES"),
			sl(rSyntax, "ZRANDMEMBER rm 1 WITHSCORES x"),
			sl(rSyntax, "ZRANDMEMBER rm 1 x"),
			sl("-ERR value is out of range\r\n", "ZRANDMEMBER rm -4611686018427387904 WITHSCORES"),
			sl("-"+errRangeLong+"\r\n", "ZRANDMEMBER rm -9223372036854775808"),
			sl(rInt(1), "ZADD one 7 m"),
			sl(rBulks("m", "7", "m", "7"), "ZRANDMEMBER one -2 WITHSCORES"),
			sl(rBulk("m"), "ZRANDMEMBER one"),
		})
		for i := range 20 {
			h.do("ZADD", "big", "1", "m"+string(rune('a'+i)))
		}
		for _, n := range []string{"2", "7", "15", "-30"} {
			reply := h.do("ZRANDMEMBER", "big", n)
			want := n
			if n == "-30" {
				want = "30"
			}
			if !strings.HasPrefix(reply, "*"+want+"\r\n") {
				t.Errorf("ZRANDMEMBER big %s: %q", n, reply)
			}
		}
	})
}

func TestZSetOps(t *testing.T) {
	bothEncodings(t, func(t *testing.T, h *collHarness) {
		h.run([]step{
			sl(rInt(3), "ZADD za 1 a 2 b 3 c"),
			sl(rInt(3), "ZADD zb 10 b 20 c 30 d"),
			sl(rInt(3), "SADD sa a d e"),
			sl(rBulks("a", "1", "b", "12", "c", "23", "d", "30"), "ZUNION 2 za zb WITHSCORES"),
			sl(rBulks("a", "2", "b", "9", "d", "15", "c", "16"), "ZUNION 2 za zb WEIGHTS 2 0.5 WITHSCORES"),
			sl(rBulks("a", "1", "b", "2", "c", "3", "d", "30"), "ZUNION 2 za zb AGGREGATE MIN WITHSCORES"),
			sl(rBulks("e", "1", "a", "2", "b", "12", "c", "23", "d", "31"), "ZUNION 3 za zb sa WITHSCORES"),
			sl(rBulks("b", "10", "c", "20"), "ZINTER 2 za zb AGGREGATE MAX WITHSCORES"),
			sl(rBulks("a", "2"), "ZINTER 2 za sa WITHSCORES"),
			sl(rBulks("a", "2", "b", "4", "c", "6"), "ZINTER 2 za za WITHSCORES"),
			sl(rNoItems, "ZINTER 2 za nokey"),
			sl(rBulks("a", "1"), "ZDIFF 2 za zb WITHSCORES"),
			sl(rNoItems, "ZDIFF 2 za za"),
			sl(rSyntax, "ZDIFF 2 za zb WEIGHTS 1 1"),
			sl("-ERR weight value is not a float\r\n", "ZUNION 2 za zb WEIGHTS 1 x"),
			sl(rSyntax, "ZUNION 2 za zb AGGREGATE AVG"),
			sl("-ERR at least 1 input key is needed for 'zunion' command\r\n", "ZUNION 0 za"),
			sl("-ERR at least 1 input key is needed for 'zunionstore' command\r\n", "ZUNIONSTORE o 0 za"),
			sl(rSyntax, "ZUNION 3 za zb"),
			sl("-"+ErrNotInt+"\r\n", "ZUNION x za"),
			sl(rOK, "SET str x"),
			sl(rWrongType, "ZUNION 2 za str"),
			sl(rInt(4), "ZUNIONSTORE out 2 za zb"),
			sl(rSyntax, "ZUNIONSTORE out 2 za zb WITHSCORES"),
			sl(rInt(2), "ZINTERSTORE out 2 za zb WEIGHTS 2 3"),
			sl(rBulks("b", "34", "c", "66"), "ZRANGE out 0 -1 WITHSCORES"),
			sl(rInt(0), "ZDIFFSTORE out 2 za za"),
			sl(rInt(0), "EXISTS out"),
			sl(rInt(2), "ZINTERCARD 2 za zb"),
			sl(rInt(1), "ZINTERCARD 2 za zb LIMIT 1"),
			sl("-ERR LIMIT can't be negative\r\n", "ZINTERCARD 2 za zb LIMIT -1"),
			sl(rSyntax, "ZINTERCARD 2 za zb WITHSCORES"),
			sl(rInt(2), "ZADD inf1 inf a -inf b"),
			sl(rInt(2), "ZADD inf2 -inf a inf b"),
			sl(rBulks("a", "0", "b", "0"), "ZUNION 2 inf1 inf2 WITHSCORES"),
			// 0*inf is NaN, counted as 0, then the second input is added.
			sl(rBulks("a", "-inf", "b", "inf"), "ZINTER 2 inf1 inf2 WEIGHTS 0 1 WITHSCORES"),
		})
	})
}

func TestZSetEncodings(t *testing.T) {
	h := newCollHarness(t)
	configure(h.ks, func(s *Settings) {
		s.ZSetMaxListpackEntries = 3
		s.ZSetMaxListpackValue = 4
	})
	enc := func(e string) string { return rBulk(e) }
	h.run([]step{
		sl(rInt(3), "ZADD a 1 x 2 y 3 z"),
		sl(enc("listpack"), "OBJECT ENCODING a"),
		sl(rInt(1), "ZADD a 4 w"),
		sl(enc("skiplist"), "OBJECT ENCODING a"),
		sl(rInt(3), "ZREMRANGEBYRANK a 0 2"),
		sl(enc("skiplist"), "OBJECT ENCODING a"), // never converts back
		sl(rInt(1), "ZADD b 1 abcde"),
		sl(enc("skiplist"), "OBJECT ENCODING b"),
		sl(rInt(1), "ZADD c 1 abcd"),
		sl(enc("listpack"), "OBJECT ENCODING c"),
		sl(rInt(0), "ZADD c 1 abcd 1 abcd 1 abcd 1 abcd"), // the size hint
		sl(enc("skiplist"), "OBJECT ENCODING c"),
		sl(rInt(1), "ZADD c2 1 abcd"),
		sl(rInt(0), "ZADD c2 XX 1 abcdefgh"), // nothing added, still converts
		sl(enc("skiplist"), "OBJECT ENCODING c2"),
		// Stored results convert back to a listpack when small.
		sl(rInt(1), "ZUNIONSTORE u 1 a"),
		sl(enc("listpack"), "OBJECT ENCODING u"),
		sl(rInt(1), "ZRANGESTORE r a 0 -1"),
		sl(enc("listpack"), "OBJECT ENCODING r"),
		sl(rInt(5), "ZADD big 1 a 2 b 3 c 4 d 5 e"),
		sl(rInt(4), "ZRANGESTORE r big 0 3"), // announced 4 > 3: skiplist
		sl(enc("skiplist"), "OBJECT ENCODING r"),
		sl(rInt(3), "ZRANGESTORE r big 0 2"),
		sl(enc("listpack"), "OBJECT ENCODING r"),
		sl(rInt(4), "ZRANGESTORE r big -inf 4 BYSCORE"),
		sl(enc("skiplist"), "OBJECT ENCODING r"),
		// SORT converts a listpack sorted set in place.
		sl(rInt(2), "ZADD s 2 p 1 q"),
		sl(enc("listpack"), "OBJECT ENCODING s"),
		sl(rBulks("q", "p"), "SORT s BY nosort"),
		sl(enc("skiplist"), "OBJECT ENCODING s"),
		// -0 is kept in a skiplist, stored as 0 in a listpack.
		sl(rInt(1), "ZADD z0 -0 m"),
		sl(rBulk("0"), "ZSCORE z0 m"),
		sl(rInt(1), "ZADD z1 -0 long1"),
		sl(rBulk("-0"), "ZSCORE z1 long1"),
		// COPY keeps the encoding.
		sl(rInt(1), "COPY c c3"),
		sl(enc("skiplist"), "OBJECT ENCODING c3"),
		sl(rInt(1), "COPY u u2"),
		sl(enc("listpack"), "OBJECT ENCODING u2"),
		sl(rBulks("w", "4"), "ZRANGE u2 0 -1 WITHSCORES"),
	})
}

func TestZScan(t *testing.T) {
	h := newCollHarness(t)
	h.run([]step{
		sl(rArr(rBulk("0"), rNoItems), "ZSCAN nokey 0"),
		sl(rInt(3), "ZADD zs 1 a 0.1 b inf c"),
		sl(rArr(rBulk("0"), rBulks("b", "0.1", "a", "1", "c", "inf")), "ZSCAN zs 0"),
		sl(rArr(rBulk("0"), rBulks("b", "a", "c")), "ZSCAN zs 0 NOSCORES"),
		sl(rArr(rBulk("0"), rBulks("a", "1")), "ZSCAN zs 0 MATCH a"),
		sl("-ERR NOVALUES option can only be used in HSCAN\r\n", "ZSCAN zs 0 NOVALUES"),
	})
	// A skiplist's scores print as %.17g (ld2string).
	configure(h.ks, func(s *Settings) { s.ZSetMaxListpackEntries = 0 })
	h.do("ZADD", "sk", "0.1", "b")
	if got, want := h.do("ZSCAN", "sk", "0"), rArr(rBulk("0"), rBulks("b", "0.10000000000000001")); got != want {
		t.Errorf("ZSCAN skiplist: %q, want %q", got, want)
	}
}

func TestAppendScore(t *testing.T) {
	tenth, fifth := 0.1, 0.2 // variables: constants would add exactly
	for _, c := range []struct {
		f    float64
		want string
	}{
		{0, "0"}, {math.Copysign(0, -1), "-0"}, {1, "1"}, {-3, "-3"},
		{1.5, "1.5"}, {0.1, "0.1"}, {3.3, "3.3"}, {tenth + fifth, "0.30000000000000004"},
		{1e17, "100000000000000000"}, {1 << 62, "4611686018427387904"},
		{1e19, "1e+19"}, {1.2345678901234567e19, "12345678901234567000"},
		{1e-5, "0.00001"}, {1.5e-7, "1.5e-7"}, {1e-7, "1e-7"}, {0.000123, "0.000123"},
		{123456.789, "123456.789"}, {1e300, "1e+300"}, {-2.5e-300, "-2.5e-300"},
		{math.Inf(1), "inf"}, {math.Inf(-1), "-inf"}, {math.NaN(), "nan"},
	} {
		if got := string(appendScore(nil, c.f)); got != c.want {
			t.Errorf("appendScore(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

// TestParseSmallInt: parseDouble's integer fast path agrees with strtod,
// sign of zero included, and leaves everything else to it.
func TestParseSmallInt(t *testing.T) {
	ins := []string{"0", "-0", "7", "-7", "007", "123456789012345", "-999999999999999",
		"1234567890123456", "+5", "5.0", "1e3", "-", "", "12a", " 1", "0x10"}
	for i := range 2000 {
		ins = append(ins, strconv.FormatInt(int64(i*i*i)-1_000_000, 10))
	}
	for _, in := range ins {
		v, ok := parseSmallInt([]byte(in))
		want, n, _ := strtod([]byte(in))
		plain := len(in) > 0 && len(strings.TrimPrefix(in, "-")) <= 15 &&
			strings.Trim(strings.TrimPrefix(in, "-"), "0123456789") == "" && in != "-"
		if ok != plain {
			t.Errorf("parseSmallInt(%q) ok = %v, want %v", in, ok, plain)
			continue
		}
		if ok && (n != len(in) || v != want || math.Signbit(v) != math.Signbit(want)) {
			t.Errorf("parseSmallInt(%q) = %v, strtod %v", in, v, want)
		}
		if pv, pok := parseDouble([]byte(in)); ok && (!pok || pv != v || math.Signbit(pv) != math.Signbit(v)) {
			t.Errorf("parseDouble(%q) = %v %v", in, pv, pok)
		}
	}
}

func TestStrtod(t *testing.T) {
	for _, c := range []struct {
		in     string
		v      float64
		n      int
		range_ bool
	}{
		{"1.5", 1.5, 3, false}, {" 1", 1, 2, false}, {"1 ", 1, 1, false},
		{"-inf", math.Inf(-1), 4, false}, {"+Infinity", math.Inf(1), 9, false},
		{"infx", math.Inf(1), 3, false}, {"0x10", 16, 4, false}, {"0x", 0, 1, false},
		{"1e5", 1e5, 3, false}, {"1e", 1, 1, false}, {".5", 0.5, 2, false},
		{"5.", 5, 2, false}, {".", 0, 0, false}, {"", 0, 0, false}, {"abc", 0, 0, false},
		{"1e400", math.Inf(1), 5, true}, {"1e-400", 0, 6, true}, {"0e-400", 0, 6, false},
	} {
		v, n, re := strtod([]byte(c.in))
		if v != c.v || n != c.n || re != c.range_ {
			t.Errorf("strtod(%q) = %v %d %v, want %v %d %v", c.in, v, n, re, c.v, c.n, c.range_)
		}
	}
	if v, _, _ := strtod([]byte("nan(123)")); !math.IsNaN(v) {
		t.Error("nan not parsed")
	}
}
