package server

import (
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/corvid-kv/corvid/internal/aof"
	"github.com/corvid-kv/corvid/tests/testutil"
)

// TestMISCONFAOF: once the AOF's background fsync fails (everysec), write
// commands and PING get Valkey's "MISCONF Errors writing to the AOF file:
// <strerror>" and reads go on; the next successful write of the AOF lets
// writes in again. The writer is the server's own kind of generation,
// with a SyncFile that fails on demand.
func TestMISCONFAOF(t *testing.T) {
	s := listenServer(t, "", "--port", "0", "--bind", "127.0.0.1", "--save", "")
	var now atomic.Int64
	now.Store(time.Unix(1700000000, 0).UnixNano())
	var fail atomic.Bool
	opts, err := s.aofOptions()
	if err != nil {
		t.Fatal(err)
	}
	opts.FlushInterval = -1 // the test drives the writer
	opts.Now = func() time.Time { return time.Unix(0, now.Load()) }
	opts.SyncFile = func(f *os.File) error {
		if fail.Load() {
			return syscall.ENOSPC
		}
		return nil
	}
	w, err := aof.Open(filepath.Join(t.TempDir(), "appendonlydir"), "appendonly.aof", opts)
	if err != nil {
		t.Fatal(err)
	}
	s.attachGen(s.newGen(w, opts))
	s.aof.enabled.Store(true)
	go s.Serve()
	t.Cleanup(s.Close)
	c := testutil.Dial(t, s.Addr())
	if got := c.Do("SET", "k", "v"); got != "+OK" {
		t.Fatal(got)
	}
	// Everysec's fsync runs on the next flush a second later; it fails.
	fail.Store(true)
	now.Add(int64(2 * time.Second))
	w.Flush(true)
	const misconf = "-MISCONF Errors writing to the AOF file: No space left on device"
	waitFor(t, "the failed fsync to refuse writes", func() bool { return c.Do("PING") == misconf })
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"SET", "k", "w"}, misconf},
		{[]string{"INCR", "n"}, misconf},
		{[]string{"GET", "k"}, `"v"`},
	} {
		if got := c.Do(tc.args...); got != tc.want {
			t.Errorf("%q: %s, want %s", tc.args, got, tc.want)
		}
	}
	if got := c.Do("INFO", "persistence"); !strings.Contains(got, `aof_last_write_status:err\r\n`) {
		t.Errorf("INFO: %s", got)
	}
	// A good write clears it (Valkey's "AOF write error looks solved").
	fail.Store(false)
	w.Append([]byte("*1\r\n$4\r\nPING\r\n"))
	w.Flush(true)
	if got := c.Do("SET", "k", "x"); got != "+OK" {
		t.Errorf("SET after the AOF recovered: %s", got)
	}
}
