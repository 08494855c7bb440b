package aof

import (
	"errors"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// TestFailing: a failed background fsync (everysec) makes the writer
// Failing and calls OnFailing(true), so a server refuses writes (MISCONF);
// the next successful write clears it and calls OnFailing(false), as
// Valkey's "AOF write error looks solved".
func TestFailing(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Unix(1700000000, 0).UnixNano())
	var failSync atomic.Bool
	failSync.Store(true)
	changes := make(chan bool, 4)
	w := openTest(t, t.TempDir(), Options{
		Fsync: FsyncEverysec,
		Now:   func() time.Time { return time.Unix(0, now.Load()) },
		SyncFile: func(f *os.File) error {
			if failSync.Load() {
				return errors.New("injected fsync failure")
			}
			return nil
		},
		OnFailing: func(f bool) { changes <- f },
	})
	defer w.Close()
	if w.Failing() {
		t.Fatal("a fresh writer is failing")
	}
	w.Append(cmd("SET a 1"))
	now.Add(int64(2 * time.Second)) // the next flush runs everysec's fsync
	if err := w.Flush(true); err != nil {
		t.Fatal(err)
	}
	if f := <-changes; !f || !w.Failing() {
		t.Fatalf("OnFailing(%v), Failing %v after a failed fsync", f, w.Failing())
	}
	failSync.Store(false)
	w.Append(cmd("SET b 2"))
	if err := w.Flush(true); err != nil {
		t.Fatal(err)
	}
	if f := <-changes; f || w.Failing() {
		t.Fatalf("OnFailing(%v), Failing %v after a good write", f, w.Failing())
	}
}
