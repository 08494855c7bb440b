package integration

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// bigValue is n bytes that differ along their length and from every
// other tag's, so a value that shares bytes with another buffer shows.
func bigValue(tag string, n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(tag + strconv.Itoa(i) + ",")
	}
	return b.String()[:n]
}

// TestBigArgAdopted: a big argument read into a buffer of its own and
// kept by the value it sets (SET, MSET, APPEND to a missing key, ...)
// shares nothing with the connection's read buffer: later commands on
// the same connection, big arguments pipelined with it or after it,
// arguments split across many reads, and writes that grow or change the
// value in place leave every other value as it was. Run on the default
// network path and on the goroutine one, and with an AOF that a reload
// must read back as the values were written.
func TestBigArgAdopted(t *testing.T) {
	const n = 300000
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"default", nil},
		{"goroutine", []string{"--net-engine", "goroutine"}},
		{"aof", []string{"--save", "", "--appendonly", "yes", "--appendfsync", "always", "--enable-debug-command", "yes"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := testutil.StartCorvid(t, tc.args...)
			c := testutil.Dial(t, srv.Addr)
			want := map[string]string{}
			check := func(when string) {
				t.Helper()
				for k, v := range want {
					if got := c.Do("GET", k); got != strconv.Quote(v) {
						t.Fatalf("%s: GET %s: %d bytes, not the value written", when, k, len(got))
					}
				}
			}

			// One big SET, then more commands on the same connection.
			want["a"] = bigValue("a", n)
			expect(t, c, "+OK", "SET", "a", want["a"])
			for i := range 100 {
				expect(t, c, "+OK", "SET", "s"+strconv.Itoa(i), strings.Repeat("s", 100))
			}
			check("after small commands")

			// Big arguments pipelined with each other and with small
			// commands, in one write.
			var p strings.Builder
			for _, k := range []string{"b", "c"} {
				want[k] = bigValue(k, n)
				p.WriteString(testutil.Command("SET", k, want[k]))
				p.WriteString(testutil.Command("PING"))
			}
			want["d"], want["e"] = bigValue("d", n+1), bigValue("e", 40000)
			p.WriteString(testutil.Command("MSET", "d", want["d"], "e", want["e"]))
			want["f"] = bigValue("f", n)
			p.WriteString(testutil.Command("APPEND", "f", want["f"]))
			for i := range 500 {
				p.WriteString(testutil.Command("SET", "p"+strconv.Itoa(i), "v"))
			}
			c.WriteRaw(p.String())
			for _, r := range []string{"+OK", "+PONG", "+OK", "+PONG", "+OK", ":" + strconv.Itoa(n)} {
				expectRead(t, c, r)
			}
			for range 500 {
				expectRead(t, c, "+OK")
			}
			check("after a pipeline")

			// A big argument in small pieces, another client's commands
			// in between.
			other := testutil.Dial(t, srv.Addr)
			want["g"] = bigValue("g", n)
			cmd := testutil.Command("SET", "g", want["g"]) + testutil.Command("GET", "a")
			for off := 0; off < len(cmd); off += 50000 {
				c.WriteRaw(cmd[off:min(off+50000, len(cmd))])
				time.Sleep(time.Millisecond)
				expect(t, other, "+OK", "SET", "x", strings.Repeat("x", 1000))
			}
			expectRead(t, c, "+OK")
			expectRead(t, c, strconv.Quote(want["a"]))
			check("after a split argument")

			// Growth and changes in place, then more big SETs on the
			// connection: each value changes alone.
			expect(t, c, ":"+strconv.Itoa(n+1), "SETRANGE", "a", strconv.Itoa(n), "!")
			want["a"] += "!"
			expect(t, c, ":"+strconv.Itoa(n), "SETRANGE", "b", "0", "Z")
			want["b"] = "Z" + want["b"][1:]
			expect(t, c, "*[:0]", "BITFIELD", "c", "SET", "u8", "#"+strconv.Itoa(n), "1")
			want["c"] += "\x01"
			expect(t, c, ":"+strconv.Itoa(n+4), "APPEND", "d", "end")
			want["d"] += "end"
			expect(t, c, ":0", "SETBIT", "e", "0", "1")
			want["e"] = string([]byte{want["e"][0] | 0x80}) + want["e"][1:]
			want["h"] = bigValue("h", n)
			expect(t, c, "+OK", "SET", "h", want["h"])
			check("after writes in place")

			// Inside MULTI and a script: the values are copies.
			want["m"] = bigValue("m", n)
			expect(t, c, "+OK", "MULTI")
			expect(t, c, "+QUEUED", "SET", "m", want["m"])
			expect(t, c, "*[+OK]", "EXEC")
			want["l"] = bigValue("l", n)
			expect(t, c, ":"+strconv.Itoa(n), "EVAL", "redis.call('SET', KEYS[1], ARGV[1]) return redis.call('STRLEN', KEYS[1])", "1", "l", want["l"])
			expect(t, c, ":"+strconv.Itoa(n), "SETRANGE", "l", "1", "L")
			want["l"] = want["l"][:1] + "L" + want["l"][2:]
			check("after MULTI and EVAL")

			if tc.name == "aof" {
				expect(t, c, "+OK", "DEBUG", "LOADAOF")
				check("after DEBUG LOADAOF")
			}
		})
	}
}
