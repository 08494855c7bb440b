package aof

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestConcurrentAppendRewrite: goroutines append and wait under always
// while rewrites switch incr files and install bases (each base the
// concatenation of the files it replaces, so nothing is lost if the
// switch is right) and the background flusher runs. Loading gives every
// goroutine's commands, all of them, in its order.
func TestConcurrentAppendRewrite(t *testing.T) {
	const workers, per = 6, 150
	dir := t.TempDir()
	w, err := Open(dir, "appendonly.aof", Options{Fsync: FsyncAlways, FlushInterval: 1,
		SyncFile: func(*os.File) error { return nil }})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var wg sync.WaitGroup
	for g := 0; g < workers; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < per; i++ {
				tk := w.Append(cmd(fmt.Sprintf("SET g%d %d", g, i)))
				if err := w.WaitDurable(ctx, tk); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	stop := make(chan struct{})
	rewrites := make(chan error, 1)
	go func() {
		n := 0
		defer func() { rewrites <- nil }()
		for {
			select {
			case <-stop:
				return
			default:
			}
			rw, err := w.StartRewrite()
			if err != nil {
				rewrites <- err
				return
			}
			m := w.Manifest()
			for _, f := range m.Files()[:len(m.Files())-1] {
				b, err := os.ReadFile(filepath.Join(dir, f.Name))
				if err != nil {
					rewrites <- err
					return
				}
				rw.File().Write(b)
			}
			if n++; n%3 == 0 {
				rw.Abort()
			} else if err := rw.Commit(); err != nil {
				rewrites <- err
				return
			}
		}
	}()
	wg.Wait()
	close(stop)
	if err := <-rewrites; err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	next := make([]int, workers)
	_, err = Load(dir, "appendonly.aof", LoadOptions{Command: func(argv [][]byte) error {
		g, _ := strconv.Atoi(strings.TrimPrefix(string(argv[1]), "g"))
		i, _ := strconv.Atoi(string(argv[2]))
		if i != next[g] {
			return fmt.Errorf("g%d: %d after %d", g, i, next[g]-1)
		}
		next[g]++
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	for g, n := range next {
		if n != per {
			t.Errorf("g%d: %d commands", g, n)
		}
	}
}

func TestFsyncErrors(t *testing.T) {
	boom := errors.New("boom")
	// always: a failed fsync is final.
	w := openTest(t, t.TempDir(), Options{Fsync: FsyncAlways, SyncFile: func(*os.File) error { return boom }})
	if err := w.WaitDurable(context.Background(), w.Append(cmd("SET a 1"))); !errors.Is(err, boom) {
		t.Fatal(err)
	}
	if err := w.Sync(context.Background()); !errors.Is(err, boom) || !errors.Is(w.Err(), boom) {
		t.Fatal(err)
	}
	w.Close()
	// everysec: a failed background fsync is reported by Err (the server
	// refuses writes then, as Valkey with aof_bio_fsync_status).
	now := time.Unix(1000, 0)
	w = openTest(t, t.TempDir(), Options{Fsync: FsyncEverysec, Now: func() time.Time { return now },
		SyncFile: func(*os.File) error { return boom }})
	defer w.Close()
	now = now.Add(time.Second)
	if err := w.WaitDurable(context.Background(), w.Append(cmd("SET a 1"))); err != nil {
		t.Fatal(err) // the write itself worked
	}
	deadline := time.Now().Add(10 * time.Second) // hang detector only
	for !errors.Is(w.Err(), boom) {
		if time.Now().After(deadline) {
			t.Fatalf("Err() = %v", w.Err())
		}
		runtime.Gosched()
	}
}

// TestCloseLeavesNoGoroutines: Close stops the flusher and the fsync
// worker of every policy.
func TestCloseLeavesNoGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	for _, p := range []FsyncPolicy{FsyncAlways, FsyncEverysec, FsyncNo} {
		w, err := Open(t.TempDir(), "appendonly.aof", Options{Fsync: p, FlushInterval: time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		w.Append(cmd("SET a 1"))
		if _, err := w.StartRewrite(); err != nil {
			t.Fatal(err)
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
	}
	deadline := time.Now().Add(10 * time.Second) // hang detector only
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<16)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
		}
		runtime.Gosched()
	}
}
