package integration

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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
