package compat

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/resp"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// step is one line of a script.
type step struct {
	line    int
	text    string
	argv    []string
	sleep   time.Duration
	compare bool // false for "@any": run on both, ignore replies
}

// parseScript reads a script: one command per line in redis-cli syntax
// (quotes and \x escapes as in valkey-cli), '#' comments, and directives:
//
//	@sleep <ms>     wait (for expiry tests)
//	@any <command>  run on both servers without comparing replies
func parseScript(t *testing.T, path string) []step {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var steps []step
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		st := step{line: n, text: line, compare: true}
		switch {
		case strings.HasPrefix(line, "@sleep "):
			d, err := time.ParseDuration(strings.TrimSpace(line[7:]) + "ms")
			if err != nil {
				t.Fatalf("%s:%d: %v", path, n, err)
			}
			st.sleep = d
			steps = append(steps, st)
			continue
		case strings.HasPrefix(line, "@any "):
			st.compare = false
			line = line[5:]
			st.text = line
		}
		args, ok := resp.SplitArgs(nil, []byte(line))
		if !ok {
			t.Fatalf("%s:%d: unbalanced quotes", path, n)
		}
		for _, a := range args {
			st.argv = append(st.argv, string(a))
		}
		steps = append(steps, st)
	}
	return steps
}

// runScript runs the script on two servers (the one under test and its
// reference) over fresh connections, and hands check every pair of
// replies the script compares (not @any lines, not ignoredCommands).
func runScript(t *testing.T, path string, subject, ref *testutil.Proc, check func(st step, got, want string)) {
	steps := parseScript(t, path)
	sc := testutil.Dial(t, subject.Addr)
	rc := testutil.Dial(t, ref.Addr)
	sc.Do("FLUSHALL")
	rc.Do("FLUSHALL")
	for _, st := range steps {
		if st.sleep > 0 {
			time.Sleep(st.sleep)
			continue
		}
		got := sc.Do(st.argv...)
		want := rc.Do(st.argv...)
		if !st.compare || ignoredCommands[strings.ToUpper(st.text)] {
			continue
		}
		check(st, got, want)
	}
}
