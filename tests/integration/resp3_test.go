package integration

import (
	"regexp"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestHello3Wire checks HELLO's map and the RESP3 encodings on the wire.
func TestHello3Wire(t *testing.T) {
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)

	// Before HELLO: RESP2 encodings.
	expectExact(t, c, "$-1\r\n", "GET", "missing")
	expectExact(t, c, "*2\r\n$-1\r\n$-1\r\n", "MGET", "a", "b")
	expectExact(t, c, "$-1\r\n", "RANDOMKEY")

	id := c.Do("CLIENT", "ID")
	if len(id) < 2 || id[0] != ':' {
		t.Fatalf("CLIENT ID = %s", id)
	}
	hello := func(proto string) string {
		n := "%7\r\n"
		if proto == "2" {
			n = "*14\r\n"
		}
		return n +
			"$6\r\nserver\r\n$6\r\nvalkey\r\n" +
			"$7\r\nversion\r\n$5\r\n8.0.1\r\n" +
			"$5\r\nproto\r\n:" + proto + "\r\n" +
			"$2\r\nid\r\n" + id + "\r\n" +
			"$4\r\nmode\r\n$10\r\nstandalone\r\n" +
			"$4\r\nrole\r\n$6\r\nmaster\r\n" +
			"$7\r\nmodules\r\n*0\r\n"
	}
	expectExact(t, c, hello("2"), "HELLO")
	expectExact(t, c, hello("3"), "HELLO", "3")
	expectExact(t, c, hello("3"), "HELLO") // no argument: stays on 3

	// RESP3 encodings.
	expectExact(t, c, "_\r\n", "GET", "missing")
	expectExact(t, c, "*2\r\n_\r\n_\r\n", "MGET", "a", "b")
	expectExact(t, c, "_\r\n", "RANDOMKEY")
	expectExact(t, c, "+OK\r\n", "SET", "k", "v")
	expectExact(t, c, "$1\r\nv\r\n", "GET", "k")
	expectExact(t, c, ":1\r\n", "EXISTS", "k")
	expectExact(t, c, "$3\r\n1.5\r\n", "INCRBYFLOAT", "f", "1.5") // a bulk string in RESP3 too, as in Valkey
	expectExact(t, c, "_\r\n", "SET", "newkey", "v", "NX", "GET")
	expectExact(t, c, "_\r\n", "GETDEL", "missing")
	expectExact(t, c, "_\r\n", "GETEX", "missing")
	expectExact(t, c, "*2\r\n$1\r\n0\r\n*0\r\n", "SCAN", "0", "MATCH", "nothing*")
	expectExact(t, c, "%1\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n", "CONFIG", "GET", "maxclients")
	expectExact(t, c, "-ERR unknown command 'NOPE', with args beginning with: \r\n", "NOPE")

	// Back to RESP2.
	expectExact(t, c, hello("2"), "HELLO", "2")
	expectExact(t, c, "$-1\r\n", "GET", "missing")
	expectExact(t, c, "*2\r\n$10\r\nmaxclients\r\n$5\r\n10000\r\n", "CONFIG", "GET", "maxclients")

	// HELLO with SETNAME names the connection.
	if got := c.Do("HELLO", "3", "SETNAME", "resp3-conn"); got[0] != '%' {
		t.Fatalf("HELLO 3 SETNAME: %s", got)
	}
	expectExact(t, c, "$10\r\nresp3-conn\r\n", "CLIENT", "GETNAME")
	// RESET goes back to RESP2 and forgets the name.
	expectExact(t, c, "+RESET\r\n", "RESET")
	expectExact(t, c, "$-1\r\n", "GET", "missing")
	expectExact(t, c, "$-1\r\n", "CLIENT", "GETNAME")
}

// TestGoRedisRESP3 uses go-redis with Protocol 3 (HELLO 3 on connect).
func TestGoRedisRESP3(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx := testCtx(t, 10*time.Second)
	c := newClient(t, srv.Addr, 3, func(o *redis.Options) { o.ClientName = "gr3" })
	hello, err := c.Do(ctx, "HELLO").Result()
	if err != nil {
		t.Fatal(err)
	}
	m, ok := hello.(map[interface{}]interface{})
	if !ok {
		t.Fatalf("HELLO over RESP3 decoded as %T, want a map", hello)
	}
	if m["proto"] != int64(3) || m["server"] != "valkey" || m["version"] != "8.0.1" {
		t.Fatalf("HELLO map: %v", m)
	}
	if err := c.Set(ctx, "k", "v", time.Minute).Err(); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Get(ctx, "k").Result(); v != "v" || err != nil {
		t.Fatalf("GET k: %q %v", v, err)
	}
	if err := c.Get(ctx, "missing").Err(); err != redis.Nil {
		t.Fatalf("GET missing: %v, want redis.Nil", err)
	}
	vals, err := c.MGet(ctx, "k", "missing").Result()
	if err != nil || len(vals) != 2 || vals[0] != "v" || vals[1] != nil {
		t.Fatalf("MGET: %v %v", vals, err)
	}
	if f, err := c.IncrByFloat(ctx, "f", 0.25).Result(); f != 0.25 || err != nil {
		t.Fatalf("INCRBYFLOAT: %v %v", f, err)
	}
	if d, err := c.TTL(ctx, "k").Result(); err != nil || d <= 0 || d > time.Minute {
		t.Fatalf("TTL: %v %v", d, err)
	}
	if name, err := c.ClientGetName(ctx).Result(); name != "gr3" || err != nil {
		t.Fatalf("CLIENT GETNAME (set by HELLO SETNAME on connect): %q %v", name, err)
	}
	cfg, err := c.ConfigGet(ctx, "maxmemory-policy").Result()
	if err != nil || cfg["maxmemory-policy"] != "noeviction" {
		t.Fatalf("CONFIG GET over RESP3: %v %v", cfg, err)
	}
}

// TestHelloExtendedRedisCompatibility: HELLO names the server "redis"
// with Redis's version while extended-redis-compatibility is on (Valkey
// 8.0), "valkey" otherwise, byte for byte as Valkey 8.0.1.
func TestHelloExtendedRedisCompatibility(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	id := regexp.MustCompile(`\$2\r\nid\r\n:\d+\r\n`)
	run := func(addr string) []string {
		c := testutil.Dial(t, addr)
		var out []string
		for _, on := range []string{"yes", "no"} {
			c.Do("CONFIG", "SET", "extended-redis-compatibility", on)
			out = append(out, id.ReplaceAllString(c.DoExact("HELLO", "3"), ""))
			out = append(out, id.ReplaceAllString(c.DoExact("HELLO", "2"), ""))
		}
		return out
	}
	cv := testutil.StartCorvid(t)
	vk := testutil.StartValkey(t)
	got, want := run(cv.Addr), run(vk.Addr)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("reply %d:\ncorvid: %q\nvalkey: %q", i, got[i], want[i])
		}
	}
}
