package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// RDB persistence on the real binary: SAVE/BGSAVE/SHUTDOWN write
// dir/dbfilename, a restart loads it, Valkey 8.0.1 loads Corvid's files
// and Corvid loads Valkey's, and BGSAVE is a point in time while clients
// keep writing.

// fillEveryType writes keys of every type in both encodings, with TTLs,
// in two databases.
func fillEveryType(t *testing.T, ctx context.Context, c *redis.Client) {
	t.Helper()
	for _, dbi := range []int{0, 3} {
		p := c.Pipeline()
		p.Do(ctx, "SELECT", dbi)
		p.Set(ctx, "str", "hello", 0)
		p.Set(ctx, "int", "12345", 0)
		p.Set(ctx, "big", strings.Repeat("abc", 1000), 0)
		p.Set(ctx, "ttl", "v", time.Hour)
		p.RPush(ctx, "list", "a", "b", "c")
		p.SAdd(ctx, "intset", 1, 2, 3)
		p.SAdd(ctx, "lpset", "a", "b")
		p.ZAdd(ctx, "zlp", redis.Z{Score: 1.5, Member: "x"}, redis.Z{Score: -2, Member: "y"})
		p.HSet(ctx, "hlp", "f", "v", "g", "w")
		for i := range 700 {
			p.RPush(ctx, "biglist", strconv.Itoa(i))
			p.SAdd(ctx, "bigset", "m"+strconv.Itoa(i))
			p.ZAdd(ctx, "bigz", redis.Z{Score: float64(i), Member: "m" + strconv.Itoa(i)})
			p.HSet(ctx, "bighash", "f"+strconv.Itoa(i), strconv.Itoa(i))
		}
		p.Expire(ctx, "bigz", time.Hour)
		if _, err := p.Exec(ctx); err != nil {
			t.Fatal(err)
		}
	}
}

// dumpAll describes every key of databases 0 and 3: type, encoding, value
// and whether it has a TTL, sorted, for comparing two servers.
func dumpAll(t *testing.T, ctx context.Context, addr string, withEncoding bool) []string {
	t.Helper()
	var out []string
	for _, dbi := range []int{0, 3} {
		c := redis.NewClient(&redis.Options{Addr: addr, DB: dbi, Protocol: 2})
		keys, err := c.Keys(ctx, "*").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			typ := c.Type(ctx, k).Val()
			var v string
			switch typ {
			case "string":
				v = c.Get(ctx, k).Val()
			case "list":
				v = fmt.Sprint(c.LRange(ctx, k, 0, -1).Val())
			case "set":
				m := c.SMembers(ctx, k).Val()
				sort.Strings(m)
				v = fmt.Sprint(m)
			case "zset":
				v = fmt.Sprint(c.ZRangeWithScores(ctx, k, 0, -1).Val())
			case "hash":
				v = fmt.Sprint(c.HGetAll(ctx, k).Val())
			}
			enc := ""
			if withEncoding {
				enc = c.ObjectEncoding(ctx, k).Val()
			}
			ttl := c.TTL(ctx, k).Val() > 0
			out = append(out, fmt.Sprintf("%d %s %s %s ttl=%v %.60s", dbi, k, typ, enc, ttl, v))
		}
		c.Close()
	}
	sort.Strings(out)
	return out
}

func sameLines(t *testing.T, what string, a, b []string) {
	t.Helper()
	if len(a) == 0 {
		t.Fatalf("%s: no keys", what)
	}
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("%s differ:\n%s\n---\n%s", what, strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
}

// TestRDBRestart: SAVE, kill -9, restart in the same directory: every key
// is back with its type, encoding, value and TTL; INFO says so.
func TestRDBRestart(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t)
	c := newClient(t, p.Addr, 2)
	fillEveryType(t, ctx, c)
	want := dumpAll(t, ctx, p.Addr, true)
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	p.Stop() // SIGKILL: nothing but the file survives
	q := testutil.StartCorvidIn(t, p.Dir)
	sameLines(t, "after restart", want, dumpAll(t, ctx, q.Addr, true))
	info := newClient(t, q.Addr, 2).Info(ctx, "persistence").Val()
	if !strings.Contains(info, "rdb_last_load_keys_loaded:"+strconv.Itoa(len(want))) {
		t.Errorf("INFO persistence after load:\n%s", info)
	}
	if !strings.Contains(q.Output(), "Done loading RDB, keys loaded: "+strconv.Itoa(len(want))+", keys expired: 0.") {
		t.Errorf("log lacks the load line:\n%s", q.Output())
	}
}

// TestRDBShutdown: with the default save points SHUTDOWN saves; SHUTDOWN
// NOSAVE does not; SIGTERM saves.
func TestRDBShutdown(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t)
	c := newClient(t, p.Addr, 2)
	c.Set(ctx, "k", "1", 0)
	c.Shutdown(ctx) // the connection closes
	if _, ok := p.WaitExit(hangTimeout); !ok {
		t.Fatal("SHUTDOWN did not exit")
	}
	q := testutil.StartCorvidIn(t, p.Dir)
	qc := newClient(t, q.Addr, 2)
	if v := qc.Get(ctx, "k").Val(); v != "1" {
		t.Fatalf("after SHUTDOWN and restart: k = %q", v)
	}
	qc.Set(ctx, "k", "2", 0)
	qc.Do(ctx, "SHUTDOWN", "NOSAVE")
	q.WaitExit(hangTimeout)
	r := testutil.StartCorvidIn(t, p.Dir)
	rc := newClient(t, r.Addr, 2)
	if v := rc.Get(ctx, "k").Val(); v != "1" {
		t.Fatalf("after SHUTDOWN NOSAVE and restart: k = %q, want the saved 1", v)
	}
	rc.Set(ctx, "k", "3", 0)
	r.Signal(syscall.SIGTERM)
	r.WaitExit(hangTimeout)
	s := testutil.StartCorvidIn(t, p.Dir)
	if v := newClient(t, s.Addr, 2).Get(ctx, "k").Val(); v != "3" {
		t.Fatalf("after SIGTERM and restart: k = %q, want 3", v)
	}
}

// TestRDBSavePoints: a save point starts a BGSAVE by itself.
func TestRDBSavePoints(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t)
	c := newClient(t, p.Addr, 2)
	if err := c.ConfigSet(ctx, "save", "1 2").Err(); err != nil {
		t.Fatal(err)
	}
	c.Set(ctx, "a", "1", 0)
	c.Set(ctx, "b", "1", 0)
	if !waitFor(hangTimeout, func() bool {
		return strings.Contains(c.Info(ctx, "persistence").Val(), "rdb_saves:1")
	}) {
		t.Fatal("timed out waiting for " + "a save point's BGSAVE")
	}
	if _, err := os.Stat(filepath.Join(p.Dir, "dump.rdb")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Output(), "2 changes in 1 seconds. Saving...") {
		t.Errorf("log lacks the save point line:\n%s", p.Output())
	}
	// BGSAVE inside EXEC is scheduled for the cron, as Valkey does.
	cmds, err := c.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.BgSave(ctx)
		return nil
	})
	if err != nil || cmds[0].(*redis.StatusCmd).Val() != "Background saving scheduled" {
		t.Fatalf("MULTI BGSAVE EXEC: %v %v", cmds, err)
	}
	if !waitFor(hangTimeout, func() bool {
		return strings.Contains(c.Info(ctx, "persistence").Val(), "rdb_saves:2")
	}) {
		t.Fatal("the scheduled BGSAVE did not run")
	}
}

// TestRDBInteropValkey: Valkey 8.0.1 loads Corvid's file, and Corvid
// loads Valkey's, key for key, encodings included.
func TestRDBInteropValkey(t *testing.T) {
	testutil.ValkeyServerPath(t) // skips, or fails with CORVID_REQUIRE_VALKEY, when absent
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t)
	c := newClient(t, p.Addr, 2)
	fillEveryType(t, ctx, c)
	want := dumpAll(t, ctx, p.Addr, true)
	if err := c.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	v := testutil.StartValkeyIn(t, p.Dir)
	sameLines(t, "Corvid's file in Valkey", want, dumpAll(t, ctx, v.Addr, true))

	// And back: Valkey's own save, loaded by Corvid.
	vdir := t.TempDir()
	v2 := testutil.StartValkeyIn(t, vdir)
	vc := newClient(t, v2.Addr, 2)
	fillEveryType(t, ctx, vc)
	vwant := dumpAll(t, ctx, v2.Addr, true)
	if err := vc.Save(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	q := testutil.StartCorvidIn(t, vdir)
	sameLines(t, "Valkey's file in Corvid", vwant, dumpAll(t, ctx, q.Addr, true))
}

// TestRDBDebugReload: DEBUG RELOAD keeps every key and encoding.
func TestRDBDebugReload(t *testing.T) {
	ctx := testCtx(t, 60*time.Second)
	p := testutil.StartCorvid(t, "--enable-debug-command", "yes")
	c := newClient(t, p.Addr, 2)
	fillEveryType(t, ctx, c)
	want := dumpAll(t, ctx, p.Addr, true)
	if err := c.Do(ctx, "DEBUG", "RELOAD").Err(); err != nil {
		t.Fatal(err)
	}
	sameLines(t, "after DEBUG RELOAD", want, dumpAll(t, ctx, p.Addr, true))
}

// TestBGSAVEPointInTime: while one client writes a sequence of new keys,
// one at a time and each acknowledged before the next, another deletes a
// sequence of keys the same way, and a third runs MULTI INCR a, INCR b
// EXEC, a BGSAVE of a dataset large enough to take a while must hold
// exactly a prefix of the created keys, a suffix of the deleted ones, and
// a == b: the dataset at one instant, whatever stripes the keys hash to.
func TestBGSAVEPointInTime(t *testing.T) {
	ctx := testCtx(t, 120*time.Second)
	p := testutil.StartCorvid(t, "--enable-debug-command", "yes", "--save", "")
	c := newClient(t, p.Addr, 2)
	if err := c.Do(ctx, "DEBUG", "POPULATE", "300000", "fill", "100").Err(); err != nil {
		t.Fatal(err)
	}
	const n = 3000
	p2 := c.Pipeline()
	for i := range n {
		p2.Set(ctx, "del:"+strconv.Itoa(i), "x", 0)
	}
	p2.Set(ctx, "a", "0", 0)
	p2.Set(ctx, "b", "0", 0)
	if _, err := p2.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var created, deleted, txs int
	wg.Add(3)
	go func() {
		defer wg.Done()
		w := newClient(t, p.Addr, 2)
		for ; created < n; created++ {
			select {
			case <-stop:
				return
			default:
			}
			w.Set(ctx, "new:"+strconv.Itoa(created), "x", 0)
		}
	}()
	go func() {
		defer wg.Done()
		w := newClient(t, p.Addr, 2)
		for ; deleted < n; deleted++ {
			select {
			case <-stop:
				return
			default:
			}
			w.Del(ctx, "del:"+strconv.Itoa(deleted))
		}
	}()
	go func() {
		defer wg.Done()
		w := newClient(t, p.Addr, 2)
		for {
			select {
			case <-stop:
				return
			default:
			}
			w.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Incr(ctx, "a")
				p.Incr(ctx, "b")
				return nil
			})
			txs++
		}
	}()
	if !waitFor(hangTimeout, func() bool { return c.Exists(ctx, "new:10").Val() == 1 && c.Exists(ctx, "del:10").Val() == 0 }) {
		t.Fatal("timed out waiting for " + "the writers to start")
	}
	if err := c.BgSave(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if !waitFor(hangTimeout, func() bool {
		return strings.Contains(c.Info(ctx, "persistence").Val(), "rdb_bgsave_in_progress:0")
	}) {
		t.Fatal("timed out waiting for " + "the BGSAVE to end")
	}
	close(stop)
	wg.Wait()
	info := c.Info(ctx, "persistence").Val()
	if !strings.Contains(info, "rdb_last_bgsave_status:ok") {
		t.Fatalf("BGSAVE failed:\n%s", info)
	}
	t.Logf("during the test: %d keys created, %d deleted, %d transactions", created, deleted, txs)
	// The writes overlapped the walk: some keys were copied aside before
	// their shard was written (the copies' peak is rdb_last_cow_size).
	if strings.Contains(info, "rdb_last_cow_size:0\r") {
		t.Errorf("no key was copied during the save: the writes did not overlap it\n%s", info)
	}

	// Load the file into a fresh server and check the three properties.
	q := testutil.StartCorvidIn(t, p.Dir, "--save", "")
	qc := newClient(t, q.Addr, 2)
	if a, b := qc.Get(ctx, "a").Val(), qc.Get(ctx, "b").Val(); a != b {
		t.Errorf("a = %s, b = %s: half a transaction in the snapshot", a, b)
	}
	lastNew := -1
	for i := range n {
		if qc.Exists(ctx, "new:"+strconv.Itoa(i)).Val() == 1 {
			if lastNew != i-1 {
				t.Fatalf("new:%d is in the snapshot but new:%d is not", i, lastNew+1)
			}
			lastNew = i
		}
	}
	firstDel := n
	for i := n - 1; i >= 0; i-- {
		if qc.Exists(ctx, "del:"+strconv.Itoa(i)).Val() == 1 {
			if firstDel != i+1 {
				t.Fatalf("del:%d is in the snapshot but del:%d is not", i, firstDel-1)
			}
			firstDel = i
		}
	}
	if got := qc.DBSize(ctx).Val(); got != int64(300000+2+lastNew+1+n-firstDel) {
		t.Errorf("DBSIZE %d, want %d", got, 300000+2+lastNew+1+n-firstDel)
	}
	t.Logf("snapshot: new:0..%d, del:%d.., a = %s", lastNew, firstDel, qc.Get(ctx, "a").Val())
}
