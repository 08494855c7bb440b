package integration

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// AOF persistence on the real binary: with appendonly yes every
// acknowledged write survives a SIGKILL (appendfsync always), through
// crash loops and rewrites, and Valkey 8.0.1 and Corvid load each other's
// appendonlydir. The crash loops also kill during BGSAVE, RDB-only
// included.

var aofArgs = []string{"--save", "", "--appendonly", "yes", "--appendfsync", "always"}

func waitRewrite(t *testing.T, ctx context.Context, c *redis.Client) {
	t.Helper()
	if !waitFor(20*time.Second, func() bool {
		info := c.Info(ctx, "persistence").Val()
		return strings.Contains(info, "aof_rewrite_in_progress:0") && strings.Contains(info, "aof_rewrite_scheduled:0")
	}) {
		t.Fatalf("rewrite did not end:\n%s", c.Info(ctx, "persistence").Val())
	}
	if info := c.Info(ctx, "persistence").Val(); !strings.Contains(info, "aof_last_bgrewrite_status:ok") {
		t.Fatalf("rewrite failed:\n%s", info)
	}
}

// TestAOFEveryTypeSurvivesKill: writes of every type, SIGKILL, restart in
// the same dir; then BGREWRITEAOF, more writes, SIGKILL, restart.
func TestAOFEveryTypeSurvivesKill(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, aofArgs...)
	c := newClient(t, p.Addr, 2)
	fillEveryType(t, ctx, c)
	want := dumpAll(t, ctx, p.Addr, false)
	info := c.Info(ctx, "persistence").Val()
	if !strings.Contains(info, "aof_enabled:1") || !strings.Contains(info, "aof_current_size:") {
		t.Errorf("INFO persistence:\n%s", info)
	}
	p.Stop() // SIGKILL

	q := testutil.StartCorvidIn(t, p.Dir, aofArgs...)
	sameLines(t, "after SIGKILL and restart", want, dumpAll(t, ctx, q.Addr, false))
	if !strings.Contains(q.Output(), "DB loaded from append only file") {
		t.Errorf("log lacks the load line:\n%s", q.Output())
	}

	qc := newClient(t, q.Addr, 2)
	if v := qc.Do(ctx, "BGREWRITEAOF").Val(); v != "Background append only file rewriting started" {
		t.Fatalf("BGREWRITEAOF = %v", v)
	}
	waitRewrite(t, ctx, qc)
	qc.Set(ctx, "after-rewrite", "1", 0)
	qc.RPush(ctx, "str-list-after", "a", "b")
	want = dumpAll(t, ctx, q.Addr, false)
	m, err := os.ReadFile(filepath.Join(q.Dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil || !strings.Contains(string(m), ".base.rdb seq 2 type b") {
		t.Errorf("manifest after rewrite (%v):\n%s", err, m)
	}
	q.Stop()
	r := testutil.StartCorvidIn(t, p.Dir, aofArgs...)
	sameLines(t, "after rewrite, SIGKILL and restart", want, dumpAll(t, ctx, r.Addr, false))

	// The writer's settings are fixed while it runs; appendonly no turns
	// it off (TestAOFEnableAtRunTime has more).
	rc := newClient(t, r.Addr, 2)
	if err := rc.ConfigSet(ctx, "appendfsync", "no").Err(); err == nil || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("CONFIG SET appendfsync no while the AOF is on: %v", err)
	}
	if err := rc.ConfigSet(ctx, "appendonly", "no").Err(); err != nil {
		t.Errorf("CONFIG SET appendonly no: %v", err)
	}
}

// The crash loops. A writer issues one sequence of ops, each after the
// previous one's reply: op 4i is INCR counter, 4i+1 SET w:i i, 4i+2 RPUSH
// list i, 4i+3 MULTI INCR pair-a INCR pair-b EXEC. The server is SIGKILLed
// and restarted on its files, and what it loads must be a prefix of that
// sequence (a point in time of a sequential writer: no op kept after a
// lost one, no EXEC half-applied), of a length set by what was
// acknowledged:
//
//   - with the AOF on, every acknowledged op and at most the one in
//     flight: with appendfsync always a reply follows the fsync of its
//     command. With everysec it follows the write(2), and a SIGKILL is not
//     a power loss, except while a background fsync runs: then the write
//     is postponed for up to 2 s and the reply goes out first, as in
//     Valkey (flushAppendOnlyFile), so ops acknowledged less than 2 s
//     (plus 1 s for a loaded machine) before the kill may be missing. The
//     loop reports the largest such loss;
//   - with RDB only, the ops of the last save whose file was renamed into
//     place (the file is never torn: temp file, fsync, rename). A BGSAVE's
//     point in time lies between its request and its reply, so that is at
//     least the ops acknowledged before BGSAVE was sent and at most those
//     sent before its reply came.
//
// The kill comes at a random moment (TestAOFCrashLoop), or in the middle
// of a BGREWRITEAOF or BGSAVE of a dataset that DEBUG POPULATE makes big
// enough for the snapshot to take a while (TestCrashDuringSnapshot).
// CORVID_CRASH_ROUNDS sets the rounds of every loop (bench/crash-long.sh
// runs 100); on a failure the files as the kill left them are kept and
// their directory named.

// crashMode is one crash loop's configuration.
type crashMode struct {
	args    []string // the server's
	kill    string   // "random", "rewrite" (during BGREWRITEAOF) or "bgsave"
	rdbOnly bool     // appendonly no: the dump file is what survives
	preload int64    // keys made by DEBUG POPULATE before the first round
	rounds  int      // without CORVID_CRASH_ROUNDS
	// window: acknowledged ops younger than this at the kill may be
	// missing (everysec's postponed write).
	window time.Duration
}

// everysecWindow is everysec's window: Valkey's 2 s postponement, plus
// 1 s for a loaded machine's scheduling.
const everysecWindow = 3 * time.Second

// crashAOF is the server arguments and window of the AOF on with policy.
func crashAOF(m crashMode, policy string) crashMode {
	m.args = []string{"--save", "", "--appendonly", "yes", "--appendfsync", policy}
	if policy == "everysec" {
		m.window = everysecWindow
	}
	return m
}

// TestAOFCrashLoop: the kill at a random moment, with appendfsync always
// and everysec; every other round runs a BGREWRITEAOF under the writes
// (of a small dataset: the kill may land before, during or after the
// rewrite's switch and commit).
func TestAOFCrashLoop(t *testing.T) {
	for _, policy := range []string{"always", "everysec"} {
		t.Run(policy, func(t *testing.T) {
			// 20 rounds: the minimum; ~8 s per policy here.
			crashLoop(t, crashAOF(crashMode{kill: "random", rounds: 20}, policy))
		})
	}
}

// TestCrashDuringSnapshot: the kill while a BGREWRITEAOF (AOF on) or a
// BGSAVE (AOF on, and RDB only) of 200k keys runs under the writes. CI
// runs 3 rounds of each (~1 s a round, plus the preload);
// bench/crash-long.sh 100.
func TestCrashDuringSnapshot(t *testing.T) {
	for _, tc := range []struct {
		name string
		mode crashMode
	}{
		{"rewrite-always", crashAOF(crashMode{kill: "rewrite"}, "always")},
		{"rewrite-everysec", crashAOF(crashMode{kill: "rewrite"}, "everysec")},
		{"bgsave-aof", crashAOF(crashMode{kill: "bgsave"}, "always")},
		{"bgsave-rdb", crashMode{kill: "bgsave", rdbOnly: true, args: []string{"--save", "", "--appendonly", "no"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.mode.preload, tc.mode.rounds = 200_000, 3
			if raceBuild {
				tc.mode.preload = 20_000 // ten times slower: as long a snapshot
			}
			crashLoop(t, tc.mode)
		})
	}
}

// crashRounds is CORVID_CRASH_ROUNDS if set, else def.
func crashRounds(t *testing.T, def int) int {
	s := os.Getenv("CORVID_CRASH_ROUNDS")
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		t.Fatalf("CORVID_CRASH_ROUNDS=%q: want a positive number", s)
	}
	return n
}

// crashTally counts what the kills met, for the summary line
// bench/crash-long.sh prints.
type crashTally struct {
	ops   int64 // acknowledged in all rounds
	early int   // killed within 3 ms of the BGREWRITEAOF/BGSAVE request
	mid   int   // killed after its reply, before its file was in place
	after int   // killed after its file was in place
	// Acknowledged ops missing after a kill (within the window): in how
	// many rounds, at most how many, acknowledged at most how long before
	// the kill.
	lossRounds int
	maxLost    int64
	maxAge     time.Duration
}

func crashLoop(t *testing.T, m crashMode) {
	rounds := crashRounds(t, m.rounds)
	ctx := testCtx(t, 60*time.Second+time.Duration(rounds)*10*time.Second)
	dir := t.TempDir()
	args := append([]string{"--enable-debug-command", "yes"}, m.args...)
	seed := time.Now().UnixNano()
	rng := rand.New(rand.NewSource(seed))
	ev := crashEvidence(t)
	var tally crashTally
	var est time.Duration // how long a snapshot of the preloaded dataset takes
	// The ops that must be loaded: lo..hi.
	var lo, hi int64
	var dump os.FileInfo // RDB only: the dump file whose ops are lo..hi
	// The last round's start, kill and the times its ops were
	// acknowledged (ackAt[i]: op n0+i), for the age of a missing op.
	var n0 int64
	var killAt time.Time
	var ackAt []time.Time
	age := func(op int64) time.Duration { return killAt.Sub(ackAt[op-n0]) }
	if m.preload > 0 {
		p := testutil.StartCorvidIn(t, dir, args...)
		est = crashPreload(t, ctx, p, m)
		dump, _ = os.Stat(filepath.Join(dir, "dump.rdb"))
		p.Stop()
		crashKeep(t, dir, ev, p)
	}
	for round := 0; round < rounds; round++ {
		p := testutil.StartCorvidIn(t, dir, args...)
		c := redis.NewClient(&redis.Options{Addr: p.Addr, Protocol: 2, MaxRetries: -1, PoolSize: 4, DisableIdentity: true})
		s, bad := readSeq(ctx, c, m.preload)
		n := s.ops()
		if bad == "" && (n < lo || n > hi) {
			bad = fmt.Sprintf("%d ops loaded, want %d..%d", n, lo, hi)
			if !m.rdbOnly && n < lo && n >= n0 {
				bad += fmt.Sprintf(" (op %d was acknowledged %v before the kill)", n, age(n))
			}
		}
		if bad != "" {
			t.Fatalf("round %d (seed %d): %s (counter %d, w:* %d, list %d, pair %d/%d)\n"+
				"the files as the kill left them: %s\nthe restarted server's log:\n%s",
				round, seed, bad, s.counter, s.sets, s.list, s.pairA, s.pairB, ev, p.Output())
		}
		if !m.rdbOnly && round > 0 && n < n0+int64(len(ackAt)) {
			tally.lossRounds++
			tally.maxLost = max(tally.maxLost, n0+int64(len(ackAt))-n)
			tally.maxAge = max(tally.maxAge, age(n))
		}
		var acked atomic.Int64
		acked.Store(n)
		n0, ackAt = n, nil
		werr := make(chan error, 1)
		go func() { werr <- seqWrite(ctx, c, n, &acked, &ackAt) }()
		kill := func() { killAt = time.Now(); p.Stop() }
		switch m.kill {
		case "random":
			if round%2 == 1 {
				time.Sleep(time.Duration(rng.Intn(100)) * time.Millisecond)
				c.Do(ctx, "BGREWRITEAOF")
			}
			time.Sleep(time.Duration(100+rng.Intn(400)) * time.Millisecond)
			kill()
		case "rewrite", "bgsave":
			time.Sleep(time.Duration(20+rng.Intn(80)) * time.Millisecond) // some writes first
			if m.rdbOnly {
				// A save that completes: the next round loads it unless
				// the killed one's file replaced it.
				from := acked.Load()
				if v := c.Do(ctx, "BGSAVE").Val(); v != "Background saving started" {
					t.Fatalf("round %d: BGSAVE = %v", round, v)
				}
				to := acked.Load() + 1
				waitSnapshot(t, ctx, c, "rdb_bgsave_in_progress")
				f, err := os.Stat(filepath.Join(dir, "dump.rdb"))
				if err != nil || os.SameFile(f, dump) {
					t.Fatalf("round %d: a completed BGSAVE left no new dump.rdb (%v)", round, err)
				}
				dump, lo, hi = f, from, to
			}
			before := crashFileID(dir, m)
			from := acked.Load()
			to, early, err := killDuring(ctx, c, kill, m.kill, rng, est, &acked)
			if werr := <-werr; err == nil {
				err = werr
			}
			if err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
			switch {
			case early:
				to = acked.Load() + 1 // no reply waited for: whatever was sent before the kill
				tally.early++
			case crashFileID(dir, m) == before:
				tally.mid++
			default:
				tally.after++
			}
			if m.rdbOnly {
				f, err := os.Stat(filepath.Join(dir, "dump.rdb"))
				if err != nil {
					t.Fatalf("round %d: dump.rdb: %v", round, err)
				}
				if !os.SameFile(f, dump) {
					dump, lo, hi = f, from, to // the killed save's file is in place
				}
			}
		}
		if m.kill == "random" {
			if err := <-werr; err != nil {
				t.Fatalf("round %d: %v", round, err)
			}
		}
		c.Close()
		tally.ops += acked.Load() - n
		if !m.rdbOnly {
			// Every op acknowledged before the window, and no more than
			// the one in flight.
			cut := killAt.Add(-m.window)
			lo = n0 + int64(sort.Search(len(ackAt), func(i int) bool { return ackAt[i].After(cut) }))
			hi = acked.Load() + 1
		}
		crashKeep(t, dir, ev, p)
	}
	temps, _ := filepath.Glob(filepath.Join(dir, "temp-*"))
	atemps, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "temp-*"))
	incrs, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	what := fmt.Sprintf("kills: %d within 3 ms of the request, %d during the snapshot, %d after it",
		tally.early, tally.mid, tally.after)
	if m.kill == "random" {
		what = fmt.Sprintf("%d with a BGREWRITEAOF under the writes", rounds/2)
	}
	if m.window > 0 {
		what += fmt.Sprintf("; acknowledged ops missing after %d kills (at most %d, acknowledged at most %v before the kill)",
			tally.lossRounds, tally.maxLost, tally.maxAge.Round(time.Millisecond))
	}
	t.Logf("crash-summary: %s: %d rounds, %d ops acknowledged; %s; left behind: %d temp files, %d incr files; seed %d",
		t.Name(), rounds, tally.ops, what, len(temps)+len(atemps), len(incrs), seed)
}

// crashPreload fills p with m.preload keys (DEBUG POPULATE) and makes
// them durable, by a rewrite with the AOF on and a BGSAVE without. It
// returns how long that snapshot took: about as long as a round's.
func crashPreload(t *testing.T, ctx context.Context, p *testutil.Proc, m crashMode) time.Duration {
	t.Helper()
	c := newClient(t, p.Addr, 2)
	if err := c.Do(ctx, "DEBUG", "POPULATE", m.preload, "key", 100).Err(); err != nil {
		t.Fatalf("DEBUG POPULATE: %v", err)
	}
	cmd, field := "BGREWRITEAOF", "aof_rewrite_in_progress"
	if m.rdbOnly {
		cmd, field = "BGSAVE", "rdb_bgsave_in_progress"
	}
	start := time.Now()
	if err := c.Do(ctx, cmd).Err(); err != nil {
		t.Fatalf("%s: %v", cmd, err)
	}
	waitSnapshot(t, ctx, c, field)
	return time.Since(start)
}

// waitSnapshot waits until INFO persistence's field (rdb_bgsave_in_progress
// or aof_rewrite_in_progress) is 0 and checks that the save or rewrite
// succeeded.
func waitSnapshot(t *testing.T, ctx context.Context, c *redis.Client, field string) {
	t.Helper()
	var info string
	if !waitFor(hangTimeout, func() bool {
		info = c.Info(ctx, "persistence").Val()
		return strings.Contains(info, field+":0") && strings.Contains(info, "aof_rewrite_scheduled:0")
	}) {
		t.Fatalf("the snapshot did not end:\n%s", info)
	}
	if !strings.Contains(info, "rdb_last_bgsave_status:ok") || !strings.Contains(info, "aof_last_bgrewrite_status:ok") {
		t.Fatalf("the snapshot failed:\n%s", info)
	}
}

// killDuring sends BGREWRITEAOF or BGSAVE and kills the server during the
// snapshot it starts: in a quarter of the rounds within 3 ms of sending
// it (the rewrite's files may still be being prepared, and the reply may
// not have come), otherwise after the reply at a uniform moment within
// twice est (under the writes a snapshot takes longer than est, so most
// kills land during it and some after its file is in place). to is the
// ops acknowledged after the reply, plus one (in flight); early says no
// reply was waited for.
func killDuring(ctx context.Context, c *redis.Client, kill func(), mode string, rng *rand.Rand,
	est time.Duration, acked *atomic.Int64) (to int64, early bool, err error) {
	cmd, ok := "BGREWRITEAOF", "Background append only file rewriting started"
	if mode == "bgsave" {
		cmd, ok = "BGSAVE", "Background saving started"
	}
	if rng.Intn(4) == 0 {
		done := make(chan struct{})
		go func() { c.Do(ctx, cmd); close(done) }()
		time.Sleep(time.Duration(rng.Intn(3000)) * time.Microsecond)
		kill()
		<-done
		return 0, true, nil
	}
	if v, err := c.Do(ctx, cmd).Result(); v != ok {
		kill()
		return 0, false, fmt.Errorf("%s = %v, %v", cmd, v, err)
	}
	to = acked.Load() + 1
	time.Sleep(time.Duration(rng.Int63n(2 * int64(est))))
	kill()
	return to, false, nil
}

// crashFileID names the file a finished snapshot puts in place: the AOF
// manifest's text (its base changes) or dump.rdb's inode and time.
func crashFileID(dir string, m crashMode) string {
	if m.kill == "rewrite" {
		b, _ := os.ReadFile(filepath.Join(dir, "appendonlydir", "appendonly.aof.manifest"))
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasSuffix(line, " type b") {
				return line
			}
		}
		return ""
	}
	f, err := os.Stat(filepath.Join(dir, "dump.rdb"))
	if err != nil {
		return ""
	}
	ino := uint64(0)
	if st, ok := f.Sys().(*syscall.Stat_t); ok {
		ino = uint64(st.Ino)
	}
	return fmt.Sprint(ino, f.ModTime().UnixNano(), f.Size())
}

// crashEvidence is a directory that survives the test if it fails, for
// the files a kill left.
func crashEvidence(t *testing.T) string {
	t.Helper()
	ev, err := os.MkdirTemp("", "corvid-crash-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the files as the last kill left them, and its server's log: %s", ev)
		} else {
			os.RemoveAll(ev)
		}
	})
	return ev
}

// crashKeep replaces ev's contents with dir's files as the kill left
// them and p's log. Files a server never changes once written (RDB files,
// temp files) are hard-linked; AOF files and the manifest are copied (the
// next server appends to the last incr file, or truncates it).
func crashKeep(t *testing.T, dir, ev string, p *testutil.Proc) {
	t.Helper()
	if err := os.RemoveAll(ev); err != nil {
		t.Fatal(err)
	}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		dst := filepath.Join(ev, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		name := d.Name()
		if strings.HasSuffix(name, ".rdb") || strings.HasPrefix(name, "temp-") {
			if os.Link(path, dst) == nil {
				return nil
			}
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err == nil {
		err = os.WriteFile(filepath.Join(ev, "killed-server.log"), []byte(p.Output()), 0o644)
	}
	if err != nil {
		t.Fatalf("keeping the files: %v", err)
	}
}

// seqState is what the crash loops' writer left in the keyspace.
type seqState struct{ counter, sets, list, pairA, pairB int64 }

// ops is how many of the writer's ops the state holds: in a prefix of the
// sequence counter >= sets >= list >= pair-a >= counter-1, and each op
// adds one to one of them.
func (s seqState) ops() int64 { return s.counter + s.sets + s.list + s.pairA }

// readSeq reads the writer's state and says what is wrong with it ("" if
// it is a prefix of the sequence beside the preload keys and nothing
// else).
func readSeq(ctx context.Context, c *redis.Client, preload int64) (seqState, string) {
	var s seqState
	pl := c.Pipeline()
	counter, list := pl.Get(ctx, "counter"), pl.LLen(ctx, "list")
	a, b, size := pl.Get(ctx, "pair-a"), pl.Get(ctx, "pair-b"), pl.DBSize(ctx)
	if _, err := pl.Exec(ctx); err != nil && err != redis.Nil {
		return s, "reading: " + err.Error()
	}
	num := func(c *redis.StringCmd) int64 { v, _ := c.Int64(); return v }
	s.counter, s.list, s.pairA, s.pairB = num(counter), list.Val(), num(a), num(b)
	if s.pairA != s.pairB {
		return s, "an EXEC half-applied"
	}
	if s.counter > 0 {
		s.sets = s.counter - 1 + c.Exists(ctx, "w:"+strconv.FormatInt(s.counter-1, 10)).Val()
	}
	if !(s.counter >= s.sets && s.sets >= s.list && s.list >= s.pairA && s.pairA >= s.counter-1) {
		return s, "not a prefix of the sequence"
	}
	var found int64
	for from := int64(0); from < s.sets; from += 1000 {
		var keys []string
		for i := from; i < min(from+1000, s.sets); i++ {
			keys = append(keys, "w:"+strconv.FormatInt(i, 10))
		}
		found += c.Exists(ctx, keys...).Val()
	}
	if found != s.sets {
		return s, fmt.Sprintf("%d of the keys w:0..w:%d", found, s.sets-1)
	}
	if s.sets > 0 {
		if v := c.Get(ctx, "w:"+strconv.FormatInt(s.sets-1, 10)).Val(); v != strconv.FormatInt(s.sets-1, 10) {
			return s, fmt.Sprintf("w:%d = %q", s.sets-1, v)
		}
	}
	elems := c.LRange(ctx, "list", 0, -1).Val()
	for i, e := range elems {
		if e != strconv.Itoa(i) {
			return s, fmt.Sprintf("list[%d] = %q", i, e)
		}
	}
	if int64(len(elems)) != s.list {
		return s, fmt.Sprintf("LRANGE: %d elements, LLEN %d", len(elems), s.list)
	}
	want := preload + s.sets
	for _, v := range []int64{s.counter, s.list, s.pairA, s.pairB} {
		if v > 0 {
			want++
		}
	}
	if size.Val() != want {
		return s, fmt.Sprintf("dbsize %d, want %d", size.Val(), want)
	}
	for _, i := range []int64{0, preload - 1} {
		if preload == 0 {
			break
		}
		if v := c.Get(ctx, "key:"+strconv.FormatInt(i, 10)).Val(); !strings.HasPrefix(v, "value:") {
			return s, fmt.Sprintf("key:%d = %q", i, v)
		}
	}
	return s, ""
}

// seqWrite issues the sequence from op n on, counting acknowledged ops in
// acked and appending the time of each acknowledgment to ackAt (read it
// once seqWrite returned), until a request fails (the kill: nil). A reply that contradicts
// the sequence (the data the round started from was not the prefix it
// looked like) or an error reply is returned as an error.
func seqWrite(ctx context.Context, c *redis.Client, n int64, acked *atomic.Int64, ackAt *[]time.Time) error {
	for ; ; n++ {
		i := n / 4
		want := strconv.FormatInt(i+1, 10)
		var got string
		var err error
		switch n % 4 {
		case 0:
			var v int64
			v, err = c.Incr(ctx, "counter").Result()
			got = strconv.FormatInt(v, 10)
		case 1:
			got, err = c.Set(ctx, "w:"+strconv.FormatInt(i, 10), i, 0).Result()
			want = "OK"
		case 2:
			var v int64
			v, err = c.RPush(ctx, "list", i).Result()
			got = strconv.FormatInt(v, 10)
		case 3:
			var cmds []redis.Cmder
			cmds, err = c.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "pair-a")
				p.Incr(ctx, "pair-b")
				return nil
			})
			var vals []string
			for _, cmd := range cmds {
				if ic, ok := cmd.(*redis.IntCmd); ok {
					vals = append(vals, strconv.FormatInt(ic.Val(), 10))
				}
			}
			got, want = strings.Join(vals, " "), want+" "+want
		}
		if err != nil {
			var rerr redis.Error
			if errors.As(err, &rerr) {
				return fmt.Errorf("op %d: error reply: %v", n, err)
			}
			return nil
		}
		if got != want {
			return fmt.Errorf("op %d: reply %s, want %s", n, got, want)
		}
		*ackAt = append(*ackAt, time.Now())
		acked.Store(n + 1)
	}
}

// TestAOFValkeyInterop: Valkey 8.0.1 loads Corvid's appendonlydir (after
// a rewrite and with incr commands), and Corvid loads Valkey's.
func TestAOFValkeyInterop(t *testing.T) {
	testutil.ValkeyServerPath(t) // skips, or fails with CORVID_REQUIRE_VALKEY, when absent
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, aofArgs...)
	c := newClient(t, p.Addr, 2)
	fillEveryType(t, ctx, c)
	if err := c.Do(ctx, "BGREWRITEAOF").Err(); err != nil {
		t.Fatal(err)
	}
	waitRewrite(t, ctx, c)
	c.Set(ctx, "incr-key", "v", 0)
	c.HSet(ctx, "incr-hash", "f", "v")
	want := dumpAll(t, ctx, p.Addr, false)
	p.Stop()
	v := testutil.StartValkeyIn(t, p.Dir, "--appendonly", "yes")
	sameLines(t, "Corvid's AOF in Valkey", want, dumpAll(t, ctx, v.Addr, false))

	vdir := t.TempDir()
	v2 := testutil.StartValkeyIn(t, vdir, "--appendonly", "yes", "--appendfsync", "always")
	vc := newClient(t, v2.Addr, 2)
	fillEveryType(t, ctx, vc)
	vc.Set(ctx, "more", "1", 0)
	vwant := dumpAll(t, ctx, v2.Addr, false)
	v2.Stop()
	q := testutil.StartCorvidIn(t, vdir, aofArgs...)
	sameLines(t, "Valkey's AOF in Corvid", vwant, dumpAll(t, ctx, q.Addr, false))
}

// TestAOFTruncatedTail: a last incr file cut inside a command loads with
// aof-load-truncated yes (up to the last complete command) and is refused
// with no.
func TestAOFTruncatedTail(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, aofArgs...)
	c := newClient(t, p.Addr, 2)
	for i := 0; i < 10; i++ {
		c.Set(ctx, fmt.Sprintf("k%d", i), "v", 0)
	}
	p.Stop()
	man, err := os.ReadFile(filepath.Join(p.Dir, "appendonlydir", "appendonly.aof.manifest"))
	if err != nil {
		t.Fatal(err)
	}
	var incr string
	for _, line := range strings.Split(string(man), "\n") {
		if f := strings.Fields(line); len(f) == 6 && f[5] == "i" {
			incr = f[1]
		}
	}
	path := filepath.Join(p.Dir, "appendonlydir", incr)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("*3\r\n$3\r\nSET\r\n$2\r\nkx\r\n$5\r\nva") // cut
	f.Close()

	cmd := exec.Command(testutil.ServerBinary(t), append(append([]string{}, aofArgs...),
		"--aof-load-truncated", "no", "--dir", p.Dir, "--port", strconv.Itoa(testutil.FreePort(t)), "--bind", "127.0.0.1")...)
	cmd.Dir = p.Dir
	out, err := cmd.CombinedOutput() // exits at once: the load fails
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("aof-load-truncated no: %v, want exit 1:\n%s", err, out)
	}
	q := testutil.StartCorvidIn(t, p.Dir, append(append([]string{}, aofArgs...), "--aof-load-truncated", "yes")...)
	qc := newClient(t, q.Addr, 2)
	if n := qc.DBSize(ctx).Val(); n != 10 {
		t.Errorf("after a truncated load: dbsize %d, want 10\n%s", n, q.Output())
	}
	if !strings.Contains(q.Output(), "truncated") {
		t.Errorf("log does not mention the truncation:\n%s", q.Output())
	}
	// And it goes on appending after the cut.
	qc.Set(ctx, "after", "1", 0)
	q.Stop()
	r := testutil.StartCorvidIn(t, p.Dir, append(append([]string{}, aofArgs...), "--aof-load-truncated", "no")...)
	if n := newClient(t, r.Addr, 2).DBSize(ctx).Val(); n != 11 {
		t.Errorf("after truncation and a new write: dbsize %d, want 11", n)
	}
}

// TestAOFAutoRewrite: auto-aof-rewrite-percentage/min-size start a rewrite
// from the cron once the AOF grew enough.
func TestAOFAutoRewrite(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--save", "", "--appendonly", "yes", "--appendfsync", "no",
		"--auto-aof-rewrite-percentage", "100", "--auto-aof-rewrite-min-size", "64kb")
	c := newClient(t, p.Addr, 2)
	val := strings.Repeat("x", 1000)
	pl := c.Pipeline()
	for i := 0; i < 300; i++ {
		pl.Set(ctx, "k"+strconv.Itoa(i%50), val, 0)
	}
	if _, err := pl.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	if !waitFor(10*time.Second, func() bool {
		return strings.Contains(c.Info(ctx, "persistence").Val(), "aof_rewrites:1")
	}) {
		t.Fatalf("no automatic rewrite:\n%s\n%s", c.Info(ctx, "persistence").Val(), p.Output())
	}
	waitRewrite(t, ctx, c)
	if !strings.Contains(p.Output(), "Starting automatic rewriting of AOF on") {
		t.Errorf("log lacks the automatic rewrite:\n%s", p.Output())
	}
	want := dumpAll(t, ctx, p.Addr, false)
	p.Stop()
	q := testutil.StartCorvidIn(t, p.Dir, "--save", "", "--appendonly", "yes")
	sameLines(t, "after an automatic rewrite", want, dumpAll(t, ctx, q.Addr, false))
}

// TestAOFRewriteInExec: BGREWRITEAOF inside EXEC is scheduled and the
// cron runs it; with appendonly no it writes a base.
func TestAOFRewriteInExec(t *testing.T) {
	ctx := testCtx(t, 30*time.Second)
	p := testutil.StartCorvid(t, aofArgs...)
	c := testutil.Dial(t, p.Addr)
	defer c.Close()
	expect(t, c, "+OK", "SET", "k", "v")
	expect(t, c, "+OK", "MULTI")
	expect(t, c, "+QUEUED", "SET", "k2", "v2")
	expect(t, c, "+QUEUED", "BGREWRITEAOF")
	expect(t, c, "*[+OK, +Background append only file rewriting scheduled]", "EXEC")
	rc := newClient(t, p.Addr, 2)
	if !waitFor(10*time.Second, func() bool {
		return strings.Contains(rc.Info(ctx, "persistence").Val(), "aof_rewrites:1")
	}) {
		t.Fatalf("the scheduled rewrite did not run:\n%s", rc.Info(ctx, "persistence").Val())
	}
	waitRewrite(t, ctx, rc)
	p.Stop()
	q := testutil.StartCorvidIn(t, p.Dir, aofArgs...)
	if n := newClient(t, q.Addr, 2).DBSize(ctx).Val(); n != 2 {
		t.Errorf("after the scheduled rewrite and a restart: dbsize %d, want 2", n)
	}

	// With appendonly no it writes a base (TestBGREWRITEAOFOff has more).
	off := testutil.StartCorvid(t, "--save", "")
	if err := newClient(t, off.Addr, 2).Do(ctx, "BGREWRITEAOF").Err(); err != nil {
		t.Errorf("BGREWRITEAOF with appendonly no: %v", err)
	}
}
