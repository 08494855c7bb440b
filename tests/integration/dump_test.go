package integration

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/internal/ds"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// dumpCase is a key of one type and encoding, built by commands.
type dumpCase struct {
	key  string
	cmds [][]any
}

func dumpCases() []dumpCase {
	long := strings.Repeat("x", 100)
	huge := strings.Repeat("y", 20000)
	many := func(cmd, key string, n int, member func(i int) []any) []any {
		out := []any{cmd, key}
		for i := range n {
			out = append(out, member(i)...)
		}
		return out
	}
	num := func(i int) []any { return []any{strconv.Itoa(i*7 - 300)} }
	str := func(i int) []any { return []any{"m" + strconv.Itoa(i)} }
	return []dumpCase{
		{"s:int", [][]any{{"SET", "s:int", "-12345"}}},
		{"s:embstr", [][]any{{"SET", "s:embstr", "hello"}}},
		{"s:raw", [][]any{{"SET", "s:raw", long}}},
		{"s:huge", [][]any{{"SET", "s:huge", huge}}},
		{"s:appended", [][]any{{"SET", "s:appended", "12"}, {"APPEND", "s:appended", "3"}}},
		{"s:float", [][]any{{"SET", "s:float", "1.5"}, {"INCRBYFLOAT", "s:float", "1"}}},
		{"l:small", [][]any{{"RPUSH", "l:small", "a", "1", "-7", "c"}}},
		{"l:big", [][]any{many("RPUSH", "l:big", 2000, str)}},
		{"l:plain", [][]any{{"RPUSH", "l:plain", "a", huge, "b"}}},
		{"set:int", [][]any{many("SADD", "set:int", 50, num)}},
		{"set:lp", [][]any{{"SADD", "set:lp", "a", "b", "3", "c"}}},
		{"set:intbig", [][]any{many("SADD", "set:intbig", 600, num)}},
		{"set:strbig", [][]any{many("SADD", "set:strbig", 200, str)}},
		{"set:long", [][]any{{"SADD", "set:long", "a", long}}},
		{"z:small", [][]any{{"ZADD", "z:small", "1", "a", "-2.5", "b", "1", "0", "inf", "c", "3.14159", "d"}}},
		{"z:big", [][]any{many("ZADD", "z:big", 300, func(i int) []any {
			return []any{strconv.FormatFloat(float64(i%17)/3, 'g', -1, 64), "m" + strconv.Itoa(i)}
		})}},
		{"z:long", [][]any{{"ZADD", "z:long", "1", long, "2", "b"}}},
		{"h:small", [][]any{{"HSET", "h:small", "f1", "v1", "f2", "12", "f3", ""}}},
		{"h:big", [][]any{many("HSET", "h:big", 600, func(i int) []any {
			return []any{"f" + strconv.Itoa(i), strconv.Itoa(i)}
		})}},
		{"h:long", [][]any{{"HSET", "h:long", "f", long}}},
	}
}

// valueOf renders key's type and value independently of element order
// where the type has none.
func valueOf(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	ctx := context.Background()
	typ := c.Type(ctx, key).Val()
	var parts []string
	switch typ {
	case "string":
		parts = []string{c.Get(ctx, key).Val()}
	case "list":
		parts = c.LRange(ctx, key, 0, -1).Val()
	case "set":
		parts = c.SMembers(ctx, key).Val()
		slices.Sort(parts)
	case "zset":
		for _, z := range c.ZRangeWithScores(ctx, key, 0, -1).Val() {
			parts = append(parts, fmt.Sprintf("%v=%v", z.Member, z.Score))
		}
	case "hash":
		for f, v := range c.HGetAll(ctx, key).Val() {
			parts = append(parts, f+"="+v)
		}
		slices.Sort(parts)
	}
	return typ + ":" + strings.Join(parts, ",")
}

// TestDumpRestoreInterop: DUMP payloads of every type and encoding move
// between valkey-server 8.0.1 and corvid-server both ways, keeping value,
// TTL and OBJECT ENCODING; RESTORE's options and error replies are the
// same on both.
func TestDumpRestoreInterop(t *testing.T) {
	vk := testutil.StartValkey(t)
	cv := testutil.StartCorvid(t)
	ctx := context.Background()
	client := func(addr string) *redis.Client {
		c := redis.NewClient(&redis.Options{Addr: addr, Protocol: 2, MaxRetries: -1})
		t.Cleanup(func() { c.Close() })
		return c
	}
	v, c := client(vk.Addr), client(cv.Addr)
	names := map[*redis.Client]string{v: "valkey", c: "corvid"}
	for i, dc := range dumpCases() {
		for _, cl := range []*redis.Client{v, c} {
			for _, cmd := range dc.cmds {
				if err := cl.Do(ctx, cmd...).Err(); err != nil {
					t.Fatalf("%s: %v: %v", names[cl], cmd[:2], err)
				}
			}
			if i%2 == 0 {
				cl.PExpire(ctx, dc.key, 1e8)
			}
		}
		for _, from := range []*redis.Client{v, c} {
			p, err := from.Dump(ctx, dc.key).Result()
			if err != nil {
				t.Fatalf("%s: DUMP %s: %v", names[from], dc.key, err)
			}
			at := from.PExpireTime(ctx, dc.key).Val().Milliseconds()
			ttl := "0"
			if at > 0 {
				ttl = strconv.FormatInt(at, 10)
			}
			// Restored on both servers (the source included), the value,
			// expiry and encoding are the same everywhere.
			dst := "restored:" + dc.key
			for _, to := range []*redis.Client{v, c} {
				what := names[from] + " -> " + names[to] + " " + dc.key
				if err := to.Do(ctx, "RESTORE", dst, ttl, p, "ABSTTL", "REPLACE").Err(); err != nil {
					t.Fatalf("%s: RESTORE: %v", what, err)
				}
				if a, b := valueOf(t, from, dc.key), valueOf(t, to, dst); a != b {
					t.Errorf("%s: value\n%.300s\nrestored\n%.300s", what, a, b)
				}
				if a, b := from.PExpireTime(ctx, dc.key).Val(), to.PExpireTime(ctx, dst).Val(); a != b {
					t.Errorf("%s: PEXPIRETIME %v, restored %v", what, a, b)
				}
			}
			if a, b := v.ObjectEncoding(ctx, dst).Val(), c.ObjectEncoding(ctx, dst).Val(); a != b {
				t.Errorf("%s's DUMP of %s (%s): restored as %s by valkey, %s by corvid", names[from], dc.key,
					from.ObjectEncoding(ctx, dc.key).Val(), a, b)
			}
		}
	}

	// Options and errors: the same replies, byte for byte.
	rv, rc := testutil.Dial(t, vk.Addr), testutil.Dial(t, cv.Addr)
	for _, r := range []*testutil.Raw{rv, rc} {
		r.Do("SET", "k", "v")
	}
	good := v.Dump(ctx, "k").Val()
	bad := []byte(good)
	bad[len(bad)-1] ^= 0xff
	newer := []byte(good)
	newer[len(newer)-10] = 99
	// Valid footers around bodies Valkey cannot load: an unknown type, an
	// empty quicklist. (A value cut short is not among them: Valkey reads
	// on into the footer's bytes, rdb.ParseDumpPayload stops at the
	// footer and answers Bad data format.)
	withFooter := func(body ...byte) string {
		b := binary.LittleEndian.AppendUint16(body, rdb.Version)
		return string(binary.LittleEndian.AppendUint64(b, ds.CRC64(0, b)))
	}
	for _, args := range [][]string{
		{"RESTORE", "k", "0", good},
		{"RESTORE", "k", "-1", good},
		{"RESTORE", "n", "-1", good},
		{"RESTORE", "n", "x", good},
		{"RESTORE", "n", "0", "short"},
		{"RESTORE", "n", "0", ""},
		{"RESTORE", "n", "0", string(bad)},
		{"RESTORE", "n", "0", string(newer)},
		{"RESTORE", "n", "0", withFooter(200)},
		{"RESTORE", "n", "0", withFooter(18, 0)},
		{"RESTORE", "n", "0", withFooter(0, 1, 'x')},
		{"GET", "n"},
		{"RESTORE", "n", "0", good, "IDLETIME", "-1"},
		{"RESTORE", "n", "0", good, "IDLETIME", "x"},
		{"RESTORE", "n", "0", good, "FREQ", "256"},
		{"RESTORE", "n", "0", good, "FREQ", "-1"},
		{"RESTORE", "n", "0", good, "IDLETIME", "1", "FREQ", "1"},
		{"RESTORE", "n", "0", good, "FREQ", "1", "IDLETIME", "1"},
		{"RESTORE", "n", "0", good, "IDLETIME"},
		{"RESTORE", "n", "0", good, "BOGUS"},
		{"RESTORE", "k", "0", good, "BOGUS"},
		{"RESTORE", "n", "0", good, "replace", "absttl"},
		{"RESTORE", "n", "1", good, "ABSTTL", "REPLACE"},
		{"EXISTS", "n"},
		{"RESTORE", "n", "0", good},
		{"RESTORE", "n", "1", good, "ABSTTL", "REPLACE"},
		{"EXISTS", "n"},
		{"RESTORE", "n", "0", good, "IDLETIME", "1000"},
		{"OBJECT", "IDLETIME", "n"},
		{"RESTORE"},
		{"RESTORE", "n", "0"},
		{"DUMP", "missing"},
		{"DUMP"},
		{"CONFIG", "SET", "maxmemory-policy", "allkeys-lfu"},
		{"RESTORE", "f", "0", good, "FREQ", "100"},
		{"OBJECT", "FREQ", "f"},
		{"RESTORE", "f2", "0", good, "IDLETIME", "100"},
		{"OBJECT", "FREQ", "f2"},
		{"CONFIG", "SET", "maxmemory-policy", "noeviction"},
	} {
		a, b := rv.Do(args...), rc.Do(args...)
		if a != b {
			t.Errorf("%.60q: valkey %s, corvid %s", args, a, b)
		}
	}
}
