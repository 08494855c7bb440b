package integration

import (
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestExpiryPX: a key set with PX 50 is visible, then gone for every
// command that could observe it. "Right after" is the same transaction,
// whose commands share one clock in Valkey (and Corvid): the PTTL is the
// whole 50 ms however slow the machine. The sleeps below are the time the
// keys need to expire; waiting longer only makes them more expired.
func TestExpiryPX(t *testing.T) {
	srv := testutil.StartCorvid(t, "--enable-debug-command", "yes")
	ctx := testCtx(t, 20*time.Second)
	c := newClient(t, srv.Addr, 2)
	var pttl *redis.DurationCmd
	if _, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.Set(ctx, "px", "v", 50*time.Millisecond)
		pttl = p.PTTL(ctx, "px")
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if pttl.Val() != 50*time.Millisecond {
		t.Errorf("PTTL right after SET PX 50, in the same transaction = %v", pttl.Val())
	}
	time.Sleep(120 * time.Millisecond)
	if err := c.Get(ctx, "px").Err(); err != redis.Nil {
		t.Errorf("GET after expiry: %v, want nil", err)
	}
	if n := c.Exists(ctx, "px").Val(); n != 0 {
		t.Errorf("EXISTS after expiry = %d", n)
	}
	if d := c.TTL(ctx, "px").Val(); d != -2 {
		t.Errorf("TTL after expiry = %v, want -2", d)
	}

	// Expired keys are invisible to every read path before the active
	// cycle gets to them; each path gets its own expired key.
	r := testutil.Dial(t, srv.Addr)
	expect(t, r, "+OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	defer r.Do("DEBUG", "SET-ACTIVE-EXPIRE", "1")
	for i := 1; i <= 8; i++ {
		expect(t, r, "+OK", "SET", "e"+strconv.Itoa(i), "v", "PX", "30")
	}
	expect(t, r, "+OK", "SET", "keep", "v")
	time.Sleep(60 * time.Millisecond)
	expect(t, r, "*[\"keep\"]", "KEYS", "*")
	expect(t, r, "\"keep\"", "RANDOMKEY")
	expect(t, r, "*[\"0\", *[\"keep\"]]", "SCAN", "0", "COUNT", "1000")
	expect(t, r, "*[(nil), \"v\"]", "MGET", "e1", "keep")
	expect(t, r, "+none", "TYPE", "e2")
	expect(t, r, ":0", "PERSIST", "e3")
	expect(t, r, "-ERR no such key", "RENAME", "e4", "x")
	expect(t, r, ":1", "SETNX", "e5", "fresh")
	expect(t, r, ":-1", "TTL", "e5")
	expect(t, r, ":0", "EXISTS", "e6")
	expect(t, r, "(nil)", "GETDEL", "e7")
	expect(t, r, ":1", "INCR", "e8")
}

// TestActiveExpiry: 1000 keys with PX 100 disappear without ever being
// read; DBSIZE (which does not touch keys) drops to 0.
func TestActiveExpiry(t *testing.T) {
	srv := testutil.StartCorvid(t)
	ctx := testCtx(t, 30*time.Second)
	c := newClient(t, srv.Addr, 2)
	p := c.Pipeline()
	for i := 0; i < 1000; i++ {
		p.Set(ctx, "ae:"+strconv.Itoa(i), "v", 100*time.Millisecond)
	}
	p.Set(ctx, "persistent", "v", 0)
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if n := c.DBSize(ctx).Val(); n < 2 {
		t.Fatalf("DBSIZE right after the SETs = %d", n)
	}
	var n int64
	if !waitFor(10*time.Second, func() bool {
		n = c.DBSize(ctx).Val()
		return n == 1
	}) {
		t.Fatalf("DBSIZE still %d 10s after the keys expired (active expiry not running?)", n)
	}
	if c.Exists(ctx, "persistent").Val() != 1 {
		t.Fatal("active expiry removed a key without a TTL")
	}
}

// TestBlockedKeyExpiredBeforeServed: a client blocked on a key that a
// transaction fills, but which has expired by the time the transaction
// ends (DEBUG SLEEP inside it), is not served: the key is gone when its
// command runs again, and it keeps waiting until its timeout (Valkey 8
// re-runs the blocked command with its clock updated). Run on Corvid and,
// when present, on valkey-server 8.0.1.
func TestBlockedKeyExpiredBeforeServed(t *testing.T) {
	servers := map[string]*testutil.Proc{"corvid": testutil.StartCorvid(t, "--enable-debug-command", "yes")}
	if testutil.HaveValkey(t) {
		servers["valkey"] = testutil.StartValkey(t, "--enable-debug-command", "yes")
	}
	cases := []struct {
		block []string // the blocking command, timeout 0.5 s
		fill  []string // what the transaction writes to its key
		key   string
	}{
		{[]string{"BLPOP", "bl", "0.5"}, []string{"RPUSH", "bl", "a"}, "bl"},
		{[]string{"BLMPOP", "0.5", "1", "bm", "LEFT"}, []string{"RPUSH", "bm", "a"}, "bm"},
		{[]string{"BLMOVE", "src", "dst", "LEFT", "RIGHT", "0.5"}, []string{"RPUSH", "src", "a"}, "src"},
		{[]string{"BZPOPMIN", "bz", "0.5"}, []string{"ZADD", "bz", "1", "a"}, "bz"},
		{[]string{"BZMPOP", "0.5", "1", "bzm", "MIN"}, []string{"ZADD", "bzm", "1", "a"}, "bzm"},
	}
	for name, srv := range servers {
		t.Run(name, func(t *testing.T) {
			r := testutil.Dial(t, srv.Addr)
			expect(t, r, "+OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
			for _, tc := range cases {
				rd := testutil.Dial(t, srv.Addr)
				rd.Send(tc.block...)
				if !waitFor(hangTimeout, func() bool { return infoFields(t, r, "clients")["blocked_clients"] == "1" }) {
					t.Fatalf("%s: the client did not block", tc.block[0])
				}
				expect(t, r, "+OK", "MULTI")
				expect(t, r, "+QUEUED", tc.fill...)
				expect(t, r, "+QUEUED", "PEXPIRE", tc.key, "50")
				expect(t, r, "+QUEUED", "DEBUG", "SLEEP", "0.1")
				expect(t, r, "*[:1, :1, +OK]", "EXEC")
				if got := rd.Read(); got != "(nil-array)" && got != "(nil)" {
					t.Errorf("%s after its key expired inside the filling EXEC: %s, want a timeout", tc.block[0], got)
				}
				expect(t, r, ":0", "EXISTS", tc.key)
				rd.Close()
			}
		})
	}
}
