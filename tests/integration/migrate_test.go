package integration

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// MIGRATE between real servers: corvid-server, valkey-server 8.0.1 (the
// reference; its subtests skip when it is absent, unless
// CORVID_REQUIRE_VALKEY is set) and redis-server 7.0 where installed.
// The subtests of TestMigrate run in parallel, each with servers of its
// own, so that the wait for a cached connection to be closed after ten
// idle seconds overlaps the rest.

// startKind starts a server of the given kind ("corvid", "valkey",
// "redis"), skipping the test when it is not installed.
func startKind(t *testing.T, kind string, args ...string) *testutil.Proc {
	t.Helper()
	switch kind {
	case "corvid":
		return testutil.StartCorvid(t, args...)
	case "valkey":
		return testutil.StartValkey(t, args...)
	case "redis":
		return testutil.StartRedis(t, args...)
	}
	t.Fatalf("unknown server kind %q", kind)
	return nil
}

// migInfo reads one field of INFO from a raw connection.
func migInfo(t *testing.T, c *testutil.Raw, section, field string) string {
	t.Helper()
	return infoFields(t, c, section)[field]
}

// selectCalls is the target's count of SELECT commands (what MIGRATE
// sends only when a connection's database changes).
func selectCalls(t *testing.T, c *testutil.Raw) string {
	t.Helper()
	v := migInfo(t, c, "commandstats", "cmdstat_select")
	calls, _, _ := strings.Cut(strings.TrimPrefix(v, "calls="), ",")
	return calls
}

func TestMigrate(t *testing.T) {
	t.Run("EveryType", func(t *testing.T) {
		t.Parallel()
		for _, pair := range [][2]string{{"corvid", "corvid"}, {"corvid", "valkey"}, {"valkey", "corvid"}, {"redis", "corvid"}} {
			t.Run(pair[0]+"->"+pair[1], func(t *testing.T) { migrateEveryType(t, pair[0], pair[1]) })
		}
	})
	t.Run("Script", func(t *testing.T) {
		t.Parallel()
		for _, src := range []string{"valkey", "corvid"} {
			for _, dst := range []string{"valkey", "corvid"} {
				t.Run(src+"->"+dst, func(t *testing.T) { runMigrateScript(t, src, dst, "", migrateScript) })
			}
		}
	})
	t.Run("Auth", func(t *testing.T) {
		t.Parallel()
		for _, src := range []string{"valkey", "corvid"} {
			for _, dst := range []string{"valkey", "corvid"} {
				t.Run(src+"->"+dst, func(t *testing.T) { runMigrateScript(t, src, dst, "pw", migrateAuthScript) })
			}
		}
	})
	t.Run("ToRedis70", func(t *testing.T) {
		t.Parallel()
		migrateToRedis(t)
	})
	t.Run("SocketCache", func(t *testing.T) {
		t.Parallel()
		migrateSocketCache(t)
	})
	t.Run("NoLostUpdate", func(t *testing.T) {
		t.Parallel()
		migrateNoLostUpdate(t)
	})
	t.Run("Propagation", func(t *testing.T) {
		t.Parallel()
		for _, kind := range []string{"valkey", "corvid"} {
			t.Run(kind, func(t *testing.T) { migratePropagation(t, kind) })
		}
	})
}

// migrateEveryType moves a key of every type and encoding (dumpCases),
// half of them with a TTL, plus a value larger than one 64 KiB write, in
// one MIGRATE KEYS to database 2 of the target, then one more key alone.
func migrateEveryType(t *testing.T, srcKind, dstKind string) {
	src, dst := startKind(t, srcKind), startKind(t, dstKind)
	ctx := testCtx(t, time.Minute)
	sc := newClient(t, src.Addr, 2)
	tc := newClient(t, dst.Addr, 2, func(o *redis.Options) { o.DB = 2 })
	keys := []string{"", "0", "5000", "KEYS", "missing"}
	cases := dumpCases()
	cases = append(cases, dumpCase{"s:bigger", [][]any{{"SET", "s:bigger", strings.Repeat("z", 300000)}}})
	for i, dc := range cases {
		for _, cmd := range dc.cmds {
			if err := sc.Do(ctx, cmd...).Err(); err != nil {
				t.Fatalf("%v: %v", cmd[:2], err)
			}
		}
		if i%2 == 0 {
			sc.PExpire(ctx, dc.key, 27*time.Hour)
		}
		keys = append(keys, dc.key)
	}
	want := map[string]string{}
	expiry := map[string]time.Duration{}
	for _, dc := range cases {
		want[dc.key] = valueOf(t, sc, dc.key)
		expiry[dc.key] = sc.PExpireTime(ctx, dc.key).Val()
	}
	r := testutil.Dial(t, src.Addr)
	args := append([]string{"MIGRATE", "127.0.0.1", strconv.Itoa(dst.Port)}, keys...)
	args[3], args[4] = "", "2"
	expect(t, r, "+OK", args...)
	for _, dc := range cases {
		if n := sc.Exists(ctx, dc.key).Val(); n != 0 {
			t.Errorf("%s still exists on the source", dc.key)
		}
		if got := valueOf(t, tc, dc.key); got != want[dc.key] {
			t.Errorf("%s: migrated\n%.300s\nwant\n%.300s", dc.key, got, want[dc.key])
		}
		// The TTL travels as the time left: the absolute expiry moves
		// by the transfer time at most.
		got, w := tc.PExpireTime(ctx, dc.key).Val(), expiry[dc.key]
		if (w < 0) != (got < 0) || (w-got).Abs() > 5*time.Second {
			t.Errorf("%s: PEXPIRETIME %v, source had %v", dc.key, got, w)
		}
	}
	expect(t, r, "+OK", "SET", "alone", "v")
	expect(t, r, "+OK", "MIGRATE", "127.0.0.1", strconv.Itoa(dst.Port), "alone", "2", "5000")
	if got := tc.Get(ctx, "alone").Val(); got != "v" {
		t.Errorf("alone: %q", got)
	}
}

// migrateStep is one command of a script: on the source (the default) or
// the target, with $PORT, $DEAD (a closed port) substituted.
type migrateStep struct {
	want string
	args []string
	dst  bool
}

func mig(want string, args ...string) migrateStep {
	return migrateStep{want: want, args: append([]string{"MIGRATE", "127.0.0.1", "$PORT"}, args...)}
}
func onSrc(want string, args ...string) migrateStep { return migrateStep{want: want, args: args} }
func onDst(want string, args ...string) migrateStep {
	return migrateStep{want: want, args: args, dst: true}
}

const targetErr = "-ERR Target instance replied with error: "

// migrateScript: replies, errors and the state left on both sides, the
// same from every source to every target (valkey->valkey checks the
// expectations themselves).
var migrateScript = []migrateStep{
	onSrc("+OK", "SET", "a", "1"),
	mig("-ERR syntax error", "a", "0", "5000", "AUTH"),
	mig("-ERR syntax error", "a", "0", "5000", "AUTH2", "u"),
	mig("-ERR syntax error", "a", "0", "5000", "COPY", "bogus"),
	mig("-ERR syntax error", "a", "x", "x", "bogus"),
	mig("-ERR When using MIGRATE KEYS option, the key argument must be set to the empty string", "a", "0", "5000", "KEYS", "a"),
	mig("-ERR value is not an integer or out of range", "a", "x", "5000"),
	mig("-ERR value is not an integer or out of range", "a", "0", "5x"),
	mig("-ERR value is not an integer or out of range", "a", "0", "1.5"),
	onSrc("-ERR wrong number of arguments for 'migrate' command", "MIGRATE", "127.0.0.1", "1", "a", "0"),
	mig("+NOKEY", "", "0", "5000", "KEYS"),
	mig("+NOKEY", "", "0", "5000", "KEYS", "nope", "nope2"),
	mig("+NOKEY", "nope", "0", "5000"),
	mig("+NOKEY", "", "0", "5000"),
	onSrc("-IOERR error or timeout writing to target instance", "MIGRATE", "127.0.0.1", "$DEAD", "a", "0", "5000"),
	onSrc("-IOERR error or timeout connecting to the client", "MIGRATE", "", "$PORT", "a", "0", "5000"),
	onSrc(":1", "EXISTS", "a"),
	// SELECT 99 fails; the RESTORE after it runs in the target's
	// database 0 all the same, and the source keeps the key.
	mig(targetErr+"ERR DB index is out of range", "a", "99", "5000"),
	onDst(`"1"`, "GET", "a"),
	mig(targetErr+"BUSYKEY Target key name already exists.", "a", "0", "5000"),
	mig(targetErr+"ERR AUTH <password> called without any password configured for the default user. Are you sure your configuration is correct?",
		"a", "0", "0", "REPLACE", "AUTH", "pw"),
	onSrc(":1", "EXISTS", "a"),
	onSrc("+OK", "SET", "a", "2"),
	mig("+OK", "a", "0", "5000", "COPY", "REPLACE"),
	onSrc(`"2"`, "GET", "a"),
	onDst(`"2"`, "GET", "a"),
	onSrc("+OK", "SET", "a", "3"),
	mig("+OK", "a", "0", "-7", "REPLACE"),
	onSrc(":0", "EXISTS", "a"),
	onDst(`"3"`, "GET", "a"),
	// KEYS: missing keys are skipped, keys the target refused stay, the
	// others move even though the reply is the error.
	onSrc("+OK", "MSET", "x", "1", "y", "2", "z", "3"),
	onDst("+OK", "SET", "y", "old"),
	mig(targetErr+"BUSYKEY Target key name already exists.", "", "0", "5000", "KEYS", "x", "nope", "y", "z"),
	onSrc(":1", "EXISTS", "x", "y", "z"),
	onSrc(`"2"`, "GET", "y"),
	onDst(`*["1", "3"]`, "MGET", "x", "z"),
	onDst(`"old"`, "GET", "y"),
	mig("+OK", "", "0", "5000", "REPLACE", "KEYS", "y", "y"),
	onSrc(":0", "EXISTS", "y"),
	onDst(`"2"`, "GET", "y"),
	// Another database; the port as atoi reads it; a TTL.
	onSrc("+OK", "SET", "t", "v", "PX", "100000"),
	onSrc("+OK", "MIGRATE", "127.0.0.1", "$PORT/x", "t", "7", "5000"),
	onDst("+OK", "SELECT", "7"),
	onDst(`"v"`, "GET", "t"),
	onDst(":1", "EXISTS", "t"),
	onDst("+OK", "SELECT", "0"),
	// Database -1 on a connection that never selected one: Valkey
	// takes -1 for "none" and sends no SELECT, so it lands in 0.
	onSrc("+OK", "SET", "m", "v"),
	onSrc("+OK", "MIGRATE", "127.0.0.1", "0$PORT", "m", "-1", "5000"),
	onDst(`"v"`, "GET", "m"),
	// Inside a transaction.
	onSrc("+OK", "MULTI"),
	onSrc("+QUEUED", "SET", "q", "1"),
	onSrc("+QUEUED", "MIGRATE", "127.0.0.1", "$PORT", "q", "0", "5000"),
	onSrc("+QUEUED", "EXISTS", "q"),
	onSrc("*[+OK, +OK, :0]", "EXEC"),
	onDst(`"1"`, "GET", "q"),
}

// migrateAuthScript runs against a target started with --requirepass pw.
var migrateAuthScript = []migrateStep{
	onSrc("+OK", "MSET", "a", "1", "b", "2"),
	mig(targetErr+noAuth[1:], "a", "0", "5000"),
	mig(targetErr+wrongPass[1:], "a", "0", "5000", "AUTH", "wrong"),
	mig(targetErr+wrongPass[1:], "a", "0", "5000", "AUTH2", "default", "wrong"),
	mig(targetErr+wrongPass[1:], "a", "0", "5000", "AUTH2", "nobody", "pw"),
	onSrc(":2", "EXISTS", "a", "b"),
	mig("+OK", "a", "0", "5000", "AUTH", "pw"),
	mig("+OK", "b", "0", "5000", "AUTH2", "default", "pw"),
	onSrc(":0", "EXISTS", "a", "b"),
	onDst("+OK", "AUTH", "pw"),
	onDst(`*["1", "2"]`, "MGET", "a", "b"),
}

// runMigrateScript runs steps with a source of kind src and a target of
// kind dst (started with requirepass when pass is set).
func runMigrateScript(t *testing.T, src, dst, pass string, steps []migrateStep) {
	var dstArgs []string
	if pass != "" {
		dstArgs = []string{"--requirepass", pass}
	}
	s, d := startKind(t, src), startKind(t, dst, dstArgs...)
	rs, rd := testutil.Dial(t, s.Addr), testutil.Dial(t, d.Addr)
	dead := strconv.Itoa(testutil.FreePort(t))
	port := strconv.Itoa(d.Port)
	for _, st := range steps {
		args := make([]string, len(st.args))
		for i, a := range st.args {
			args[i] = strings.NewReplacer("$PORT", port, "$DEAD", dead).Replace(a)
		}
		c := rs
		if st.dst {
			c = rd
		}
		if got := c.Do(args...); got != st.want {
			where := "source"
			if st.dst {
				where = "target"
			}
			t.Errorf("%s: %s:\n got: %s\nwant: %s", where, strings.Join(args, " "), got, st.want)
		}
	}
}

// migrateToRedis: Redis 7.0 refuses the RDB 11 payloads of Corvid (as of
// Valkey 8), and its own payloads (RDB 10) migrate into Corvid.
func migrateToRedis(t *testing.T) {
	d := startKind(t, "redis")
	s := startKind(t, "corvid")
	r := testutil.Dial(t, s.Addr)
	expect(t, r, "+OK", "SET", "k", "v")
	expect(t, r, targetErr+"ERR DUMP payload version or checksum are wrong",
		"MIGRATE", "127.0.0.1", strconv.Itoa(d.Port), "k", "0", "5000")
	expect(t, r, ":1", "EXISTS", "k")
}

// migrateSocketCache: one cached connection per target, reused (SELECT
// only when the database changes), replaced when the target dropped it,
// and closed after ten idle seconds.
func migrateSocketCache(t *testing.T) {
	s, d := startKind(t, "corvid"), startKind(t, "corvid")
	rs, rd := testutil.Dial(t, s.Addr), testutil.Dial(t, d.Addr)
	port := strconv.Itoa(d.Port)
	expect(t, rs, "+OK", "MSET", "a", "1", "b", "2", "c", "3", "e", "5")
	if got := migInfo(t, rs, "stats", "migrate_cached_sockets"); got != "0" {
		t.Errorf("migrate_cached_sockets %s before any MIGRATE", got)
	}
	conns := func() int {
		n, _ := strconv.Atoi(migInfo(t, rd, "stats", "total_connections_received"))
		return n
	}
	before := conns()
	expect(t, rs, "+OK", "MIGRATE", "127.0.0.1", port, "a", "0", "5000")
	expect(t, rs, "+OK", "MIGRATE", "127.0.0.1", port, "b", "0", "5000")
	if got := migInfo(t, rs, "stats", "migrate_cached_sockets"); got != "1" {
		t.Errorf("migrate_cached_sockets %s, want 1", got)
	}
	if n := conns() - before; n != 1 {
		t.Errorf("%d connections for two MIGRATEs, want 1", n)
	}
	if got := selectCalls(t, rd); got != "1" {
		t.Errorf("SELECT sent %s times, want 1", got)
	}
	expect(t, rs, "+OK", "MIGRATE", "127.0.0.1", port, "c", "1", "5000")
	if got := selectCalls(t, rd); got != "2" {
		t.Errorf("SELECT sent %s times, want 2", got)
	}
	// The target drops the connection: the next MIGRATE fails on it,
	// connects again and succeeds.
	expect(t, rd, ":1", "CLIENT", "KILL", "TYPE", "normal")
	expect(t, rs, "+OK", "MIGRATE", "127.0.0.1", port, "e", "1", "5000")
	if n := conns() - before; n != 2 {
		t.Errorf("%d connections after the target dropped one, want 2", n)
	}
	expect(t, rd, "+OK", "SELECT", "1")
	expect(t, rd, `*["3", "5"]`, "MGET", "c", "e")
	if got := migInfo(t, rs, "stats", "migrate_cached_sockets"); got != "1" {
		t.Errorf("migrate_cached_sockets %s, want 1", got)
	}
	// Idle for more than ten seconds: closed, on both sides.
	if !waitFor(hangTimeout, func() bool { return migInfo(t, rs, "stats", "migrate_cached_sockets") == "0" }) {
		t.Fatal("the cached connection was never closed")
	}
	if !waitFor(hangTimeout, func() bool { return migInfo(t, rd, "clients", "connected_clients") == "1" }) {
		t.Errorf("the target still has %s clients", migInfo(t, rd, "clients", "connected_clients"))
	}
}

// migrateNoLostUpdate: INCRs racing with MIGRATEs of the same key are
// never lost: each MIGRATE moves the counter to another database of the
// target, and the counters left everywhere add up to the INCRs done.
// (Were the key's stripe released between the DUMP and the DEL, an INCR
// in between would vanish.)
func migrateNoLostUpdate(t *testing.T) {
	s, d := startKind(t, "corvid"), startKind(t, "corvid")
	ctx := testCtx(t, time.Minute)
	sc := newClient(t, s.Addr, 2)
	const incrs, rounds = 3000, 15
	tick := make(chan struct{}, rounds+1) // every incrs/16 INCRs: MIGRATE now
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(tick)
		for i := range incrs {
			if err := sc.Incr(ctx, "n").Err(); err != nil {
				t.Errorf("INCR: %v", err)
				return
			}
			if i%(incrs/(rounds+1)) == 0 {
				tick <- struct{}{}
			}
		}
	}()
	port := strconv.Itoa(d.Port)
	for db := 1; db <= rounds; db++ {
		<-tick // the INCRs go on while the key moves
		r, err := sc.Do(ctx, "MIGRATE", "127.0.0.1", port, "n", db, 5000).Result()
		if err != nil || r != "OK" && r != "NOKEY" {
			t.Errorf("MIGRATE to %d: %v %v", db, r, err)
		}
	}
	wg.Wait()
	total, _ := sc.Get(ctx, "n").Int()
	for db := 1; db <= rounds; db++ {
		dc := newClient(t, d.Addr, 2, func(o *redis.Options) { o.DB = db })
		n, _ := dc.Get(ctx, "n").Int()
		total += n
	}
	if total != incrs {
		t.Errorf("counters add up to %d, want %d", total, incrs)
	}
}

// migratePropagation: what a MIGRATE writes to the source's AOF, compared
// between Corvid and Valkey: DEL of the keys the target acknowledged (not
// the missing one, not the one it refused), after the deletion of an
// expired key it met and in one transaction with it; nothing for COPY;
// never MIGRATE itself.
func migratePropagation(t *testing.T, kind string) {
	s := startKind(t, kind, "--appendonly", "yes", "--appendfsync", "always", "--enable-debug-command", "yes")
	d := startKind(t, kind)
	rs, rd := testutil.Dial(t, s.Addr), testutil.Dial(t, d.Addr)
	port := strconv.Itoa(d.Port)
	expect(t, rd, "+OK", "SET", "c", "old")
	expect(t, rs, "+OK", "DEBUG", "SET-ACTIVE-EXPIRE", "0")
	expect(t, rs, "+OK", "MSET", "a", "1", "b", "2", "c", "3")
	// An absolute expiry: with PX the deadline would start whenever the
	// SET ran, which a loaded machine can delay past the wait below.
	expired := serverMillis(t, rs) + 300
	expect(t, rs, "+OK", "SET", "e", "1", "PXAT", strconv.FormatInt(expired, 10))
	if !waitFor(hangTimeout, func() bool { return serverMillis(t, rs) > expired+1 }) {
		t.Fatal("the server's clock does not advance")
	}
	expect(t, rs, targetErr+"BUSYKEY Target key name already exists.",
		"MIGRATE", "127.0.0.1", port, "", "0", "5000", "KEYS", "a", "e", "nope", "c", "b")
	expect(t, rs, "+OK", "MIGRATE", "127.0.0.1", port, "c", "0", "5000", "COPY", "REPLACE")
	expect(t, rs, "+OK", "SET", "end", "1")
	got := aofIncrCommands(t, s.Dir)
	for i, c := range got {
		if strings.HasPrefix(c, "SET e 1 PXAT ") {
			got[i] = "SET e 1 PXAT <ms>"
		}
	}
	want := []string{"SELECT 0", "MSET a 1 b 2 c 3", "SET e 1 PXAT <ms>",
		"MULTI", "UNLINK e", "DEL a b", "EXEC", "SET end 1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("%s's AOF:\n%s\nwant\n%s", kind, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// serverMillis is the server's clock (TIME) in Unix milliseconds.
func serverMillis(t *testing.T, c *testutil.Raw) int64 {
	t.Helper()
	secs, usecs, _ := strings.Cut(strings.Trim(c.Do("TIME"), "*[]"), ", ")
	s, err1 := strconv.ParseInt(strings.Trim(secs, `"`), 10, 64)
	us, err2 := strconv.ParseInt(strings.Trim(usecs, `"`), 10, 64)
	if err1 != nil || err2 != nil {
		t.Fatalf("TIME: %v %v", err1, err2)
	}
	return s*1000 + us/1000
}

// aofIncrCommands reads the commands of the AOF's incr file in dir, each
// as its space-joined words, the command name upper-cased.
func aofIncrCommands(t *testing.T, dir string) []string {
	t.Helper()
	m, err := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	var incr string
	for _, line := range strings.Split(string(m), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[5] == "i" {
			incr = f[1]
		}
	}
	f, err := os.Open(filepath.Join(dir, "appendonlydir", incr))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := bufio.NewReader(f)
	var out []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return out
		}
		n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
		words := make([]string, n)
		for i := range words {
			l, _ := r.ReadString('\n')
			m, _ := strconv.Atoi(strings.TrimSpace(l[1:]))
			b := make([]byte, m+2)
			if _, err := io.ReadFull(r, b); err != nil {
				t.Fatalf("%s: %v", incr, err)
			}
			words[i] = string(b[:m])
		}
		words[0] = strings.ToUpper(words[0])
		out = append(out, strings.Join(words, " "))
	}
}
