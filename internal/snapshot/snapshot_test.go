package snapshot_test

import (
	"bytes"
	"errors"
	"sort"
	"strconv"
	"testing"

	"github.com/corvid-kv/corvid/internal/config"
	"github.com/corvid-kv/corvid/internal/rdb"
	"github.com/corvid-kv/corvid/internal/server"
	"github.com/corvid-kv/corvid/internal/snapshot"
	"github.com/corvid-kv/corvid/tests/testutil"
)

func startServer(t *testing.T) (*server.Server, *testutil.Raw) {
	t.Helper()
	cfg, err := config.Load("", []string{"--port", "0", "--bind", "127.0.0.1", "--save", "", "--dir", t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Listen(); err != nil {
		t.Fatal(err)
	}
	go s.Serve()
	t.Cleanup(s.Close)
	return s, testutil.Dial(t, s.Addr())
}

// load reads an RDB image into "db key=value" lines, sorted.
func load(t *testing.T, b []byte) []string {
	t.Helper()
	var out []string
	l := rdb.Loader{OnEntry: func(e *rdb.Entry) error {
		out = append(out, strconv.Itoa(e.DB)+" "+string(e.Key)+"="+string(e.String))
		return nil
	}}
	if _, err := l.Load(bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func mustDo(t *testing.T, c *testutil.Raw, want string, args ...string) {
	t.Helper()
	if got := c.Do(args...); got != want {
		t.Fatalf("%q: %s, want %s", args, got, want)
	}
}

// TestPointInTime: what changes after Begin, by single writes or by
// FLUSHDB and SWAPDB, which change databases wholesale, is saved as it was
// at Begin.
func TestPointInTime(t *testing.T) {
	s, c := startServer(t)
	var want []string
	for dbi := range 2 {
		mustDo(t, c, "+OK", "SELECT", strconv.Itoa(dbi))
		for i := range 500 {
			k, v := "k"+strconv.Itoa(i), "v"+strconv.Itoa(dbi)
			mustDo(t, c, "+OK", "SET", k, v)
			want = append(want, strconv.Itoa(dbi)+" "+k+"="+v)
		}
	}
	sort.Strings(want)
	snap := snapshot.Begin(s.Keyspace(), snapshot.Options{RDB: rdb.DefaultOptions(), ChunkKeys: 16})
	mustDo(t, c, "+OK", "SET", "k1", "changed") // db 1
	mustDo(t, c, ":1", "DEL", "k2")
	mustDo(t, c, "+OK", "SET", "created", "after")
	mustDo(t, c, "+OK", "SWAPDB", "0", "1")
	mustDo(t, c, "+OK", "FLUSHDB")
	mustDo(t, c, "+OK", "SET", "k3", "after the flush")
	var buf bytes.Buffer
	stats, err := snap.Save(&buf)
	if err != nil {
		t.Fatal(err)
	}
	got := load(t, buf.Bytes())
	if strJoin(got) != strJoin(want) {
		t.Errorf("snapshot holds %d keys, want the %d at Begin; first differences:\n%s", len(got), len(want), firstDiff(got, want))
	}
	if stats.Keys != int64(len(want)) || stats.Copied == 0 {
		t.Errorf("stats %+v: want %d keys, some copied", stats, len(want))
	}
	// After Save the keyspace has no PreWriter: writes cost nothing more.
	mustDo(t, c, "+OK", "SET", "k4", "later")
}

// TestFlushAllAborts: FLUSHALL during a snapshot ends it, as Valkey's
// FLUSHALL kills its saving child.
func TestFlushAllAborts(t *testing.T) {
	s, c := startServer(t)
	mustDo(t, c, "+OK", "SET", "a", "1")
	snap := snapshot.Begin(s.Keyspace(), snapshot.Options{RDB: rdb.DefaultOptions()})
	mustDo(t, c, "+OK", "FLUSHALL")
	if _, err := snap.Save(&bytes.Buffer{}); !errors.Is(err, snapshot.ErrAborted) {
		t.Fatalf("Save after FLUSHALL: %v, want ErrAborted", err)
	}
	// The keyspace works on, and a new snapshot can start.
	mustDo(t, c, "+OK", "SET", "b", "2")
	var buf bytes.Buffer
	if _, err := snapshot.Begin(s.Keyspace(), snapshot.Options{RDB: rdb.DefaultOptions()}).Save(&buf); err != nil {
		t.Fatal(err)
	}
	if got := load(t, buf.Bytes()); strJoin(got) != "0 b=2" {
		t.Errorf("second snapshot: %q", got)
	}
}

func strJoin(s []string) string {
	var b bytes.Buffer
	for i, x := range s {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(x)
	}
	return b.String()
}

func firstDiff(got, want []string) string {
	gs, ws := map[string]bool{}, map[string]bool{}
	for _, g := range got {
		gs[g] = true
	}
	for _, w := range want {
		ws[w] = true
	}
	var out []string
	for _, g := range got {
		if !ws[g] {
			out = append(out, "+ "+g)
		}
	}
	for _, w := range want {
		if !gs[w] {
			out = append(out, "- "+w)
		}
	}
	if len(out) > 10 {
		out = out[:10]
	}
	return strJoin(out)
}
