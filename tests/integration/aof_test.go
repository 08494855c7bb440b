package integration

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// AOF persistence on the real binary: with appendonly yes every
// acknowledged write survives a SIGKILL (appendfsync always), through
// crash loops and rewrites, and Valkey 8.0.1 and Corvid load each other's
// appendonlydir.

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

	// CONFIG SET cannot turn it off at run time (yet).
	if err := newClient(t, r.Addr, 2).ConfigSet(ctx, "appendonly", "no").Err(); err == nil {
		t.Errorf("CONFIG SET appendonly no: accepted")
	}
}

// TestAOFCrashLoop: a writer issues numbered INCRs, RPUSHes and MULTI/EXEC
// pairs with appendfsync always; the server is SIGKILLed at a random
// moment and restarted; every acknowledged write is there and no EXEC is
// half-applied. Every other round runs a BGREWRITEAOF under the writes.
func TestAOFCrashLoop(t *testing.T) {
	for _, policy := range []string{"always", "everysec"} {
		t.Run(policy, func(t *testing.T) { aofCrashLoop(t, policy) })
	}
}

// aofCrashLoop: with everysec a reply still follows the write(2) of its
// command, so a SIGKILL (not a power loss) loses no acknowledged write.
func aofCrashLoop(t *testing.T, policy string) {
	args := []string{"--save", "", "--appendonly", "yes", "--appendfsync", policy}
	ctx := testCtx(t, 90*time.Second)
	dir := t.TempDir()
	rng := rand.New(rand.NewSource(time.Now().UnixNano()))
	// What was acknowledged: INCRs of counter, RPUSHes to list, EXECs
	// of INCR pair-a + INCR pair-b.
	var ackIncr, ackPush, ackPair int64
	const rounds = 20 // the minimum; ~10 s per policy here
	for round := 0; round < rounds; round++ {
		p := testutil.StartCorvidIn(t, dir, args...)
		c := redis.NewClient(&redis.Options{Addr: p.Addr, Protocol: 2, MaxRetries: -1, PoolSize: 4})
		n, err := c.Get(ctx, "counter").Int64()
		if err != nil && err != redis.Nil {
			t.Fatalf("round %d: GET counter: %v", round, err)
		}
		ln, err := c.LLen(ctx, "list").Result()
		if err != nil {
			t.Fatalf("round %d: LLEN: %v", round, err)
		}
		a, _ := c.Get(ctx, "pair-a").Int64()
		b, _ := c.Get(ctx, "pair-b").Int64()
		if n < ackIncr || ln < ackPush || a < ackPair {
			t.Fatalf("round %d: counter %d list %d pair %d < acknowledged %d/%d/%d", round, n, ln, a, ackIncr, ackPush, ackPair)
		}
		if a != b {
			t.Fatalf("round %d: pair-a %d != pair-b %d: an EXEC half-applied", round, a, b)
		}
		// Done but unacknowledged writes may be there too: the loaded
		// state is the new floor.
		ackIncr, ackPush, ackPair = n, ln, a
		var wg sync.WaitGroup
		var mu sync.Mutex
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				if _, err := c.Incr(ctx, "counter").Result(); err != nil {
					return
				}
				mu.Lock()
				ackIncr++
				mu.Unlock()
				if _, err := c.RPush(ctx, "list", strconv.Itoa(i)).Result(); err != nil {
					return
				}
				mu.Lock()
				ackPush++
				mu.Unlock()
				_, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Incr(ctx, "pair-a")
					p.Incr(ctx, "pair-b")
					return nil
				})
				if err != nil {
					return
				}
				mu.Lock()
				ackPair++
				mu.Unlock()
			}
		}()
		// Half the rounds rewrite the AOF meanwhile: the kill may land
		// before, during or after the rewrite's switch and commit.
		if round%2 == 1 {
			time.Sleep(time.Duration(rng.Intn(100)) * time.Millisecond)
			c.Do(ctx, "BGREWRITEAOF")
		}
		time.Sleep(time.Duration(100+rng.Intn(400)) * time.Millisecond)
		p.Stop() // SIGKILL at a random moment
		wg.Wait()
		c.Close()
	}
	t.Logf("%d rounds: %d INCRs, %d RPUSHes, %d EXECs acknowledged", rounds, ackIncr, ackPush, ackPair)
}

// TestAOFValkeyInterop: Valkey 8.0.1 loads Corvid's appendonlydir (after
// a rewrite and with incr commands), and Corvid loads Valkey's.
func TestAOFValkeyInterop(t *testing.T) {
	if testutil.ValkeyServerLookup() == "" {
		t.Skip("no valkey-server")
	}
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
// cron runs it; with appendonly no it is refused.
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

	off := testutil.StartCorvid(t, "--save", "")
	if err := newClient(t, off.Addr, 2).Do(ctx, "BGREWRITEAOF").Err(); err == nil {
		t.Errorf("BGREWRITEAOF with appendonly no: accepted")
	}
}
