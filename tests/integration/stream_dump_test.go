package integration

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// streamScript builds streams with every part a stream's RDB encoding
// has: nodes split by a small stream-node-max-entries, deleted entries
// (tombstones inside nodes, and a node gone), entries with the master's
// fields and without, integer and long values, groups with and without
// read counters, consumers with pending entries and without, an empty
// stream with a group, and an empty one left by trimming.
var streamScript = [][]any{
	{"CONFIG", "SET", "stream-node-max-entries", "3"},
	{"XADD", "s", "1-1", "a", "1", "b", "2"},
	{"XADD", "s", "1-2", "a", "3", "b", "4"},
	{"XADD", "s", "1-3", "c", "5"},
	{"XADD", "s", "2-0", "a", "70000", "b", "-5000000000"},
	{"XADD", "s", "2-1", "a", strings.Repeat("a", 300), "b", "x"},
	{"XADD", "s", "3-0", "f1", "v1", "f2", "v2", "f3", "v3"},
	{"XADD", "s", "3-5", "f1", "v1", "f2", "v2", "f3", "v3"},
	{"XADD", "s", "4-0", "empty", ""},
	{"XADD", "s", "5-0", "x", "y"},
	{"XADD", "s", "5-1", "x", "y"},
	{"XDEL", "s", "1-2", "2-0", "5-0", "5-1"},
	{"XGROUP", "CREATE", "s", "g", "0"},
	{"XGROUP", "CREATE", "s", "123", "$"},
	{"XGROUP", "CREATE", "s", "g3", "1-3", "ENTRIESREAD", "2"},
	{"XREADGROUP", "GROUP", "g", "alice", "COUNT", "2", "STREAMS", "s", ">"},
	{"XREADGROUP", "GROUP", "g", "bob", "COUNT", "2", "STREAMS", "s", ">"},
	{"XREADGROUP", "GROUP", "g3", "bob", "NOACK", "STREAMS", "s", ">"},
	{"XCLAIM", "s", "g", "42", "0", "2-1", "TIME", "1700000000000", "RETRYCOUNT", "7"},
	{"XGROUP", "CREATECONSUMER", "s", "123", "carol"},
	{"XGROUP", "CREATE", "e", "g", "0", "MKSTREAM"},
	{"XADD", "t", "MAXLEN", "0", "5-5", "x", "y"},
	{"XADD", "big", "MAXLEN", "~", "500", "999999-0", "f", "v"},
	{"CONFIG", "SET", "stream-node-max-entries", "100"},
}

func runStreamScript(t *testing.T, c *redis.Client) {
	t.Helper()
	ctx := context.Background()
	for _, cmd := range streamScript {
		if err := c.Do(ctx, cmd...).Err(); err != nil {
			t.Fatalf("%v: %v", cmd, err)
		}
	}
	for i := range 1000 {
		c.Do(ctx, "XADD", "big", fmt.Sprintf("%d-%d", 1_000_000+i/7, i%7), "field", i, "other", fmt.Sprintf("value %d", i%13))
	}
	c.Do(ctx, "XDEL", "big", "1000010-3", "1000100-0")
	c.Do(ctx, "XGROUP", "CREATE", "big", "workers", "0")
	c.Do(ctx, "XREADGROUP", "GROUP", "workers", "w1", "COUNT", "300", "STREAMS", "big", ">")
	c.Do(ctx, "XACK", "big", "workers", "1000001-0", "1000001-1")
}

// streamKeys are the keys streamScript makes.
var streamKeys = []string{"s", "e", "t", "big"}

// xinfoFull is XINFO STREAM key FULL COUNT 0 as a string.
func xinfoFull(t *testing.T, c *redis.Client, key string) string {
	t.Helper()
	v, err := c.Do(context.Background(), "XINFO", "STREAM", key, "FULL", "COUNT", "0").Result()
	if err != nil {
		t.Fatalf("XINFO STREAM %s FULL: %v", key, err)
	}
	return fmt.Sprint(v)
}

// TestStreamDumpRestoreInterop: a stream DUMPed by Corvid RESTOREs into
// valkey-server 8.0.1, and Valkey's into Corvid, to the same stream: the
// same XINFO STREAM FULL (entries, node and rax figures, metadata,
// groups, pending entries with their times and counts, consumers with
// their times). A payload of a stream whose parts carry no clock is
// byte-equal to Valkey's.
func TestStreamDumpRestoreInterop(t *testing.T) {
	vk := testutil.StartValkey(t, "--enable-debug-command", "yes")
	cv := testutil.StartCorvid(t, "--enable-debug-command", "yes")
	ctx := context.Background()
	v, c := newClient(t, vk.Addr, 2), newClient(t, cv.Addr, 2)
	names := map[*redis.Client]string{v: "valkey", c: "corvid"}
	runStreamScript(t, v)
	runStreamScript(t, c)
	for _, key := range streamKeys {
		if a, b := fmt.Sprint(v.Do(ctx, "DEBUG", "DIGEST-VALUE", key).Val()), fmt.Sprint(c.Do(ctx, "DEBUG", "DIGEST-VALUE", key).Val()); a != b {
			t.Errorf("%s: valkey's digest %s, corvid's %s", key, a, b)
		}
	}
	for _, from := range []*redis.Client{c, v} {
		to := v
		if from == v {
			to = c
		}
		for _, key := range streamKeys {
			p, err := from.Dump(ctx, key).Result()
			if err != nil {
				t.Fatalf("%s: DUMP %s: %v", names[from], key, err)
			}
			dst := "restored:" + key
			if err := to.Restore(ctx, dst, 0, p).Err(); err != nil {
				t.Fatalf("%s -> %s: RESTORE %s: %v", names[from], names[to], key, err)
			}
			if a, b := xinfoFull(t, from, key), xinfoFull(t, to, dst); a != b {
				t.Errorf("%s -> %s: %s:\n%.2000s\nrestored\n%.2000s", names[from], names[to], key, a, b)
			}
			if a, b := fmt.Sprint(from.Do(ctx, "DEBUG", "DIGEST-VALUE", key).Val()), fmt.Sprint(to.Do(ctx, "DEBUG", "DIGEST-VALUE", dst).Val()); a != b {
				t.Errorf("%s -> %s: %s digest %s, restored %s", names[from], names[to], key, a, b)
			}
		}
	}
	// Without consumers nothing in a payload comes from the clock.
	for _, cl := range []*redis.Client{v, c} {
		cl.Do(ctx, "XGROUP", "DESTROY", "s", "g")
		cl.Do(ctx, "XGROUP", "DELCONSUMER", "s", "123", "carol")
		cl.Do(ctx, "XGROUP", "DELCONSUMER", "s", "g3", "bob")
	}
	for _, key := range []string{"s", "e", "t"} {
		if a, b := v.Dump(ctx, key).Val(), c.Dump(ctx, key).Val(); a != b {
			t.Errorf("DUMP %s: valkey %x\ncorvid %x", key, a, b)
		}
	}
}

// TestStreamRDBInterop: an RDB file Corvid saves loads into
// valkey-server 8.0.1, and Valkey's into Corvid, with the same streams.
func TestStreamRDBInterop(t *testing.T) {
	ctx := context.Background()
	save := func(t *testing.T, start func(dir string) *testutil.Proc, dir string) (map[string]string, *testutil.Proc) {
		p := start(dir)
		c := newClient(t, p.Addr, 2)
		runStreamScript(t, c)
		want := map[string]string{}
		for _, k := range streamKeys {
			want[k] = xinfoFull(t, c, k)
		}
		if err := c.Save(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		return want, p
	}
	load := func(t *testing.T, start func(dir string) *testutil.Proc, dir string, want map[string]string) {
		p := start(dir)
		c := newClient(t, p.Addr, 2)
		if !waitFor(hangTimeout, func() bool { return c.Ping(ctx).Err() == nil && c.DBSize(ctx).Val() > 0 }) {
			t.Fatalf("nothing loaded: %v", c.Ping(ctx).Err())
		}
		for _, k := range streamKeys {
			if got := xinfoFull(t, c, k); got != want[k] {
				t.Errorf("%s:\nsaved  %.2000s\nloaded %.2000s", k, want[k], got)
			}
		}
	}
	corvid := func(dir string) *testutil.Proc { return testutil.StartCorvidIn(t, dir, "--save", "") }
	valkey := func(dir string) *testutil.Proc { return testutil.StartValkeyIn(t, dir) }
	for _, tc := range []struct {
		name     string
		from, to func(dir string) *testutil.Proc
	}{
		{"corvid-to-valkey", corvid, valkey},
		{"valkey-to-corvid", valkey, corvid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !testutil.HaveValkey(t) {
				t.Skip("valkey-server not found")
			}
			dir := t.TempDir()
			want, p := save(t, tc.from, dir)
			p.Stop()
			if _, err := os.Stat(filepath.Join(dir, "dump.rdb")); err != nil {
				t.Fatal(err)
			}
			load(t, tc.to, dir, want)
		})
	}
}
