package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// streamPropagationScript has every form in which a stream command
// propagates: XADD with a generated ID ("*", "<ms>-*") and with "~"
// trimming (both made explicit), XTRIM "~", XREADGROUP (an XCLAIM per
// delivery; with NOACK, XGROUP SETID and CREATECONSUMER), history reads
// (nothing), XCLAIM and XAUTOCLAIM (XCLAIM ... LASTID; XGROUP SETID for a
// LASTID alone; XCLAIMs that drop entries deleted meanwhile), and the
// commands propagated as they were sent.
var streamPropagationScript = [][]any{
	{"CONFIG", "SET", "stream-node-max-entries", "2"},
	{"XADD", "s", "1-1", "f", "v"},
	{"XADD", "s", "1-*", "f", "v"},
	{"XADD", "s", "*", "f", "v"},
	{"XADD", "t", "MAXLEN", "~", "2", "1-1", "f", "v"},
	{"XADD", "t", "MAXLEN", "~", "2", "1-2", "f", "v"},
	{"XADD", "t", "MAXLEN", "~", "2", "LIMIT", "5", "1-3", "f", "v"},
	{"XADD", "t", "MINID", "~", "1-3", "1-4", "f", "v"},
	{"XADD", "t", "MAXLEN", "=", "3", "1-5", "f", "v"},
	{"XADD", "t", "MAXLEN", "~", "1", "1-6", "f", "v"},
	{"XTRIM", "t", "MAXLEN", "~", "1"},
	{"XTRIM", "t", "MINID", "1-6"},
	{"XTRIM", "t", "MAXLEN", "~", "100"},
	{"XDEL", "t", "1-6", "9-9"},
	{"XADD", "u", "NOMKSTREAM", "1-1", "f", "v"},
	{"XADD", "u", "2-1", "f", "v"},
	{"XADD", "u", "2-2", "f", "v"},
	{"XADD", "u", "2-3", "f", "v"},
	{"XGROUP", "CREATE", "u", "g", "0"},
	{"XGROUP", "CREATE", "u", "g2", "$", "ENTRIESREAD", "3"},
	{"XGROUP", "CREATE", "v", "g", "$", "MKSTREAM"},
	{"XREADGROUP", "GROUP", "g", "c1", "COUNT", "2", "STREAMS", "u", ">"},
	{"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "u", "0"},
	{"XREADGROUP", "GROUP", "g", "c2", "NOACK", "STREAMS", "u", ">"},
	{"XREADGROUP", "GROUP", "g", "c3", "STREAMS", "u", ">"},
	{"XGROUP", "SETID", "u", "g", "0"},
	{"XREADGROUP", "GROUP", "g", "c3", "COUNT", "1", "STREAMS", "u", ">"},
	{"XACK", "u", "g", "2-2", "7-7"},
	{"XCLAIM", "u", "g", "c4", "0", "2-1", "TIME", "1000000", "RETRYCOUNT", "5"},
	{"XCLAIM", "u", "g", "c4", "0", "2-1", "JUSTID", "LASTID", "2-3"},
	{"XCLAIM", "u", "g", "c4", "0", "9-9", "LASTID", "9-9"},
	{"XDEL", "u", "2-1"},
	{"XCLAIM", "u", "g", "c5", "0", "2-1"},
	{"XREADGROUP", "GROUP", "g", "c1", "STREAMS", "u", ">"},
	{"XAUTOCLAIM", "u", "g", "c6", "0", "0", "COUNT", "10"},
	{"XGROUP", "CREATECONSUMER", "u", "g", "c7"},
	{"XGROUP", "DELCONSUMER", "u", "g", "c7"},
	{"XSETID", "u", "10-0", "ENTRIESADDED", "20", "MAXDELETEDID", "3-0"},
	{"XGROUP", "DESTROY", "u", "g2"},
	{"CONFIG", "SET", "stream-node-max-entries", "100"},
}

// TestStreamPropagation runs streamPropagationScript on Corvid and
// valkey-server 8.0.1 with appendonly yes and compares what each wrote to
// its AOF, command for command, after replacing the clock's values
// (generated IDs' milliseconds, delivery times).
func TestStreamPropagation(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	args := []string{"--appendonly", "yes", "--appendfsync", "always"}
	cv := testutil.StartCorvidIn(t, t.TempDir(), args...)
	vk := testutil.StartValkeyIn(t, t.TempDir(), args...)
	var got [2][]string
	for i, p := range []*testutil.Proc{cv, vk} {
		c := newClient(t, p.Addr, 2)
		for _, cmd := range streamPropagationScript {
			c.Do(context.Background(), cmd...)
		}
		got[i] = aofCommands(t, p.Dir)
	}
	n := max(len(got[0]), len(got[1]))
	for i := range n {
		var a, b string
		if i < len(got[0]) {
			a = got[0][i]
		}
		if i < len(got[1]) {
			b = got[1][i]
		}
		if a != b {
			t.Errorf("AOF command %d:\ncorvid: %s\nvalkey: %s", i, a, b)
		}
	}
}

// aofCommands reads the commands of dir's AOF incr files, the clock's
// values replaced.
func aofCommands(t *testing.T, dir string) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "appendonlydir", "*.incr.aof"))
	if len(files) == 0 {
		t.Fatalf("no incr AOF in %s", dir)
	}
	var out []string
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(fh)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				break
			}
			if !strings.HasPrefix(line, "*") {
				continue // annotations
			}
			n, _ := strconv.Atoi(strings.TrimSpace(line[1:]))
			argv := make([]string, n)
			for i := range argv {
				hdr, _ := r.ReadString('\n')
				size, _ := strconv.Atoi(strings.TrimSpace(hdr[1:]))
				buf := make([]byte, size+2)
				if _, err := readFullAOF(r, buf); err != nil {
					t.Fatal(err)
				}
				argv[i] = clockless(string(buf[:size]))
			}
			out = append(out, strings.Join(argv, " "))
		}
		fh.Close()
	}
	return out
}

// clockless replaces a value that is the clock's (unix milliseconds
// after 2020, alone or as an ID's milliseconds).
func clockless(a string) string {
	ms, rest, _ := strings.Cut(a, "-")
	if n, err := strconv.ParseInt(ms, 10, 64); err == nil && n > 1_577_836_800_000 {
		if rest != "" {
			return "<now>-" + rest
		}
		return "<now>"
	}
	return a
}

func readFullAOF(r *bufio.Reader, b []byte) (int, error) {
	n := 0
	for n < len(b) {
		m, err := r.Read(b[n:])
		n += m
		if err != nil {
			return n, fmt.Errorf("short AOF: %w", err)
		}
	}
	return n, nil
}

// TestStreamAOFRewrite: with aof-use-rdb-preamble no, Corvid's rewrite
// writes each stream as the same commands Valkey 8.0.1's does
// (rewriteStreamObject: XADDs, XSETID, XGROUP CREATE ... ENTRIESREAD, and
// per consumer its pending entries as XCLAIMs or an XGROUP
// CREATECONSUMER), and a restart from it rebuilds the streams.
func TestStreamAOFRewrite(t *testing.T) {
	if !testutil.HaveValkey(t) {
		return
	}
	ctx := context.Background()
	args := []string{"--appendonly", "yes", "--aof-use-rdb-preamble", "no", "--aof-timestamp-enabled", "no"}
	cv := testutil.StartCorvidIn(t, t.TempDir(), append([]string{"--save", ""}, args...)...)
	vk := testutil.StartValkeyIn(t, t.TempDir(), args...)
	var bases [2]map[string][]string
	for i, p := range []*testutil.Proc{cv, vk} {
		c := newClient(t, p.Addr, 2)
		runStreamScript(t, c)
		if err := c.BgRewriteAOF(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		waitRewrite(t, ctx, c)
		files, _ := filepath.Glob(filepath.Join(p.Dir, "appendonlydir", "*.base.aof"))
		if len(files) != 1 {
			t.Fatalf("base files %q", files)
		}
		bases[i] = map[string][]string{}
		for _, cmd := range aofFileCommands(t, files[0]) {
			f := strings.Fields(cmd)
			key := ""
			switch {
			case len(f) > 2 && f[0] == "XGROUP":
				key = f[2]
			case len(f) > 1:
				key = f[1]
			}
			bases[i][key] = append(bases[i][key], cmd)
		}
	}
	for _, k := range streamKeys {
		a, b := bases[0][k], bases[1][k]
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("base commands for %s:\ncorvid:\n  %s\nvalkey:\n  %s", k, strings.Join(a, "\n  "), strings.Join(b, "\n  "))
		}
	}
	// A restart loads the base and gets the same streams back, but for
	// the consumers' seen and active times (set as the XCLAIMs run) and
	// the node layout (the script made its nodes small).
	c := newClient(t, cv.Addr, 2)
	drop := []string{"seen-time", "active-time", "radix-tree-keys", "radix-tree-nodes"}
	want := map[string]string{}
	for _, k := range streamKeys {
		want[k] = xinfoWithout(t, c, k, drop...)
	}
	cv.Stop()
	cv2 := testutil.StartCorvidIn(t, cv.Dir, append([]string{"--save", ""}, args...)...)
	c2 := newClient(t, cv2.Addr, 2)
	for _, k := range streamKeys {
		if got := xinfoWithout(t, c2, k, drop...); got != want[k] {
			t.Errorf("%s after a restart:\n%.1500s\nwant\n%.1500s", k, got, want[k])
		}
	}
}

// aofFileCommands reads one AOF file's commands, the clock's values
// replaced.
func aofFileCommands(t *testing.T, path string) []string {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "appendonlydir"), 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "appendonlydir", "x.incr.aof"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return aofCommands(t, dir)
}

// xinfoWithout is XINFO STREAM key FULL COUNT 0 with the values of the
// named fields left out.
func xinfoWithout(t *testing.T, c *redis.Client, key string, fields ...string) string {
	t.Helper()
	v, err := c.Do(context.Background(), "XINFO", "STREAM", key, "FULL", "COUNT", "0").Result()
	if err != nil {
		t.Fatalf("XINFO STREAM %s FULL: %v", key, err)
	}
	var walk func(v any) any
	walk = func(v any) any {
		xs, ok := v.([]any)
		if !ok {
			return v
		}
		out := make([]any, len(xs))
		for i := 0; i < len(xs); i++ {
			out[i] = walk(xs[i])
			if s, ok := xs[i].(string); ok && i+1 < len(xs) && slices.Contains(fields, s) {
				out[i+1] = "-"
				i++
			}
		}
		return out
	}
	return fmt.Sprint(walk(v))
}
