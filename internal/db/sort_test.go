package db

import "testing"

func TestSort(t *testing.T) {
	h := newCollHarness(t)
	h.run([]step{
		sl(rInt(6), "RPUSH l 3 1 2 10 -5 2.5"),
		sl(rBulks("-5", "1", "2", "2.5", "3", "10"), "SORT l"),
		sl(rBulks("10", "3", "2.5", "2", "1", "-5"), "SORT l DESC"),
		sl(rBulks("-5", "1", "10", "2", "2.5", "3"), "SORT l ALPHA"),
		sl(rBulks("1", "2"), "SORT l LIMIT 1 2"),
		sl(rNoItems, "SORT l LIMIT 0 0"),
		sl(rBulks("-5", "1"), "SORT l LIMIT -5 2"),
		sl(rNoItems, "SORT l LIMIT 100 2"),
		sl(rBulks("2.5", "3", "10"), "SORT l LIMIT 3 -1"),
		sl("-"+ErrNotInt+"\r\n", "SORT l LIMIT x 1"),
		sl(rSyntax, "SORT l LIMIT 1"),
		sl(rSyntax, "SORT l BADOPT"),
		sl(rNoItems, "SORT nokey"),
		sl(rOK, "SET str x"),
		sl(rWrongType, "SORT str"),
		sl(rInt(3), "RPUSH bad 1 a 2"),
		sl("-ERR One or more scores can't be converted into double\r\n", "SORT bad"),
		sl(rBulks("1", "2", "a"), "SORT bad ALPHA"),
		// BY and GET patterns.
		sl(rOK, "MSET w_3 30 w_1 10 w_2 20 w_10 5 w_-5 100 w_2.5 0"),
		sl(rBulks("2.5", "10", "1", "2", "3", "-5"), "SORT l BY w_*"),
		sl(rBulks("2.5", "0", "10", "5"), "SORT l BY w_* LIMIT 0 2 GET # GET w_*"),
		sl(rArr(rNull, rNull), "SORT l BY w_* LIMIT 0 2 GET nokey_*"),
		sl(rBulks("3", "1", "2", "10", "-5", "2.5"), "SORT l BY nosort"),
		sl(rBulks("2.5", "-5", "10"), "SORT l BY nosort DESC LIMIT 0 3"),
		sl(rInt(2), "HSET o_1 name one age 30"),
		sl(rInt(2), "HSET o_2 name two age 20"),
		// Missing weights count as 0; equal weights order by element.
		sl(rArr(rNull, rNull, rNull, rNull, rBulk("two"), rBulk("one")), "SORT l BY o_*->age GET o_*->name"),
		// ALPHA: missing values first, in their original order.
		sl(rBulks("3", "10", "-5", "2.5", "1", "2"), "SORT l BY o_*->name ALPHA"),
		// Sets and sorted sets.
		sl(rInt(3), "SADD s 5 3 9"),
		sl(rBulks("3", "5", "9"), "SORT s"),
		sl(rInt(3), "SADD ss b a c"),
		sl(rInt(3), "SORT ss BY nosort STORE sso"), // a set is sorted when stored
		sl(rBulks("a", "b", "c"), "LRANGE sso 0 -1"),
		sl(rInt(3), "ZADD z 3 a 1 b 2 c"),
		sl(rBulks("b", "c", "a"), "SORT z BY nosort"),
		sl(rBulks("a", "c"), "SORT z BY nosort DESC LIMIT 0 2"),
		sl(rBulks("a", "b", "c"), "SORT z ALPHA"),
		// STORE
		sl(rInt(6), "SORT l STORE out"),
		sl(rBulks("-5", "1", "2", "2.5", "3", "10"), "LRANGE out 0 -1"),
		sl(rInt(2), "SORT l LIMIT 0 2 GET nokey_* STORE out"),
		sl(rBulks("", ""), "LRANGE out 0 -1"),
		sl(rInt(0), "SORT nokey STORE out"),
		sl(rInt(0), "EXISTS out"),
		sl(rSyntax, "SORT_RO l STORE out"),
		sl(rBulks("-5", "1"), "SORT_RO l LIMIT 0 2"),
	})
	h.c.W.Proto = 3
	h.run([]step{
		sl(rArr(rBulk("2.5"), rNull3), "SORT l BY w_* LIMIT 0 1 GET # GET nokey_*"),
	})
}
