package integration

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestAOFEnableAtRunTime: CONFIG SET appendonly yes on a server that
// holds data and keeps taking writes while the AOF's first rewrite runs.
// Every write acknowledged with appendfsync always, before, during and
// after the switch, is in the AOF: the server killed with SIGKILL comes
// back (with appendonly yes) with exactly the acknowledged counters, and
// DEBUG LOADAOF on the live server rebuilds the same dataset (DEBUG
// DIGEST). Then CONFIG SET appendonly no: later writes stay out of the
// files, which Valkey 8.0.1 loads too.
func TestAOFEnableAtRunTime(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	p := testutil.StartCorvid(t, "--enable-debug-command", "yes", "--save", "", "--appendfsync", "always")
	c := newClient(t, p.Addr, 2)
	// Enough data that the rewrite's snapshot takes a while.
	if err := c.Do(ctx, "DEBUG", "POPULATE", "200000", "fill", "50").Err(); err != nil {
		t.Fatal(err)
	}
	const writers = 4
	acked := make([]atomic.Int64, writers)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			wc := newClient(t, p.Addr, 2)
			key := "ctr:" + strconv.Itoa(i)
			for {
				select {
				case <-stop:
					return
				default:
				}
				n, err := wc.Incr(ctx, key).Result()
				if err != nil {
					t.Errorf("INCR %s: %v", key, err)
					return
				}
				acked[i].Store(n)
			}
		}()
	}
	// Let the writers run, then enable, then wait for the rewrite.
	waitFor(10*time.Second, func() bool { return acked[0].Load() > 100 })
	if err := c.ConfigSet(ctx, "appendonly", "yes").Err(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(60*time.Second, func() bool {
		info := c.Info(ctx, "persistence").Val()
		return strings.Contains(info, "aof_enabled:1") && strings.Contains(info, "aof_rewrite_in_progress:0") &&
			strings.Contains(info, "aof_rewrites:1")
	}) {
		t.Fatalf("the rewrite of appendonly yes did not end: %s", c.Info(ctx, "persistence").Val())
	}
	before := acked[0].Load()
	waitFor(10*time.Second, func() bool { return acked[0].Load() > before+100 })
	close(stop)
	wg.Wait()

	// DEBUG LOADAOF on the live server: the same dataset.
	digest := c.Do(ctx, "DEBUG", "DIGEST").Val()
	if err := c.Do(ctx, "DEBUG", "LOADAOF").Err(); err != nil {
		t.Fatal(err)
	}
	if got := c.Do(ctx, "DEBUG", "DIGEST").Val(); got != digest {
		t.Fatalf("DEBUG LOADAOF changed the dataset: digest %v, was %v", got, digest)
	}

	// SIGKILL, restart on the files: every acknowledged INCR is there.
	p.Signal(os.Kill)
	p.WaitExit(10 * time.Second)
	q := testutil.StartCorvidIn(t, p.Dir, "--save", "", "--appendonly", "yes")
	qc := newClient(t, q.Addr, 2)
	for i := range writers {
		got, _ := qc.Get(ctx, "ctr:"+strconv.Itoa(i)).Int64()
		if want := acked[i].Load(); got != want {
			t.Errorf("ctr:%d = %d after the restart, acknowledged %d", i, got, want)
		}
	}
	if n := qc.DBSize(ctx).Val(); n != 200000+writers {
		t.Errorf("DBSIZE %d after the restart, want %d", n, 200000+writers)
	}

	// appendonly no: the writer closes; writes after it are not in the
	// files, which Valkey loads.
	if err := qc.ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
		t.Fatal(err)
	}
	if v := infoField(t, ctx, qc, "persistence", "aof_enabled"); v != "0" {
		t.Fatalf("aof_enabled %s after appendonly no", v)
	}
	qc.Set(ctx, "after-off", "1", 0)
	q.Stop()
	if !testutil.HaveValkey(t) {
		return
	}
	v := testutil.StartValkeyIn(t, q.Dir, "--appendonly", "yes")
	vc := newClient(t, v.Addr, 2)
	if n := vc.DBSize(ctx).Val(); n != 200000+writers {
		t.Errorf("Valkey loaded %d keys from Corvid's AOF, want %d", n, 200000+writers)
	}
	if n := vc.Exists(ctx, "after-off").Val(); n != 0 {
		t.Errorf("a write after appendonly no reached the AOF")
	}
}

// infoField reads one field of an INFO section.
func infoField(t *testing.T, ctx context.Context, c *redis.Client, section, field string) string {
	t.Helper()
	for _, line := range strings.Split(c.Info(ctx, section).Val(), "\r\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			return v
		}
	}
	t.Fatalf("INFO %s has no %s", section, field)
	return ""
}

// TestBGREWRITEAOFOff: BGREWRITEAOF with appendonly no writes a base and a
// manifest listing only it, as Valkey 7+ does; starting with appendonly
// yes on that directory (Corvid, and Valkey 8.0.1) loads the dataset.
func TestBGREWRITEAOFOff(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--save", "")
	c := newClient(t, p.Addr, 2)
	fillEveryType(t, ctx, c)
	want := dumpAll(t, ctx, p.Addr, true)
	if got := c.BgRewriteAOF(ctx).Val(); got != "Background append only file rewriting started" {
		t.Fatalf("BGREWRITEAOF: %q", got)
	}
	waitRewrite(t, ctx, c)
	if v := infoField(t, ctx, c, "persistence", "aof_rewrites"); v != "1" {
		t.Fatalf("aof_rewrites %s", v)
	}
	if v := infoField(t, ctx, c, "persistence", "aof_enabled"); v != "0" {
		t.Fatalf("aof_enabled %s", v)
	}
	man, err := os.ReadFile(filepath.Join(p.Dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(man); got != "file appendonly.aof.1.base.rdb seq 1 type b\n" {
		t.Fatalf("manifest %q", got)
	}
	p.Stop()
	q := testutil.StartCorvidIn(t, p.Dir, "--appendonly", "yes", "--save", "")
	sameLines(t, "Corvid on its own rewrite", want, dumpAll(t, ctx, q.Addr, true))
	q.Stop()
	if !testutil.HaveValkey(t) {
		return
	}
	v := testutil.StartValkeyIn(t, p.Dir, "--appendonly", "yes")
	sameLines(t, "Valkey on Corvid's rewrite", want, dumpAll(t, ctx, v.Addr, true))
}

// TestMISCONF: a failed BGSAVE with save points set makes writes (and
// PING, and an EXEC with a write queued) fail with Valkey's MISCONF error
// while reads go on, until stop-writes-on-bgsave-error no or a save
// succeeds. The same steps run against Valkey 8.0.1 and must reply the
// same.
func TestMISCONF(t *testing.T) {
	run := func(t *testing.T, start func(dir string) *testutil.Proc) []string {
		ctx := testCtx(t, 60*time.Second)
		dir := t.TempDir()
		p := start(dir)
		c := testutil.Dial(t, p.Addr)
		var out []string
		do := func(args ...string) {
			line := strings.Join(args, " ") + " -> " + c.Do(args...)
			out = append(out, strings.ReplaceAll(line, dir, "<dir>"))
		}
		do("SET", "k", "v")
		// A directory that disappears: the next save cannot create its
		// temp file (even as root).
		gone := filepath.Join(dir, "gone")
		if err := os.Mkdir(gone, 0o755); err != nil {
			t.Fatal(err)
		}
		do("CONFIG", "SET", "dir", gone)
		os.Remove(gone)
		do("CONFIG", "SET", "save", "3600 1")
		do("BGSAVE")
		rc := newClient(t, p.Addr, 2)
		if !waitFor(30*time.Second, func() bool {
			return infoField(t, ctx, rc, "persistence", "rdb_last_bgsave_status") == "err" &&
				infoField(t, ctx, rc, "persistence", "rdb_bgsave_in_progress") == "0"
		}) {
			t.Fatal("the BGSAVE did not fail")
		}
		do("SET", "k", "w")
		do("GET", "k")
		do("PING")
		do("ECHO", "x")
		do("MULTI")
		do("GET", "k")
		do("EXEC")
		do("MULTI")
		do("INCR", "n")
		do("EXEC")
		do("CONFIG", "SET", "stop-writes-on-bgsave-error", "no")
		do("SET", "k", "x")
		do("CONFIG", "SET", "stop-writes-on-bgsave-error", "yes")
		do("SET", "k", "y")
		do("CONFIG", "SET", "save", "")
		do("SET", "k", "z")
		do("GET", "k")
		return out
	}
	corvid := run(t, func(dir string) *testutil.Proc {
		return testutil.StartCorvidIn(t, dir, "--save", "", "--enable-protected-configs", "yes")
	})
	for _, line := range corvid {
		if strings.HasPrefix(line, "SET k w -> ") && !strings.HasPrefix(line, "SET k w -> -MISCONF ") {
			t.Fatalf("no MISCONF: %s", line)
		}
	}
	if !testutil.HaveValkey(t) {
		t.Log(strings.Join(corvid, "\n"))
		return
	}
	valkey := run(t, func(dir string) *testutil.Proc {
		return testutil.StartValkeyIn(t, dir, "--enable-protected-configs", "yes")
	})
	sameLines(t, "replies, step by step (corvid, then valkey)", corvid, valkey)
}

// TestWAITAOF: the replies and errors of WAIT and WAITAOF, with the AOF
// off and on, against Valkey 8.0.1; a count that cannot be reached blocks
// until the timeout.
func TestWAITAOF(t *testing.T) {
	steps := [][]string{
		{"WAITAOF", "1", "0", "0"},
		{"WAITAOF", "0", "0", "0"},
		{"WAITAOF", "x", "0", "0"},
		{"WAITAOF", "2", "0", "0"},
		{"WAITAOF", "-1", "0", "0"},
		{"WAITAOF", "0", "-1", "0"},
		{"WAITAOF", "0", "x", "0"},
		{"WAITAOF", "0", "0", "-1"},
		{"WAITAOF", "0", "0", "1.5"},
		{"WAITAOF", "0", "1", "50"},
		{"WAIT", "0", "0"},
		{"WAIT", "1", "50"},
		{"WAIT", "x", "0"},
		{"WAIT", "0", "-5"},
		{"WAIT", "0", "9223372036854775807"},
		{"MULTI"}, {"WAITAOF", "0", "1", "0"}, {"WAIT", "1", "0"}, {"EXEC"},
		{"CONFIG", "SET", "appendonly", "yes"},
		{"SET", "k", "v"},
		{"WAITAOF", "1", "0", "0"},
		{"WAITAOF", "1", "1", "50"},
		{"MULTI"}, {"SET", "k", "w"}, {"WAITAOF", "1", "0", "0"}, {"EXEC"},
		{"CONFIG", "SET", "appendonly", "no"},
		{"WAITAOF", "1", "0", "0"},
	}
	run := func(t *testing.T, p *testutil.Proc) []string {
		c := testutil.Dial(t, p.Addr)
		var out []string
		for _, st := range steps {
			start := time.Now()
			r := c.Do(st...)
			if strings.Contains(strings.Join(st, " "), " 50") && time.Since(start) < 40*time.Millisecond {
				t.Errorf("%q returned before its timeout", st)
			}
			if st[0] == "CONFIG" && st[2] == "appendonly" && st[3] == "yes" {
				// Wait for the AOF's first rewrite, as a client would.
				waitRewrite(t, context.Background(), newClient(t, p.Addr, 2))
			}
			out = append(out, strings.Join(st, " ")+" -> "+r)
		}
		return out
	}
	corvid := run(t, testutil.StartCorvid(t, "--save", ""))
	if !testutil.HaveValkey(t) {
		t.Log(strings.Join(corvid, "\n"))
		return
	}
	valkey := run(t, testutil.StartValkeyIn(t, t.TempDir()))
	sameLines(t, "replies, step by step (corvid, then valkey)", corvid, valkey)
}

// TestAOFRESPBase: with aof-use-rdb-preamble no a rewrite writes a base
// of commands (appendonly.aof.N.base.aof: SELECT, SET, RPUSH, SADD, ZADD,
// HMSET, PEXPIREAT, collections in commands of at most 64 elements), and
// Corvid and Valkey 8.0.1 both load it to the same dataset.
func TestAOFRESPBase(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--save", "", "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
	c := newClient(t, p.Addr, 2)
	fillEveryType(t, ctx, c)
	big := make([]any, 0, 300)
	for i := range 150 {
		big = append(big, float64(i)/3, "m"+strconv.Itoa(i))
	}
	c.ZAdd(ctx, "z150", func() []redis.Z {
		var zs []redis.Z
		for i := 0; i < len(big); i += 2 {
			zs = append(zs, redis.Z{Score: big[i].(float64), Member: big[i+1]})
		}
		return zs
	}()...)
	c.Do(ctx, "SELECT", "3")
	want := dumpAll(t, ctx, p.Addr, true)
	if err := c.BgRewriteAOF(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	waitRewrite(t, ctx, c)
	if v := infoField(t, ctx, c, "persistence", "aof_rewrites"); v != "1" {
		t.Fatalf("aof_rewrites %s", v)
	}
	base, err := os.ReadFile(filepath.Join(p.Dir, "appendonlydir", "appendonly.aof.2.base.aof"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(base), "*2\r\n$6\r\nSELECT\r\n$1\r\n0\r\n") || !strings.Contains(string(base), "$4\r\nZADD\r\n$4\r\nz150\r\n") {
		t.Fatalf("base starts %q", base[:min(len(base), 200)])
	}
	if n := strings.Count(string(base), "$4\r\nZADD\r\n$4\r\nz150\r\n"); n != 3 {
		t.Errorf("z150's 150 members in %d ZADDs, want 3 (64 a command)", n)
	}
	p.Stop()
	q := testutil.StartCorvidIn(t, p.Dir, "--save", "", "--appendonly", "yes", "--aof-use-rdb-preamble", "no")
	sameLines(t, "Corvid on its RESP base", want, dumpAll(t, ctx, q.Addr, true))
	q.Stop()
	if !testutil.HaveValkey(t) {
		return
	}
	v := testutil.StartValkeyIn(t, p.Dir, "--appendonly", "yes")
	sameLines(t, "Valkey on Corvid's RESP base", want, dumpAll(t, ctx, v.Addr, true))
}

// TestDebugReloadMerge: DEBUG RELOAD MERGE NOFLUSH NOSAVE merges the
// saved file into the dataset, the file's keys replacing those present,
// step for step as Valkey 8.0.1.
func TestDebugReloadMerge(t *testing.T) {
	steps := [][]string{
		{"SET", "a", "1"}, {"RPUSH", "l", "x"}, {"SAVE"},
		{"SET", "a", "2"}, {"SET", "b", "3"}, {"DEL", "l"},
		{"DEBUG", "RELOAD", "MERGE", "NOFLUSH", "NOSAVE"},
		{"GET", "a"}, {"GET", "b"}, {"LRANGE", "l", "0", "-1"}, {"DBSIZE"},
		{"DEBUG", "RELOAD", "NOSAVE"},
		{"GET", "b"}, {"DBSIZE"},
		{"DEBUG", "RELOAD", "BOGUS"},
	}
	run := func(t *testing.T, p *testutil.Proc) []string {
		c := testutil.Dial(t, p.Addr)
		var out []string
		for _, st := range steps {
			out = append(out, strings.Join(st, " ")+" -> "+c.Do(st...))
		}
		return out
	}
	corvid := run(t, testutil.StartCorvid(t, "--save", "", "--enable-debug-command", "yes"))
	if !testutil.HaveValkey(t) {
		t.Log(strings.Join(corvid, "\n"))
		return
	}
	valkey := run(t, testutil.StartValkeyIn(t, t.TempDir(), "--enable-debug-command", "yes"))
	sameLines(t, "replies, step by step (corvid, then valkey)", corvid, valkey)
}

// TestOldStyleAOFWithPreamble: a single-file AOF of the old layout (Redis
// 4-6 with aof-use-rdb-preamble yes: an RDB, then commands) is moved into
// the AOF directory and loaded whole: the RDB's keys and every command
// after it (the RDB loader reads no byte past its checksum). Valkey 8.0.1
// loads the same file to the same dataset.
func TestOldStyleAOFWithPreamble(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--save", "")
	c := newClient(t, p.Addr, 2)
	fillEveryType(t, ctx, c)
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	rdbFile, err := os.ReadFile(filepath.Join(p.Dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	var tail []byte
	for i := range 2000 {
		tail = append(tail, testutil.Command("SET", "tail:"+strconv.Itoa(i), strings.Repeat("v", i%50))...)
	}
	tail = append(tail, testutil.Command("RPUSH", "list", "appended")...)
	c.Set(ctx, "tail:dummy", "x", 0)
	for i := range 2000 {
		c.Set(ctx, "tail:"+strconv.Itoa(i), strings.Repeat("v", i%50), 0)
	}
	c.RPush(ctx, "list", "appended")
	c.Del(ctx, "tail:dummy")
	want := dumpAll(t, ctx, p.Addr, true)
	p.Stop()
	for _, srv := range []string{"corvid", "valkey"} {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "appendonly.aof"), append(append([]byte(nil), rdbFile...), tail...), 0o644); err != nil {
			t.Fatal(err)
		}
		var q *testutil.Proc
		switch srv {
		case "corvid":
			q = testutil.StartCorvidIn(t, dir, "--save", "", "--appendonly", "yes")
		default:
			if !testutil.HaveValkey(t) {
				continue
			}
			q = testutil.StartValkeyIn(t, dir, "--appendonly", "yes")
		}
		sameLines(t, srv+" on an old-style AOF with an RDB preamble", want, dumpAll(t, ctx, q.Addr, true))
		if n := newClient(t, q.Addr, 2).Exists(ctx, "tail:1999").Val(); n != 1 {
			t.Fatalf("%s: the commands after the preamble were not loaded", srv)
		}
	}
}

// TestStaleTempsRemoved: the temporary files a killed save or rewrite
// leaves (their names carry the dead pid) are removed at start-up, and
// nothing else is.
func TestStaleTempsRemoved(t *testing.T) {
	dir := t.TempDir()
	aofDir := filepath.Join(dir, "appendonlydir")
	os.MkdirAll(aofDir, 0o755)
	stale := []string{
		filepath.Join(dir, "temp-4242-abc.rdb"),
		filepath.Join(dir, "temp-4242.rdb"),
		filepath.Join(aofDir, "temp-rewriteaof-bg-4242.aof"),
		filepath.Join(aofDir, "temp-appendonly.aof.incr"),
	}
	keep := []string{filepath.Join(dir, "notes.rdb.txt"), filepath.Join(aofDir, "other.aof")}
	for _, f := range append(append([]string(nil), stale...), keep...) {
		if err := os.WriteFile(f, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	testutil.StartCorvidIn(t, dir, "--save", "")
	for _, f := range stale {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			t.Errorf("%s still there (%v)", f, err)
		}
	}
	for _, f := range keep {
		if _, err := os.Stat(f); err != nil {
			t.Errorf("%s removed: %v", f, err)
		}
	}
}

// TestLoadingReplies: while the dataset loads at start-up the server
// already answers, as Valkey does: commands without the loading flag
// (PING, GET) get LOADING, INFO says loading:1 with the loading_* fields;
// once loaded, everything is there.
func TestLoadingReplies(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	keys := 1000000
	if raceBuild {
		keys = 200000
	}
	p := testutil.StartCorvid(t, "--save", "", "--enable-debug-command", "yes")
	c := newClient(t, p.Addr, 2, func(o *redis.Options) { o.ReadTimeout = time.Minute })
	for i := 0; i < keys; i += 500000 {
		// In parts, each well inside the client's timeout.
		if err := c.Do(ctx, "DEBUG", "POPULATE", min(500000, keys-i), "k"+strconv.Itoa(i), 100).Err(); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	p.Stop()
	q := testutil.LaunchCorvidIn(t, p.Dir, "--save", "")
	var conn *testutil.Raw
	if !waitFor(10*time.Second, func() bool {
		nc, err := net.DialTimeout("tcp", q.Addr, time.Second)
		if err != nil {
			return false
		}
		nc.Close()
		conn = testutil.Dial(t, q.Addr)
		return true
	}) {
		t.Fatalf("no listener: %s", q.Output())
	}
	first := conn.Do("PING")
	if first == "+PONG" {
		t.Skip("the load ended before the first PING (a fast machine): nothing to observe")
	}
	if first != "-LOADING Valkey is loading the dataset in memory" {
		t.Fatalf("PING while loading: %s", first)
	}
	if got := conn.Do("GET", "k0:1"); got != first {
		t.Errorf("GET while loading: %s", got)
	}
	info := conn.Do("INFO", "persistence")
	for _, f := range []string{`loading:1\r\n`, `loading_total_bytes:`, `loading_loaded_perc:`, `loading_eta_seconds:`} {
		if !strings.Contains(info, f) && !strings.Contains(info, strings.ReplaceAll(f, `\r\n`, "\r\n")) {
			t.Errorf("INFO while loading lacks %q: %s", f, info)
		}
	}
	if !waitFor(60*time.Second, func() bool { return conn.Do("PING") == "+PONG" }) {
		t.Fatal("still loading after 60 s")
	}
	if got := conn.Do("DBSIZE"); got != ":"+strconv.Itoa(keys) {
		t.Errorf("DBSIZE after loading: %s", got)
	}
	if info := conn.Do("INFO", "persistence"); !strings.Contains(info, "loading:0") || strings.Contains(info, "loading_total_bytes") {
		t.Errorf("INFO after loading: %s", info)
	}
	q.Stop()

	// SIGTERM while loading, with save points set: the load stops, the
	// process exits 0 at once, and the file is not overwritten with the
	// part that was loaded.
	before, err := os.ReadFile(filepath.Join(p.Dir, "dump.rdb"))
	if err != nil {
		t.Fatal(err)
	}
	r := testutil.LaunchCorvidIn(t, p.Dir, "--save", "3600 1")
	if !waitFor(10*time.Second, func() bool {
		nc, err := net.DialTimeout("tcp", r.Addr, time.Second)
		if err != nil {
			return false
		}
		defer nc.Close()
		nc.SetDeadline(time.Now().Add(5 * time.Second))
		nc.Write([]byte("PING\r\n"))
		buf := make([]byte, 64)
		n, _ := nc.Read(buf)
		return strings.HasPrefix(string(buf[:n]), "-LOADING")
	}) {
		t.Skip("the load ended before SIGTERM could be sent during it")
	}
	r.Signal(syscall.SIGTERM)
	if code, ok := r.WaitExit(10 * time.Second); !ok || code != 0 {
		t.Fatalf("SIGTERM while loading: exit %d (exited %v)\n%s", code, ok, r.Output())
	}
	if strings.Contains(r.Output(), "Saving the final RDB snapshot") {
		t.Errorf("saved while loading:\n%s", r.Output())
	}
	if after, _ := os.ReadFile(filepath.Join(p.Dir, "dump.rdb")); !bytes.Equal(after, before) {
		t.Errorf("dump.rdb changed by a shutdown during the load")
	}
}
