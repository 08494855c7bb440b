package integration

import (
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

const (
	noAuth    = "-NOAUTH Authentication required."
	wrongPass = "-WRONGPASS invalid username-password pair or user is disabled."
	helloAuth = "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
	// helloAuthRedis70 is Redis 7.0's wording of helloAuth; "<proto>" was
	// added in Redis 7.2, which Valkey 8 descends from (valkey
	// src/networking.c helloCommand).
	helloAuthRedis70 = "-NOAUTH HELLO must be called with the client already authenticated, otherwise the HELLO AUTH <user> <pass> option can be used to authenticate the client and select the RESP protocol version at the same time"
)

// authScript is a conversation with a server started with
// --requirepass secret; replies marked "*" are not compared (HELLO's map
// names the server). The same script runs against redis-server when it is
// installed, since Valkey 8 and Redis 7.0 agree on all of these texts.
var authScript = []struct {
	want string
	args []string
}{
	{noAuth, []string{"GET", "k"}},
	{noAuth, []string{"PING"}},
	{noAuth, []string{"SELECT", "1"}},
	{"-ERR unknown command 'NOPE', with args beginning with: ", []string{"NOPE"}}, // lookup comes before auth
	{"-ERR wrong number of arguments for 'get' command", []string{"GET"}},         // and arity too
	{noAuth, []string{"MULTI"}}, // MULTI needs auth
	{"-EXECABORT Transaction discarded because of: NOAUTH Authentication required.", []string{"EXEC"}}, // EXEC's rejection aborts
	{wrongPass, []string{"AUTH", "wrong"}},
	{wrongPass, []string{"AUTH", "default", "wrong"}},
	{wrongPass, []string{"AUTH", "nosuchuser", "secret"}},
	{"-ERR syntax error", []string{"AUTH", "a", "b", "c"}},
	{helloAuth, []string{"HELLO", "3"}},
	{helloAuth, []string{"HELLO"}},
	{wrongPass, []string{"HELLO", "3", "AUTH", "default", "wrong"}},
	{noAuth, []string{"GET", "k"}},
	{"*", []string{"HELLO", "2", "AUTH", "default", "secret"}},
	{"(nil)", []string{"GET", "k"}},
	{"+OK", []string{"SET", "k", "v"}},
	{wrongPass, []string{"AUTH", "wrong"}}, // a failed AUTH does not log out
	{`"v"`, []string{"GET", "k"}},
	{"+RESET", []string{"RESET"}}, // RESET logs out
	{noAuth, []string{"GET", "k"}},
	{"+OK", []string{"AUTH", "secret"}},
	{`"v"`, []string{"GET", "k"}},
	{"+OK", []string{"AUTH", "default", "secret"}},
}

func runAuthScript(t *testing.T, addr string, redis70 bool) {
	t.Helper()
	c := testutil.Dial(t, addr)
	for _, st := range authScript {
		got := c.Do(st.args...)
		if redis70 && st.want == helloAuth {
			st.want = helloAuthRedis70
		}
		if st.want == "*" {
			if !strings.HasPrefix(got, "*[") {
				t.Errorf("%v: %s", st.args, got)
			}
			continue
		}
		if got != st.want {
			t.Errorf("%s:\n got: %s\nwant: %s", strings.Join(st.args, " "), got, st.want)
		}
	}
}

func TestRequirePass(t *testing.T) {
	srv := testutil.StartCorvid(t, "--requirepass", "secret")
	runAuthScript(t, srv.Addr, false)

	// QUIT works without authentication.
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, "+OK", "QUIT")
	expectClosed(t, c)

	// go-redis: without a password every command fails with NOAUTH, with it
	// (HELLO AUTH on connect, RESP2 and RESP3) everything works.
	ctx := testCtx(t, 10*time.Second)
	bad := newClient(t, srv.Addr, 2)
	if err := bad.Get(ctx, "k").Err(); err == nil || !strings.Contains(err.Error(), "NOAUTH") {
		t.Errorf("go-redis without password: %v", err)
	}
	for _, proto := range []int{2, 3} {
		good := newClient(t, srv.Addr, proto, func(o *redis.Options) { o.Password = "secret" })
		if v, err := good.Get(ctx, "k").Result(); v != "v" || err != nil {
			t.Errorf("go-redis RESP%d with password: %q %v", proto, v, err)
		}
		wrong := newClient(t, srv.Addr, proto, func(o *redis.Options) { o.Password = "nope" })
		if err := wrong.Ping(ctx).Err(); err == nil || !strings.Contains(err.Error(), "WRONGPASS") {
			t.Errorf("go-redis RESP%d with a wrong password: %v", proto, err)
		}
	}

	// Unauthenticated clients get Valkey's tighter protocol limits.
	c = testutil.Dial(t, srv.Addr)
	c.WriteRaw("*11\r\n")
	expectRead(t, c, "-ERR Protocol error: unauthenticated multibulk length")
	expectClosed(t, c)
	c = testutil.Dial(t, srv.Addr)
	c.WriteRaw("*1\r\n$16385\r\n")
	expectRead(t, c, "-ERR Protocol error: unauthenticated bulk length")
	expectClosed(t, c)
	// ... but the limits are exactly those: 10 arguments and 16 KiB pass
	// the reader (and then meet NOAUTH).
	c = testutil.Dial(t, srv.Addr)
	expect(t, c, noAuth, "MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e")
	expect(t, c, noAuth, "SET", "k", strings.Repeat("x", 16384))
	// After AUTH they no longer apply.
	expect(t, c, "+OK", "AUTH", "secret")
	expect(t, c, "+OK", "MSET", "a", "1", "b", "2", "c", "3", "d", "4", "e", "5", "f", "6")
	expect(t, c, "+OK", "SET", "k", strings.Repeat("x", 100000))
}

// TestRequirePassMatchesRedis runs authScript against redis-server 7.0 to
// confirm the expected texts (Valkey 8 is unchanged here).
func TestRequirePassMatchesRedis(t *testing.T) {
	if !redisAvailable() {
		t.Skip("redis-server not installed")
	}
	srv := testutil.StartRedis(t, "--requirepass", "secret")
	runAuthScript(t, srv.Addr, true)
}

// TestAuthWithoutPassword: with no requirepass, AUTH <password> is an
// error but AUTH default <anything> succeeds (the default user is nopass).
func TestAuthWithoutPassword(t *testing.T) {
	srv := testutil.StartCorvid(t)
	c := testutil.Dial(t, srv.Addr)
	expect(t, c, "-ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?", "AUTH", "x")
	expect(t, c, "+OK", "AUTH", "default", "anything")
	expect(t, c, wrongPass, "AUTH", "other", "anything")
	if got := c.Do("HELLO", "3", "AUTH", "default", "whatever"); !strings.HasPrefix(got, "%[") {
		t.Errorf("HELLO 3 AUTH default with nopass: %s", got)
	}
}
