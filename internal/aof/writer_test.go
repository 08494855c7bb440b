package aof

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/effects"
)

func TestEncoderSelect(t *testing.T) {
	var e Encoder
	var u effects.Unit
	u.AddStrings(0, "SET", "a", "1")
	b := e.AppendUnit(nil, &u)
	u.Reset()
	u.AddStrings(0, "SET", "b", "2")
	b = e.AppendUnit(b, &u)
	u.Reset()
	// A wrapped unit: no SELECT before MULTI; the SELECT goes inside.
	u.AddStrings(3, "INCR", "c")
	u.AddStrings(3, "DEL", "d")
	b = e.AppendUnit(b, &u)
	u.Reset()
	u.AddStrings(0, "FLUSHALL")
	u.AddStrings(5, "SET", "e", "5")
	u.Alone = true
	b = e.AppendUnit(b, &u)
	want := string(cmd("SELECT 0")) + string(cmd("SET a 1")) + string(cmd("SET b 2")) +
		string(cmd("MULTI")) + string(cmd("SELECT 3")) + string(cmd("INCR c")) + string(cmd("DEL d")) + string(cmd("EXEC")) +
		string(cmd("SELECT 0")) + string(cmd("FLUSHALL")) + string(cmd("SELECT 5")) + string(cmd("SET e 5"))
	if string(b) != want {
		t.Fatalf("got\n%q\nwant\n%q", b, want)
	}
	if s := string(AppendSelect(nil, 12)); s != "*2\r\n$6\r\nSELECT\r\n$2\r\n12\r\n" {
		t.Error(s)
	}
}

func openTest(t *testing.T, dir string, o Options) *Writer {
	t.Helper()
	if o.FlushInterval == 0 {
		o.FlushInterval = -1
	}
	w, err := Open(dir, "appendonly.aof", o)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func TestOpenFreshDir(t *testing.T) {
	for _, rdb := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "appendonlydir")
		w := openTest(t, dir, Options{RDBPreamble: rdb})
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		base := "appendonly.aof.1.base.aof"
		if rdb {
			base = "appendonly.aof.1.base.rdb"
		}
		want := "file " + base + " seq 1 type b\nfile appendonly.aof.1.incr.aof seq 1 type i\n"
		data, _ := os.ReadFile(filepath.Join(dir, "appendonly.aof.manifest"))
		if string(data) != want {
			t.Errorf("manifest %q want %q", data, want)
		}
		b, _ := os.ReadFile(filepath.Join(dir, base))
		if rdb && string(b) != string(emptyRDB) || !rdb && len(b) != 0 {
			t.Errorf("base %q", b)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	for _, policy := range []FsyncPolicy{FsyncAlways, FsyncEverysec, FsyncNo} {
		t.Run(policy.String(), func(t *testing.T) {
			dir := filepath.Join(dir, policy.String())
			w := openTest(t, dir, Options{Fsync: policy})
			var u effects.Unit
			u.AddStrings(0, "SET", "k", "v")
			w.AppendUnit(&u)
			u.Reset()
			u.AddStrings(1, "RPUSH", "l", "a", "b")
			u.AddStrings(1, "UNLINK", "old")
			tk := w.AppendUnit(&u)
			if err := w.WaitDurable(ctx, tk); err != nil {
				t.Fatal(err)
			}
			w.Append(cmd("SET raw 1")) // raw: the next unit selects again
			u.Reset()
			u.Add(1, []byte("SET"), []byte("bin\r\n\x00"), []byte(""))
			w.AppendUnit(&u)
			if err := w.Close(); err != nil {
				t.Fatal(err)
			}
			// Reopen: appends continue the same incr file.
			w = openTest(t, dir, Options{Fsync: policy})
			u.Reset()
			u.AddStrings(1, "DEL", "k")
			w.AppendUnit(&u)
			if err := w.Sync(ctx); err != nil {
				t.Fatal(err)
			}
			w.Close()
			var c collector
			res, err := Load(dir, "appendonly.aof", c.opts(false))
			if err != nil {
				t.Fatal(err)
			}
			equalStrings(t, c.cmds, []string{"SELECT 0", "SET k v", "MULTI", "SELECT 1", "RPUSH l a b", "UNLINK old", "EXEC",
				"SET raw 1", "SELECT 1", "SET bin\r\n\x00 ", "SELECT 1", "DEL k"})
			if res.Commands != 12 || res.Truncated || len(res.Manifest.Incr) != 1 {
				t.Errorf("%+v", res)
			}
		})
	}
}

func TestTimestamps(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1700000000, 0)
	w := openTest(t, dir, Options{Timestamps: true, Fsync: FsyncNo, Now: func() time.Time { return now }})
	var u effects.Unit
	u.AddStrings(0, "SET", "a", "1")
	w.AppendUnit(&u)
	u.Reset()
	u.AddStrings(0, "SET", "b", "2")
	w.AppendUnit(&u)
	now = now.Add(1500 * time.Millisecond)
	u.Reset()
	u.AddStrings(2, "SET", "c", "3")
	u.AddStrings(2, "SET", "d", "4")
	w.AppendUnit(&u)
	w.Close()
	data, _ := os.ReadFile(filepath.Join(dir, "appendonly.aof.1.incr.aof"))
	want := "#TS:1700000000\r\n" + string(cmd("SELECT 0")) + string(cmd("SET a 1")) + string(cmd("SET b 2")) +
		"#TS:1700000001\r\n" + string(cmd("MULTI")) + string(cmd("SELECT 2")) + string(cmd("SET c 3")) +
		string(cmd("SET d 4")) + string(cmd("EXEC"))
	if string(data) != want {
		t.Fatalf("%q\nwant\n%q", data, want)
	}
	var c collector
	if _, err := Load(dir, "appendonly.aof", c.opts(false)); err != nil {
		t.Fatal(err)
	}
	if len(c.cmds) != 8 {
		t.Error(c.cmds)
	}
}

// syncHook counts fsyncs and records, for each, how many bytes of the
// file it covered (the file's size when it started).
type syncHook struct {
	mu      sync.Mutex
	calls   int
	covered int64 // the most bytes a finished fsync covered
	first   chan struct{}
	release chan struct{}
}

func (h *syncHook) sync(f *os.File) error {
	st, err := f.Stat()
	if err != nil {
		return err
	}
	h.mu.Lock()
	h.calls++
	n := h.calls
	h.mu.Unlock()
	if n == 1 && h.first != nil {
		close(h.first)
		<-h.release
	}
	h.mu.Lock()
	h.covered = max(h.covered, st.Size())
	h.mu.Unlock()
	return nil
}

func TestGroupCommit(t *testing.T) {
	const n = 50
	dir := t.TempDir()
	h := &syncHook{first: make(chan struct{}), release: make(chan struct{})}
	w := openTest(t, dir, Options{Fsync: FsyncAlways, SyncFile: h.sync})
	defer w.Close()
	ctx := context.Background()
	var appended sync.WaitGroup
	appended.Add(n)
	errs := make(chan string, n)
	var done sync.WaitGroup
	for i := 0; i < n; i++ {
		done.Add(1)
		go func() {
			defer done.Done()
			tk := w.Append(cmd("SET key val"))
			appended.Done()
			if err := w.WaitDurable(ctx, tk); err != nil {
				errs <- err.Error()
				return
			}
			h.mu.Lock()
			covered := h.covered
			h.mu.Unlock()
			// Tickets are offsets in the (fresh) incr file.
			if covered < int64(tk) {
				errs <- "returned before an fsync covered its append"
			}
		}()
	}
	// The first fsync blocks until every goroutine has appended: the
	// next one must cover all the rest.
	<-h.first
	appended.Wait()
	close(h.release)
	done.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	h.mu.Lock()
	calls := h.calls
	h.mu.Unlock()
	if calls >= n || calls > 2 {
		t.Errorf("%d fsyncs for %d appends", calls, n)
	}
	if s := w.Stats(); s.Durable != s.Appended || s.Appended != int64(n*len(cmd("SET key val"))) {
		t.Errorf("%+v", s)
	}
}

func TestGroupCommitAppendDuringFsync(t *testing.T) {
	// An append made while an fsync runs is not covered by it: its
	// waiter must wait for the next one.
	dir := t.TempDir()
	h := &syncHook{first: make(chan struct{}), release: make(chan struct{})}
	w := openTest(t, dir, Options{Fsync: FsyncAlways, SyncFile: h.sync})
	defer w.Close()
	ctx := context.Background()
	t1 := w.Append(cmd("SET a 1"))
	res := make(chan error)
	go func() { res <- w.WaitDurable(ctx, t1) }()
	<-h.first
	t2 := w.Append(cmd("SET b 2"))
	res2 := make(chan error)
	go func() { res2 <- w.WaitDurable(ctx, t2) }()
	close(h.release)
	if err := <-res; err != nil {
		t.Fatal(err)
	}
	if err := <-res2; err != nil {
		t.Fatal(err)
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.calls != 2 || h.covered < int64(t2) {
		t.Errorf("calls %d covered %d t2 %d", h.calls, h.covered, t2)
	}
}

func TestWaitDurableContext(t *testing.T) {
	dir := t.TempDir()
	h := &syncHook{first: make(chan struct{}), release: make(chan struct{})}
	w := openTest(t, dir, Options{Fsync: FsyncAlways, SyncFile: h.sync})
	t1 := w.Append(cmd("SET a 1"))
	go w.WaitDurable(context.Background(), t1)
	<-h.first
	ctx, cancel := context.WithCancel(context.Background())
	t2 := w.Append(cmd("SET b 2"))
	cancel()
	if err := w.WaitDurable(ctx, t2); err != context.Canceled {
		t.Errorf("got %v", err)
	}
	close(h.release)
	w.Close()
	if err := w.WaitDurable(context.Background(), w.Append(cmd("SET c 3"))); err != ErrClosed {
		t.Errorf("append after close: %v", err)
	}
}

func TestEverysecPostpone(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1000, 0)
	h := &syncHook{first: make(chan struct{}), release: make(chan struct{})}
	var logs []string
	var logMu sync.Mutex
	w := openTest(t, dir, Options{Fsync: FsyncEverysec, SyncFile: h.sync, Now: func() time.Time { return now },
		Logf: func(f string, a ...any) { logMu.Lock(); logs = append(logs, f); logMu.Unlock() }})
	ctx := context.Background()
	a := cmd("SET a 1")
	if err := w.WaitDurable(ctx, w.Append(a)); err != nil {
		t.Fatal(err)
	}
	if s := w.Stats(); s.Written != int64(len(a)) || s.Fsyncs != 0 {
		t.Fatalf("written at once, no fsync within the second: %+v", s)
	}
	now = now.Add(time.Second)
	if err := w.WaitDurable(ctx, w.Append(a)); err != nil {
		t.Fatal(err)
	}
	<-h.first // the background fsync is running (and blocked)
	tk := w.Append(a)
	if err := w.WaitDurable(ctx, tk); err != nil {
		t.Fatal(err)
	}
	if s := w.Stats(); s.Written != 2*int64(len(a)) || s.Buffered != len(a) {
		t.Fatalf("the write is postponed while the fsync runs: %+v", s)
	}
	now = now.Add(1900 * time.Millisecond)
	w.Flush(false)
	if s := w.Stats(); s.Buffered != len(a) || s.DelayedFsync != 0 {
		t.Fatalf("still postponed under two seconds: %+v", s)
	}
	now = now.Add(200 * time.Millisecond)
	w.Flush(false)
	if s := w.Stats(); s.Buffered != 0 || s.DelayedFsync != 1 || s.Durable != int64(tk) {
		t.Fatalf("written after two seconds, counted as delayed: %+v", s)
	}
	close(h.release)
	w.Close()
	logMu.Lock()
	defer logMu.Unlock()
	if !slices.ContainsFunc(logs, func(s string) bool { return strings.HasPrefix(s, "Asynchronous AOF fsync is taking too long") }) {
		t.Error(logs)
	}
}

func TestEverysecFsyncWithoutWrites(t *testing.T) {
	// Written but unsynced data gets its fsync a second later even with
	// no new writes (flushAppendOnlyFile with an empty buffer).
	dir := t.TempDir()
	now := time.Unix(1000, 0)
	h := &syncHook{}
	w := openTest(t, dir, Options{Fsync: FsyncEverysec, SyncFile: h.sync, Now: func() time.Time { return now }})
	w.WaitDurable(context.Background(), w.Append(cmd("SET a 1")))
	w.Flush(false)
	if w.Stats().Fsyncs != 0 {
		t.Fatal("fsync within the second")
	}
	now = now.Add(time.Second)
	w.Flush(false)
	w.Close() // waits for the background worker
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.calls != 2 { // the background fsync, and Close's
		t.Errorf("fsyncs %d", h.calls)
	}
}

func TestRewrite(t *testing.T) {
	for _, gc := range []bool{true, false} {
		dir := t.TempDir()
		ctx := context.Background()
		w := openTest(t, dir, Options{Fsync: FsyncAlways, DisableAutoGC: !gc})
		w.Append(cmd("SET a 1"))
		w.Sync(ctx)
		rw, err := w.StartRewrite()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.StartRewrite(); err != ErrRewriteInProgress {
			t.Fatal(err)
		}
		m := w.Manifest()
		if len(m.Incr) != 2 || m.Incr[1].Name != "appendonly.aof.2.incr.aof" {
			t.Fatal(m)
		}
		var u effects.Unit
		u.AddStrings(0, "SET", "b", "2") // after the snapshot point: into incr 2, with its SELECT
		w.AppendUnit(&u)
		rw.File().Write(AppendSelect(nil, 0))
		rw.File().Write(cmd("SET a 1"))
		if err := rw.Commit(); err != nil {
			t.Fatal(err)
		}
		w.Sync(ctx)
		w.Close()
		data, _ := os.ReadFile(filepath.Join(dir, "appendonly.aof.manifest"))
		want := "file appendonly.aof.2.base.aof seq 2 type b\nfile appendonly.aof.2.incr.aof seq 2 type i\n"
		files := []string{"appendonly.aof.2.base.aof", "appendonly.aof.2.incr.aof", "appendonly.aof.manifest"}
		if !gc {
			want = "file appendonly.aof.2.base.aof seq 2 type b\n" +
				"file appendonly.aof.1.incr.aof seq 1 type h\nfile appendonly.aof.1.base.aof seq 1 type h\n" +
				"file appendonly.aof.2.incr.aof seq 2 type i\n"
			files = []string{"appendonly.aof.1.base.aof", "appendonly.aof.1.incr.aof", "appendonly.aof.2.base.aof",
				"appendonly.aof.2.incr.aof", "appendonly.aof.manifest"}
		}
		if string(data) != want {
			t.Errorf("manifest\n%s\nwant\n%s", data, want)
		}
		var names []string
		ents, _ := os.ReadDir(dir)
		for _, e := range ents {
			names = append(names, e.Name())
		}
		equalStrings(t, names, files)
		var c collector
		if _, err := Load(dir, "appendonly.aof", c.opts(false)); err != nil {
			t.Fatal(err)
		}
		equalStrings(t, c.cmds, []string{"SELECT 0", "SET a 1", "SELECT 0", "SET b 2"})
		if !gc {
			// Opening with GC on deletes the history left behind.
			w = openTest(t, dir, Options{})
			w.Close()
			if m, _ := ReadManifest(dir, "appendonly.aof"); len(m.History) != 0 {
				t.Error(m)
			}
			if _, err := os.Stat(filepath.Join(dir, "appendonly.aof.1.base.aof")); !os.IsNotExist(err) {
				t.Error("history file kept")
			}
		}
	}
}

func TestRewriteAbort(t *testing.T) {
	dir := t.TempDir()
	w := openTest(t, dir, Options{})
	rw, err := w.StartRewrite()
	if err != nil {
		t.Fatal(err)
	}
	rw.File().Write([]byte("junk"))
	if err := rw.Abort(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	m, _ := ReadManifest(dir, "appendonly.aof")
	if len(m.Incr) != 2 || m.Base.Seq != 1 {
		t.Error(m)
	}
	if _, err := os.Stat(rw.tmpPath); !os.IsNotExist(err) {
		t.Error("temp base left behind")
	}
}

func TestOpenBadManifest(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "appendonly.aof.manifest"), []byte("file x seq 1 type z\n"), 0o644)
	if _, err := Open(dir, "appendonly.aof", Options{FlushInterval: -1}); err == nil || err.Error() !=
		"aof: manifest line 1 ('file x seq 1 type z'): Unknown AOF file type" {
		t.Fatal(err)
	}
}

func TestPrepareSwitch(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	h := &syncHook{}
	w := openTest(t, dir, Options{Fsync: FsyncAlways, SyncFile: h.sync})
	var u effects.Unit
	u.AddStrings(4, "SET", "a", "1")
	w.AppendUnit(&u)
	w.Sync(ctx)
	rw, err := w.PrepareRewrite()
	if err != nil {
		t.Fatal(err)
	}
	if err := rw.Commit(); err != ErrNotSwitched && !strings.Contains(fmt.Sprint(err), ErrNotSwitched.Error()) {
		t.Fatalf("commit before switch: %v", err)
	}
	rw, err = w.PrepareRewrite() // the failed commit ended that rewrite; its incr stays listed
	if err != nil {
		t.Fatal(err)
	}
	u.Reset()
	u.AddStrings(4, "SET", "b", "2") // before the switch, buffered: to the old file
	before := w.AppendUnit(&u)
	rw.Switch()
	if s := w.Stats(); s.IncrName != "appendonly.aof.1.incr.aof" {
		t.Fatalf("switched before the flush: %+v", s)
	}
	u.Reset()
	u.AddStrings(4, "SET", "c", "3") // after: to the new file, with its SELECT
	after := w.AppendUnit(&u)
	if err := w.WaitDurable(ctx, after); err != nil || before > after {
		t.Fatal(err)
	}
	if s := w.Stats(); s.IncrName != "appendonly.aof.3.incr.aof" {
		t.Fatalf("%+v", s)
	}
	read := func(name string) string {
		b, _ := os.ReadFile(filepath.Join(dir, name))
		return string(b)
	}
	if got, want := read("appendonly.aof.1.incr.aof"), string(cmd("SELECT 4"))+string(cmd("SET a 1"))+string(cmd("SET b 2")); got != want {
		t.Errorf("old incr %q want %q", got, want)
	}
	if got := read("appendonly.aof.2.incr.aof"); got != "" {
		t.Errorf("the abandoned incr %q", got)
	}
	if got, want := read("appendonly.aof.3.incr.aof"), string(cmd("SELECT 4"))+string(cmd("SET c 3")); got != want {
		t.Errorf("new incr %q want %q", got, want)
	}
	rw.File().Write(append(cmd("SELECT 4"), append(cmd("SET a 1"), cmd("SET b 2")...)...))
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if m, _ := ReadManifest(dir, "appendonly.aof"); m.String() != "file appendonly.aof.2.base.aof seq 2 type b\n"+
		"file appendonly.aof.3.incr.aof seq 3 type i\n" {
		t.Errorf("manifest %s", m)
	}
	var c collector
	if _, err := Load(dir, "appendonly.aof", c.opts(false)); err != nil {
		t.Fatal(err)
	}
	equalStrings(t, c.cmds, []string{"SELECT 4", "SET a 1", "SET b 2", "SELECT 4", "SET c 3"})
}

func TestWaitDurableBeyondAppended(t *testing.T) {
	w := openTest(t, t.TempDir(), Options{Fsync: FsyncAlways})
	defer w.Close()
	tk := w.Append(cmd("SET a 1"))
	if err := w.WaitDurable(context.Background(), tk+1000); err != nil {
		t.Fatal(err)
	}
}

func TestNoFsyncOnRewrite(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	var mu sync.Mutex
	var synced []string
	w := openTest(t, dir, Options{Fsync: FsyncAlways, NoFsyncOnRewrite: true, SyncFile: func(f *os.File) error {
		mu.Lock()
		synced = append(synced, filepath.Base(f.Name()))
		mu.Unlock()
		return nil
	}})
	count := func(name string) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, s := range synced {
			if s == name {
				n++
			}
		}
		return n
	}
	rw, err := w.PrepareRewrite()
	if err != nil {
		t.Fatal(err)
	}
	if err := w.WaitDurable(ctx, w.Append(cmd("SET a 1"))); err != nil {
		t.Fatal(err)
	}
	rw.Switch()
	if err := w.WaitDurable(ctx, w.Append(cmd("SET b 2"))); err != nil {
		t.Fatal(err)
	}
	if n := count("appendonly.aof.2.incr.aof"); n != 0 {
		t.Fatalf("fsynced during the rewrite: %v", synced)
	}
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := w.WaitDurable(ctx, w.Append(cmd("SET c 3"))); err != nil {
		t.Fatal(err)
	}
	if n := count("appendonly.aof.2.incr.aof"); n != 1 {
		t.Fatalf("no fsync after the rewrite: %v", synced)
	}
	w.Close() // waits for the background fsync-and-close of the old incr
	if n := count("appendonly.aof.1.incr.aof"); n != 1 {
		t.Fatalf("the old incr was closed without its fsync: %v", synced)
	}
}
