package integration

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestDebugObjectAndDumpAgainstValkey builds the same values on Corvid and
// valkey-server 8.0.1 (lists under several list-max-listpack-size values
// and DEBUG QUICKLIST-PACKED-THRESHOLD, and under list-compress-depth 1
// and 2; sets, hashes, sorted sets, strings) and requires the same DEBUG
// OBJECT lines (serializedlength, the quicklist's ql_* fields; the
// address and the clock fields aside). DUMP payloads must be
// byte-identical except for hashtable-encoded values, whose order is each
// server's hash order; both are compared again with rdbcompression no,
// where Valkey still writes compressed list nodes as LZF. DEBUG
// HTSTATS-KEY agrees on what is not a hash table; for hash tables the
// element count is checked (how far an incremental rehash got is each
// server's own).
func TestDebugObjectAndDumpAgainstValkey(t *testing.T) {
	if !testutil.HaveValkey(t) {
		t.Skip("valkey-server not found")
	}
	cv := testutil.Dial(t, testutil.StartCorvid(t, "--enable-debug-command", "yes").Addr)
	vk := testutil.Dial(t, testutil.StartValkey(t, "--enable-debug-command", "yes").Addr)
	r := rand.New(rand.NewPCG(7, 7))
	var script [][]string
	add := func(args ...string) { script = append(script, args) }
	var keys []string
	for i, fill := range []string{"4", "-1", "-2", "1"} {
		for j, thr := range []string{"0", "1000"} {
			key := "l" + strconv.Itoa(i) + strconv.Itoa(j)
			keys = append(keys, key)
			add("DEBUG", "QUICKLIST-PACKED-THRESHOLD", thr)
			add("CONFIG", "SET", "list-max-listpack-size", fill)
			for n := 0; n < 60; n++ {
				v := strings.Repeat(string(rune('a'+n%26)), 1+r.IntN(r.IntN(9000)+1))
				add([]string{"RPUSH", "LPUSH"}[n%2], key, v, "v"+strconv.Itoa(n))
			}
			add("LINSERT", key, "BEFORE", "v7", strings.Repeat("z", 3000))
			add("LREM", key, "0", "v9")
			add("LSET", key, "5", "short")
		}
	}
	add("DEBUG", "QUICKLIST-PACKED-THRESHOLD", "0")
	add("CONFIG", "SET", "list-max-listpack-size", "-2")
	keys = append(keys, compressedListScript(r, add)...)
	for n := 0; n < 600; n++ {
		add("SADD", "set", "m"+strconv.Itoa(n))
		add("SADD", "iset", strconv.Itoa(n))
		add("HSET", "hash", "f"+strconv.Itoa(n), strings.Repeat("x", n%70))
		add("ZADD", "zset", strconv.Itoa(n%37), "m"+strconv.Itoa(n))
	}
	add("SET", "s1", strings.Repeat("abcdefghij", 30))
	add("SET", "s2", "12345")
	add("SET", "s3", "hello")
	keys = append(keys, "s1", "s2", "s3")
	tables := []string{"set", "iset", "hash", "zset"}
	for _, a := range script {
		if g, w := cv.Do(a...), vk.Do(a...); g != w {
			t.Fatalf("%s: corvid %s, valkey %s", strings.Join(a, " ")[:min(80, len(strings.Join(a, " ")))], g, w)
		}
	}
	drop := regexp.MustCompile(` at:\S+| lru:\d+| lru_seconds_idle:\d+| lfu_access_time_minutes:\d+`)
	for _, k := range append(keys, tables...) {
		g := drop.ReplaceAllString(cv.Do("DEBUG", "OBJECT", k), "")
		w := drop.ReplaceAllString(vk.Do("DEBUG", "OBJECT", k), "")
		if g != w {
			t.Errorf("DEBUG OBJECT %s:\n corvid %s\n valkey %s", k, g, w)
		}
	}
	for _, k := range keys {
		if g, w := cv.Do("DUMP", k), vk.Do("DUMP", k); g != w {
			t.Errorf("DUMP %s differs:\n corvid %.200s\n valkey %.200s", k, g, w)
		}
		if g, w := cv.Do("DEBUG", "HTSTATS-KEY", k), vk.Do("DEBUG", "HTSTATS-KEY", k); g != w {
			t.Errorf("DEBUG HTSTATS-KEY %s:\n corvid %s\n valkey %s", k, g, w)
		}
	}
	// rdbcompression no: Valkey still saves the compressed nodes of the
	// lists with a compress depth as LZF strings (serializedlength and
	// DUMP); every other string goes verbatim.
	for _, c := range []*testutil.Raw{cv, vk} {
		expect(t, c, "+OK", "CONFIG", "SET", "rdbcompression", "no")
	}
	for _, k := range keys {
		g := drop.ReplaceAllString(cv.Do("DEBUG", "OBJECT", k), "")
		w := drop.ReplaceAllString(vk.Do("DEBUG", "OBJECT", k), "")
		if g != w {
			t.Errorf("rdbcompression no: DEBUG OBJECT %s:\n corvid %s\n valkey %s", k, g, w)
		}
		if g, w := cv.Do("DUMP", k), vk.Do("DUMP", k); g != w {
			t.Errorf("rdbcompression no: DUMP %s differs:\n corvid %.200s\n valkey %.200s", k, g, w)
		}
	}
	for _, k := range tables {
		if g := cv.Do("DEBUG", "HTSTATS-KEY", k); !strings.Contains(g, "number of elements: 600") {
			t.Errorf("DEBUG HTSTATS-KEY %s: %s", k, g)
		}
	}
}

// compressedListScript adds the commands that build lists under
// list-compress-depth 1 and 2 (and one created at depth 0 before the
// setting changed, which keeps 0 as in Valkey): size- and count-based
// fills, plain nodes, values that LZF shrinks a lot and values it hardly
// shrinks (random letters: nodes Valkey leaves raw), then edits at both
// ends and in the middle (pops that drop nodes, LINSERT, LSET, LREM,
// LTRIM, LMOVE). It returns the keys.
func compressedListScript(r *rand.Rand, add func(...string)) []string {
	var keys []string
	random := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	val := func(n int) string {
		switch r.IntN(8) {
		case 0:
			return strconv.Itoa(r.IntN(100000))
		case 1, 2:
			return random(1 + r.IntN(150))
		case 3:
			if n%7 == 0 {
				return strings.Repeat("plain ", 1000+r.IntN(600)) // larger than a -1 node
			}
		}
		return "item:" + strconv.Itoa(n) + ":" + strings.Repeat("word ", r.IntN(30))
	}
	add("CONFIG", "SET", "list-compress-depth", "0")
	add("RPUSH", "c-before", "x")
	for _, depth := range []string{"1", "2"} {
		add("CONFIG", "SET", "list-compress-depth", depth)
		for _, fill := range []string{"-2", "-1", "4", "1"} {
			key := "c" + depth + "/" + fill
			keys = append(keys, key)
			add("CONFIG", "SET", "list-max-listpack-size", fill)
			for n := 0; n < 400; n++ {
				add([]string{"RPUSH", "LPUSH"}[n%3/2], key, val(n))
			}
			add("LINSERT", key, "AFTER", "item:200:", strings.Repeat("inserted ", 40))
			add("LSET", key, "150", random(300))
			add("LSET", key, "-120", "short")
			add("LREM", key, "0", "item:99:")
			add("LPOP", key, "25")
			add("RPOP", key, "3")
			add("LMOVE", key, key, "LEFT", "RIGHT")
			add("LTRIM", key, "2", "-30")
			add("LINDEX", key, "100")
			add("LRANGE", key, "50", "70")
		}
		// Few nodes: the depth covers them all, then not.
		key := "c" + depth + "/few"
		keys = append(keys, key)
		add("CONFIG", "SET", "list-max-listpack-size", "8")
		for n := 0; n < 40; n++ {
			add("RPUSH", key, "few:"+strings.Repeat("ab", 30)+strconv.Itoa(n))
			if n%10 == 9 {
				add("RPOP", key, "3")
			}
		}
	}
	add("RPUSH", "c-before", strings.Repeat("later ", 5000), "y", "z")
	keys = append(keys, "c-before")
	add("CONFIG", "SET", "list-compress-depth", "0")
	add("CONFIG", "SET", "list-max-listpack-size", "-2")
	return keys
}

// TestDebugPauseCron: with the periodic jobs paused, active expiry leaves
// an expired key stored (DBSIZE counts it); resumed, it removes it. Run on
// Corvid and, when present, valkey-server 8.0.1.
func TestDebugPauseCron(t *testing.T) {
	servers := map[string]*testutil.Proc{"corvid": testutil.StartCorvid(t, "--enable-debug-command", "yes")}
	if testutil.HaveValkey(t) {
		servers["valkey"] = testutil.StartValkey(t, "--enable-debug-command", "yes")
	}
	for name, srv := range servers {
		t.Run(name, func(t *testing.T) {
			c := testutil.Dial(t, srv.Addr)
			expect(t, c, "+OK", "DEBUG", "PAUSE-CRON", "1")
			expect(t, c, "+OK", "SET", "k", "v", "PX", "20")
			// Ten active-expiry periods at the default hz.
			time.Sleep(time.Second)
			expect(t, c, ":1", "DBSIZE")
			expect(t, c, "+OK", "DEBUG", "PAUSE-CRON", "0")
			if !waitFor(hangTimeout, func() bool { return c.Do("DBSIZE") == ":0" }) {
				t.Errorf("the expired key stayed after DEBUG PAUSE-CRON 0")
			}
		})
	}
}
