package compat

import (
	"flag"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/corvid-kv/corvid/tests/testutil"
)

// scriptFiles lists the scripts, testdata/*.txt.
func scriptFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob("testdata/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts: %v", err)
	}
	return files
}

// TestScripts runs every script against Corvid and Valkey 8.0.1 and
// requires the same replies, byte for byte, except on the lines listed in
// corvidDifferences (Corvid's reply given there instead).
func TestScripts(t *testing.T) {
	testutil.ValkeyServerPath(t)
	// DEBUG SET-ACTIVE-EXPIRE holds stale keys still for the WATCH lines.
	corvid := testutil.StartCorvid(t, "--enable-debug-command", "yes")
	valkey := testutil.StartValkey(t, "--enable-debug-command", "yes")
	used := map[string]bool{}
	for _, f := range scriptFiles(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			runScript(t, f, corvid, valkey, func(st step, got, want string) {
				if o, ok := corvidDifferences[st.text]; ok {
					used[st.text] = true
					want = o
				}
				if got != want {
					t.Errorf("%s:%d: %s\n corvid: %s\n valkey: %s", f, st.line, st.text, got, want)
				}
			})
		})
	}
	checkAllUsed(t, "corvidDifferences", corvidDifferences, used)
}

// TestScriptsRedis runs every script against Redis 7.0.15 and Valkey
// 8.0.1, which proves redisDifferences: Redis must give the listed reply
// on each listed line, and Valkey another; on every other line the two
// must agree, except that on a line of corvidDifferences (a Valkey bug
// Corvid does not copy) Redis must give Corvid's reply. So that list
// stays the complete, current account of where the server users migrate
// from differs from Corvid's reference.
func TestScriptsRedis(t *testing.T) {
	testutil.ValkeyServerPath(t)
	testutil.RedisServerPath(t)
	redis := testutil.StartRedis(t, "--enable-debug-command", "yes")
	valkey := testutil.StartValkey(t, "--enable-debug-command", "yes")
	used := map[string]bool{}
	for _, f := range scriptFiles(t) {
		name := strings.TrimSuffix(filepath.Base(f), ".txt")
		t.Run(name, func(t *testing.T) {
			runScript(t, f, redis, valkey, func(st step, got, want string) {
				o, listed := redisDifferences[st.text]
				if c, ok := corvidDifferences[st.text]; ok && !listed {
					want = c
				}
				switch {
				case listed && got != o:
					t.Errorf("%s:%d: %s: Redis no longer gives the listed reply\n  redis: %s\n listed: %s\n valkey: %s", f, st.line, st.text, got, o, want)
				case listed && got == want:
					t.Errorf("%s:%d: %s: listed in redisDifferences but Redis and Valkey agree: %s", f, st.line, st.text, got)
				case !listed && got != want:
					t.Errorf("%s:%d: %s: not listed in redisDifferences\n  redis: %s\n valkey: %s (or Corvid's listed reply)", f, st.line, st.text, got, want)
				}
				used[st.text] = true
			})
		})
	}
	checkAllUsed(t, "redisDifferences", redisDifferences, used)
}

// checkAllUsed fails on entries of a differences list no script line
// compared: a stale entry (its line was edited or removed).
func checkAllUsed(t *testing.T, list string, m map[string]string, used map[string]bool) {
	t.Helper()
	if t.Failed() || strings.Contains(flag.Lookup("test.run").Value.String(), "/") {
		return // not every line ran
	}
	var stale []string
	for k := range m {
		if !used[k] {
			stale = append(stale, k)
		}
	}
	slices.Sort(stale)
	for _, k := range stale {
		t.Errorf("%s: %q matches no compared script line", list, k)
	}
}
