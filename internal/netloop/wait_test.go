package netloop

import (
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// hangTimeout bounds every wait in this package's tests for something a
// loop or another goroutine does on its own time. Only a hang reaches it:
// the machines that run these tests are small and noisy, and no test may
// depend on how fast they are.
const hangTimeout = 30 * time.Second

// waitFor polls cond until it holds, failing the test if it still does not
// after hangTimeout. It must run on the test's goroutine.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	if !poll(cond) {
		t.Fatalf("still waiting after %v: %s", hangTimeout, what)
	}
}

// poll is waitFor for any goroutine: it reports whether cond came to hold
// within hangTimeout.
func poll(cond func() bool) bool {
	deadline := time.Now().Add(hangTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(time.Millisecond)
	}
	return true
}

// recvWithin receives from ch, failing the test if nothing comes within
// hangTimeout.
func recvWithin[T any](t testing.TB, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(hangTimeout):
		t.Fatalf("still waiting after %v: %s", hangTimeout, what)
		panic("unreachable")
	}
}

// loopAsleep waits until the engine's (first) loop sleeps in the kernel:
// a thread of this process is in the loop's wait system call, as
// /proc/self/task/*/syscall shows (the call's number, then its first
// argument): on epoll any wait on the loop's epoll fd, on io_uring an
// io_uring_enter (nothing else in the process uses io_uring). Where /proc
// does not show system calls the test goes on without waiting.
func loopAsleep(t *testing.T, e *Engine) {
	t.Helper()
	if _, err := os.ReadFile("/proc/self/syscall"); err != nil {
		t.Logf("cannot see system calls (%v): not waiting for the loop to sleep", err)
		return
	}
	epfd := "0x" + strconv.FormatInt(int64(e.loops[0].epfd), 16)
	ringEnter := strconv.Itoa(unix.SYS_IO_URING_ENTER)
	waitFor(t, "the loop to sleep in the kernel", func() bool {
		tasks, _ := filepath.Glob("/proc/self/task/*/syscall")
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			fields := strings.Fields(string(b))
			if len(fields) < 2 {
				continue // "running", or the thread is gone
			}
			if e.URing() && fields[0] == ringEnter || !e.URing() && fields[1] == epfd {
				return true
			}
		}
		return false
	})
}

// inSyscall reports whether some goroutine is in a system call with every
// one of fns on its stack (runtime.Stack shows such a goroutine as
// "[syscall").
func inSyscall(fns ...string) bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
next:
	for _, g := range strings.Split(string(buf), "\n\n") {
		if head, _, _ := strings.Cut(g, "\n"); !strings.Contains(head, "[syscall") {
			continue
		}
		for _, fn := range fns {
			if !strings.Contains(g, fn) {
				continue next
			}
		}
		return true
	}
	return false
}
