package aof

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/corvid-kv/corvid/internal/effects"
)

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	return names
}

func TestEnable(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	// An AOF left by an earlier run with appendonly yes.
	w := openTest(t, dir, Options{})
	w.Append(cmd("SET stale 1"))
	w.Close()

	w, rw, err := Enable(dir, "appendonly.aof", Options{Fsync: FsyncAlways, FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	var u effects.Unit
	u.AddStrings(0, "SET", "during", "1")
	if err := w.WaitDurable(ctx, w.AppendUnit(&u)); err != nil {
		t.Fatal(err)
	}
	if got := dirNames(t, dir); !slices.Contains(got, "temp-appendonly.aof.incr") {
		t.Fatal(got)
	}
	if m, _ := ReadManifest(dir, "appendonly.aof"); len(m.Incr) != 1 || m.Incr[0].Seq != 1 {
		t.Fatalf("the manifest changed before the commit: %s", m)
	}
	rw.File().Write(append(cmd("SELECT 0"), cmd("SET snap 1")...))
	if err := rw.Commit(); err != nil {
		t.Fatal(err)
	}
	u.Reset()
	u.AddStrings(0, "SET", "after", "1")
	w.AppendUnit(&u)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if m, _ := ReadManifest(dir, "appendonly.aof"); m.String() != "file appendonly.aof.2.base.aof seq 2 type b\n"+
		"file appendonly.aof.2.incr.aof seq 2 type i\n" {
		t.Fatal(m)
	}
	equalStrings(t, dirNames(t, dir), []string{"appendonly.aof.2.base.aof", "appendonly.aof.2.incr.aof", "appendonly.aof.manifest"})
	var c collector
	if _, err := Load(dir, "appendonly.aof", c.opts(false)); err != nil {
		t.Fatal(err)
	}
	// The unit appended during the rewrite selects its database, and the
	// one after follows in the same file without a new SELECT.
	equalStrings(t, c.cmds, []string{"SELECT 0", "SET snap 1", "SELECT 0", "SET during 1", "SET after 1"})
}

func TestEnableAbort(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "appendonlydir")
	w, rw, err := Enable(dir, "appendonly.aof", Options{FlushInterval: -1})
	if err != nil {
		t.Fatal(err)
	}
	tk := w.Append(cmd("SET a 1"))
	rw.Abort()
	if err := w.WaitDurable(context.Background(), tk); !errors.Is(err, ErrEnableAborted) {
		t.Fatal(err)
	}
	w.Close()
	if got := dirNames(t, dir); len(got) != 0 {
		t.Errorf("left behind: %v", got)
	}
	if _, err := Load(dir, "appendonly.aof", LoadOptions{}); err != ErrNotExist {
		t.Error(err)
	}
}
